"""The PostgreSQL engine (15 or newer), through asyncpg.

Reads go through a small pool: a single statement on any of its connections, a read
snapshot as one REPEATABLE READ, READ ONLY transaction on one connection. Writes go
through a pool of their own (WRITERS connections), one transaction per connection:
writes to different guilds run at once, and their commits share the server's WAL flushes,
while a guild's writes in this process wait in turn for it (an asyncio.Lock per guild,
taken before a connection). A write naming a guild first takes
`pg_advisory_xact_lock(guild id)`, so two processes' writes to one guild never interleave
while other guilds' writes run beside them; match ids come from sequence
match_ids, which takes no lock (a rolled-back write leaves a gap in the ids). A lock not
granted within WRITE_WAIT_SECONDS (lock_timeout) refuses the write with DatabaseBusy, as do
a deadlock or serialization failure: the transaction rolls back and nothing changed.

A lost connection (the server restarted, the backend terminated, the network gone) is
replaced: the pools open a new one on the next use. A statement on the lost one raises
ConnectionLost, one line the user reads; a single-statement read, and a transaction whose
first statement found its pooled connection already dead, are retried once on a new one.
Nothing waits forever: taking a connection waits at most WRITE_WAIT_SECONDS (then
DatabaseBusy), connecting CONNECT_SECONDS, a statement COMMAND_SECONDS.

The same statement that takes a guild's lock NOTIFYs channel ladderbot_changes with the
guild id; a bot process LISTENs on one more connection (watch_changes), so that a guild's
owner learns at once of changes made by other processes and the command line (SPEC 8.4).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import re
import socket
import weakref
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Final

import asyncpg
import numpy as np
import numpy.typing as npt

from bot.storage.engine import (
    UNKNOWN_COMMIT,
    WRITE_WAIT_SECONDS,
    ColumnSlices,
    ConnectionLost,
    DatabaseBusy,
    DatabaseUnavailable,
    Dialect,
    Engine,
    Parameters,
    Row,
    Session,
    joined_columns,
    made_each,
    row_slices,
)
from bot.storage.schema import MIGRATIONS, migrate, newer_than_this_code

log = logging.getLogger(__name__)

CHANGES_CHANNEL: Final = "ladderbot_changes"
"""The NOTIFY channel of guild writes; the payload is the guild id."""
_GUILD_WRITE: Final = (
    "BEGIN; SELECT pg_advisory_xact_lock({guild_id}), "
    f"pg_notify('{CHANGES_CHANNEL}', '{{guild_id}}')"
)
"""A write naming a guild begins, waits for the guild's lock and tells the LISTENing bot
processes that the guild changed, in one round trip: PostgreSQL delivers the notification
when the transaction commits and drops it on a rollback, so a change's owner learns of it at
once, with no round trip of its own. Two statements in one message go as a simple query,
which takes no parameters: the guild id is written in as an integer."""
WRITERS: Final = 4
"""Write connections at most (opened as writes to different guilds overlap): enough for the
server to flush several guilds' commits at once, few enough for 16 processes on one server."""
OPEN_ERRORS: Final = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)
"""What connecting raises when the server or database cannot be used (see Database.open)."""
_NAMED: Final = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_MIGRATION_LOCK: Final = "SELECT pg_advisory_xact_lock(0, 1)"
_BUSY_ERRORS: Final = (
    asyncpg.exceptions.LockNotAvailableError,
    asyncpg.exceptions.DeadlockDetectedError,
    asyncpg.exceptions.SerializationError,
)
_LOST_ERRORS: Final = (
    OSError,  # ConnectionResetError, a refused connection, TimeoutError (asyncio's too)
    asyncpg.InterfaceError,  # a closed connection
    asyncpg.exceptions.InternalClientError,  # a protocol state a lost connection left
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,  # terminated, shut down, cancelled
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, a full disk
)
"""What a statement raises when its connection or the server fails, not its SQL."""
_NOT_CONNECTABLE: Final = (
    asyncpg.exceptions.InvalidCatalogNameError,  # the database was dropped
    asyncpg.exceptions.ObjectNotInPrerequisiteStateError,  # ALLOW_CONNECTIONS false
    asyncpg.exceptions.InsufficientPrivilegeError,  # CONNECT revoked
    asyncpg.exceptions.InvalidAuthorizationSpecificationError,
    asyncpg.exceptions.InvalidPasswordError,
)
"""What connecting raises when the server answers but refuses this database (a pool opens a
new connection whenever one was lost)."""
_READ_ONLY: Final = asyncpg.exceptions.ReadOnlySQLTransactionError
"""A write to a database that only reads (a standby, default_transaction_read_only)."""
DEAD_PEER_SECONDS: Final = 30.0
"""About how long a connection to a server that vanished without closing it takes to fail."""
_CUT_OFF: Final = (
    ConnectionResetError,
    BrokenPipeError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
)
"""Errors whose own text (a protocol state, "released back to the pool") means only that
the connection is gone."""
CONNECT_SECONDS: Final = 10.0
"""How long opening a connection may take."""
COMMAND_SECONDS: Final = 300.0
"""How long one statement may take before it counts as lost (the longest, an import's COPY
of a million rows, takes seconds): no command hangs on a connection that died silently."""
CLOSE_SECONDS: Final = 10.0
"""How long closing waits for the writes under way before it drops the connections."""


