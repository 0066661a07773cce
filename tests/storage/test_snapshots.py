"""SPEC 8.6: `Database.snapshot()` is one read transaction, on each engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.config import GuildSettings
from bot.storage import Database
from bot.storage.database import Queries
from bot.storage.engine import Session

GUILD = 3
WAIT = 5.0
"""A write beside an open snapshot must not wait for it: far more than a write takes."""


async def add_member(db: Database, user_id: int) -> None:
    async with db.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        await tx.add_members(GUILD, [user_id])


async def known(read: Queries) -> list[int]:
    members = await read.members_by_id(GUILD, range(1, 20))
    return sorted(member.user_id for member in members)


async def test_a_snapshot_keeps_the_state_its_first_read_saw(database: Database) -> None:
    await add_member(database, 1)
    async with database.snapshot() as read:
        assert await known(read) == [1]
        # a write commits meanwhile, without waiting for the snapshot
        await asyncio.wait_for(add_member(database, 2), WAIT)
        assert await known(read) == [1]
        assert await known(database.read) == [1]  # db.read in the block is the snapshot
        assert await known(database._reader) == [1, 2]
    assert await known(database.read) == [1, 2]


async def test_snapshots_nest_and_stay_with_their_task(database: Database) -> None:
    await add_member(database, 1)
    async with database.snapshot() as outer:
        assert database.read is outer
        async with database.snapshot() as inner:
            assert inner is outer
        await known(outer)
        await add_member(database, 2)

        async def elsewhere() -> list[int]:
            assert database.read is not outer  # a task of its own reads on its own
            return await known(database.read)

        assert await asyncio.create_task(elsewhere()) == [1, 2]
        assert await asyncio.to_thread(lambda: database.read) is not outer
        assert await known(outer) == [1]
    assert database.read is not outer


async def test_more_snapshots_at_once_than_connections(database: Database) -> None:
    await add_member(database, 1)

    async def one(user_id: int) -> list[int]:
        async with database.snapshot() as read:
            first = await known(read)
            await asyncio.sleep(0.01)
            assert await known(read) == first
            return first

    found = await asyncio.gather(*(one(user_id) for user_id in range(12)), add_member(database, 2))
    assert all(state in ([1], [1, 2]) for state in found[:12])


async def test_a_cancelled_read_leaves_the_database_usable(database: Database) -> None:
    await add_member(database, 1)
    started = asyncio.Event()

    async def reading() -> None:
        async with database.snapshot() as read:
            await known(read)
            started.set()
            await asyncio.sleep(60)

    task = asyncio.create_task(reading())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.wait_for(add_member(database, 2), WAIT)
    for _ in range(6):  # more than the snapshot connections: none was left in a transaction
        async with database.snapshot() as read:
            assert await known(read) == [1, 2]


async def test_a_read_of_several_statements_takes_a_snapshot_of_its_own(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside a snapshot, a storage read of several statements (a match and its
    participants) runs in one of its own; a read of one statement needs none."""
    await add_member(database, 1)
    reader = database.engine.reader
    opens = reader.alone
    assert opens is not None
    opened = 0

    @asynccontextmanager
    async def counted() -> AsyncIterator[Session]:
        nonlocal opened
        opened += 1
        async with opens() as session:
            yield session

    monkeypatch.setattr(reader, "alone", counted)
    assert await database.read.match(GUILD, 1) is None  # no such match: one statement ran
    assert await database.read.recent_matches(GUILD) == []
    assert opened == 2
    await database.read.member(GUILD, 1)
    assert opened == 2
    async with database.snapshot() as read:
        await read.match(GUILD, 1)
        await database.read.played_columns(GUILD)
    assert opened == 2
