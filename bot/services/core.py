"""The shared base of the use cases: the reads and refusals every concern needs. The replay
of a guild's log that voiding, editing, settings, recomputing and importing share is
bot.services.replaying's (replay_guild, imported here for them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from bot.config import GuildSettings
from bot.ratings.elo import EloBridge
from bot.services.changes import ChangeListener
from bot.services.context import ServiceContext, Unit
from bot.services.errors import UserError
from bot.services.lineup import Lineup
from bot.services.replaying import NOTHING_REPLAYED as NOTHING_REPLAYED
from bot.services.replaying import ladder_settings as ladder_settings
from bot.services.replaying import replay_guild as replay_guild
from bot.storage import (
    Database,
    Match,
    Member,
    WriteTransaction,
)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a Discord user, and whether they have Manage Server."""

    user_id: int
    is_moderator: bool = False


def elo_bridge(settings: GuildSettings) -> EloBridge:
    return EloBridge(settings.t, settings.initial_rating)


def ladder_rating(member: Member, settings: GuildSettings) -> float:
    """The member's ladder rating; initial_rating before their first applied match."""
    return settings.initial_rating if member.rating is None else member.rating


def _must_moderate(actor: Actor, what: str) -> None:
    if not actor.is_moderator:
        raise UserError(f"only moderators (Manage Server) can {what}")


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


class LadderCore:
    """What every use case shares: the service context (bot.services.context) over one
    database; `defaults` start every new guild."""

    def __init__(
        self,
        db: Database,
        defaults: GuildSettings,
        *,
        clock: Callable[[], float] = time.time,
        page_size: int = 10,
        edit_seconds: float = 60.0,
        fill_cache: bool = False,
        on_change: ChangeListener | None = None,
    ) -> None:
        self.context = ServiceContext(
            db,
            defaults,
            clock=clock,
            page_size=page_size,
            edit_seconds=edit_seconds,
            fill_cache=fill_cache,
            on_change=on_change,
        )
        self.db = db
        self.defaults = defaults
        self.clock = clock
        self.page_size = page_size
        self.edit_seconds = edit_seconds

    @property
    def on_change(self) -> ChangeListener | None:
        return self.context.on_change

    @on_change.setter
    def on_change(self, listener: ChangeListener | None) -> None:
        self.context.on_change = listener

    async def close(self) -> None:
        await self.context.close()

    async def cache_filled(self) -> None:
        """Wait for the cache fills started by earlier reads."""
        await self.context.cache_filled()

    def _write(self, guild_id: int) -> AbstractAsyncContextManager[Unit]:
        return self.context.write(guild_id)

    async def settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings; the defaults until its first write."""
        return await self.context.settings(guild_id)

    async def _member(self, guild_id: int, user_id: int) -> Member:
        return await self.context.member(guild_id, user_id)

    async def _load(self, tx: WriteTransaction, guild_id: int, match_id: int) -> Match:
        return await self.context.load(tx, guild_id, match_id)
