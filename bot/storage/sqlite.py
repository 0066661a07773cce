"""The SQLite engine (the embedded default), through aiosqlite.

Connections in WAL mode, so reads never wait for writes: the writer, a query-only reader
for single statements, and up to SNAPSHOT_READERS query-only connections for read snapshots
(one deferred transaction each: WAL keeps the state its first statement saw). Each write
is one `BEGIN IMMEDIATE` transaction behind an asyncio.Lock (use cases of this process
never interleave); other processes' writers are waited for by SQLite's
busy_timeout, and a write that still finds the file locked after WRITE_WAIT_SECONDS is
refused with DatabaseBusy before anything ran. synchronous=FULL: a match the bot has
announced as recorded survives a power cut (NORMAL would only protect against corruption).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from itertools import chain
from typing import Any, Final, NamedTuple

import aiosqlite
import numpy as np
import numpy.typing as npt

from bot.storage.engine import (
    WRITE_WAIT_SECONDS,
    Ahead,
    ColumnSlices,
    DatabaseBusy,
    DatabaseUnavailable,
    Dialect,
    Engine,
    Parameters,
    Row,
    Session,
    joined_columns,
    label_codes,
    row_slices,
)
from bot.storage.schema import MIGRATIONS, migrate, newer_than_this_code

OPEN_ERRORS: Final = (OSError, sqlite3.Error)
"""What opening a file raises when it cannot be used (see Database.open)."""
CHUNK_ROWS: Final = 20_000
"""Rows a bulk read fetches, or a bulk update sends, per call: converting a chunk holds the
interpreter lock for a few milliseconds, not the event loop's hundreds."""
ROWS_PER_INSERT: Final = 16
"""Rows a bulk insert's statement takes: a statement run costs more than a row (800,000
participants in plain sqlite3: 3.6-3.8 s a row a statement, 2.5-3.0 s eight or 64 a
statement). It divides INSERT_SLICE_ROWS."""
GROUPED_ROWS_MAX: Final = 64
"""The longest run of rows a grouped bulk update sets by one statement (a match has at most
32 participants): see `_updates`."""
_BUSY_CODES: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})
_FAULTS: Final = {
    sqlite3.SQLITE_FULL: "the disk holding the database is full; nothing was changed",
    sqlite3.SQLITE_READONLY: "the database file or its folder is read-only; nothing was changed",
    sqlite3.SQLITE_CANTOPEN: "cannot open the database file (its folder is missing, "
    "read-only or not accessible)",
    sqlite3.SQLITE_PERM: "no permission to open the database file",
    sqlite3.SQLITE_NOTADB: "the file is not a SQLite database",
    sqlite3.SQLITE_CORRUPT: "the database file is damaged (corrupt); nothing was changed",
    sqlite3.SQLITE_IOERR: "the database file could not be read or written (an I/O error: "
    "is its disk full?); nothing was changed",
}
"""The one line for each fault of the file or its disk (by primary result code)."""
WORKER_STOP_SECONDS: Final = 5.0
"""How long a failed open waits for aiosqlite's worker thread to end."""
SNAPSHOT_READERS: Final = 4
"""Read snapshots open at once at most (each on a connection, kept open between reads)."""


