"""The ZoneStats ladder update (SPEC 2.3) and the score-less reports (SPEC 2.4).

Pure numpy: one match in, one rating change per enabled participant out. The caller passes
only enabled participants (guests, bots and opted-out members are never compared).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bot.ratings.arrays import BoolArray, FloatArray, IndexArray, IntArray

MAX_SCORE: Final = 1e9
"""Largest score a participant may report (SPEC 7): products of a score and minutes stay
far below float overflow, so no comparison of rates can turn into inf - inf."""
MIN_MINUTES: Final = 0.01
"""Shortest time in game a participant may report (SPEC 7): the cap of step 7 stays > 0."""
MAX_MINUTES: Final = 1440.0
"""Longest time in game a participant may report (one day)."""

Outcome = Literal["win", "draw", "loss"]
"""A rated participant's record of one match."""

SCORE_RULE: Final = "a finite number from 0 to 1e9"
MINUTES_RULE: Final = f"a finite number from {MIN_MINUTES:g} to {MAX_MINUTES:g}"


def valid_scores(scores: ArrayLike) -> BoolArray:
    """Where a score (one or an array) is one a participant may report (SCORE_RULE)."""
    values = np.asarray(scores, dtype=np.float64)
    return np.isfinite(values) & (values >= 0) & (values <= MAX_SCORE)


def valid_minutes(minutes: ArrayLike) -> BoolArray:
    """Where minutes in game (one or an array) are what a participant may report
    (MINUTES_RULE)."""
    values = np.asarray(minutes, dtype=np.float64)
    return np.isfinite(values) & (values >= MIN_MINUTES) & (values <= MAX_MINUTES)


def valid_score(score: float) -> bool:
    """valid_scores of one number, in plain floats (numpy's cost per call is most of a
    check of one report)."""
    return math.isfinite(score) and 0.0 <= score <= MAX_SCORE


def valid_time(minutes: float) -> bool:
    """valid_minutes of one number, in plain floats."""
    return math.isfinite(minutes) and MIN_MINUTES <= minutes <= MAX_MINUTES


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


DEFAULT_SETTINGS: Final = LadderSettings()


def ladder_expected_score(
    rating: ArrayLike, opponent_rating: ArrayLike, t: float | FloatArray
) -> FloatArray:
    """P_pq of step 3 on the ladder scale: 1 / (1 + exp((R_q - R_p) / t)) (t: one spread,
    or an array of them that broadcasts against the ratings). In Elo units see
    bot.ratings.elo.elo_expected_score.

    Written as 0.5 + 0.5·tanh((R_p - R_q) / 2t), the same number without overflow for huge
    differences, and exactly antisymmetric (P_pq - 0.5 = 0.5 - P_qp) so updates stay zero-sum.
    """
    difference = np.asarray(rating, dtype=np.float64) - np.asarray(opponent_rating, np.float64)
    return np.asarray(0.5 + 0.5 * np.tanh(difference / (2.0 * t)), dtype=np.float64)


