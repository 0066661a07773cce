"""The adapter from the stored log's columns to the replay, with season starts (SPEC 9.1):
the recipe a void or an edit follows (ratings_at_start, then replay_log) gives a full
replay's ratings."""

from __future__ import annotations

from dataclasses import fields, replace
from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ladder import LadderSettings, match_outcomes
from bot.ratings.replay import replay_sequential, replay_waves
from bot.services.replaying import (
    Record,
    SeasonStart,
    ratings_at_start,
    records_by_season,
    replay_log,
    replay_match,
)
from bot.storage import LogColumns
from bot.storage.engine import label_codes
from tests.ratings.test_replay import random_log

LADDER = LadderSettings(initial_rating=300.0)


def user_of(player: int) -> int:
    return 1000 + 7 * player  # user ids unlike player indices


def stored_log(seed: int, match_count: int, player_count: int) -> LogColumns:
    """A random log's columns (match ids with gaps, sides coded from text), no ratings yet."""
    match, player, side, score, minutes = random_log(
        np.random.default_rng(seed), match_count, player_count, 6
    )
    missing = np.full(len(match), np.nan)
    return LogColumns(
        3 * match.astype(np.int64) + 11,
        np.arange(len(match), dtype=np.int64),
        np.array([user_of(p) for p in player.tolist()], np.int64),
        label_codes([f"side {s}" for s in side.tolist()], {}),
        np.asarray(score, np.float64),
        np.asarray(minutes, np.float64),
        missing,
        missing,
    )


def tail(log: LogColumns, first: int) -> LogColumns:
    return LogColumns(*(getattr(log, field.name)[first:] for field in fields(log)))


def match_starts(log: LogColumns) -> list[int]:
    """The index of every match's first entry, then len(log)."""
    return [*log.match_firsts().tolist(), len(log)]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    match_count=st.integers(1, 30),
    season_count=st.integers(0, 4),
    data=st.data(),
)
def test_a_replay_from_any_match_equals_the_full_replay(
    seed: int, match_count: int, season_count: int, data: st.DataObject
) -> None:
    """Store a full replay (rating_before per row, closing standings per season start); then
    replay from the first row of any match with only that stored data, as a void would."""
    log = stored_log(seed, match_count, 8)
    firsts = match_starts(log)
    seasons = [
        SeasonStart(data.draw(st.sampled_from(firsts)), data.draw(st.sampled_from([0.0, 0.3, 1.0])))
        for _ in range(season_count)
    ]
    seasons.sort(key=lambda season: season.before_row)
    full = replay_log(log, {}, LADDER, seasons)
    stored = replace(log, rating_before=full.before, rating_after=full.after)
    split = data.draw(st.sampled_from(firsts))
    later = [SeasonStart(s.before_row - split, s.carry) for s in seasons if s.before_row >= split]
    closed = [c for s, c in zip(seasons, full.closing, strict=True) if s.before_row >= split]
    start = ratings_at_start(tail(stored, split), later, full.final, closed[0] if closed else None)
    partial = replay_log(tail(stored, split), start, LADDER, later)
    assert partial.before.tolist() == pytest.approx(full.before[split:].tolist(), abs=1e-9)
    assert partial.after.tolist() == pytest.approx(full.after[split:].tolist(), abs=1e-9)
    assert partial.final.keys() <= full.final.keys()
    for user_id, rating in partial.final.items():
        assert rating == pytest.approx(full.final[user_id], abs=1e-9)
    for mine, theirs in zip(partial.closing, closed, strict=True):
        assert mine == pytest.approx({u: theirs[u] for u in mine}, abs=1e-9)


def test_replay_log_is_the_replay_of_the_columns() -> None:
    log = stored_log(2, 25, 6)
    firsts = match_starts(log)
    seasons = [
        SeasonStart(firsts[10], 0.5),
        SeasonStart(firsts[10], 0.0),
        SeasonStart(len(log), 0.2),
    ]
    result = replay_log(log, {user_of(5): 650.0}, LADDER, seasons)
    match, player, side, score, minutes = random_log(np.random.default_rng(2), 25, 6, 6)
    members = list(dict.fromkeys(player.tolist()))
    start = [650.0 if p == 5 else 300.0 for p in members]
    reference = replay_sequential(
        match,
        np.array([members.index(p) for p in player.tolist()]),
        side,
        score,
        minutes,
        len(members),
        LADDER,
        start,
        [10, 10, 25],
        [0.5, 0.0, 0.2],
    )
    assert result.before.tolist() == pytest.approx(reference.before.tolist(), abs=1e-12)
    assert result.final == pytest.approx(
        {user_of(p): r for p, r in zip(members, reference.final.tolist(), strict=True)}, abs=1e-12
    )
    assert len(result.closing) == 3
    halfway = {u: 300.0 + 0.5 * (r - 300.0) for u, r in result.closing[0].items()}
    assert result.closing[1] == pytest.approx(halfway, abs=1e-12)  # two starts at one point