def _reason(error: BaseException) -> str:
    """The first line of what the driver said, for the one line the user reads."""
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, _CUT_OFF):
        return "the connection to it was lost"
    text = str(error).strip().splitlines()
    return (text[0] if text else type(error).__name__)[:200]


def _lost(error: BaseException) -> DatabaseUnavailable:
    if isinstance(error, asyncpg.exceptions.DiskFullError):
        return DatabaseUnavailable("the database server's disk is full; nothing was changed")
    if isinstance(error, asyncpg.exceptions.ReadOnlySQLTransactionError):
        return DatabaseUnavailable(
            f"the database is read-only ({_reason(error)}); nothing was changed"
        )
    return ConnectionLost(f"the database is unavailable ({_reason(error)}); nothing was changed")


@contextmanager
def _refused() -> Iterator[None]:
    """A driver error the user should read as one line: DatabaseBusy (a lock not granted in
    time, a deadlock), ConnectionLost (the connection or server failed)."""
    try:
        yield
    except _BUSY_ERRORS as error:
        raise DatabaseBusy() from error
    except (*_LOST_ERRORS, *_NOT_CONNECTABLE, _READ_ONLY) as error:
        raise _lost(error) from error


def _unblock_copy(writing_allowed: asyncio.Event | None, _: object) -> None:
    """When a connection is lost, wake a COPY that waits for the socket to drain: asyncpg
    (0.30-0.32) waits on its protocol's writing_allowed with no timeout, and nothing sets it
    once the connection is gone, so the COPY would wait forever. Woken, it fails with the
    connection's error."""
    if writing_allowed is not None:
        writing_allowed.set()


