"""Roots of f(RP) = Σ k_i (w_i - W(r_i - RP)) for many independent game lists at once (SPEC 1.3).

W(RD) = 1 / (1 + 10^(RD/400)). f is strictly decreasing, so each segment has one root when
it has weight on both a win side and a loss side. All segments advance together, one Newton
step per iteration (one exponential per game), safeguarded by bisection on a bracket that is
known in closed form. Newton starts at the weighted mean opponent rating plus
400·log10(wins/losses), the root itself when all opponents are rated alike, so three
iterations settle almost every segment; the few that need more continue on their own games.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from bot.ratings.arrays import BoolArray, FloatArray, IntArray
from bot.ratings.elo import ELO_SCALE
from bot.ratings.variants import FictitiousGame

_LN10_OVER_SCALE = math.log(10) / ELO_SCALE
ABSOLUTE_TOLERANCE = 1e-8
MAX_ITERATIONS = 200


def power_denominators(exponents: FloatArray) -> FloatArray:
    """1 + e^x in place, so 1 / (1 + 10^(RD/400)) = W(RD) for x = RD·ln10/400.

    The solver's only exponentials, each a pass over all games: in place, because a fresh
    array per pass costs about as much as the arithmetic."""
    with np.errstate(over="ignore"):  # e^x = inf: W = 0, as it should be
        np.exp(exponents, out=exponents)
    exponents += 1.0
    return exponents


class _Segments:
    """Consecutive segments of flat per-game arrays, given by their lengths (maybe zero)."""

    def __init__(self, lengths: IntArray) -> None:
        self.lengths = lengths
        self.starts = np.cumsum(lengths) - lengths
        self.nonempty = lengths > 0
        self.all_nonempty = bool(self.nonempty.all())

    def sums(self, values: FloatArray) -> FloatArray:
        """The sum of each segment's values: reduceat alone would give an empty segment the
        next game's value."""
        if self.all_nonempty:
            sums: FloatArray = np.add.reduceat(values, self.starts)
            return sums
        sums = np.zeros(len(self.lengths))
        sums[self.nonempty] = np.add.reduceat(values, self.starts[self.nonempty])
        return sums

    def spread(self, per_segment: FloatArray) -> FloatArray:
        """Each segment's value repeated for each of its games."""
        return np.repeat(per_segment, self.lengths)

    def subset(self, chosen: BoolArray) -> tuple[_Segments, IntArray]:
        """The chosen segments, and the positions of their games in the flat arrays."""
        lengths = self.lengths[chosen]
        kept = _Segments(lengths)
        games = np.repeat(self.starts[chosen] - kept.starts, lengths)
        games += np.arange(len(games))
        return kept, games


POWER_EXPONENT_LIMIT = 300.0
"""Shared powers are used only while every exponent they split stays within ±this: products
of two such powers never overflow or lose precision to subnormals."""


class SharedPowers:
    """The per-game halves of the solver's exponentials, for several solves of the same
    games (ratings and segments) under different weights, as the variants of one set of
    game lists: e^((r_i - m_s)·ln10/400) with m_s the unweighted mean rating of the game's
    segment. An iteration then needs a product per game instead of an exponential.
    """

    def __init__(self, ratings: FloatArray, offsets: IntArray) -> None:
        ratings = np.asarray(ratings, dtype=np.float64)
        offsets = np.asarray(offsets, dtype=np.int64)
        segments = _Segments(offsets[1:] - offsets[:-1])
        with np.errstate(invalid="ignore", divide="ignore"):  # empty segments: 0 below
            means = segments.sums(ratings) / segments.lengths
        self.centers: FloatArray = np.where(segments.nonempty, means * _LN10_OVER_SCALE, 0.0)
        """Each segment's m_s in exponent units (0 for an empty segment)."""
        exponents = ratings * _LN10_OVER_SCALE
        exponents -= segments.spread(self.centers)
        self.usable = bool(np.abs(exponents).max(initial=0.0) <= POWER_EXPONENT_LIMIT)
        self.nonempty = segments.nonempty
        self.powers: FloatArray = np.exp(exponents, out=exponents) if self.usable else exponents

    def fits(self, finite: BoolArray, low: FloatArray, high: FloatArray) -> bool:
        """Whether every guess within the brackets [low, high] of the finite segments with
        games (a guess of 0 for the others, which iterate unused) keeps its half of the
        exponent within the limit."""
        chosen = self.nonempty
        if not self.usable:
            return False
        if not chosen.any():
            return True
        centers = self.centers[chosen]
        low, high = np.where(finite, low, 0.0), np.where(finite, high, 0.0)
        farthest = np.maximum(
            np.abs(centers - low[chosen] * _LN10_OVER_SCALE),
            np.abs(centers - high[chosen] * _LN10_OVER_SCALE),
        )
        return bool(farthest.max() <= POWER_EXPONENT_LIMIT)


