"""A write cancelled while its COMMIT is on its way to SQLite's worker thread (a stop, or a
webhook worker cancelled at shutdown): the COMMIT still runs there, before the ROLLBACK the
cancelled write sends, which then finds no transaction. The cancellation must propagate, not
that error: a worker loop that catches errors and goes on would never stop."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from bot.storage import Database
from bot.storage.sqlite import SqliteEngine, SqliteSession


async def test_a_write_cancelled_during_its_commit_ends_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = await Database.open(tmp_path / "cancelled.sqlite3")
    engine = database.engine
    assert isinstance(engine, SqliteEngine)
    worker = engine._writer_connection
    busy = threading.Event()
    commit = SqliteSession.commit
    committing: list[asyncio.Future[None]] = []

    async def cancelled_on_its_way(session: SqliteSession) -> None:
        """The COMMIT queued behind the busy worker, then the write cancelled."""
        committing.append(asyncio.ensure_future(commit(session)))
        await asyncio.sleep(0)  # the COMMIT is in the worker's queue now
        asyncio.get_running_loop().call_later(0.05, busy.set)
        raise asyncio.CancelledError

    try:
        async with engine.transaction(None) as session:
            await session.run("CREATE TABLE kept (value INTEGER)")
        with pytest.raises(asyncio.CancelledError):
            async with engine.transaction(None) as session:
                await session.run("INSERT INTO kept VALUES (1)")
                await session.all("SELECT 1")  # the transaction has begun in the worker
                blocked = asyncio.ensure_future(worker._execute(busy.wait))  # type: ignore[no-untyped-call]
                await asyncio.sleep(0)
                monkeypatch.setattr(SqliteSession, "commit", cancelled_on_its_way)
        monkeypatch.undo()
        await blocked
        await committing[0]
        async with database.snapshot() as read:
            assert [tuple(row) for row in await read._session.all("SELECT value FROM kept")] == [
                (1,)
            ]
    finally:
        monkeypatch.undo()
        await database.close()
