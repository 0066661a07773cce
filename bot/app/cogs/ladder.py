"""/ladder join|leave: opt in to or out of being rated."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.members import guild_of, member_info
from bot.app.replies import note_stored

JOINED = "You are on the ladder: your next matches will be rated."
LEFT = (
    "You left the ladder: your next matches are recorded but not rated. "
    "/ladder join brings you back."
)


@app_commands.guild_only()
class LadderMembership(
    commands.GroupCog, group_name="ladder", group_description="Opt in to or out of the ladder"
):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="join", description="Be rated in this server's matches")
    async def join(self, interaction: discord.Interaction[LadderBot]) -> None:
        await self.bot.services.members.join(
            guild_of(interaction).id, member_info(interaction.user)
        )
        note_stored(interaction, JOINED)
        await interaction.response.send_message(JOINED, ephemeral=True)

    @app_commands.command(name="leave", description="Stop being rated (past matches stay)")
    async def leave(self, interaction: discord.Interaction[LadderBot]) -> None:
        await self.bot.services.members.leave(
            guild_of(interaction).id, member_info(interaction.user)
        )
        note_stored(interaction, LEFT)
        await interaction.response.send_message(LEFT, ephemeral=True)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(LadderMembership(bot))
