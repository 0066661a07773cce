"""Replaying a columnar match log (SPEC 2.5): the wave replay equals the sequential one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ladder import LadderSettings, rating_changes
from bot.ratings.replay import (
    Replay,
    check_log,
    next_matches,
    replay_sequential,
    replay_waves,
    wave_order,
)
from tests.ratings.replays import ratings_before

Columns = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]  # match, player, side, score, minutes


def random_log(
    rng: np.random.Generator, match_count: int, player_count: int, largest: int
) -> Columns:
    """Matches of 2..largest distinct players, half free-for-alls, half 2-4 teams."""
    rows: list[list[float]] = []
    for match in range(match_count):
        size = int(rng.integers(2, min(largest, player_count) + 1))
        players = rng.choice(player_count, size=size, replace=False)
        if rng.random() < 0.5:
            sides = np.arange(size)
        else:
            sides = np.concatenate(([0, 1], rng.integers(0, min(4, size), size=size - 2)))
        scores = rng.integers(0, 12, size=size)  # small: equal score rates happen
        minutes = rng.choice([5.0, 10.0, 20.0, 30.0, 7.5, 0.01, 13.7], size=size)
        rows += [
            [match, int(p), int(s), float(sc), float(m)]
            for p, s, sc, m in zip(players, sides, scores, minutes, strict=True)
        ]
    table = np.array(rows).reshape(-1, 5)
    ints = table[:, :3].astype(np.int64)
    return ints[:, 0], ints[:, 1], ints[:, 2], table[:, 3], table[:, 4]


def assert_same(first: Replay, second: Replay) -> None:
    """Bit for bit: a match rated in a wave beside others, or padded to more seats, gets
    the very floats it gets alone (SPEC 2.5: stored = replay exactly)."""
    for name in ("before", "after", "final", "closing"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    match_count=st.integers(1, 40),
    player_count=st.integers(2, 14),
    largest=st.integers(2, 32),
    custom_start=st.booleans(),
)
def test_waves_equal_sequential_on_random_logs(
    seed: int, match_count: int, player_count: int, largest: int, custom_start: bool
) -> None:
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, player_count, largest)
    start = rng.uniform(0, 1000, player_count) if custom_start else None
    ladder = LadderSettings(t=80.0, game_mult=3.0, max_game_length=15.0, initial_rating=250.0)
    assert_same(
        replay_waves(*columns, player_count, ladder, start),
        replay_sequential(*columns, player_count, ladder, start),
    )


def test_waves_equal_sequential_on_a_long_log() -> None:
    rng = np.random.default_rng(5)
    columns = random_log(rng, 5_000, 300, 32)
    fast = replay_waves(*columns, 300)
    assert_same(fast, replay_sequential(*columns, 300))
    assert abs(fast.final.sum() - 300 * 500.0) < 1e-6  # zero-sum over the whole log


def test_compact_integer_columns_replay_like_int64_ones() -> None:
    rng = np.random.default_rng(8)
    match, player, side, score, minutes = random_log(rng, 300, 50, 12)
    wide = replay_waves(match, player, side, score, minutes, 50)
    compact = replay_waves(
        match.astype(np.int32), player.astype(np.int32), side.astype(np.int8), score, minutes, 50
    )
    assert_same(compact, wide)
    assert (
        check_log(
            match.astype(np.int32),
            player.astype(np.int32),
            side.astype(np.int8),
            score,
            minutes,
            50,
        ).player.dtype
        == np.int32
    )  # used as given, not widened


def test_sequential_replay_applies_rating_changes_in_order() -> None:
    # Duel a-b twice (a wins, then b wins), then a three-way match with c.
    match = np.array([0, 0, 1, 1, 2, 2, 2])
    player = np.array([0, 1, 1, 0, 2, 0, 1])
    side = np.array([0, 1, 0, 1, 0, 1, 2])
    score = np.array([1.0, 0.0, 1.0, 0.0, 5.0, 3.0, 4.0])
    minutes = np.array([20.0, 20.0, 20.0, 20.0, 10.0, 20.0, 30.0])
    replay = replay_sequential(match, player, side, score, minutes, 3)
    ratings = np.full(3, 500.0)
    expected_before, expected_after = [], []
    for rows in (slice(0, 2), slice(2, 4), slice(4, 7)):
        current = ratings[player[rows]]
        changed = current + rating_changes(current, side[rows], score[rows], minutes[rows])
        expected_before += current.tolist()
        expected_after += changed.tolist()
        ratings[player[rows]] = changed
    assert replay.before.tolist() == expected_before
    assert replay.after.tolist() == expected_after
    assert replay.final.tolist() == ratings.tolist()
    assert replay.after[:2].tolist() == [520.0, 480.0]  # the first worked example


def test_replay_from_given_ratings_equals_the_tail_of_a_full_replay() -> None:
    rng = np.random.default_rng(11)
    match, player, side, score, minutes = random_log(rng, 400, 40, 8)
    full = replay_waves(match, player, side, score, minutes, 40)
    split = int(np.searchsorted(match, 250))
    tail = slice(split, None)
    # From the ratings after the head...
    head = replay_waves(
        match[:split], player[:split], side[:split], score[:split], minutes[:split], 40
    )
    from_head = replay_waves(
        match[tail],
        player[tail],
        side[tail],
        score[tail],
        minutes[tail],
        40,
        start_ratings=head.final,
    )
    # ...and from the stored ratings before the tail (as a void of the match before it would).
    start = ratings_before(player[tail], full.before[tail], full.final)
    from_stored = replay_sequential(
        match[tail], player[tail], side[tail], score[tail], minutes[tail], 40, start_ratings=start
    )
    for partial in (from_head, from_stored):
        np.testing.assert_array_equal(partial.before, full.before[tail])
        np.testing.assert_array_equal(partial.after, full.after[tail])
        np.testing.assert_array_equal(partial.final, full.final)


def test_ratings_before_takes_each_players_first_row() -> None:
    start = ratings_before([2, 0, 2], [510.0, 470.0, 530.0], [1.0, 2.0, 3.0, 4.0])
    assert start.tolist() == [470.0, 2.0, 510.0, 4.0]


def test_waves_are_longest_chains() -> None:
    # m0 {0,1}, m1 {2,3}, m2 {1,2} needs both, m3 {4,5} is free, m4 {0,5} after m0 and m3.
    player = np.array([0, 1, 2, 3, 1, 2, 4, 5, 0, 5])
    log = check_log(
        np.repeat(np.arange(5), 2), player, np.tile([0, 1], 5), np.ones(10), np.full(10, 20.0), 6
    )
    order, sizes = wave_order(log)
    assert (order.tolist(), sizes) == ([0, 1, 3, 2, 4], [3, 2])


def test_next_matches_handle_large_player_indices() -> None:
    # m0 {70000, 5}, m1 {70000, 131077}, m2 {5, 131077}, m3 {65541, 0}; 4 means none.
    player = np.array([70_000, 5, 70_000, 131_077, 5, 131_077, 65_541, 0])
    log = check_log(
        np.repeat(np.arange(4), 2),
        player,
        np.tile([0, 1], 4),
        np.ones(8),
        np.full(8, 20.0),
        131_078,
    )
    assert next_matches(log).tolist() == [1, 2, 4, 2, 4, 4, 4, 4]


def test_an_empty_log_keeps_the_start_ratings() -> None:
    empty = np.array([], dtype=np.int64)
    replay = replay_waves(empty, empty, empty, empty, empty, 3, start_ratings=[1.0, 2.0, 3.0])
    assert replay.final.tolist() == [1.0, 2.0, 3.0]
    assert replay.before.size == replay.after.size == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"match": [1, 1, 0, 0]}, "row 2: match 0 is not in log order"),
        ({"player": [0, 1, 2, 9]}, "row 3: player 9 is not a player"),
        ({"player": [0, 1, 2, 2]}, "match 1: player 2 appears twice"),
        ({"side": [0, 1, 4, 4]}, "match 1: every participant is on one side"),
        (
            {"score": [0.0, -1.0, 0.0, 0.0]},
            "row 1: score -1.0 is not a finite number from 0 to 1e9",
        ),
        (
            {"minutes": [20.0, 20.0, 0.0, 20.0]},
            "row 2: minutes 0.0 is not a finite number from 0.01 to 1440",
        ),
        (
            {"minutes": [20.0, 20.0, 20.0, 2000.0]},
            "row 3: minutes 2000.0 is not a finite number from 0.01 to 1440",
        ),
        ({"player": [0.0, 1.0, 2.0, 3.0]}, "player must hold integers"),
        ({"side": [0, 1, 0]}, "side must be a flat array of 4 rows"),
        ({"start_ratings": [500.0] * 3}, "start_ratings must hold one rating per player"),
        ({"start_ratings": [500.0, np.nan, 1.0, 2.0]}, "start_ratings: player 1 has nan"),
    ],
)
def test_bad_logs_are_refused_with_the_row_named(change: dict[str, object], message: str) -> None:
    columns: dict[str, object] = {
        "match": [0, 0, 1, 1],
        "player": [0, 1, 2, 3],
        "side": [0, 1, 0, 1],
        "score": [1.0, 0.0, 1.0, 0.0],
        "minutes": [20.0] * 4,
        "start_ratings": None,
    }
    columns.update(change)
    for replay in (replay_waves, replay_sequential):
        with pytest.raises(ValueError, match=message):
            replay(
                columns["match"],  # type: ignore[arg-type]
                columns["player"],  # type: ignore[arg-type]
                columns["side"],  # type: ignore[arg-type]
                columns["score"],  # type: ignore[arg-type]
                columns["minutes"],  # type: ignore[arg-type]
                4,
                start_ratings=columns["start_ratings"],  # type: ignore[arg-type]
            )
