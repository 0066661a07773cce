"""Answering interactions: private error messages whatever state the response is in, and
the truth about what was stored when an answer fails after a write (SPEC 7)."""

from __future__ import annotations

import logging
from typing import Any, Final

import aiohttp
import discord
from discord import app_commands

from bot.present.language import N_, Words, refusal_text, words
from bot.present.words import quoted, shorten
from bot.services import DatabaseBusy, DatabaseUnavailable, UserError

log = logging.getLogger(__name__)

GENERIC_FAILURE = N_(
    "Something went wrong on our side; nothing was changed. Please try again later."
)
CONTENT_LIMIT: Final = 2000
"""Discord refuses a message with longer content (and the user then sees nothing)."""
UNREACHABLE: Final = aiohttp.ClientError
"""A failure of the connection to Discord itself (refused, dropped, reset): no reply can
reach the member then."""
STORED: Final = "ladderbot.stored"
"""Key in Interaction.extras: what this interaction's command has stored, once it has."""


def member_words(interaction: discord.Interaction[Any]) -> Words:
    """The words of a reply to one member (an ephemeral one): their client's language."""
    return words(interaction.locale.value)


def note_stored(interaction: discord.Interaction[Any], what: str) -> None:
    """Call right after a command's write: if answering fails from here on, the error reply
    says `what` (a sentence on what is now stored) instead of "nothing was changed"."""
    interaction.extras[STORED] = what


async def defer(interaction: discord.Interaction[Any], *, ephemeral: bool = False) -> None:
    """Acknowledge now (Discord wants an answer within 3 s) and answer when the work is done."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=ephemeral, thinking=True)


async def send_private(interaction: discord.Interaction[Any], content: str) -> None:
    """An ephemeral message, whether or not the interaction was already answered or deferred.

    After a public defer the "thinking" message is removed first: Discord makes the first
    followup after a defer take the defer's visibility, and an error must stay private.
    """
    content = shorten(content, CONTENT_LIMIT)
    response = interaction.response
    if not response.is_done():
        await response.send_message(content, ephemeral=True)
        return
    if response.type is discord.InteractionResponseType.deferred_channel_message:
        try:
            await interaction.delete_original_response()
        except discord.HTTPException:
            log.debug("could not remove the thinking message of %s", interaction.id)
    await interaction.followup.send(content, ephemeral=True)


def user_message(error: BaseException, said: Words) -> str | None:
    """The message to show for a refusal, or None for an unexpected failure."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, UserError):
        return refusal_text(error, said)
    if isinstance(error, DatabaseBusy | DatabaseUnavailable):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        if isinstance(error.__cause__, UserError):  # an option's own check (bot.app.options)
            return refusal_text(error.__cause__, said)
        return said.gettext(
            N_("{value} is not a valid {kind} here."),
            value=quoted(str(error.value)),
            kind=error.type.name,
        )
    if isinstance(error, app_commands.CheckFailure):
        return str(error)
    return None


async def answer_error(interaction: discord.Interaction[Any], error: BaseException) -> None:
    """One place for every failure: a refusal's own message, else a generic one plus a log.
    A failure after a write says what was stored: the write stands, the reply did not."""
    stored: str | None = interaction.extras.get(STORED)
    command = interaction.command.qualified_name if interaction.command else interaction.data
    original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
    if isinstance(original, UNREACHABLE):  # SPEC 8.8: a fault is one line, and nobody to tell
        log.warning(
            "interaction %s (%s): Discord could not be reached (%s: %s)%s",
            interaction.id,
            command,
            type(original).__name__,
            original,
            "; its change was stored" if stored is not None else "",
        )
        return
    said = member_words(interaction)
    message = user_message(error, said)
    if message is None:
        log.error("interaction %s (%s) failed", interaction.id, command, exc_info=error)
    elif stored is not None:  # a fault after the write (the database lost): one line
        log.warning("interaction %s (%s): stored, then %s", interaction.id, command, message)
    if stored is not None:
        message = said.gettext(
            N_("{stored} (Its full reply could not be shown here.)"), stored=stored
        )
    elif message is None:
        message = said.gettext(GENERIC_FAILURE)
    try:
        await send_private(interaction, message)
    except discord.HTTPException:
        log.exception("could not answer interaction %s with its error", interaction.id)
    except UNREACHABLE as fault:
        log.warning("could not answer interaction %s with its error: %s", interaction.id, fault)
