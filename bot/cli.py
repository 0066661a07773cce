"""The `ladderbot` command (also `python -m bot`), SPEC section 5.

Each subcommand is a handler `(arguments, streams) -> exit status` registered in
`build_parser()`. Bad input raises one of `USER_ERRORS`; `main` turns it into one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.metadata
import json
import os
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final, NoReturn, TextIO, TypeVar

from bot.config import (
    Config,
    ConfigError,
    GuildSettings,
    SettingError,
    ascii_whole,
    finite_number,
    load_config,
    with_environment,
)
from bot.present.lines import (
    card_lines,
    leaderboard_line,
    match_line,
    match_lines,
    season_line,
    settings_lines,
)
from bot.present.objects import card_object, leaderboard_object
from bot.present.words import (
    imported_text,
    member_text,
    participant_move,
    rating_text,
    recompute_text,
    replayed_text,
    settings_changed,
    team_name,
)
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.ratings.evaluation import DEFAULT_LAST
from bot.ratings.gamelist import GameListError, format_games, parse_games
from bot.ratings.performance import format_stability, rating_accuracy, stability
from bot.ratings.rep import RepError, rep
from bot.ratings.testit import testit
from bot.ratings.variants import VARIANTS, Variant, variant_named
from bot.services import (
    Actor,
    ConnectionLost,
    DatabaseBusy,
    DatabaseUnavailable,
    Match,
    Services,
    UserError,
    parse_lineup,
    redacted,
)
from bot.services.changes import COMMAND_LINE_ID
from bot.services.evaluation import MAX_LAST, GuildEvaluation
from bot.services.lineup import Player, parse_id
from bot.services.matchups import TeamBalance, parse_players
from bot.services.progress import shown_by
from bot.services.seasons import CARRY_RULE
from bot.services.settings import SETTING_NAMES
from bot.services.shapes import match_object, season_object
from bot.services.standings import MEASURES, LeaderboardPage, RatingCard

PROGRAM = "ladderbot"
DEFAULT_CONFIG = "config.toml"
EXIT_OK = 0
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """The command line itself is wrong (unknown command, missing or bad argument)."""


USER_ERRORS: tuple[type[Exception], ...] = (
    UsageError,
    GameListError,
    RepError,
    UserError,
    ConfigError,
    DatabaseBusy,
    DatabaseUnavailable,
)
"""Errors that are the user's input, reported as one line; anything else is a bug."""


@dataclass(frozen=True)
class Streams:
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO

    @classmethod
    def standard(cls) -> Streams:
        return cls(sys.stdin, sys.stdout, sys.stderr)


Handler = Callable[[argparse.Namespace, Streams], int]


class _Parser(argparse.ArgumentParser):
    """Raises UsageError instead of printing the usage and exiting; when a command's argument
    that starts with '-' (a lineup such as '-abc 1 | <@2> 3') was taken for an option, the
    error says to put `--` before it (not where a command's name is expected: an unknown
    command is only that)."""

    _arguments: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._arguments = list(args or ())
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if self._subparsers is None and "--" not in self._arguments:
            dashed = [
                argument
                for argument in self._arguments
                if argument.startswith("-")
                and argument.split("=")[0] not in self._option_string_actions
            ]
            if dashed:
                message += (
                    f"; {dashed[0]!r} was read as an option: to give it as an argument,"
                    f" put -- before it ({self.prog} ... -- {dashed[0]!r})"
                )
        raise UsageError(message)


