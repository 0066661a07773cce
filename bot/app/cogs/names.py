"""Display names kept current from Discord (SPEC 9.5): whenever members are seen, the names
of those the ladder knows are updated, so imported members show by name too. The guild's own
name likewise, for its web pages (SPEC 11.2)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, cast

import discord
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.members import member_info

log = logging.getLogger(__name__)


class Names(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot
        self._guild_names: dict[int, str] = {}
        """The name stored for each guild, as far as this process knows."""

    async def learn_guild_name(self, guild: discord.Guild) -> None:
        """Store the guild's name if it is stored under another (read once per process)."""
        if self._guild_names.get(guild.id) == guild.name:
            return
        if await self.bot.services.settings.learn_guild_name(guild.id, guild.name):
            self._guild_names[guild.id] = guild.name

    async def learn(self, guild: discord.Guild, members: Iterable[discord.abc.User]) -> None:
        changed = await self.bot.services.members.learn_names(guild.id, map(member_info, members))
        if changed:
            log.info("guild %d: %d member names updated", guild.id, changed)

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """After (re)connecting the guilds are chunked (members intent): every name."""
        for guild in self.bot.guilds:
            await self.learn(guild, guild.members)
            await self.learn_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.learn(guild, await guild.chunk() if not guild.chunked else guild.members)
        await self.learn_guild_name(guild)

    @commands.Cog.listener()
    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        await self.learn_guild_name(after)

    @commands.Cog.listener()
    async def on_member_join(self, member: discord.Member) -> None:
        await self.learn(member.guild, [member])

    @commands.Cog.listener()
    async def on_member_update(self, before: discord.Member, after: discord.Member) -> None:
        if before.display_name != after.display_name:
            await self.learn(after.guild, [after])

    @commands.Cog.listener()
    async def on_user_update(self, before: discord.User, after: discord.User) -> None:
        """A new global name shows in every server where the user has no nickname."""
        for guild in after.mutual_guilds:
            member = guild.get_member(after.id)
            if member is not None:
                await self.learn(guild, [member])

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[LadderBot]) -> None:
        """The caller and the members named in the command's options."""
        guild = interaction.guild
        if guild is None:
            return
        data = cast("dict[str, Any]", interaction.data or {})  # a TypedDict union
        resolved = data.get("resolved", {})
        named = [guild.get_member(int(user_id)) for user_id in resolved.get("members", {})]
        seen = [interaction.user, *(member for member in named if member is not None)]
        await self.learn(guild, seen)
        await self.learn_guild_name(guild)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Names(bot))
