"""The floor of the scale benchmark's rows (issue 29): what the same work costs with nothing
of ladderbot's machinery around it - a fresh process that reads the guild's log as its
column BLOBs through plain sqlite3, replays it with the same numpy replay
(bot.ratings.replay.replay_waves), and runs the same writes as plain sqlite3 statements
(executemany, one transaction, synchronous=FULL); on PostgreSQL, the void's least through
asyncpg. A command's time over its floor is what its machinery (start-up, the service
layer, aiosqlite's thread hops, Python objects) costs; a floor that misses a target says
no command doing that work can meet it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.data import PLAYERS_PER_MATCH
from bench.measured import PEAK_MARK, peak_resident_bytes
from bot.ratings.ladder import DEFAULT_SETTINGS
from bot.ratings.replay import replay_waves

LAYOUT = (
    ("match_id", "<i8"),
    ("position", "<i8"),
    ("user_id", "<i8"),
    ("side", "<i8"),
    ("score", "<f8"),
    ("minutes", "<f8"),
    ("rating_before", "<f8"),
    ("rating_after", "<f8"),
    ("applied_at", "<f8"),
    ("played_at", "<f8"),
)
"""bot.storage.logchunks.FIELDS, written out (this process imports none of bot.storage;
bench.scale checks that they agree)."""
CHUNK_ENTRIES = 16_384
"""bot.storage.logchunks.CHUNK_ENTRIES (bench.scale checks it): a chunk of the stream's
8-player matches holds this many entries."""
SLICE_ROWS = 20_000
"""bot.storage.engine.INSERT_SLICE_ROWS: rows made into Python values at a time."""
_IMPORTED_TABLES = ("matches", "participants")
"""Their indexes are built after their rows, as the command builds them for a first
import (bot.storage.engine.Session.built_after)."""


def _columns(connection: sqlite3.Connection, guild: int) -> dict[str, npt.NDArray[Any]]:
    """The guild's log: its chunks' BLOBs, each column's parts joined."""
    return _joined(
        connection.execute(
            "SELECT entries, data FROM log_chunks WHERE guild_id = ? ORDER BY first_at, first_id",
            (guild,),
        )
    )


def _joined(chunks: Iterable[tuple[int, bytes]]) -> dict[str, npt.NDArray[Any]]:
    """Each column's parts of the chunks (entries, data), joined."""
    parts: dict[str, list[npt.NDArray[Any]]] = {name: [] for name, _ in LAYOUT}
    for count, data in chunks:
        offset = 0
        for name, dtype in LAYOUT:
            parts[name].append(np.frombuffer(data, dtype, count, offset))
            offset += count * 8
    return {name: np.concatenate(chunks) for name, chunks in parts.items()}


def _replayed(
    match_id: npt.NDArray[np.int64],
    user_id: npt.NDArray[np.int64],
    side: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    minutes: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Ratings before and after of each entry (matches consecutive, in log order)."""
    first = np.r_[True, match_id[1:] != match_id[:-1]]
    members, player = np.unique(user_id, return_inverse=True)
    replay = replay_waves(
        np.cumsum(first) - 1, player, side, score, minutes, len(members), DEFAULT_SETTINGS
    )
    return replay.before, replay.after


def _connect(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = FULL")
    return connection


def recompute(path: str, guild: int) -> None:
    """A recompute that finds every rating up to date: read, replay, compare."""
    connection = _connect(path)
    log = _columns(connection, guild)
    before, after = _replayed(
        log["match_id"], log["user_id"], log["side"], log["score"], log["minutes"]
    )
    changed = (before != log["rating_before"]) | (after != log["rating_after"])
    print(f"{int(changed.sum())} entries differ")


def _without_the_oldest(
    log: dict[str, npt.NDArray[Any]],
) -> tuple[dict[str, npt.NDArray[Any]], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The log without its first match, and the ratings before and after its replay."""
    rest = log["match_id"] != log["match_id"][0]
    taken = {name: column[rest] for name, column in log.items()}
    before, after = _replayed(
        taken["match_id"], taken["user_id"], taken["side"], taken["score"], taken["minutes"]
    )
    return taken, before, after


def void(path: str, guild: int) -> None:
    """The void of the oldest match: read, replay the rest, write every rating again, as the
    command does: a match's rows by one UPDATE (a CASE on the position)."""
    connection = _connect(path)
    taken, before, after = _without_the_oldest(_columns(connection, guild))
    size = PLAYERS_PER_MATCH
    matches = len(before) // size
    if (
        matches * size != len(before)
        or (taken["position"].reshape(matches, size) != np.arange(size)).any()
    ):
        raise ValueError(f"every match of the stream has its {size} entries in order")
    picks = " ".join(["WHEN ? THEN ?"] * size)
    parameters = np.empty((matches, 4 * size + 1), dtype=object)
    for number, ratings in enumerate((before, after)):
        cases = parameters[:, 2 * size * number : 2 * size * (number + 1)]
        cases[:, 0::2] = np.arange(size)
        cases[:, 1::2] = ratings.reshape(matches, size).astype(object)
    parameters[:, -1] = taken["match_id"][::size].astype(object)
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        f"UPDATE participants SET rating_before = CASE position {picks} ELSE rating_before "
        f"END, rating_after = CASE position {picks} ELSE rating_after END WHERE match_id = ?",
        parameters.tolist(),
    )
    connection.execute("ROLLBACK")  # the database stays as the command line left it


