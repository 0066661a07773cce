"""`testit` (SPEC 1.7): a variant over the seed's test situations, one line per situation."""

from __future__ import annotations

from collections.abc import Iterator

from bot.ratings.gamelist import parse_games
from bot.ratings.performance import format_rating, performance_many
from bot.ratings.rep import rep
from bot.ratings.variants import Variant

SINGLE_WIN_COUNTS = (1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 200, 300, 400, 500)
ALTERNATING_COUNTS = (1, 2, 5, 10, 20, 30, 40, 50)
FINAL_LOSS_RATINGS = (3000, 2500, 2000, 1500, 1000, 500, 0)

SITUATIONS: tuple[tuple[str, ...], ...] = (
    *(("+1000", str(count)) for count in SINGLE_WIN_COUNTS),
    *(("+1000; -1000", str(count)) for count in ALTERNATING_COUNTS),
    ("+1492", "20"),
    ("+2400; -2600", "10"),
    ("-2500", "1", "+1492", "20"),
    ("-2500", "1", "+2400; -2600", "10"),
    ("+2000; -2000", "50"),
    ("+1230", "100"),
    ("+1500 a*; -1500 b*", "25"),
    *((f"-{rating} playerX", "1", "+2000; -2000", "50") for rating in FINAL_LOSS_RATINGS),
    *((f"-{rating} playerX", "1", "+1230", "100") for rating in FINAL_LOSS_RATINGS),
)
"""The rep arguments of every situation: the seed's tables and the single-line cases."""


def shell_words(arguments: tuple[str, ...]) -> str:
    """`rep '+1000' 20`: game strings single-quoted as the seed writes them, counts bare."""
    quoted = (
        argument if argument.isdigit() else "'" + argument.replace("'", "'\\''") + "'"
        for argument in arguments
    )
    return " ".join(("rep", *quoted))


def testit(variant: Variant | str) -> Iterator[str]:
    """One line per situation: its rep command, padded, then the rounded rating."""
    game_lists = [parse_games(list(rep(arguments, ()))) for arguments in SITUATIONS]
    ratings = performance_many(game_lists, variant)
    commands = [shell_words(arguments) for arguments in SITUATIONS]
    width = max(len(command) for command in commands)
    for command, rating in zip(commands, ratings, strict=True):
        yield f"{command.ljust(width)}  {format_rating(float(rating))}"