class _QuietLostConnections(logging.Filter):
    """asyncio's log lines about a connection that is already lost and reported (a write to
    the closed socket, the unread error of asyncpg's TLS probe): the user already reads the
    one line that says so."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("socket.send() raised exception"):
            return False
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, ConnectionError | asyncpg.exceptions.PostgresConnectionError)


_QUIET: Final = _QuietLostConnections()


class PostgresDialect(Dialect):
    name = "postgresql"
    next_match_id = "nextval('match_ids')"
    new_match_ids = "SELECT nextval('match_ids') AS id FROM generate_series(1, :count)"
    sync_match_ids = (
        "SELECT setval('match_ids', coalesce(max(id), 0) + 1, false) AS next_id FROM matches"
    )
    rebuilt_around_bulk_insert = (
        "SELECT drop_sql, create_sql FROM ("
        "SELECT 0 AS step, format('DROP INDEX %I', relname) AS drop_sql, "
        "pg_get_indexdef(indexrelid) AS create_sql FROM pg_index "
        "JOIN pg_class ON pg_class.oid = indexrelid "
        "WHERE indrelid = to_regclass(CAST(:table AS text)) "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid) "
        "UNION ALL SELECT CASE contype WHEN 'f' THEN 2 ELSE 1 END, "
        "format('ALTER TABLE %I DROP CONSTRAINT %I', relname, conname), "
        "format('ALTER TABLE %I ADD CONSTRAINT %I %s', relname, conname, "
        "pg_get_constraintdef(pg_constraint.oid)) FROM pg_constraint "
        "JOIN pg_class ON pg_class.oid = conrelid "
        "WHERE conrelid = to_regclass(CAST(:table AS text)) AND (contype = 'f' "
        "AND confrelid <> 'guilds'::regclass OR contype IN ('p', 'u') AND NOT EXISTS "
        "(SELECT 1 FROM pg_constraint AS referring WHERE referring.contype = 'f' "
        "AND referring.conindid = pg_constraint.conindid))"
        ") AS rebuilt ORDER BY step"
    )
    """Its indexes, primary and unique keys (each checked by a lookup per row; built once
    by a sort) unless a foreign key needs them, and its foreign keys (a query per row;
    checked again by one join), keys before the foreign keys that may need them. Dropping
    a foreign key locks the table it references until the commit: never guilds, which every
    command of every guild reads (a first import holds only the log's tables: the other
    guilds' reads of matches and participants wait for it, 7 s for 100,000 matches here)."""
    after_bulk_insert = (
        "ANALYZE matches (guild_id, status, applied_at, id), participants (match_id, user_id, "
        "enabled)"
    )
    """Autovacuum analyzes late: without it, the plans right after an import assume the
    tables are still empty (seconds per game-list query in a 100,000-match guild). The
    columns the log's joins and filters use (any ANALYZE counts the rows): 78-94 ms after
    a 100,000-match import against 160-274 ms for every column."""

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
            "serial_key": "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            "blob": "BYTEA",
        }

    def performances_stale_trigger(self) -> Sequence[str]:
        return (
            "CREATE FUNCTION performances_stale() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN DELETE FROM performances WHERE guild_id = NEW.guild_id "
            "AND user_id = NEW.user_id; RETURN NULL; END $$",
            "CREATE TRIGGER performances_stale AFTER UPDATE OF rating ON members "
            "FOR EACH ROW EXECUTE FUNCTION performances_stale()",
        )

    def participants_room(self) -> Sequence[str]:
        return ("ALTER TABLE participants SET (fillfactor = 50)",)

    async def compare_listed_checks(
        self, session: Session, checks: Sequence[tuple[str, str, Sequence[str]]]
    ) -> None:
        """Nothing to do: PostgreSQL checks an IN list as fast as the comparisons."""

    def log_chunks_storage(self) -> Sequence[str]:
        # Numbers compress little, and pglz would spend more time on them than it saves.
        return ("ALTER TABLE log_chunks ALTER COLUMN data SET STORAGE EXTERNAL",)

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
COPY_BUFFER_BYTES: Final = 8 << 20
"""Bytes of a bulk read's COPY output held before they become columns."""
COPY_CHUNK_ROWS: Final = 65_536
"""Rows of a bulk write's COPY input built at a time."""
BULK_ROWS: Final = 1_000
"""From this many rows on, `update_rows` goes through COPY."""
JOIN_BYTES_PER_ROW: Final = 96
"""Memory a bulk update's hash join takes per row (800,000 rows: 48.8 MB), with room."""
JOIN_MEMORY_CAP: Final = 256 << 20
"""The most memory a bulk update asks for its join (about 2,700,000 rows); more rows are
joined in batches, as the server's default allows."""


def _binary_layout(dtypes: Sequence[np.dtype[Any]]) -> np.dtype[Any]:
    """One row of a binary COPY of 8-byte columns (bigint, double precision; no NULL): its
    field count, then each field's length and big-endian value."""
    return np.dtype(
        [("fields", ">i2")]
        + [
            field
            for index, dtype in enumerate(dtypes)
            for field in ((f"length{index}", ">i4"), (f"value{index}", dtype.newbyteorder(">")))
        ]
    )


