"""The p-family tools (SPEC 1): a variant's rating of a game list, its accuracy, testit."""

from __future__ import annotations

import argparse

from bot.cli.parsing import EXIT_OK, GAME_LIST_HELP, Parser, Streams
from bot.ratings.gamelist import parse_games
from bot.ratings.performance import format_stability, rating_accuracy, stability
from bot.ratings.testit import testit
from bot.ratings.variants import Variant, variant_named


def _variant_argument(name: str) -> Variant:
    try:
        return variant_named(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run_variant(arguments: argparse.Namespace, streams: Streams) -> int:
    """`p1`…`p8`: `RP +UP -DOWN` of the game list on stdin (`ra` adds ` RA=…`)."""
    games = parse_games(streams.stdin)
    line = format_stability(stability(games, arguments.variant))
    if arguments.with_accuracy:
        line += f" RA={rating_accuracy(games):.2f}"
    print(line, file=streams.stdout)
    return EXIT_OK


def run_testit(arguments: argparse.Namespace, streams: Streams) -> int:
    """`testit VARIANT`: the variant over the seed's situations (SPEC 1.7)."""
    for line in testit(arguments.variant):
        print(line, file=streams.stdout)
    return EXIT_OK


def define_variant(command: Parser) -> None:
    """`p1` … `p8`: the variant the command is named after."""
    command.epilog = GAME_LIST_HELP
    command.set_defaults(
        handler=run_variant, variant=variant_named(command.command), with_accuracy=False
    )


def define_ra(command: Parser) -> None:
    command.epilog = GAME_LIST_HELP
    command.add_argument("variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8")
    command.set_defaults(handler=run_variant, with_accuracy=True)


def define_testit(command: Parser) -> None:
    command.add_argument("variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8")
    command.set_defaults(handler=run_testit)
