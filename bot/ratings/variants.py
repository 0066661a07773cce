"""The variants p1-p8 of SPEC 1.4, as data: a weight rule and the fictitious games.

Games of many independent lists travel together as flat arrays plus segment offsets
(`GameArrays`), so one vectorized pass weighs a whole guild. Within a segment, index 0 is the
newest game.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from bot.ratings.arrays import FloatArray, IntArray
from bot.ratings.gamelist import Game

_Values = TypeVar("_Values", bound=npt.NDArray[Any])

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
    groups: OpponentGroups | None = field(default=None, repr=False)
    """The opponent groups when known already (`with_newest`); None: sorted when needed."""

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
        return np.repeat(np.arange(self.segment_count, dtype=np.int64), np.diff(self.offsets))

    @functools.cached_property
    def segment_starts(self) -> IntArray:
        """For each game, the index of its segment's newest game (kept: the ages and the
        opponent groups both need it)."""
        return np.repeat(self.offsets[:-1], np.diff(self.offsets))

    @functools.cached_property
    def age(self) -> IntArray:
        """i: the number of games newer than this one in its list."""
        return np.arange(len(self.results), dtype=np.int64) - self.segment_starts

    @functools.cached_property
    def opponent_groups(self) -> OpponentGroups:
        """The games grouped by (segment, opponent), from one sort of (segment, opponent, age)
        packed in one integer.

        Sorting the packed values is several times faster than an argsort, and twice as fast
        again in 32 bits, used whenever the key fits. The stable sort (a merge sort) keeps
        the runs the games come in: segments in order, each newest first, so only the
        opponents within a segment are out of order (1,000,000 games: 16 ms against 30 ms
        for the default sort). Since the segment leads the key, every game stays within its
        segment's stretch, so the gathers and scatters touch memory nearby.
        """
        if self.groups is not None:
            return self.groups
        size = len(self.results)
        if size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return OpponentGroups(empty, empty, empty, empty)
        opponents, lowest = self.opponents, int(self.opponents.min())
        age_bits = int(np.diff(self.offsets).max()).bit_length()
        span = int(opponents.max()) - lowest + 1
        if self.segment_count * span >= 1 << (63 - age_bits):
            opponents = np.unique(opponents, return_inverse=True)[1]  # codes 0, 1, 2, ...
            lowest, span = 0, int(opponents.max()) + 1
        fits_32_bits = self.segment_count * span <= 1 << (32 - age_bits)
        key: npt.NDArray[np.unsignedinteger[Any] | np.signedinteger[Any]] = np.empty(
            size, dtype=np.uint32 if fits_32_bits else np.int64
        )
        # The values fit the key type by the checks above, so the casts lose nothing.
        np.subtract(opponents, lowest, out=key, casting="unsafe")
        key += np.repeat(
            np.arange(self.segment_count, dtype=key.dtype) * span, np.diff(self.offsets)
        )
        key <<= age_bits
        np.bitwise_or(key, self.age, out=key, casting="unsafe")
        key.sort(kind="stable")
        # The game at sorted place p lies in the same segment as the game at place p.
        order = np.bitwise_and(key, (1 << age_bits) - 1, out=np.empty(size, dtype=np.int64))
        order += self.segment_starts
        key >>= age_bits
        is_group_start = np.empty(size, dtype=bool)
        is_group_start[0] = True
        np.not_equal(key[1:], key[:-1], out=is_group_start[1:])
        starts = np.flatnonzero(is_group_start)
        group = _running_count(is_group_start)
        group -= 1
        return OpponentGroups(order, group, starts, np.diff(np.append(starts, size)))

    def with_newest(self, results: FloatArray, ratings: FloatArray) -> GameArrays:
        """These lists with one more game each, the newest, with the given result and rating
        (one per list), against an opponent none of them has met. Its opponent groups follow
        from these lists' without a sort: the new opponent's code is above every other, so
        its one game closes its list's groups, and every other game keeps its group, one
        place later in its list (both orders by sorted place, as the sort would give them)."""
        count = self.segment_count
        starts = self.offsets[:-1]
        offsets = self.offsets + np.arange(count + 1)
        new_opponent = int(self.opponents.max()) + 1 if len(self.opponents) else 0
        groups = self.opponent_groups
        segment = self.segment_ids  # of a game, and so of its sorted place
        ends = self.offsets[1:]  # sorted places: each list's new game goes before these
        groups_before = np.searchsorted(groups.starts, ends)  # groups up to each list's end
        shift = np.arange(count)
        group_segment = segment[groups.starts]
        return GameArrays(
            results=np.insert(self.results, starts, results),
            ratings=np.insert(self.ratings, starts, ratings),
            opponents=np.insert(self.opponents, starts, np.full(count, new_opponent)),
            offsets=offsets,
            groups=OpponentGroups(
                order=np.insert(groups.order + segment + 1, ends, starts + shift),
                group=np.insert(groups.group + segment, ends, groups_before + shift),
                starts=np.insert(groups.starts + group_segment, groups_before, ends + shift),
                sizes=np.insert(groups.sizes, groups_before, 1),
            ),
        )

    @functools.cached_property
    def opponent_game_count(self) -> IntArray:
        """N_X: the number of games in the list against this game's opponent (kept: p4, p5
        and p6 all weigh by it)."""
        groups = self.opponent_groups
        counts = groups.to_games(groups.sizes[groups.group])
        counts.flags.writeable = False  # shared by every caller
        return counts

    @property
    def newer_against_opponent(self) -> IntArray:
        """j_i: the number of games against the same opponent that are newer than this one."""
        groups = self.opponent_groups
        return groups.to_games(groups.newer_in_group())

    @functools.cached_property
    def decayed_by_age(self) -> FloatArray:
        """D^i (kept: p3, p4 and p5 all age by it; p3's weights are this array)."""
        decayed = _decayed(self.age)
        decayed.flags.writeable = False  # shared by every caller
        return decayed

    @functools.cached_property
    def distinct_newer_opponents(self) -> IntArray:
        """u_i: the number of distinct opponents among the games newer than this one.

        A prefix count of first meetings, each counted from the game after it, so the
        running total at a game leaves that game's own first meeting out.
        """
        size = len(self.results)
        groups = self.opponent_groups
        counted_from = np.zeros(size + 1, dtype=bool)
        counted_from[groups.order[groups.starts] + 1] = True
        first_meetings = _running_count(counted_from)
        first_meetings[:size] -= first_meetings[self.segment_starts]
        return first_meetings[:size]


@dataclass(frozen=True, eq=False)
class OpponentGroups:
    """The games sorted by (segment, opponent, age): each group is one opponent's games in one
    list, newest first. Arrays indexed by sorted place, except `starts` and `sizes` (by group).
    """

    order: IntArray
    """The game at each sorted place (its index in the game arrays)."""
    group: IntArray
    """The group of each sorted place."""
    starts: IntArray
    """The first sorted place of each group."""
    sizes: IntArray
    """N_X: the number of games of each group."""

    def newer_in_group(self) -> IntArray:
        """j_i at each sorted place: its distance from its group's first place."""
        newer = np.arange(len(self.group), dtype=np.int64)
        newer -= self.starts[self.group]
        return newer

    def to_games(self, by_place: _Values) -> _Values:
        """Values given per sorted place, rearranged to game order."""
        by_game: _Values = np.empty_like(by_place)
        by_game[self.order] = by_place
        return by_game


def _running_count(flags: npt.NDArray[np.bool_]) -> IntArray:
    """How many of the flags up to each place are set: the flags made integers, then summed
    in place (4x faster than a cumsum of bools into an int64 `out`, which casts in small
    buffers; 1,000,000 flags: 0.95 ms against 3.7 ms)."""
    counts = flags.astype(np.int64)
    np.cumsum(counts, out=counts)
    return counts


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
    weights: WeightRule
    """k_i from the games' opponents and order, never their results (stability_arrays
    weighs a list once for both of its one-more-game outcomes)."""
    fictitious: tuple[FictitiousGame, ...]


def _equal(games: GameArrays) -> FloatArray:
    return np.ones(len(games.results), dtype=np.float64)


def _aged_by_games(games: GameArrays) -> FloatArray:
    return games.decayed_by_age


def _aged_by_games_per_opponent(games: GameArrays, cap: float) -> FloatArray:
    return _aged_by_games(games) / np.sqrt(np.minimum(games.opponent_game_count, cap))


def _aged_by_opponents_per_opponent(games: GameArrays) -> FloatArray:
    aged = _decayed(games.distinct_newer_opponents)
    return aged / np.sqrt(np.minimum(games.opponent_game_count, OPPONENT_COUNT_CAP))


def _opponent_sequence(games: GameArrays) -> FloatArray:
    """p7: D^u · D^j · min(√N, 5) / Σ_{t<N} D^t (the geometric sum in closed form).

    Built as one exponent per game, then a single exp: the share min(√N, 5) / Σ D^t from a
    table over N, once per group; D^j in sorted order, where j is the game's age less the
    age of its group's newest game (both in one segment); one scatter to game order; D^u.
    """
    groups = games.opponent_groups
    counts = np.arange(1, int(groups.sizes.max(initial=0)) + 1)
    opponent_totals = (1.0 - _decayed(counts)) / (1.0 - DECAY)
    log_shares = np.log(np.minimum(np.sqrt(counts), OPPONENT_WEIGHT_CAP) / opponent_totals)
    by_group = log_shares[groups.sizes - 1]
    by_group -= games.age[groups.starts] * _LOG_DECAY
    by_place: FloatArray = np.multiply(games.age, _LOG_DECAY)
    by_place += by_group[groups.group]
    exponents = groups.to_games(by_place)
    exponents += games.distinct_newer_opponents * _LOG_DECAY
    return np.exp(exponents, out=exponents)


_DRAW_WITH_ZERO = (FictitiousGame(FICTITIOUS_WEIGHT, 0.5, 0.0),)
_TWO_DRAWS_WITH_AVERAGE = (FictitiousGame(FICTITIOUS_WEIGHT, 0.5, 1500.0),) * 2

VARIANTS: dict[str, Variant] = {
    variant.name: variant
    for variant in (
        Variant("p1", _equal, ()),
        Variant("p2", _equal, _DRAW_WITH_ZERO),
        Variant("p3", _aged_by_games, _DRAW_WITH_ZERO),
        Variant(
            "p4",
            functools.partial(_aged_by_games_per_opponent, cap=np.inf),
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p5",
            functools.partial(_aged_by_games_per_opponent, cap=OPPONENT_COUNT_CAP),
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p6",
            _aged_by_opponents_per_opponent,
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p7",
            _opponent_sequence,
            _DRAW_WITH_ZERO,
        ),
        Variant(
            "p8",
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
