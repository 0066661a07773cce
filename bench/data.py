"""Seeded workloads: a columnar match log (one row per participant) and members' game lists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

PLAYERS_PER_MATCH = 8
SCORE_RANGE = (0, 40)
"""Integer scores, so equal scores per hour (a 0.5 result) happen now and then."""
MINUTES_RANGE = (5, 30)
"""Whole minutes: some above max_game_length (20), so the time caps matter."""


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A flat match log: row i is one participant of match `match[i]`; rows grouped by match,
    every match with players_per_match rows. side is a label within the match.
    """

    match: NDArray[np.integer[Any]]
    player: NDArray[np.integer[Any]]
    side: NDArray[np.integer[Any]]
    score: NDArray[np.float64]
    minutes: NDArray[np.float64]
    member_count: int
    players_per_match: int = PLAYERS_PER_MATCH

    @property
    def match_count(self) -> int:
        return len(self.match) // self.players_per_match

    def head(self, match_count: int) -> MatchLog:
        """The first match_count matches (rows are grouped by match)."""
        return self.matches(0, match_count)

    def matches(self, first: int, stop: int) -> MatchLog:
        """Matches first..stop-1 of the log, keeping their match numbers."""
        rows = slice(first * self.players_per_match, stop * self.players_per_match)
        return MatchLog(
            self.match[rows],
            self.player[rows],
            self.side[rows],
            self.score[rows],
            self.minutes[rows],
            self.member_count,
            self.players_per_match,
        )


def compact(log: MatchLog) -> MatchLog:
    """The same log with the smallest integer types that hold it (int32 match and player,
    int8 side): what a memory-minded caller would pass."""
    return MatchLog(
        log.match.astype(np.int32),
        log.player.astype(np.int32),
        log.side.astype(np.int8),
        log.score,
        log.minutes,
        log.member_count,
        log.players_per_match,
    )


def distinct_players(
    rng: np.random.Generator, match_count: int, member_count: int, per_match: int
) -> NDArray[np.int64]:
    """match_count x per_match member indices, distinct within a match (clashing rows redrawn)."""
    players = rng.integers(0, member_count, size=(match_count, per_match))
    while True:
        ordered = np.sort(players, axis=1)
        clashing = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if clashing.size == 0:
            return players
        players[clashing] = rng.integers(0, member_count, size=(clashing.size, per_match))


def match_log(match_count: int, member_count: int = 10_000, seed: int = 2024) -> MatchLog:
    """Half 4v4 team games, half 8-way free-for-alls, shuffled; random scores and minutes."""
    rng = np.random.default_rng(seed)
    free_for_all = rng.permutation(np.arange(match_count) % 2 == 1)
    team_sides = np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int64)
    own_sides = np.arange(PLAYERS_PER_MATCH, dtype=np.int64)
    side = np.where(free_for_all[:, None], own_sides, team_sides)
    shape = (match_count, PLAYERS_PER_MATCH)
    score = rng.integers(SCORE_RANGE[0], SCORE_RANGE[1] + 1, size=shape).astype(np.float64)
    minutes = rng.integers(MINUTES_RANGE[0], MINUTES_RANGE[1] + 1, size=shape).astype(np.float64)
    return MatchLog(
        match=np.repeat(np.arange(match_count, dtype=np.int64), PLAYERS_PER_MATCH),
        player=distinct_players(rng, match_count, member_count, PLAYERS_PER_MATCH).ravel(),
        side=side.ravel(),
        score=score.ravel(),
        minutes=minutes.ravel(),
        member_count=member_count,
    )


def duel_log(match_count: int, member_count: int = 1_000, seed: int = 99) -> MatchLog:
    """Duels as reported without scores (SPEC 2.4): winner 1, loser 0, about 5% draws (0, 0),
    both for the same whole minutes."""
    rng = np.random.default_rng(seed)
    draw = rng.random(match_count) < 0.05
    score = np.zeros((match_count, 2))
    score[~draw, 0] = 1.0
    minutes = rng.integers(MINUTES_RANGE[0], MINUTES_RANGE[1] + 1, size=match_count)
    return MatchLog(
        match=np.repeat(np.arange(match_count, dtype=np.int64), 2),
        player=distinct_players(rng, match_count, member_count, 2).ravel(),
        side=np.tile(np.array([0, 1], dtype=np.int64), match_count),
        score=score.ravel(),
        minutes=np.repeat(minutes.astype(np.float64), 2),
        member_count=member_count,
        players_per_match=2,
    )


@dataclass(frozen=True, slots=True)
class GameLists:
    """Members' game lists (newest first) as flat arrays: member m owns rows [m·n, (m+1)·n)."""

    result: NDArray[np.float64]
    rating: NDArray[np.float64]
    opponent: NDArray[np.int64]
    games_per_member: int

    @property
    def member_count(self) -> int:
        return len(self.result) // self.games_per_member

    def member(self, index: int) -> slice:
        return slice(index * self.games_per_member, (index + 1) * self.games_per_member)


def game_lists(
    member_count: int,
    games_per_member: int = 100,
    pool_size: int = 2_000,
    opponents_per_member: int = 30,
    seed: int = 7,
) -> GameLists:
    """Each member plays games_per_member games against opponents drawn from a personal
    circle of opponents_per_member out of a pool (so opponents repeat); results 45% win,
    10% draw, 45% loss. Opponent ratings are fixed per pool player, about 1500 ± 300.
    """
    rng = np.random.default_rng(seed)
    pool_ratings = np.round(rng.normal(1500.0, 300.0, size=pool_size))
    circles = rng.integers(0, pool_size, size=(member_count, opponents_per_member))
    picks = rng.integers(0, opponents_per_member, size=(member_count, games_per_member))
    opponent = np.take_along_axis(circles, picks, axis=1).ravel()
    result = rng.choice(np.array([1.0, 0.5, 0.0]), p=[0.45, 0.1, 0.45], size=opponent.size)
    return GameLists(result, pool_ratings[opponent], opponent, games_per_member)
