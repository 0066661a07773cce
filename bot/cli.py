"""The `ladderbot` command (also `python -m bot`), SPEC section 5.

Each subcommand is a handler `(arguments, streams) -> exit status` registered in
`build_parser()`. Bad input raises one of `USER_ERRORS`; `main` turns it into one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn, TextIO

from bot.ratings.gamelist import GameListError, parse_games
from bot.ratings.performance import format_stability, rating_accuracy, stability
from bot.ratings.rep import RepError, rep
from bot.ratings.testit import testit
from bot.ratings.variants import VARIANTS, Variant, variant_named

PROGRAM = "ladderbot"
EXIT_OK = 0
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """The command line itself is wrong (unknown command, missing or bad argument)."""


USER_ERRORS: tuple[type[Exception], ...] = (UsageError, GameListError, RepError)
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
    """Raises UsageError instead of printing the usage and exiting."""

    def error(self, message: str) -> NoReturn:
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


def _add_performance_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    for name, variant in VARIANTS.items():
        command = commands.add_parser(
            name, help=f"{variant.summary}: rating of the game list on stdin, as RP +UP -DOWN"
        )
        command.set_defaults(handler=run_variant, variant=variant, with_accuracy=False)
    ra = commands.add_parser("ra", help="as the variant, then the rating accuracy RA")
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


def _add_bot_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    run_command = commands.add_parser("run", help="run the Discord bot")
    run_command.add_argument(
        "--config", default="config.toml", metavar="PATH", help="config file (config.toml)"
    )
    run_command.set_defaults(handler=run_discord_bot)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROGRAM, description="Ranked matches: ladder and performance ratings.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_performance_commands(commands)
    _add_bot_command(commands)
    return parser


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = build_parser()
    if argv[:1] == ["rep"] and list(argv[1:]) not in (["-h"], ["--help"]):
        # rep's arguments are game text such as '-R playerX' or '-': never options.
        return argparse.Namespace(command="rep", handler=run_rep, arguments=list(argv[1:]))
    return parser.parse_args(argv)


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
        print(f"{command}: error: {error}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exit_request:  # --help
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`ladderbot rep ... | head`): stop quietly.
        if streams.stdout is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
