"""Benchmark 2: performance ratings of many members at once against one brentq per member."""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.baselines import brentq_roots
from bench.data import GameLists, game_lists
from bench.harness import Table, format_seconds, measure, verdict
from bot.ratings import solver
from bot.ratings.gamelist import Game
from bot.ratings.performance import performance_arrays, performance_many
from bot.ratings.solver import solve_segments
from bot.ratings.variants import GameArrays, Variant, variant_named

AGREEMENT = 1e-6
"""Rating points: the vectorized roots and brentq's must agree this closely."""
BRENTQ_XTOL = 1e-8
"""brentq's absolute tolerance: the vectorized solver's own (solver.ABSOLUTE_TOLERANCE)."""
BRACKET_MARGIN = 1_500.0
"""Rating points beyond the lowest/highest rating in a list: more than the 400·log10(wins /
losses) a list of 100 games plus a 0.1-weighted fictitious draw can reach, so it holds the root."""
EXP_ARRAY_SIZE = 10_000_000
TARGET_BRENTQ_RATIO = 10.0
TARGET_EXP_LIMIT_RATIO = 5.0
LN10_OVER_SCALE = np.log(10.0) / 400.0


@dataclass(frozen=True, slots=True)
class Workload:
    """One variant's weighted game arrays, ready for either solver."""

    games: GameArrays
    weights: NDArray[np.float64]
    variant: Variant

    def solve(self) -> NDArray[np.float64]:
        """Every member's rating with the vectorized solver."""
        games = self.games
        return solve_segments(
            games.results, games.ratings, self.weights, games.offsets, self.variant.fictitious
        )

    def equations(self) -> list[tuple[Callable[[float], float], float, float]]:
        """Per member: f(RP) of SPEC 1.3 over its games and the fictitious ones, and a bracket."""
        extra = self.variant.fictitious
        extra_weights = np.array([game.weight for game in extra])
        extra_results = np.array([game.result for game in extra])
        extra_ratings = np.array([game.rating for game in extra])
        offsets = self.games.offsets
        problems = []
        for start, end in itertools.pairwise(offsets):
            weights = np.concatenate([self.weights[start:end], extra_weights])
            results = np.concatenate([self.games.results[start:end], extra_results])
            ratings = np.concatenate([self.games.ratings[start:end], extra_ratings])
            problems.append(
                (
                    equation(weights, results, ratings),
                    float(ratings.min()) - BRACKET_MARGIN,
                    float(ratings.max()) + BRACKET_MARGIN,
                )
            )
        return problems


def equation(
    weights: NDArray[np.float64], results: NDArray[np.float64], ratings: NDArray[np.float64]
) -> Callable[[float], float]:
    """f(RP) = Σ k_i (w_i - W(r_i - RP)), W(RD) = 1 / (1 + 10^(RD/400))."""
    won = float(weights @ results)

    def f(performance: float) -> float:
        expected = 1.0 / (1.0 + np.exp((ratings - performance) * LN10_OVER_SCALE))
        return won - float(weights @ expected)

    return f


def game_arrays(lists: GameLists) -> GameArrays:
    """A fresh GameArrays (nothing cached yet) over the lists."""
    offsets = np.arange(0, len(lists.result) + 1, lists.games_per_member, dtype=np.int64)
    return GameArrays(lists.result, lists.rating, lists.opponent, offsets)


def workload(lists: GameLists, variant_name: str) -> Workload:
    games = game_arrays(lists)
    variant = variant_named(variant_name)
    return Workload(games, variant.weights(games), variant)


def solve_with_brentq(
    problems: list[tuple[Callable[[float], float], float, float]],
) -> NDArray[np.float64]:
    return brentq_roots(problems, xtol=BRENTQ_XTOL)


@contextlib.contextmanager
def counting_exponentials() -> Iterator[list[int]]:
    """Count the values the solver passes through its exponential (one exponential each)."""
    count = [0]
    original = solver.power_denominators

    def counted(exponents: NDArray[np.float64]) -> NDArray[np.float64]:
        count[0] += np.size(exponents)
        return original(exponents)

    solver.power_denominators = counted
    try:
        yield count
    finally:
        solver.power_denominators = original


def exp_throughput(runs: int) -> float:
    """np.exp on a large float64 array (values like the solver's exponents): exps per second."""
    values = np.random.default_rng(0).uniform(-10.0, 10.0, EXP_ARRAY_SIZE)
    out = np.empty_like(values)
    return EXP_ARRAY_SIZE / measure(lambda: np.exp(values, out=out), runs).seconds


def game_objects(lists: GameLists) -> list[list[Game]]:
    """The same lists as Game objects, for the list form of the API."""
    names = [f"o{code}" for code in range(int(lists.opponent.max()) + 1)]
    games = [
        Game(result, rating, names[code])
        for result, rating, code in zip(
            lists.result.tolist(), lists.rating.tolist(), lists.opponent.tolist(), strict=True
        )
    ]
    return [games[lists.member(member)] for member in range(lists.member_count)]


def run(quick: bool) -> Table:
    member_count = 1_000 if quick else 10_000
    runs, baseline_runs = 5, 3
    lists = game_lists(member_count, games_per_member=100)
    objects = game_objects(lists)
    throughput = exp_throughput(runs)
    table = Table(
        f"Performance ratings: {member_count:,} members x 100 games",
        [
            "variant",
            "path",
            "median",
            "brentq per member",
            "speed-up (≥ 10x)",
            "actual / exp limit (≤ 5x)",
            "max abs Δ vs brentq (≤ 1e-6)",
        ],
    )
    for name in ("p8", "p3"):
        work = workload(lists, name)
        baseline = measure(functools.partial(solve_with_brentq, work.equations()), baseline_runs)
        with counting_exponentials() as count:
            work.solve()
        limit = count[0] / throughput
        paths = (
            ("solve_segments (weights given)", work.solve),
            (
                "performance_arrays (flat)",
                lambda work=work: performance_arrays(game_arrays(lists), work.variant),
            ),
            (
                "performance_many (Game lists)",
                lambda work=work: performance_many(objects, work.variant),
            ),
        )
        for path, call in paths:
            timing = measure(call, runs)
            speedup = baseline.seconds / timing.seconds
            to_limit = timing.seconds / limit
            difference = float(np.max(np.abs(timing.value - baseline.value)))
            table.add(
                name,
                path,
                format_seconds(timing.seconds),
                format_seconds(baseline.seconds),
                f"{speedup:.1f}x {verdict(speedup >= TARGET_BRENTQ_RATIO)}",
                f"{to_limit:.1f}x {verdict(to_limit <= TARGET_EXP_LIMIT_RATIO)}",
                f"{difference:.1e} {verdict(difference <= AGREEMENT)}",
            )
        table.notes.append(
            f"{name}: the solver evaluates {count[0]:,} exponentials (counted: "
            f"{count[0] / lists.result.size:.1f} per game), exp limit {format_seconds(limit)}."
        )
    table.notes += [
        f"median of {runs} runs; brentq: scipy.optimize.brentq per member (xtol "
        f"{BRENTQ_XTOL:g}, f written with numpy), median of {baseline_runs} runs, given the "
        "variant's weights (computed once, not timed) - the same equation as the solver's.",
        f"exp limit = exponentials the solver evaluates ÷ np.exp throughput "
        f"({throughput / 1e6:.0f} M exp/s, {EXP_ARRAY_SIZE:,} float64 into a preallocated "
        f"array, median of {runs}).",
    ]
    return table
