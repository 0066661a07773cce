"""The `ladderbot` command (also `python -m bot`), SPEC section 5.

`COMMANDS` lists every command with its one-line help and the function, in one of this
package's modules, that adds its arguments and its handler `(arguments, streams) -> exit
status`. The parser is built from the list alone; a command's module is imported only when
that command is chosen or its help shown, so `ladderbot --version` and `ladderbot --help`
load none of the bot and each command only what it uses. Bad input raises one of the user's
errors (`bot.cli.common.USER_ERRORS`); `main` turns it into one line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple

from bot import PROGRAM
from bot.cli.parsing import EXIT_BAD_INPUT, EXIT_OK, Handler, Parser, Streams, UsageError


class Command(NamedTuple):
    help: str
    """One line: the command list of `ladderbot --help`, and the first line of its own."""
    defined_by: str
    """"MODULE:FUNCTION" in bot.cli: the function adds the arguments and the handler."""


class Group(NamedTuple):
    """A command whose first argument is an action: `season start`, `webhook list`, ..."""

    help: str
    actions: Mapping[str, Command]


def _variant(summary: str) -> Command:
    return Command(
        f"{summary}: rating of the game list on stdin, as RP +UP -DOWN", "tools:define_variant"
    )


COMMANDS: Final[Mapping[str, Command | Group]] = {
    "p1": _variant("plain performance rating"),
    "p2": _variant("p1 plus a fictitious draw with a 0-rated player"),
    "p3": _variant("newer games weigh more (D^i)"),
    "p4": _variant("p3, games against one opponent reduced by 1/√N"),
    "p5": _variant("p4 with the divisor capped at √50"),
    "p6": _variant("p5, games age by distinct opponents played since"),
    "p7": _variant("games age within each opponent's sequence and by distinct opponents since"),
    "p8": _variant("p7 with two fictitious draws with a 1500-rated player"),
    "ra": Command("as the variant, then the rating accuracy RA", "tools:define_ra"),
    "rep": Command(
        "print STRING COUNT times for each pair; a lone '-' copies stdin", "rep:define_rep"
    ),
    "testit": Command("the variant over the seed's situations", "tools:define_testit"),
    "run": Command("run the Discord bot", "serve:define_run"),
    "web": Command("serve the web pages and read API (read only)", "serve:define_web"),
    "gr": Command(
        "a member's games as a game list, opponent ratings in Elo units", "standings:define_gr"
    ),
    "report": Command("record and apply a match", "moderation:define_report"),
    "rating": Command("a member's rating card", "standings:define_rating"),
    "leaderboard": Command("the whole leaderboard", "standings:define_leaderboard"),
    "export": Command("every match as CSV", "bulk:define_export"),
    "import": Command("matches from a CSV file, all or nothing", "bulk:define_import"),
    "recompute": Command("replay the guild from its log", "bulk:define_recompute"),
    "balance": Command("split players into even teams", "predictions:define_balance"),
    "evaluate": Command("how well each rating predicts", "predictions:define_evaluate"),
    "matches": Command(
        "the guild's matches, newest first, with state", "moderation:define_matches"
    ),
    "match": Command("one match, as /match show", "moderation:define_match"),
    "void": Command("void a match, as /admin void", "moderation:define_void"),
    "confirm": Command(
        "apply a pending or disputed match, as /match confirm", "moderation:define_confirm"
    ),
    "edit": Command("replace a match's lineup, as /admin edit", "moderation:define_edit"),
    "settings": Command("show or change the guild's settings", "moderation:define_settings"),
    "season": Group(
        "start a season, or list the seasons",
        {
            "start": Command(
                "close the season and start a new one", "moderation:define_season_start"
            ),
            "list": Command("every season, oldest first", "moderation:define_season_list"),
        },
    ),
    "queue": Group(
        "the matchmaking queues and open lobbies",
        {
            "list": Command(
                "every queue with its waiting members, and open lobbies",
                "queues:define_queue_list",
            ),
        },
    ),
    "webhook": Group(
        "webhooks: events sent to your own tools",
        {
            "add": Command("add a webhook (prints its secret once)", "webhooks:define_add"),
            "remove": Command("remove a webhook", "webhooks:define_by_id"),
            "test": Command("send it a webhook.test event", "webhooks:define_by_id"),
            "list": Command("the webhooks and their deliveries", "webhooks:define_list"),
        },
    ),
    "migrate-db": Command(
        "copy a whole database into an empty one (SQLite <-> PostgreSQL)",
        "migrate:define_migrate_db",
    ),
}
"""Every command, in the order `ladderbot --help` lists them."""


class _Version(argparse.Action):
    """`--version`: the installed version, looked up (importlib.metadata) only when asked."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"{PROGRAM} {_version()}")
        parser.exit()


