"""The shared base of the use cases: the reads and refusals every concern needs, and the
replay of a guild's log that voiding, editing, settings, recomputing and importing share.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Final

import numpy as np

from bot.config import GuildSettings
from bot.ratings.elo import EloBridge
from bot.ratings.ladder import LadderSettings
from bot.services import seasons
from bot.services.changes import ChangeListener
from bot.services.context import ServiceContext, Unit
from bot.services.errors import UserError
from bot.services.lineup import Lineup
from bot.services.replaying import ratings_at_start, records_by_season, replay_log
from bot.storage import (
    LOG_START,
    Database,
    LogColumns,
    LogKey,
    Match,
    Member,
    MemberColumns,
    WriteTransaction,
)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a Discord user, and whether they have Manage Server."""

    user_id: int
    is_moderator: bool = False


def ladder_settings(settings: GuildSettings) -> LadderSettings:
    return LadderSettings(
        settings.t, settings.game_mult, settings.max_game_length, settings.initial_rating
    )


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


@dataclass(frozen=True, slots=True)
class _Replayed:
    matches: int
    member_ids: frozenset[int]
    """Members whose rating was rewritten."""


NOTHING_REPLAYED: Final = _Replayed(0, frozenset())


async def replay_guild(
    tx: WriteTransaction,
    guild_id: int,
    settings: GuildSettings,
    start: LogKey | None,
    seed: Mapping[int, float] | None = None,
    touched: Collection[int] = (),
) -> _Replayed:
    """Replay the applied matches from `start` (None: the whole guild) and store the
    ratings. A member's start rating: `seed`, else the rating_before of their first
    match in the replayed part, else their current rating (or initial_rating). `touched`:
    the members whose matches were added, voided or edited; their cached measures go, and
    a partial replay recounts their records (a whole-guild one counts everyone's)."""
    log = await tx.log_columns(guild_id, LOG_START if start is None else start)
    crossed = await tx.seasons_from(guild_id, LOG_START if start is None else start)
    members = await tx.member_columns(guild_id)
    boundaries = seasons.boundaries(log, crossed)
    if start is None:
        starts: dict[int, float] = {}
    elif crossed:  # season starts change everyone rated: start from their closings
        starts = await seasons.starts_across(tx, guild_id, log, crossed, seed or {})
    else:
        starts = await asyncio.to_thread(_starts, log, members, seed or {})
    # numpy work, off the event loop (SPEC 8.5); the records first, while the replay's
    # results take no memory yet
    records = (
        (await asyncio.to_thread(records_by_season, log, boundaries))[-1] if start is None else None
    )
    result = await asyncio.to_thread(replay_log, log, starts, ladder_settings(settings), boundaries)
    final: dict[int, float | None] = {**(seed or {}), **result.final}
    await tx.write_replay(guild_id, log, result.before, result.after, members, final, records)
    await seasons.store_closings(tx, guild_id, crossed, result)
    if start is not None and touched:
        await tx.recount_records(guild_id, list(touched))
    if touched:
        await tx.forget_performances(guild_id, touched)
    rewritten = members.user_id.tolist() if start is None else [*final, *touched]
    return _Replayed(len(log.match_firsts()), frozenset(rewritten))


def _starts(log: LogColumns, members: MemberColumns, seed: Mapping[int, float]) -> dict[int, float]:
    """The ratings where a replay from inside the log (crossing no season start) begins:
    `seed`, else each member's first stored rating before, else (matches imported after
    the member's last applied one) their current rating."""
    starts = {**ratings_at_start(log, (), {}, None), **seed}
    unseeded = np.setdiff1d(log.user_id, np.array(list(starts), np.int64))
    if not len(unseeded) or not len(members.user_id):
        return starts
    at = np.searchsorted(members.user_id, unseeded).clip(max=len(members.user_id) - 1)
    rating = members.rating[at]
    usable = (members.user_id[at] == unseeded) & ~np.isnan(rating)
    starts.update(zip(unseeded[usable].tolist(), rating[usable].tolist(), strict=True))
    return starts


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
