"""Smoke tests of the balance benchmark: its baseline and its exact reference agree with
bot.ratings.balance. Nothing here is timed."""

from __future__ import annotations

import numpy as np
import pytest

from bench.balance import exact_spread, plain_brute_force, run
from bot.ratings.balance import balance_teams


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_baseline_and_reference_agree_with_the_exact_search(seed: int) -> None:
    ratings = np.random.default_rng(seed).normal(1500, 300, 12)
    exact = balance_teams(ratings, 2).spread
    assert plain_brute_force(ratings.tolist()) == pytest.approx(exact, abs=1e-9)
    assert exact_spread(ratings, 2) == pytest.approx(exact, abs=1e-9)
    assert exact_spread(ratings, 3) == pytest.approx(balance_teams(ratings, 3).spread, abs=1e-9)


def test_quick_run_reports_every_size_and_the_quality_note() -> None:
    table = run(quick=True)
    assert [row[:3] for row in table.rows[1:]] == [
        [str(players), str(teams), "exact" if players == 12 else "heuristic"]
        for players, teams in [(12, 2), (12, 3), (12, 4), (32, 2), (32, 3), (32, 4)]
    ]
    assert any("heuristic quality" in note for note in table.notes)
