"""The floor of the scale benchmark's SQLite rows (issue 29): what the same work costs with
nothing of ladderbot's machinery around it - a fresh process that reads the guild's log as
its column BLOBs through plain sqlite3, replays it with the same numpy replay
(bot.ratings.replay.replay_waves), and runs the same writes as plain sqlite3 statements
(executemany, one transaction, synchronous=FULL). A command's time over its floor is what
its machinery (start-up, the service layer, aiosqlite's thread hops, Python objects)
costs."""

from __future__ import annotations

import csv
import json
import sqlite3
import sys
import time
from datetime import datetime
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


def _columns(connection: sqlite3.Connection, guild: int) -> dict[str, npt.NDArray[Any]]:
    """The guild's log: its chunks' BLOBs, each column's parts joined."""
    parts: dict[str, list[npt.NDArray[Any]]] = {name: [] for name, _ in LAYOUT}
    for count, data in connection.execute(
        "SELECT entries, data FROM log_chunks WHERE guild_id = ? ORDER BY first_at, first_id",
        (guild,),
    ):
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


def void(path: str, guild: int) -> None:
    """The void of the oldest match: read, replay the rest, write every rating again, as the
    command does: a match's rows by one UPDATE (a CASE on the position)."""
    connection = _connect(path)
    log = _columns(connection, guild)
    rest = log["match_id"] != log["match_id"][0]
    taken = {name: column[rest] for name, column in log.items()}
    before, after = _replayed(
        taken["match_id"], taken["user_id"], taken["side"], taken["score"], taken["minutes"]
    )
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


def import_csv(path: str, csv_path: str) -> None:
    """An import of the benchmark's CSV (matches numbered in time) into an empty database:
    parse it (the csv module), replay, insert the matches and their participants with
    their ratings."""
    with open(csv_path, encoding="utf-8", newline="") as source:
        rows = list(csv.reader(source))[1:]
    match_of_row = np.array([int(row[0]) for row in rows], np.int64)  # numbered in time
    user_id = np.array([int(row[3]) for row in rows], np.int64)
    side = np.array([int(row[2]) for row in rows], np.int64)
    score = np.array([float(row[4]) for row in rows])
    minutes = np.array([float(row[5]) for row in rows])
    order = np.argsort(match_of_row, kind="stable")
    before, after = _replayed(
        match_of_row[order], user_id[order], side[order], score[order], minutes[order]
    )
    firsts = np.flatnonzero(np.r_[True, np.diff(match_of_row[order]) != 0])
    played = [
        datetime.fromisoformat(rows[index][1]).timestamp() for index in order[firsts].tolist()
    ]
    connection = _connect(path)
    connection.execute(
        "CREATE TABLE matches (id INTEGER PRIMARY KEY, guild_id INTEGER, played_at REAL, "
        "applied_at REAL, import_key TEXT)"
    )
    connection.execute(
        "CREATE TABLE participants (match_id INTEGER, position INTEGER, user_id INTEGER, "
        "side TEXT, score REAL, minutes REAL, rating_before REAL, rating_after REAL, "
        "PRIMARY KEY (match_id, position)) WITHOUT ROWID"
    )
    connection.execute("BEGIN IMMEDIATE")
    connection.executemany(
        "INSERT INTO matches VALUES (?, 1, ?, ?, ?)",
        ((number + 1, at, at, str(number)) for number, at in enumerate(played)),
    )
    position = np.arange(len(order)) - np.repeat(firsts, np.diff(np.r_[firsts, len(order)]))
    size = PLAYERS_PER_MATCH  # a match's rows by one statement, as the command sends them
    if len(order) != size * len(firsts):
        raise ValueError(f"every match of the stream has {size} entries")
    columns = (
        match_of_row[order] + 1,
        position,
        user_id[order],
        side[order].astype(str),
        score[order],
        minutes[order],
        before,
        after,
    )
    values = np.empty((len(order), len(columns)), dtype=object)
    for number, column in enumerate(columns):
        values[:, number] = column.astype(object)
    row = f"({', '.join('?' * len(columns))})"
    connection.executemany(
        f"INSERT INTO participants VALUES {', '.join([row] * size)}",
        values.reshape(len(firsts), len(columns) * size).tolist(),
    )
    connection.execute("COMMIT")


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
    """`python -c 'from bench.floor import main; main()' KIND PATH GUILD|CSV|SCRIPT`: one
    floor, then the process's peak resident set on stderr (as bench.scale's processes do)."""
    kind, path, rest = sys.argv[1], sys.argv[2], sys.argv[3]
    if kind == "recompute":
        recompute(path, int(rest))
    elif kind == "void":
        void(path, int(rest))
    elif kind == "statements":
        statements(path, rest)
    else:
        import_csv(path, rest)
    print(f"{PEAK_MARK}{peak_resident_bytes()}", file=sys.stderr)
