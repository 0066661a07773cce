"""/h2h: two members' record against each other, their chances and their last meetings."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.embeds import head_to_head_embed
from bot.app.members import guild_of, member_info
from bot.app.replies import defer
from bot.services.matchups import Matchups


class HeadToHeadCog(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="h2h", description="Two members' record against each other")
    @app_commands.guild_only()
    @app_commands.describe(a="The first member", b="The second member")
    async def h2h(
        self, interaction: discord.Interaction[LadderBot], a: discord.Member, b: discord.Member
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)  # the performance ratings are computed from both game lists
        await self.bot.ladder.upsert_members(guild_id, [member_info(a), member_info(b)])
        found = await Matchups(self.bot.ladder).head_to_head(guild_id, a.id, b.id)
        await interaction.edit_original_response(embed=head_to_head_embed(found))


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(HeadToHeadCog(bot))
