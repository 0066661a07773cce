"""The rating histories the chart is checked and shown with (SPEC 9.5).

`python -m tests.app.chart_histories docs` writes their PNGs, the images in docs/.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from bot.app.charts import rating_chart_png
from bot.services.card import RatingPoint

START = 500.0
DAY = 86_400.0
FIRST = 1_767_225_600.0
"""2026-01-01 00:00 UTC."""


def _walk(times: list[float], seed: int) -> list[RatingPoint]:
    """A random walk of ratings at the given times (a plausible ladder history), one match
    each."""
    rng = random.Random(seed)
    rating, points = START, []
    for number, when in enumerate(times, start=1):
        rating += rng.gauss(0.8, 12.0)
        points.append(RatingPoint(when, rating, number))
    return points


def _season_start(points: list[RatingPoint], carry: float) -> list[RatingPoint]:
    """The points, then a season start an hour after the last that carries `carry` of the
    distance to START (SPEC 9.1)."""
    last = points[-1]
    return [*points, RatingPoint(last.at + 3600, START + carry * (last.rating - START), None)]


def _spread(count: int, days: float, seed: int) -> list[float]:
    """`count` match times at random over `days` from FIRST, in order."""
    rng = random.Random(seed)
    return sorted(FIRST + rng.uniform(0, days * DAY) for _ in range(count))


HISTORIES: dict[str, list[RatingPoint]] = {
    "one-match": _walk([FIRST + 20 * 3600], 1),
    "ten-matches-one-day": _walk([FIRST + 18 * 3600 + 25 * 60 * i for i in range(10)], 2),
    "a-year": _walk(_spread(90, 365, 3), 3),
    "200-matches": _walk([FIRST + i * 0.9 * DAY for i in range(200)], 4),
    "season-start": _season_start(
        _walk([FIRST + 18 * 3600 + 25 * 60 * i for i in range(8)], 6), 0.5
    ),
}


def main(directory: str) -> None:
    for name, points in HISTORIES.items():
        png = rating_chart_png(START, points, f"player — ladder rating ({name})")
        Path(directory, f"chart-{name}.png").write_bytes(png)


if __name__ == "__main__":
    main(sys.argv[1])
