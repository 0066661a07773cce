"""The PostgreSQL engine (15 or newer), through asyncpg.

Reads go through a small pool; writes through one connection of their own, one transaction
each behind an asyncio.Lock (use cases of this process never interleave). A write naming a
guild first takes `pg_advisory_xact_lock(guild id)`, so two processes' writes to one guild
never interleave while other guilds' writes run beside them; match ids come from sequence
match_ids, which takes no lock (a rolled-back write leaves a gap in the ids). A lock not
granted within WRITE_WAIT_SECONDS (lock_timeout) refuses the write with DatabaseBusy, as do
a deadlock or serialization failure: the transaction rolls back and nothing changed.

The same statement that takes a guild's lock NOTIFYs channel ladderbot_changes with the
guild id; a bot process LISTENs on one more connection (watch_changes), so that a guild's
owner learns at once of changes made by other processes and the command line (SPEC 8.4).
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import asyncpg
import numpy as np
import numpy.typing as npt

from bot.storage.engine import (
    WRITE_WAIT_SECONDS,
    DatabaseBusy,
    Dialect,
    Engine,
    Parameters,
    Row,
    Session,
    parameter_rows,
    update_statement,
)
from bot.storage.schema import MIGRATIONS, migration_statements, newer_than_this_code

log = logging.getLogger(__name__)

CHANGES_CHANNEL: Final = "ladderbot_changes"
"""The NOTIFY channel of guild writes; the payload is the guild id."""
_GUILD_WRITE: Final = (
    f"SELECT pg_advisory_xact_lock(:guild_id), pg_notify('{CHANGES_CHANNEL}', :guild)"
)
"""A write naming a guild waits for the guild's lock and tells the LISTENing bot processes
that the guild changed: PostgreSQL delivers the notification when the transaction commits
and drops it on a rollback, so a change's owner learns of it at once, with no round trip of
its own."""
OPEN_ERRORS: Final = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)
"""What connecting raises when the server or database cannot be used (see Database.open)."""
_NAMED: Final = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_MIGRATION_LOCK: Final = "SELECT pg_advisory_xact_lock(0, 1)"
_BUSY_ERRORS: Final = (
    asyncpg.exceptions.LockNotAvailableError,
    asyncpg.exceptions.DeadlockDetectedError,
    asyncpg.exceptions.SerializationError,
)


class PostgresDialect(Dialect):
    name = "postgresql"
    next_match_id = "nextval('match_ids')"
    new_match_ids = "SELECT nextval('match_ids') AS id FROM generate_series(1, :count)"
    sync_match_ids = (
        "SELECT setval('match_ids', coalesce(max(id), 0) + 1, false) AS next_id FROM matches"
    )
    after_bulk_insert = "ANALYZE matches, participants"
    """Autovacuum analyzes late: without it, the plans right after an import assume the
    tables are still empty (seconds per game-list query in a 100,000-match guild)."""

    side_code = "dense_rank() OVER (PARTITION BY p.match_id ORDER BY p.side)"
    side_dtype = np.dtype(np.int64)
    missing_real = "'NaN'::double precision"

    def list_table(self, parameter: str, alias: str, sql_type: str) -> str:
        return f"unnest(CAST({parameter} AS {sql_type}[])) AS {alias} (value)"

    def encode_list(self, values: Iterable[int | str]) -> Any:
        return list(values)

    def schema_words(self) -> Mapping[str, str]:
        return {
            "bigint": "BIGINT",
            "real": "DOUBLE PRECISION",
            "bool": "BOOLEAN",
            "true": "TRUE",
            "false": "FALSE",
            "without_rowid": "",
        }

    def performances_stale_trigger(self) -> Sequence[str]:
        return (
            "CREATE FUNCTION performances_stale() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN DELETE FROM performances WHERE guild_id = NEW.guild_id "
            "AND user_id = NEW.user_id; RETURN NULL; END $$",
            "CREATE TRIGGER performances_stale AFTER UPDATE OF rating ON members "
            "FOR EACH ROW EXECUTE FUNCTION performances_stale()",
        )

    def match_ids_sequence(self) -> Sequence[str]:
        assert self.sync_match_ids is not None
        return ("CREATE SEQUENCE match_ids AS BIGINT OWNED BY matches.id", self.sync_match_ids)


DIALECT: Final = PostgresDialect()


@functools.lru_cache(maxsize=512)
def _positional(sql: str) -> tuple[str, tuple[str, ...]]:
    """`:name` parameters as asyncpg's `$n`, and the names in that order."""
    names: dict[str, int] = {}

    def number(found: re.Match[str]) -> str:
        return f"${names.setdefault(found.group(1), len(names) + 1)}"

    return _NAMED.sub(number, sql), tuple(names)


def _arguments(names: Sequence[str], parameters: Parameters | None) -> list[Any]:
    return [parameters[name] for name in names] if parameters else []


