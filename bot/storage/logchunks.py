"""The columnar copy of each guild's log (issue 29): the columns a replay, an evaluation
and a board read, in chunks of whole matches, each chunk one BLOB (bytea) of its columns'
bytes end to end. Read as a few BLOBs instead of a Python tuple per participant.

The rows (matches, participants) stay the truth. Every storage write that changes the log
(a match applied, voided, edited or imported; a replay's ratings) changes the chunks in the
same statement sequence of the same transaction, so the two never disagree; tests compare
them after random use (tests/services/invariants.py). A chunk holds the entries of the
matches from its key (its first match's log key) up to the next chunk's key, in log order.
"""

from __future__ import annotations

import asyncio
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bot.storage.engine import Ahead, Row, Session
from bot.storage.models import FloatArray, IntArray, LogColumns, LogKey, PlayedColumns

CHUNK_ENTRIES: Final = 16_384
"""Entries a chunk holds at most (a match is never split): about 1.3 MB."""
FIELDS: Final = (
    ("match_id", np.dtype("<i8")),
    ("position", np.dtype("<i8")),
    ("user_id", np.dtype("<i8")),
    ("side", np.dtype("<i8")),
    ("score", np.dtype("<f8")),
    ("minutes", np.dtype("<f8")),
    ("rating_before", np.dtype("<f8")),
    ("rating_after", np.dtype("<f8")),
    ("applied_at", np.dtype("<f8")),
    ("played_at", np.dtype("<f8")),
)
"""A chunk's columns, in the order of its bytes (little-endian whatever the machine, so a
chunk copied to another engine or machine reads the same)."""
_ENTRY_BYTES: Final = sum(dtype.itemsize for _, dtype in FIELDS)


@dataclass(frozen=True, slots=True)
class Entries:
    """Log entries (enabled participants of applied matches, in log order) as columns:
    LogColumns and when each entry's match was applied and played. A side is coded by its
    first appearance among its match's entries (0, 1, ...), whatever engine wrote it."""

    columns: dict[str, npt.NDArray[Any]]

    def __len__(self) -> int:
        return len(self.columns["match_id"])

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        return self.columns[name]

    def taken(self, chosen: slice | npt.NDArray[Any]) -> Entries:
        return Entries({name: column[chosen] for name, column in self.columns.items()})

    def log(self) -> LogColumns:
        return LogColumns(*(self.columns[name] for name, _ in FIELDS[:8]))

    def played(self) -> PlayedColumns:
        c = self.columns
        return PlayedColumns(
            c["match_id"],
            c["played_at"],
            c["user_id"],
            c["side"],
            c["score"],
            c["minutes"],
            c["rating_before"],
        )

    def keys_before(self, key: LogKey) -> int:
        """How many entries come before log key `key` (entries are in log order)."""
        at, match_id = self.columns["applied_at"], self.columns["match_id"]
        earlier = (at < key[0]) | ((at == key[0]) & (match_id < key[1]))
        return int(np.count_nonzero(earlier))

    def first_key(self) -> LogKey:
        return (float(self.columns["applied_at"][0]), int(self.columns["match_id"][0]))

    def last_key(self) -> LogKey:
        return (float(self.columns["applied_at"][-1]), int(self.columns["match_id"][-1]))


def same_entries(first: Entries, second: Entries) -> bool:
    """Equal entries, column by column (nan: no rating, equal to nan)."""
    return all(
        first[name].dtype == second[name].dtype
        and np.array_equal(first[name], second[name], equal_nan=dtype.kind == "f")
        for name, dtype in FIELDS
    )


def no_entries() -> Entries:
    return Entries({name: np.zeros(0, dtype) for name, dtype in FIELDS})


def joined(parts: Sequence[Entries]) -> Entries:
    if not parts:
        return no_entries()
    if len(parts) == 1:
        return parts[0]
    return Entries(
        {name: np.concatenate([part.columns[name] for part in parts]) for name, _ in FIELDS}
    )


def in_log_order(entries: Entries) -> Entries:
    """Entries sorted by (applied_at, match id, position)."""
    order = np.lexsort((entries["position"], entries["match_id"], entries["applied_at"]))
    return entries.taken(order)