class SqliteDialect(Dialect):
    name = "sqlite"
    ordered_join = "CROSS JOIN"
    rebuilt_around_bulk_insert = (
        "SELECT 'DROP INDEX ' || name AS drop_sql, sql AS create_sql FROM sqlite_master "
        "WHERE type = 'index' AND tbl_name = :table AND sql IS NOT NULL"
    )
    """The indexes made by CREATE INDEX (a table's own keys are part of it)."""

    def list_table(self, parameter: str, alias: str, sql_type: str) -> str:
        return f"json_each({parameter}) AS {alias}"

    def encode_list(self, values: Iterable[int | str]) -> Any:
        return json.dumps(list(values))

    def schema_words(self) -> Mapping[str, str]:
        return {
            "bigint": "INTEGER",
            "real": "REAL",
            "bool": "INTEGER",
            "true": "1",
            "false": "0",
            "without_rowid": "WITHOUT ROWID",
            "serial_key": "INTEGER PRIMARY KEY AUTOINCREMENT",
            "blob": "BLOB",
        }

    def bool_values(self, flags: npt.NDArray[np.bool_]) -> list[Any]:
        """ints: the column is an INTEGER, and sqlite3 binds an int as it is but a bool
        after three adapter lookups (the 800,000 participants of an import: 0.2 s)."""
        values: list[Any] = flags.astype(np.int64).tolist()
        return values

    def performances_stale_trigger(self) -> Sequence[str]:
        return (
            "CREATE TRIGGER performances_stale AFTER UPDATE OF rating ON members "
            "BEGIN DELETE FROM performances WHERE guild_id = NEW.guild_id "
            "AND user_id = NEW.user_id; END",
        )

    async def compare_listed_checks(
        self, session: Session, checks: Sequence[tuple[str, str, Sequence[str]]]
    ) -> None:
        """SQLite checks `x IN (three values or more)` by building a lookup table for each
        row: 3 us a row, 60 % of a bulk insert of participants. Each such CHECK becomes
        `x = a OR x = b ...`, which means the same (NULL passes both), in place: the way
        SQLite documents for changing a CHECK that the rows already satisfy (writable
        schema, then a new schema version so that every connection reads it again). A
        build in defensive mode ignores the writable schema: its CHECKs stay IN lists,
        as strict and only slower."""
        found = await session.one("PRAGMA schema_version")
        assert found is not None
        await session.run("PRAGMA writable_schema = ON")
        writable = await session.one("PRAGMA writable_schema")
        if writable is None or not writable[0]:
            return
        for table, column, values in checks:
            quoted = [f"'{value}'" for value in values]
            listed = f"{column} IN ({', '.join(quoted)})"
            compared = " OR ".join(f"{column} = {value}" for value in quoted)
            await session.run(
                "UPDATE sqlite_master SET sql = replace(sql, :listed, :compared) "
                "WHERE type = 'table' AND name = :table",
                {"listed": listed, "compared": compared, "table": table},
            )
        await session.run(f"PRAGMA schema_version = {int(found[0]) + 1}")
        await session.run("PRAGMA writable_schema = OFF")


DIALECT: Final = SqliteDialect()


def _refusal(error: sqlite3.Error) -> DatabaseBusy | DatabaseUnavailable | None:
    """The refusal the user reads for an error of the file or its disk (None: a bug)."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return None
    if code & 0xFF in _BUSY_CODES:
        return DatabaseBusy()
    message = _FAULTS.get(code & 0xFF)
    return None if message is None else DatabaseUnavailable(message)


class _Statement(NamedTuple):
    """A statement held for the worker thread."""

    sql: str
    arguments: Any
    many: bool = False
    """executemany: `arguments` is a sequence of parameter rows."""
    rows: list[list[Row]] | None = None
    """A read ahead's (SqliteSession.read_ahead): where its rows go."""


def _executed(
    connection: sqlite3.Connection, held: Sequence[_Statement], sql: str | None, parameters: Any
) -> list[Row]:
    """On aiosqlite's worker thread: the statements held, in order, then the one whose rows
    are wanted (if any)."""
    for statement in held:
        if statement.many:
            connection.executemany(statement.sql, statement.arguments)
        elif statement.rows is None:
            connection.execute(statement.sql, statement.arguments)
        else:
            statement.rows.append(connection.execute(statement.sql, statement.arguments).fetchall())
    return [] if sql is None else list(connection.execute(sql, parameters).fetchall())