def void_postgresql(url: str, guild: int) -> None:
    """Less than the void of the oldest match on PostgreSQL: read and replay as `void`, then
    one UPDATE of every participant's two ratings to the values they hold (the same rows
    written, none of the new ratings sent or joined), rolled back. The benchmark's database
    holds this one guild."""
    import asyncpg  # here: the other floors' time counts no driver they do not use

    async def voided() -> None:
        connection = await asyncpg.connect(url)
        try:
            log = _joined(
                await connection.fetch(
                    "SELECT entries, data FROM log_chunks WHERE guild_id = $1 "
                    "ORDER BY first_at, first_id",
                    guild,
                )
            )
            _without_the_oldest(log)
            writing = connection.transaction()
            await writing.start()
            await connection.execute(
                "UPDATE participants SET rating_before = rating_before, rating_after = rating_after"
            )
            await writing.rollback()
        finally:
            await connection.close()

    asyncio.run(voided())


def import_csv(path: str, csv_path: str, schema_of: str) -> None:
    """An import of the benchmark's CSV (matches numbered in time) into an empty database
    with the schema and guild row of `schema_of` (the database the command imported into;
    foreign keys on, CHECKs and trigger included): pyarrow's parse, as the command's, the
    replay, then one durable transaction writing the members, the matches, their
    participants with their ratings (a match's by one statement, as the command sends
    them), the tables' indexes after their rows, the log's column BLOBs and the members'
    ratings. Nothing is checked: this is the least any import of the same rows can cost."""
    import pyarrow as pa  # here: the other floors' time counts no parser they do not use
    from pyarrow import csv as arrow_csv

    table = arrow_csv.read_csv(
        csv_path,
        convert_options=arrow_csv.ConvertOptions(
            column_types={
                "match": pa.int64(),
                "played_at": pa.timestamp("s", "UTC"),
                "side": pa.dictionary(pa.int32(), pa.string()),
                "player": pa.int64(),
                "score": pa.float64(),
                "minutes": pa.float64(),
            }
        ),
    )
    sides = table["side"].combine_chunks()
    order = np.argsort(table["match"].to_numpy(), kind="stable")  # numbered in time
    match, user_id, side, score, minutes, played = (
        column[order]
        for column in (
            table["match"].to_numpy(),
            table["player"].to_numpy(),
            sides.indices.to_numpy().astype(np.int64),
            table["score"].to_numpy(),
            table["minutes"].to_numpy(),
            table["played_at"].cast(pa.int64()).to_numpy().astype(np.float64),
        )
    )
    before, after = _replayed(match, user_id, side, score, minutes)
    firsts = np.flatnonzero(np.r_[True, match[1:] != match[:-1]])
    size = PLAYERS_PER_MATCH  # a match's rows by one statement, as the command sends them
    if len(match) != size * len(firsts):
        raise ValueError(f"every match of the stream has {size} entries")
    match_id = np.repeat(np.arange(1, len(firsts) + 1), size)
    position = np.tile(np.arange(size), len(firsts))
    members, player = np.unique(user_id, return_inverse=True)
    final = np.full(len(members), np.nan)
    final[player] = after  # each member's last entry is their rating
    source = sqlite3.connect(schema_of)
    schema = source.execute(
        "SELECT tbl_name, type, sql FROM sqlite_master WHERE sql IS NOT NULL "
        "AND name NOT LIKE 'sqlite%' ORDER BY type = 'trigger', type = 'index'"
    ).fetchall()
    (guild_row,) = source.execute("SELECT * FROM guilds").fetchall()
    source.close()
    later = [sql for name, kind, sql in schema if kind == "index" and name in _IMPORTED_TABLES]
    connection = _connect(path)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA foreign_keys = ON")
    for name, kind, sql in schema:
        if kind != "index" or name not in _IMPORTED_TABLES:
            connection.execute(sql)
    connection.execute("BEGIN IMMEDIATE")
    connection.execute(f"INSERT INTO guilds VALUES ({', '.join('?' * len(guild_row))})", guild_row)
    guild = guild_row[0]
    connection.executemany(
        "INSERT INTO members (guild_id, user_id, name) VALUES (?, ?, ?)",
        ((guild, member, str(member)) for member in members.tolist()),
    )
    at = played[firsts].tolist()
    labels = match[firsts].tolist()
    connection.executemany(
        "INSERT INTO matches (id, guild_id, status, applied_at, created_at, played_at, "
        "request_id, import_key) VALUES (?, ?, 'applied', ?, ?, ?, ?, ?)",
        zip(
            match_id[::size].tolist(),
            [guild] * len(at),
            at,
            at,
            at,
            [f"import:floor:{label}" for label in labels],
            [str(label) for label in labels],
            strict=True,
        ),
    )
    columns = (
        match_id,
        position,
        user_id,
        np.full(len(match), None, dtype=object),  # guest
        np.asarray(sides.dictionary.to_pylist(), dtype=object)[side],
        score,
        minutes,
        np.ones(len(match), np.int64),  # enabled
        np.where(after >= before, "win", "loss").astype(object),  # an outcome word each
        before,
        after,
    )
    row = f"({', '.join('?' * len(columns))})"
    connection.executemany(
        f"INSERT INTO participants VALUES {', '.join([row] * size)}",
        _statement_rows(columns, size),
    )
    for sql in later:
        connection.execute(sql)
    fields = (match_id, position, user_id, side, score, minutes, before, after, played, played)
    for first in range(0, len(match), CHUNK_ENTRIES):
        rows = slice(first, first + CHUNK_ENTRIES)
        last = min(first + CHUNK_ENTRIES, len(match)) - 1
        connection.execute(
            "INSERT INTO log_chunks VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                guild,
                float(played[first]),
                int(match_id[first]),
                float(played[last]),
                int(match_id[last]),
                last - first + 1,
                b"".join(
                    field[rows].astype(dtype).tobytes()
                    for field, (_, dtype) in zip(fields, LAYOUT, strict=True)
                ),
            ),
        )
    connection.executemany(
        "UPDATE members SET rating = ? WHERE guild_id = ? AND user_id = ?",
        zip(final.tolist(), [guild] * len(members), members.tolist(), strict=True),
    )
    connection.execute("COMMIT")