def first_appearance_sides(match_id: IntArray, side: IntArray) -> IntArray:
    """Side codes renumbered by first appearance within each match (entries of a match
    consecutive): any codes equal for equal labels within a match become the same numbers
    whatever they were, so columns written from labels and read from either engine agree."""
    count = len(side)
    if not count:
        return np.zeros(0, np.int64)
    group = np.cumsum(np.r_[True, match_id[1:] != match_id[:-1]]) - 1
    index = np.arange(count)
    order = np.lexsort((index, side, group))
    sorted_group, sorted_side = group[order], side[order]
    new_pair = np.r_[
        True, (sorted_group[1:] != sorted_group[:-1]) | (sorted_side[1:] != sorted_side[:-1])
    ]
    pair_of_sorted = np.cumsum(new_pair) - 1
    pair_first, pair_group = order[new_pair], sorted_group[new_pair]
    by_first = np.lexsort((pair_first, pair_group))
    grouped = pair_group[by_first]
    group_start = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
    starts = np.repeat(group_start, np.diff(np.r_[group_start, len(grouped)]))
    rank = np.empty(len(by_first), np.int64)
    rank[by_first] = np.arange(len(by_first)) - starts
    codes = np.empty(count, np.int64)
    codes[order] = rank[pair_of_sorted]
    return codes


def entries_of(
    columns: dict[str, Sequence[Any] | npt.NDArray[Any]], *, side_codes: bool = False
) -> Entries:
    """Entries from columns of Python values or arrays (None or nan: no rating), put in log
    order; sides are labels (any hashable: equal within a match, equal side), or integer
    codes with `side_codes`, and become codes by first appearance in their match."""
    made: dict[str, npt.NDArray[Any]] = {}
    for name, dtype in FIELDS:
        values = columns[name]
        if name == "side" and not side_codes:
            codes: dict[Any, int] = {}
            values = np.fromiter(
                (codes.setdefault(label, len(codes)) for label in values), np.int64, len(values)
            )
        if isinstance(values, np.ndarray):
            made[name] = values.astype(dtype.newbyteorder("="))
        elif dtype.kind == "f":
            made[name] = np.array([np.nan if v is None else v for v in values], np.float64)
        else:
            made[name] = np.array(values, np.int64)
    entries = in_log_order(Entries(made))
    entries.columns["side"] = first_appearance_sides(entries["match_id"], entries["side"])
    return entries


def _encoded(entries: Entries) -> bytes:
    return b"".join(
        np.ascontiguousarray(entries.columns[name], dtype).tobytes() for name, dtype in FIELDS
    )


def _decoded(data: bytes, count: int) -> Entries:
    if len(data) != count * _ENTRY_BYTES:
        raise ValueError(f"a log chunk of {count} entries holds {len(data)} bytes")
    columns: dict[str, npt.NDArray[Any]] = {}
    offset = 0
    for name, dtype in FIELDS:
        column = np.frombuffer(data, dtype, count, offset)
        columns[name] = column.astype(dtype.newbyteorder("="), copy=False)  # a view
        offset += count * dtype.itemsize
    return Entries(columns)


def _pieces(entries: Entries) -> list[Entries]:
    """The entries cut into chunks of at most CHUNK_ENTRIES, at match boundaries."""
    count = len(entries)
    if count <= CHUNK_ENTRIES:  # a report's match: nothing to cut
        return [entries] if count else []
    match_id = entries["match_id"]
    firsts = np.flatnonzero(np.r_[True, match_id[1:] != match_id[:-1]])
    cuts = [0]
    for first in firsts.tolist():
        if first - cuts[-1] >= CHUNK_ENTRIES:
            cuts.append(first)
    cuts.append(count)
    return [entries.taken(slice(start, stop)) for start, stop in pairwise(cuts)]


@dataclass(frozen=True, slots=True)
class _Chunk:
    key: LogKey
    entries: Entries


_WHERE_FROM: Final = (
    "guild_id = :guild_id AND (first_at, first_id) >= ("
    "coalesce((SELECT first_at FROM log_chunks WHERE guild_id = :guild_id "
    "AND (first_at, first_id) <= (:applied_at, :id) ORDER BY first_at DESC, first_id DESC "
    "LIMIT 1), :applied_at), "
    "coalesce((SELECT first_id FROM log_chunks WHERE guild_id = :guild_id "
    "AND (first_at, first_id) <= (:applied_at, :id) ORDER BY first_at DESC, first_id DESC "
    "LIMIT 1), :id))"
)
"""The chunks that hold the entries from a log key on: the one it falls in, and after."""


async def _chunks_from(session: Session, guild_id: int, start: LogKey) -> list[_Chunk]:
    rows = await session.all(
        "SELECT first_at, first_id, entries, data FROM log_chunks "
        f"WHERE {_WHERE_FROM} ORDER BY first_at, first_id",
        {"guild_id": guild_id, "applied_at": start[0], "id": start[1]},
    )
    return await asyncio.to_thread(_chunks, rows)


