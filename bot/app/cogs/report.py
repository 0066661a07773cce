"""/report duel|ffa|team|scores: record a match (pending until an opponent confirms)."""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.buttons import answer_recorded
from bot.app.members import actor, guild_of, member_info, resolve_members
from bot.services import (
    Lineup,
    Player,
    duel_lineup,
    ffa_lineup,
    parse_lineup,
    parse_team,
    team_lineup,
)

MINUTES = "Minutes played (default: the server's max_game_length)"
WINNERS: dict[str, Literal["a", "b", "draw"]] = {"a": "a", "b": "b", "draw": "draw"}


@app_commands.guild_only()
class Report(commands.GroupCog, group_name="report", group_description="Report a match you played"):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    async def _record(
        self,
        interaction: discord.Interaction[LadderBot],
        lineup: Lineup,
        minutes: float | None,
        known: list[discord.Member] | None = None,
    ) -> None:
        """Store the report; a pending one gets Confirm/Dispute buttons and pings the others."""
        guild = guild_of(interaction)
        if known is not None:
            members = [member_info(member) for member in known]
        else:
            ids = [entry.player.user_id for entry in lineup if entry.player.user_id is not None]
            members = await resolve_members(guild, ids)
        result = await self.bot.services.matches.report(  # its request id: stored once
            guild.id,
            actor(interaction),
            lineup,
            request_id=str(interaction.id),
            minutes=minutes,
            members=members,
        )
        await answer_recorded(interaction, guild.id, result.match, None)

    @app_commands.command(name="duel", description="Report a duel: who won and who lost")
    @app_commands.describe(
        winner="The member who won (for a draw: either player)",
        loser="The member who lost (for a draw: the other player)",
        draw="True if the duel was a draw",
        minutes=MINUTES,
    )
    async def duel(
        self,
        interaction: discord.Interaction[LadderBot],
        winner: discord.Member,
        loser: discord.Member,
        draw: bool = False,
        minutes: float | None = None,
    ) -> None:
        lineup = duel_lineup(Player(user_id=winner.id), Player(user_id=loser.id), draw=draw)
        await self._record(interaction, lineup, minutes, [winner, loser])

    @app_commands.command(name="ffa", description="Report a free-for-all by placement")
    @app_commands.describe(
        first="The winner",
        second="Second place",
        third="Third place",
        fourth="Fourth place",
        fifth="Fifth place",
        sixth="Sixth place",
        seventh="Seventh place",
        eighth="Eighth place",
        minutes=MINUTES,
    )
    async def ffa(
        self,
        interaction: discord.Interaction[LadderBot],
        first: discord.Member,
        second: discord.Member,
        third: discord.Member | None = None,
        fourth: discord.Member | None = None,
        fifth: discord.Member | None = None,
        sixth: discord.Member | None = None,
        seventh: discord.Member | None = None,
        eighth: discord.Member | None = None,
        minutes: float | None = None,
    ) -> None:
        placed = [first, second, third, fourth, fifth, sixth, seventh, eighth]
        members = [member for member in placed if member is not None]
        lineup = ffa_lineup([Player(user_id=member.id) for member in members])
        await self._record(interaction, lineup, minutes, members)

    @app_commands.command(name="team", description="Report a team game: two teams and the winner")
    @app_commands.describe(
        team_a="Team a: member mentions and guest names, e.g. @ann @bob guest_cy",
        team_b="Team b: member mentions and guest names",
        winner="Which team won, or draw",
        minutes=MINUTES,
    )
    @app_commands.choices(
        winner=[
            app_commands.Choice(name="team a", value="a"),
            app_commands.Choice(name="team b", value="b"),
            app_commands.Choice(name="draw", value="draw"),
        ]
    )
    async def team(
        self,
        interaction: discord.Interaction[LadderBot],
        team_a: str,
        team_b: str,
        winner: app_commands.Choice[str],
        minutes: float | None = None,
    ) -> None:
        lineup = team_lineup(parse_team(team_a), parse_team(team_b), WINNERS[winner.value])
        await self._record(interaction, lineup, minutes)

    @app_commands.command(name="scores", description="Report a match with every player's score")
    @app_commands.describe(
        lineup="Sides split by |, entries by commas: <player> <score> [<minutes>], "
        "e.g. @ann 1200 18, @bob 900 | @cy 1500",
        minutes="Minutes for entries without their own (default: max_game_length)",
    )
    async def scores(
        self,
        interaction: discord.Interaction[LadderBot],
        lineup: str,
        minutes: float | None = None,
    ) -> None:
        await self._record(interaction, parse_lineup(lineup), minutes)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Report(bot))
