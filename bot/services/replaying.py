"""Adapter from stored log rows to the ladder's replay (bot.ratings): no math here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby

import numpy as np

from bot.ratings.ladder import LadderSettings, rating_changes


@dataclass(frozen=True, slots=True)
class ReplayRow:
    """One rated participant of one match; rows of a match are consecutive, in log order."""

    match_id: int
    user_id: int
    side: str
    score: float
    minutes: float


@dataclass(frozen=True, slots=True)
class ReplayResult:
    before: list[float]
    after: list[float]
    """Per row: the member's rating before and after that match."""
    final: dict[int, float]
    """Per member who appears: the rating after the last match."""


def replay_log(
    rows: Sequence[ReplayRow], starts: Mapping[int, float], settings: LadderSettings
) -> ReplayResult:
    """Apply the matches in order; a member's first rating is starts[user] or initial_rating."""
    ratings = dict(starts)
    before: list[float] = []
    after: list[float] = []
    for _, match_rows in groupby(rows, key=lambda row: row.match_id):
        group = list(match_rows)
        current = np.array(
            [ratings.get(row.user_id, settings.initial_rating) for row in group], np.float64
        )
        changes = rating_changes(
            current,
            [row.side for row in group],
            [row.score for row in group],
            [row.minutes for row in group],
            settings,
        )
        updated = current + changes
        before.extend(current.tolist())
        after.extend(updated.tolist())
        ratings.update(zip((row.user_id for row in group), updated.tolist(), strict=True))
    final = {row.user_id: ratings[row.user_id] for row in rows}
    return ReplayResult(before, after, final)
