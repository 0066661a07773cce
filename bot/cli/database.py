"""The database commands (SPEC 5): gr, report, rating, leaderboard, export, import,
recompute, balance and evaluate on one guild.
"""

from __future__ import annotations

import argparse
import json
import uuid
from pathlib import Path

from bot.cli.common import (
    CLI_ACTOR,
    no_numbered_guests,
    on_the_database,
    print_json,
    print_lines,
    stages_on,
    whole_argument,
    with_services,
)
from bot.cli.parsing import EXIT_OK, GAME_LIST_HELP, Parser, Streams, UsageError
from bot.present.evaluation import evaluation_table, tuning_table, tuning_verdict, verdict
from bot.present.language import ENGLISH
from bot.present.lines import (
    card_lines,
    leaderboard_line,
)
from bot.present.objects import card_object, leaderboard_object
from bot.present.words import (
    command_line_settings,
    imported_text,
    member_text,
    participant_move,
    rating_text,
    recompute_text,
    team_name,
)
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.ratings.evaluation import DEFAULT_LAST
from bot.ratings.gamelist import format_games
from bot.ratings.variants import VARIANTS
from bot.services import (
    Services,
    parse_lineup,
)
from bot.services.evaluation import MAX_LAST, GuildEvaluation
from bot.services.matchups import TeamBalance, parse_players
from bot.services.standings import MEASURES, LeaderboardPage, RatingCard


def run_gr(arguments: argparse.Namespace, streams: Streams) -> int:
    """`gr MEMBER`: the member's games in the game-list format, newest first (SPEC 1.8)."""

    async def history(services: Services) -> str:
        member = await services.members.find(arguments.guild, arguments.member)
        return format_games(await services.standings.game_history(arguments.guild, member.user_id))

    streams.stdout.write(with_services(arguments, history))
    return EXIT_OK


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


def run_rating(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rating MEMBER`: the rating card of /rating (text or --json)."""

    async def card(services: Services) -> RatingCard:
        member = await services.members.find(arguments.guild, arguments.member)
        return await services.standings.rating_card(
            arguments.guild, member.user_id, arguments.variant
        )

    found = with_services(arguments, card)
    if arguments.json:
        return print_json(card_object(found), streams)
    return print_lines(card_lines(found), streams)


def run_leaderboard(arguments: argparse.Namespace, streams: Streams) -> int:
    """`leaderboard [--by MEASURE] [--season NAME]`: every ranked member, or a closed
    season's closing standings (text or --json)."""

    async def board(services: Services) -> LeaderboardPage:
        return await services.standings.leaderboard(
            arguments.guild, arguments.by, page_size=0, season=arguments.season
        )

    page = with_services(arguments, board)
    if arguments.json:
        return print_json([leaderboard_object(row) for row in page.rows], streams)
    for row in page.rows:
        print(leaderboard_line(row, page.by), file=streams.stdout)
    return EXIT_OK


def run_export(arguments: argparse.Namespace, streams: Streams) -> int:
    """`export`: every match of the guild as CSV on stdout."""
    with stages_on(streams.stderr):
        text = with_services(
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
    with stages_on(streams.stderr):
        result = with_services(
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
    with stages_on(streams.stderr):
        replayed = with_services(
            arguments, lambda services: services.settings.recompute(arguments.guild, CLI_ACTOR)
        )
    print(recompute_text(replayed), file=streams.stdout)
    return EXIT_OK


def run_balance(arguments: argparse.Namespace, streams: Streams) -> int:
    """`balance 'PLAYERS' [--teams N]`: the most even teams, one line per team."""
    players = parse_players(arguments.players)
    no_numbered_guests(players)
    found: TeamBalance = with_services(
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


def run_evaluate(arguments: argparse.Namespace, streams: Streams) -> int:
    """`evaluate [--last N] [--tune] [--json]`: how well each measure predicted the guild's
    last N matches (SPEC 12), and with --tune the ladder's constants tried."""
    with stages_on(streams.stderr):
        found: GuildEvaluation = with_services(
            arguments,
            lambda services: services.evaluation.evaluate(
                arguments.guild, arguments.last, tune=arguments.tune
            ),
        )
    if arguments.json:
        print(json.dumps(found.as_json()), file=streams.stdout)
        return EXIT_OK
    pairs = found.evaluation.scores[0].pairs
    settings_command = command_line_settings(arguments.guild)
    lines = [
        f"evaluated the last {found.evaluation.matches:,} matches ({pairs:,} ordered pairs)",
        *evaluation_table(found, ENGLISH),
        verdict(found, settings_command, ENGLISH),
    ]
    tuning = tuning_verdict(found, settings_command, ENGLISH)
    if tuning is not None:
        lines += [
            "ladder log-loss, t down, game_mult across:",
            *tuning_table(found, ENGLISH),
            tuning,
        ]
    print("\n".join(lines), file=streams.stdout)
    return EXIT_OK


_last_matches = whole_argument(1, MAX_LAST, "a whole number")


_teams = whole_argument(0, 1_000_000, "a whole number")  # the service says 2 to 4


def define_gr(command: Parser) -> None:
    on_the_database(command, run_gr)
    command.epilog = GAME_LIST_HELP
    command.add_argument("member", metavar="MEMBER", help="user id or display name")


def define_report(command: Parser) -> None:
    on_the_database(command, run_report)
    command.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")


def define_rating(command: Parser) -> None:
    on_the_database(command, run_rating)
    command.add_argument("member", metavar="MEMBER", help="user id or display name")
    command.add_argument("--variant", choices=list(VARIANTS), help="p1 … p8 (guild default)")
    command.add_argument("--json", action="store_true", help="one JSON object")


def define_leaderboard(command: Parser) -> None:
    on_the_database(command, run_leaderboard)
    command.add_argument("--by", choices=list(MEASURES), default="ladder", metavar="MEASURE")
    command.add_argument("--season", metavar="NAME", help="a closed season's closing standings")
    command.add_argument("--json", action="store_true", help="a JSON list")


def define_export(command: Parser) -> None:
    on_the_database(command, run_export)


def define_import(command: Parser) -> None:
    on_the_database(command, run_import)
    command.add_argument("file", metavar="FILE", help="CSV file ('-' for stdin)")


def define_recompute(command: Parser) -> None:
    on_the_database(command, run_recompute)


def define_balance(command: Parser) -> None:
    on_the_database(command, run_balance)
    command.add_argument("players", metavar="PLAYERS", help="'<@1> <@2> guest_bob <@3>'")
    command.add_argument("--teams", type=_teams, default=2, metavar="N", help="2 to 4 (default 2)")


def define_evaluate(command: Parser) -> None:
    on_the_database(command, run_evaluate)
    command.add_argument(
        "--last", type=_last_matches, default=DEFAULT_LAST, metavar="N", help="matches (5,000)"
    )
    command.add_argument("--tune", action="store_true", help="also try other ladder constants")
    command.add_argument("--json", action="store_true", help="one JSON object")
