"""The one error-reply path: clipped to Discord's content limit, and truthful after a write
(no bot process: a stand-in for the interaction records what would be sent); a lost
connection to Discord is one line, and a stop lets the answers under way finish."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord
import pytest
from discord.app_commands import CommandInvokeError

from bot.app.bot import finish_answers
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


async def test_a_lost_connection_to_discord_is_one_line_and_no_second_try(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = Interaction()
    note_stored(interaction, "Match #7 is recorded: pending.")  # type: ignore[arg-type]
    lost = aiohttp.ServerDisconnectedError()
    with caplog.at_level(logging.INFO, logger="bot.app.replies"):
        await answer_error(interaction, CommandInvokeError(SimpleNamespace(name="settings"), lost))  # type: ignore[arg-type]
    assert interaction.response.sent == []  # nothing is sent through a broken connection
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "Discord could not be reached (ServerDisconnectedError" in record.getMessage()
    assert record.getMessage().endswith("its change was stored")


async def test_a_stop_waits_for_the_answers_under_way_and_no_longer_than_its_bound() -> None:
    steps: list[int] = []

    async def answer() -> None:
        for step in range(5):
            steps.append(step)
            await asyncio.sleep(0)

    answering = asyncio.create_task(answer(), name="CommandTree-invoker")
    await finish_answers()
    assert answering.done() and steps == [0, 1, 2, 3, 4]

    hung = asyncio.create_task(asyncio.Event().wait(), name="discord-ui-dynamic-item-X-1")
    await finish_answers(timeout=0.01)
    assert not hung.done()
    hung.cancel()