class SqliteSession(Session):
    dialect = DIALECT

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._held: list[_Statement] | None = None
        """A write transaction's statements whose rows nobody reads, held until the next
        read or the commit, which runs them on the worker thread in the same hop (each hop
        costs ~50 us; a report's transaction is about ten statements): None outside one."""

    def hold_from(self, first: str) -> None:
        """From now on (a write transaction begins with `first`), hold the statements whose
        rows nobody reads."""
        self._held = [_Statement(first, ())]

    def stop_holding(self) -> None:
        self._held = None

    async def _flush(self, sql: str | None = None, parameters: Any = ()) -> list[Row]:
        """The statements held and then `sql`, in one hop; the rows of `sql`."""
        held, self._held = self._held, ([] if self._held is not None else None)
        with _refused():
            if not held:
                if sql is None:
                    return []
                return list(await self._connection.execute_fetchall(sql, parameters))
            rows: list[Row] = await self._connection._execute(  # type: ignore[no-untyped-call]
                _executed, self._connection._conn, held, sql, parameters
            )
            return rows

    async def all(self, sql: str, parameters: Parameters | None = None) -> list[Row]:
        return await self._flush(sql, parameters or {})

    async def run(self, sql: str, parameters: Parameters | None = None) -> None:
        if self._held is None:
            await self.all(sql, parameters)
        else:
            self._held.append(_Statement(sql, parameters or {}))

    def read_ahead(self, sql: str, parameters: Parameters | None = None) -> Ahead[list[Row]]:
        """In a write transaction, held with the statements whose rows nobody reads: the
        next hop runs it in its place among them."""
        if self._held is None:
            return super().read_ahead(sql, parameters)
        return self._held_rows(self._held, sql, parameters)

    async def run_ahead(self, sql: str, parameters: Parameters | None = None) -> Ahead[list[Row]]:
        """In a write transaction, held as a read ahead is."""
        if self._held is None:
            return await super().run_ahead(sql, parameters)
        return self._held_rows(self._held, sql, parameters)

    def _held_rows(
        self, held: list[_Statement], sql: str, parameters: Parameters | None
    ) -> Ahead[list[Row]]:
        found: list[list[Row]] = []
        held.append(_Statement(sql, parameters or {}, rows=found))

        async def rows() -> list[Row]:
            if not found:
                await self._flush()
            return found[0]

        return Ahead(rows)

    async def columns(
        self, sql: str, parameters: Parameters, dtypes: Sequence[np.dtype[Any]]
    ) -> list[npt.NDArray[Any]]:
        """Fetched in chunks of plain tuples (no sqlite3.Row), each turned into columns in a
        worker thread while the next chunk is fetched: the rows of at most two chunks exist
        at a time."""
        await self._flush()
        layout = np.dtype([(f"column{index}", dtype) for index, dtype in enumerate(dtypes)])
        codes: dict[Any, int] = {}
        chunks: list[list[npt.NDArray[Any]]] = []
        converting: asyncio.Future[list[npt.NDArray[Any]]] | None = None
        with _refused():
            cursor = await self._connection.execute(sql, parameters)
            cursor.row_factory = None
            while rows := list(await cursor.fetchmany(CHUNK_ROWS)):
                if converting is not None:
                    chunks.append(await converting)
                converting = asyncio.ensure_future(
                    asyncio.to_thread(_transposed, rows, layout, codes)
                )
            await cursor.close()
        if converting is not None:
            chunks.append(await converting)
        return await asyncio.to_thread(joined_columns, chunks, dtypes)

    async def update_rows(
        self,
        table: str,
        keys: Sequence[str],
        values: Sequence[str],
        count: int,
        blocks: Iterable[Sequence[npt.NDArray[Any]]],
        *,
        grouped: bool = False,
    ) -> None:
        """CHUNK_ROWS rows per trip, their parameters built in a worker thread: the
        parameters of at most one chunk exist at a time (`_updates` says how)."""
        await self._flush()
        for columns in blocks:
            for first in range(0, len(columns[0]), CHUNK_ROWS):
                chunk = [column[first : first + CHUNK_ROWS] for column in columns]
                updates = await asyncio.to_thread(_updates, table, keys, values, chunk, grouped)
                with _refused():
                    for statement, rows in updates:
                        await self._connection.executemany(statement, rows)

    async def insert_columns(
        self,
        table: str,
        names: Sequence[str],
        count: int,
        columns: ColumnSlices,
        *,
        null_values: Mapping[str, int | str] | None = None,
    ) -> None:
        """ROWS_PER_INSERT rows a statement (the rest one a statement), their positional
        parameters made a slice at a time on the worker thread as executemany takes them
        (the Python values of one slice exist at a time). Dirty pages stay in the cache
        meanwhile: spilled to the WAL, an index's page is written again for each later row
        it takes. A null value is sent as it is and made NULL by the statement: sqlite3
        binds a None after three adapter lookups (0.3 s of an import's participants)."""
        if not count:
            return
        await self._flush()
        in_full_statements = count - count % ROWS_PER_INSERT
        nulls = null_values or {}
        row = f"({', '.join(_placeholder(nulls.get(name)) for name in names)})"
        with _refused():
            async with self.built_after(table, count, self._connection.execute):
                await self._connection.execute("PRAGMA cache_spill = OFF")
                try:
                    for first, stop, rows_per_statement in (
                        (0, in_full_statements, ROWS_PER_INSERT),
                        (in_full_statements, count, 1),
                    ):
                        slices = row_slices(stop, columns, first, rows_per_statement)
                        await self._connection.executemany(
                            f"INSERT INTO {table} ({', '.join(names)}) "
                            f"VALUES {', '.join([row] * rows_per_statement)}",
                            chain.from_iterable(rows() for rows in slices),
                        )
                finally:
                    await self._connection.execute("PRAGMA cache_spill = ON")

    async def run_many(self, sql: str, rows: Sequence[Parameters]) -> None:
        if not rows:
            return
        if self._held is not None:
            self._held.append(_Statement(sql, rows, many=True))
            return
        with _refused():
            await self._connection.executemany(sql, rows)

    async def commit(self) -> None:
        """End a write transaction: the statements held, then COMMIT, in one hop."""
        if self._held is not None:
            self._held.append(_Statement("COMMIT", ()))
        else:
            self._held = [_Statement("COMMIT", ())]
        try:
            await self._flush()
        finally:
            self._held = None


