"""The command line's parser, exit statuses, streams and the help on game lists: what the
commands share before one runs. Light on purpose, as is bot.cli.program: argparse and
typing, nothing of the bot (not even dataclasses, which loads inspect), so `ladderbot
--version`, `--help` and the parser itself load no database driver, numpy or Discord; a
command's own module is imported only when that command is chosen (`Parser(defined_by=…)`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn, TextIO

EXIT_OK = 0


EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """The command line itself is wrong (unknown command, missing or bad argument)."""


class Streams(NamedTuple):
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO

    @classmethod
    def standard(cls) -> Streams:
        return cls(sys.stdin, sys.stdout, sys.stderr)


GAME_LIST_HELP = (
    "A game list has one game per line, newest first: <result><opponent rating> [<opponent "
    "name>] [<days ago>], e.g. '+1500 alice 3': result + win, = draw, - loss; the rating in "
    "Elo units (1500 average); name a word (default unknown); days a number >= 0 (default 0). "
    "Blank lines are skipped; another bad line is refused with its number "
    "(docs/rating-math.md: Game lists)."
)


Handler = Callable[[argparse.Namespace, Streams], int]


class Parser(argparse.ArgumentParser):
    """Raises UsageError instead of printing the usage and exiting; when a command's argument
    that starts with '-' (a lineup such as '-abc 1 | <@2> 3') was taken for an option, the
    error says to put `--` before it (not where a command's name is expected: an unknown
    command is only that).

    A command's parser is made empty, with its name and one-line help, and `defined_by`
    naming the function, "module:function", that adds its arguments and its handler; that
    module is imported, and the function called with the parser, the first time the command
    is parsed or its help shown."""

    _arguments: Sequence[str] = ()

    def __init__(
        self, *args: Any, command: str = "", defined_by: str | None = None, **options: Any
    ) -> None:
        super().__init__(*args, **options)
        self.command = command
        """The command's last word (`p1`, `start` of `season start`); empty for the program."""
        self._defined_by = defined_by

    def _define(self) -> None:
        if self._defined_by is not None:
            module, function = self._defined_by.split(":")
            self._defined_by = None
            define: Callable[[Parser], None] = getattr(importlib.import_module(module), function)
            define(self)

    def format_help(self) -> str:
        self._define()
        return super().format_help()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._define()
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
