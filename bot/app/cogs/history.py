"""/history: a member's games in the game-list format (SPEC 1.1) as a text file."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.members import guild_of, member_info, shown_name
from bot.app.replies import defer
from bot.app.uploads import send_file
from bot.present.language import N_
from bot.present.words import GAME_LIST_WORDS, shown_games


class History(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="history", description="A member's games as a game list (newest first), as a file"
    )
    @app_commands.guild_only()
    @app_commands.describe(member="Whose games (default: yours)")
    async def history(
        self, interaction: discord.Interaction[LadderBot], member: discord.Member | None = None
    ) -> None:
        guild_id = guild_of(interaction).id
        target = member or interaction.user
        await defer(interaction)
        await self.bot.services.members.upsert(guild_id, [member_info(target)])
        games = await self.bot.services.standings.game_history(guild_id, target.id)
        name = shown_name(target.display_name)
        said = await self.bot.public_words(guild_id)
        if not games:
            await interaction.edit_original_response(
                content=said.gettext(N_("{name} has no rated games yet."), name=name)
            )
            return
        await send_file(
            interaction,
            shown_games(games).encode("utf-8"),
            f"history-{target.id}.txt",
            said.gettext(
                N_("Games of {name}: {format}."), name=name, format=said.gettext(GAME_LIST_WORDS)
            ),
            f"ladderbot gr --guild {guild_id} {target.id}",
            said,
        )


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(History(bot))