def zonestats_changes(
    R: ArrayLike,  # noqa: N803 (the spec's symbol)
    sides: Sequence[Hashable],
    score: ArrayLike,
    minutes: ArrayLike,
    settings: LadderSettings = DEFAULT_SETTINGS,
) -> FloatArray:
    """SPEC 2.3 as written, step by step, in its symbols: each enabled participant's change
    R_p(after) - R_p of one match (R: the ratings before it).

    The reference: one [p, q] matrix a step, no shortcut. rating_changes (the fast path every
    rating goes through) is the same update rearranged for batches, and is tested against this.
    """
    R = np.asarray(R, dtype=np.float64)  # noqa: N806
    score = np.asarray(score, dtype=np.float64)
    minutes = np.asarray(minutes, dtype=np.float64)
    t, g, L = settings.t, settings.game_mult, settings.max_game_length  # noqa: N806
    # Ordered pairs (p, q) on different sides: p indexes rows, q columns.
    different_sides = np.array([[side_p != side_q for side_q in sides] for side_p in sides])
    # 1. SPH_p = score_p / (minutes_p / 60). Step 4 compares SPH_p with SPH_q as
    #    score_p·minutes_q against score_q·minutes_p (SPH_p and SPH_q times minutes_p·minutes_q
    #    / 60): the same order, and equal rates compare exactly equal.
    sph_p_by_minutes_q = score[:, None] * minutes[None, :]
    sph_q_by_minutes_p = score[None, :] * minutes[:, None]
    # 2. R_p: the ratings before the match (initial_rating for a newcomer), given.
    # 3. P_pq = 1 / (1 + exp((R_q - R_p) / t)).
    with np.errstate(over="ignore"):  # exp = inf: P_pq = 0, as it should be
        P = 1.0 / (1.0 + np.exp((R[None, :] - R[:, None]) / t))  # noqa: N806
    # 4. result_pq = 1, 0 or 0.5 as SPH_p >, <, = SPH_q; indiv_pq = result_pq - P_pq.
    result = np.where(
        sph_p_by_minutes_q > sph_q_by_minutes_p,
        1.0,
        np.where(sph_p_by_minutes_q < sph_q_by_minutes_p, 0.0, 0.5),
    )
    indiv = result - P
    # 5. time_pq = min(max_game_length, minutes_p, minutes_q); indiv_pq *= game_mult·time_pq.
    time = np.minimum(L, np.minimum(minutes[:, None], minutes[None, :]))
    indiv = indiv * g * time
    # 6. offset_p = sum over q (on another side) of indiv_pq.
    offset = np.where(different_sides, indiv, 0.0).sum(axis=1)
    # 7. h: the largest |offset| (ties within 1e-9: the fewest minutes, then the larger
    #    |offset|); time_h = min(minutes_h, max_game_length);
    #    scale = min(1, time_h·game_mult / |offset_h|), 1 when every offset is 0.
    largest = np.abs(offset).max()
    if largest == 0:
        return np.asarray(offset, dtype=np.float64)
    tied = np.flatnonzero(np.abs(offset) >= largest - OFFSET_TIE_TOLERANCE).tolist()
    h = min(tied, key=lambda p: (minutes[p], -abs(offset[p])))
    time_h = min(minutes[h], L)
    # A tiny |offset_h| (or 0, tied within 1e-9 with a tiny largest): the cap is far away,
    # the quotient is huge or infinite and the scale is 1.
    with np.errstate(over="ignore", divide="ignore"):
        scale = min(1.0, time_h * g / abs(offset[h]))
    # 8. R_p <- R_p + offset_p·scale: the change is offset_p·scale.
    return np.asarray(offset * scale, dtype=np.float64)


def side_codes(sides: Iterable[Hashable]) -> IntArray:
    """Hashable side labels to small integers (equal labels, equal codes, numbered in order
    of first appearance)."""
    labels = list(sides)
    codes = {label: code for code, label in enumerate(dict.fromkeys(labels))}
    return np.fromiter(map(codes.__getitem__, labels), np.int64, len(labels))


def validate_match(
    ratings: FloatArray, sides: IntArray, scores: FloatArray, minutes: FloatArray
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
        ("score", scores, valid_scores(scores), SCORE_RULE),
        ("minutes", minutes, valid_minutes(minutes), MINUTES_RULE),
    )
    for name, values, valid, requirement in checks:
        if not valid.all():
            bad = int(np.flatnonzero(~valid)[0])
            raise ValueError(
                f"participant {bad}: {name} must be {requirement}, not {values[bad].item()!r}"
            )
    if len(np.unique(sides)) < 2:
        raise ValueError("sides: a match needs participants on at least two different sides")


def rate_order(
    score_p: FloatArray, minutes_p: FloatArray, score_q: FloatArray, minutes_q: FloatArray
) -> FloatArray:
    """+1, 0 or -1 as SPH_p >, =, < SPH_q (step 4), elementwise.

    score_p·minutes_q against score_q·minutes_p: the order of SPH, and equal rates compare
    exactly equal in floating point. The one comparison every path uses.
    """
    return np.asarray(np.sign(score_p * minutes_q - score_q * minutes_p), dtype=np.float64)


def result_of(order: FloatArray) -> FloatArray:
    """result_pq of step 4 (1, 0.5 or 0) from rate_order's +1, 0 or -1."""
    return np.asarray(0.5 + 0.5 * order, dtype=np.float64)


def pair_results(scores: FloatArray, minutes: FloatArray) -> FloatArray:
    """result_pq of step 4 for every ordered pair of each match (last two axes)."""
    mine = (scores[..., :, None], minutes[..., :, None])
    theirs = (scores[..., None, :], minutes[..., None, :])
    return result_of(rate_order(*mine, *theirs))


