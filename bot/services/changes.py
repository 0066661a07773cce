"""The one change path: what a committed write changed, told to whoever listens.

Every write use case of the services, once its transaction has committed, reports one
`Change`. The change feed (bot.services.feed) tells it to the bot process that owns the
guild, whichever process made it (the command line included); the Discord front end turns it
into one event (`bot.dispatch("ladder_change", …)`) and reacts in one place per concern: the
live leaderboard, rank roles, the mod log, match and queue messages.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

ChangeKind = Literal[
    "reported",  # a match recorded as pending (nothing rated yet)
    "applied",  # a match applied at the end of the log
    "disputed",
    "cancelled",  # a pending or disputed match withdrawn by its reporter
    "voided",  # a match voided; its successors replayed
    "edited",  # a match's lineup replaced; its successors replayed
    "replayed",  # a whole-guild replay (recompute, rating settings)
    "imported",
    "settings",  # settings changed that change who is listed (min_games, …) or how
    "membership",  # a member joined or left the ladder
    "season_started",
    "queue",  # a queue, its waiting members or a lobby changed (SPEC 10)
    "rank_roles",  # rank roles added or a sync asked for: any member's role may be wrong
    "live_board",  # the live leaderboard moved to another channel
    "webhook_test",  # a test event queued for a webhook (wakes its delivery)
    "webhook_dropped",  # a webhook delivery given up, or a webhook gone (the mod log)
    "room_failed",  # a lobby's match room could not be made (the mod log)
]
STANDINGS_KINDS: Final = frozenset(
    {"applied", "voided", "edited", "replayed", "imported", "settings", "membership",
     "season_started"}
)  # fmt: skip
"""Kinds after which the standings (ratings, who is listed) may differ."""


@dataclass(frozen=True, slots=True)
class Change:
    guild_id: int
    kind: ChangeKind
    member_ids: frozenset[int] = frozenset()
    """Members whose rating, record or listing changed; empty with `everyone`."""
    everyone: bool = False
    """True when any member may have changed (replays, settings, season starts)."""
    match_id: int | None = None
    actor_id: int | None = None
    """Who made the change: a Discord user, COMMAND_LINE_ID, or None (the bot itself)."""
    detail: str = ""
    """One line for the mod log: a Notice's `stored()` text (why a lobby got no room, an
    edit's old lineup, …), or plain text shown as it is (a void's reason, the changed
    settings)."""

    @property
    def changes_standings(self) -> bool:
        """A kind that may change the standings, and some member did change (a pending match
        voided or a setting like confirm changed leaves the leaderboard as it was)."""
        return self.kind in STANDINGS_KINDS and (self.everyone or bool(self.member_ids))


COMMAND_LINE_ID: Final = 0
"""The actor id of the command line (no Discord user has id 0): its changes are shown as made
by "the command line" (SPEC 5)."""


ChangeListener = Callable[[Change], None]
"""Called after the commit, on the event loop; it must not block (schedule work instead)."""