def _statement_rows(
    columns: tuple[npt.NDArray[Any], ...], rows_per_statement: int
) -> Iterator[tuple[Any, ...]]:
    """The values of `rows_per_statement` rows end to end, a statement's at a time, made
    SLICE_ROWS rows at a time (as the command makes them)."""
    count, width = len(columns[0]), len(columns)
    for first in range(0, count, SLICE_ROWS):
        stop = min(first + SLICE_ROWS, count)
        values: list[Any] = [None] * ((stop - first) * width)
        for number, column in enumerate(columns):
            values[number::width] = column[first:stop].tolist()
        yield from zip(*[iter(values)] * (rows_per_statement * width), strict=True)


def statements(path: str, script: str) -> None:
    """Statements recorded from ladderbot's writer (a JSON list of SQL texts with their
    values written in: bench.service.reports_floor), run one by one through plain sqlite3
    on a copy of the database they ran on; their time, in seconds, on stdout."""
    connection = _connect(path)
    connection.execute("PRAGMA foreign_keys = ON")
    with open(script, encoding="utf-8") as source:
        texts = json.load(source)
    started = time.perf_counter()
    for text in texts:
        connection.execute(text).fetchall()
    print(time.perf_counter() - started)


def main() -> None:
    """`python -c 'from bench.floor import main; main()' KIND PATH GUILD|SCRIPT|(CSV
    SCHEMA_OF)`: one floor, then the process's peak resident set on stderr (as bench.scale's
    processes do)."""
    kind, path, rest = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == "recompute":
        recompute(path, int(rest))
    elif kind == "void":
        void(path, int(rest))
    elif kind == "void-postgresql":
        void_postgresql(path, int(rest))
    elif kind == "statements":
        statements(path, rest)
    else:
        import_csv(path, rest, sys.argv[4])
    print(f"{PEAK_MARK}{peak_resident_bytes()}", file=sys.stderr)
