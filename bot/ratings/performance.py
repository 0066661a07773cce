"""Performance ratings, their stability (±) and the rating accuracy RA (SPEC 1.3-1.5)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bot.ratings.arrays import FloatArray
from bot.ratings.gamelist import Game
from bot.ratings.solver import solve_segments
from bot.ratings.variants import GameArrays, Variant, variant_named


def _resolve(variant: Variant | str) -> Variant:
    return variant if isinstance(variant, Variant) else variant_named(variant)


def performance_arrays(games: GameArrays, variant: Variant | str) -> FloatArray:
    """The variant's rating of every segment (+inf / -inf / nan as in `solve_segments`)."""
    chosen = _resolve(variant)
    return solve_segments(
        games.results, games.ratings, chosen.weights(games), games.offsets, chosen.fictitious
    )


def performance_many(game_lists: Iterable[Sequence[Game]], variant: Variant | str) -> FloatArray:
    """The variant's rating of each game list (newest game first), solved together."""
    return performance_arrays(GameArrays.from_game_lists(game_lists), variant)


def performance(games: Sequence[Game], variant: Variant | str) -> float:
    """The variant's rating of one game list: +inf / -inf when every weighted game is a win /
    a loss, nan when undefined (p1 with no game)."""
    return float(performance_many([games], variant)[0])


@dataclass(frozen=True, slots=True)
class Stability:
    """RP with how far one more game against an equal new opponent would move it.

    up = RP(with a win) - RP, down = RP - RP(with a loss); both nan when RP is not finite.
    """

    rating: float
    up: float
    down: float

    @property
    def defined(self) -> bool:
        return math.isfinite(self.rating)


def stability_arrays(
    games: GameArrays, variant: Variant | str
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(RP, UP, DOWN) of every segment, with all the extended lists solved in one pass."""
    chosen = _resolve(variant)
    rating = performance_arrays(games, chosen)
    count = games.segment_count
    starts = games.offsets[:-1]
    with_win = games.with_newest(np.ones(count), np.where(np.isfinite(rating), rating, 0.0))
    shifted_offsets = with_win.offsets
    # Weights depend on opponents and order, not on results: the list with a loss instead
    # weighs alike, so both are solved together with one weighing.
    weights = chosen.weights(with_win)
    after = solve_segments(
        np.concatenate([with_win.results, np.insert(games.results, starts, np.zeros(count))]),
        np.tile(with_win.ratings, 2),
        np.tile(weights, 2),
        np.concatenate([shifted_offsets, shifted_offsets[1:] + shifted_offsets[-1]]),
        chosen.fictitious,
    )
    after_win, after_loss = after[:count], after[count:]
    defined = np.isfinite(rating)
    with np.errstate(invalid="ignore"):  # inf - inf where RP is not finite: masked to nan
        up = np.where(defined, after_win - rating, np.nan)
        down = np.where(defined, rating - after_loss, np.nan)
    return rating, up, down


def stability(games: Sequence[Game], variant: Variant | str) -> Stability:
    """RP, UP and DOWN of one game list (SPEC 1.5)."""
    rating, up, down = stability_arrays(GameArrays.from_game_lists([games]), variant)
    return Stability(float(rating[0]), float(up[0]), float(down[0]))


def rating_accuracy(games: Iterable[Game]) -> float:
    """RA = Σ_X √P_X over the opponents X, P_X real games against X."""
    return sum(math.sqrt(count) for count in Counter(game.opponent for game in games).values())


def rating_accuracy_arrays(games: GameArrays) -> FloatArray:
    """RA of every segment: √N_X counted once per opponent, at its newest game."""
    first_meeting = games.newer_against_opponent == 0
    per_game = np.where(first_meeting, np.sqrt(games.opponent_game_count), 0.0)
    totals = np.bincount(games.segment_ids, weights=per_game, minlength=games.segment_count)
    return totals.astype(np.float64, copy=False)


def round_rating(value: float) -> int:
    """Nearest integer, halves rounded away from zero (as people round, unlike round())."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def format_rating(value: float) -> str:
    """A rounded rating, or `+inf` / `-inf`, or `undefined`."""
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return str(round_rating(value))


def format_stability(result: Stability) -> str:
    """`RP +UP -DOWN`, each rounded separately; just the rating when it is not finite."""
    if not result.defined:
        return format_rating(result.rating)
    return f"{round_rating(result.rating)} +{round_rating(result.up)} -{round_rating(result.down)}"
