"""Benchmark: the evaluation of SPEC 12 - the last 5,000 matches of a 100,000-match guild
(all ten measures) and the tuning of its ladder constants, against the plain walk-forward of
bench.baselines and against one replay per setting, both measured in the same run."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.baselines import Figures, plain_evaluation
from bench.data import MatchLog, duel_log, match_log
from bench.harness import Table, format_seconds, measure, verdict
from bot.ratings.arrays import FloatArray
from bot.ratings.evaluation import (
    GAME_MULT_GRID,
    LADDER,
    T_GRID,
    Evaluation,
    WalkForward,
    evaluate,
    pair_log_losses,
    tune_ladder,
    walk_forward,
)
from bot.ratings.ladder import DEFAULT_SETTINGS, LadderSettings, ladder_expected_score
from bot.ratings.replay import check_log, check_seasons, replay_waves

TARGET_EVALUATION_SECONDS = 10.0
TARGET_TUNING_SECONDS = 30.0
AGREEMENT = 1e-9
"""Every figure of the fast path and the plain walk-forward agree this closely."""


@dataclass(frozen=True, slots=True)
class Sizes:
    matches: int
    members: int
    duel_members: int
    last: int
    plain_last: int
    """The plain walk-forward evaluates this many matches; its time per evaluated match
    gives the estimate of it over `last`."""
    runs: int


FULL = Sizes(100_000, 10_000, 1_000, 5_000, 100, 3)
QUICK = Sizes(2_000, 300, 200, 200, 5, 1)


def fast(log: MatchLog, last: int, tune: bool = False) -> Evaluation:
    return evaluate(
        log.match, log.player, log.side, log.score, log.minutes, log.member_count, last=last,
        tune=tune,
    )  # fmt: skip


def plain(log: MatchLog, last: int, timings: dict[str, float] | None = None) -> Figures:
    columns = (log.match, log.player, log.side, log.score, log.minutes)
    return plain_evaluation(columns, DEFAULT_SETTINGS, last, timings=timings)


def largest_difference(found: Evaluation, expected: Figures) -> float:
    """The largest |difference| of any figure of any measure (pairs must be equal)."""
    differences = []
    for score in found.scores:
        log_loss, brier, accuracy, pairs = expected[score.measure]
        if pairs != score.pairs:
            return float("inf")
        differences += [score.log_loss - log_loss, score.brier - brier, score.accuracy - accuracy]
    return float(np.max(np.abs(differences)))


def walk(log: MatchLog, last: int) -> WalkForward:
    checked = check_log(log.match, log.player, log.side, log.score, log.minutes, log.member_count)
    return walk_forward(checked, last)


def grid_replay(log: MatchLog, walked: WalkForward) -> list[float]:
    """The tuning: every setting of the grid replayed at once, the ladder's log-loss of each."""
    seasons = check_seasons(walked.log.match_count, (), ())
    tuned = tune_ladder(walked, DEFAULT_SETTINGS, T_GRID, GAME_MULT_GRID, seasons)
    return [point.log_loss for point in tuned.grid]


def mean_log_loss(predictions: FloatArray, outcomes: FloatArray) -> float:
    """The mean log-loss (natural log) of predictions clipped to [CLIP, 1 - CLIP]."""
    return float(pair_log_losses(predictions, outcomes).mean())


def one_replay_per_setting(log: MatchLog, walked: WalkForward) -> list[float]:
    """The tuning's baseline: the grid's settings replayed one after another (replay_waves),
    the ladder's log-loss of each."""
    losses = []
    for t in T_GRID:
        for game_mult in GAME_MULT_GRID:
            settings = LadderSettings(t, game_mult)
            before = replay_waves(
                log.match, log.player, log.side, log.score, log.minutes, log.member_count,
                settings,
            ).before  # fmt: skip
            predictions = ladder_expected_score(
                before[walked.pair_member], before[walked.pair_opponent], t
            )
            losses.append(mean_log_loss(predictions, walked.outcomes))
    return losses


