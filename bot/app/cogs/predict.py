"""/predict and /h2h: two members side by side (chances, and their record against each other)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.embeds import head_to_head_embed, prediction_embed
from bot.app.members import guild_of, member_info
from bot.app.replies import defer


async def _pair_guild(
    bot: LadderBot, interaction: discord.Interaction[LadderBot], *pair: discord.Member
) -> int:
    """Defer (the performance ratings are computed from both game lists) and make sure both
    members have a ladder record; the guild's id."""
    guild_id = guild_of(interaction).id
    await defer(interaction)
    await bot.services.members.upsert(guild_id, [member_info(member) for member in pair])
    return guild_id


class Pairs(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="predict", description="The chance that member a beats member b")
    @app_commands.guild_only()
    @app_commands.describe(a="The first member", b="The second member")
    async def predict(
        self, interaction: discord.Interaction[LadderBot], a: discord.Member, b: discord.Member
    ) -> None:
        guild_id = await _pair_guild(self.bot, interaction, a, b)
        prediction = await self.bot.services.standings.predict(guild_id, a.id, b.id)
        said = await self.bot.public_words(guild_id)
        await interaction.edit_original_response(embed=prediction_embed(prediction, said))

    @app_commands.command(name="h2h", description="Two members' record against each other")
    @app_commands.guild_only()
    @app_commands.describe(a="The first member", b="The second member")
    async def h2h(
        self, interaction: discord.Interaction[LadderBot], a: discord.Member, b: discord.Member
    ) -> None:
        guild_id = await _pair_guild(self.bot, interaction, a, b)
        found = await self.bot.services.matchups.head_to_head(guild_id, a.id, b.id)
        said = await self.bot.public_words(guild_id)
        await interaction.edit_original_response(embed=head_to_head_embed(found, said))


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Pairs(bot))
