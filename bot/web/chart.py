"""The rating chart of a player page as SVG geometry (the template draws it; colours come
from the stylesheet, so the chart follows the light or dark scheme).

As the bot's PNG (bot.app.charts): the rating before the first match, then the card's
series (the rating after each match and each season start that moved it, in log order) by
match number, a season start half way after the match before it and marked by a dotted line;
a dashed line at the starting rating and the last value (the current rating) marked. Long
histories are thinned to at most MAX_POINTS points (each kept point is a real one; the
first, the last and the season starts are always kept).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from bot.present.language import ENGLISH, N_, Words
from bot.present.series import match_positions, season_starts
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
    season_xs: tuple[float, ...]
    """Where a season start moved the rating."""
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


def _thinned(count: int, kept: Sequence[int]) -> list[int]:
    """Indices of at most MAX_POINTS of `count` points (and the `kept` ones), evenly
    spread, ends kept."""
    if count <= MAX_POINTS:
        return list(range(count))
    step = (count - 1) / (MAX_POINTS - 1)
    return sorted({round(i * step) for i in range(MAX_POINTS)} | set(kept))


def rating_chart(
    start: float, history: Sequence[RatingPoint], said: Words = ENGLISH
) -> Chart | None:
    """The chart of `start` then the card's series, its words and numbers in `said`'s
    language; None without matches."""
    if not history:
        return None
    ratings = [start, *(point.rating for point in history)]
    positions = [0.0, *match_positions(history)]
    starts = [index + 1 for index in season_starts(history)]
    low, high = min(ratings), max(ratings)
    pad = max((high - low) * 0.1, 10.0)
    low, high = low - pad, high + pad
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    span = positions[-1] or 1.0

    def x(position: float) -> float:
        return LEFT + (right - LEFT) * position / span

    def y(rating: float) -> float:
        return TOP + (bottom - TOP) * (high - rating) / (high - low)

    kept = _thinned(len(ratings), starts)
    points = " ".join(f"{x(positions[i]):.1f},{y(ratings[i]):.1f}" for i in kept)
    step = _nice_step(high - low, 4)
    first = math.ceil(low / step) * step
    y_ticks = tuple(
        Tick(y(first + k * step), said.number(first + k * step))
        for k in range(int((high - first) // step) + 1)
    )
    matches = len(history) - len(starts)
    match_step = max(1, int(_nice_step(matches, 5)))
    x_ticks = tuple(
        Tick(x(number), said.gettext(N_("start")) if number == 0 else said.integer(number))
        for number in range(0, matches + 1, match_step)
    )
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        points=points,
        start_y=y(start),
        last_x=x(positions[-1]),
        last_y=y(ratings[-1]),
        last_label=said.rating(ratings[-1]),
        season_xs=tuple(x(positions[i]) for i in starts),
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        summary=_summary(start, ratings, matches, len(starts), said),
    )


def _summary(start: float, ratings: list[float], matches: int, starts: int, said: Words) -> str:
    """What the chart shows, in words."""
    over = said.ngettext("{count} match", "{count} matches", matches)
    if starts:
        over = said.ngettext(
            "{matches} and {count} season start",
            "{matches} and {count} season starts",
            starts,
            matches=over,
        )
    return said.gettext(
        N_("Ladder rating over {over}: from {start} to {end}, between {low} and {high}"),
        over=over,
        start=said.rating(start),
        end=said.rating(ratings[-1]),
        low=said.rating(min(ratings)),
        high=said.rating(max(ratings)),
    )
