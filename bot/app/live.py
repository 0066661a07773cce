"""The live leaderboard message of each guild: edited after standings changes, rate-limited.

A burst of matches costs one edit per `edit_seconds`: the first change schedules one delayed
refresh; changes that arrive while it waits or runs only mark the guild again, and its worker
(bot.app.workers) renders the newest standings once its turn comes. The time of the last edit is
kept by the services (in the database), so the limit also holds across restarts.

The board is a listener of the change feed (bot.services.feed: this process's changes and
every other process's, the command line's included); with shards (SPEC 8.4) only the process
owning a guild edits its board. At start, the boards whose guild changed after their last
edit (while no process was running, or in an edit cut short) are brought up to date.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

import discord

from bot.app.embeds import board_path, leaderboard_embed
from bot.app.workers import GuildWorkers
from bot.present.language import N_
from bot.services.changes import Change

if TYPE_CHECKING:
    from bot.app.bot import LadderBot

log = logging.getLogger(__name__)


class LiveBoards:
    def __init__(self, bot: LadderBot, edit_seconds: float) -> None:
        self.bot = bot
        self.edit_seconds = edit_seconds
        self.workers = GuildWorkers("the live leaderboard", self.refresh, turn=self._wait_turn)
        self._catching_up: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._catching_up = asyncio.create_task(self.catch_up())

    async def catch_up(self) -> None:
        """Refresh the owned boards whose guild changed after their last edit."""
        try:
            due = await self.bot.services.standings.live_boards_due()
        except Exception:
            log.exception("could not list the live leaderboards that are due")
            return
        for board in due:
            if self.bot.config.discord.owns_guild(board.guild_id):
                self.touch(board.guild_id)

    async def on_ladder_change(self, change: Change) -> None:
        """The one place the live board learns of changes (the change feed's)."""
        shown = change.changes_standings or change.kind == "live_board"
        if shown and self.bot.config.discord.owns_guild(change.guild_id):
            self.touch(change.guild_id)

    def touch(self, guild_id: int) -> None:
        """The guild's standings changed: refresh its live message when allowed."""
        self.workers.touch(guild_id)

    async def close(self) -> None:
        if self._catching_up is not None:
            self._catching_up.cancel()
        await self.workers.close()

    async def _wait_turn(self, guild_id: int) -> None:
        board = await self.bot.services.standings.live_board(guild_id)
        if board is not None and board.edited_at is not None:
            delay = board.edited_at + self.edit_seconds - time.time()
            if delay > 0:
                await asyncio.sleep(delay)

    async def refresh(self, guild_id: int) -> None:
        """Edit the live message now, or post a new one if it is missing or was deleted."""
        board = await self.bot.services.standings.live_board(guild_id)
        if board is None:
            return
        page = await self.bot.services.standings.leaderboard(guild_id)
        url = await self.bot.web_page(guild_id, board_path(page))
        said = await self.bot.public_words(guild_id)
        embed = leaderboard_embed(page, title=N_("Live leaderboard"), url=url, said=said)
        channel = self.bot.get_partial_messageable(board.channel_id, guild_id=guild_id)
        message_id = board.message_id
        if message_id is not None:
            try:
                await channel.get_partial_message(message_id).edit(embed=embed)
            except discord.NotFound:
                message_id = None  # deleted by someone: post a fresh one below
        if message_id is None:
            message_id = (await channel.send(embed=embed)).id
        await self.bot.services.standings.mark_live_board_edited(guild_id, message_id)
