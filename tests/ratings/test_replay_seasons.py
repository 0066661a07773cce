"""Season starts in the replay (SPEC 9.1): both replays honour them at the same point of the
log, partial replays agree with full ones, and closing standings equal a truncated replay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ladder import LadderSettings, match_outcomes
from bot.ratings.replay import (
    Replay,
    carry_over,
    check_log,
    replay_sequential,
    replay_waves,
    row_outcomes,
    season_records,
    wave_order,
)
from tests.ratings.replays import ratings_before
from tests.ratings.test_replay import Columns, assert_same, random_log

LADDER = LadderSettings(t=80.0, game_mult=3.0, max_game_length=15.0, initial_rating=250.0)


def random_seasons(
    rng: np.random.Generator, match_count: int, count: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted positions 0..match_count (repeats and both ends happen); carries often exactly
    0 or 1, else uniform."""
    positions = np.sort(rng.integers(0, match_count + 1, size=count))
    carry = np.where(rng.random(count) < 0.5, rng.choice([0.0, 1.0], size=count), rng.random(count))
    return positions, carry


def rows_of(match: np.ndarray, first: int, stop: int | None = None) -> slice:
    """The rows of matches first..stop-1 (match values are the positions 0..count-1)."""
    end = len(match) if stop is None else int(np.searchsorted(match, stop))
    return slice(int(np.searchsorted(match, first)), end)


def head(columns: Columns, stop: int) -> Columns:
    rows = rows_of(columns[0], 0, stop)
    match, player, side, score, minutes = (column[rows] for column in columns)
    return match, player, side, score, minutes


def assert_same_seasons(first: Replay, second: Replay) -> None:
    assert_same(first, second)
    np.testing.assert_allclose(first.closing, second.closing, rtol=0, atol=1e-9)


seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=60, deadline=None)
@given(
    seed=seeds,
    match_count=st.integers(0, 40),
    player_count=st.integers(2, 14),
    season_count=st.integers(0, 5),
    custom_start=st.booleans(),
)
def test_waves_equal_sequential_with_season_starts(
    seed: int, match_count: int, player_count: int, season_count: int, custom_start: bool
) -> None:
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, player_count, 8)
    positions, carry = random_seasons(rng, match_count, season_count)
    start = rng.uniform(0, 1000, player_count) if custom_start else None
    waves = replay_waves(*columns, player_count, LADDER, start, positions, carry)
    sequential = replay_sequential(*columns, player_count, LADDER, start, positions, carry)
    assert waves.closing.shape == (season_count, player_count)
    assert_same_seasons(waves, sequential)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, match_count=st.integers(1, 40), season_count=st.integers(0, 4))
def test_partial_replay_from_any_match_equals_the_full_replay(
    seed: int, match_count: int, season_count: int
) -> None:
    """From stored data alone, as a void of match k would: the rating at position k is the
    before of a player's first row up to the next season start, else their closing rating
    at that start (or their current rating if no season start follows)."""
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, 10, 6)
    match, player, side, score, minutes = columns
    positions, carry = random_seasons(rng, match_count, season_count)
    full = replay_waves(*columns, 10, LADDER, None, positions, carry)
    k = int(rng.integers(0, match_count + 1))
    later = positions >= k  # a season start at k belongs to the replayed part
    if later.any():
        first = int(np.argmax(later))
        known = rows_of(match, k, int(positions[first]))
        start = ratings_before(player[known], full.before[known], full.closing[first])
    else:
        known = rows_of(match, k)
        start = ratings_before(player[known], full.before[known], full.final)
    tail = rows_of(match, k)
    partial = replay_sequential(
        match[tail] - k,
        player[tail],
        side[tail],
        score[tail],
        minutes[tail],
        10,
        LADDER,
        start,
        positions[later] - k,
        carry[later],
    )
    np.testing.assert_allclose(partial.before, full.before[tail], rtol=0, atol=1e-9)
    np.testing.assert_allclose(partial.after, full.after[tail], rtol=0, atol=1e-9)
    np.testing.assert_allclose(partial.final, full.final, rtol=0, atol=1e-9)
    np.testing.assert_allclose(partial.closing, full.closing[later], rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, match_count=st.integers(1, 40), season_count=st.integers(1, 4))