class _CopiedColumns:
    """PostgreSQL's binary COPY output of 8-byte columns, turned into columns as it arrives
    (in a worker thread, a buffer at a time): every row has the same layout, so the rows
    of a buffer are one structured array."""

    def __init__(self, dtypes: Sequence[np.dtype[Any]]) -> None:
        self.dtypes = dtypes
        self.layout = _binary_layout(dtypes)
        self.pending = bytearray()
        self.started = False
        self.chunks: list[list[npt.NDArray[Any]]] = []

    def parse(self, final: bool) -> None:
        """Turn the whole rows received into columns (`final`: the output ended)."""
        start = 0
        if not self.started:
            if not self.pending.startswith(_COPY_HEADER):
                raise ValueError("not PostgreSQL binary COPY output")
            start = len(_COPY_HEADER) + 8 + int.from_bytes(self.pending[15:19], "big")
            self.started = True
        end = len(self.pending) - 2 if final else len(self.pending)  # trailer: count -1
        count = (end - start) // self.layout.itemsize
        if final and (end - start) % self.layout.itemsize:
            raise ValueError("a bulk read's columns must be 8-byte numbers, never NULL")
        rows = np.frombuffer(self.pending, self.layout, count, start)
        lengths_ok = all((rows[f"length{index}"] == 8).all() for index in range(len(self.dtypes)))
        if not ((rows["fields"] == len(self.dtypes)).all() and lengths_ok):
            raise ValueError("a bulk read's columns must be 8-byte numbers, never NULL")
        self.chunks.append(
            [rows[f"value{index}"].astype(dtype) for index, dtype in enumerate(self.dtypes)]
        )
        del rows  # releases the buffer, which may then shrink
        del self.pending[: start + count * self.layout.itemsize]


def _binary_rows(columns: Sequence[npt.NDArray[Any]]) -> bytes:
    """Columns of 8-byte numbers (no nan meaning NULL) as the rows of PostgreSQL's binary
    COPY input (worker-thread work)."""
    rows = np.zeros(len(columns[0]), _binary_layout([column.dtype for column in columns]))
    rows["fields"] = len(columns)
    for index, column in enumerate(columns):
        rows[f"length{index}"] = column.dtype.itemsize
        rows[f"value{index}"] = column
    return rows.tobytes()


async def _binary_copy(blocks: Iterable[Sequence[npt.NDArray[Any]]]) -> AsyncIterator[bytes]:
    """Binary COPY input of the blocks of columns, COPY_CHUNK_ROWS rows at a time, each
    built in a worker thread: the bytes of at most one chunk exist at a time."""
    yield _COPY_HEADER + bytes(8)  # no flags, no header extension
    for columns in blocks:
        for first in range(0, len(columns[0]), COPY_CHUNK_ROWS):
            chunk = [column[first : first + COPY_CHUNK_ROWS] for column in columns]
            yield await asyncio.to_thread(_binary_rows, chunk)
    yield b"\xff\xff"  # the trailer: a field count of -1


def _update_statement(table: str, keys: Sequence[str], values: Sequence[str]) -> str:
    """`update_rows`' statement for one row, with named parameters."""
    assignments = ", ".join(f"{name} = :{name}" for name in values)
    found = " AND ".join(f"{name} = :{name}" for name in keys)
    return f"UPDATE {table} SET {assignments} WHERE {found}"


def _with_nulls(
    columns: ColumnSlices, names: Sequence[str], null_values: Mapping[str, int | str]
) -> ColumnSlices:
    """`columns` with each null value (insert_columns) made None."""
    nulled = {names.index(name): value for name, value in null_values.items()}

    def made(first: int, stop: int) -> list[Sequence[Any]]:
        found = list(columns(first, stop))
        for number, null in nulled.items():
            found[number] = [None if value == null else value for value in found[number]]
        return found

    return made


