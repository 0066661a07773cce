"""The webhook events (SPEC 14) a write reports, named in its transaction and written to the
outbox by the one write path (bot.services.context) before it commits.

A match's or season's change names its events through its Change (`change_events`); the
queue use cases add theirs to the write (`Unit.events`), since one queue write may
join, pop and make teams at once. An event holds references only (match, lobby, queue,
member); the facts are read when the transaction ends (bot.services.webhooks), so the
snapshot is the state that commits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.services.changes import Change

EVENTS: Final = (
    "match.reported",
    "match.applied",
    "match.disputed",
    "match.voided",
    "match.edited",
    "queue.joined",
    "queue.left",
    "lobby.popped",
    "lobby.teams",
    "lobby.closed",
    "season.started",
)
TEST_EVENT: Final = "webhook.test"
"""What `webhook test` sends, to the one webhook named, whatever it subscribed to."""

_CHANGE_EVENTS: Final = {
    "reported": "match.reported",
    "applied": "match.applied",
    "disputed": "match.disputed",
    "cancelled": "match.voided",  # a report withdrawn becomes void (its reason says so)
    "voided": "match.voided",
    "edited": "match.edited",
    "season_started": "season.started",
}


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """An event of a write: its name, and what its facts are read from."""

    name: str
    match_id: int | None = None
    lobby_id: int | None = None
    queue_id: int | None = None
    user_id: int | None = None
    webhook_id: int | None = None
    """Only this webhook gets it (a test)."""
    reason: str | None = None
    """Why a member left a queue ("left", "expired", "removed"), or joined one again
    ("back": put back by a dissolved lobby)."""


def change_events(change: Change) -> list[PendingEvent]:
    """The events a match's or season's change reports."""
    name = _CHANGE_EVENTS.get(change.kind)
    return [] if name is None else [PendingEvent(name, match_id=change.match_id)]
