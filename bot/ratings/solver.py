"""Roots of f(RP) = Σ k_i (w_i - W(r_i - RP)) for many independent game lists at once (SPEC 1.3).

W(RD) = 1 / (1 + 10^(RD/400)). f is strictly decreasing, so each segment has one root when
it has weight on both a win side and a loss side. All segments advance together: one Newton
step per iteration (one exponential per game), safeguarded by bisection on a bracket that is
known in closed form, until every root is pinned to well below 1e-6 rating points.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from bot.ratings.variants import FictitiousGame

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

SCALE = 400.0
_LN10_OVER_SCALE = math.log(10) / SCALE
ABSOLUTE_TOLERANCE = 1e-8
MAX_ITERATIONS = 200


def expected_score(rating_difference: FloatArray) -> FloatArray:
    """W(RD): the expected score against an opponent rated RD points higher."""
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(np.asarray(rating_difference) * _LN10_OVER_SCALE))


def _segment_sums(values: FloatArray, segment_ids: IntArray, segment_count: int) -> FloatArray:
    sums = np.bincount(segment_ids, weights=values, minlength=segment_count)
    return sums.astype(np.float64, copy=False)  # bincount of nothing is int64


def _segment_extreme(
    ratings: FloatArray, offsets: IntArray, take: np.ufunc, also: float
) -> FloatArray:
    """min or max of each segment's ratings together with `also` (the fictitious games)."""
    starts = offsets[:-1]
    nonempty = offsets[1:] > starts
    extreme = np.full(len(starts), also)
    if nonempty.any():
        extreme[nonempty] = take(take.reduceat(ratings, starts[nonempty]), also)
    return extreme


def solve_segments(
    results: FloatArray,
    ratings: FloatArray,
    weights: FloatArray,
    offsets: IntArray,
    fictitious: Iterable[FictitiousGame] = (),
) -> FloatArray:
    """The performance rating of each segment `offsets[s]:offsets[s + 1]` of the game arrays.

    `fictitious` games are added to every segment. A segment whose weighted results are all
    wins gives +inf, all losses -inf, and no weight at all (p1 with no game) nan.
    """
    results = np.asarray(results, dtype=np.float64)
    ratings = np.asarray(ratings, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    extra = tuple(fictitious)
    segment_count = len(offsets) - 1
    segment_ids = np.repeat(np.arange(segment_count), np.diff(offsets))

    wins = _segment_sums(weights * results, segment_ids, segment_count)
    wins += sum(game.weight * game.result for game in extra)
    losses = _segment_sums(weights * (1.0 - results), segment_ids, segment_count)
    losses += sum(game.weight * (1.0 - game.result) for game in extra)

    solution = np.full(segment_count, np.nan)
    solution[(wins > 0) & (losses == 0)] = np.inf
    solution[(losses > 0) & (wins == 0)] = -np.inf
    finite = (wins > 0) & (losses > 0)
    if not finite.any():
        return solution

    # Bracket: for RP >= max r + d every W(r - RP) >= W(-d), so f < 0 once
    # d > 400·log10(wins/losses); symmetrically below min r.
    extra_ratings = [game.rating for game in extra]
    lowest = _segment_extreme(ratings, offsets, np.minimum, min(extra_ratings, default=np.inf))
    highest = _segment_extreme(ratings, offsets, np.maximum, max(extra_ratings, default=-np.inf))
    with np.errstate(divide="ignore", invalid="ignore"):  # only where not finite: masked
        logit = SCALE * np.log10(wins / losses)
    low = np.where(finite, lowest + logit - 1.0, 0.0)
    high = np.where(finite, highest + logit + 1.0, 0.0)

    solution[finite] = _safeguarded_newton(
        ratings,
        weights,
        wins,
        segment_ids,
        extra,
        low,
        high,
        finite,
    )[finite]
    return solution


def _safeguarded_newton(
    ratings: FloatArray,
    weights: FloatArray,
    wins: FloatArray,
    segment_ids: IntArray,
    fictitious: tuple[FictitiousGame, ...],
    low: FloatArray,
    high: FloatArray,
    active: npt.NDArray[np.bool_],
) -> FloatArray:
    """Newton's method on every active segment, falling back to bisection whenever a step
    would leave the bracket [low, high] or would not halve the step before last (rtsafe)."""
    segment_count = len(low)
    low, high = low.copy(), high.copy()
    guess = 0.5 * (low + high)
    step_before_last = high - low
    step = step_before_last.copy()
    pending = active.copy()
    for _ in range(MAX_ITERATIONS):
        expected = expected_score(ratings - guess[segment_ids])
        weighted_expected = weights * expected
        expected_total = _segment_sums(weighted_expected, segment_ids, segment_count)
        slope_total = _segment_sums(
            weighted_expected * (1.0 - expected), segment_ids, segment_count
        )
        for game in fictitious:
            game_expected = expected_score(game.rating - guess)
            expected_total += game.weight * game_expected
            slope_total += game.weight * game_expected * (1.0 - game_expected)
        value = wins - expected_total
        derivative = -_LN10_OVER_SCALE * slope_total
        # f is decreasing: a positive value means the root lies above the guess.
        low = np.where(value > 0, guess, low)
        high = np.where(value < 0, guess, high)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton_step = np.where(value == 0, 0.0, -value / derivative)
        newton = guess + newton_step
        # A Newton step within the tolerance ends the search: it may be too small to move
        # the guess at all, and must not be mistaken for a step onto the bracket's edge.
        tolerance = ABSOLUTE_TOLERANCE + 8 * np.finfo(np.float64).eps * np.abs(guess)
        converged = np.abs(newton_step) <= tolerance
        bisect = ~converged & (
            ~np.isfinite(newton)
            | (newton <= low)
            | (newton >= high)
            | (np.abs(2.0 * value) > np.abs(step_before_last * derivative))
        )
        proposal = np.where(bisect, 0.5 * (low + high), newton)
        step_before_last, step = step, proposal - guess
        guess = np.where(pending, proposal, guess)
        pending &= ~converged & (high - low > tolerance)
        if not pending.any():
            break
    return guess
