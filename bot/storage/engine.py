"""What an engine gives the storage modules: sessions that run named-parameter SQL, and the
few SQL fragments that differ between SQLite and PostgreSQL (the dialect).

SQL everywhere in bot/storage is written once, with `:name` parameters, and read by column
name; an engine module (sqlite.py, postgres.py) is the only place that knows its driver.
"""

from __future__ import annotations

import abc
import asyncio
import copy
import functools
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Concatenate, Final, Generic, ParamSpec, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

BUSY_MESSAGE: Final = "the database is busy; try again in a moment"
UNKNOWN_COMMIT: Final = (
    "the connection to the database was lost while the change was being saved: it may or "
    "may not be stored; look before you repeat it"
)
"""What a lost commit says: never "nothing was changed" when something may be (SPEC 7)."""
WRITE_WAIT_SECONDS: Final = 10.0
"""How long a write waits for its turn behind other processes before it is refused."""

Parameters = Mapping[str, Any]


class DatabaseBusy(Exception):  # noqa: N818 (a refusal the user reads, like UserError)
    """A write waited WRITE_WAIT_SECONDS for other processes and was refused, changing
    nothing; the message is the one line the user sees."""

    def __init__(self) -> None:
        super().__init__(BUSY_MESSAGE)


class DatabaseUnavailable(Exception):  # noqa: N818 (a refusal the user reads)
    """The database could not be opened or used (a bad location, no such server or file, a
    full disk, a read-only file, not a database, a newer schema, a lost server); nothing
    was changed. The message is the one line the user sees."""


class ConnectionLost(DatabaseUnavailable):
    """The connection to the database server was lost (or could not be made) in the middle
    of a use case, before its commit was confirmed (the services' retry policy,
    bot.services.context.use_cases, decides whether it runs once more)."""

    def __init__(self, message: str, *, committing: bool = False) -> None:
        super().__init__(message)
        self.committing = committing
        """Lost during the commit itself: the change may be stored or not."""


class Row(Protocol):
    """A result row read by column name (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...


class Dialect(abc.ABC):
    """The fragments that differ between engines; everything else is shared SQL."""

    name: str
    ordered_join: str = "JOIN"
    """A join whose left side the planner must read first (SQLite: CROSS JOIN)."""
    next_match_id: str = "(SELECT coalesce(max(id), 0) + 1 FROM matches)"
    """An expression taking the next match id. Max + 1 suits SQLite, where one write runs
    at a time; PostgreSQL draws from sequence match_ids instead, so that writes to
    different guilds need no shared lock (a rolled-back write leaves a gap in the ids)."""
    new_match_ids: str = (
        "WITH RECURSIVE counted (value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM counted "
        "WHERE value < :count) SELECT (SELECT coalesce(max(id), 0) FROM matches) + value "
        "AS id FROM counted"
    )
    """A query taking :count new match ids, one row each in column id (an import)."""
    sync_match_ids: str | None = None
    """A statement moving the match id source past the stored ids (after migrate-db copied
    them), if the engine keeps one."""
    after_bulk_insert: str | None = None
    """A statement refreshing the planner's statistics after a bulk insert, if needed."""

    @abc.abstractmethod
    def list_table(self, parameter: str, alias: str, sql_type: str) -> str:
        """A FROM item over a list parameter (see `encode_list`), one row per value in
        column `value`: `FROM {list_table(":ids", "chosen", "bigint")}`."""

    @abc.abstractmethod
    def encode_list(self, values: Iterable[int | str]) -> Any:
        """A Python list as the value of a list parameter."""

    @abc.abstractmethod
    def schema_words(self) -> Mapping[str, str]:
        """Type names and clauses the migrations are written with ({bigint}, {real}, ...)."""

    @abc.abstractmethod
    def performances_stale_trigger(self) -> Sequence[str]:
        """Statements creating trigger performances_stale (see schema.py)."""

    def match_ids_sequence(self) -> Sequence[str]:
        """Statements creating the match id source, if the engine keeps one (schema.py)."""
        return ()

    def bool_values(self, flags: npt.NDArray[np.bool_]) -> list[Any]:
        """A bool column's values for a bulk insert: bools (asyncpg writes a BOOLEAN only
        from a bool)."""
        values: list[Any] = flags.tolist()
        return values

    side_code: str = "p.side"
    """A bulk read's expression for participant p's side: the label, or a number that is
    equal for equal labels within a match; read as `side_dtype`."""
    side_dtype: np.dtype[Any] = np.dtype(object)
    """object: labels, which `Session.columns` turns into codes."""
    missing_real: str = "NULL"
    """A float column's value for "none stored" in a bulk read (read as nan)."""

    rebuilt_around_bulk_insert: str
    """A query of (drop, create) statements, in columns drop_sql and create_sql, in order, for
    what table :table checks or sorts row by row that a bulk insert is faster without: its
    indexes (sorting once beats inserting at as many random places; a unique one checks
    the rows then), and its foreign keys where each row's check is a query of its own
    (PostgreSQL: checked again by one join)."""

    def participants_room(self) -> Sequence[str]:
        """Statements leaving room in participants' pages for updated rows (schema.py)."""
        return ()

    def log_chunks_storage(self) -> Sequence[str]:
        """Statements storing log_chunks' data as it is, uncompressed (schema.py)."""
        return ()

    @abc.abstractmethod
    async def compare_listed_checks(
        self, session: Session, checks: Sequence[tuple[str, str, Sequence[str]]]
    ) -> None:
        """Rewrite each (table, column, values) CHECK `column IN (values)` as comparisons,
        if the engine checks an IN list slowly (schema.py)."""

    def in_list(self, column: str, parameter: str, sql_type: str) -> str:
        """`column IN (the values of a list parameter)`."""
        return f"{column} IN (SELECT value FROM {self.list_table(parameter, 'listed', sql_type)})"