def solve_segments(
    results: FloatArray,
    ratings: FloatArray,
    weights: FloatArray,
    offsets: IntArray,
    fictitious: Iterable[FictitiousGame] = (),
    shared: SharedPowers | None = None,
) -> FloatArray:
    """The performance rating of each segment `offsets[s]:offsets[s + 1]` of the game arrays.

    `fictitious` games are added to every segment. A segment whose weighted results are all
    wins gives +inf, all losses -inf, and no weight at all (p1 with no game) nan. `shared`:
    the powers of these ratings and offsets (SharedPowers), when several solves share them.
    """
    results = np.asarray(results, dtype=np.float64)
    ratings = np.asarray(ratings, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    segments = _Segments(offsets[1:] - offsets[:-1])
    if shared is not None and (
        len(shared.centers) != len(segments.lengths) or len(shared.powers) != len(ratings)
    ):
        raise ValueError("shared powers of other game lists")
    extra = _Fictitious(tuple(fictitious))

    won = weights * results
    wins = segments.sums(won) + extra.weights @ extra.results
    lost = np.subtract(weights, won, out=won)
    losses = segments.sums(lost) + extra.weights @ (1.0 - extra.results)

    solution = np.full(len(segments.lengths), np.nan)
    solution[(wins > 0) & (losses == 0)] = np.inf
    solution[(losses > 0) & (wins == 0)] = -np.inf
    finite = (wins > 0) & (losses > 0)
    if not finite.any():
        return solution

    with np.errstate(divide="ignore", invalid="ignore"):  # only where not finite: masked
        logit = np.where(finite, ELO_SCALE * np.log10(wins / losses), 0.0)
        mean_rating = (segments.sums(weights * ratings) + extra.weights @ extra.ratings) / (
            wins + losses
        )
    # Bracket: for RP >= max r + d every W(r - RP) >= W(-d), so f < 0 once
    # d > 400·log10(wins/losses); symmetrically below min r. The extremes over all segments
    # serve every segment: the bracket only matters when Newton falters, and per-segment
    # extremes would cost two more passes over the games.
    lowest = min(ratings.min(initial=np.inf), extra.ratings.min(initial=np.inf))
    highest = max(ratings.max(initial=-np.inf), extra.ratings.max(initial=-np.inf))
    low = np.where(finite, lowest + logit - 1.0, 0.0)
    high = np.where(finite, highest + logit + 1.0, 0.0)
    if shared is not None and not shared.fits(finite, low, high):
        shared = None
    newton = _SafeguardedNewton(
        ratings * _LN10_OVER_SCALE if shared is None else None,
        weights,
        segments,
        extra,
        wins=np.where(finite, wins, 0.0),
        guess=np.where(finite, mean_rating + logit, 0.0),
        low=low,
        high=high,
        pending=finite,
        shared=None if shared is None else (shared.powers, shared.centers),
    )
    solution[finite] = newton.solve()[finite]
    return solution


class _Fictitious:
    """The fictitious games as arrays, added to every segment."""

    def __init__(self, games: tuple[FictitiousGame, ...]) -> None:
        self.weights = np.array([game.weight for game in games], dtype=np.float64)
        self.results = np.array([game.result for game in games], dtype=np.float64)
        self.ratings = np.array([game.rating for game in games], dtype=np.float64)

    def expected(self, guess: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Σ k W and Σ k W (1 - W) over the fictitious games, per segment at its guess."""
        exponents = (self.ratings[:, None] - guess) * _LN10_OVER_SCALE
        expected = 1.0 / power_denominators(exponents)
        return self.weights @ expected, self.weights @ (expected * (1.0 - expected))


class _SafeguardedNewton:
    """Newton's method on every pending segment, falling back to bisection whenever a step
    would leave the bracket [low, high] or would not halve the step before last (rtsafe).

    Works on the flat arrays of the segments still in play; once the pending ones hold at
    most half of those games, it continues on a copy of their games alone.
    """

    def __init__(
        self,
        scaled_ratings: FloatArray | None,
        weights: FloatArray,
        segments: _Segments,
        fictitious: _Fictitious,
        wins: FloatArray,
        guess: FloatArray,
        low: FloatArray,
        high: FloatArray,
        pending: BoolArray,
        shared: tuple[FloatArray, FloatArray] | None = None,
    ) -> None:
        self.scaled_ratings = scaled_ratings
        """r_i·ln10/400 of every game, or None when the powers are shared."""
        self.shared = shared
        """(e^(r_i·ln10/400 - m_s), m_s) of SharedPowers, or None."""
        self.weights = weights
        self.segments = segments
        self.fictitious = fictitious
        self.solution = guess.copy()
        self.index = np.arange(len(guess))
        """Position in `solution` of each segment in play."""
        self.wins = wins
        self.guess = guess
        self.low = low
        self.high = high
        self.step_before_last = high - low
        self.step = self.step_before_last.copy()
        self.pending = pending.copy()

    def solve(self) -> FloatArray:
        """Every segment's root (garbage where it was not pending at the start)."""
        for _ in range(MAX_ITERATIONS):
            self._iterate()
            if not self.pending.any():
                break
            pending_games = int(self.segments.lengths[self.pending].sum())
            if 2 * pending_games <= len(self.weights):
                self._keep_pending()
        self.solution[self.index] = self.guess
        return self.solution

    def _value_and_slope(self) -> tuple[FloatArray, FloatArray]:
        """f at each segment's guess, and Σ k W (1 - W) (f' = -ln10/400 · that)."""
        segments = self.segments
        if self.shared is None:
            assert self.scaled_ratings is not None
            exponents = segments.spread(self.guess * _LN10_OVER_SCALE)
            np.subtract(self.scaled_ratings, exponents, out=exponents)
            denominators = power_denominators(exponents)
        else:  # e^(r·c - g·c) = e^(r·c - m) · e^(m - g·c): a product per game
            powers, centers = self.shared
            denominators = segments.spread(np.exp(centers - self.guess * _LN10_OVER_SCALE))
            denominators *= powers
            denominators += 1.0
        weighted = np.divide(self.weights, denominators)  # k W
        expected = segments.sums(weighted)
        np.divide(weighted, denominators, out=weighted)  # k W²
        slope = expected - segments.sums(weighted)
        fictitious_expected, fictitious_slope = self.fictitious.expected(self.guess)
        return self.wins - expected - fictitious_expected, slope + fictitious_slope

    def _iterate(self) -> None:
        guess, low, high = self.guess, self.low, self.high
        value, slope = self._value_and_slope()
        derivative = -_LN10_OVER_SCALE * slope
        # f is decreasing: a positive value means the root lies above the guess.
        np.copyto(low, guess, where=value > 0)
        np.copyto(high, guess, where=value < 0)
        # A Newton step is only worked out where it stays within the bracket's width: a
        # flat f (a vanishing derivative far from the root) would make it overflow, and
        # such a step is bisected anyway (nan: not finite).
        newton_step = np.where(value == 0, 0.0, np.nan)
        within = (value != 0) & (np.abs(value) < np.abs(derivative) * (high - low))
        np.divide(-value, derivative, out=newton_step, where=within)
        newton = guess + newton_step
        tolerance = ABSOLUTE_TOLERANCE + 8 * np.finfo(np.float64).eps * np.abs(guess)
        # |f''| <= ln10/400 · |f'|, so a Newton step of size s lands within
        # ln10/800 · s² of the root: below the tolerance for s <= √(tolerance·400/ln10),
        # and the step is the last one. It must not be mistaken for a step onto the edge of
        # the bracket either: it may be too small to move the guess at all.
        converged = np.abs(newton_step) <= np.sqrt(tolerance / _LN10_OVER_SCALE)
        bisect = ~converged & (
            ~np.isfinite(newton)
            | (newton <= low)
            | (newton >= high)
            | (np.abs(2.0 * value) > np.abs(self.step_before_last * derivative))
        )
        proposal = np.where(bisect, 0.5 * (low + high), newton)
        self.step_before_last, self.step = self.step, proposal - guess
        np.copyto(guess, proposal, where=self.pending)
        self.pending &= ~converged & (high - low > tolerance)

    def _keep_pending(self) -> None:
        """Drop the settled segments: record their roots, keep only the pending games."""
        kept = self.pending
        self.solution[self.index] = self.guess
        self.segments, games = self.segments.subset(kept)
        if self.scaled_ratings is not None:
            self.scaled_ratings = self.scaled_ratings[games]
        if self.shared is not None:
            powers, centers = self.shared
            self.shared = (powers[games], centers[kept])
        self.weights = self.weights[games]
        self.index = self.index[kept]
        self.wins = self.wins[kept]
        self.guess = self.guess[kept]
        self.low = self.low[kept]
        self.high = self.high[kept]
        self.step_before_last = self.step_before_last[kept]
        self.step = self.step[kept]
        self.pending = self.pending[kept]
