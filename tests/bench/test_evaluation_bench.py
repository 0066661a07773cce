"""Smoke test of the evaluation benchmark (`python -m bench evaluate --quick`): every row,
and its fast path agreeing with the plain walk-forward. Nothing here is timed."""

from __future__ import annotations

import pytest

from bench.data import match_log
from bench.evaluation import (
    fast,
    grid_replay,
    largest_difference,
    one_replay_per_setting,
    plain,
    run,
    walk,
)


def test_quick_run_reports_every_workload_and_agreement() -> None:
    table = run(quick=True)
    workloads = [row[0] for row in table.rows]
    assert workloads == [
        "last 5 matches, all ten measures",
        "last 200 matches, all ten measures",
        "last 200 matches with --tune (54 settings)",
        "the tuning alone: 54 settings replayed at once",
        "last 200 of 2,000 duels, 200 members",
    ]
    assert "(met, <= 1e-09)" in table.notes[0]
    assert "CPU time of this process" in table.notes[3]


def test_baselines_agree_with_the_fast_path() -> None:
    log = match_log(120, member_count=40, seed=5)
    found = fast(log, 30, tune=True)
    assert largest_difference(found, plain(log, 30)) <= 1e-9
    expected = plain(log, 29)  # other pairs: the comparison must notice
    assert largest_difference(found, expected) == float("inf")
    assert found.tuning is not None
    losses = one_replay_per_setting(log, walk(log, 30))
    assert [point.log_loss for point in found.tuning.grid] == pytest.approx(losses, abs=1e-12)
    assert grid_replay(log, walk(log, 30)) == pytest.approx(losses, abs=1e-12)