def with_cpu(call: Callable[[], Any], into: list[float]) -> Callable[[], Any]:
    """`call`, adding each call's CPU time of this process (time.process_time) to `into`."""

    def timed_call() -> Any:
        started = time.process_time()
        value = call()
        into.append(time.process_time() - started)
        return value

    return timed_call


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def load_average() -> str:
    """The host's 1-minute load average (the machine is shared: it says how loaded it was)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as status:
            return status.read().split()[0]
    except OSError:
        return "unknown"


def run(quick: bool) -> Table:
    sizes = QUICK if quick else FULL
    load_before = load_average()
    log = match_log(sizes.matches, sizes.members)
    few = sizes.plain_last
    table = Table(
        f"Evaluation (SPEC 12): a {sizes.matches:,}-match guild (8 a match, half 4v4, half "
        f"free-for-all), {sizes.members:,} members",
        ["workload", "median", "baseline", "faster by", "target"],
    )

    fast_few = measure(lambda: fast(log, few), sizes.runs)
    timings: dict[str, float] = {}
    plain_few_seconds, plain_figures = timed(lambda: plain(log, few, timings))
    per_match = timings["predictions"] / few
    plain_estimate = plain_few_seconds + per_match * (sizes.last - few)
    table.add(
        f"last {few} matches, all ten measures",
        format_seconds(fast_few.seconds),
        f"plain walk-forward {format_seconds(plain_few_seconds)}",
        f"{plain_few_seconds / fast_few.seconds:.1f}x",
        "",
    )
    cpu: dict[str, list[float]] = {"evaluation": [], "tuned": []}
    evaluation = measure(with_cpu(lambda: fast(log, sizes.last), cpu["evaluation"]), sizes.runs)
    table.add(
        f"last {sizes.last:,} matches, all ten measures",
        format_seconds(evaluation.seconds),
        f"plain walk-forward ~{format_seconds(plain_estimate)} (estimated)",
        f"~{plain_estimate / evaluation.seconds:.0f}x",
        f"<= {TARGET_EVALUATION_SECONDS:g} s "
        + verdict(evaluation.seconds <= TARGET_EVALUATION_SECONDS),
    )
    tuned = measure(with_cpu(lambda: fast(log, sizes.last, tune=True), cpu["tuned"]), sizes.runs)
    tuning = tuned.value.tuning
    table.add(
        f"last {sizes.last:,} matches with --tune ({len(tuning.grid)} settings)",
        format_seconds(tuned.seconds),
        "",
        "",
        f"<= {TARGET_TUNING_SECONDS:g} s " + verdict(tuned.seconds <= TARGET_TUNING_SECONDS),
    )
    walked = walk(log, sizes.last)
    grid = measure(lambda: grid_replay(log, walked), sizes.runs)
    baseline_seconds, baseline_losses = timed(lambda: one_replay_per_setting(log, walked))
    table.add(
        f"the tuning alone: {len(grid.value)} settings replayed at once",
        format_seconds(grid.seconds),
        f"{len(baseline_losses)} replay_waves one by one {format_seconds(baseline_seconds)}",
        f"{baseline_seconds / grid.seconds:.1f}x",
        "",
    )
    duels = duel_log(sizes.matches, sizes.duel_members)
    duel_evaluation = measure(lambda: fast(duels, sizes.last), sizes.runs)
    table.add(
        f"last {sizes.last:,} of {sizes.matches:,} duels, {sizes.duel_members:,} members",
        format_seconds(duel_evaluation.seconds),
        "",
        "",
        f"<= {TARGET_EVALUATION_SECONDS:g} s "
        + verdict(duel_evaluation.seconds <= TARGET_EVALUATION_SECONDS),
    )

    difference = largest_difference(fast_few.value, plain_figures)
    grid_difference = max(
        abs(point.log_loss - loss) for point, loss in zip(tuning.grid, baseline_losses, strict=True)
    )
    best = tuned.value.best
    table.notes += [
        f"agreement with the plain walk-forward over the last {few} matches: largest |Δ| of "
        f"any figure {difference:.1e} ({verdict(difference <= AGREEMENT)}, <= {AGREEMENT:g}); "
        f"the tuning's ladder log-losses against one replay per setting: {grid_difference:.1e}.",
        f"plain walk-forward (bench.baselines.plain_evaluation: the ladder in Python floats, "
        f"each evaluated member's game list solved per variant before each match): one run "
        f"over the last {few} matches, {format_seconds(per_match)} a match of it predicting; "
        f"the estimate for {sizes.last:,} adds that per further match (a low estimate: "
        "keeping more members' game lists costs more too).",
        f"medians of {sizes.runs} runs (the baselines: one run); 'the tuning alone' and its "
        "baseline start from the pairs already found; random scores, so the best measure is "
        f"{best.measure} (log-loss "
        f"{best.log_loss:.4f}) and the ladder's {tuned.value.score_of(LADDER).log_loss:.4f}.",
        f"CPU time of this process (time.process_time, medians of {sizes.runs}; what the "
        f"host's other work does not add): last {sizes.last:,} matches "
        f"{format_seconds(statistics.median(cpu['evaluation']))}, with --tune "
        f"{format_seconds(statistics.median(cpu['tuned']))}.",
        f"load average (1 minute) of the 2-core host: {load_before} at the start, "
        f"{load_average()} at the end of this run.",
    ]
    return table
