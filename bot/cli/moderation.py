"""Moderation on the command line (SPEC 5 and 9.4): as /match, /admin and /season, by a
moderator; `report` records and applies a match at once.
"""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Sequence

from bot.cli.common import (
    CLI_ACTOR,
    id_argument,
    no_numbered_guests,
    on_the_database,
    print_json,
    print_lines,
    whole_argument,
    with_services,
)
from bot.cli.parsing import EXIT_OK, Handler, Parser, Streams, UsageError
from bot.config import (
    GuildSettings,
    SettingError,
    finite_number,
)
from bot.present.lines import (
    match_line,
    match_lines,
    season_line,
    settings_lines,
)
from bot.present.words import (
    member_text,
    participant_move,
    replayed_text,
    settings_changed,
)
from bot.services import (
    Match,
    Services,
    parse_lineup,
)
from bot.services.season_rules import CARRY_RULE
from bot.services.settings import SETTING_NAMES
from bot.services.shapes import match_object, season_object

_match_id = id_argument("match id")


_count = whole_argument(1, 1_000_000, "a whole number")


def _carry(text: str) -> float:
    try:
        return finite_number(text)
    except SettingError:
        raise argparse.ArgumentTypeError(f"carry {text!r} must be {CARRY_RULE}") from None


def run_report(arguments: argparse.Namespace, streams: Streams) -> int:
    """`report 'LINEUP'`: records and applies one match at once."""
    lineup = parse_lineup(arguments.lineup)
    no_numbered_guests(entry.player for entry in lineup)
    request_id = f"cli:{uuid.uuid4().hex}"  # a retry after a lost commit stores it once

    async def report(services: Services) -> list[str]:
        result = await services.matches.report(
            arguments.guild, CLI_ACTOR, lineup, request_id=request_id
        )
        match = result.match
        return [f"match #{match.id} {match.status}"] + [
            f"{member_text(p.name, p.user_id)}: "
            + (participant_move(p, match.status) or "not rated yet")
            for p in match.participants
        ]

    print("\n".join(with_services(arguments, report, creates=True)), file=streams.stdout)
    return EXIT_OK


def run_matches(arguments: argparse.Namespace, streams: Streams) -> int:
    """`matches [--member M] [--limit N]`: the guild's matches, newest first, with state."""

    async def listed(services: Services) -> list[Match]:
        user_id = None
        if arguments.member is not None:
            user_id = (await services.members.find(arguments.guild, arguments.member)).user_id
        return await services.matches.list_matches(arguments.guild, user_id, limit=arguments.limit)

    found = with_services(arguments, listed)
    if arguments.json:
        return print_json([match_object(match) for match in found], streams)
    return print_lines(map(match_line, found), streams) if found else EXIT_OK


def run_match(arguments: argparse.Namespace, streams: Streams) -> int:
    """`match ID`: one match as /match show shows it, with its earlier lineups."""

    shown = with_services(
        arguments, lambda services: services.matches.shown(arguments.guild, arguments.match)
    )
    if arguments.json:
        return print_json(match_object(shown.match, shown.edits), streams)
    return print_lines(match_lines(shown.match, shown.edits), streams)


def run_void(arguments: argparse.Namespace, streams: Streams) -> int:
    """`void ID [--reason TEXT]`: as /admin void."""
    result = with_services(
        arguments,
        lambda services: services.matches.void(
            arguments.guild, CLI_ACTOR, arguments.match, arguments.reason
        ),
    )
    return print_lines(
        [
            f"match #{result.match.id} is void; {replayed_text(result.replayed)}",
            *match_lines(result.match, ())[1:],
        ],
        streams,
    )


def run_confirm(arguments: argparse.Namespace, streams: Streams) -> int:
    """`confirm ID`: as /match confirm by a moderator (a disputed match too)."""
    result = with_services(
        arguments,
        lambda services: services.matches.confirm(arguments.guild, CLI_ACTOR, arguments.match),
    )
    done = "is applied" if result.applied_now else "was already applied"
    lines = match_lines(result.match, ())
    return print_lines([f"match #{result.match.id} {done}", *lines[1:]], streams)


