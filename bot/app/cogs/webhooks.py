"""/admin webhook add|remove|list|test (SPEC 14). The replies are ephemeral: `add` shows the
secret this once. Delivery is the bot's (bot.services.delivery), not this cog's."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.app.bot import LadderBot
from bot.app.cogs.admin import add_admin_commands, check_moderator
from bot.app.members import actor, guild_of
from bot.app.options import IdOption
from bot.app.replies import CONTENT_LIMIT, defer, member_words, note_stored
from bot.present.language import N_
from bot.present.lines import webhook_added_lines, webhook_line
from bot.present.words import shorten

WebhookId = app_commands.Transform[int, IdOption(N_("webhook"))]


class WebhookCommands(app_commands.Group):
    """/admin webhook …"""

    def __init__(self, bot: LadderBot) -> None:
        super().__init__(name="webhook", description="Send match and queue events to your tools")
        self.webhooks = bot.services.webhooks

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return check_moderator(interaction)

    @app_commands.command(name="add", description="Add a webhook (https); shows its secret once")
    @app_commands.describe(
        url="The receiver's https:// address",
        events="Comma-separated events (default: all), e.g. match.applied,lobby.teams",
    )
    async def add(
        self, interaction: discord.Interaction[LadderBot], url: str, events: str | None = None
    ) -> None:
        await defer(interaction, ephemeral=True)
        added = await self.webhooks.add(guild_of(interaction).id, actor(interaction), url, events)
        said = member_words(interaction)
        note_stored(
            interaction,
            said.gettext(N_("Webhook #{number} was added."), number=added.webhook.webhook_id),
        )
        await interaction.edit_original_response(
            content=shorten("\n".join(webhook_added_lines(added, said)), CONTENT_LIMIT)
        )

    @app_commands.command(name="remove", description="Remove a webhook and its waiting events")
    @app_commands.describe(id="The webhook's number (see /admin webhook list)")
    async def remove(self, interaction: discord.Interaction[LadderBot], id: WebhookId) -> None:
        removed = await self.webhooks.remove(guild_of(interaction).id, actor(interaction), id)
        await interaction.response.send_message(
            member_words(interaction).gettext(
                N_("Webhook #{number} was removed; its waiting events were dropped."),
                number=removed.webhook_id,
            ),
            ephemeral=True,
        )

    @app_commands.command(name="list", description="The webhooks and how their deliveries went")
    async def list(self, interaction: discord.Interaction[LadderBot]) -> None:
        found = await self.webhooks.list(guild_of(interaction).id)
        said = member_words(interaction)
        lines = [webhook_line(webhook, said) for webhook in found] or [
            said.gettext(N_("No webhooks."))
        ]
        await interaction.response.send_message(
            shorten("\n".join(lines), CONTENT_LIMIT), ephemeral=True
        )

    @app_commands.command(name="test", description="Send a webhook.test event to a webhook")
    @app_commands.describe(id="The webhook's number (see /admin webhook list)")
    async def test(self, interaction: discord.Interaction[LadderBot], id: WebhookId) -> None:
        tested = await self.webhooks.test(guild_of(interaction).id, actor(interaction), id)
        await interaction.response.send_message(
            member_words(interaction).gettext(
                N_(
                    "A webhook.test event is on its way to webhook #{number}; "
                    "/admin webhook list shows how it went."
                ),
                number=tested.webhook_id,
            ),
            ephemeral=True,
        )


async def setup(bot: LadderBot) -> None:
    add_admin_commands(bot, WebhookCommands(bot))
