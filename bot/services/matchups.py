"""Use cases around who plays whom (SPEC 9.5): head to head and team balance. They read the
log and change nothing in it; they build on the standings (reusing /predict).

Decisions the spec leaves open:
- Head to head counts applied matches in which both members were rated on different sides
  (the games of SPEC 3.3); a's win, draw or loss against b is the step-4 comparison of their
  own scores per minute, whoever else played.
- Balance rates guests and members without a record at initial_rating, and members who left
  the ladder at their last rating; bots are refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from bot.ratings.balance import MAX_PLAYERS, MAX_TEAMS, MIN_PLAYERS, MIN_TEAMS, balance_teams
from bot.ratings.ladder import Outcome, rate_order
from bot.services.context import ServiceContext, use_cases
from bot.services.core import elo_bridge, ladder_rating
from bot.services.errors import N_, UserError
from bot.services.lineup import Player, parse_team
from bot.services.standings import Prediction, Standings
from bot.storage import Match, Member

RECENT_MEETINGS: Final = 5
RESULTS: Final[dict[int, Outcome]] = {1: "win", 0: "draw", -1: "loss"}


@dataclass(frozen=True, slots=True)
class Meeting:
    match: Match
    result: Outcome
    """a's result against b in the match."""


@dataclass(frozen=True, slots=True)
class HeadToHead:
    prediction: Prediction
    """/predict's ladder and performance chances that a beats b."""
    wins: int
    draws: int
    losses: int
    """a's record against b."""
    recent: tuple[Meeting, ...]
    """Their last meetings, newest first."""


@dataclass(frozen=True, slots=True)
class TeamMember:
    player: Player
    name: str
    """Display name of a member as last seen, or the guest's name."""
    rating: float


@dataclass(frozen=True, slots=True)
class Team:
    players: tuple[TeamMember, ...]
    average: float
    """Average ladder rating (the Elo average converted back: the map is affine)."""
    win_probability: float
    """Mean ladder P against the other teams (for two teams, P)."""


@dataclass(frozen=True, slots=True)
class TeamBalance:
    teams: tuple[Team, ...]
    """The strongest team first."""
    exact: bool
    """False beyond bot.ratings.balance.EXACT_MAX_PLAYERS: the heuristic's answer."""


def parse_players(text: str) -> tuple[Player, ...]:
    """The players of /balance: mentions and guest names, split by spaces or commas."""
    if not text.strip():
        raise UserError(N_("players is empty: mention the members and write the guests' names"))
    return parse_team(text)


def check_players(players: Sequence[Player], teams: int) -> None:
    """The refusals of /balance that need no database: counts and duplicates."""
    if not MIN_TEAMS <= teams <= MAX_TEAMS:
        raise UserError(
            N_("teams {value} must be from {low} to {high}"),
            value=repr(teams),
            low=MIN_TEAMS,
            high=MAX_TEAMS,
        )
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise UserError(
            N_("player count {value} must be from {low} to {high}"),
            value=len(players),
            low=MIN_PLAYERS,
            high=MAX_PLAYERS,
        )
    if teams > len(players):
        raise UserError(
            N_("teams {value} must be at most the number of players ({players})"),
            value=teams,
            players=len(players),
        )
    seen: set[Player] = set()
    for player in players:
        if player in seen:
            raise UserError(
                N_("{player} is listed twice; list every player once"), player=player.label
            )
        seen.add(player)


def meeting_results(matches: Sequence[Match], a: int, b: int) -> list[Outcome]:
    """a's result against b (SPEC 2.3 step 4) in each of the matches both played."""
    if not matches:
        return []
    rows = [
        [(p.score, p.minutes) for user in (a, b) for p in match.participants if p.user_id == user]
        for match in matches
    ]
    mine, theirs = np.array([row[0] for row in rows]).T, np.array([row[1] for row in rows]).T
    order = rate_order(mine[0], mine[1], theirs[0], theirs[1])
    return [RESULTS[int(sign)] for sign in order]


@use_cases()
class Matchups:
    """Head to head and team balance."""

    def __init__(self, context: ServiceContext, standings: Standings) -> None:
        self.context = context
        self.standings = standings

    async def head_to_head(
        self, guild_id: int, a: int, b: int, recent: int = RECENT_MEETINGS
    ) -> HeadToHead:
        if a == b:
            raise UserError(N_("a and b are the same member; pick two different members"))
        async with self.context.db.snapshot() as read:
            for member in await read.members_by_id(guild_id, [a, b]):
                _refuse_bot(member)
            prediction = await self.standings.predict(guild_id, a, b)
            meetings = await read.head_to_head(guild_id, a, b)
        results = meeting_results(meetings, a, b)
        return HeadToHead(
            prediction,
            results.count("win"),
            results.count("draw"),
            results.count("loss"),
            tuple(Meeting(*pair) for pair in zip(meetings[:recent], results, strict=False)),
        )

    async def balance(
        self, guild_id: int, players: Sequence[Player], teams: int = 2
    ) -> TeamBalance:
        """Split the players into `teams` teams as evenly as the ladder predicts."""
        check_players(players, teams)
        ids = [p.user_id for p in players if p.user_id is not None]
        async with self.context.db.snapshot() as read:
            settings = await self.context.settings(guild_id)
            known = {m.user_id: m for m in await read.members_by_id(guild_id, ids)}
        listed = []
        for player in players:
            member = known.get(player.user_id) if player.user_id is not None else None
            if member is not None:
                _refuse_bot(member)
                listed.append(TeamMember(player, member.name, ladder_rating(member, settings)))
            else:
                listed.append(TeamMember(player, player.label, settings.initial_rating))
        bridge = elo_bridge(settings)
        ratings = bridge.to_elo(np.array([entry.rating for entry in listed]))
        result = balance_teams(ratings, teams)
        return TeamBalance(
            tuple(
                Team(tuple(listed[i] for i in members), float(bridge.from_elo(average)), float(p))
                for members, average, p in zip(
                    result.teams, result.averages, result.win_probability, strict=True
                )
            ),
            result.exact,
        )


def _refuse_bot(member: Member) -> None:
    if member.is_bot:
        raise UserError(
            N_("{member} is a bot; bots have no place in the ladder"),
            member=f"<@{member.user_id}>",
        )
