"""/rating: the rating card (embed) with a chart of the ladder rating over time (PNG)."""

from __future__ import annotations

import asyncio
import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.charts import rating_chart_png
from bot.app.embeds import rating_embed
from bot.app.members import guild_of, member_info
from bot.app.replies import defer
from bot.config import VARIANTS
from bot.present.language import N_

VARIANT_CHOICES = [app_commands.Choice(name=variant, value=variant) for variant in VARIANTS]
CHART_FILENAME = "rating.png"


class Rating(commands.Cog):
    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="rating", description="A member's ladder rating, rank, record and performance rating"
    )
    @app_commands.guild_only()
    @app_commands.describe(
        member="Whose rating (default: yours)",
        variant="Performance rating variant (default: the server's)",
    )
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def rating(
        self,
        interaction: discord.Interaction[LadderBot],
        member: discord.Member | None = None,
        variant: app_commands.Choice[str] | None = None,
    ) -> None:
        guild_id = guild_of(interaction).id
        target = member or interaction.user
        await defer(interaction)
        await self.bot.services.members.upsert(guild_id, [member_info(target)])
        card = await self.bot.services.standings.rating_card(
            guild_id, target.id, variant.value if variant else None
        )
        said = await self.bot.public_words(guild_id)
        attachments = []
        stats = card.stats
        if stats.history and stats.start is not None:
            title = said.gettext(N_("{name} — ladder rating"), name=card.member.name)
            png = await asyncio.to_thread(rating_chart_png, stats.start, stats.history, title, said)
            attachments.append(discord.File(fp=io.BytesIO(png), filename=CHART_FILENAME))
        url = await self.bot.web_page(guild_id, f"/players/{target.id}")
        embed = rating_embed(card, CHART_FILENAME if attachments else None, url, said)
        await interaction.edit_original_response(embed=embed, attachments=attachments)


async def setup(bot: LadderBot) -> None:
    await bot.add_cog(Rating(bot))