def _placeholder(null_value: int | str | None) -> str:
    """A parameter's place in a statement, where `null_value` (if any) stands for NULL."""
    if null_value is None:
        return "?"
    if isinstance(null_value, str):
        quoted = null_value.replace("'", "''")
        return f"NULLIF(?, '{quoted}')"
    return f"NULLIF(?, {int(null_value)})"


def _tuples(columns: Sequence[npt.NDArray[Any]]) -> list[tuple[Any, ...]]:
    """Columns as rows of Python numbers: worker-thread work."""
    return list(zip(*(column.tolist() for column in columns), strict=True))


def _updates(
    table: str,
    keys: Sequence[str],
    values: Sequence[str],
    columns: Sequence[npt.NDArray[Any]],
    grouped: bool,
) -> list[tuple[str, list[Any]]]:
    """The statements (each with its rows of positional parameters) that set the `values`
    columns of the rows found by the `keys` columns (`columns`: keys, then values).

    `grouped` (each first key names a few rows, told apart by the second: a match's
    participants, by match_id and position): each run of rows of one first key is set by
    one statement, whose CASE on the second key picks each row's values (the group's other
    rows keep theirs). Most of an UPDATE's cost is per statement run, not per row: the
    ratings of 800,000 participant rows took 2.4-2.8 s a row at a time in plain sqlite3,
    0.9-1.1 s a match at a time. Otherwise (or for a run longer than GROUPED_ROWS_MAX) a
    statement a row, its parameters as tuples (sqlite3 binds them 1.6x faster than
    mappings). Worker-thread work."""
    first_key = columns[0]
    if not grouped or not len(first_key):
        return [_row_by_row(table, keys, values, columns)]
    starts = np.flatnonzero(np.r_[True, first_key[1:] != first_key[:-1]])
    lengths = np.diff(np.r_[starts, len(first_key)])
    if lengths.max() > GROUPED_ROWS_MAX:
        return [_row_by_row(table, keys, values, columns)]
    group, place = keys
    updates = []
    for length in np.unique(lengths).tolist():
        chosen = starts[lengths == length]
        rows = chosen[:, None] + np.arange(length)
        places = columns[1][rows].astype(object)
        # per value column, (place, value) pairs: CASE place WHEN ? THEN ? ...; the group
        parameters = np.empty((len(chosen), 2 * length * len(values) + 1), dtype=object)
        for number, column in enumerate(columns[2:]):
            cases = parameters[:, 2 * length * number : 2 * length * (number + 1)]
            cases[:, 0::2] = places
            cases[:, 1::2] = column[rows].astype(object)
        parameters[:, -1] = first_key[chosen].astype(object)
        picks = " ".join(["WHEN ? THEN ?"] * length)
        assignments = ", ".join(f"{name} = CASE {place} {picks} ELSE {name} END" for name in values)
        updates.append((f"UPDATE {table} SET {assignments} WHERE {group} = ?", parameters.tolist()))
    return updates


