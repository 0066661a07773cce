"""/match show|confirm|list, and the auto-confirm loop for pending matches."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.app.bot import LadderBot
from bot.app.buttons import already_applied, match_page_view
from bot.app.embeds import add_edits, match_embed, match_page_embed, match_path, match_stored
from bot.app.members import actor, guild_of, member_info
from bot.app.options import MatchId
from bot.app.replies import member_words, note_stored

log = logging.getLogger(__name__)

AUTO_CONFIRM_EVERY_SECONDS = 60.0


@app_commands.guild_only()
class Matches(
    commands.GroupCog, group_name="match", group_description="Look up and confirm matches"
):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.auto_confirm.start()

    async def cog_unload(self) -> None:
        self.auto_confirm.cancel()

    @tasks.loop(seconds=AUTO_CONFIRM_EVERY_SECONDS)
    async def auto_confirm(self) -> None:
        """Apply pending matches older than their guild's auto_confirm_hours, in the guilds
        of this process's shards (each guild's owner does it, SPEC 8.4)."""
        try:  # each match's message follows its change (bot.app.match_messages)
            await self.bot.services.matches.auto_confirm(self.bot.config.discord.owns_guild)
        except Exception:
            log.exception("auto-confirm failed; retrying next round")

    @app_commands.command(name="show", description="Show one match, its players and rating changes")
    @app_commands.describe(id="The match number")
    async def show(self, interaction: discord.Interaction[LadderBot], id: MatchId) -> None:
        guild_id = guild_of(interaction).id
        shown = await self.bot.services.matches.shown(guild_id, id)
        url = await self.bot.web_page(guild_id, match_path(shown.match))
        said = await self.bot.public_words(guild_id)
        embed = add_edits(match_embed(shown.match, url, said), shown.edits, said)
        await interaction.response.send_message(embed=embed)

    @app_commands.command(
        name="confirm", description="Apply a pending match (opponent or moderator)"
    )
    @app_commands.describe(id="The match number")
    async def confirm(self, interaction: discord.Interaction[LadderBot], id: MatchId) -> None:
        guild_id = guild_of(interaction).id
        result = await self.bot.services.matches.confirm(guild_id, actor(interaction), id)
        if not result.applied_now:
            text = already_applied(id, member_words(interaction))
            await interaction.response.send_message(text, ephemeral=True)
            return
        note_stored(interaction, match_stored(result.match, member_words(interaction)))
        url = await self.bot.web_page(guild_id, match_path(result.match))
        said = await self.bot.public_words(guild_id)
        await interaction.response.send_message(embed=match_embed(result.match, url, said))

    @app_commands.command(name="list", description="Recent matches, of everyone or of one member")
    @app_commands.describe(member="Only this member's matches (default: everyone's)")
    async def list(
        self, interaction: discord.Interaction[LadderBot], member: discord.Member | None = None
    ) -> None:
        guild_id = guild_of(interaction).id
        if member is not None:
            await self.bot.services.members.upsert(guild_id, [member_info(member)])
        page = await self.bot.services.matches.page(
            guild_id, member.id if member is not None else None
        )
        said = await self.bot.public_words(guild_id)
        await interaction.response.send_message(
            embed=match_page_embed(page, said),
            view=match_page_view(interaction.user.id, page, said),
        )


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Matches(bot))
