"""The messages of matches follow their changes: a listener of the change feed edits a
match's message (its embed and buttons) after a change made away from it (a command, the
auto-confirm loop, the command line, another process), in the guilds this process owns."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

import discord

from bot.app.buttons import ANSWERED_IN_PLACE, match_view
from bot.app.embeds import match_embed, match_path
from bot.services import UserError
from bot.services.changes import Change

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)

MESSAGE_KINDS: Final = frozenset({"applied", "voided", "edited", "disputed", "cancelled"})
"""Changes after which a match's message (its embed and buttons) is out of date."""


class MatchMessages:
    """A listener of the change feed: brings a match's message up to date after a change made
    away from it (a command, the auto-confirm loop, the command line, another process), in
    the guilds this process owns."""

    def __init__(self, bot: LadderBot) -> None:
        self.bot = bot

    async def on_ladder_change(self, change: Change) -> None:
        if (
            change.kind not in MESSAGE_KINDS
            or change.match_id is None
            or ANSWERED_IN_PLACE.get() == change.match_id
            or not self.bot.config.discord.owns_guild(change.guild_id)
        ):
            return
        try:
            match = await self.bot.services.matches.show(change.guild_id, change.match_id)
        except UserError:
            return  # gone (a test database emptied, say): nothing to show
        if match.channel_id is None or match.message_id is None:
            return
        channel = self.bot.get_partial_messageable(match.channel_id, guild_id=match.guild_id)
        try:
            url = await self.bot.web_page(match.guild_id, match_path(match))
            said = await self.bot.public_words(match.guild_id)
            await channel.get_partial_message(match.message_id).edit(
                embed=match_embed(match, url, said), view=match_view(match, said)
            )
        except discord.HTTPException as error:
            log.info("could not update the message of match %s: %s", match.id, error)
