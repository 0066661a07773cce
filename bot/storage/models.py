"""What the database holds, as frozen dataclasses (no SQL here; see database.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MatchStatus = Literal["pending", "disputed", "applied", "void"]
Outcome = Literal["win", "draw", "loss"]

LogKey = tuple[float, int]
"""A match's place in the guild's log: (applied_at, id); applied matches sort by it."""


@dataclass(frozen=True, slots=True)
class Member:
    guild_id: int
    user_id: int
    name: str
    is_bot: bool
    enabled: bool
    rating: float | None
    """None until the member's first applied match (then initial_rating is the start)."""
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class MemberInfo:
    """What the front end sees of a Discord user: id, display name, bot flag."""

    user_id: int
    name: str
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class NewParticipant:
    user_id: int | None
    guest: str | None
    side: str
    score: float
    minutes: float
    enabled: bool
    outcome: Outcome | None
    """Win/draw/loss of an enabled participant (the record); None when not rated."""


@dataclass(frozen=True, slots=True)
class NewMatch:
    reporter_id: int | None
    created_at: float
    played_at: float
    request_id: str
    participants: tuple[NewParticipant, ...]


@dataclass(frozen=True, slots=True)
class Participant:
    position: int
    user_id: int | None
    guest: str | None
    name: str
    """The member's display name as last seen, or the guest's name."""
    side: str
    score: float
    minutes: float
    enabled: bool
    outcome: Outcome | None
    rating_before: float | None
    rating_after: float | None

    @property
    def change(self) -> float | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


@dataclass(frozen=True, slots=True)
class Match:
    id: int
    guild_id: int
    status: MatchStatus
    reporter_id: int | None
    created_at: float
    """Unix seconds (UTC) of the report."""
    played_at: float
    applied_at: float | None
    """Unix seconds of confirmation (imports: played_at); with id, the log order."""
    request_id: str
    channel_id: int | None
    message_id: int | None
    void_reason: str | None
    disputed_by: int | None
    participants: tuple[Participant, ...]

    @property
    def log_key(self) -> LogKey | None:
        return None if self.applied_at is None else (self.applied_at, self.id)


@dataclass(frozen=True, slots=True)
class LogRow:
    """One enabled participant of one applied match, in log order (for replays)."""

    match_id: int
    position: int
    user_id: int
    side: str
    score: float
    minutes: float
    rating_before: float | None


@dataclass(frozen=True, slots=True)
class LiveBoard:
    guild_id: int
    channel_id: int
    message_id: int | None
    edited_at: float | None
