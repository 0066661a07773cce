"""/balance: split the listed players into the most evenly matched teams."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.embeds import balance_embed
from bot.app.members import guild_of, resolve_members
from bot.app.replies import defer
from bot.ratings.balance import MAX_PLAYERS, MAX_TEAMS, MIN_PLAYERS, MIN_TEAMS
from bot.services.matchups import check_players, parse_players


class Balance(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(name="balance", description="Split players into evenly matched teams")
    @app_commands.guild_only()
    @app_commands.describe(
        players=f"{MIN_PLAYERS} to {MAX_PLAYERS} member mentions and guest names",
        teams=f"How many teams ({MIN_TEAMS} to {MAX_TEAMS}, default 2)",
    )
    async def balance(
        self,
        interaction: discord.Interaction[LadderBot],
        players: str,
        teams: app_commands.Range[int, MIN_TEAMS, MAX_TEAMS] = MIN_TEAMS,
    ) -> None:
        guild = guild_of(interaction)
        listed = parse_players(players)
        check_players(listed, teams)  # before asking Discord about up to 32 members
        await defer(interaction)
        ids = [player.user_id for player in listed if player.user_id is not None]
        await self.bot.services.members.upsert(guild.id, await resolve_members(guild, ids))
        found = await self.bot.services.matchups.balance(guild.id, listed, teams)
        said = await self.bot.public_words(guild.id)
        await interaction.edit_original_response(embed=balance_embed(found, said))


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Balance(bot))