def _version() -> str:
    import importlib.metadata  # only for --version: it costs more than the parser

    try:
        return importlib.metadata.version("ladderbot")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree, not installed
        return "(not installed)"


def _add_commands(
    parser: Parser, commands: Mapping[str, Command | Group], dest: str, metavar: str
) -> None:
    choices = parser.add_subparsers(dest=dest, required=True, metavar=metavar)
    for name, command in commands.items():
        if isinstance(command, Group):
            group = choices.add_parser(name, help=command.help, description=command.help)
            _add_commands(group, command.actions, f"{name}_command", "ACTION")
        else:
            choices.add_parser(
                name,
                help=command.help,
                description=command.help,
                command=name,
                defined_by=f"bot.cli.{command.defined_by}",
            )


def build_parser() -> Parser:
    parser = Parser(prog=PROGRAM, description="Ranked matches: ladder and performance ratings.")
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        default=argparse.SUPPRESS,
        help="show program's version number and exit",
    )
    _add_commands(parser, COMMANDS, "command", "COMMAND")
    return parser


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = build_parser()
    if argv[:1] == ["rep"] and list(argv[1:]) not in (["-h"], ["--help"]):
        # rep's arguments are game text such as '-R playerX' or '-': never options.
        arguments = parser.parse_args(["rep"])
        arguments.arguments = list(argv[1:])
        return arguments
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


def _is_users(error: Exception) -> bool:
    """Whether `error` is the user's input rather than a bug. Its kinds come from the
    command's modules (the services, the config, the rating math), so they are looked up
    only once a command has raised one: the command's module has loaded them by then."""
    from bot.cli.common import USER_ERRORS

    return isinstance(error, USER_ERRORS)


SERVERS: Final = ("run", "web")
"""The commands that serve until stopped; every other command is a short process."""


def _one_blas_thread(argv: Sequence[str]) -> None:
    """A short command runs numpy's matrix products on its own thread: OpenBLAS starts a
    pool of threads as numpy loads, and they spin for about 0.1 s of CPU waiting for work
    that a command's few small products never give them (OPENBLAS_NUM_THREADS=1 unless
    set, before the command's module loads numpy; a process that has numpy already, such
    as the tests', is left as it is). The servers keep the pool."""
    if "numpy" not in sys.modules and argv[:1] and argv[0] not in SERVERS:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None, streams: Streams | None = None) -> int:
    """Run one `ladderbot` command; returns the exit status."""
    streams = streams or Streams.standard()
    argv = sys.argv[1:] if argv is None else list(argv)
    _one_blas_thread(argv)
    command = PROGRAM
    try:
        arguments = parse_arguments(argv)
        command = f"{PROGRAM} {arguments.command}"
        handler: Handler = arguments.handler
        return handler(arguments, streams)
    except (UnicodeDecodeError, UnicodeEncodeError) as error:  # bytes that are not UTF-8
        print(f"{command}: error: the text is not valid UTF-8: {error.reason}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exit_request:  # --help, --version
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`ladderbot rep ... | head`): stop quietly.
        if streams.stdout is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as error:
        if not isinstance(error, UsageError) and not _is_users(error):
            raise
        print(f"{command}: error: {on_the_command_line(str(error))}", file=streams.stderr)
        return EXIT_BAD_INPUT
