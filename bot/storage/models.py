"""What the database holds, as frozen dataclasses (no SQL here; see database.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import numpy as np

from bot.ratings.arrays import BoolArray as BoolArray  # re-exported: the storage columns
from bot.ratings.arrays import FloatArray as FloatArray
from bot.ratings.arrays import IntArray as IntArray
from bot.ratings.arrays import ObjectArray as ObjectArray
from bot.ratings.ladder import Outcome as Outcome  # re-exported: stored with each participant

MatchStatus = Literal["pending", "disputed", "applied", "void"]


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

    def __post_init__(self) -> None:
        """The name as Discord sent it, but U+0000, which PostgreSQL cannot store (SPEC 7)."""
        if "\x00" in self.name:
            object.__setattr__(self, "name", self.name.replace("\x00", ""))


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
    rating_before: float | None = None
    rating_after: float | None = None
    """Set when the match is stored already applied."""


@dataclass(frozen=True, slots=True)
class NewMatch:
    reporter_id: int | None
    created_at: float
    played_at: float
    request_id: str
    participants: tuple[NewParticipant, ...]
    import_key: str | None = None
    """An imported match's CSV `match` label (SPEC 8.3)."""

    def rated(self, ratings: Mapping[int, tuple[float, float]]) -> NewMatch:
        """The match with its rated members' (rating before, rating after), by user id."""
        return replace(
            self,
            participants=_with_ratings(self.participants, ratings),
        )

    def stored(
        self,
        match_id: int,
        guild_id: int,
        status: MatchStatus,
        applied_at: float | None,
        names: Mapping[int, str],
    ) -> Match:
        """The match as the database now holds it (names: display names by user id)."""
        return Match(
            match_id,
            guild_id,
            status,
            self.reporter_id,
            self.created_at,
            self.played_at,
            applied_at,
            self.request_id,
            None,
            None,
            None,
            None,
            tuple(
                Participant(
                    position,
                    p.user_id,
                    p.guest,
                    names[p.user_id] if p.user_id is not None else p.guest or "",
                    p.side,
                    p.score,
                    p.minutes,
                    p.enabled,
                    p.outcome,
                    p.rating_before,
                    p.rating_after,
                )
                for position, p in enumerate(self.participants)
            ),
            self.import_key,
        )


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
    import_key: str | None = None
    """An imported match's CSV `match` label (SPEC 8.3)."""

    @property
    def log_key(self) -> LogKey | None:
        return None if self.applied_at is None else (self.applied_at, self.id)

    def applied(self, applied_at: float, ratings: Mapping[int, tuple[float, float]]) -> Match:
        """The match once applied: ratings are (before, after) of its rated members."""
        return replace(
            self,
            status="applied",
            applied_at=applied_at,
            participants=_with_ratings(self.participants, ratings),
        )


@dataclass(frozen=True, slots=True)
class LogColumns:
    """The enabled participants of applied matches in log order, as columns (one entry per
    participant, a match's entries consecutive): what a replay reads, without a Python
    object per participant."""

    match_id: IntArray
    position: IntArray
    user_id: IntArray
    side: IntArray
    """A code per side label: within a match, equal labels have equal codes."""
    score: FloatArray
    minutes: FloatArray
    rating_before: FloatArray
    rating_after: FloatArray
    """The stored ratings; nan where none is stored (a match imported, not yet replayed)."""

    def __len__(self) -> int:
        return len(self.match_id)

    def match_firsts(self) -> IntArray:
        """The index of each match's first entry."""
        if not len(self):
            return np.zeros(0, np.int64)
        return np.flatnonzero(np.r_[True, self.match_id[1:] != self.match_id[:-1]])


@dataclass(frozen=True, slots=True)
class MemberColumns:
    """A guild's members as columns, by ascending user id (what a replay compares)."""

    user_id: IntArray
    rating: FloatArray
    """nan: no rating."""
    games: IntArray
    wins: IntArray
    draws: IntArray
    losses: IntArray


@dataclass(frozen=True, slots=True)
class Roster:
    """A guild's members' names and records as columns, by ascending user id (what a
    whole leaderboard shows of each)."""

    user_id: IntArray
    name: ObjectArray
    games: IntArray
    wins: IntArray
    draws: IntArray
    losses: IntArray


