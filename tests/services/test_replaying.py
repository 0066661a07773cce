"""The adapter from stored log rows to the replay, with season starts (SPEC 9.1): the recipe a
void or an edit follows (ratings_at_start, then replay_log) gives a full replay's ratings."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ladder import LadderSettings, match_outcomes
from bot.ratings.replay import replay_sequential
from bot.services.replaying import (
    Record,
    SeasonStart,
    ratings_at_start,
    records_by_season,
    replay_log,
)
from bot.storage import LogRow
from tests.ratings.test_replay import random_log

LADDER = LadderSettings(initial_rating=300.0)


def user_of(player: int) -> int:
    return 1000 + 7 * player  # user ids unlike player indices


def stored_log(seed: int, match_count: int, player_count: int) -> list[LogRow]:
    """Log rows of a random log (match ids with gaps, sides as text), no ratings yet."""
    match, player, side, score, minutes = random_log(
        np.random.default_rng(seed), match_count, player_count, 6
    )
    return [
        LogRow(3 * m + 11, i, user_of(p), f"side {s}", sc, mi, None)
        for i, (m, p, s, sc, mi) in enumerate(
            zip(
                match.tolist(),
                player.tolist(),
                side.tolist(),
                score.tolist(),
                minutes.tolist(),
                strict=True,
            )
        )
    ]


def match_starts(rows: list[LogRow]) -> list[int]:
    """The row index of every match's first row, then len(rows)."""
    firsts = [i for i, row in enumerate(rows) if i == 0 or rows[i - 1].match_id != row.match_id]
    return [*firsts, len(rows)]


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
    rows = stored_log(seed, match_count, 8)
    firsts = match_starts(rows)
    seasons = [
        SeasonStart(data.draw(st.sampled_from(firsts)), data.draw(st.sampled_from([0.0, 0.3, 1.0])))
        for _ in range(season_count)
    ]
    seasons.sort(key=lambda season: season.before_row)
    full = replay_log(rows, {}, LADDER, seasons)
    stored = [
        LogRow(r.match_id, r.position, r.user_id, r.side, r.score, r.minutes, before)
        for r, before in zip(rows, full.before, strict=True)
    ]
    split = data.draw(st.sampled_from(firsts))
    later = [SeasonStart(s.before_row - split, s.carry) for s in seasons if s.before_row >= split]
    closed = [c for s, c in zip(seasons, full.closing, strict=True) if s.before_row >= split]
    start = ratings_at_start(stored[split:], later, full.final, closed[0] if closed else None)
    partial = replay_log(stored[split:], start, LADDER, later)
    assert partial.before == pytest.approx(full.before[split:], abs=1e-9)
    assert partial.after == pytest.approx(full.after[split:], abs=1e-9)
    assert partial.final.keys() <= full.final.keys()
    for user_id, rating in partial.final.items():
        assert rating == pytest.approx(full.final[user_id], abs=1e-9)
    for mine, theirs in zip(partial.closing, closed, strict=True):
        assert mine == pytest.approx({u: theirs[u] for u in mine}, abs=1e-9)


def test_replay_log_is_the_replay_of_the_columns() -> None:
    rows = stored_log(2, 25, 6)
    firsts = match_starts(rows)
    seasons = [
        SeasonStart(firsts[10], 0.5),
        SeasonStart(firsts[10], 0.0),
        SeasonStart(len(rows), 0.2),
    ]
    result = replay_log(rows, {user_of(5): 650.0}, LADDER, seasons)
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
    assert result.before == pytest.approx(reference.before.tolist(), abs=1e-12)
    assert result.final == pytest.approx(
        {user_of(p): r for p, r in zip(members, reference.final.tolist(), strict=True)}, abs=1e-12
    )
    assert len(result.closing) == 3
    halfway = {u: 300.0 + 0.5 * (r - 300.0) for u, r in result.closing[0].items()}
    assert result.closing[1] == pytest.approx(halfway, abs=1e-12)  # two starts at one point


def test_members_who_do_not_play_are_still_carried_over() -> None:
    rows = stored_log(4, 3, 4)
    result = replay_log(rows, {99: 700.0}, LADDER, [SeasonStart(0, 0.5)])
    assert result.closing[0][99] == 700.0
    assert result.final[99] == 500.0
    empty = replay_log([], {99: 700.0}, LADDER, [SeasonStart(0, 0.0)])
    assert (empty.before, empty.final, empty.closing) == ([], {99: 300.0}, [{99: 700.0}])


def test_records_by_season_count_match_outcomes() -> None:
    rows = stored_log(5, 20, 6)
    firsts = match_starts(rows)
    seasons = [SeasonStart(firsts[8], 1.0)]
    records = records_by_season(rows, seasons)
    expected: list[dict[int, list[int]]] = [{}, {}]
    for number, (first, end) in enumerate(pairwise(firsts)):
        match = rows[first:end]
        outcomes = match_outcomes(
            [r.side for r in match], [r.score for r in match], [r.minutes for r in match]
        )
        for row, outcome in zip(match, outcomes, strict=True):
            tally = expected[number >= 8].setdefault(row.user_id, [0, 0, 0, 0])
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
    rows = stored_log(6, 5, 4)
    with pytest.raises(ValueError, match=message):
        replay_log(rows, {}, LADDER, [SeasonStart(before_row, 0.0)])


def test_ratings_at_start_needs_the_closing_standings_of_a_season_start() -> None:
    with pytest.raises(ValueError, match="first_closing"):
        ratings_at_start([], [SeasonStart(0, 0.0)], {}, None)
