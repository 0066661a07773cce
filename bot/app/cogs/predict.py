"""/predict: the chance that a beats b, from the ladder and from the performance ratings."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.embeds import prediction_embed
from bot.app.members import guild_of, member_info
from bot.app.replies import defer


class Predict(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="predict", description="The chance that member a beats member b")
    @app_commands.guild_only()
    @app_commands.describe(a="The first member", b="The second member")
    async def predict(
        self, interaction: discord.Interaction[LadderBot], a: discord.Member, b: discord.Member
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)  # the performance ratings are computed from both game lists
        await self.bot.ladder.upsert_members(guild_id, [member_info(a), member_info(b)])
        prediction = await self.bot.ladder.predict(guild_id, a.id, b.id)
        await interaction.edit_original_response(embed=prediction_embed(prediction))


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Predict(bot))
