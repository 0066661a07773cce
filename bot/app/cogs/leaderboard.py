"""/leaderboard: a page of the standings with previous/next buttons for the caller."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.buttons import leaderboard_view
from bot.app.embeds import board_path, leaderboard_embed
from bot.app.members import guild_of, shown_name
from bot.app.replies import defer
from bot.present.language import N_
from bot.services.standings import MEASURES


class Leaderboard(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="The server's standings, page by page")
    @app_commands.guild_only()
    @app_commands.describe(
        by="Order by the ladder rating, a performance rating p1-p8, or rating accuracy (ra)",
        page="Which page (default: the first)",
        season="A closed season's closing standings (default: the current season)",
    )
    @app_commands.choices(by=[app_commands.Choice(name=name, value=name) for name in MEASURES])
    async def leaderboard(
        self,
        interaction: discord.Interaction[LadderBot],
        by: app_commands.Choice[str] | None = None,
        page: app_commands.Range[int, 1] = 1,
        season: str | None = None,
    ) -> None:
        guild_id = guild_of(interaction).id
        await defer(interaction)
        result = await self.bot.services.standings.leaderboard(
            guild_id, by=by.value if by else "ladder", page=page, season=season
        )
        url = await self.bot.web_page(guild_id, board_path(result))
        said = await self.bot.public_words(guild_id)
        if result.season is None:
            await interaction.edit_original_response(
                embed=leaderboard_embed(result, url=url, said=said),
                view=leaderboard_view(interaction.user.id, result, said),
            )
            return
        # A closed season's standings: its own pages through the page option, no buttons.
        title = said.gettext(
            N_("Season {season}: closing standings"), season=shown_name(result.season)
        )
        await interaction.edit_original_response(
            embed=leaderboard_embed(result, title, url=url, said=said)
        )


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Leaderboard(bot))