def _row_by_row(
    table: str, keys: Sequence[str], values: Sequence[str], columns: Sequence[npt.NDArray[Any]]
) -> tuple[str, list[Any]]:
    """`_updates`' statement a row, with its parameters as tuples in the statement's order
    (values, then keys)."""
    assignments = ", ".join(f"{name} = ?" for name in values)
    found = " AND ".join(f"{name} = ?" for name in keys)
    ordered = [*columns[len(keys) :], *columns[: len(keys)]]
    return f"UPDATE {table} SET {assignments} WHERE {found}", _tuples(ordered)


def _transposed(
    rows: Sequence[Sequence[Any]], layout: np.dtype[Any], codes: dict[Any, int]
) -> list[npt.NDArray[Any]]:
    """Rows as columns (through one structured array: numpy reads the tuples), run in a
    worker thread. Labels (object columns) become codes, kept in `codes` across a read's
    chunks."""
    table = np.array(rows, layout)
    return [
        label_codes(table[name], codes)
        if layout[name] == np.dtype(object)
        else np.ascontiguousarray(table[name])
        for name in layout.names or ()
    ]


@contextmanager
def _refused() -> Iterator[None]:
    """SQLITE_BUSY (busy_timeout spent waiting for other processes) as DatabaseBusy; a full
    disk, a read-only or damaged file and the like as DatabaseUnavailable."""
    try:
        yield
    except sqlite3.Error as error:
        refusal = _refusal(error)
        if refusal is None:
            raise
        raise refusal from error


async def _connect(path: str) -> aiosqlite.Connection:
    """A connection whose failure leaves nothing running: aiosqlite's worker thread, left
    to stop on its own, would finish after the event loop closed (a traceback)."""
    connection = aiosqlite.connect(path, isolation_level=None)
    try:
        with _refused():
            await connection
    except BaseException:
        await asyncio.to_thread(connection._thread.join, WORKER_STOP_SECONDS)
        raise
    try:
        connection.row_factory = sqlite3.Row
        with _refused():
            await connection.execute(f"PRAGMA busy_timeout = {int(WRITE_WAIT_SECONDS * 1000)}")
    except BaseException:
        await connection.close()
        raise
    return connection


async def _checked_version(connection: aiosqlite.Connection) -> int:
    """The file's schema version; a newer ladderbot's is refused."""
    rows = list(await connection.execute_fetchall("PRAGMA user_version"))
    version = int(rows[0][0]) if rows else 0
    if version > len(MIGRATIONS):
        raise newer_than_this_code(version)
    return version


async def _refuse_foreign_or_new(connection: aiosqlite.Connection, create: bool) -> None:
    """A file without ladderbot's schema: refused if it holds tables (another program's
    database), or if this command must not create a database. Version and tables are read
    in one statement, one snapshot: another process migrating the new file meanwhile
    commits both at once and is not mistaken for a foreign program."""
    rows = list(
        await connection.execute_fetchall(
            "SELECT (SELECT user_version FROM pragma_user_version),"
            " (SELECT count(*) FROM sqlite_master WHERE type = 'table')"
        )
    )
    version, tables = rows[0]
    if version:
        return
    if tables:
        raise DatabaseUnavailable("the file holds tables that are not ladderbot's")
    if not create:
        raise DatabaseUnavailable("the file holds no ladderbot database yet")


async def _connect_reader(path: str) -> aiosqlite.Connection:
    """A connection that can only read."""
    reader = await _connect(path)
    try:
        with _refused():
            await reader.execute("PRAGMA query_only = ON")
    except BaseException:
        await reader.close()
        raise
    return reader