def _chunks(rows: Sequence[Row]) -> list[_Chunk]:
    """Worker-thread work (SPEC 8.5): a big guild's chunks are tens of megabytes."""
    return [
        _Chunk((row["first_at"], row["first_id"]), _decoded(bytes(row["data"]), row["entries"]))
        for row in rows
    ]


READ_CHUNKS: Final = 8
"""Chunks a bulk read fetches per statement: their BLOBs are held only until their
entries are copied into the result."""
LOG_FIELDS: Final = tuple(name for name, _ in FIELDS[:8])
"""The columns of LogColumns."""
PLAYED_FIELDS: Final = (
    "match_id", "played_at", "user_id", "side", "score", "minutes", "rating_before",
)  # fmt: skip
"""The columns of PlayedColumns."""


def _copied_in(
    result: dict[str, npt.NDArray[Any]], rows: Sequence[Row], filled: int, start: LogKey | None
) -> int:
    """Copy the wanted columns of the chunks' entries (from `start` on, when given: the
    first chunk's earlier entries are skipped) into `result` from place `filled`; the
    new count (worker-thread work)."""
    for row in rows:
        entries = _decoded(bytes(row["data"]), row["entries"])
        if start is not None:
            entries, start = entries.taken(slice(entries.keys_before(start), None)), None
        taken = len(entries)
        for name, column in result.items():
            column[filled : filled + taken] = entries[name]
        filled += taken
    return filled


async def entries_from(
    session: Session, guild_id: int, start: LogKey, names: Sequence[str] = ()
) -> Entries:
    """The guild's log entries from `start` on (only the columns `names`, default all),
    read from its chunks READ_CHUNKS at a time into arrays made once: memory holds the
    result and a few chunks. The caller's session sees one state (several statements)."""
    wanted = [(name, dtype) for name, dtype in FIELDS if not names or name in names]
    parameters: dict[str, Any] = {"guild_id": guild_id, "applied_at": start[0], "id": start[1]}
    found = await session.one(
        f"SELECT coalesce(sum(entries), 0) AS entries FROM log_chunks WHERE {_WHERE_FROM}",
        parameters,
    )
    total = 0 if found is None else int(found["entries"])
    result = {name: np.empty(total, dtype.newbyteorder("=")) for name, dtype in wanted}
    filled, after = 0, (-math.inf, -(2**63))
    while True:
        rows = await session.all(
            "SELECT first_at, first_id, entries, data FROM log_chunks WHERE "
            f"{_WHERE_FROM} AND (first_at, first_id) > (:after_at, :after_id) "
            "ORDER BY first_at, first_id LIMIT :count",
            {**parameters, "after_at": after[0], "after_id": after[1], "count": READ_CHUNKS},
        )
        if not rows:
            break
        first = start if filled == 0 and after[0] == -math.inf else None
        filled = await asyncio.to_thread(_copied_in, result, rows, filled, first)
        after = (rows[-1]["first_at"], rows[-1]["first_id"])
    return Entries({name: column[:filled] for name, column in result.items()})


async def _delete(session: Session, guild_id: int, keys: Sequence[LogKey]) -> None:
    if keys:
        await session.run_many(
            "DELETE FROM log_chunks WHERE guild_id = :guild_id AND first_at = :first_at "
            "AND first_id = :first_id",
            [{"guild_id": guild_id, "first_at": at, "first_id": id_} for at, id_ in keys],
        )


async def _insert(session: Session, guild_id: int, entries: Entries) -> None:
    await session.run_many(
        "INSERT INTO log_chunks (guild_id, first_at, first_id, last_at, last_id, entries, "
        "data) VALUES (:guild_id, :first_at, :first_id, :last_at, :last_id, :entries, :data)",
        [
            {
                "guild_id": guild_id,
                "first_at": piece.first_key()[0],
                "first_id": piece.first_key()[1],
                "last_at": piece.last_key()[0],
                "last_id": piece.last_key()[1],
                "entries": len(piece),
                "data": _encoded(piece),
            }
            for piece in _pieces(entries)
        ],
    )


MERGED_AT_ONCE: Final = 16
"""Chunks at the end of the log of one size class that an append merges into one."""
TAIL_LOOK: Final = 64
"""Chunks at the end of the log an append looks at: fewer than MERGED_AT_ONCE of each
size class below CHUNK_ENTRIES'."""


def _size_class(entries: int) -> int:
    """floor(log_MERGED_AT_ONCE(entries)): chunks of a class are merged MERGED_AT_ONCE at
    a time into one of a higher class, so each entry is rewritten a few times at most."""
    size_class = 0
    while entries >= MERGED_AT_ONCE:
        entries //= MERGED_AT_ONCE
        size_class += 1
    return size_class