def test_closing_standings_equal_a_replay_truncated_at_the_season_start(
    seed: int, match_count: int, season_count: int
) -> None:
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, 9, 6)
    positions, carry = random_seasons(rng, match_count, season_count)
    full = replay_waves(*columns, 9, LADDER, None, positions, carry)
    records = season_records(*columns, 9, positions)
    for season, position in enumerate(positions.tolist()):
        before = head(columns, position)
        truncated = replay_sequential(*before, 9, LADDER, None, positions[:season], carry[:season])
        np.testing.assert_allclose(full.closing[season], truncated.final, rtol=0, atol=1e-9)
        so_far = season_records(*before, 9, positions[:season])
        assert (records[season] == so_far[-1]).all()


@settings(max_examples=40, deadline=None)
@given(seed=seeds, match_count=st.integers(1, 40), season_count=st.integers(1, 4))
def test_ratings_sum_is_kept_within_a_season(
    seed: int, match_count: int, season_count: int
) -> None:
    """Zero-sum updates: between two season starts the sum of ratings does not move; with
    carry 1 a season start changes nothing, so the sum holds over the whole log."""
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, 8, 6)
    positions, _ = random_seasons(rng, match_count, season_count)
    start = rng.uniform(0, 1000, 8)
    kept = replay_waves(*columns, 8, LADDER, start, positions, np.ones(season_count))
    for standings in (*kept.closing, kept.final):
        assert standings.sum() == pytest.approx(start.sum(), abs=1e-9)
    carry = rng.random(season_count)
    mixed = replay_waves(*columns, 8, LADDER, start, positions, carry)
    season_openings = [
        start,
        *(carry_over(c, x, 250.0) for c, x in zip(mixed.closing, carry, strict=True)),
    ]
    for opening, closing in zip(season_openings, [*mixed.closing, mixed.final], strict=True):
        assert closing.sum() == pytest.approx(opening.sum(), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=seeds, match_count=st.integers(2, 40))
def test_carry_zero_restarts_everyone_from_initial_rating(seed: int, match_count: int) -> None:
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, 8, 6)
    match, player, side, score, minutes = columns
    k = int(rng.integers(1, match_count))
    full = replay_waves(*columns, 8, LADDER, rng.uniform(0, 1000, 8), [k], [0.0])
    tail = rows_of(match, k)
    fresh = replay_waves(
        match[tail], player[tail], side[tail], score[tail], minutes[tail], 8, LADDER
    )
    np.testing.assert_allclose(full.after[tail], fresh.after, rtol=0, atol=1e-9)
    np.testing.assert_allclose(full.final, fresh.final, rtol=0, atol=1e-9)
    first_rows = np.unique(player[tail], return_index=True)[1]
    assert (full.before[tail][first_rows] == 250.0).all()  # exactly, as if unrated


def test_carry_over_keeps_the_given_share_of_the_distance_to_initial() -> None:
    ratings = np.array([100.0, 500.0, 900.0])
    assert carry_over(ratings, 0.25, 500.0).tolist() == [400.0, 500.0, 600.0]
    assert carry_over(ratings, 0.0, 500.0).tolist() == [500.0] * 3
    assert carry_over(ratings, 1.0, 500.0).tolist() == ratings.tolist()


