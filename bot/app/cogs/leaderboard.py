"""/leaderboard: a page of the standings with previous/next buttons for the caller."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.buttons import leaderboard_view
from bot.app.embeds import leaderboard_embed
from bot.app.members import guild_of
from bot.app.replies import defer
from bot.services.ladder import MEASURES


class Leaderboard(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="The server's standings, page by page")
    @app_commands.guild_only()
    @app_commands.describe(
        by="Order by the ladder rating, a performance rating p1-p8, or rating accuracy (ra)",
        page="Which page (default: the first)",
    )
    @app_commands.choices(by=[app_commands.Choice(name=name, value=name) for name in MEASURES])
    async def leaderboard(
        self,
        interaction: discord.Interaction[LadderBot],
        by: app_commands.Choice[str] | None = None,
        page: app_commands.Range[int, 1] = 1,
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)
        result = await self.bot.ladder.leaderboard(
            guild_id, by=by.value if by else "ladder", page=page
        )
        await interaction.edit_original_response(
            embed=leaderboard_embed(result), view=leaderboard_view(interaction.user.id, result)
        )


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Leaderboard(bot))