def _parameter_rows(names: Sequence[str], columns: Sequence[npt.NDArray[Any]]) -> list[Parameters]:
    """Columns as one parameter mapping per row (Python numbers): worker-thread work."""
    return [
        dict(zip(names, row, strict=True))
        for row in zip(*(c.tolist() for c in columns), strict=True)
    ]


class _Connected(Session):
    """Statements on one asyncpg connection (or the pool, for reads)."""

    dialect = DIALECT

    def __init__(self, target: asyncpg.Connection | asyncpg.Pool) -> None:
        self._target = target
        self._retries = isinstance(target, asyncpg.Pool)
        """A statement on the pool runs alone (no transaction): if its connection was lost,
        running it once more on a new one is safe."""

    async def _once_more(self, statement: Callable[[], Awaitable[Any]]) -> Any:
        with _refused():
            if not self._retries:
                return await statement()
            try:
                return await statement()
            except (*_LOST_ERRORS, *_NOT_CONNECTABLE):
                log.info("a read lost its connection; trying once more on a new one")
            return await statement()

    async def all(self, sql: str, parameters: Parameters | None = None) -> list[Row]:
        text, names = _positional(sql)
        arguments = _arguments(names, parameters)
        return list(await self._once_more(lambda: self._target.fetch(text, *arguments)))

    async def run(self, sql: str, parameters: Parameters | None = None) -> None:
        text, names = _positional(sql)
        arguments = _arguments(names, parameters)
        await self._once_more(lambda: self._target.execute(text, *arguments))

    async def columns(
        self, sql: str, parameters: Parameters, dtypes: Sequence[np.dtype[Any]]
    ) -> list[npt.NDArray[Any]]:
        """Through COPY ... TO STDOUT in binary: no Record per row, and the bytes become
        columns in a worker thread, COPY_BUFFER_BYTES at a time."""
        text, names = _positional(sql)
        copied = _CopiedColumns(dtypes)

        async def take(chunk: bytes) -> None:
            copied.pending.extend(chunk)
            if len(copied.pending) >= COPY_BUFFER_BYTES:
                await asyncio.to_thread(copied.parse, False)

        with _refused():
            await self._target.copy_from_query(
                text, *_arguments(names, parameters), output=take, format="binary"
            )
        await asyncio.to_thread(copied.parse, True)
        return await asyncio.to_thread(joined_columns, copied.chunks, dtypes)

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
        """A few rows by one statement each; a bulk update (`grouped` or not) through a
        temporary table filled by one binary COPY that numpy builds in a worker thread, then
        one UPDATE ... FROM (each more pass over the table costs: 800,000 rows of a guild
        just imported took 3.0 s by one, 3.4 s by four)."""
        names = [*keys, *values]
        remaining = iter(blocks)
        first = next(remaining, None)
        if first is None:
            return
        blocks = itertools.chain([first], remaining)
        if count < BULK_ROWS:
            for columns in blocks:
                rows = _parameter_rows(names, columns)
                await self.run_many(_update_statement(table, keys, values), rows)
            return
        types = ", ".join(
            f"{name} {_SQL_TYPES[column.dtype.kind]}"
            for name, column in zip(names, first, strict=True)
        )
        await self.run(f"CREATE TEMPORARY TABLE bulk_{table} ({types}) ON COMMIT DROP")
        with _refused():
            await self._target.copy_to_table(
                f"bulk_{table}", source=_binary_copy(blocks), columns=names, format="binary"
            )
        assignments = ", ".join(f"{name} = bulk.{name}" for name in values)
        found = " AND ".join(f"{table}.{name} = bulk.{name}" for name in keys)
        # The join's hash in memory in one piece (work_mem raised for this statement, never
        # lowered): its rows then come in the temporary table's order (the caller's, the
        # table's own), so the updates walk the table's pages once; in batches (the default
        # 4 MB) they came in an order of their own and visited the pages at random (800,000
        # rows: 1.67 s against 2.3-2.5 s).
        memory = await self.one(
            "SELECT current_setting('work_mem') AS was, set_config('work_mem', "
            "greatest(setting::bigint, :kilobytes) || 'kB', true) FROM pg_settings "
            "WHERE name = 'work_mem'",
            {"kilobytes": min(count * JOIN_BYTES_PER_ROW, JOIN_MEMORY_CAP) >> 10},
        )
        await self.run(f"UPDATE {table} SET {assignments} FROM bulk_{table} bulk WHERE {found}")
        if memory is not None:
            await self.run("SELECT set_config('work_mem', :was, true)", {"was": memory["was"]})
        await self.run(f"DROP TABLE bulk_{table}")

    async def insert_columns(
        self,
        table: str,
        names: Sequence[str],
        count: int,
        columns: ColumnSlices,
        *,
        null_values: Mapping[str, int | str] | None = None,
    ) -> None:
        """Through binary COPY: asyncpg encodes the records, which a worker thread makes a
        slice at a time (the Python values of one slice exist at a time), null values made
        None there."""
        if null_values:
            columns = _with_nulls(columns, names, null_values)

        async def records() -> AsyncIterator[tuple[Any, ...]]:
            for rows in row_slices(count, columns):
                for record in await asyncio.to_thread(rows):
                    yield record

        if not count:
            return
        with _refused():
            async with self.built_after(table, count, self._target.execute):
                await self._target.copy_records_to_table(
                    table, records=records(), columns=list(names)
                )

    async def run_many(self, sql: str, rows: Sequence[Parameters]) -> None:
        """One row as a plain statement: asyncpg's executemany costs more than a round trip."""
        if len(rows) <= 1:
            for row in rows:
                await self.run(sql, row)
            return
        text, names = _positional(sql)
        with _refused():
            await self._target.executemany(
                text, await made_each(functools.partial(_arguments, names), rows)
            )


