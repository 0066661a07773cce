"""Issue 24 finding 11 (SPEC 11.1): a hidden guild and an unknown one answer alike, and their
stamp reads do the same work (counted in SQLite virtual-machine steps, not timed)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite

from bot.config import GuildSettings
from bot.services import ServiceContext, Services
from bot.storage import Database
from bot.storage.database import Queries
from bot.storage.sqlite import SqliteSession
from tests.web.data import GUILD, HIDDEN, UNKNOWN, seed


async def test_hidden_and_unknown_guilds_have_no_stamp(database: Database) -> None:
    await seed(Services.build(ServiceContext(database, GuildSettings())))
    assert await database.read.web_stamp(HIDDEN) is None
    assert await database.read.web_stamp(UNKNOWN) is None
    shown = await database.read.web_stamp(GUILD)
    assert shown is not None and shown.settings.web and shown.newest_match is not None


async def test_a_hidden_guilds_stamp_read_does_the_work_of_an_unknown_ones(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ladder.sqlite3"
    database = await Database.open(path)
    try:
        services = Services.build(ServiceContext(database, GuildSettings()))
        await seed(services)  # HIDDEN has a match and its setting web off
        connection = await aiosqlite.connect(path)
        connection.row_factory = sqlite3.Row
        reads = Queries(SqliteSession(connection), database.engine)
        steps = [0]

        def step() -> int:
            steps[0] += 1
            return 0

        await connection.set_progress_handler(step, 1)
        counted = {}
        for guild in (HIDDEN, UNKNOWN, GUILD, HIDDEN, UNKNOWN):
            steps[0] = 0
            await reads.web_stamp(guild)
            counted[guild] = steps[0]
        await connection.close()
    finally:
        await database.close()
    assert counted[GUILD] > counted[UNKNOWN] + 5  # the counter sees the shown guild's work
    assert abs(counted[HIDDEN] - counted[UNKNOWN]) <= 4, counted