_COPY_HEADER: Final = b"PGCOPY\n\xff\r\n\x00"
_SQL_TYPES: Final = {"i": "BIGINT", "f": "DOUBLE PRECISION"}
"""The column type of an 8-byte numpy column (kind) in a binary COPY."""
BULK_ROWS: Final = 1_000
"""From this many rows on, `update_rows` goes through COPY."""


def _binary_columns(data: bytes, dtypes: Sequence[np.dtype[Any]]) -> list[npt.NDArray[Any]]:
    """PostgreSQL's binary COPY output of 8-byte columns (bigint, double precision; no NULL)
    as arrays: every row has the same layout, so the rows are one structured array."""
    if not data.startswith(_COPY_HEADER):
        raise ValueError("not PostgreSQL binary COPY output")
    start = len(_COPY_HEADER) + 8 + int.from_bytes(data[15:19], "big")
    layout = np.dtype(
        [("fields", ">i2")]
        + [
            field
            for index, dtype in enumerate(dtypes)
            for field in ((f"length{index}", ">i4"), (f"value{index}", dtype.newbyteorder(">")))
        ]
    )
    body = data[start : len(data) - 2]  # the trailer: a field count of -1
    if len(body) % layout.itemsize:
        raise ValueError("a bulk read's columns must be 8-byte numbers, never NULL")
    rows = np.frombuffer(body, layout)
    lengths_ok = all((rows[f"length{index}"] == 8).all() for index in range(len(dtypes)))
    if not ((rows["fields"] == len(dtypes)).all() and lengths_ok):
        raise ValueError("a bulk read's columns must be 8-byte numbers, never NULL")
    return [rows[f"value{index}"].astype(dtype) for index, dtype in enumerate(dtypes)]


def _binary_copy(columns: Sequence[npt.NDArray[Any]]) -> bytes:
    """Columns of 8-byte numbers (no nan meaning NULL) as PostgreSQL's binary COPY input."""
    layout = np.dtype(
        [("fields", ">i2")]
        + [
            field
            for index, column in enumerate(columns)
            for field in (
                (f"length{index}", ">i4"),
                (f"value{index}", column.dtype.newbyteorder(">")),
            )
        ]
    )
    rows = np.zeros(len(columns[0]), layout)
    rows["fields"] = len(columns)
    for index, column in enumerate(columns):
        rows[f"length{index}"] = column.dtype.itemsize
        rows[f"value{index}"] = column
    return _COPY_HEADER + bytes(8) + rows.tobytes() + b"\xff\xff"


class _Connected(Session):
    """Statements on one asyncpg connection (or the pool, for reads)."""

    dialect = DIALECT

    def __init__(self, target: asyncpg.Connection | asyncpg.Pool) -> None:
        self._target = target

    async def all(self, sql: str, parameters: Parameters | None = None) -> list[Row]:
        text, names = _positional(sql)
        try:
            return list(await self._target.fetch(text, *_arguments(names, parameters)))
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error

    async def run(self, sql: str, parameters: Parameters | None = None) -> None:
        text, names = _positional(sql)
        try:
            await self._target.execute(text, *_arguments(names, parameters))
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error

    async def columns(
        self, sql: str, parameters: Parameters, dtypes: Sequence[np.dtype[Any]]
    ) -> list[npt.NDArray[Any]]:
        """Through COPY ... TO STDOUT in binary: no Record per row, and the bytes become
        columns in a worker thread."""
        text, names = _positional(sql)
        chunks: list[bytes] = []

        async def take(chunk: bytes) -> None:
            chunks.append(chunk)

        try:
            await self._target.copy_from_query(
                text, *_arguments(names, parameters), output=take, format="binary"
            )
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error
        return await asyncio.to_thread(_binary_columns, b"".join(chunks), dtypes)

    async def update_rows(
        self,
        table: str,
        keys: Sequence[str],
        values: Sequence[str],
        columns: Sequence[npt.NDArray[Any]],
    ) -> None:
        """A few rows by one statement each; a bulk update through a temporary table filled
        by a binary COPY that numpy builds in a worker thread, then one UPDATE ... FROM."""
        names = [*keys, *values]
        if len(columns[0]) < BULK_ROWS:
            rows = parameter_rows(names, columns)
            await self.run_many(update_statement(table, keys, values), rows)
            return
        payload = await asyncio.to_thread(_binary_copy, columns)
        types = ", ".join(
            f"{name} {_SQL_TYPES[column.dtype.kind]}"
            for name, column in zip(names, columns, strict=True)
        )
        await self.run(f"CREATE TEMPORARY TABLE bulk_{table} ({types}) ON COMMIT DROP")
        try:
            await self._target.copy_to_table(
                f"bulk_{table}", source=io.BytesIO(payload), columns=names, format="binary"
            )
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error
        assignments = ", ".join(f"{name} = bulk.{name}" for name in values)
        found = " AND ".join(f"{table}.{name} = bulk.{name}" for name in keys)
        await self.run(f"UPDATE {table} SET {assignments} FROM bulk_{table} bulk WHERE {found}")
        await self.run(f"DROP TABLE bulk_{table}")

    async def insert_columns(
        self, table: str, names: Sequence[str], columns: Callable[[], Sequence[Sequence[Any]]]
    ) -> None:
        """Through COPY (asyncpg encodes the records, which a worker thread makes)."""
        records = await asyncio.to_thread(lambda: list(zip(*columns(), strict=True)))
        if not records:
            return
        try:
            await self._target.copy_records_to_table(table, records=records, columns=list(names))
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error

    async def run_many(self, sql: str, rows: Sequence[Parameters]) -> None:
        if not rows:
            return
        text, names = _positional(sql)
        try:
            await self._target.executemany(text, [_arguments(names, row) for row in rows])
        except _BUSY_ERRORS as error:
            raise DatabaseBusy() from error


