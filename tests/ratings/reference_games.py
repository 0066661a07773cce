"""SPEC 3.3 read literally, one match object at a time: the reference that the column
functions of bot.ratings.games are checked against.

Each match in which the member was enabled gives one game per enabled participant on another
side: the result of the score-per-hour comparison (bot.ratings.ladder.pair_results over the
whole match), the opponent's ladder rating before the match, the opponent's user id as name,
and the whole days since the match. Ratings stay in the units they are given in.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from bot.ratings.gamelist import Game
from bot.ratings.games import as_utc, whole_days_between
from bot.ratings.ladder import pair_results


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
