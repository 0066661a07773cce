"""The rating chart of a player page as SVG geometry (the template draws it; colours come
from the stylesheet, so the chart follows the light or dark scheme).

As the bot's PNG (bot.app.charts): the rating before the first match, then the rating after
each match in log order, by match number; a dashed line at the starting rating and the last
value marked. Long histories are thinned to at most MAX_POINTS points (each kept point is a
real one; the first and the last are always kept).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.services.card import RatingPoint

WIDTH: Final = 640
HEIGHT: Final = 260
LEFT: Final = 60
RIGHT: Final = 16
TOP: Final = 14
BOTTOM: Final = 42
MAX_POINTS: Final = 400


@dataclass(frozen=True, slots=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True, slots=True)
class Chart:
    width: int
    height: int
    points: str
    """The polyline's points, "x,y x,y …"."""
    start_y: float
    last_x: float
    last_y: float
    last_label: str
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    left: int
    right: float
    top: int
    bottom: float
    summary: str
    """What the chart shows, in words (its accessible description)."""


def _nice_step(span: float, steps: int) -> float:
    """A step of 1, 2 or 5 times a power of ten that cuts `span` in about `steps` parts."""
    raw = max(span / steps, 1e-9)
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw)


def _thinned(count: int) -> list[int]:
    """Indices of at most MAX_POINTS of `count` points, evenly spread, ends kept."""
    if count <= MAX_POINTS:
        return list(range(count))
    step = (count - 1) / (MAX_POINTS - 1)
    return sorted({round(i * step) for i in range(MAX_POINTS)})


def rating_chart(start: float, history: Sequence[RatingPoint]) -> Chart | None:
    """The chart of `start` then each match's rating; None without matches."""
    if not history:
        return None
    ratings = [start, *(point.rating for point in history)]
    low, high = min(ratings), max(ratings)
    pad = max((high - low) * 0.1, 10.0)
    low, high = low - pad, high + pad
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    count = len(ratings)

    def x(index: int) -> float:
        return LEFT + (right - LEFT) * index / (count - 1)

    def y(rating: float) -> float:
        return TOP + (bottom - TOP) * (high - rating) / (high - low)

    kept = _thinned(count)
    points = " ".join(f"{x(i):.1f},{y(ratings[i]):.1f}" for i in kept)
    step = _nice_step(high - low, 4)
    first = math.ceil(low / step) * step
    y_ticks = tuple(
        Tick(y(first + k * step), f"{first + k * step:g}")
        for k in range(int((high - first) // step) + 1)
    )
    match_step = max(1, int(_nice_step(count - 1, 5)))
    x_ticks = tuple(
        Tick(x(index), "start" if index == 0 else str(index))
        for index in range(0, count, match_step)
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        points=points,
        start_y=y(start),
        last_x=x(count - 1),
        last_y=y(ratings[-1]),
        last_label=f"{ratings[-1]:.1f}",
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        summary=(
            f"Ladder rating over {count - 1} matches: from {start:.1f} to {ratings[-1]:.1f}, "
            f"between {min(ratings):.1f} and {max(ratings):.1f}"
        ),
    )