class PostgresEngine(Engine):
    def __init__(self, writer: asyncpg.Connection, pool: asyncpg.Pool) -> None:
        self._writer_connection = writer
        self._writer = _Connected(writer)
        self._pool = pool
        self._lock = asyncio.Lock()
        self.reader = _Connected(pool)
        self._url = ""
        self._listener: asyncpg.Connection | None = None

    @classmethod
    async def open(cls, url: str) -> PostgresEngine:
        """Connect to the database at `url` (it must exist) and migrate it."""
        settings = {"lock_timeout": f"{int(WRITE_WAIT_SECONDS * 1000)}ms"}
        writer = await asyncpg.connect(url, server_settings=settings)
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
        except BaseException:
            await writer.close()
            raise
        engine = cls(writer, pool)
        engine._url = url
        try:
            await engine._migrate()
        except BaseException:
            await engine.close()
            raise
        return engine

    async def _version(self) -> int:
        row = await self._writer.one("SELECT to_regclass('schema_version') IS NOT NULL AS present")
        if row is None or not row["present"]:
            return 0
        found = await self._writer.one("SELECT max(version) AS version FROM schema_version")
        version = 0 if found is None or found["version"] is None else int(found["version"])
        if version > len(MIGRATIONS):
            raise newer_than_this_code(version)
        return version

    async def _migrate(self) -> None:
        """Apply the migrations the database has not seen yet, each in its own transaction
        under a lock (other processes may be migrating the same database; the version is
        read again under it). An up-to-date database is only read."""
        while await self._version() < len(MIGRATIONS):
            async with self._writer_connection.transaction():
                await self._writer.run(_MIGRATION_LOCK)
                version = await self._version()
                if version == len(MIGRATIONS):
                    return
                if version == 0:
                    await self._writer.run(
                        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
                    )
                for statement in migration_statements(version + 1, DIALECT):
                    await self._writer.run(statement)
                await self._writer.run("DELETE FROM schema_version")
                await self._writer.run(
                    "INSERT INTO schema_version (version) VALUES (:version)",
                    {"version": version + 1},
                )

    @asynccontextmanager
    async def transaction(self, guild_id: int | None) -> AsyncIterator[Session]:
        async with self._lock, self._writer_connection.transaction():
            if guild_id is not None:
                await self._writer.run(_GUILD_WRITE, {"guild_id": guild_id, "guild": str(guild_id)})
            yield self._writer

    async def integrity_check(self) -> str:
        """PostgreSQL checks its pages itself; this only asks that the schema answers."""
        row = await self.reader.one("SELECT max(version) AS version FROM schema_version")
        return "ok" if row is not None and row["version"] == len(MIGRATIONS) else "no schema"

    async def watch_changes(self, on_change: Callable[[int], None]) -> bool:
        """LISTEN for other connections' guild writes on a connection of its own (one more
        than the pool and the writer); our own writer's notifications are left out."""
        if self._listener is not None:
            raise RuntimeError("already watching changes")
        own = self._writer_connection.get_server_pid()

        def heard(_: object, pid: int, channel: str, payload: str) -> None:
            if pid != own:
                on_change(int(payload))

        self._listener = await asyncpg.connect(self._url)
        self._listener.add_termination_listener(
            lambda _: log.warning("the change listener's connection closed; polling only")
        )
        await self._listener.add_listener(CHANGES_CHANNEL, heard)
        return True

    async def close(self) -> None:
        async with self._lock:
            if self._listener is not None:
                await self._listener.close()
            await self._pool.close()
            await self._writer_connection.close()


async def copy_rows(
    session: Session, table: str, columns: Sequence[str], records: Sequence[Sequence[Any]]
) -> None:
    """COPY records into a table on the session's connection (migrate-db's bulk path)."""
    assert isinstance(session, _Connected)
    await session._target.copy_records_to_table(table, records=records, columns=list(columns))