class SqliteEngine(Engine):
    def __init__(
        self, writer: aiosqlite.Connection, reader: aiosqlite.Connection, path: str = ""
    ) -> None:
        self._writer = SqliteSession(writer)
        self._writer_connection = writer
        self._reader_connection = reader
        self._lock = asyncio.Lock()
        self.reader = SqliteSession(reader)
        self.reader.alone = self.snapshot
        self._path = path
        self._snapshot_turns = asyncio.Semaphore(SNAPSHOT_READERS)
        self._idle_readers: list[aiosqlite.Connection] = []
        self._snapshot_readers: set[aiosqlite.Connection] = set()
        """Every open snapshot connection, idle or in use (closed with the engine)."""

    @classmethod
    async def open(cls, path: str, create: bool) -> SqliteEngine:
        """Open and migrate the database file at `path`; `create`: an empty or new file
        becomes a ladderbot database (else it is refused, unchanged). A file holding tables
        of something else is refused either way."""
        writer = await _connect(path)
        try:
            with _refused():
                version = await _checked_version(writer)
                if version == 0:
                    await _refuse_foreign_or_new(writer, create)
                for pragma in ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON"):
                    await writer.execute(f"PRAGMA {pragma}")
            reader = await _connect_reader(path)
        except BaseException:
            await writer.close()
            raise
        engine = cls(writer, reader, path)
        try:
            await engine._migrate()
        except BaseException:
            await engine.close()
            raise
        return engine

    async def _version(self) -> int:
        return await _checked_version(self._writer_connection)

    async def _migrate(self) -> None:
        """Apply the migrations the file has not seen yet, each in its own transaction (the
        version is read again inside it: another process may have migrated meanwhile). An
        up-to-date file is only read: opening it for a read command writes nothing."""
        while await self._version() < len(MIGRATIONS):
            async with self.transaction(None) as session:
                found = await session.one("PRAGMA user_version")  # inside the transaction
                version = 0 if found is None else int(found[0])
                if version < len(MIGRATIONS):
                    await migrate(session, version + 1)
                    await session.run(f"PRAGMA user_version = {version + 1}")

    @asynccontextmanager
    async def transaction(self, guild_id: int | None) -> AsyncIterator[Session]:
        """SQLite has one writer at a time: BEGIN IMMEDIATE takes the whole file. It goes
        to the worker thread with the transaction's first read (or its commit), and the
        statements whose rows nobody reads go with the next read or the commit: a
        report's transaction takes a few hops instead of one per statement."""
        async with self._lock:
            self._writer.hold_from("BEGIN IMMEDIATE")
            try:
                yield self._writer
                await self._writer.commit()
            except BaseException:
                self._writer.stop_holding()
                if self._writer_connection.in_transaction:
                    # A COMMIT cancelled on its way (a stop) still runs in the worker thread,
                    # before this ROLLBACK, which then finds no transaction: what ended the
                    # write is what propagates, not that error.
                    with contextlib.suppress(sqlite3.OperationalError):
                        await self._writer_connection.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Session]:
        """A deferred transaction on a reader of its own: its first statement fixes the
        state every later one sees (WAL keeps it while writers commit). A connection whose
        transaction could not be ended cleanly (a cancelled read) is closed, not reused."""
        async with self._snapshot_turns:
            if self._idle_readers:
                connection = self._idle_readers.pop()
            else:
                connection = await _connect_reader(self._path)
                self._snapshot_readers.add(connection)
            reusable = False
            try:
                with _refused():
                    await connection.execute("BEGIN")
                yield SqliteSession(connection)
            finally:
                try:
                    if connection.in_transaction:
                        await connection.execute("ROLLBACK")
                    reusable = True
                finally:
                    if reusable:
                        self._idle_readers.append(connection)
                    else:
                        self._snapshot_readers.discard(connection)
                        await connection.close()

    async def integrity_check(self) -> str:
        row = await self.reader.one("PRAGMA integrity_check")
        return "no answer" if row is None else str(row[0])

    async def close(self) -> None:
        async with self._lock:
            for connection in self._snapshot_readers:
                await connection.close()
            self._snapshot_readers.clear()
            self._idle_readers.clear()
            await self._reader_connection.close()
            await self._writer_connection.close()
