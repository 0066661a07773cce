"""The bridge between the ladder's scale and Elo units (SPEC 3.1).

The p-family speaks Elo units (W(RD) = 1/(1 + 10^(RD/400)), average 1500); the ladder uses
a logistic scale t around initial_rating. The affine map below makes
W(to_elo(r_q) - to_elo(r_p)) equal the ladder's P_pq = 1/(1 + exp((r_q - r_p)/t)) exactly,
so the variants run unchanged on ladder ratings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

ELO_SCALE = 400.0
ELO_AVERAGE = 1500.0

Ratings = TypeVar("Ratings", float, npt.NDArray[np.float64])


@dataclass(frozen=True, slots=True)
class EloBridge:
    """Converts ratings and rating differences between the ladder scale and Elo units."""

    t: float
    initial_rating: float

    def __post_init__(self) -> None:
        if isinstance(self.t, bool) or not isinstance(self.t, int | float):
            raise ValueError(f"t must be a number, not {self.t!r}")
        if not (math.isfinite(self.t) and self.t > 0):
            raise ValueError(f"t must be a finite number > 0, not {self.t!r}")
        if isinstance(self.initial_rating, bool) or not isinstance(
            self.initial_rating, int | float
        ):
            raise ValueError(f"initial_rating must be a number, not {self.initial_rating!r}")
        if not math.isfinite(self.initial_rating):
            raise ValueError(f"initial_rating must be finite, not {self.initial_rating!r}")

    @property
    def points_per_elo(self) -> float:
        """Ladder points per Elo point: converts a difference such as UP or DOWN."""
        return self.t * math.log(10) / ELO_SCALE

    def to_elo(self, rating: Ratings) -> Ratings:
        """A ladder rating (or array of them) in Elo units."""
        return ELO_AVERAGE + (rating - self.initial_rating) / self.points_per_elo

    def from_elo(self, elo: Ratings) -> Ratings:
        """An Elo-unit rating (or array of them) back on the ladder scale."""
        return self.initial_rating + (elo - ELO_AVERAGE) * self.points_per_elo


def elo_expected_score(rating_difference: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """W(RD) in Elo units (SPEC 1.3): the expected score against an opponent rated RD Elo
    points higher, 1 / (1 + 10^(RD/400)). On the ladder scale see
    bot.ratings.ladder.ladder_expected_score."""
    with np.errstate(over="ignore"):
        exponent = np.asarray(rating_difference, dtype=np.float64) * (math.log(10) / ELO_SCALE)
        return np.asarray(1.0 / (1.0 + np.exp(exponent)), dtype=np.float64)
