"""The one error-reply path: clipped to Discord's content limit, and truthful after a write
(no bot process: a stand-in for the interaction records what would be sent)."""

from __future__ import annotations

from typing import Any

import discord

from bot.app.replies import CONTENT_LIMIT, GENERIC_FAILURE, answer_error, note_stored
from bot.services import UserError


class Response:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bool]] = []

    def is_done(self) -> bool:
        return False

    async def send_message(self, content: str, *, ephemeral: bool) -> None:
        self.sent.append((content, ephemeral))


class Interaction:
    """What answer_error uses of a discord.Interaction that has not been answered yet."""

    def __init__(self) -> None:
        self.response = Response()
        self.extras: dict[str, Any] = {}
        self.command = None
        self.id = 1
        self.data: dict[str, Any] = {}
        self.locale = discord.Locale.american_english


async def answered(interaction: Interaction, error: Exception) -> str:
    await answer_error(interaction, error)  # type: ignore[arg-type]
    ((content, ephemeral),) = interaction.response.sent
    assert ephemeral
    return content


async def test_an_error_reply_is_clipped_to_discords_content_limit() -> None:
    content = await answered(Interaction(), UserError("long " * 1000))
    assert len(content) == CONTENT_LIMIT and content.endswith("…")


async def test_a_failure_after_a_write_says_what_was_stored() -> None:
    interaction = Interaction()
    note_stored(interaction, "Match #7 is recorded: pending.")  # type: ignore[arg-type]
    content = await answered(interaction, RuntimeError("Discord said 400"))
    assert content.startswith("Match #7 is recorded: pending.")
    assert "nothing was changed" not in content


async def test_a_failure_before_any_write_says_nothing_was_changed() -> None:
    assert await answered(Interaction(), RuntimeError("boom")) == GENERIC_FAILURE
