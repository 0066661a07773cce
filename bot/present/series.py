"""The rating chart's series (SPEC 9.5), as the PNG, the web chart and JSON show it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.services.card import RatingPoint
from bot.services.matchcsv.format import format_time


def match_positions(history: Sequence[RatingPoint]) -> list[float]:
    """Where each point sits on a chart by match number: the n-th match at n (0 is the
    starting rating), a season start half way after the match before it."""
    positions: list[float] = []
    matches = 0
    for point in history:
        if point.match_id is None:
            positions.append(matches + 0.5)
        else:
            matches += 1
            positions.append(float(matches))
    return positions


def season_starts(history: Sequence[RatingPoint]) -> list[int]:
    """The indices of the points that are season starts."""
    return [index for index, point in enumerate(history) if point.match_id is None]


def chart_object(history: Sequence[RatingPoint]) -> list[dict[str, Any]]:
    """The series for JSON (`rating --json`, the API): oldest first, the last rating the
    current one; `match_id` null marks a season start."""
    return [
        {"at": format_time(point.at), "rating": point.rating, "match_id": point.match_id}
        for point in history
    ]