async def _left_clean(connection: asyncpg.Connection) -> None:
    """A connection goes back to its pool with no transaction open: a write or a snapshot
    leaves no other session state (its locks are the transaction's), so the default reset
    would be a wasted round trip."""
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK", timeout=CONNECT_SECONDS)


async def _connected(connection: asyncpg.Connection) -> None:
    """Every pooled connection: a lost one wakes a COPY stuck on it (see _unblock_copy),
    and a server that vanished without closing it (a crashed host, a cut network) is
    noticed by TCP within about DEAD_PEER_SECONDS (see _detect_dead_peer)."""
    # The event is taken now: the listener is handed the pool's proxy, already detached.
    writing_allowed = getattr(getattr(connection, "_protocol", None), "writing_allowed", None)
    connection.add_termination_listener(functools.partial(_unblock_copy, writing_allowed))
    _detect_dead_peer(connection)


def _detect_dead_peer(connection: asyncpg.Connection) -> None:
    """TCP keepalive probes after DEAD_PEER_SECONDS / 3 of silence (a statement waiting for
    its answer included), and TCP_USER_TIMEOUT for data the server never acknowledges: a
    dead server's connection fails in about DEAD_PEER_SECONDS instead of waiting for the
    kernel's defaults (hours of keepalive silence, a quarter hour of retransmissions)."""
    transport = getattr(connection, "_transport", None)
    sock = None if transport is None else transport.get_extra_info("socket")
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # a Unix socket: the server is on this machine
    probe = int(DEAD_PEER_SECONDS // 3)
    options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (
        ("TCP_KEEPIDLE", probe),
        ("TCP_KEEPINTVL", max(1, probe // 2)),
        ("TCP_KEEPCNT", 4),
        ("TCP_USER_TIMEOUT", int(DEAD_PEER_SECONDS * 1000)),
    ):
        if hasattr(socket, name):  # Linux has all four; others some
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    for level, option, value in options:
        with contextlib.suppress(OSError):
            sock.setsockopt(level, option, value)


async def _begun(pool: asyncpg.Pool, begin: str) -> asyncpg.Connection:
    """A connection of the pool with `begin` run on it. A pooled connection may have died
    unnoticed while idle (the server restarted, the backend was terminated): then nothing
    ran yet, and a new connection is taken once more. Waiting for a free connection ends
    after WRITE_WAIT_SECONDS with DatabaseBusy."""
    for attempt in (1, 2):
        with _refused():
            try:
                connection = await pool.acquire(timeout=WRITE_WAIT_SECONDS)
            except TimeoutError as error:
                if pool.get_idle_size() == 0 and pool.get_size() == pool.get_max_size():
                    raise DatabaseBusy() from error
                raise
        try:
            with _refused():
                await connection.execute(begin)
            return connection
        except ConnectionLost:
            await _released(pool, connection)
            if attempt == 2:
                raise
            log.info("a pooled connection was lost; beginning once more on a new one")
        except BaseException:
            await _released(pool, connection)
            raise
    raise AssertionError("unreachable")


async def _released(pool: asyncpg.Pool, connection: asyncpg.Connection) -> None:
    """Back to the pool, rolled back; a connection lost meanwhile (or that cannot roll back)
    is dropped instead, and the pool opens a new one when needed."""
    try:
        if connection.is_closed():
            await pool.release(connection)
            return
    except asyncpg.InterfaceError:
        return  # lost: the pool took it back already
    try:
        await _left_clean(connection)
        await pool.release(connection, timeout=CONNECT_SECONDS)
    except (*_LOST_ERRORS, *_NOT_CONNECTABLE, asyncpg.PostgresError) as error:
        log.info("a connection went back to its pool broken (%s); dropped", _reason(error))
        with contextlib.suppress(asyncpg.InterfaceError):  # already gone
            connection.terminate()
        with contextlib.suppress(asyncpg.InterfaceError):
            await pool.release(connection)


class PostgresEngine(Engine):
    def __init__(self, writers: asyncpg.Pool, pool: asyncpg.Pool) -> None:
        self._writers = writers
        self._pool = pool
        self._guild_locks: weakref.WeakValueDictionary[int | None, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._own_pids: set[int] = set()
        """The server processes of our write connections (their notifications are ours)."""
        self.reader = _Connected(pool)
        self.reader.alone = self.snapshot
        self._url = ""
        self._listener: asyncpg.Connection | None = None
        self._on_change: Callable[[int], None] | None = None

    @classmethod
    async def open(cls, url: str, create: bool) -> PostgresEngine:
        """Connect to the database at `url` (it must exist) and migrate it; `create`: a
        database without ladderbot's schema gets it (else it is refused, unchanged)."""
        settings = {"lock_timeout": f"{int(WRITE_WAIT_SECONDS * 1000)}ms"}
        own_pids: set[int] = set()
        logging.getLogger("asyncio").addFilter(_QUIET)

        async def remember(connection: asyncpg.Connection) -> None:
            await _connected(connection)
            own_pids.add(connection.get_server_pid())

        timeouts: dict[str, Any] = {
            "timeout": CONNECT_SECONDS,
            "command_timeout": COMMAND_SECONDS,
        }
        writers = await asyncpg.create_pool(
            url,
            min_size=0,  # no connection floor: asyncpg would retry it in the background
            max_size=WRITERS,
            server_settings=settings,
            init=remember,
            reset=_left_clean,
            **timeouts,
        )
        try:
            pool = await asyncpg.create_pool(
                url, min_size=0, max_size=4, init=_connected, reset=_left_clean, **timeouts
            )
        except BaseException:
            await writers.close()
            raise
        engine = cls(writers, pool)
        engine._own_pids = own_pids
        engine._url = url
        try:
            await engine._migrate(create)
        except BaseException:
            await engine.close()
            raise
        return engine

    @staticmethod
    async def _version(session: Session) -> int:
        row = await session.one("SELECT to_regclass('schema_version') IS NOT NULL AS present")
        if row is None or not row["present"]:
            return 0
        found = await session.one("SELECT max(version) AS version FROM schema_version")
        version = 0 if found is None or found["version"] is None else int(found["version"])
        if version > len(MIGRATIONS):
            raise newer_than_this_code(version)
        return version

    async def _migrate(self, create: bool) -> None:
        """Apply the migrations the database has not seen yet, each in its own transaction
        under a lock (other processes may be migrating the same database; the version is
        read again under it). An up-to-date database is only read; one without ladderbot's
        schema is refused if it holds other tables, or unless `create`."""
        async with self._writers.acquire() as connection:
            session = _Connected(connection)
            if await self._version(session) == 0:
                if await session.one(
                    "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename <> 'schema_version'"
                ):
                    raise DatabaseUnavailable("the database holds tables that are not ladderbot's")
                if not create:
                    raise DatabaseUnavailable("the database holds no ladderbot data yet")
            while await self._version(session) < len(MIGRATIONS):
                async with connection.transaction():
                    await session.run(_MIGRATION_LOCK)
                    version = await self._version(session)
                    if version == len(MIGRATIONS):
                        return
                    if version == 0:
                        await session.run(
                            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"
                        )
                    await migrate(session, version + 1)
                    await session.run("DELETE FROM schema_version")
                    await session.run(
                        "INSERT INTO schema_version (version) VALUES (:version)",
                        {"version": version + 1},
                    )

    @asynccontextmanager
    async def transaction(self, guild_id: int | None) -> AsyncIterator[Session]:
        """On a write connection of its own, after this process's earlier writes to the
        guild (writes without a guild wait for each other)."""
        lock = self._guild_locks.setdefault(guild_id, asyncio.Lock())
        begin = "BEGIN" if guild_id is None else _GUILD_WRITE.format(guild_id=int(guild_id))
        async with lock:
            connection = await _begun(self._writers, begin)
            try:
                yield _Connected(connection)
                try:
                    with _refused():
                        await connection.execute("COMMIT")
                except ConnectionLost as error:
                    raise ConnectionLost(UNKNOWN_COMMIT, committing=True) from error
            finally:
                await _released(self._writers, connection)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Session]:
        """REPEATABLE READ: every statement sees the snapshot the first one took; READ ONLY
        takes no lock a write waits for (nor, on PostgreSQL, any the read would wait on)."""
        connection = await _begun(self._pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try:
            yield _Connected(connection)
        finally:
            await _released(self._pool, connection)

    async def integrity_check(self) -> str:
        """PostgreSQL checks its pages itself; this only asks that the schema answers."""
        row = await self.reader.one("SELECT max(version) AS version FROM schema_version")
        return "ok" if row is not None and row["version"] == len(MIGRATIONS) else "no schema"

    async def watch_changes(self, on_change: Callable[[int], None]) -> bool:
        """LISTEN for other connections' guild writes on a connection of its own (one more
        than the pools); our own writers' notifications are left out. Called again (a bot
        made anew after a failed start), the new `on_change` replaces the old one."""
        self._on_change = on_change
        if self.watching:
            return True
        if self._listener is not None:  # its connection was lost: listen anew
            self._listener.terminate()
            self._listener = None

        def heard(_: object, pid: int, channel: str, payload: str) -> None:
            if pid not in self._own_pids and self._on_change is not None:
                self._on_change(int(payload))

        self._listener = await asyncpg.connect(self._url, timeout=CONNECT_SECONDS)
        self._listener.add_termination_listener(
            lambda _: log.warning(
                "the change listener's connection closed; polling until it is back"
            )
        )
        await self._listener.add_listener(CHANGES_CHANNEL, heard)
        return True

    @property
    def watching(self) -> bool:
        return self._listener is not None and not self._listener.is_closed()

    async def close(self) -> None:
        """Once the writes under way have committed (closing a pool waits for them)."""
        if self._listener is not None:
            self._listener.terminate()
        for pool in (self._pool, self._writers):
            try:
                await asyncio.wait_for(pool.close(), CLOSE_SECONDS)
            except (TimeoutError, *_LOST_ERRORS) as error:
                log.warning("closing the database connections: %s; dropped", _reason(error))
                pool.terminate()


async def copy_rows(
    session: Session, table: str, columns: Sequence[str], records: Sequence[Sequence[Any]]
) -> None:
    """COPY records into a table on the session's connection (migrate-db's bulk path)."""
    assert isinstance(session, _Connected)
    with _refused():
        await session._target.copy_records_to_table(table, records=records, columns=list(columns))
