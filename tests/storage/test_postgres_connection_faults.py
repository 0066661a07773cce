"""SPEC 8.8 on PostgreSQL's side: a lost connection is replaced, what it interrupted ends in
one line (ConnectionLost, DatabaseBusy), and nothing waits forever on a dead connection.

Connections are killed with pg_terminate_backend on the test's own database (a uuid name);
the server itself is never stopped."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from bot.config import GuildSettings
from bot.storage import ConnectionLost, Database
from bot.storage.engine import UNKNOWN_COMMIT
from bot.storage.postgres import DEAD_PEER_SECONDS
from tests.storage.engines import _admin, _with_database, own_database
from tests.test_cli import run

GUILD = 7
HANG_SECONDS = 20.0
"""Longer than any of these steps takes; reaching it is a hang."""


@pytest.fixture
def own_url(postgres_admin: str) -> Iterator[str]:
    """A database of this test's own (others' backends are never touched)."""
    with own_database(postgres_admin, "ladderbot_faults") as name:
        yield _with_database(postgres_admin, name)


@pytest.fixture
async def database(own_url: str) -> AsyncIterator[Database]:
    db = await Database.open(own_url)
    try:
        yield db
    finally:
        await asyncio.wait_for(db.close(), HANG_SECONDS)


async def _kill_all(url: str) -> int:
    """Terminate every other backend of the database; how many there were."""
    connection = await asyncpg.connect(url, timeout=5)
    try:
        rows = await connection.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await connection.close()
    await asyncio.sleep(0.05)  # the client side reads the termination
    return len(rows)


async def _guilds(db: Database) -> int:
    async with db.write(GUILD) as tx:
        row = await tx._session.one("SELECT count(*) AS n FROM guilds")
    assert row is not None
    return int(row["n"])


async def test_killed_idle_connections_are_replaced_for_reads_and_writes(
    database: Database, own_url: str
) -> None:
    assert await _guilds(database) == 0
    assert await database.read.guild_settings(GUILD) is None
    assert await _kill_all(own_url) >= 2
    # Both pools' connections died while idle: the next read and write take new ones.
    assert await database.read.guild_settings(GUILD) is None
    assert await _guilds(database) == 0
    async with database.snapshot() as snapshot:
        assert await snapshot.guild_settings(GUILD) is None


async def test_a_write_killed_midway_is_one_line_and_changes_nothing(
    database: Database, own_url: str
) -> None:
    with pytest.raises(ConnectionLost, match="database is unavailable"):
        async with database.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings())
            await _kill_all(own_url)
            await tx._session.run("SELECT 1")
    assert await database.read.guild_settings(GUILD) is None
    assert await _guilds(database) == 0  # and the write path works again


async def test_a_copy_waiting_on_a_full_socket_ends_when_its_connection_is_killed(
    database: Database, own_url: str
) -> None:
    """The hang of 4 in 45 interrupted imports: asyncpg's COPY waits for the socket to drain
    with no timeout, and a lost connection never woke it. Here the server stops reading the
    COPY at its first row (a key another transaction holds uncommitted), so the client's
    socket fills; then the backend is killed."""
    locker = await asyncpg.connect(own_url, timeout=5)
    try:
        await locker.execute("CREATE TABLE stall (id BIGINT PRIMARY KEY, label TEXT)")
        await locker.execute("BEGIN; INSERT INTO stall VALUES (0, 'held')")
        rows = 300_000

        async def copy() -> None:
            async with database.write(GUILD) as tx:
                await tx._session.insert_columns(
                    "stall",
                    ("id", "label"),
                    rows,
                    lambda first, stop: [range(first, stop), ["x" * 40] * (stop - first)],
                )

        copying = asyncio.create_task(copy())
        for _ in range(200):  # until the COPY waits for the held key
            await asyncio.sleep(0.05)
            if await locker.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            ):
                break
        await asyncio.sleep(0.5)  # the rest of the rows fill the client's socket
        await locker.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
            "datname = current_database() AND wait_event_type = 'Lock'"
        )
        with pytest.raises(ConnectionLost):
            await asyncio.wait_for(copying, HANG_SECONDS)
    finally:
        await locker.close()
    assert await _guilds(database) == 0


async def test_close_after_killed_connections_does_not_wait(
    database: Database, own_url: str
) -> None:
    assert await _guilds(database) == 0
    await _kill_all(own_url)
    await asyncio.wait_for(database.close(), 5)


async def test_a_read_only_postgresql_database_refuses_a_report_in_one_line(
    own_url: str, postgres_admin: str
) -> None:
    """A standby, or default_transaction_read_only: one line, nothing changed (it was a
    ReadOnlySQLTransactionError traceback)."""
    report = ("report", "--guild", str(GUILD), "--db", own_url, "<@1> 1 | <@2> 0")
    assert (await asyncio.to_thread(run, *report))[0] == 0
    name = own_url.rsplit("/", 1)[1]
    await _admin(postgres_admin, f"ALTER DATABASE {name} SET default_transaction_read_only = on")
    status, out, err = await asyncio.to_thread(run, *report)
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1 and "the database is read-only" in err, err
    status, out, _ = await asyncio.to_thread(run, "matches", "--guild", str(GUILD), "--db", own_url)
    assert status == 0 and out.count("#") == 1, out


async def test_pooled_connections_detect_a_vanished_server_by_tcp_keepalive(
    database: Database,
) -> None:
    """A server that vanishes without closing the connection (a crashed host, a cut
    network) fails a statement within about DEAD_PEER_SECONDS, not the kernel's hours."""
    async with database.write(GUILD) as tx:
        connection = tx._session._target  # type: ignore[attr-defined]  # the asyncpg one
        sock = connection._con._transport.get_extra_info("socket")
        if sock.family == socket.AF_UNIX:
            pytest.skip("the test server is reached by a Unix socket")
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        if hasattr(socket, "TCP_USER_TIMEOUT"):
            timeout = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT)
            assert timeout == DEAD_PEER_SECONDS * 1000
        if hasattr(socket, "TCP_KEEPIDLE"):
            idle = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
            assert idle <= DEAD_PEER_SECONDS / 3


async def test_a_write_whose_commit_is_lost_never_says_nothing_was_changed(
    database: Database, own_url: str
) -> None:
    """Lost at the commit itself, a write may or may not be stored: the line says so
    (SPEC 7). What the services do then: tests/services/test_retry_policy.py."""
    with pytest.raises(ConnectionLost) as lost:
        async with database.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings())
            await _kill_all(own_url)
    assert lost.value.committing and str(lost.value) == UNKNOWN_COMMIT
    assert "nothing was changed" not in str(lost.value)
