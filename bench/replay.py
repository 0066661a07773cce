"""Benchmark 1 (and 6): replaying a match log - replay_waves against a plain Python loop of
the same update and against openskill; a million matches for time and peak memory."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from bench.baselines import replay_openskill, replay_plain
from bench.data import MatchLog, compact, match_log
from bench.harness import Table, format_seconds, measure, verdict
from bench.measured import peak_resident_bytes
from bot.ratings.ladder import DEFAULT_SETTINGS, LadderSettings
from bot.ratings.replay import replay_waves

AGREEMENT = 1e-9
"""Ratings: replay_waves and the plain loop must agree this closely on the first matches."""
CHECKED_MATCHES = 1_000
TARGET_OPENSKILL_RATIO = 30.0
TARGET_PLAIN_RATIO = 2.5
TARGET_MILLION_SECONDS = 5.0
TARGET_PEAK_MB = 500.0
MB = 1_000_000
"""Memory figures are in decimal megabytes, the unit of the target."""


@dataclass(frozen=True, slots=True)
class Replayed:
    """Rating before and after per log row, and every member's final rating."""

    before: NDArray[np.float64]
    after: NDArray[np.float64]
    final: NDArray[np.float64]


def waves(log: MatchLog, settings: LadderSettings = DEFAULT_SETTINGS) -> Replayed:
    """The log through bot.ratings.replay.replay_waves."""
    result = replay_waves(
        log.match, log.player, log.side, log.score, log.minutes, log.member_count, settings
    )
    return Replayed(result.before, result.after, result.final)


def plain(log: MatchLog, settings: LadderSettings = DEFAULT_SETTINGS) -> Replayed:
    """The log through the plain Python loop of bench.baselines."""
    before, after, final = replay_plain(log, settings)
    return Replayed(np.array(before), np.array(after), np.array(final))


def largest_difference(first: Replayed, second: Replayed, rows: int | None = None) -> float:
    """The largest |difference| of ratings before/after over the first `rows` rows."""
    return max(
        float(np.max(np.abs(first.before[:rows] - second.before[:rows]))),
        float(np.max(np.abs(first.after[:rows] - second.after[:rows]))),
    )


def memory_probe(path: str) -> None:
    """In a fresh process: load a saved log, replay it, print peak memory figures as JSON."""
    with np.load(path) as saved:
        log = MatchLog(
            saved["match"],
            saved["player"],
            saved["side"],
            saved["score"],
            saved["minutes"],
            int(saved["member_count"]),
        )
    loaded = peak_resident_bytes()
    waves(log)
    peak = peak_resident_bytes()
    tracemalloc.start()
    waves(log)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    inputs = sum(
        array.nbytes for array in (log.match, log.player, log.side, log.score, log.minutes)
    )
    print(json.dumps({"loaded": loaded, "peak": peak, "traced": traced, "inputs": inputs}))


def measure_memory(log: MatchLog) -> dict[str, int]:
    """Peak memory of replaying `log` in a fresh process (VmHWM; tracemalloc for the replay)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.npz")
        np.savez(
            path,
            match=log.match,
            player=log.player,
            side=log.side,
            score=log.score,
            minutes=log.minutes,
            member_count=log.member_count,
        )
        probe = f"from bench.replay import memory_probe; memory_probe({path!r})"
        output = subprocess.run(
            [sys.executable, "-c", probe], check=True, capture_output=True, text=True
        ).stdout
    figures: dict[str, int] = json.loads(output)
    return figures


def run(quick: bool) -> Table:
    stream_size, openskill_size, big_size = (
        (10_000, 2_000, 100_000) if quick else (100_000, 10_000, 1_000_000)
    )
    runs, plain_runs, openskill_runs, big_runs = 5, 3, 3, 3
    log = match_log(stream_size)
    table = Table(
        f"Replay: {stream_size:,} matches of 8 (half 4v4, half free-for-all), "
        f"{log.member_count:,} members",
        ["replay", "median", "per match", "replay_waves faster by / detail", "target"],
    )
    fast = measure(lambda: waves(log), runs)
    table.add(
        "replay_waves", format_seconds(fast.seconds), format_seconds(fast.per(stream_size)), "", ""
    )
    loop = measure(lambda: plain(log), plain_runs)
    speedup = loop.seconds / fast.seconds
    table.add(
        "plain Python loop",
        format_seconds(loop.seconds),
        format_seconds(loop.per(stream_size)),
        f"{speedup:.1f}x",
        f">= {TARGET_PLAIN_RATIO}x {verdict(speedup >= TARGET_PLAIN_RATIO)}",
    )
    checked_rows = CHECKED_MATCHES * log.players_per_match
    first = largest_difference(fast.value, loop.value, checked_rows)
    overall = largest_difference(fast.value, loop.value)
    table.notes.append(
        f"agreement with the plain loop: max |Δ rating| {first:.1e} over the first "
        f"{CHECKED_MATCHES:,} matches ({verdict(first <= AGREEMENT)}, <= {AGREEMENT:g}), "
        f"{overall:.1e} over all {stream_size:,}."
    )
    if importlib.util.find_spec("openskill") is None:
        table.add("openskill PlackettLuce", "not installed", "", "", "")
    else:
        subset = log.head(openskill_size)
        rival = measure(lambda: replay_openskill(subset), openskill_runs)
        per_match = rival.per(openskill_size)
        speedup = per_match / fast.per(stream_size)
        table.add(
            f"openskill PlackettLuce (first {openskill_size:,}, scaled per match)",
            format_seconds(per_match * stream_size),
            format_seconds(per_match),
            f"{speedup:.1f}x",
            f">= {TARGET_OPENSKILL_RATIO:g}x {verdict(speedup >= TARGET_OPENSKILL_RATIO)}",
        )
    table.notes.append(
        f"medians: replay_waves of {runs} runs, plain loop of {plain_runs}, openskill of "
        f"{openskill_runs}; openskill runs on the first {openskill_size:,} matches and is "
        "extrapolated per match; its teams are ranked by summed score per hour."
    )
    big = match_log(big_size)
    million = measure(lambda: waves(big), big_runs)
    table.add(
        f"replay_waves, {big_size:,} matches",
        format_seconds(million.seconds),
        format_seconds(million.per(big_size)),
        "",
        f"<= {TARGET_MILLION_SECONDS:g} s {verdict(million.seconds <= TARGET_MILLION_SECONDS)}",
    )
    del million
    for label, probed in (("int64 columns", big), ("compact columns", compact(big))):
        memory = measure_memory(probed)
        peak, growth = memory["peak"] / MB, (memory["peak"] - memory["loaded"]) / MB
        table.add(
            f"peak memory, {big_size:,} matches, {label}",
            f"{peak:.0f} MB",
            "",
            f"inputs {memory['inputs'] / MB:.0f} MB, replay +{growth:.0f} MB",
            f"<= {TARGET_PEAK_MB:g} MB {verdict(peak <= TARGET_PEAK_MB)}",
        )
    table.notes.append(
        "peak memory: peak resident set (VmHWM) of a fresh process that loads the saved log "
        "and runs replay_waves once; 'replay +' is its growth over the process before the "
        f"replay (the replay's allocations alone peak at {memory['traced'] / MB:.0f} MB by "
        "tracemalloc, compact run). int64 columns are numpy's default; compact ones are int32 "
        f"match and player, int8 side. {big_size:,}-match time: median of {big_runs} runs."
    )
    return table