def run_edit(arguments: argparse.Namespace, streams: Streams) -> int:
    """`edit ID 'LINEUP'`: as /admin edit; the old lineup stays in the match's history."""
    lineup = parse_lineup(arguments.lineup)
    no_numbered_guests(entry.player for entry in lineup)
    result = with_services(
        arguments,
        lambda services: services.matches.edit(arguments.guild, CLI_ACTOR, arguments.match, lineup),
    )
    return print_lines(
        [
            f"match #{result.match.id} is edited (it was: {result.old_lineup}); "
            f"{replayed_text(result.replayed)}",
            *match_lines(result.match, ())[1:],
        ],
        streams,
    )


def _setting_changes(pairs: Sequence[str]) -> dict[str, str]:
    """NAME=VALUE arguments as changes (the values are checked by the settings' rules)."""
    changes: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        name = name.strip()
        if not equals:
            raise UsageError(f"{pair!r} must be NAME=VALUE, such as t=120")
        if name not in SETTING_NAMES:
            raise UsageError(f"setting {name!r} must be one of {', '.join(SETTING_NAMES)}")
        if name in changes:
            raise UsageError(f"setting {name!r} is given twice; give each once")
        changes[name] = value.strip()
    return changes


def run_settings(arguments: argparse.Namespace, streams: Streams) -> int:
    """`settings [NAME=VALUE …]`: shows the guild's settings, or changes them first."""
    changes = _setting_changes(arguments.changes)

    async def settings(services: Services) -> tuple[GuildSettings, list[str]]:
        if not changes:
            return await services.settings.current(arguments.guild), []
        result = await services.settings.change(arguments.guild, CLI_ACTOR, changes)
        changed = {name: getattr(result.settings, name) for name in changes}
        return result.settings, [settings_changed(changed, result.replayed)]

    found, notes = with_services(arguments, settings, creates=bool(changes))
    return print_lines([*notes, *settings_lines(found)], streams)


def run_season_start(arguments: argparse.Namespace, streams: Streams) -> int:
    """`season start NAME [--carry X]`: as /admin season start."""
    season = with_services(
        arguments,
        lambda services: services.seasons.start(
            arguments.guild, CLI_ACTOR, arguments.name, arguments.carry
        ),
        creates=True,
    )
    kept = (
        "ratings restart from the initial rating"
        if season.carry == 0
        else f"ratings keep {season.carry:.0%} of their distance to the initial rating"
    )
    return print_lines([f"season {season.name!r} started: {kept}, records restart at 0"], streams)


def run_season_list(arguments: argparse.Namespace, streams: Streams) -> int:
    """`season list [--json]`: every season, oldest first; the last is under way."""
    found = with_services(arguments, lambda services: services.seasons.season_list(arguments.guild))
    if arguments.json:
        return print_json([season_object(season) for season in found], streams)
    return print_lines(map(season_line, found), streams)


def _on_a_match(command: Parser, handler: Handler) -> None:
    """A command on one match of the guild: its ID first."""
    on_the_database(command, handler)
    command.add_argument("match", type=_match_id, metavar="ID")


def define_report(command: Parser) -> None:
    on_the_database(command, run_report)
    command.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")


def define_matches(command: Parser) -> None:
    on_the_database(command, run_matches)
    command.add_argument("--member", metavar="M", help="only this member's (user id or name)")
    command.add_argument("--limit", type=_count, metavar="N", help="the newest N only")
    command.add_argument("--json", action="store_true", help="a JSON list")


def define_match(command: Parser) -> None:
    _on_a_match(command, run_match)
    command.add_argument("--json", action="store_true", help="one JSON object")


def define_void(command: Parser) -> None:
    _on_a_match(command, run_void)
    command.add_argument("--reason", metavar="TEXT", help="why (shown on the match)")


def define_confirm(command: Parser) -> None:
    _on_a_match(command, run_confirm)


def define_edit(command: Parser) -> None:
    _on_a_match(command, run_edit)
    command.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")


def define_settings(command: Parser) -> None:
    on_the_database(command, run_settings)
    command.add_argument(
        "changes", nargs="*", metavar="NAME=VALUE", help=f"any of {', '.join(SETTING_NAMES)}"
    )


def define_season_start(command: Parser) -> None:
    on_the_database(command, run_season_start)
    command.add_argument("name", metavar="NAME", help="the new season's name")
    command.add_argument(
        "--carry", type=_carry, default=0.0, metavar="X", help=f"share kept, {CARRY_RULE} (0)"
    )


def define_season_list(command: Parser) -> None:
    on_the_database(command, run_season_list)
    command.add_argument("--json", action="store_true", help="a JSON list")