@functools.cache
def seat_pairs(seats: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The seats p and q of every seat pair p < q of c seats (the pairs' order everywhere):
    by q - p, then by p, so that the pairs (p, p + d) of every d are one run (seat_sums).

    indiv_qp = -indiv_pq (result and P_pq - 0.5 are antisymmetric, time symmetric): each
    unordered pair is computed once.
    """
    first = np.array([p for d in range(1, seats) for p in range(seats - d)], dtype=np.intp)
    second = first + np.repeat(np.arange(1, seats), np.arange(seats - 1, 0, -1))
    first.flags.writeable = second.flags.writeable = False  # shared through the cache
    return first, second


def seat_sums(x: FloatArray, seats: int) -> FloatArray:
    """[..., c] from [..., pairs] (seat_pairs' order): each seat p's sum of +x_pq where p is
    the pair's first seat and -x_qp where it is the second, added one term at a time for
    q = p + 1, ..., c - 1, 0, ..., p - 1 (round d adds q = p + d mod c).

    Every seat's sum is the same additions in the same order whatever the leading shape, so
    a match's sums do not depend on the matches rated beside it (a matrix product's would:
    its summation order varies with the batch), and empty seats (terms 0) do not change a
    real seat's sum: replaying a log in waves of padded matches gives, bit for bit, the
    ratings of applying its matches one at a time. Pair-major, a round is two slices.
    """
    lead = x.shape[:-1]
    by_pair = np.ascontiguousarray(x.reshape(-1, x.shape[-1]).T)  # [pairs, K]
    total = np.zeros((seats, by_pair.shape[1]))
    for later, earlier in _seat_rounds(seats):
        total[later[0]] += by_pair[later[1]]  # q = p + d
        total[earlier[0]] -= by_pair[earlier[1]]  # q = p + d - c < p
    return np.ascontiguousarray(total.T).reshape(*lead, seats)


Round = tuple[tuple[slice, slice], tuple[slice, slice]]


@functools.cache
def _seat_rounds(seats: int) -> tuple[Round, ...]:
    """Per round d of seat_sums: (seats, pairs) of the seats whose q = p + d is later, then
    of those whose q = p + d - c is earlier (pairs in seat_pairs' order)."""
    runs = [0, *itertools.accumulate(range(seats - 1, 0, -1))]  # where the pairs of d start
    return tuple(
        (
            (slice(0, seats - d), slice(runs[d - 1], runs[d - 1] + seats - d)),
            (slice(seats - d, seats), slice(runs[seats - d - 1], runs[seats - d - 1] + d)),
        )
        for d in range(1, seats)
    )


@dataclass(frozen=True, slots=True)
class PairTerms:
    """The rating-free part of steps 4-7 for K matches padded to c seats, per seat pair.

    With weight_pq = 0.5·g·time_pq (0 for teammates and empty seats) and P_pq - 0.5 =
    0.5·tanh((R_p - R_q) / 2t): offset_p = won_p - sum over pairs of ±tanh(...)·weight_pq.
    """

    weight: FloatArray  # [K, pairs]
    won: (
        FloatArray  # [K, c]: sum over q of (result_pq - 0.5)·g·time_pq, the offset at equal ratings
    )
    cap: FloatArray  # [K, c]: min(minutes, max_game_length)·g, the most h may move (step 7)
    minutes: FloatArray  # [K, c]: minutes in game, +inf on empty seats (the tie break of h)

    def __getitem__(self, matches: slice) -> PairTerms:
        return PairTerms(
            self.weight[matches], self.won[matches], self.cap[matches], self.minutes[matches]
        )


def pair_terms(
    sides: IndexArray,
    scores: FloatArray,
    minutes: FloatArray,
    seated: BoolArray,
    settings: LadderSettings,
) -> PairTerms:
    """The rating-free part of the update for K matches ([K, c] arrays; seated marks real seats)."""
    first, second = seat_pairs(sides.shape[1])
    played = np.where(seated, minutes, 0.0)  # an empty seat plays 0 minutes: weight 0
    capped = np.minimum(played, settings.max_game_length)
    # 0.5·g·min(L, m_p, m_q) as the smaller of the seats' own 0.5·g·min(L, m): the same number
    # (multiplying by a positive constant keeps the order).
    half_points = (0.5 * settings.game_mult) * capped
    weight = np.minimum(half_points[:, first], half_points[:, second])
    weight *= sides[:, first] != sides[:, second]
    order = rate_order(scores[:, first], played[:, first], scores[:, second], played[:, second])
    return PairTerms(
        weight=weight,
        won=seat_sums(order * weight, sides.shape[1]),
        cap=capped * settings.game_mult,
        minutes=np.where(seated, minutes, np.inf),
    )


def batch_rating_changes(
    ratings: FloatArray, terms: PairTerms, settings: LadderSettings
) -> FloatArray:
    """Steps 3-8 for K independent matches at once: ratings [K, c] in, changes [K, c] out.

    Few, whole-batch numpy calls: the wave replay calls this once per wave.
    """
    offsets = _unlimited_offsets(ratings, terms, 0.5 / settings.t)
    return _limited(offsets, terms.cap, terms.minutes)


def grid_rating_changes(
    ratings: FloatArray, terms: PairTerms, t: FloatArray, points: FloatArray
) -> FloatArray:
    """batch_rating_changes under S settings at once: ratings [S, K, c] in, changes out.

    Setting s has spread t[s] and game_mult points[s] times the game_mult `terms` were made
    with: every point of steps 4-7 (won, weight, cap) is proportional to game_mult, so one
    set of terms serves every game_mult.
    """
    settings_shape = (-1, 1, 1)
    offsets = _unlimited_offsets(ratings, terms, 0.5 / np.reshape(t, settings_shape))
    offsets *= np.reshape(points, settings_shape)
    cap = terms.cap * np.reshape(points, settings_shape)
    seats = ratings.shape[-1]
    return _limited(
        offsets.reshape(-1, seats),
        cap.reshape(-1, seats),
        np.broadcast_to(terms.minutes, ratings.shape).reshape(-1, seats),
    ).reshape(ratings.shape)


def _unlimited_offsets(
    ratings: FloatArray, terms: PairTerms, half_inverse_t: float | FloatArray
) -> FloatArray:
    """offset_p of steps 3-6 for ratings [..., K, c] (half_inverse_t: 1/2t, broadcast)."""
    seats = ratings.shape[-1]
    first, second = seat_pairs(seats)
    # R_p - R_q: exactly one rounding, 0 for equal ratings.
    differences = ratings[..., first] - ratings[..., second]
    differences *= half_inverse_t
    np.tanh(differences, out=differences)
    differences *= terms.weight
    offsets: FloatArray = terms.won - seat_sums(differences, seats)
    return offsets


def _limited(offsets: FloatArray, cap: FloatArray, minutes: FloatArray) -> FloatArray:
    """Steps 7-8 for [K, c] offsets: h has the largest |offset|; every offset shrinks so that
    h moves at most its cap g·min(minutes_h, L). A runner-up within 1e-9 (rare once ratings
    differ) takes the tie rule: fewest minutes, then the larger |offset|."""
    count, seats = offsets.shape
    magnitude = np.abs(offsets)
    h = magnitude.argmax(axis=1)
    h += np.arange(0, count * seats, seats)
    top = magnitude.ravel()[h]
    if np.count_nonzero(magnitude >= (top - OFFSET_TIE_TOLERANCE)[:, None]) == count:
        limit = cap.ravel()[h]
    else:
        tied = magnitude >= magnitude.max(axis=1, keepdims=True) - OFFSET_TIE_TOLERANCE
        fewest = np.where(tied, minutes, np.inf).min(axis=1, keepdims=True)
        chosen = tied & (minutes == fewest)
        top = np.where(chosen, magnitude, 0.0).max(axis=1)
        # caps grow with minutes: the fewest minutes' cap is the smallest chosen one
        limit = np.where(chosen, cap, np.inf).min(axis=1)
    scale = limit / np.maximum(top, limit)
    return np.asarray(offsets * scale[:, None], dtype=np.float64)


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
    terms = pair_terms(
        sides_[None], scores_[None], minutes_[None], np.ones((1, len(sides_)), bool), settings
    )
    return batch_rating_changes(ratings_[None], terms, settings).ravel()


def _duel_order(s_p: float, m_p: float, s_q: float, m_q: float) -> float:
    """rate_order of a duel's pair (p, q) in plain floats."""
    difference = s_p * m_q - s_q * m_p
    return 1.0 if difference > 0 else -1.0 if difference < 0 else 0.0


def duel_changes(
    ratings: Sequence[float],
    scores: Sequence[float],
    minutes: Sequence[float],
    settings: LadderSettings = DEFAULT_SETTINGS,
) -> tuple[float, float] | None:
    """rating_changes of a duel (two participants on different sides), bit for bit, in
    plain floats: the same operations in the same order, tanh through numpy (whose tanh is
    not libm's), without numpy's cost per call on two-element arrays, which is most of the
    time a report takes to apply its match. None for a duel that breaks a rule of
    validate_match (rating_changes then says which)."""
    r_p, r_q, s_p, s_q, m_p, m_q = map(float, (*ratings, *scores, *minutes))
    if not (
        math.isfinite(r_p)
        and math.isfinite(r_q)
        and valid_score(s_p)
        and valid_score(s_q)
        and valid_time(m_p)
        and valid_time(m_q)
    ):
        return None
    g = settings.game_mult
    # pair_terms of the one pair (p, q)
    capped_p, capped_q = min(m_p, settings.max_game_length), min(m_q, settings.max_game_length)
    half = 0.5 * g
    weight = min(half * capped_p, half * capped_q)
    won = _duel_order(s_p, m_p, s_q, m_q) * weight
    # _unlimited_offsets: the seat sums add to 0.0, +x for p and -x for q
    pull = float(np.tanh((r_p - r_q) * (0.5 / settings.t))) * weight
    offsets = ((0.0 + won) - (0.0 + pull), (0.0 - won) - (0.0 - pull))
    # _limited: h has the largest |offset|; within 1e-9 the fewest minutes, then the larger
    magnitude = (abs(offsets[0]), abs(offsets[1]))
    tied = [size >= max(magnitude) - OFFSET_TIE_TOLERANCE for size in magnitude]
    fewest = min(m for m, is_tied in zip((m_p, m_q), tied, strict=True) if is_tied)
    chosen = [is_tied and m == fewest for m, is_tied in zip((m_p, m_q), tied, strict=True)]
    top = max(size if is_chosen else 0.0 for size, is_chosen in zip(magnitude, chosen, strict=True))
    caps = (capped_p * g, capped_q * g)
    limit = min(cap for cap, is_chosen in zip(caps, chosen, strict=True) if is_chosen)
    scale = limit / max(top, limit)
    return offsets[0] * scale, offsets[1] * scale


# --- SPEC 2.4: reports without scores ---------------------------------------------------


def match_outcomes(
    sides: Sequence[Hashable], scores: ArrayLike, minutes: ArrayLike
) -> list[Outcome]:
    """Each rated participant's record of the match: the mean of its pairwise results
    (step 4) against the participants on other sides; above ½ a win, below a loss. A
    duel's one pair is compared in plain floats (numpy's cost per call is most of it)."""
    if len(sides) == 2 and sides[0] != sides[1]:
        (s_p, s_q), (m_p, m_q) = np.asarray(scores, np.float64), np.asarray(minutes, np.float64)
        order = int(_duel_order(float(s_p), float(m_p), float(s_q), float(m_q)))
        return [OUTCOMES[order], OUTCOMES[-order]]
    codes = outcome_codes(
        side_codes(sides)[None], np.asarray(scores, np.float64)[None], np.asarray(minutes)[None]
    )
    return [OUTCOMES[code] for code in codes[0].tolist()]


OUTCOMES: Final[dict[int, Outcome]] = {1: "win", 0: "draw", -1: "loss"}
"""match_outcomes' record of each outcome_codes code."""


def outcome_codes(sides: IntArray, scores: FloatArray, minutes: FloatArray) -> IntArray:
    """match_outcomes of many matches with as many rated participants each, one match a
    row (side codes, scores, minutes): 1 a win, 0 a draw, -1 a loss."""
    results = pair_results(scores, np.asarray(minutes, np.float64))
    opposed = sides[..., :, None] != sides[..., None, :]
    mean = (results * opposed).sum(axis=-1) / opposed.sum(axis=-1)
    return np.asarray(np.sign(mean - 0.5), dtype=np.int64)


def match_minutes(minutes: float | None, settings: LadderSettings = DEFAULT_SETTINGS) -> float:
    """The minutes of a score-less report: as given, else max_game_length."""
    if minutes is None:
        return settings.max_game_length
    if not valid_time(minutes):
        raise ValueError(f"minutes must be {MINUTES_RULE}, not {minutes!r}")
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
