"""How a bot process learns of writes made elsewhere (SPEC 8.4): PostgreSQL notifies the
guild of every committed write to other connections; SQLite cannot (the bot polls)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.config import GuildSettings
from bot.storage import Database
from tests.storage.engines import _empty

GUILD = 5 << 22


async def test_postgresql_tells_other_processes_of_committed_guild_writes(
    postgres_url: str,
) -> None:
    await _empty(postgres_url)
    watcher, writer = await Database.open(postgres_url), await Database.open(postgres_url)
    heard: asyncio.Queue[int] = asyncio.Queue()
    try:
        assert await watcher.watch_changes(heard.put_nowait)
        async with watcher.write(GUILD) as tx:  # its own writes: it knows of them already
            await tx.ensure_guild(GUILD, GuildSettings())
        try:
            async with writer.write(GUILD + 1) as tx:
                await tx.ensure_guild(GUILD + 1, GuildSettings())
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        async with writer.write(GUILD) as tx:
            await tx.mark_changed(GUILD, 1.0)
        assert await asyncio.wait_for(heard.get(), 5) == GUILD
        await asyncio.sleep(0.2)
        assert heard.empty()  # neither its own write nor the rolled-back one
    finally:
        await watcher.close()
        await writer.close()


async def test_sqlite_has_no_notifications(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "ladder.sqlite3")
    try:
        assert not await db.watch_changes(lambda guild_id: None)
    finally:
        await db.close()
