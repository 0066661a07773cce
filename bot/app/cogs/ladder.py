"""/ladder join|leave: opt in to or out of being rated."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.members import guild_of, member_info
from bot.app.replies import member_words, note_stored
from bot.present.language import N_

JOINED = N_("You are on the ladder: your next matches will be rated.")
LEFT = N_(
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
        text = member_words(interaction).gettext(JOINED)
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="leave", description="Stop being rated (past matches stay)")
    async def leave(self, interaction: discord.Interaction[LadderBot]) -> None:
        await self.bot.services.members.leave(
            guild_of(interaction).id, member_info(interaction.user)
        )
        text = member_words(interaction).gettext(LEFT)
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(LadderMembership(bot))