def _variant_argument(name: str) -> Variant:
    try:
        return variant_named(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# --- the p-family tools (SPEC 1) -------------------------------------------------------------


def run_variant(arguments: argparse.Namespace, streams: Streams) -> int:
    """`p1`…`p8`: `RP +UP -DOWN` of the game list on stdin (`ra` adds ` RA=…`)."""
    games = parse_games(streams.stdin)
    line = format_stability(stability(games, arguments.variant))
    if arguments.with_accuracy:
        line += f" RA={rating_accuracy(games):.2f}"
    print(line, file=streams.stdout)
    return EXIT_OK


def run_rep(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rep ARG…`: game lines from STRING COUNT pairs (SPEC 1.2)."""
    for line in rep(arguments.arguments, streams.stdin):
        print(line, file=streams.stdout)
    return EXIT_OK


def run_testit(arguments: argparse.Namespace, streams: Streams) -> int:
    """`testit VARIANT`: the variant over the seed's situations (SPEC 1.7)."""
    for line in testit(arguments.variant):
        print(line, file=streams.stdout)
    return EXIT_OK


GAME_LIST_HELP = (
    "A game list has one game per line, newest first: <result><opponent rating> [<opponent "
    "name>] [<days ago>], e.g. '+1500 alice 3': result + win, = draw, - loss; the rating in "
    "Elo units (1500 average); name a word (default unknown); days a number >= 0 (default 0). "
    "Blank lines are skipped; another bad line is refused with its number (README: Game lists)."
)


def _add_performance_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    for name, variant in VARIANTS.items():
        command = commands.add_parser(
            name,
            help=f"{variant.summary}: rating of the game list on stdin, as RP +UP -DOWN",
            epilog=GAME_LIST_HELP,
        )
        command.set_defaults(handler=run_variant, variant=variant, with_accuracy=False)
    ra = commands.add_parser(
        "ra", help="as the variant, then the rating accuracy RA", epilog=GAME_LIST_HELP
    )
    ra.add_argument("variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8")
    ra.set_defaults(handler=run_variant, with_accuracy=True)
    rep_command = commands.add_parser(
        "rep", help="print STRING COUNT times for each pair; a lone '-' copies stdin"
    )
    rep_command.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG")
    rep_command.set_defaults(handler=run_rep)
    testit_command = commands.add_parser("testit", help="the variant over the seed's situations")
    testit_command.add_argument(
        "variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8"
    )
    testit_command.set_defaults(handler=run_testit)


# --- the Discord bot (SPEC 4) -----------------------------------------------------------------


def run_discord_bot(arguments: argparse.Namespace, streams: Streams) -> int:
    """`run [--config PATH]`: the bot until stopped; a bad config or token exits 2."""
    from bot.app.run import run_bot  # discord.py loads only for this command

    return run_bot(arguments.config)


def run_web(arguments: argparse.Namespace, streams: Streams) -> int:
    """`web [--host H] [--port P]`: the web pages and read API until stopped (SPEC 11)."""
    from bot.web import WebServer, until_stopped  # loaded only for this command

    config = _config(arguments)
    location = config.database.location() if arguments.db is None else arguments.db
    host = arguments.host or config.web.host
    port = config.web.port if arguments.port is None else arguments.port

    async def session() -> None:
        try:
            services = await Services.open(location, config, create=False)
        except DatabaseUnavailable as error:
            raise UsageError(f"cannot open the database {redacted(location)}: {error}") from None
        try:
            server = WebServer(services, replace(config.web, host=host, port=port))
            try:
                await server.start()
            except OSError as error:
                reason = error.strerror or str(error)
                raise UsageError(f"cannot listen on {host}:{port}: {reason}") from None
            print(f"serving http://{host}:{port} (Ctrl-C stops)", file=streams.stderr, flush=True)
            try:
                await until_stopped()
            finally:
                await server.stop()
        finally:
            await services.close()

    asyncio.run(session())
    return EXIT_OK


def _whole_argument(low: int, high: int, what: str) -> Callable[[str], int]:
    """An option's whole number from `low` to `high`, in ASCII digits only (SPEC 7)."""

    def parse(text: str) -> int:
        number = ascii_whole(text, low, high)
        if number is None:
            raise argparse.ArgumentTypeError(
                f"must be {what} from {low:,} to {high:,}, not {text!r}"
            )
        return number

    return parse


_port = _whole_argument(1, 65_535, "a port number")


def _add_bot_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    run_command = commands.add_parser("run", help="run the Discord bot")
    run_command.add_argument(
        "--config", default=DEFAULT_CONFIG, metavar="PATH", help=f"config file ({DEFAULT_CONFIG})"
    )
    run_command.set_defaults(handler=run_discord_bot)
    web = commands.add_parser("web", help="serve the web pages and read API (read only)")
    web.add_argument("--host", metavar="H", help="address to listen on ([web] host)")
    web.add_argument("--port", type=_port, metavar="P", help="port ([web] port)")
    web.add_argument(
        "--db", metavar="PATH|URL", help="database file or URL (default: the config's)"
    )
    web.add_argument("--config", metavar="PATH", help=f"config file ({DEFAULT_CONFIG}, if present)")
    web.set_defaults(handler=run_web)


# --- the database commands (SPEC 5) ---------------------------------------------------------

CLI_ACTOR = Actor(user_id=COMMAND_LINE_ID, is_moderator=True)
"""The command line acts as a moderator (whoever can open the database file can edit it)."""
Result = TypeVar("Result")


def _config(arguments: argparse.Namespace) -> Config:
    """The config file (--config, else ./config.toml). Given --db, a missing default file
    means the built-in defaults; without --db the config names the database, so a missing
    one is refused: no command falls back to a database nobody named (SPEC 5)."""
    path = Path(arguments.config or DEFAULT_CONFIG)
    if arguments.db is None and not path.exists():
        raise UsageError(
            f"no database named: give --db PATH|URL, or --config PATH of a config file "
            f"whose [database] names it ({path} does not exist)"
        )
    if arguments.config is None and not path.exists():
        return with_environment(Config())
    return load_config(path)


def _with_services(
    arguments: argparse.Namespace,
    use: Callable[[Services], Awaitable[Result]],
    *,
    creates: bool = False,
) -> Result:
    """Open the database (--db, else the config's path), run `use`, always close it.
    Unless the command `creates` (SPEC 5: report, import, settings, season start), a
    database or guild that does not exist yet is refused: a read never creates one."""
    config = _config(arguments)
    location = config.database.location() if arguments.db is None else arguments.db

    async def session() -> Result:
        try:
            services = await Services.open(location, config, create=creates)
        except DatabaseUnavailable as error:
            raise UsageError(f"cannot open the database {redacted(location)}: {error}") from None
        try:
            if not creates and await services.settings.stored(arguments.guild) is None:
                raise UsageError(
                    f"the database {redacted(location)} has no guild {arguments.guild} "
                    "(a command that only reads creates none)"
                )
            return await use(services)
        finally:
            await services.close()

    return asyncio.run(session())


def run_gr(arguments: argparse.Namespace, streams: Streams) -> int:
    """`gr MEMBER`: the member's games in the game-list format, newest first (SPEC 1.8)."""

    async def history(services: Services) -> str:
        member = await services.members.find(arguments.guild, arguments.member)
        return format_games(await services.standings.game_history(arguments.guild, member.user_id))

    streams.stdout.write(_with_services(arguments, history))
    return EXIT_OK


def run_report(arguments: argparse.Namespace, streams: Streams) -> int:
    """`report 'LINEUP'`: records and applies one match at once."""
    lineup = parse_lineup(arguments.lineup)
    _no_numbered_guests(entry.player for entry in lineup)
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

    print("\n".join(_with_services(arguments, report, creates=True)), file=streams.stdout)
    return EXIT_OK


def run_rating(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rating MEMBER`: the rating card of /rating (text or --json)."""

    async def card(services: Services) -> RatingCard:
        member = await services.members.find(arguments.guild, arguments.member)
        return await services.standings.rating_card(
            arguments.guild, member.user_id, arguments.variant
        )

    found = _with_services(arguments, card)
    if arguments.json:
        return _print_json(card_object(found), streams)
    return _print_lines(card_lines(found), streams)


def run_leaderboard(arguments: argparse.Namespace, streams: Streams) -> int:
    """`leaderboard [--by MEASURE] [--season NAME]`: every ranked member, or a closed
    season's closing standings (text or --json)."""

    async def board(services: Services) -> LeaderboardPage:
        return await services.standings.leaderboard(
            arguments.guild, arguments.by, page_size=0, season=arguments.season
        )

    page = _with_services(arguments, board)
    if arguments.json:
        return _print_json([leaderboard_object(row) for row in page.rows], streams)
    for row in page.rows:
        print(leaderboard_line(row, page.by), file=streams.stdout)
    return EXIT_OK


def run_export(arguments: argparse.Namespace, streams: Streams) -> int:
    """`export`: every match of the guild as CSV on stdout."""
    with _stages_on(streams.stderr):
        text = _with_services(
            arguments, lambda services: services.transfers.export_csv(arguments.guild)
        )
    streams.stdout.write(text)
    return EXIT_OK


def run_import(arguments: argparse.Namespace, streams: Streams) -> int:
    """`import FILE`: matches from CSV ('-': stdin), all or nothing. The bytes go to the
    import as they are (it decodes them and names the line of a bad one)."""
    try:
        if arguments.file != "-":
            data: bytes | str = Path(arguments.file).read_bytes()
        elif hasattr(streams.stdin, "buffer"):
            data = streams.stdin.buffer.read()
        else:  # an in-memory text stream
            data = streams.stdin.read()
    except OSError as error:
        raise UsageError(f"cannot read {arguments.file}: {error}") from None
    with _stages_on(streams.stderr):
        result = _with_services(
            arguments,
            lambda services: services.transfers.import_csv(arguments.guild, CLI_ACTOR, data),
            creates=True,
        )
    print(
        imported_text(result.matches, result.seasons, result.replayed, result.skipped),
        file=streams.stdout,
    )
    return EXIT_OK


def run_recompute(arguments: argparse.Namespace, streams: Streams) -> int:
    """`recompute`: replays the guild from its log."""
    with _stages_on(streams.stderr):
        replayed = _with_services(
            arguments, lambda services: services.settings.recompute(arguments.guild, CLI_ACTOR)
        )
    print(recompute_text(replayed), file=streams.stdout)
    return EXIT_OK


def run_balance(arguments: argparse.Namespace, streams: Streams) -> int:
    """`balance 'PLAYERS' [--teams N]`: the most even teams, one line per team."""
    players = parse_players(arguments.players)
    _no_numbered_guests(players)
    found: TeamBalance = _with_services(
        arguments,
        lambda services: services.matchups.balance(arguments.guild, players, arguments.teams),
    )
    several = len(found.teams) > 2
    for number, team in enumerate(found.teams, start=1):
        names = ", ".join(
            f"{entry.name} (guest)"
            if entry.player.user_id is None
            else member_text(entry.name, entry.player.user_id)
            for entry in team.players
        )
        chance = f"wins {team.win_probability:.1%}" + (" against one other team" if several else "")
        print(
            f"{team_name(number)}: average {rating_text(team.average)}, {chance}: {names}",
            file=streams.stdout,
        )
    if several:
        print(
            f"(a team's chance to beat one other team, averaged over the other "
            f"{len(found.teams) - 1}: the {len(found.teams)} chances add up to "
            f"{len(found.teams) / 2:.0%}, not 100%)",
            file=streams.stdout,
        )
    if not found.exact:
        print(
            f"(more than {EXACT_MAX_PLAYERS} players: the best split a heuristic found)",
            file=streams.stdout,
        )
    return EXIT_OK


def _no_numbered_guests(players: Iterable[Player]) -> None:
    """A bare number among players would be a guest of that name: on the command line a
    member is `<@id>`, so a number is refused rather than silently made a guest."""
    for player in players:
        if player.guest is not None and player.guest.isascii() and player.guest.isdigit():
            raise UsageError(
                f"player {player.guest!r} is a bare number, which would be a guest of that "
                f"name: write a member as <@{player.guest}> (a guest's name needs a letter)"
            )


def run_evaluate(arguments: argparse.Namespace, streams: Streams) -> int:
    """`evaluate [--last N] [--tune] [--json]`: how well each measure predicted the guild's
    last N matches (SPEC 12), and with --tune the ladder's constants tried."""
    with _stages_on(streams.stderr):
        found: GuildEvaluation = _with_services(
            arguments,
            lambda services: services.evaluation.evaluate(
                arguments.guild, arguments.last, tune=arguments.tune
            ),
        )
    if arguments.json:
        print(json.dumps(found.as_json()), file=streams.stdout)
        return EXIT_OK
    pairs = found.evaluation.scores[0].pairs
    lines = [
        f"evaluated the last {found.evaluation.matches:,} matches ({pairs:,} ordered pairs)",
        *found.table(),
        found.verdict(),
    ]
    tuning = found.tuning_verdict()
    if tuning is not None:
        lines += ["ladder log-loss, t down, game_mult across:", *found.tuning_table(), tuning]
    print("\n".join(lines), file=streams.stdout)
    return EXIT_OK


_last_matches = _whole_argument(1, MAX_LAST, "a whole number")
_teams = _whole_argument(0, 1_000_000, "a whole number")  # the service says 2 to 4


def _guild_id(text: str) -> int:
    try:
        return parse_id(text, "guild id")
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _database_command(
    commands: argparse._SubParsersAction[_Parser], name: str, handler: Handler, help_text: str
) -> _Parser:
    """A command that works on one guild of the database: --guild, --db, --config."""
    command = commands.add_parser(name, help=help_text)
    command.add_argument("--guild", type=_guild_id, required=True, metavar="ID")
    command.add_argument(
        "--db", metavar="PATH|URL", help="database file or URL (default: the config's)"
    )
    command.add_argument(
        "--config", metavar="PATH", help=f"config file ({DEFAULT_CONFIG}, if present)"
    )
    command.set_defaults(handler=handler)
    return command


def _add_database_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    def database_command(name: str, handler: Handler, help_text: str) -> _Parser:
        return _database_command(commands, name, handler, help_text)

    gr = database_command(
        "gr", run_gr, "a member's games as a game list, opponent ratings in Elo units"
    )
    gr.epilog = GAME_LIST_HELP
    gr.add_argument("member", metavar="MEMBER", help="user id or display name")
    report = database_command("report", run_report, "record and apply a match")
    report.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")
    rating = database_command("rating", run_rating, "a member's rating card")
    rating.add_argument("member", metavar="MEMBER", help="user id or display name")
    rating.add_argument("--variant", choices=list(VARIANTS), help="p1 … p8 (guild default)")
    rating.add_argument("--json", action="store_true", help="one JSON object")
    board = database_command("leaderboard", run_leaderboard, "the whole leaderboard")
    board.add_argument("--by", choices=list(MEASURES), default="ladder", metavar="MEASURE")
    board.add_argument("--season", metavar="NAME", help="a closed season's closing standings")
    board.add_argument("--json", action="store_true", help="a JSON list")
    database_command("export", run_export, "every match as CSV")
    imported = database_command("import", run_import, "matches from a CSV file, all or nothing")
    imported.add_argument("file", metavar="FILE", help="CSV file ('-' for stdin)")
    database_command("recompute", run_recompute, "replay the guild from its log")
    balance = database_command("balance", run_balance, "split players into even teams")
    balance.add_argument("players", metavar="PLAYERS", help="'<@1> <@2> guest_bob <@3>'")
    balance.add_argument("--teams", type=_teams, default=2, metavar="N", help="2 to 4 (default 2)")
    evaluate = database_command("evaluate", run_evaluate, "how well each rating predicts")
    evaluate.add_argument(
        "--last", type=_last_matches, default=DEFAULT_LAST, metavar="N", help="matches (5,000)"
    )
    evaluate.add_argument("--tune", action="store_true", help="also try other ladder constants")
    evaluate.add_argument("--json", action="store_true", help="one JSON object")


# --- moderation (SPEC 5 and 9.4): as /match, /admin and /season, by a moderator ------------


def _match_id(text: str) -> int:
    try:
        return parse_id(text, "match id")
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


_count = _whole_argument(1, 1_000_000, "a whole number")


def _carry(text: str) -> float:
    try:
        return finite_number(text)
    except SettingError:
        raise argparse.ArgumentTypeError(f"carry {text!r} must be {CARRY_RULE}") from None


def _print_lines(lines: Iterable[str], streams: Streams) -> int:
    print("\n".join(lines), file=streams.stdout)
    return EXIT_OK


def _print_json(found: object, streams: Streams) -> int:
    print(json.dumps(found), file=streams.stdout)
    return EXIT_OK


def run_matches(arguments: argparse.Namespace, streams: Streams) -> int:
    """`matches [--member M] [--limit N]`: the guild's matches, newest first, with state."""

    async def listed(services: Services) -> list[Match]:
        user_id = None
        if arguments.member is not None:
            user_id = (await services.members.find(arguments.guild, arguments.member)).user_id
        return await services.matches.list_matches(arguments.guild, user_id, limit=arguments.limit)

    found = _with_services(arguments, listed)
    if arguments.json:
        return _print_json([match_object(match) for match in found], streams)
    return _print_lines(map(match_line, found), streams) if found else EXIT_OK


def run_match(arguments: argparse.Namespace, streams: Streams) -> int:
    """`match ID`: one match as /match show shows it, with its earlier lineups."""

    shown = _with_services(
        arguments, lambda services: services.matches.shown(arguments.guild, arguments.match)
    )
    if arguments.json:
        return _print_json(match_object(shown.match, shown.edits), streams)
    return _print_lines(match_lines(shown.match, shown.edits), streams)


def run_void(arguments: argparse.Namespace, streams: Streams) -> int:
    """`void ID [--reason TEXT]`: as /admin void."""
    result = _with_services(
        arguments,
        lambda services: services.matches.void(
            arguments.guild, CLI_ACTOR, arguments.match, arguments.reason
        ),
    )
    return _print_lines(
        [
            f"match #{result.match.id} is void; {replayed_text(result.replayed)}",
            *match_lines(result.match, ())[1:],
        ],
        streams,
    )


def run_confirm(arguments: argparse.Namespace, streams: Streams) -> int:
    """`confirm ID`: as /match confirm by a moderator (a disputed match too)."""
    result = _with_services(
        arguments,
        lambda services: services.matches.confirm(arguments.guild, CLI_ACTOR, arguments.match),
    )
    done = "is applied" if result.applied_now else "was already applied"
    lines = match_lines(result.match, ())
    return _print_lines([f"match #{result.match.id} {done}", *lines[1:]], streams)


def run_edit(arguments: argparse.Namespace, streams: Streams) -> int:
    """`edit ID 'LINEUP'`: as /admin edit; the old lineup stays in the match's history."""
    lineup = parse_lineup(arguments.lineup)
    _no_numbered_guests(entry.player for entry in lineup)
    result = _with_services(
        arguments,
        lambda services: services.matches.edit(arguments.guild, CLI_ACTOR, arguments.match, lineup),
    )
    return _print_lines(
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

    found, notes = _with_services(arguments, settings, creates=bool(changes))
    return _print_lines([*notes, *settings_lines(found)], streams)


def run_season_start(arguments: argparse.Namespace, streams: Streams) -> int:
    """`season start NAME [--carry X]`: as /admin season start."""
    season = _with_services(
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
    return _print_lines([f"season {season.name!r} started: {kept}, records restart at 0"], streams)


def run_season_list(arguments: argparse.Namespace, streams: Streams) -> int:
    """`season list [--json]`: every season, oldest first; the last is under way."""
    found = _with_services(
        arguments, lambda services: services.seasons.season_list(arguments.guild)
    )
    if arguments.json:
        return _print_json([season_object(season) for season in found], streams)
    return _print_lines(map(season_line, found), streams)


def _add_moderation_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    listed = _database_command(
        commands, "matches", run_matches, "the guild's matches, newest first, with state"
    )
    listed.add_argument("--member", metavar="M", help="only this member's (user id or name)")
    listed.add_argument("--limit", type=_count, metavar="N", help="the newest N only")
    listed.add_argument("--json", action="store_true", help="a JSON list")
    shown = _database_command(commands, "match", run_match, "one match, as /match show")
    shown.add_argument("match", type=_match_id, metavar="ID")
    shown.add_argument("--json", action="store_true", help="one JSON object")
    void = _database_command(commands, "void", run_void, "void a match, as /admin void")
    void.add_argument("match", type=_match_id, metavar="ID")
    void.add_argument("--reason", metavar="TEXT", help="why (shown on the match)")
    confirm = _database_command(
        commands, "confirm", run_confirm, "apply a pending or disputed match, as /match confirm"
    )
    confirm.add_argument("match", type=_match_id, metavar="ID")
    edit = _database_command(commands, "edit", run_edit, "replace a match's lineup, as /admin edit")
    edit.add_argument("match", type=_match_id, metavar="ID")
    edit.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")
    settings = _database_command(
        commands, "settings", run_settings, "show or change the guild's settings"
    )
    settings.add_argument(
        "changes", nargs="*", metavar="NAME=VALUE", help=f"any of {', '.join(SETTING_NAMES)}"
    )
    season = commands.add_parser("season", help="start a season, or list the seasons")
    season_commands = season.add_subparsers(dest="season_command", required=True, metavar="ACTION")
    start = _database_command(
        season_commands, "start", run_season_start, "close the season and start a new one"
    )
    start.add_argument("name", metavar="NAME", help="the new season's name")
    start.add_argument(
        "--carry", type=_carry, default=0.0, metavar="X", help=f"share kept, {CARRY_RULE} (0)"
    )
    season_list = _database_command(
        season_commands, "list", run_season_list, "every season, oldest first"
    )
    season_list.add_argument("--json", action="store_true", help="a JSON list")
    _describe_commands(season_commands)


class _RowsBar:
    """migrate-db's progress on a terminal: rows copied of all, by table (tqdm, stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bar: Any = None

    def __call__(self, table: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, file=self.stream, unit=" rows")
        self.bar.set_description(table, refresh=False)
        self.bar.update(done - self.bar.n)
        if done == total:
            self.bar.close()


@contextlib.contextmanager
def _stages_on(stream: TextIO) -> Iterator[None]:
    """A bulk command's stages (bot.services.progress) on a terminal, one line on stderr
    redrawn as each starts, with the time it has taken so far (tqdm); nothing when stderr
    is not a terminal."""
    if not stream.isatty():
        yield
        return
    from tqdm import tqdm

    line = tqdm(
        total=None, file=stream, desc="opening the database", bar_format="{desc} [{elapsed}]"
    )
    try:
        with shown_by(lambda name: line.set_description(name)):
            yield
    finally:
        line.close()


def run_migrate_db(arguments: argparse.Namespace, streams: Streams) -> int:
    """`migrate-db --from URL --to URL`: copy a whole database into an empty one."""
    from bot.services.migrating import migrate_database

    source, target = arguments.source, arguments.target
    progress = _RowsBar(streams.stderr) if streams.stderr.isatty() else None
    try:
        counts = asyncio.run(migrate_database(source, target, progress))
    except ConnectionLost:  # during the copy: the target is left as it was
        raise
    except DatabaseUnavailable as error:
        raise UsageError(f"cannot open a database: {error}") from None
    rows = ", ".join(f"{table} {count}" for table, count in counts.items())
    print(
        f"copied {redacted(source)} into {redacted(target)} ({rows}); "
        "stored ratings equal a replay of the log",
        file=streams.stdout,
    )
    return EXIT_OK


def _add_migrate_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    command = commands.add_parser(
        "migrate-db", help="copy a whole database into an empty one (SQLite <-> PostgreSQL)"
    )
    command.add_argument("--from", dest="source", required=True, metavar="URL")
    command.add_argument("--to", dest="target", required=True, metavar="URL")
    command.set_defaults(handler=run_migrate_db)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROGRAM, description="Ranked matches: ladder and performance ratings.")
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_performance_commands(commands)
    _add_bot_command(commands)
    _add_database_commands(commands)
    _add_moderation_commands(commands)
    from bot.cli_queues import add_queue_commands

    add_queue_commands(commands, _database_command)
    from bot.cli_webhooks import add_webhook_commands

    add_webhook_commands(commands, _database_command)
    _add_migrate_command(commands)
    _describe_commands(commands)
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("ladderbot")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "(not installed)"


def _describe_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    """Each command's --help opens with the line the command list shows for it."""
    for listed in commands._choices_actions:
        command = commands.choices[listed.dest]
        if command.description is None:
            command.description = listed.help


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = build_parser()
    if argv[:1] == ["rep"] and list(argv[1:]) not in (["-h"], ["--help"]):
        # rep's arguments are game text such as '-R playerX' or '-': never options.
        return argparse.Namespace(command="rep", handler=run_rep, arguments=list(argv[1:]))
    return parser.parse_args(argv)


DISCORD_TO_COMMAND_LINE: Final = {
    "/season list": f"{PROGRAM} season list",
    "/match list": f"{PROGRAM} matches",
    "/admin void": f"{PROGRAM} void",
}
"""The commands a refusal of the services names (written for Discord), as this command line
spells them."""


def on_the_command_line(message: str) -> str:
    """A refusal with the Discord commands it names spelled as `ladderbot` commands."""
    for discord_command, command in DISCORD_TO_COMMAND_LINE.items():
        message = message.replace(discord_command, command)
    return message


def main(argv: Sequence[str] | None = None, streams: Streams | None = None) -> int:
    """Run one `ladderbot` command; returns the exit status."""
    streams = streams or Streams.standard()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = PROGRAM
    try:
        arguments = parse_arguments(argv)
        command = f"{PROGRAM} {arguments.command}"
        handler: Handler = arguments.handler
        return handler(arguments, streams)
    except USER_ERRORS as error:
        print(f"{command}: error: {on_the_command_line(str(error))}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except (UnicodeDecodeError, UnicodeEncodeError) as error:  # bytes that are not UTF-8
        print(f"{command}: error: the text is not valid UTF-8: {error.reason}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exit_request:  # --help
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`ladderbot rep ... | head`): stop quietly.
        if streams.stdout is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