def _merged_at_end(sizes: Sequence[int], added: int) -> int:
    """How many of the last chunks (sizes: newest first) an append of `added` entries
    merges with: while the MERGED_AT_ONCE - 1 before what is merged so far are of its size
    class, and that class is below CHUNK_ENTRIES'."""
    merged, taken = added, 0
    while _size_class(merged) < _size_class(CHUNK_ENTRIES):
        run = sizes[taken : taken + MERGED_AT_ONCE - 1]
        if len(run) < MERGED_AT_ONCE - 1 or any(
            _size_class(size) != _size_class(merged) for size in run
        ):
            break
        merged, taken = merged + sum(run), taken + len(run)
    return taken


def log_end(session: Session, guild_id: int) -> Ahead[list[Row]]:
    """The keys and sizes of the guild's last TAIL_LOOK chunks, newest first (what `merge`
    looks at), read ahead (Session.read_ahead)."""
    return session.read_ahead(
        "SELECT first_at, first_id, last_at, last_id, entries FROM log_chunks "
        "WHERE guild_id = :guild_id ORDER BY first_at DESC, first_id DESC LIMIT :count",
        {"guild_id": guild_id, "count": TAIL_LOOK},
    )


async def merge(
    session: Session, guild_id: int, new: Entries, end: Ahead[list[Row]] | None = None
) -> None:
    """Add the entries of matches new to the log (in log order), wherever they fall. At the
    end (a report), a chunk of their own, merged with the last chunks when they complete a
    run of MERGED_AT_ONCE of one size class (two statements for most reports); inside the
    log (an import), the chunks from the one they fall in on are merged with them and
    written again. `end`: the log's end (`log_end`) read ahead since the log last changed,
    else it is read now."""
    if not len(new):
        return
    tails = await (log_end(session, guild_id) if end is None else end)
    if not tails or (tails[0]["last_at"], tails[0]["last_id"]) < new.first_key():
        taken = _merged_at_end([row["entries"] for row in tails], len(new))
        merged = []
        if taken:
            first = tails[taken - 1]
            merged = await _chunks_from(session, guild_id, (first["first_at"], first["first_id"]))
        await _delete(session, guild_id, [chunk.key for chunk in merged])
        await _insert(session, guild_id, joined([*(chunk.entries for chunk in merged), new]))
        return
    chunks = await _chunks_from(session, guild_id, new.first_key())
    combined = in_log_order(joined([*(chunk.entries for chunk in chunks), new]))
    await _delete(session, guild_id, [chunk.key for chunk in chunks])
    await _insert(session, guild_id, combined)


async def replace_match(
    session: Session, guild_id: int, match_id: int, key: LogKey, new: Entries
) -> None:
    """The match's entries (at log key `key`) become `new` (none: it left the log)."""
    chunks = await _chunks_from(session, guild_id, key)
    held = chunks[0] if chunks and chunks[0].key <= key else None
    if held is None or not np.any(held.entries["match_id"] == match_id):
        await merge(session, guild_id, new)
        return
    kept = held.entries.taken(held.entries["match_id"] != match_id)
    await _delete(session, guild_id, [held.key])
    await _insert(session, guild_id, in_log_order(joined([kept, new])))


async def set_ratings_from(
    session: Session, guild_id: int, start: LogKey, before: FloatArray, after: FloatArray
) -> None:
    """The ratings before and after of every entry from `start` on (as a replay from there
    computed them): each chunk whose ratings differ is written again, READ_CHUNKS chunks
    read at a time."""
    offset, after_key = 0, (-math.inf, -(2**63))
    parameters: dict[str, Any] = {"guild_id": guild_id, "applied_at": start[0], "id": start[1]}
    while True:
        rows = await session.all(
            "SELECT first_at, first_id, entries, data FROM log_chunks WHERE "
            f"{_WHERE_FROM} AND (first_at, first_id) > (:after_at, :after_id) "
            "ORDER BY first_at, first_id LIMIT :count",
            {
                **parameters,
                "after_at": after_key[0],
                "after_id": after_key[1],
                "count": READ_CHUNKS,
            },
        )
        if not rows:
            break
        first = offset == 0 and after_key[0] == -math.inf
        offset, updates = await asyncio.to_thread(
            _rated_chunks, guild_id, rows, start if first else None, before, after, offset
        )
        if updates:
            await session.run_many(
                "UPDATE log_chunks SET data = :data WHERE guild_id = :guild_id "
                "AND first_at = :first_at AND first_id = :first_id",
                updates,
            )
        after_key = (rows[-1]["first_at"], rows[-1]["first_id"])
    if offset != len(before):
        raise ValueError(f"a replay of {len(before)} entries for a log of {offset}")


