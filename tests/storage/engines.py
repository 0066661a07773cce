"""The engine fixture: every storage and service test runs on SQLite and on PostgreSQL.

PostgreSQL needs a server named by LADDERBOT_TEST_POSTGRES (an admin URL such as
postgresql://postgres@127.0.0.1:5432/postgres): the session creates a fresh database there
and drops it at the end; each test starts from empty tables. Without the variable the
PostgreSQL half is skipped, saying why; in CI (CI=true) a missing or unreachable server
fails instead.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from bot.storage import Database

ENGINES = ("sqlite", "postgresql")
TABLES = "guilds, members, matches, participants, performances, changes"

OpenDatabase = Callable[[], Awaitable[Database]]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI needs PostgreSQL: {reason}")
    pytest.skip(reason)


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


async def _admin(url: str, statement: str) -> None:
    connection = await asyncpg.connect(url, timeout=5)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def own_database(admin: str, prefix: str) -> Iterator[str]:
    """A database of the caller's own on the test server (uuid-named, so that no other
    test's backends are ever touched): its name. Dropped after, connections allowed again
    first (a test may have refused them)."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(admin, f"CREATE DATABASE {name}"))
    try:
        yield name
    finally:
        asyncio.run(_admin(admin, f"ALTER DATABASE {name} ALLOW_CONNECTIONS true"))
        asyncio.run(_admin(admin, f"DROP DATABASE {name} WITH (FORCE)"))


async def take_offline(admin: str, name: str) -> None:
    """The database `name` down: new connections refused, the open ones terminated."""
    connection = await asyncpg.connect(admin, timeout=5)
    try:
        await connection.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        await connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", name
        )
    finally:
        await connection.close()


@pytest.fixture(scope="session")
def postgres_admin() -> str:
    """The test server's admin URL, once it answered (else skipped, or failed in CI)."""
    admin = os.environ.get("LADDERBOT_TEST_POSTGRES", "")
    if not admin:
        _unavailable("LADDERBOT_TEST_POSTGRES is not set (a PostgreSQL admin URL)")
    try:
        asyncio.run(_admin(admin, "SELECT 1"))
    except (OSError, asyncpg.PostgresError) as error:
        _unavailable(f"cannot reach PostgreSQL at {admin}: {error!r}")
    return admin


@pytest.fixture(scope="session")
def postgres_url(postgres_admin: str) -> Iterator[str]:
    """A fresh database on the test server for the whole session, dropped at its end."""
    admin = postgres_admin
    name = f"ladderbot_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_admin(admin, f"CREATE DATABASE {name}"))
    except (OSError, asyncpg.PostgresError) as error:
        _unavailable(f"cannot create a database on {admin}: {error}")
    try:
        yield _with_database(admin, name)
    finally:
        asyncio.run(_admin(admin, f"DROP DATABASE {name} WITH (FORCE)"))


@pytest.fixture(params=ENGINES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each engine in turn (see `fresh_database` for several); match
    ids start from 1 again."""
    if request.param == "sqlite":
        return str(tmp_path / "ladder.sqlite3")
    url: str = request.getfixturevalue("postgres_url")
    asyncio.run(_empty(url))
    return url


async def _empty(url: str) -> None:
    """Migrate the test database (first use) and empty its tables."""
    db = await Database.open(url)
    await db.close()
    await _admin(url, f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE")


@pytest.fixture
def fresh_database(database_url: str, tmp_path: Path) -> OpenDatabase:
    """Opens an empty database on the test's engine each time it is called (the earlier
    ones must be closed by then on PostgreSQL, which reuses its one database)."""
    files = iter(range(1_000_000))

    async def open_fresh() -> Database:
        if database_url.startswith("postgresql://"):
            await _empty(database_url)
            return await Database.open(database_url)
        return await Database.open(tmp_path / f"fresh{next(files)}.sqlite3")

    return open_fresh


@pytest.fixture
async def database(fresh_database: OpenDatabase) -> AsyncIterator[Database]:
    db = await fresh_database()
    try:
        yield db
    finally:
        await db.close()


@pytest.fixture(params=ENGINES)
def own_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of the test's own on each engine, for a test that changes the
    schema (an older one, a migration): the session's shared database never sees it."""
    if request.param == "sqlite":
        yield str(tmp_path / "own.sqlite3")
        return
    admin: str = request.getfixturevalue("postgres_admin")
    with own_database(admin, "ladderbot_own") as name:
        yield _with_database(admin, name)
