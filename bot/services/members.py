"""Members: names and bot flags as Discord shows them, joining and leaving the ladder (a
member who leaves is taken out of every queue at once, SPEC 10.1), finding a member by id,
mention or name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.errors import N_, UserError, free_text, quoted
from bot.services.lineup import MENTION, parse_id
from bot.services.queue_exits import take_out_of_queues
from bot.storage import Member, MemberInfo


@use_cases()
class Members:
    """Who is in the ladder: names and bot flags from Discord, joining and leaving."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def upsert(self, guild_id: int, members: Iterable[MemberInfo]) -> None:
        """Make sure the members have a ladder record with their name and bot flag as
        Discord shows them (a read command's members, before it reads). Only what is new or
        changed is written, in a small write of its own: when nothing changed, nothing is
        written and no write lock taken (SPEC 8.6)."""
        await self._write_names(guild_id, members, add=True)

    async def learn_names(self, guild_id: int, seen: Iterable[MemberInfo]) -> int:
        """Bring the stored names and bot flags of the members the ladder knows (players,
        imported members) up to date with what Discord shows; others are not added (being
        seen is no reason to be listed). Writes only what changed; returns how many."""
        return await self._write_names(guild_id, seen, add=False)

    async def _write_names(self, guild_id: int, seen: Iterable[MemberInfo], add: bool) -> int:
        """Write the names and bot flags that differ from the stored ones (and, with `add`,
        the members not stored yet); how many were written."""
        infos = {info.user_id: info for info in seen}
        if not infos:
            return 0
        known = {m.user_id: m for m in await self.context.db.read.members_by_id(guild_id, infos)}
        changed = [
            info
            for user_id, info in infos.items()
            if (
                add
                if (stored := known.get(user_id)) is None
                else (stored.name, stored.is_bot) != (info.name, info.is_bot)
            )
        ]
        if changed:
            async with self.context.write(guild_id) as unit:
                if add:
                    await unit.tx.ensure_guild(guild_id, self.context.defaults)
                await unit.tx.upsert_members(guild_id, changed)
        return len(changed)

    async def join(self, guild_id: int, member: MemberInfo) -> Member:
        return await self._set_enabled(guild_id, member, True)

    async def leave(self, guild_id: int, member: MemberInfo) -> Member:
        return await self._set_enabled(guild_id, member, False)

    async def _set_enabled(self, guild_id: int, info: MemberInfo, enabled: bool) -> Member:
        if info.is_bot:
            raise UserError(N_("bots cannot join the ladder"))
        async with self.context.write(guild_id) as unit:
            await unit.tx.ensure_guild(guild_id, self.context.defaults)
            (stored,) = await unit.tx.upsert_members(guild_id, [info])
            if not enabled:  # at once, so nobody waits for a lobby they would be refused
                why = N_("{members} left the ladder and the queue")
                if await take_out_of_queues(unit.tx, guild_id, [info.user_id], why, unit.events):
                    unit.change = Change(guild_id, "queue", actor_id=info.user_id)
            if stored.enabled == enabled:
                return stored
            await unit.tx.set_enabled(guild_id, info.user_id, enabled)
            unit.change = Change(
                guild_id,
                "membership",
                frozenset({info.user_id}),
                actor_id=info.user_id,
                detail="joined the ladder" if enabled else "left the ladder",
            )
        return replace(stored, enabled=enabled)

    async def find(self, guild_id: int, text: str) -> Member:
        """A member by user id, mention or display name (UserError if none or several)."""
        wanted = free_text(text, N_("the member")).strip()
        mention = MENTION.fullmatch(wanted)
        if mention or wanted.isdigit():  # any digits, so '²' is refused as an id, not a name
            user_id = parse_id(mention.group(1) if mention else wanted)
            member = await self.context.db.read.member(guild_id, user_id)
            if member is None:
                raise UserError(
                    N_("no member with id {user_id} in this server's ladder"), user_id=user_id
                )
            return member
        named = await self.context.db.read.members_named(guild_id, wanted)
        if not named:
            raise UserError(
                N_("no member named {name} in this server's ladder; try the user id"),
                name=quoted(wanted),
            )
        if len(named) > 1:
            ids = ", ".join(str(member.user_id) for member in named)
            raise UserError(
                N_("several members are named {name} (ids {ids}); give the user id"),
                name=quoted(wanted),
                ids=ids,
            )
        return named[0]
