"""Matches to one member's game list (SPEC 3.3): the literal model of tests/ratings/
reference_games.py, and the column functions of bot.ratings.games checked against it."""

from __future__ import annotations

from collections.abc import Hashable
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from random import Random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game, format_games
from bot.ratings.games import (
    Pairing,
    game_list,
    game_results,
    match_order,
    whole_days_between,
)
from bot.ratings.variants import GameArrays
from tests.ratings.reference_games import MatchRecord, ParticipantRecord, member_games

NOW = datetime(2024, 6, 30, 12, 0, tzinfo=UTC)
ME = 100


def player(
    user_id: int, side: str, score: float, minutes: float = 20.0, rating: float = 500.0
) -> ParticipantRecord:
    return ParticipantRecord(user_id, side, score, minutes, rating)


def test_team_match_gives_one_game_per_opponent_by_user_id() -> None:
    match = MatchRecord(
        7,
        NOW - timedelta(days=3, hours=5),
        (
            player(ME, "A", 10, rating=600),
            player(30, "A", 8),  # teammate: not an opponent
            player(90, "B", 12, rating=450.5),
            player(20, "B", 1, rating=520),
        ),
    )
    assert member_games(ME, [match], NOW) == [
        Game(1.0, 520.0, "20", 3.0),
        Game(0.0, 450.5, "90", 3.0),
    ]


def test_results_compare_score_per_hour() -> None:
    match = MatchRecord(
        1,
        NOW,
        (
            player(ME, "a", 3, minutes=5),  # 36 per hour
            player(1, "b", 6, minutes=30),  # 12 per hour: a win
            player(2, "c", 9, minutes=15),  # 36 per hour: a draw
            player(3, "d", 13, minutes=20),  # 39 per hour: a loss
        ),
    )
    assert [game.result for game in member_games(ME, [match], NOW)] == [1.0, 0.5, 0.0]


def test_matches_newest_first_with_whole_days() -> None:
    old = MatchRecord(
        1, NOW - timedelta(days=10, hours=23), (player(ME, "a", 1), player(5, "b", 0, rating=480))
    )
    new = MatchRecord(
        2, NOW - timedelta(hours=23), (player(ME, "a", 0), player(5, "b", 1, rating=510))
    )
    middle = MatchRecord(3, NOW - timedelta(days=2), (player(6, "x", 2), player(ME, "y", 2)))
    games = member_games(ME, [old, new, middle], NOW)
    assert format_games(games) == "-510 5\n=500 6 2\n+480 5 10\n"


def test_matches_played_at_the_same_moment_keep_log_order_newest_first() -> None:
    first = MatchRecord(4, NOW, (player(ME, "a", 1), player(8, "b", 0)))
    second = MatchRecord(5, NOW, (player(ME, "a", 0), player(9, "b", 1)))
    assert [game.opponent for game in member_games(ME, [first, second], NOW)] == ["9", "8"]


def test_opponent_rating_is_the_rating_before_the_match() -> None:
    # The same opponent in two matches: each game carries the rating of that moment.
    earlier = MatchRecord(
        1, NOW - timedelta(days=1), (player(ME, "a", 1), player(5, "b", 0, rating=500))
    )
    later = MatchRecord(2, NOW, (player(ME, "a", 1), player(5, "b", 0, rating=480)))
    assert [game.rating for game in member_games(ME, [earlier, later], NOW)] == [480.0, 500.0]


def test_naive_timestamps_are_utc_and_future_ones_are_today() -> None:
    naive = datetime(2024, 6, 28, 11, 0)
    assert whole_days_between(naive, NOW) == 2
    assert whole_days_between(NOW + timedelta(hours=1), NOW) == 0


def test_a_match_without_the_member_is_refused() -> None:
    match = MatchRecord(12, NOW, (player(1, "a", 1), player(2, "b", 0)))
    with pytest.raises(ValueError, match="match 12: member 100 is not an enabled participant"):
        member_games(ME, [match], NOW)


def test_no_matches_no_games() -> None:
    assert member_games(ME, [], NOW) == []


# --- the column functions against the literal model ---------------------------------------

BRIDGE = EloBridge(120.0, 500.0)
NOW_STAMP = 1_700_000_000.0
USER_IDS = (3, 11, 12, 40, 41, 99)
TEAM_LABELS = ("A", "B", "C")


