"""The comparison points: a plain-Python ZoneStats replay, openskill, scipy's brentq.

openskill and scipy are the `bench` extra: they are imported only when a baseline runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from bench.data import MatchLog

OFFSET_TIE_TOLERANCE = 1e-9


class Settings(Protocol):
    """What the ZoneStats update reads from the guild's settings (SPEC 2.1)."""

    @property
    def t(self) -> float: ...
    @property
    def game_mult(self) -> float: ...
    @property
    def max_game_length(self) -> float: ...
    @property
    def initial_rating(self) -> float: ...


def plain_changes(
    ratings: Sequence[float],
    sides: Sequence[int],
    scores: Sequence[float],
    minutes: Sequence[float],
    settings: Settings,
) -> list[float]:
    """SPEC 2.3 steps 1-8 for one match, the obvious way: Python floats and nested loops."""
    t, mult, cap = settings.t, settings.game_mult, settings.max_game_length
    count = len(ratings)
    offsets = [0.0] * count
    for p in range(count):
        offset = 0.0
        for q in range(count):
            if sides[p] == sides[q]:
                continue
            expected = 1.0 / (1.0 + math.exp((ratings[q] - ratings[p]) / t))
            mine, theirs = scores[p] * minutes[q], scores[q] * minutes[p]
            result = 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5
            offset += (result - expected) * mult * min(cap, minutes[p], minutes[q])
        offsets[p] = offset
    largest = max(abs(offset) for offset in offsets)
    if largest == 0.0:
        return offsets
    h = min(
        (p for p in range(count) if abs(offsets[p]) >= largest - OFFSET_TIE_TOLERANCE),
        key=lambda p: (minutes[p], -abs(offsets[p])),
    )
    scale = min(1.0, min(minutes[h], cap) * mult / abs(offsets[h]))
    return [offset * scale for offset in offsets]


def replay_plain(log: MatchLog, settings: Settings) -> tuple[list[float], list[float], list[float]]:
    """Every match in order: (rating before per row, rating after per row, final ratings)."""
    ratings = [float(settings.initial_rating)] * log.member_count
    players, sides = log.player.tolist(), log.side.tolist()
    scores, minutes = log.score.tolist(), log.minutes.tolist()
    before: list[float] = []
    after: list[float] = []
    size = log.players_per_match
    for start in range(0, len(players), size):
        rows = slice(start, start + size)
        who = players[rows]
        current = [ratings[p] for p in who]
        changes = plain_changes(current, sides[rows], scores[rows], minutes[rows], settings)
        before.extend(current)
        for player, rating, change in zip(who, current, changes, strict=True):
            ratings[player] = rating + change
            after.append(rating + change)
    return before, after, ratings


def replay_openskill(log: MatchLog) -> list[Any]:
    """openskill's Plackett-Luce over the same stream: sides ranked by their summed score
    per hour (a free-for-all is eight one-player teams). Returns the final ratings."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(log.member_count)]
    players, sides = log.player.tolist(), log.side.tolist()
    rates = (log.score / log.minutes * 60.0).tolist()
    size = log.players_per_match
    for start in range(0, len(players), size):
        teams: dict[int, list[int]] = {}
        team_rates: dict[int, float] = {}
        for row in range(start, start + size):
            teams.setdefault(sides[row], []).append(players[row])
            team_rates[sides[row]] = team_rates.get(sides[row], 0.0) + rates[row]
        members = list(teams.values())
        rated = model.rate(
            [[ratings[p] for p in team] for team in members],
            scores=[team_rates[side] for side in teams],
        )
        for team, new_ratings in zip(members, rated, strict=True):
            for player, rating in zip(team, new_ratings, strict=True):
                ratings[player] = rating
    return ratings


def brentq_roots(
    problems: Sequence[tuple[Callable[[float], float], float, float]], xtol: float
) -> NDArray[np.float64]:
    """One scipy.optimize.brentq per (equation, low, high)."""
    from scipy.optimize import brentq  # type: ignore[import-untyped]

    return np.array([brentq(f, low, high, xtol=xtol) for f, low, high in problems])