def _rated_chunks(
    guild_id: int,
    rows: Sequence[Row],
    start: LogKey | None,
    before: FloatArray,
    after: FloatArray,
    offset: int,
) -> tuple[int, list[dict[str, Any]]]:
    """The chunks among `rows` whose ratings differ from before/after (from `offset`), as
    UPDATE parameters, and the offset past them (worker-thread work)."""
    updates = []
    for chunk in _chunks(rows):
        skipped = 0 if start is None else chunk.entries.keys_before(start)
        start = None
        count = len(chunk.entries) - skipped
        new_before, new_after = before[offset : offset + count], after[offset : offset + count]
        offset += count
        stored = chunk.entries.taken(slice(skipped, None))
        same = np.array_equal(stored["rating_before"], new_before, equal_nan=True)
        if same and np.array_equal(stored["rating_after"], new_after, equal_nan=True):
            continue
        columns = dict(chunk.entries.columns)
        for name, values in (("rating_before", new_before), ("rating_after", new_after)):
            column = columns[name].copy()
            column[skipped:] = values
            columns[name] = column
        updates.append(
            {
                "guild_id": guild_id,
                "first_at": chunk.key[0],
                "first_id": chunk.key[1],
                "data": _encoded(Entries(columns)),
            }
        )
    return offset, updates


# --- from the rows -------------------------------------------------------------------------


async def entries_from_rows(session: Session, guild_id: int, start: LogKey) -> Entries:
    """The guild's log entries from `start` on, read from the rows (the truth): what the
    chunks are built from, and checked against."""
    dialect = session.dialect
    dtypes = [np.dtype(dtype.newbyteorder("=")) for _, dtype in FIELDS]
    dtypes[3] = dialect.side_dtype
    columns = await session.columns(
        "SELECT p.match_id, CAST(p.position AS BIGINT) AS position, p.user_id, "
        f"{dialect.side_code} AS side, p.score, p.minutes, "
        f"coalesce(p.rating_before, {dialect.missing_real}) AS rating_before, "
        f"coalesce(p.rating_after, {dialect.missing_real}) AS rating_after, "
        "m.applied_at, m.played_at "
        "FROM matches m JOIN participants p ON p.match_id = m.id "
        "WHERE m.guild_id = :guild_id AND m.status = 'applied' "
        "AND (m.applied_at, m.id) >= (:applied_at, :id) AND p.enabled "
        "ORDER BY m.applied_at, m.id, p.position",
        {"guild_id": guild_id, "applied_at": start[0], "id": start[1]},
        dtypes,
    )
    entries = Entries(
        {name: np.asarray(column) for (name, _), column in zip(FIELDS, columns, strict=True)}
    )
    entries.columns["side"] = first_appearance_sides(entries["match_id"], entries["side"])
    return entries


async def match_entries(session: Session, match_id: int) -> tuple[int, LogKey | None, Entries]:
    """A match's guild, log key (None: not applied) and entries, from its rows."""
    row = await session.one(
        "SELECT guild_id, status, applied_at FROM matches WHERE id = :id", {"id": match_id}
    )
    assert row is not None, f"no match {match_id}"
    if row["status"] != "applied":
        return row["guild_id"], None, no_entries()
    key = (row["applied_at"], match_id)
    entries = await entries_from_rows(session, row["guild_id"], key)
    return row["guild_id"], key, entries.taken(entries["match_id"] == match_id)


async def rebuild(session: Session, guild_id: int) -> int:
    """The guild's chunks made again from its rows; the number of entries."""
    await session.run("DELETE FROM log_chunks WHERE guild_id = :guild_id", {"guild_id": guild_id})
    entries = await entries_from_rows(session, guild_id, (-np.inf, 0))
    await _insert(session, guild_id, entries)
    return len(entries)


async def fill(session: Session) -> None:
    """The migration that adds the chunks: every guild's, from its rows, with a line on
    standard error for a database that holds matches (it takes a while for a big one)."""
    guilds = [
        int(row["guild_id"])
        for row in await session.all(
            "SELECT DISTINCT guild_id FROM matches WHERE status = 'applied' ORDER BY guild_id"
        )
    ]
    if not guilds:
        return
    print(
        f"ladderbot: adding the columnar copy of the match log of {len(guilds)} "
        "server(s), once ...",
        file=sys.stderr,
        flush=True,
    )
    entries = 0
    for guild_id in guilds:
        entries += await rebuild(session, guild_id)
    print(f"ladderbot: done ({entries:,} log entries)", file=sys.stderr, flush=True)
