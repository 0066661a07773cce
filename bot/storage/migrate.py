"""Copying a whole database into an empty one, across engines (SPEC 8.1 migrate-db).

Written over the schema's tables as the target's catalog lists them (so tables added by
later migrations are copied without a change here), parents before the tables whose
foreign keys point at them. Both databases are opened by this code first, so both are at
the latest migration: their tables and columns are the same. The whole copy is one write
transaction on the target; a check the caller passes runs inside it, so a copy that fails
it leaves the target as empty as it was. The source is only read.
"""

from __future__ import annotations

import graphlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from bot.storage.database import Database, Queries
from bot.storage.engine import Session

CHUNK_ROWS: Final = 5000
"""Rows written per statement (or COPY), and how often the progress is reported."""
_SKIPPED: Final = frozenset({"schema_version", "changes", "webhook_outbox"})
"""Bookkeeping each engine keeps its own way (SQLite: PRAGMA user_version), the change
feed's rows (bot.storage.changes), and the webhook deliveries still waiting: only the running
processes of the source need them."""

Progress = Callable[[str, int, int], None]
"""(table, rows copied so far in all tables, rows in all tables)."""


class TargetNotEmpty(Exception):  # noqa: N818 (a refusal the user reads)
    """The target database already holds rows (in `tables`); nothing was copied."""

    def __init__(self, tables: list[str]) -> None:
        super().__init__(f"the target database has rows in {', '.join(tables)}")
        self.tables = tables


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[str, ...]
    types: tuple[str, ...]
    """Each column's declared type as the catalog spells it (lower case)."""
    parents: frozenset[str]
    """Tables its foreign keys reference."""


async def _sqlite_tables(session: Session) -> list[Table]:
    names = [
        row["name"]
        for row in await session.all(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    tables = []
    for name in names:
        columns = await session.all(f"PRAGMA table_info({name})")
        keys = await session.all(f"PRAGMA foreign_key_list({name})")
        tables.append(
            Table(
                name,
                tuple(row["name"] for row in columns),
                tuple(str(row["type"]).lower() for row in columns),
                frozenset(row["table"] for row in keys) - {name},
            )
        )
    return tables


async def _postgres_tables(session: Session) -> list[Table]:
    columns = await session.all(
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    )
    keys = await session.all(
        "SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent "
        "FROM pg_constraint WHERE contype = 'f' "
        "AND connamespace = current_schema()::regnamespace"
    )
    found: dict[str, list[tuple[str, str]]] = {}
    for row in columns:
        found.setdefault(row["table_name"], []).append((row["column_name"], row["data_type"]))
    return [
        Table(
            name,
            tuple(column for column, _ in described),
            tuple(kind.lower() for _, kind in described),
            frozenset(row["parent"] for row in keys if row["child"] == name) - {name},
        )
        for name, described in found.items()
    ]


async def tables(session: Session) -> list[Table]:
    """The schema's tables, each after the tables it references."""
    postgres = session.dialect.name == "postgresql"
    listed = await (_postgres_tables(session) if postgres else _sqlite_tables(session))
    by_name = {table.name: table for table in listed if table.name not in _SKIPPED}
    order = graphlib.TopologicalSorter(
        {name: by_name[name].parents & by_name.keys() for name in sorted(by_name)}
    )
    return [by_name[name] for name in order.static_order()]


def _converter(sql_type: str) -> Callable[[Any], Any]:
    """How a value read from either engine is written into a column of this target type
    (SQLite keeps booleans as 0/1; PostgreSQL's COPY wants Python bools). Text loses any
    U+0000, which PostgreSQL cannot store (a SQLite database of an earlier version may hold
    one in a display name, SPEC 7)."""
    if sql_type == "boolean":
        return bool
    if sql_type in ("bigint", "integer", "smallint"):
        return int
    if sql_type in ("double precision", "real"):
        return float
    return _without_nul


def _without_nul(value: Any) -> Any:
    return value.replace("\x00", "") if isinstance(value, str) else value


def _records(rows: Sequence[Any], table: Table) -> list[tuple[Any, ...]]:
    convert = [_converter(sql_type) for sql_type in table.types]
    return [
        tuple(None if value is None else to(value) for to, value in zip(convert, row, strict=True))
        for row in rows
    ]


async def _insert(session: Session, table: Table, records: list[tuple[Any, ...]]) -> None:
    if session.dialect.name == "postgresql":
        from bot.storage.postgres import copy_rows

        await copy_rows(session, table.name, table.columns, records)
        return
    names = [f"c{number}" for number in range(len(table.columns))]
    await session.run_many(
        f"INSERT INTO {table.name} ({', '.join(table.columns)}) "
        f"VALUES ({', '.join(f':{name}' for name in names)})",
        [dict(zip(names, record, strict=True)) for record in records],
    )


async def _row_count(session: Session, table: str) -> int:
    row = await session.one(f"SELECT count(*) AS count FROM {table}")
    return 0 if row is None else int(row["count"])


async def copy_database(
    source: Database,
    target: Database,
    check: Callable[[Queries], Awaitable[None]],
    progress: Progress | None = None,
) -> dict[str, int]:
    """Copy every row of `source` into the empty `target` in one write transaction, then
    run `check` on the target inside it (an exception rolls the whole copy back). Returns
    the rows copied per table. TargetNotEmpty if any target table holds a row."""
    reader = source.engine.reader
    async with target.engine.transaction(None) as session:
        order = await tables(session)
        filled = [table.name for table in order if await _row_count(session, table.name)]
        if filled:
            raise TargetNotEmpty(filled)
        counts = {table.name: await _row_count(reader, table.name) for table in order}
        total, done = sum(counts.values()), 0
        for table in order:
            rows = await reader.all(
                f"SELECT {', '.join(table.columns)} FROM {table.name} "
                f"ORDER BY {', '.join(table.columns)}"
            )
            for start in range(0, len(rows), CHUNK_ROWS):
                chunk = rows[start : start + CHUNK_ROWS]
                await _insert(session, table, _records(chunk, table))
                done += len(chunk)
                if progress is not None:
                    progress(table.name, done, total)
        for statement in (session.dialect.after_bulk_insert, session.dialect.sync_match_ids):
            if statement is not None:
                await session.run(statement)
        await check(Queries(session, target.engine))
    return counts
