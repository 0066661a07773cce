"""Smoke tests of the benchmarks: the workloads are what they claim, and on tiny sizes every
fast path agrees with its baseline. Nothing here is timed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.baselines import plain_changes, replay_openskill
from bench.data import compact, duel_log, game_lists, match_log
from bench.harness import Table, measure
from bench.performance import counting_exponentials, workload
from bot.ratings.ladder import DEFAULT_SETTINGS, rating_changes

has_scipy = importlib.util.find_spec("scipy") is not None
has_openskill = importlib.util.find_spec("openskill") is not None


def test_match_log_is_half_team_games_half_free_for_alls_of_eight_distinct_players() -> None:
    log = match_log(400, member_count=50, seed=3)
    players = log.player.reshape(-1, 8)
    sides = log.side.reshape(-1, 8)
    assert log.match_count == 400
    assert np.array_equal(log.match, np.repeat(np.arange(400), 8))
    assert all(len(set(row)) == 8 for row in players.tolist())
    side_counts = [len(set(row)) for row in sides.tolist()]
    assert side_counts.count(8) == 200 and side_counts.count(2) == 200
    team_games = sides[np.array(side_counts) == 2]
    assert (np.sort(team_games, axis=1) == [0, 0, 0, 0, 1, 1, 1, 1]).all()
    assert log.score.min() >= 0 and log.minutes.min() >= 5 and log.minutes.max() <= 30
    assert (log.minutes > DEFAULT_SETTINGS.max_game_length).any()


def test_match_log_is_seeded() -> None:
    first, again, other = match_log(50, seed=1), match_log(50, seed=1), match_log(50, seed=2)
    assert np.array_equal(first.player, again.player) and np.array_equal(first.score, again.score)
    assert not np.array_equal(first.player, other.player)


def test_head_keeps_whole_matches() -> None:
    log = duel_log(30, member_count=10)
    head = log.head(7)
    assert head.match_count == 7 and np.array_equal(head.player, log.player[:14])


def test_duel_log_is_duels_reported_without_scores() -> None:
    log = duel_log(500, member_count=20, seed=5)
    scores = log.score.reshape(-1, 2)
    assert (log.player[0::2] != log.player[1::2]).all()
    assert set(map(tuple, scores.tolist())) == {(1.0, 0.0), (0.0, 0.0)}
    assert np.array_equal(log.minutes[0::2], log.minutes[1::2])


def test_game_lists_repeat_opponents_within_a_circle() -> None:
    lists = game_lists(40, games_per_member=100, pool_size=500, opponents_per_member=30, seed=2)
    assert lists.member_count == 40
    assert set(np.unique(lists.result).tolist()) == {0.0, 0.5, 1.0}
    for member in range(lists.member_count):
        opponents = lists.opponent[lists.member(member)]
        assert len(np.unique(opponents)) <= 30 < len(opponents)
    # one rating per opponent
    pairs = set(zip(lists.opponent.tolist(), lists.rating.tolist(), strict=True))
    assert len(pairs) == len(np.unique(lists.opponent))


@pytest.mark.parametrize(
    ("ratings", "sides", "scores", "minutes", "expected"),
    [
        ([500, 500], [0, 1], [1, 0], [20, 20], [20.0, -20.0]),
        ([400, 650], [0, 1], [1, 0], [20, 20], [35.5709, -35.5709]),
        ([500] * 4, [0, 1, 2, 3], [40, 30, 20, 10], [20] * 4, [40, 13.3333, -13.3333, -40]),
        ([520, 480], [0, 1], [3, 6], [5, 30], [4.1743, -4.1743]),
        (
            [600, 500, 450, 500],
            [0, 0, 1, 1],
            [10, 8, 9, 1],
            [20, 20, 15, 20],
            [-8.1170, 1.3909, 30.0, -23.2739],
        ),
    ],
)
def test_plain_loop_reproduces_the_spec_examples(
    ratings: list[float],
    sides: list[int],
    scores: list[float],
    minutes: list[float],
    expected: list[float],
) -> None:
    changes = plain_changes(ratings, sides, scores, minutes, DEFAULT_SETTINGS)
    assert changes == pytest.approx(expected, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1000),
            st.integers(0, 3),
            st.integers(0, 20).map(float),
            st.integers(1, 40).map(float),
        ),
        min_size=2,
        max_size=8,
    ).filter(lambda rows: len({row[1] for row in rows}) >= 2)
)
def test_plain_loop_agrees_with_the_ladder_update(
    rows: list[tuple[float, int, float, float]],
) -> None:
    ratings, sides, scores, minutes = (list(column) for column in zip(*rows, strict=True))
    plain = plain_changes(ratings, sides, scores, minutes, DEFAULT_SETTINGS)
    fast = rating_changes(ratings, sides, scores, minutes, DEFAULT_SETTINGS)
    assert np.allclose(plain, fast, rtol=0, atol=1e-9)


def test_plain_replay_agrees_with_replay_waves() -> None:
    from bench.replay import largest_difference, plain, waves

    log = match_log(300, member_count=60, seed=11)
    fast, slow = waves(log), plain(log)
    assert largest_difference(fast, slow) <= 1e-9
    assert np.allclose(fast.final, slow.final, rtol=0, atol=1e-9)
    assert not np.allclose(slow.before, slow.after)  # the replay did move ratings
    small = waves(compact(log))
    assert small.final.tolist() == fast.final.tolist()


@pytest.mark.skipif(not has_openskill, reason="openskill (the bench extra) is not installed")
def test_openskill_replay_moves_every_player_of_the_stream() -> None:
    log = match_log(20, member_count=500, seed=4)
    ratings = replay_openskill(log)
    initial = ratings[int(np.setdiff1d(np.arange(500), log.player)[0])]
    moved = {index for index, rating in enumerate(ratings) if rating.mu != initial.mu}
    assert moved == set(log.player.tolist())


@pytest.mark.parametrize("variant", ["p8", "p3"])
def test_vectorized_roots_solve_the_benchmark_equation(variant: str) -> None:
    work = workload(game_lists(25, games_per_member=100, seed=9), variant)
    roots = work.solve()
    for (f, low, high), root in zip(work.equations(), roots.tolist(), strict=True):
        assert low < root < high
        # f' is at least about 1e-4 per rating point here, so |f| < 1e-9 pins the root < 1e-5.
        assert abs(f(root)) < 1e-9
        assert f(root - 1e-3) > 0 > f(root + 1e-3)


@pytest.mark.skipif(not has_scipy, reason="scipy (the bench extra) is not installed")
@pytest.mark.parametrize("variant", ["p8", "p3"])
def test_vectorized_solver_agrees_with_brentq(variant: str) -> None:
    from bench.performance import AGREEMENT, solve_with_brentq

    work = workload(game_lists(25, games_per_member=100, seed=9), variant)
    assert np.max(np.abs(work.solve() - solve_with_brentq(work.equations()))) <= AGREEMENT


def test_exponentials_are_counted_per_game_and_iteration() -> None:
    work = workload(game_lists(10, games_per_member=100, seed=1), "p3")
    with counting_exponentials() as count:
        work.solve()
    assert count[0] >= 2 * 10 * 100  # every game, in at least two iterations


def test_measure_reports_the_median_and_the_value() -> None:
    calls = iter(range(10))
    timing = measure(lambda: next(calls), runs=3)
    assert timing.runs == 3 and timing.value == 2 and timing.seconds >= 0


def test_table_renders_markdown() -> None:
    table = Table("Demo", ["a", "b"])
    table.add(1, "x")
    table.notes.append("note")
    assert table.render() == "### Demo\n\n| a | b |\n|---|---|\n| 1 | x |\n\n- note\n"
