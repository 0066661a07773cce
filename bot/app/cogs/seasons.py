"""/season list: every season of the ladder (SPEC 9.1); /admin season start begins one."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.embeds import seasons_embed
from bot.app.members import guild_of


@app_commands.guild_only()
class Seasons(commands.GroupCog, group_name="season", group_description="The ladder's seasons"):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="list", description="Every season, newest first")
    async def list_seasons(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        seasons = await self.bot.services.seasons.season_list(guild_id)
        said = await self.bot.public_words(guild_id)
        await interaction.response.send_message(embed=seasons_embed(seasons, said))


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Seasons(bot))