@st.composite
def applied_matches(draw: st.DrawFn) -> list[MatchRecord]:
    """Duels, team games and free-for-alls among a few members, ratings in ladder units:
    scores and minutes from small sets, so equal rates per hour are frequent; matches often
    played at the same second, some (clock skew) after now."""
    matches = []
    for match_id in range(draw(st.integers(0, 6))):
        ids = draw(st.lists(st.sampled_from(USER_IDS), min_size=2, max_size=6, unique=True))
        free_for_all = draw(st.booleans())
        participants = tuple(
            ParticipantRecord(
                user_id,
                str(seat) if free_for_all else draw(st.sampled_from(TEAM_LABELS)),
                draw(st.sampled_from((0.0, 1.0, 2.0, 3.0, 6.0, 9.0, 12.5))),
                draw(st.sampled_from((5.0, 10.0, 15.0, 20.0, 30.0, 7.5))),
                draw(st.floats(-500.0, 1500.0)),
            )
            for seat, user_id in enumerate(ids)
        )
        seconds_ago = draw(st.sampled_from((-3_600, 0, 86_399, 86_400, 200_000, 3_000_000)))
        played_at = datetime.fromtimestamp(NOW_STAMP - seconds_ago, UTC)
        matches.append(MatchRecord(match_id, played_at, participants))
    return matches


def stored_rows(matches: list[MatchRecord]) -> dict[str, np.ndarray]:
    """The rows the storage hands over (bot.storage.GameRows): one per (member, match,
    participant on another side), by member, newest match first, opponents by user id."""
    rows = sorted(
        (
            (me.user_id, -match.played_at.timestamp(), -match.match_id, them.user_id, me, them)
            for match in matches
            for me in match.participants
            for them in match.participants
            if them.side != me.side
        ),
        key=lambda row: row[:4],
    )
    return {
        "member": np.array([row[0] for row in rows], dtype=np.int64),
        "played_at": np.array([-row[1] for row in rows], dtype=np.float64),
        "opponent": np.array([row[3] for row in rows], dtype=np.int64),
        "score": np.array([row[4].score for row in rows], dtype=np.float64),
        "minutes": np.array([row[4].minutes for row in rows], dtype=np.float64),
        "opponent_score": np.array([row[5].score for row in rows], dtype=np.float64),
        "opponent_minutes": np.array([row[5].minutes for row in rows], dtype=np.float64),
        "opponent_rating": np.array([row[5].rating_before for row in rows], dtype=np.float64),
    }


def reference_game_lists(matches: list[MatchRecord], members: list[int]) -> list[list[Game]]:
    """Each member's games by the literal model, opponent ratings converted to Elo units."""
    in_elo = [
        MatchRecord(
            match.match_id,
            match.played_at,
            tuple(
                ParticipantRecord(
                    p.user_id, p.side, p.score, p.minutes, BRIDGE.to_elo(p.rating_before)
                )
                for p in match.participants
            ),
        )
        for match in matches
    ]
    now = datetime.fromtimestamp(NOW_STAMP, UTC)
    return [
        member_games(
            member, [m for m in in_elo if any(p.user_id == member for p in m.participants)], now
        )
        for member in members
    ]


@settings(max_examples=150, deadline=None)
@given(applied_matches())
def test_column_functions_equal_the_literal_model(matches: list[MatchRecord]) -> None:
    rows = stored_rows(matches)
    results = game_results(
        rows["score"], rows["opponent_score"], rows["minutes"], rows["opponent_minutes"]
    )
    members = list(USER_IDS)  # some may have played no match: an empty segment
    expected = reference_game_lists(matches, members)

    for member, games in zip(members, expected, strict=True):
        mine = rows["member"] == member
        assert (
            game_list(
                results[mine],
                rows["opponent_rating"][mine],
                rows["opponent"][mine],
                rows["played_at"][mine],
                BRIDGE,
                NOW_STAMP,
            )
            == games
        )


# --- pairing participant entries into games, against the rows in their stated order -------


Entries = list[tuple[MatchRecord, ParticipantRecord]]


def paired_entries(
    matches: list[MatchRecord], shuffle: Random | None = None
) -> tuple[Entries, Pairing]:
    """The matches' participants as entries (shuffled: the storage reads them in no
    particular order), and their Pairing, sides coded per match."""
    entries = [(match, p) for match in matches for p in match.participants]
    if shuffle is not None:
        shuffle.shuffle(entries)
    codes: dict[tuple[int, Hashable], int] = {}
    return entries, Pairing(
        np.array([match.match_id for match, _ in entries], dtype=np.int64),
        np.array([match.played_at.timestamp() for match, _ in entries], dtype=np.float64),
        np.array([p.user_id for _, p in entries], dtype=np.int64),
        np.array(
            [codes.setdefault((m.match_id, p.side), len(codes)) for m, p in entries],
            dtype=np.int64,
        ),
    )