def test_season_starts_at_one_position_compose() -> None:
    columns = random_log(np.random.default_rng(3), 20, 6, 4)
    twice = replay_waves(*columns, 6, LADDER, None, [10, 10], [0.5, 0.4])
    once = replay_waves(*columns, 6, LADDER, None, [10], [0.2])
    np.testing.assert_allclose(twice.final, once.final, rtol=0, atol=1e-9)
    np.testing.assert_allclose(twice.closing[0], once.closing[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        twice.closing[1], carry_over(once.closing[0], 0.5, 250.0), rtol=0, atol=1e-9
    )


def test_waves_never_span_a_season_start() -> None:
    columns = random_log(np.random.default_rng(4), 300, 40, 6)
    log = check_log(*columns, 40)
    cuts = [70, 71, 200]
    order, sizes = wave_order(log, cuts=cuts)
    assert sorted(order.tolist()) == list(range(300))
    side_of_cuts = np.searchsorted(cuts, order, side="right")
    for wave in np.split(side_of_cuts, np.cumsum(sizes)[:-1]):
        assert (wave == wave[0]).all()
    assert (np.diff(side_of_cuts) >= 0).all()  # the seasons one after another
    assert len(sizes) >= len(wave_order(log)[1])


@settings(max_examples=40, deadline=None)
@given(seed=seeds, match_count=st.integers(1, 30))
def test_row_outcomes_are_the_records_of_match_outcomes(seed: int, match_count: int) -> None:
    rng = np.random.default_rng(seed)
    columns = random_log(rng, match_count, 12, 10)
    _, _, side, score, minutes = columns
    log = check_log(*columns, 12)
    code = {"win": 1, "draw": 0, "loss": -1}
    expected = [
        code[outcome]
        for index in range(log.match_count)
        for outcome in match_outcomes(
            side[log.rows(index)].tolist(), score[log.rows(index)], minutes[log.rows(index)]
        )
    ]
    assert row_outcomes(log).tolist() == expected


def test_season_records_count_each_season_on_its_own() -> None:
    columns = random_log(np.random.default_rng(6), 50, 7, 5)
    match, player, *_ = columns
    records = season_records(*columns, 7, [0, 20, 20, 50])
    assert records.shape == (5, 7, 4)
    assert (records[0] == 0).all() and (records[2] == 0).all() and (records[4] == 0).all()
    whole = season_records(*columns, 7)[0]
    assert (records.sum(axis=0) == whole).all()
    assert (whole[:, 0] == np.bincount(player, minlength=7)).all()
    assert (whole[:, 0] == whole[:, 1:].sum(axis=1)).all()  # every game a win, draw or loss
    first = rows_of(match, 0, 20)
    assert (records[1][:, 0] == np.bincount(player[first], minlength=7)).all()


def test_an_empty_log_still_starts_its_seasons() -> None:
    empty = np.array([], dtype=np.int64)
    for replay in (replay_waves, replay_sequential):
        result = replay(
            empty, empty, empty, empty, empty, 2, LADDER, [450.0, 50.0], [0, 0], [0.5, 0.0]
        )
        assert result.closing.tolist() == [[450.0, 50.0], [350.0, 150.0]]
        assert result.final.tolist() == [250.0, 250.0]


@pytest.mark.parametrize(
    ("starts", "carry", "message"),
    [
        ([1, 2], [0.5, 1.5], r"season_carry\[1\] 1.5 must be a number from 0 to 1"),
        ([1], [-0.0001], r"season_carry\[0\] -0.0001 must be a number from 0 to 1"),
        ([1], [float("nan")], r"season_carry\[0\] nan must be a number from 0 to 1"),
        ([2, 1], [0.0, 0.0], r"season_starts\[1\] 1 must not come before season_starts\[0\] 2"),
        ([3], [0.0], r"season_starts\[0\] 3 must be a match position from 0 to 2"),
        ([-1], [0.0], r"season_starts\[0\] -1 must be a match position from 0 to 2"),
        ([1.5], [0.0], "season_starts must hold integers"),
        ([1, 2], [0.0], r"season_carry must hold one carry per season start \(2\)"),
        ([1], ["half"], r"season_carry must hold numbers from 0 to 1, not \['half'\]"),
    ],
)
def test_bad_season_starts_are_refused_naming_the_argument(
    starts: list[float], carry: list[float], message: str
) -> None:
    columns = ([0, 0, 1, 1], [0, 1, 2, 3], [0, 1, 0, 1], [1.0, 0.0, 1.0, 0.0], [20.0] * 4)
    for replay in (replay_waves, replay_sequential):
        with pytest.raises(ValueError, match=message):
            replay(*columns, 4, LADDER, None, starts, carry)
