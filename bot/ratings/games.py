"""From applied matches to one member's game list (SPEC 3.2 and 3.3).

Each match in which the member was enabled gives one game per enabled participant on another
side: the result of the score-per-hour comparison, the opponent's ladder rating before the
match, the opponent's user id as name, and the whole days since the match. Ratings stay in
ladder units; converting them to Elo units is the caller's job.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from bot.ratings.gamelist import Game
from bot.ratings.ladder import pair_results

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class ParticipantRecord:
    """One enabled participant of an applied match, with the rating it had before it."""

    user_id: int
    side: Hashable
    score: float
    minutes: float
    rating_before: float


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One applied match: when it was played and its enabled participants."""

    match_id: int
    played_at: datetime
    participants: tuple[ParticipantRecord, ...]


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are UTC (the log stores UTC), so naive and aware compare cleanly."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def whole_days_between(earlier: datetime, later: datetime) -> int:
    """Whole days from earlier to later; 0 if earlier is (by clock skew) in the future."""
    return max(0, (as_utc(later) - as_utc(earlier)) // ONE_DAY)


def match_games(member: int, match: MatchRecord, now: datetime) -> list[Game]:
    """The member's games in one match: one per opponent on another side, by user id."""
    participants = sorted(match.participants, key=lambda participant: participant.user_id)
    ids = [participant.user_id for participant in participants]
    if member not in ids:
        raise ValueError(f"match {match.match_id}: member {member} is not an enabled participant")
    me = ids.index(member)
    results = pair_results(
        np.array([participant.score for participant in participants], dtype=np.float64),
        np.array([participant.minutes for participant in participants], dtype=np.float64),
    )[me]
    days = float(whole_days_between(match.played_at, now))
    return [
        Game(float(result), opponent.rating_before, str(opponent.user_id), days)
        for opponent, result in zip(participants, results, strict=True)
        if opponent.side != participants[me].side
    ]


def member_games(member: int, matches: Iterable[MatchRecord], now: datetime) -> list[Game]:
    """The member's game list, newest match first (ties: the later match id first)."""
    newest_first = sorted(
        matches, key=lambda match: (as_utc(match.played_at), match.match_id), reverse=True
    )
    return [game for match in newest_first for game in match_games(member, match, now)]
