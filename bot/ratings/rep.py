"""`rep` (SPEC 1.2): prints game lines from `STRING COUNT` pairs, for feeding the variants."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

COPY_STDIN = "-"
_COUNT = re.compile(r"[0-9]+")


class RepError(ValueError):
    """A malformed rep argument list; the message names the offending argument."""


@dataclass(frozen=True, slots=True)
class _Repeat:
    games: tuple[str, ...]
    count: int


def _parse_arguments(arguments: Sequence[str]) -> list[_Repeat | None]:
    """Validate everything first, so a bad argument prints nothing at all (None = stdin)."""
    plan: list[_Repeat | None] = []
    position = 0
    while position < len(arguments):
        text = arguments[position]
        if text == COPY_STDIN:
            plan.append(None)
            position += 1
            continue
        if position + 1 >= len(arguments):
            raise RepError(f"argument {position + 1} {text!r} has no COUNT after it")
        count_text = arguments[position + 1]
        if not _COUNT.fullmatch(count_text) or int(count_text) < 1:
            raise RepError(
                f"argument {position + 2}: the COUNT for {text!r} must be a positive integer,"
                f" not {count_text!r}"
            )
        games = tuple(game.strip() for game in text.split(";"))
        plan.append(_Repeat(tuple(game for game in games if game), int(count_text)))
        position += 2
    return plan


def rep(arguments: Sequence[str], stdin: Iterable[str]) -> Iterator[str]:
    """The output lines (without newlines) of `rep ARGUMENTS...` reading `stdin` at each `-`.

    Raises RepError at once (before any line) when an argument is malformed.
    """
    plan = _parse_arguments(arguments)
    return _generate(plan, stdin)


def _generate(plan: list[_Repeat | None], stdin: Iterable[str]) -> Iterator[str]:
    for step in plan:
        if step is None:
            yield from (line.rstrip("\r\n") for line in stdin)
            continue
        for number in range(1, step.count + 1):
            for game in step.games:
                yield game.replace("*", str(number))