def test_members_who_do_not_play_are_still_carried_over() -> None:
    log = stored_log(4, 3, 4)
    result = replay_log(log, {99: 700.0}, LADDER, [SeasonStart(0, 0.5)])
    assert result.closing[0][99] == 700.0
    assert result.final[99] == 500.0
    empty = replay_log(tail(log, len(log)), {99: 700.0}, LADDER, [SeasonStart(0, 0.0)])
    assert len(empty.before) == 0
    assert (empty.final, empty.closing) == ({99: 300.0}, [{99: 700.0}])


def test_records_by_season_count_match_outcomes() -> None:
    log = stored_log(5, 20, 6)
    firsts = match_starts(log)
    seasons = [SeasonStart(firsts[8], 1.0)]
    records = records_by_season(log, seasons)
    expected: list[dict[int, list[int]]] = [{}, {}]
    for number, (first, end) in enumerate(pairwise(firsts)):
        outcomes = match_outcomes(
            log.side[first:end].tolist(),
            log.score[first:end].tolist(),
            log.minutes[first:end].tolist(),
        )
        for user_id, outcome in zip(log.user_id[first:end].tolist(), outcomes, strict=True):
            tally = expected[number >= 8].setdefault(user_id, [0, 0, 0, 0])
            tally[0] += 1
            tally[("win", "draw", "loss").index(outcome) + 1] += 1
    for season, tallies in zip(records, expected, strict=True):
        assert {u: r for u, r in season.items() if r.games} == {
            u: Record(*tally) for u, tally in tallies.items()
        }


@pytest.mark.parametrize(
    ("before_row", "message"),
    [
        (1, "season start 0: before_row 1 falls inside match"),
        (-1, "season start 0: before_row -1 must be 0 to"),
        (10_000, "season start 0: before_row 10000 must be 0 to"),
    ],
)
def test_season_starts_must_fall_between_matches(before_row: int, message: str) -> None:
    log = stored_log(6, 5, 4)
    with pytest.raises(ValueError, match=message):
        replay_log(log, {}, LADDER, [SeasonStart(before_row, 0.0)])


def test_ratings_at_start_needs_the_closing_standings_of_a_season_start() -> None:
    with pytest.raises(ValueError, match="first_closing"):
        ratings_at_start(tail(stored_log(7, 1, 2), 2), [SeasonStart(0, 0.0)], {}, None)


@st.composite
def one_match(draw: st.DrawFn) -> tuple[list[float], list[int], list[float], list[float]]:
    size = draw(st.integers(2, 10))
    sides = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size))
    if len(set(sides)) == 1:
        sides[0] = sides[1] + 1
    rating = st.floats(-5000, 5000, allow_nan=False)
    ratings = draw(st.lists(rating, min_size=size, max_size=size))
    scores = draw(st.lists(st.floats(0, 100), min_size=size, max_size=size))
    minutes = draw(st.lists(st.floats(0.01, 1440), min_size=size, max_size=size))
    return ratings, sides, scores, minutes


@settings(max_examples=300, deadline=None)
@given(one_match(), st.sampled_from([LadderSettings(), LadderSettings(37.5, 0.7, 9.0, 0.0)]))
def test_the_light_apply_of_one_match_is_the_wave_replay_bit_for_bit(
    match: tuple[list[float], list[int], list[float], list[float]], ladder: LadderSettings
) -> None:
    """Issue 29: a report applies its match through rating_changes, not a wave replay of a
    one-match log; both give the same floats, bit for bit."""
    before, sides, scores, minutes = match
    count = len(before)
    waves = replay_waves(
        np.zeros(count, np.int32),
        np.arange(count, dtype=np.int32),
        np.asarray(sides),
        np.asarray(scores),
        np.asarray(minutes),
        count,
        ladder,
        np.asarray(before),
    )
    light = replay_match(before, sides, scores, minutes, ladder)
    assert np.array(light).tobytes() == waves.after.tobytes()
