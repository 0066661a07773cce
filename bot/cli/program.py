"""The `ladderbot` command (also `python -m bot`), SPEC section 5.

Each subcommand is a handler `(arguments, streams) -> exit status` registered in
`build_parser()`. Bad input raises one of `USER_ERRORS`; `main` turns it into one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Sequence
from typing import Final

from bot.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    USER_ERRORS,
    Handler,
    Parser,
    Streams,
    database_command,
)
from bot.cli.database import add_database_commands
from bot.cli.migrate import add_migrate_command
from bot.cli.moderation import add_moderation_commands
from bot.cli.queues import add_queue_commands
from bot.cli.serve import add_bot_command
from bot.cli.tools import add_performance_commands, run_rep
from bot.cli.webhooks import add_webhook_commands
from bot.present.words import PROGRAM


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROGRAM, description="Ranked matches: ladder and performance ratings.")
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_performance_commands(commands)
    add_bot_command(commands)
    add_database_commands(commands)
    add_moderation_commands(commands)
    add_queue_commands(commands, database_command)
    add_webhook_commands(commands, database_command)
    add_migrate_command(commands)
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("ladderbot")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "(not installed)"


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
