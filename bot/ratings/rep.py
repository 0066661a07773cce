"""`rep` (SPEC 1.2): prints game lines from `STRING COUNT` pairs, for feeding the variants."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Final

COPY_STDIN = "-"
MAX_LINES: Final = 1_000_000
"""Most lines one `rep` prints in all (SPEC 7), standard input copies included."""
_COUNT = re.compile(r"[0-9]+")


class RepError(ValueError):
    """A malformed rep argument list; the message names the offending argument."""


@dataclass(frozen=True, slots=True)
class _Repeat:
    games: tuple[str, ...]
    count: int


def _count(text: str) -> int:
    """COUNT as a number; any COUNT above MAX_LINES counts as MAX_LINES + 1 (so a COUNT of
    thousands of digits is refused for its size, not converted)."""
    digits = text.lstrip("0")
    return int(digits or "0") if len(digits) <= len(str(MAX_LINES)) else MAX_LINES + 1


def _parse_arguments(arguments: Sequence[str]) -> list[_Repeat | None]:
    """Validate everything first, so a bad argument prints nothing at all (None = stdin)."""
    plan: list[_Repeat | None] = []
    lines = 0
    position = 0
    while position < len(arguments):
        text = arguments[position]
        if text == COPY_STDIN:
            plan.append(None)
            position += 1
            continue
        if position + 1 >= len(arguments):
            raise RepError(f"argument {position + 1} {text!r} has no COUNT after it")
        games = tuple(game for game in (piece.strip() for piece in text.split(";")) if game)
        if not games:
            raise RepError(f"argument {position + 1}: STRING {text!r} must hold at least one game")
        count_text = arguments[position + 1]
        if not _COUNT.fullmatch(count_text) or _count(count_text) < 1:
            raise RepError(
                f"argument {position + 2}: the COUNT for {text!r} must be a positive integer,"
                f" not {count_text!r}"
            )
        lines += _count(count_text) * len(games)
        if lines > MAX_LINES:
            raise RepError(
                f"argument {position + 2}: COUNT {count_text!r} makes more than {MAX_LINES:,}"
                " lines in all; rep prints at most that many"
            )
        plan.append(_Repeat(games, _count(count_text)))
        position += 2
    return plan


def rep(arguments: Sequence[str], stdin: Iterable[str]) -> Iterator[str]:
    """The output lines (without newlines) of `rep ARGUMENTS...` reading `stdin` at each `-`.

    Raises RepError at once (before any line) when an argument is malformed or the output
    would pass MAX_LINES; so standard input, when copied, is read (up to the limit) first.
    """
    plan = _parse_arguments(arguments)
    copied: list[str] = []
    if None in plan:
        budget = MAX_LINES - sum(len(step.games) * step.count for step in plan if step)
        copied = [line.rstrip("\r\n") for line in islice(stdin, budget + 1)]
        if len(copied) > budget:
            raise RepError(
                f"standard input and the other arguments make more than {MAX_LINES:,} lines"
                " in all; rep prints at most that many"
            )
    return _generate(plan, copied)


def _generate(plan: list[_Repeat | None], copied: list[str]) -> Iterator[str]:
    """The lines of the plan; standard input is read once, so only the first `-` copies it."""
    for step in plan:
        if step is None:
            yield from copied
            copied = []
            continue
        for number in range(1, step.count + 1):
            for game in step.games:
                yield game.replace("*", str(number))
