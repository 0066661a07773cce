"""Matches to one member's game list (SPEC 3.3)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.ratings.gamelist import Game, format_games
from bot.ratings.games import MatchRecord, ParticipantRecord, member_games, whole_days_between

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
