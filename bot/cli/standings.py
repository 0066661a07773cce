"""The standings on the command line (SPEC 5): a member's games (gr), rating card (rating)
and the whole leaderboard, as text or --json."""

from __future__ import annotations

import argparse

from bot.cli.common import on_the_database, print_json, print_lines, with_services
from bot.cli.parsing import EXIT_OK, GAME_LIST_HELP, Parser, Streams
from bot.present.lines import card_lines, leaderboard_line
from bot.present.objects import card_object, leaderboard_object
from bot.ratings.gamelist import format_games
from bot.ratings.variants import VARIANTS
from bot.services import Services
from bot.services.standings import MEASURES, LeaderboardPage, RatingCard


def run_gr(arguments: argparse.Namespace, streams: Streams) -> int:
    """`gr MEMBER`: the member's games in the game-list format, newest first (SPEC 1.8)."""

    async def history(services: Services) -> str:
        member = await services.members.find(arguments.guild, arguments.member)
        return format_games(await services.standings.game_history(arguments.guild, member.user_id))

    streams.stdout.write(with_services(arguments, history))
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


def define_gr(command: Parser) -> None:
    on_the_database(command, run_gr)
    command.epilog = GAME_LIST_HELP
    command.add_argument("member", metavar="MEMBER", help="user id or display name")


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
