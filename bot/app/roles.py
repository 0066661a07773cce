"""Rank roles in Discord (SPEC 9.2): one worker per guild brings members' roles in line.

A change marks members (or the whole guild) as due; the guild's one worker (bot.app.workers)
then reads the
roles they hold from Discord (member.roles), asks the services which calls fix them, and
makes those calls one at a time. discord.py's HTTP client waits out Discord's rate limits
itself (it honours the X-RateLimit headers and a 429's retry_after, up to five tries); on top
of that nothing is dropped: a call that still fails marks its member due again and is retried
after RETRY_SECONDS. A burst of thousands of changes thus becomes one queue of calls, sent no
faster than Discord allows. Only the process owning a guild's shard does this (SPEC 8.4).

Discord reports a role call back through the gateway (GUILD_MEMBER_UPDATE) a moment later;
until then the calls this worker made are laid over member.roles, so a member touched again
meanwhile is judged by the roles they really hold.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import TYPE_CHECKING, Final

import aiohttp
import discord

from bot.app.workers import GuildWorkers
from bot.services.community import RoleCall

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)

RETRY_SECONDS: Final = 5.0
REASON: Final = "ladder rank role (SPEC 9.2)"


class RankRoles:
    """The role workers of the guilds this process owns."""

    def __init__(
        self,
        bot: LadderBot,
        report: Callable[[int, Sequence[RoleCall]], Awaitable[None]] | None = None,
    ) -> None:
        self.bot = bot
        self.community = bot.services.community
        self.report = report
        """Told of each batch of role calls made (the mod log)."""
        self._due: dict[int, set[int] | None] = {}  # guild -> members due (None: everyone)
        self.workers = GuildWorkers("the rank roles", self._step, retry_seconds=RETRY_SECONDS)
        self._made: dict[tuple[int, int], dict[int, bool]] = {}  # (guild, user) -> role: held

    def touch(self, guild_id: int, user_ids: Collection[int] | None) -> None:
        """These members' rank roles may be wrong (None: any member's)."""
        if not self.bot.config.discord.owns_guild(guild_id):
            return
        self._mark(guild_id, None if user_ids is None else set(user_ids))
        self.workers.touch(guild_id)

    def seen(self, guild_id: int, user_id: int) -> None:
        """Discord reported the member's roles: member.roles is true again."""
        self._made.pop((guild_id, user_id), None)

    async def idle(self) -> None:
        """Wait until every queued call has been made (tests)."""
        await self.workers.idle()

    async def close(self) -> None:
        await self.workers.close()

    async def _step(self, guild_id: int) -> float | None:
        """Make the due members' calls; RETRY_SECONDS when some are due again (failed)."""
        due = self._due.pop(guild_id, set())
        try:
            failed = await self._sync(guild_id, due)
        except Exception:
            self._mark(guild_id, due)
            raise
        if failed:
            self._mark(guild_id, failed)
            return RETRY_SECONDS
        return None

    def _mark(self, guild_id: int, user_ids: set[int] | None) -> None:
        due = self._due.get(guild_id, set())
        self._due[guild_id] = None if user_ids is None or due is None else due | user_ids

    def _held(self, guild: discord.Guild, due: set[int] | None) -> dict[int, list[int]]:
        members = (
            guild.members
            if due is None
            else [m for m in map(guild.get_member, due) if m is not None]
        )
        held = {}
        for member in members:
            roles = {role.id: True for role in member.roles}
            roles.update(self._made.get((guild.id, member.id), {}))
            held[member.id] = [role_id for role_id, has in roles.items() if has]
        return held

    async def _sync(self, guild_id: int, due: set[int] | None) -> set[int]:
        """The calls that fix the due members' roles; the members whose calls failed."""
        guild = self.bot.get_guild(guild_id)
        if guild is None:
            return set()
        calls = await self.community.role_calls(guild_id, self._held(guild, due), due)
        made: list[RoleCall] = []
        failed: set[int] = set()
        for call in calls:
            if call.user_id in failed:
                continue
            try:
                await self._call(guild_id, call)
            except (discord.Forbidden, discord.NotFound) as error:
                # Lasting: the role is out of the bot's reach, gone, or the member left.
                log.warning("rank role %s for %s in %s: %s", call, call.user_id, guild_id, error)
            except (TimeoutError, discord.HTTPException, aiohttp.ClientError) as error:
                log.warning("rank role call %s failed (%s); retrying", call, error)
                failed.add(call.user_id)
            else:
                made.append(call)
        if made and self.report is not None:
            await self.report(guild_id, made)
        return failed

    async def _call(self, guild_id: int, call: RoleCall) -> None:
        if call.add:
            await self.bot.http.add_role(guild_id, call.user_id, call.role_id, reason=REASON)
        else:
            await self.bot.http.remove_role(guild_id, call.user_id, call.role_id, reason=REASON)
        self._made.setdefault((guild_id, call.user_id), {})[call.role_id] = call.add
