"""The shared base of the use cases: the reads and refusals every concern needs. The replay
of a guild's log that voiding, editing, settings, recomputing and importing share is
bot.services.replaying's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from bot.config import GuildSettings
from bot.ratings.elo import EloBridge
from bot.services.errors import N_, Phrase, UserError
from bot.services.lineup import Lineup
from bot.storage import (
    LogKey,
    Member,
    WriteTransaction,
)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a Discord user, and whether they have Manage Server."""

    user_id: int
    is_moderator: bool = False


def log_end_stamp(newest: LogKey | None, now: float) -> float:
    """The stamp that puts a new entry at the end of the log after `newest`: `now`, or the
    next float after the newest entry's when the clock is not past it."""
    return now if newest is None or now > newest[0] else math.nextafter(newest[0], math.inf)


def elo_bridge(settings: GuildSettings) -> EloBridge:
    return EloBridge(settings.t, settings.initial_rating)


def ladder_rating(member: Member, settings: GuildSettings) -> float:
    """The member's ladder rating; initial_rating before their first applied match."""
    return settings.initial_rating if member.rating is None else member.rating


def must_moderate(actor: Actor, what: str) -> None:
    """Refuse a member who is not a moderator; `what` (N_-marked) names the use case."""
    if not actor.is_moderator:
        raise UserError(N_("only moderators (Manage Server) can {what}"), what=Phrase(what))


async def _known_members(
    tx: WriteTransaction,
    guild_id: int,
    lineups: Iterable[Lineup],
    upserted: Iterable[Member] = (),
) -> dict[int, Member]:
    """The members playing in the lineups by user id: those just `upserted` from what the
    front end told us, the others created on first sight."""
    user_ids = {
        e.player.user_id for lineup in lineups for e in lineup if e.player.user_id is not None
    }
    known = {member.user_id: member for member in upserted}
    missing = user_ids - known.keys()
    if missing:
        known.update((member.user_id, member) for member in await tx.add_members(guild_id, missing))
    return {user_id: known[user_id] for user_id in user_ids}
