"""The p-family tools (SPEC 1): a variant's rating of a game list, rep, testit."""

from __future__ import annotations

import argparse

from bot.cli.common import EXIT_OK, GAME_LIST_HELP, Parser, Streams, add_command
from bot.ratings.gamelist import parse_games
from bot.ratings.performance import format_stability, rating_accuracy, stability
from bot.ratings.rep import rep
from bot.ratings.testit import testit
from bot.ratings.variants import VARIANTS, Variant, variant_named


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


def add_performance_commands(commands: argparse._SubParsersAction[Parser]) -> None:
    for name, variant in VARIANTS.items():
        command = add_command(
            commands,
            name,
            help=f"{variant.summary}: rating of the game list on stdin, as RP +UP -DOWN",
            epilog=GAME_LIST_HELP,
        )
        command.set_defaults(handler=run_variant, variant=variant, with_accuracy=False)
    ra = add_command(
        commands, "ra", help="as the variant, then the rating accuracy RA", epilog=GAME_LIST_HELP
    )
    ra.add_argument("variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8")
    ra.set_defaults(handler=run_variant, with_accuracy=True)
    rep_command = add_command(
        commands, "rep", help="print STRING COUNT times for each pair; a lone '-' copies stdin"
    )
    rep_command.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG")
    rep_command.set_defaults(handler=run_rep)
    testit_command = add_command(commands, "testit", help="the variant over the seed's situations")
    testit_command.add_argument(
        "variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8"
    )
    testit_command.set_defaults(handler=run_testit)