BULK_INSERT_ROWS: Final = 10_000
"""From this many rows on, `insert_columns` may build some of the table's checks and
indexes again after the insert instead of during it (Session.rebuilt_around)."""
ColumnSlices = Callable[[int, int], Sequence[Sequence[Any]]]
"""Rows first..stop-1 of a bulk insert, as one sequence of Python values per column."""
INSERT_SLICE_ROWS: Final = 20_000
"""Rows of a bulk insert made into Python values at a time."""


def row_slices(
    count: int, columns: ColumnSlices, first: int = 0, rows_per_statement: int = 1
) -> Iterator[Callable[[], list[tuple[Any, ...]]]]:
    """The parameters of a bulk insert of rows first..count-1, INSERT_SLICE_ROWS rows at a
    time: each slice a call that makes them. A tuple a row, or with `rows_per_statement`
    (dividing the rows and INSERT_SLICE_ROWS), one tuple of that many rows' values end to
    end, for a statement inserting them all."""
    for start in range(first, count, INSERT_SLICE_ROWS):
        stop = min(start + INSERT_SLICE_ROWS, count)
        yield functools.partial(_rows_of, columns, start, stop, rows_per_statement)


def _rows_of(
    columns: ColumnSlices, first: int, stop: int, rows_per_statement: int
) -> list[tuple[Any, ...]]:
    made = columns(first, stop)
    if rows_per_statement == 1:
        return list(zip(*made, strict=True))
    values: list[Any] = [None] * ((stop - first) * len(made))
    for number, column in enumerate(made):
        values[number :: len(made)] = column
    return list(zip(*[iter(values)] * (rows_per_statement * len(made)), strict=True))


_Read = TypeVar("_Read")
_Made = TypeVar("_Made")
_Item = TypeVar("_Item")


_MADE_ON_LOOP: Final = 1_000
"""Items `made_each` makes on the event loop; more are made in a worker thread."""


async def made_each(make: Callable[[_Item], _Made], items: Sequence[_Item]) -> list[_Made]:
    """`make` of each item. A few µs each hold the event loop 0.1-0.2 s for a whole guild's
    members (50,000): 1,000s are made off it."""
    if len(items) <= _MADE_ON_LOOP:
        return [make(item) for item in items]
    return await asyncio.to_thread(lambda: [make(item) for item in items])


