"""The variants p1-p8 of SPEC 1.4, as data: a weight rule and the fictitious games.

Games of many independent lists travel together as flat arrays plus segment offsets
(`GameArrays`), so one vectorized pass weighs a whole guild. Within a segment, index 0 is the
newest game.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from bot.ratings.gamelist import Game

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DECAY = 0.98
"""D: how much a game's weight shrinks per step of age."""
FICTITIOUS_WEIGHT = 0.1
"""Constant weight of every fictitious game (it does not age)."""
OPPONENT_COUNT_CAP = 50
"""p5, p6: the divisor √min(N_X, 50) stops growing at 50 games against one opponent."""
OPPONENT_WEIGHT_CAP = 5.0
"""p7, p8: the games against one opponent together weigh at most min(√N_X, 5)."""


class FictitiousGame(NamedTuple):
    weight: float
    result: float
    rating: float


@dataclass(frozen=True, eq=False)
class GameArrays:
    """Many game lists as flat arrays; segment s is `offsets[s]:offsets[s + 1]`.

    `opponents` holds integer codes; equal codes within one segment mean the same opponent
    (codes of different segments are unrelated).
    """

    results: FloatArray
    ratings: FloatArray
    opponents: IntArray
    offsets: IntArray

    @classmethod
    def from_game_lists(cls, game_lists: Iterable[Sequence[Game]]) -> GameArrays:
        results: list[float] = []
        ratings: list[float] = []
        opponents: list[int] = []
        offsets = [0]
        for games in game_lists:
            codes: dict[str, int] = {}
            results.extend(game.result for game in games)
            ratings.extend(game.rating for game in games)
            opponents.extend(codes.setdefault(game.opponent, len(codes)) for game in games)
            offsets.append(len(results))
        return cls(
            np.array(results, dtype=np.float64),
            np.array(ratings, dtype=np.float64),
            np.array(opponents, dtype=np.int64),
            np.array(offsets, dtype=np.int64),
        )

    @property
    def segment_count(self) -> int:
        return len(self.offsets) - 1

    @functools.cached_property
    def segment_ids(self) -> IntArray:
        """For each game, the index of its segment."""
        lengths = np.diff(self.offsets)
        return np.repeat(np.arange(self.segment_count, dtype=np.int64), lengths)

    @functools.cached_property
    def age(self) -> IntArray:
        """i: the number of games newer than this one in its list."""
        segment_starts = np.repeat(self.offsets[:-1], np.diff(self.offsets))
        return np.arange(len(self.results), dtype=np.int64) - segment_starts

    @functools.cached_property
    def _opponent_groups(self) -> tuple[IntArray, IntArray]:
        """(N_X, j_i) per game, from one sort of (segment, opponent, age) packed in an int64.

        Sorting the packed values (numpy's vectorized sort) is several times faster than an
        argsort, and since the segment leads the key every game stays within its segment's
        stretch, so the gathers and scatters below touch memory nearby.
        """
        size = len(self.results)
        if size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        opponents = self.opponents - self.opponents.min()
        age_bits = int(np.diff(self.offsets).max()).bit_length()
        if self.segment_count * (int(opponents.max()) + 1) >= 1 << (63 - age_bits):
            opponents = np.unique(opponents, return_inverse=True)[1]  # codes 0, 1, 2, ...
        key = self.segment_ids * (int(opponents.max()) + 1)
        key += opponents
        key <<= age_bits
        key |= self.age
        key.sort()
        positions = np.arange(size, dtype=np.int64)
        # The game at sorted place p lies in the same segment as the game at place p.
        order = key & ((1 << age_bits) - 1)
        order += positions
        order -= self.age
        key >>= age_bits
        is_group_start = np.empty(size, dtype=bool)
        is_group_start[0] = True
        np.not_equal(key[1:], key[:-1], out=is_group_start[1:])
        group_of_sorted = np.cumsum(is_group_start) - 1
        group_starts = np.flatnonzero(is_group_start)
        group_sizes = np.diff(np.append(group_starts, size))
        count = np.empty(size, dtype=np.int64)
        count[order] = group_sizes[group_of_sorted]
        rank_of_sorted = np.subtract(positions, group_starts[group_of_sorted], out=positions)
        rank = np.empty(size, dtype=np.int64)
        rank[order] = rank_of_sorted
        return count, rank

    @property
    def opponent_game_count(self) -> IntArray:
        """N_X: the number of games in the list against this game's opponent."""
        return self._opponent_groups[0]

    @property
    def newer_against_opponent(self) -> IntArray:
        """j_i: the number of games against the same opponent that are newer than this one."""
        return self._opponent_groups[1]

    @functools.cached_property
    def distinct_newer_opponents(self) -> IntArray:
        """u_i: the number of distinct opponents among the games newer than this one."""
        first_meetings = np.zeros(len(self.results) + 1, dtype=np.int64)
        np.cumsum(self.newer_against_opponent == 0, out=first_meetings[1:])
        return first_meetings[:-1] - first_meetings[self.offsets[:-1]][self.segment_ids]


