"""Adapter from stored log rows (bot.storage.LogRow) to the ladder's replay
(bot.ratings.replay): no math here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from bot.ratings.ladder import LadderSettings
from bot.ratings.replay import replay_waves
from bot.storage import LogRow


@dataclass(frozen=True, slots=True)
class ReplayResult:
    before: list[float]
    after: list[float]
    """Per row: the member's rating before and after that match."""
    final: dict[int, float]
    """Per member who appears: the rating after the last match."""


def replay_log(
    rows: Sequence[LogRow], starts: Mapping[int, float], settings: LadderSettings
) -> ReplayResult:
    """Apply the matches of `rows` (a match's rows consecutive, in log order) in order; a
    member's first rating is starts[user] or initial_rating."""
    if not rows:
        return ReplayResult([], [], {})
    players: dict[int, int] = {}
    sides: dict[str, int] = {}
    match_index = np.cumsum([0] + [int(a.match_id != b.match_id) for a, b in pairwise(rows)])
    player = np.array([players.setdefault(row.user_id, len(players)) for row in rows], np.int64)
    side = np.array([sides.setdefault(row.side, len(sides)) for row in rows], np.int64)
    start_ratings = np.array(
        [starts.get(user_id, settings.initial_rating) for user_id in players], np.float64
    )
    replay = replay_waves(
        match_index,
        player,
        side,
        [row.score for row in rows],
        [row.minutes for row in rows],
        len(players),
        settings,
        start_ratings,
    )
    final = dict(zip(players, replay.final.tolist(), strict=True))
    return ReplayResult(replay.before.tolist(), replay.after.tolist(), final)