class Ahead(Generic[_Read]):
    """A read asked for ahead of need (`Session.read_ahead`), or what is made of its rows
    (`then`): awaited when wanted, or never."""

    __slots__ = ("_fetch",)

    def __init__(self, fetch: Callable[[], Awaitable[_Read]]) -> None:
        self._fetch = fetch

    def __await__(self) -> Generator[Any, None, _Read]:
        return self._fetch().__await__()

    def then(self, make: Callable[[_Read], _Made]) -> Ahead[_Made]:
        async def made() -> _Made:
            return make(await self)

        return Ahead(made)


class Session(abc.ABC):
    """One connection's statements: inside a write transaction or a read snapshot, or plain
    reads."""

    dialect: Dialect
    alone: Callable[[], AbstractAsyncContextManager[Session]] | None = None
    """The plain reader's: opens a snapshot of its own (see `one_state`); None on a session
    whose statements already see one state (a snapshot's, a write transaction's)."""

    @abc.abstractmethod
    async def all(self, sql: str, parameters: Parameters | None = None) -> list[Row]:
        """Every row of a statement."""

    @abc.abstractmethod
    async def run(self, sql: str, parameters: Parameters | None = None) -> None:
        """A statement whose rows nobody reads."""

    @abc.abstractmethod
    async def run_many(self, sql: str, rows: Sequence[Parameters]) -> None:
        """A statement once per parameter row, in one call to the driver."""

    @abc.abstractmethod
    async def columns(
        self, sql: str, parameters: Parameters, dtypes: Sequence[np.dtype[Any]]
    ) -> list[npt.NDArray[Any]]:
        """A statement's rows as one array per column of the given types, built off the
        event loop (SPEC 8.5): bulk reads of a whole guild's log. Float columns read NULL
        as nan; an object column of labels is returned as codes (equal labels, equal
        codes) by `label_codes`."""

    @abc.abstractmethod
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
        """Set the `values` columns of the `count` rows of `table` found by the `keys`
        columns, given in blocks of one array per column (keys, then values), each block
        made when it is written: a bulk write whose per-row work runs off the event loop,
        holding one block at a time. `grouped`: each value of the first key names only a
        few rows (a match's participants: match_id, position), which an engine may set by
        one statement a group."""

    async def rebuilt_around(self, table: str, count: int) -> list[tuple[str, str]]:
        """The (drop, create) statements of Dialect.rebuilt_around_bulk_insert when more
        rows go into `table` than it holds, BULK_INSERT_ROWS or more (a guild's first
        import); none otherwise, where building a bigger table's indexes again would cost
        more than the insert saves."""
        if count < BULK_INSERT_ROWS:
            return []
        held = await self.one(
            f"SELECT count(*) FROM (SELECT 1 FROM {table} LIMIT {count}) AS held_rows"
        )
        if held is None or held[0] >= count:
            return []
        rows = await self.all(self.dialect.rebuilt_around_bulk_insert, {"table": table})
        return [(row["drop_sql"], row["create_sql"]) for row in rows]

    @asynccontextmanager
    async def built_after(
        self, table: str, count: int, execute: Callable[[str], Awaitable[Any]]
    ) -> AsyncIterator[None]:
        """A bulk insert of `count` rows into `table` inside the block, without what
        `rebuilt_around` names: dropped by `execute` before, made again after (a block that
        raises leaves them to the transaction's rollback)."""
        rebuilt = await self.rebuilt_around(table, count)
        for drop, _ in rebuilt:
            await execute(drop)
        yield
        for _, create in rebuilt:
            await execute(create)

    @abc.abstractmethod
    async def insert_columns(
        self,
        table: str,
        names: Sequence[str],
        count: int,
        columns: ColumnSlices,
        *,
        null_values: Mapping[str, int | str] | None = None,
    ) -> None:
        """Insert `count` rows into `table`, one value per name from each of the columns
        (Python values, None for NULL) that `columns(first, stop)` makes of rows
        first..stop-1, a slice at a time: a bulk insert whose per-row work runs off the event
        loop, with the Python values of one slice in memory at a time. `null_values`: per
        column, a value that stands for NULL there (one the column never holds)."""

    def read_ahead(self, sql: str, parameters: Parameters | None = None) -> Ahead[list[Row]]:
        """The rows of a read wanted later in the transaction, which no statement in between
        changes: SQLite runs it with the statements it sends to its worker thread next, at
        no trip of its own; the other engines when the rows are awaited (or never)."""
        return Ahead(lambda: self.all(sql, parameters))

    async def run_ahead(self, sql: str, parameters: Parameters | None = None) -> Ahead[list[Row]]:
        """A statement that changes rows, whose rows (RETURNING) are wanted later: SQLite
        holds it with the statements whose rows nobody reads, for its next trip to the
        worker thread; the other engines run it now."""
        rows = await self.all(sql, parameters)

        async def ran() -> list[Row]:
            return rows

        return Ahead(ran)

    async def one(self, sql: str, parameters: Parameters | None = None) -> Row | None:
        rows = await self.all(sql, parameters)
        return rows[0] if rows else None


