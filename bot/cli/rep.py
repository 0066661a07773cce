"""`ladderbot rep ARG…` (SPEC 1.2): game lines to feed the p-family tools; text only, so it
loads no rating math."""

from __future__ import annotations

import argparse

from bot.cli.parsing import EXIT_OK, Parser, Streams
from bot.ratings.rep import rep


def run_rep(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rep ARG…`: game lines from STRING COUNT pairs (SPEC 1.2)."""
    for line in rep(arguments.arguments, streams.stdin):
        print(line, file=streams.stdout)
    return EXIT_OK


def define_rep(command: Parser) -> None:
    command.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG")
    command.set_defaults(handler=run_rep)