WeightRule = Callable[[GameArrays], FloatArray]
_LOG_DECAY = math.log(DECAY)


def _decayed(steps: IntArray) -> FloatArray:
    """D^steps, via exp: numpy's power is far slower once the results turn subnormal."""
    decayed: FloatArray = np.exp(steps * _LOG_DECAY)
    return decayed


@dataclass(frozen=True)
class Variant:
    """A performance-rating variant: its weights k_i and its fictitious games."""

    name: str
    summary: str
    weights: WeightRule
    fictitious: tuple[FictitiousGame, ...]


def _equal(games: GameArrays) -> FloatArray:
    return np.ones(len(games.results), dtype=np.float64)


def _aged_by_games(games: GameArrays) -> FloatArray:
    return _decayed(games.age)


def _aged_by_games_per_opponent(games: GameArrays, cap: float) -> FloatArray:
    return _aged_by_games(games) / np.sqrt(np.minimum(games.opponent_game_count, cap))


def _aged_by_opponents_per_opponent(games: GameArrays) -> FloatArray:
    aged = _decayed(games.distinct_newer_opponents)
    return aged / np.sqrt(np.minimum(games.opponent_game_count, OPPONENT_COUNT_CAP))


def _opponent_sequence(games: GameArrays) -> FloatArray:
    """p7: D^u · D^j · min(√N, 5) / Σ_{t<N} D^t (the geometric sum in closed form)."""
    count = games.opponent_game_count.astype(np.float64)
    opponent_total = (1.0 - _decayed(games.opponent_game_count)) / (1.0 - DECAY)
    aged = _decayed(games.distinct_newer_opponents + games.newer_against_opponent)
    return aged * np.minimum(np.sqrt(count), OPPONENT_WEIGHT_CAP) / opponent_total


_DRAW_WITH_ZERO = (FictitiousGame(FICTITIOUS_WEIGHT, 0.5, 0.0),)
_TWO_DRAWS_WITH_AVERAGE = (FictitiousGame(FICTITIOUS_WEIGHT, 0.5, 1500.0),) * 2

VARIANTS: dict[str, Variant] = {
    variant.name: variant
    for variant in (
        Variant("p1", "plain performance rating", _equal, ()),
        Variant("p2", "p1 plus a fictitious draw with a 0-rated player", _equal, _DRAW_WITH_ZERO),
        Variant("p3", "newer games weigh more (D^i)", _aged_by_games, _DRAW_WITH_ZERO),
        Variant(
            "p4",
            "p3, games against one opponent reduced by 1/√N",
            functools.partial(_aged_by_games_per_opponent, cap=np.inf),
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p5",
            "p4 with the divisor capped at √50",
            functools.partial(_aged_by_games_per_opponent, cap=OPPONENT_COUNT_CAP),
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p6",
            "p5, games age by distinct opponents played since",
            _aged_by_opponents_per_opponent,
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p7",
            "games age within each opponent's sequence and by distinct opponents since",
            _opponent_sequence,
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p8",
            "p7 with two fictitious draws with a 1500-rated player",
            _opponent_sequence,
            _TWO_DRAWS_WITH_AVERAGE,
        ),
    )
}


def variant_named(name: str) -> Variant:
    """The variant called `name`; ValueError naming it and the choices otherwise."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown variant {name!r}: choose one of p1…p8") from None