class _OnSession(Protocol):
    _session: Session


_Reads = TypeVar("_Reads", bound=_OnSession)
_Arguments = ParamSpec("_Arguments")
_Result = TypeVar("_Result")


def one_state(
    read: Callable[Concatenate[_Reads, _Arguments], Awaitable[_Result]],
) -> Callable[Concatenate[_Reads, _Arguments], Awaitable[_Result]]:
    """A read of several statements sees one state (SPEC 8.6): on the plain reader, it runs
    in a snapshot of its own; in a snapshot or a write transaction, in that."""

    @functools.wraps(read)
    async def in_one_state(
        reads: _Reads, /, *args: _Arguments.args, **kwargs: _Arguments.kwargs
    ) -> _Result:
        opens = reads._session.alone
        if opens is None:
            return await read(reads, *args, **kwargs)
        async with opens() as session:
            twin = copy.copy(reads)
            twin._session = session
            return await read(twin, *args, **kwargs)

    return in_one_state


def joined_columns(
    chunks: list[list[npt.NDArray[Any]]], dtypes: Sequence[np.dtype[Any]]
) -> list[npt.NDArray[Any]]:
    """A bulk read's chunks of columns end to end, one column at a time (each column's
    chunks are dropped as soon as it is joined: memory peaks at the result and one
    column). Labels (object columns) were read as int64 codes."""
    joined = []
    for index, dtype in enumerate(dtypes):
        parts = [chunk[index] for chunk in chunks]
        for chunk in chunks:
            chunk[index] = parts[0][:0]
        stored = np.dtype(np.int64) if dtype == np.dtype(object) else dtype
        joined.append(np.concatenate(parts) if parts else np.zeros(0, stored))
    return joined


def label_codes(
    labels: Sequence[Any] | npt.NDArray[np.object_], codes: dict[Any, int]
) -> npt.NDArray[np.int64]:
    """A code per label, equal for equal labels: `codes` holds the codes of the labels
    seen so far (in order of first appearance) and learns the new ones."""
    return np.fromiter(
        (codes.setdefault(label, len(codes)) for label in labels), np.int64, len(labels)
    )


class Engine(abc.ABC):
    """An open database: a session for single-statement reads, read snapshots, write
    transactions, the schema version."""

    reader: Session

    @abc.abstractmethod
    def transaction(self, guild_id: int | None) -> AbstractAsyncContextManager[Session]:
        """One write transaction, committed when the block ends and rolled back on an error.
        It waits its turn behind other processes' writes (at most WRITE_WAIT_SECONDS, then
        DatabaseBusy); writes naming the same guild never interleave."""

    @abc.abstractmethod
    def snapshot(self) -> AbstractAsyncContextManager[Session]:
        """One read transaction (SPEC 8.6): every statement of the block sees the same
        committed state, whatever commits meanwhile. It takes no write lock and waits for
        no write; it runs on a connection of its own (statements of the block run one at a
        time)."""

    @abc.abstractmethod
    async def integrity_check(self) -> str:
        """ "ok", or what the engine found wrong."""

    async def watch_changes(self, on_change: Callable[[int], None]) -> bool:
        """Call on_change(guild_id) soon after another process commits a write to a guild;
        False if the engine cannot tell (SQLite: poll the change log instead). Called again
        (a lost connection), it listens anew for the new on_change."""
        return False

    @property
    def watching(self) -> bool:
        """Whether watch_changes is listening now (its connection may have been lost)."""
        return False

    @abc.abstractmethod
    async def close(self) -> None: ...