@dataclass(frozen=True, slots=True)
class NewMatchColumns:
    """Applied matches stored in bulk (an import), as columns: per match, and per
    participant (match after match, in position order). Records set, no ratings yet (the
    replay after the insert writes them)."""

    created_at: float
    played_at: FloatArray
    """Also each match's applied_at: an import merges into the log by time."""
    request_ids: list[str]
    import_keys: list[str]
    firsts: IntArray
    """Each match's first participant, then the participant count."""
    user_ids: IntArray
    """0 for a guest."""
    guests: ObjectArray
    sides: ObjectArray
    scores: FloatArray
    minutes: FloatArray
    enabled: BoolArray
    outcomes: ObjectArray
    """Each enabled participant's record (win, draw, loss); None for the others."""

    def __len__(self) -> int:
        return len(self.request_ids)


@dataclass(frozen=True, slots=True)
class KeyedMatch:
    """A stored match found by its import key (or id): what an import compares."""

    id: int
    import_key: str | None
    played_at: float
    players: tuple[tuple[int | None, str | None], ...]
    """(user id, guest name) of each participant, in position order."""


@dataclass(frozen=True, slots=True)
class ChangedEntries:
    """Log entries whose ratings a replay changed: the replay's columns (every entry from
    where it started) and the places of the changed ones, gathered a block at a time as they
    are written, so that a replay changing millions of ratings holds no copy of them all."""

    match_id: IntArray
    position: IntArray
    before: FloatArray
    after: FloatArray
    places: IntArray

    def __len__(self) -> int:
        return len(self.places)

    def where(self, chosen: BoolArray) -> ChangedEntries:
        """The changed entries that `chosen` (one flag per changed entry) picks."""
        return replace(self, places=self.places[chosen])

    def gathered(self) -> tuple[IntArray, IntArray, FloatArray, FloatArray]:
        """(match_id, position, before, after) of every changed entry."""
        at = self.places
        return self.match_id[at], self.position[at], self.before[at], self.after[at]

    def blocks(self, size: int) -> Iterator[tuple[IntArray, IntArray, FloatArray, FloatArray]]:
        """`gathered`, up to `size` changed entries at a time."""
        for first in range(0, len(self.places), size):
            yield replace(self, places=self.places[first : first + size]).gathered()


@dataclass(frozen=True, slots=True)
class MeasuredColumns:
    """A guild's members by ascending user id, as columns, with their cached measure: what a
    leaderboard filters and ranks by (its page's names and records are read for its rows)."""

    user_id: IntArray
    rating: FloatArray
    """nan: no applied match yet."""
    games: IntArray
    rankable: BoolArray
    """Enabled and not a bot."""
    cached: BoolArray
    """The measure is in the cache."""
    value: FloatArray
    """The cached measure; nan when not cached (or undefined)."""


@dataclass(frozen=True, slots=True)
class PlayedColumns:
    """Enabled participants of applied matches with when each match was played, as columns
    (one entry per participant, not per pair of opponents): what members' games are built
    from (bot.ratings.games.Pairing), in no particular order."""

    match_id: IntArray
    played_at: FloatArray
    user_id: IntArray
    side: IntArray
    """A code per side label: within a match, equal labels have equal codes."""
    score: FloatArray
    minutes: FloatArray
    rating_before: FloatArray
    """The ladder rating before the match; nan where none is stored."""


@dataclass(frozen=True, slots=True)
class Performance:
    """A cached measure of one member, in ladder units: the performance rating with its
    stability (±inf, or nan when undefined; up and down nan then), or RA (up, down nan)."""

    value: float
    up: float
    down: float


@dataclass(frozen=True, slots=True)
class LiveBoard:
    guild_id: int
    channel_id: int
    message_id: int | None
    edited_at: float | None


_Rated = TypeVar("_Rated", NewParticipant, Participant)


def _with_ratings(
    participants: tuple[_Rated, ...], ratings: Mapping[int, tuple[float, float]]
) -> tuple[_Rated, ...]:
    """The participants with the (before, after) ratings of the rated members set."""
    return tuple(
        p
        if p.user_id is None or p.user_id not in ratings
        else replace(p, rating_before=ratings[p.user_id][0], rating_after=ratings[p.user_id][1])
        for p in participants
    )


@dataclass(frozen=True, slots=True)
class MatchEdit:
    """One /admin edit of a match: when, by whom, and the lineup it replaced (SPEC 9.4)."""

    edited_at: float
    editor_id: int | None
    old_lineup: str