@settings(max_examples=150, deadline=None)
@given(applied_matches(), st.randoms(use_true_random=False), st.sets(st.sampled_from(USER_IDS)))
def test_pairing_gives_the_stored_rows_of_the_members_asked_for(
    matches: list[MatchRecord], shuffle: Random, members: set[int]
) -> None:
    entries, pairing = paired_entries(matches, shuffle)
    mine, theirs = pairing.games(sorted(members))
    paired = {
        "member": [entries[i][1].user_id for i in mine],
        "played_at": [entries[i][0].played_at.timestamp() for i in mine],
        "opponent": [entries[i][1].user_id for i in theirs],
        "score": [entries[i][1].score for i in mine],
        "opponent_score": [entries[i][1].score for i in theirs],
        "opponent_rating": [entries[i][1].rating_before for i in theirs],
    }
    rows = stored_rows(matches)
    asked = np.isin(rows["member"], sorted(members))
    assert paired == {name: rows[name][asked].tolist() for name in paired}


@settings(max_examples=150, deadline=None)
@given(applied_matches(), st.randoms(use_true_random=False))
def test_game_arrays_of_every_member_equal_the_literal_model(
    matches: list[MatchRecord], shuffle: Random
) -> None:
    """The vectorized games of all members at once (Pairing.game_arrays, what a whole
    guild's performances are computed from) are each member's game list by the literal
    model: results, opponents' ratings in Elo units, the same opponent the same code."""
    entries, pairing = paired_entries(matches, shuffle)

    def column(values: list[float]) -> np.ndarray:
        return pairing.in_match_order(np.array(values, dtype=np.float64))

    members = list(USER_IDS)  # ascending; some may have played no match: an empty segment
    arrays = pairing.game_arrays(
        members,
        column([p.score for _, p in entries]),
        column([p.minutes for _, p in entries]),
        column([BRIDGE.to_elo(p.rating_before) for _, p in entries]),
    )
    reference = GameArrays.from_game_lists(reference_game_lists(matches, members))
    assert arrays.offsets.tolist() == reference.offsets.tolist()
    assert arrays.results.tolist() == reference.results.tolist()
    assert arrays.ratings.tolist() == reference.ratings.tolist()
    for start, stop in pairwise(arrays.offsets.tolist()):  # the same opponent, the same code
        codes = arrays.opponents[start:stop]
        reference_codes = reference.opponents[start:stop]
        assert (codes[:, None] == codes[None, :]).tolist() == (
            reference_codes[:, None] == reference_codes[None, :]
        ).tolist()


@settings(max_examples=100, deadline=None)
@given(applied_matches(), st.integers(1, 30))
def test_blocks_split_the_members_without_changing_their_games(
    matches: list[MatchRecord], pairs: int
) -> None:
    _, pairing = paired_entries(matches)
    members = sorted(USER_IDS)
    blocks = pairing.blocks(members, pairs)
    assert [member for block in blocks for member in block] == members
    whole = pairing.games(members)
    parts = [pairing.games(block) for block in blocks]
    assert (
        np.concatenate(whole).tolist()
        == np.concatenate([part[0] for part in parts] + [part[1] for part in parts]).tolist()
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 30),  # match id: equal ids are one match, in any order
            st.sets(st.integers(1, 2**62), min_size=1, max_size=32),  # its users
        ),
        max_size=25,
    ),
    st.randoms(use_true_random=False),
)
def test_match_order_sorts_as_the_lexsort_of_every_entry(
    matches: list[tuple[int, set[int]]], shuffler: Random
) -> None:
    """Sorting matches, then each match's users in a table, orders the entries exactly as
    sorting every entry by (newest played, newest id, user) does; played times tie."""
    played = {match_id: float(match_id % 4) for match_id, _ in matches}
    users = {match_id: sorted(members) for match_id, members in reversed(matches)}
    entries = [(match_id, user) for match_id, members in users.items() for user in members]
    shuffler.shuffle(entries)
    match_id = np.array([match for match, _ in entries], dtype=np.int64)
    user_id = np.array([user for _, user in entries], dtype=np.int64)
    played_at = np.array([played[match] for match, _ in entries], dtype=np.float64)
    expected = np.lexsort((user_id, -match_id, -played_at))
    assert match_order(match_id, played_at, user_id).tolist() == expected.tolist()
