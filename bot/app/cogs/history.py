"""/history: a member's games in the game-list format (SPEC 1.1) as a text file."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.members import guild_of, member_info
from bot.app.replies import defer


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
        text = await self.bot.services.standings.history_text(guild_id, target.id)
        if not text:
            await interaction.edit_original_response(
                content=f"{target.display_name} has no rated games yet."
            )
            return
        file = discord.File(io.BytesIO(text.encode("utf-8")), filename=f"history-{target.id}.txt")
        await interaction.edit_original_response(
            content=f"Games of {target.display_name}, newest first "
            "(pipe into `ladderbot p1` … `p8`):",
            attachments=[file],
        )


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(History(bot))
