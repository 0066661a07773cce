"""The ZoneStats ladder update (SPEC 2.3) and the score-less reports (SPEC 2.4).

Pure numpy: one match in, one rating change per enabled participant out. The caller passes
only enabled participants (guests, bots and opted-out members are never compared).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]

MAX_MINUTES: Final = 1440.0
"""Longest time in game a participant may report (one day)."""

OFFSET_TIE_TOLERANCE: Final = 1e-9
"""|offset| values this close count as equally large when choosing h (step 7)."""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """The guild's ladder constants (SPEC 2.1); defaults are the seed's."""

    t: float = 120.0
    game_mult: float = 2.0
    max_game_length: float = 20.0
    initial_rating: float = 500.0

    def __post_init__(self) -> None:
        for name in ("t", "game_mult", "max_game_length", "initial_rating"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name} must be a number, not {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, not {value!r}")
        for name in ("t", "game_mult", "max_game_length"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be greater than 0, not {getattr(self, name)!r}")

    @property
    def max_change(self) -> float:
        """The most points one participant can gain or lose in one match."""
        return self.game_mult * self.max_game_length


DEFAULT_SETTINGS: Final = LadderSettings()


def expected_score(rating: ArrayLike, opponent_rating: ArrayLike, t: float) -> FloatArray:
    """P_pq of step 3: 1 / (1 + exp((R_q - R_p) / t)).

    Written as 0.5 + 0.5·tanh((R_p - R_q) / 2t), the same number without overflow for huge
    differences, and exactly antisymmetric (P_pq - 0.5 = 0.5 - P_qp) so updates stay zero-sum.
    """
    difference = np.asarray(rating, dtype=np.float64) - np.asarray(opponent_rating, np.float64)
    return np.asarray(0.5 + 0.5 * np.tanh(difference / (2.0 * t)), dtype=np.float64)


def side_codes(sides: Iterable[Hashable]) -> NDArray[np.int64]:
    """Hashable side labels to small integers (equal labels, equal codes)."""
    codes: dict[Hashable, int] = {}
    return np.array([codes.setdefault(label, len(codes)) for label in sides], dtype=np.int64)


def validate_match(
    ratings: FloatArray, sides: NDArray[np.int64], scores: FloatArray, minutes: FloatArray
) -> None:
    """Raise ValueError naming the field and participant (0-based) that is out of range."""
    count = len(ratings)
    for name, values in (("sides", sides), ("scores", scores), ("minutes", minutes)):
        if values.ndim != 1 or len(values) != count:
            raise ValueError(
                f"{name} has {values.size} entries but ratings has {count}: one per participant"
            )
    if ratings.ndim != 1:
        raise ValueError("ratings must be a flat list, one per participant")
    checks = (
        ("rating", ratings, np.isfinite(ratings), "a finite number"),
        ("score", scores, np.isfinite(scores) & (scores >= 0), "a finite number >= 0"),
        (
            "minutes",
            minutes,
            np.isfinite(minutes) & (minutes > 0) & (minutes <= MAX_MINUTES),
            f"a finite number > 0 and <= {MAX_MINUTES:g}",
        ),
    )
    for name, values, valid, requirement in checks:
        if not valid.all():
            bad = int(np.flatnonzero(~valid)[0])
            raise ValueError(
                f"participant {bad}: {name} must be {requirement}, not {values[bad]!r}"
            )
    if len(np.unique(sides)) < 2:
        raise ValueError("sides: a match needs participants on at least two different sides")


def pair_results(scores: FloatArray, minutes: FloatArray) -> FloatArray:
    """result_pq of step 4 for every ordered pair: 1, 0.5 or 0 by score per hour.

    score_p·minutes_q against score_q·minutes_p: the order of SPH, and equal rates compare
    exactly equal in floating point.
    """
    mine = scores[:, None] * minutes[None, :]
    theirs = scores[None, :] * minutes[:, None]
    return np.asarray(0.5 + 0.5 * np.sign(mine - theirs), dtype=np.float64)


def step_scale(offsets: FloatArray, minutes: FloatArray, settings: LadderSettings) -> float:
    """Step 7: shrink every offset so the largest stays within game_mult per minute of h."""
    magnitudes = np.abs(offsets)
    largest = float(magnitudes.max())
    if largest == 0.0:
        return 1.0
    candidates = magnitudes >= largest - OFFSET_TIE_TOLERANCE
    fewest_minutes = float(minutes[candidates].min())
    h_magnitude = float(magnitudes[candidates & (minutes == fewest_minutes)].max())
    cap = min(fewest_minutes, settings.max_game_length) * settings.game_mult
    return 1.0 if h_magnitude <= cap else cap / h_magnitude


def rating_changes(
    ratings: ArrayLike,
    sides: Iterable[Hashable],
    scores: ArrayLike,
    minutes: ArrayLike,
    settings: LadderSettings = DEFAULT_SETTINGS,
) -> FloatArray:
    """The change of every enabled participant's rating in one match (SPEC 2.3, steps 1-8).

    ratings are the ratings before the match (initial_rating for newcomers); sides are any
    hashable labels (a free-for-all gives everyone a label of their own).
    """
    ratings_ = np.asarray(ratings, dtype=np.float64)
    sides_ = side_codes(sides)
    scores_ = np.asarray(scores, dtype=np.float64)
    minutes_ = np.asarray(minutes, dtype=np.float64)
    validate_match(ratings_, sides_, scores_, minutes_)

    opponents = sides_[:, None] != sides_[None, :]
    expected = expected_score(ratings_[:, None], ratings_[None, :], settings.t)
    individual = pair_results(scores_, minutes_) - expected
    pair_minutes = np.minimum(
        settings.max_game_length, np.minimum(minutes_[:, None], minutes_[None, :])
    )
    individual = individual * settings.game_mult * pair_minutes
    offsets = np.where(opponents, individual, 0.0).sum(axis=1)
    return np.asarray(offsets * step_scale(offsets, minutes_, settings), dtype=np.float64)


# --- SPEC 2.4: reports without scores ---------------------------------------------------


def match_minutes(minutes: float | None, settings: LadderSettings = DEFAULT_SETTINGS) -> float:
    """The minutes of a score-less report: as given, else max_game_length."""
    if minutes is None:
        return settings.max_game_length
    if not (math.isfinite(minutes) and 0 < minutes <= MAX_MINUTES):
        raise ValueError(
            f"minutes must be a finite number > 0 and <= {MAX_MINUTES:g}, not {minutes!r}"
        )
    return float(minutes)


def duel_scores(*, draw: bool = False) -> tuple[float, float]:
    """(winner, loser) scores of a duel: 1 and 0, or 0 and 0 for a draw."""
    return (0.0, 0.0) if draw else (1.0, 0.0)


def placement_scores(player_count: int) -> tuple[float, ...]:
    """Scores of a free-for-all by placement, first to last: number of players - place."""
    if player_count < 2:
        raise ValueError(f"player_count must be at least 2, not {player_count!r}")
    return tuple(float(player_count - place) for place in range(1, player_count + 1))


def team_scores(sides: Sequence[Hashable], winner: Hashable | None) -> tuple[float, ...]:
    """Per participant: 1 on the winning side, else 0; winner None is a draw (all 0)."""
    if winner is not None and winner not in sides:
        raise ValueError(
            f"winner {winner!r} is not one of the sides {sorted(set(map(str, sides)))}"
        )
    return tuple(1.0 if side == winner else 0.0 for side in sides)
