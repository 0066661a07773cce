"""SQLite: the schema, its migrations and every query of the bot.

Connections: one writer and one reader, both in WAL mode, so reads never wait for writes.
The reader is an aiosqlite connection. The writer is a plain sqlite3 connection on a thread
of its own (as datasette does), because aiosqlite has no public way to run several
statements in one trip to its thread, and a report would otherwise wait for it per statement.
Every write is one `BEGIN IMMEDIATE` transaction on the writer, taken behind an asyncio.Lock
(`Database.write()`), so use cases never interleave and SQLite never answers "database is
locked". synchronous=FULL: a match the bot has announced as recorded survives a power cut
(NORMAL would only protect against corruption, not against losing the last commits).

The log order of a guild: applied matches sorted by (applied_at, id). A confirm stamps
applied_at = max(now, newest applied_at of the guild), so it always appends; an import stamps
applied_at = played_at, so it merges by time and the caller replays from there.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import astuple, fields
from pathlib import Path
from typing import Any, Final, TypeVar

import aiosqlite
import numpy as np

from bot.config import GuildSettings
from bot.storage.models import (
    GameRows,
    LiveBoard,
    LogKey,
    LogRow,
    Match,
    MatchStatus,
    Member,
    MemberInfo,
    NewMatch,
    Outcome,
    Participant,
    Performance,
)

BUSY_TIMEOUT_MS: Final = 10_000
_UPSERT_CHUNK: Final = 5_000
"""Rows per multi-row upsert (4 parameters each, well under SQLite's 32,766)."""
LOG_START: Final[LogKey] = (-math.inf, 0)
"""A key before every match: replaying from it replays the whole guild."""

SETTING_COLUMNS: Final = tuple(field.name for field in fields(GuildSettings))

MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the initial schema.
    """
    CREATE TABLE guilds (
        guild_id INTEGER PRIMARY KEY,
        t REAL NOT NULL,
        game_mult REAL NOT NULL,
        max_game_length REAL NOT NULL,
        initial_rating REAL NOT NULL,
        variant TEXT NOT NULL,
        confirm TEXT NOT NULL,
        auto_confirm_hours REAL NOT NULL,
        min_games INTEGER NOT NULL,
        live_channel_id INTEGER,
        live_message_id INTEGER,
        live_edited_at REAL,
        changed_at REAL
    );
    CREATE TABLE members (
        guild_id INTEGER NOT NULL REFERENCES guilds (guild_id),
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        is_bot INTEGER NOT NULL DEFAULT 0,
        enabled INTEGER NOT NULL DEFAULT 1,
        rating REAL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE TABLE matches (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL REFERENCES guilds (guild_id),
        status TEXT NOT NULL CHECK (status IN ('pending', 'disputed', 'applied', 'void')),
        reporter_id INTEGER,
        created_at REAL NOT NULL,
        played_at REAL NOT NULL,
        applied_at REAL,
        request_id TEXT NOT NULL,
        channel_id INTEGER,
        message_id INTEGER,
        void_reason TEXT,
        disputed_by INTEGER,
        UNIQUE (guild_id, request_id),
        CHECK ((status = 'applied') <= (applied_at IS NOT NULL))
    );
    CREATE INDEX matches_log ON matches (guild_id, status, applied_at, id);
    CREATE TABLE participants (
        match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        user_id INTEGER,
        guest TEXT,
        side TEXT NOT NULL,
        score REAL NOT NULL CHECK (score >= 0),
        minutes REAL NOT NULL CHECK (minutes > 0 AND minutes <= 1440),
        enabled INTEGER NOT NULL,
        outcome TEXT CHECK (outcome IN ('win', 'draw', 'loss')),
        rating_before REAL,
        rating_after REAL,
        PRIMARY KEY (match_id, position),
        CHECK ((user_id IS NULL) <> (guest IS NULL)),
        CHECK (enabled = (outcome IS NOT NULL))
    ) WITHOUT ROWID;
    CREATE INDEX participants_user ON participants (user_id, match_id);
    """,
    # 2: performances, a cache derived from the log (see `Queries.performances`).
    """
    CREATE TABLE performances (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        measure TEXT NOT NULL,
        value REAL,
        up REAL,
        down REAL,
        PRIMARY KEY (guild_id, user_id, measure)
    ) WITHOUT ROWID;
    CREATE TRIGGER performances_stale AFTER UPDATE OF rating ON members
    BEGIN
        DELETE FROM performances WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id;
    END;
    """,
    # 3: provisional_games, a guild setting (SPEC 9.5).
    """
    ALTER TABLE guilds ADD COLUMN provisional_games INTEGER NOT NULL DEFAULT 5;
    """,
)

_MATCH_COLUMNS: Final = (
    "m.id, m.guild_id, m.status, m.reporter_id, m.created_at, m.played_at, m.applied_at, "
    "m.request_id, m.channel_id, m.message_id, m.void_reason, m.disputed_by"
)
_PARTICIPANT_COLUMNS: Final = (
    "p.match_id, p.position, p.user_id, p.guest, coalesce(mb.name, p.guest, ''), p.side, "
    "p.score, p.minutes, p.enabled, p.outcome, p.rating_before, p.rating_after"
)
_PARTICIPANT_JOIN: Final = (
    "FROM participants p JOIN matches m ON m.id = p.match_id "
    "LEFT JOIN members mb ON mb.guild_id = m.guild_id AND mb.user_id = p.user_id"
)


def _member(row: sqlite3.Row | tuple[Any, ...]) -> Member:
    (guild_id, user_id, name, is_bot, enabled, rating, games, wins, draws, losses) = row
    return Member(
        guild_id, user_id, name, bool(is_bot), bool(enabled), rating, games, wins, draws, losses
    )


_MEMBER_COLUMNS: Final = (
    "guild_id, user_id, name, is_bot, enabled, rating, games, wins, draws, losses"
)
_LIVE_BOARD_COLUMNS: Final = "guild_id, live_channel_id, live_message_id, live_edited_at"


class Queries:
    """Read queries; the reader connection runs them, and so does a write transaction."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection

    async def _all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """All rows in one trip to the connection's thread (a cursor would take three)."""
        return list(await self._connection.execute_fetchall(sql, parameters))

    async def _one(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        rows = await self._all(sql, parameters)
        return rows[0] if rows else None

    async def guild_settings(self, guild_id: int) -> GuildSettings | None:
        row = await self._one(
            f"SELECT {', '.join(SETTING_COLUMNS)} FROM guilds WHERE guild_id = ?", (guild_id,)
        )
        return None if row is None else GuildSettings(*row)

    async def member(self, guild_id: int, user_id: int) -> Member | None:
        row = await self._one(
            f"SELECT {_MEMBER_COLUMNS} FROM members WHERE guild_id = ? AND user_id = ?",
            (guild_id, user_id),
        )
        return None if row is None else _member(row)

    async def members(self, guild_id: int) -> list[Member]:
        rows = await self._all(
            f"SELECT {_MEMBER_COLUMNS} FROM members WHERE guild_id = ? ORDER BY user_id",
            (guild_id,),
        )
        return [_member(row) for row in rows]

    async def members_measured(
        self, guild_id: int, measure: str
    ) -> list[tuple[Member, Performance | None]]:
        """Every member of the guild with their cached `measure` (None: not cached; see
        `performances`), by user id."""
        rows = await self._all(
            f"SELECT {', '.join(f'mb.{column}' for column in _MEMBER_COLUMNS.split(', '))}, "
            "pf.measure, "
            "pf.value, pf.up, pf.down FROM members mb LEFT JOIN performances pf "
            "ON pf.guild_id = mb.guild_id AND pf.user_id = mb.user_id AND pf.measure = ? "
            "WHERE mb.guild_id = ? ORDER BY mb.user_id",
            (measure, guild_id),
        )
        return [
            (_member(row[:10]), None if row[10] is None else _performance(row[11:])) for row in rows
        ]

    async def members_by_id(self, guild_id: int, user_ids: Iterable[int]) -> list[Member]:
        rows = await self._all(
            f"SELECT {_MEMBER_COLUMNS} FROM members WHERE guild_id = ? "
            "AND user_id IN (SELECT value FROM json_each(?)) ORDER BY user_id",
            (guild_id, _json_ints(user_ids)),
        )
        return [_member(row) for row in rows]

    async def members_named(self, guild_id: int, name: str) -> list[Member]:
        """Members whose display name is `name` (case-insensitive)."""
        rows = await self._all(
            f"SELECT {_MEMBER_COLUMNS} FROM members WHERE guild_id = ? AND name = ? "
            "COLLATE NOCASE ORDER BY user_id",
            (guild_id, name),
        )
        return [_member(row) for row in rows]

    async def _matches(
        self, where: str, parameters: Sequence[Any], tail: str = "", source: str = "matches m"
    ) -> list[Match]:
        rows = await self._all(
            f"SELECT {_MATCH_COLUMNS} FROM {source} WHERE {where} {tail}", parameters
        )
        if not rows:
            return []
        ids = [row[0] for row in rows]
        participants: dict[int, list[Participant]] = {match_id: [] for match_id in ids}
        found = await self._all(
            f"SELECT {_PARTICIPANT_COLUMNS} {_PARTICIPANT_JOIN} "
            "WHERE p.match_id IN (SELECT value FROM json_each(?)) "
            "ORDER BY p.match_id, p.position",
            (_json_ints(ids),),
        )
        for match_id, *rest in found:
            position, user_id, guest, name, side, score, minutes, enabled, *tail_ = rest
            outcome, before, after = tail_
            participants[match_id].append(
                Participant(
                    position,
                    user_id,
                    guest,
                    name,
                    side,
                    score,
                    minutes,
                    bool(enabled),
                    outcome,
                    before,
                    after,
                )
            )
        return [_match(row, tuple(participants[row[0]])) for row in rows]

    async def match(self, guild_id: int, match_id: int) -> Match | None:
        found = await self._matches("m.guild_id = ? AND m.id = ?", (guild_id, match_id))
        return found[0] if found else None

    async def match_id_by_request(self, guild_id: int, request_id: str) -> int | None:
        row = await self._one(
            "SELECT id FROM matches WHERE guild_id = ? AND request_id = ?", (guild_id, request_id)
        )
        return None if row is None else int(row[0])

    async def recent_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[Match]:
        """Newest reports first (by creation), skipping `offset`; with a user id, only
        matches they played."""
        tail = "ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?"
        if user_id is None:
            return await self._matches("m.guild_id = ?", (guild_id, limit, offset), tail)
        # From the member's rows of participants_user (a member plays a match at most once).
        return await self._matches(
            "p.user_id = ? AND m.guild_id = ?",
            (user_id, guild_id, limit, offset),
            tail,
            "participants p CROSS JOIN matches m ON m.id = p.match_id",
        )

    async def match_count(self, guild_id: int, user_id: int | None = None) -> int:
        """How many matches `recent_matches` can page through."""
        if user_id is None:
            row = await self._one("SELECT COUNT(*) FROM matches WHERE guild_id = ?", (guild_id,))
        else:
            row = await self._one(
                "SELECT COUNT(*) FROM participants p CROSS JOIN matches m ON m.id = p.match_id "
                "WHERE p.user_id = ? AND m.guild_id = ?",
                (user_id, guild_id),
            )
        return int(row[0])

    async def head_to_head(self, guild_id: int, a: int, b: int) -> list[Match]:
        """Applied matches in which members a and b were both rated, on different sides;
        newest first in log order."""
        return await self._matches(
            "pa.user_id = ? AND pb.user_id = ? AND pa.enabled AND pb.enabled "
            "AND pa.side <> pb.side AND m.guild_id = ? AND m.status = 'applied'",
            (a, b, guild_id),
            "ORDER BY m.applied_at DESC, m.id DESC",
            "participants pa CROSS JOIN participants pb ON pb.match_id = pa.match_id "
            "CROSS JOIN matches m ON m.id = pa.match_id",
        )

    async def applied_matches(self, guild_id: int) -> list[Match]:
        """Every applied match of the guild, in log order (for export)."""
        return await self._matches(
            "m.guild_id = ? AND m.status = 'applied'", (guild_id,), "ORDER BY m.applied_at, m.id"
        )

    async def all_matches(self, guild_id: int) -> list[Match]:
        """Every match of the guild whatever its status, oldest report first."""
        return await self._matches("m.guild_id = ?", (guild_id,), "ORDER BY m.id")

    async def ladder_rank(self, member: Member, min_games: int, initial_rating: float) -> int:
        """The place on the ladder leaderboard of a member who is on it (enabled, no bot, at
        least min_games): 1 + the members ahead (higher rating, then more games, then a
        lower user id)."""
        rating = initial_rating if member.rating is None else member.rating
        row = await self._one(
            "SELECT 1 + count(*) FROM members WHERE guild_id = ? AND enabled AND NOT is_bot "
            "AND games >= ? AND (coalesce(rating, ?) > ? OR (coalesce(rating, ?) = ? "
            "AND (games > ? OR (games = ? AND user_id < ?))))",
            (
                member.guild_id,
                min_games,
                initial_rating,
                rating,
                initial_rating,
                rating,
                member.games,
                member.games,
                member.user_id,
            ),
        )
        return int(row[0])

    async def rated_results(
        self, guild_id: int, user_id: int
    ) -> list[tuple[float, int, Outcome, float, float]]:
        """(played_at, match id, outcome, rating before, rating after) of each applied match
        in which the member was rated, in log order (the player card)."""
        rows = await self._all(
            "SELECT m.played_at, m.id, p.outcome, p.rating_before, p.rating_after "
            "FROM participants p JOIN matches m ON m.id = p.match_id WHERE p.user_id = ? "
            "AND p.enabled AND p.rating_after IS NOT NULL AND m.guild_id = ? "
            "AND m.status = 'applied' ORDER BY m.applied_at, m.id",
            (user_id, guild_id),
        )
        return [(row[0], row[1], row[2], row[3], row[4]) for row in rows]

    async def matches_by_id(self, guild_id: int, match_ids: Iterable[int]) -> list[Match]:
        """The guild's matches with these ids, by id."""
        return await self._matches(
            "m.guild_id = ? AND m.id IN (SELECT value FROM json_each(?))",
            (guild_id, _json_ints(match_ids)),
            "ORDER BY m.id",
        )

    async def member_games(self, guild_id: int, user_ids: Iterable[int]) -> GameRows:
        """The games (SPEC 3.3) of the given members, through the participants_user index:
        one row per applied match in which the member was rated and per rated opponent on
        another side; by member, then newest match first (played_at, then id), then
        opponent id."""
        rows = await self._all(
            "SELECT me.user_id, m.played_at, opponent.user_id, me.score, me.minutes, "
            "opponent.score, opponent.minutes, opponent.rating_before "
            "FROM json_each(?) AS chosen CROSS JOIN participants me ON me.user_id = chosen.value "
            "JOIN matches m ON m.id = me.match_id "
            "JOIN participants opponent ON opponent.match_id = me.match_id "
            "WHERE m.guild_id = ? AND m.status = 'applied' AND me.enabled AND opponent.enabled "
            "AND opponent.side <> me.side "
            "ORDER BY me.user_id, m.played_at DESC, m.id DESC, opponent.user_id",
            (_json_ints(sorted(set(user_ids))), guild_id),
        )
        columns = list(zip(*rows, strict=True)) if rows else [()] * 8
        member, played_at, opponent, score, minutes, *theirs = columns
        return GameRows(
            np.array(member, dtype=np.int64),
            np.array(played_at, dtype=np.float64),
            np.array(opponent, dtype=np.int64),
            np.array(score, dtype=np.float64),
            np.array(minutes, dtype=np.float64),
            *(np.array(column, dtype=np.float64) for column in theirs),
        )

    async def performances(
        self, guild_id: int, user_ids: Iterable[int], measures: Iterable[str]
    ) -> dict[tuple[int, str], Performance]:
        """The cached performances of the given members by (user id, measure).

        The cache is derived from the log: `store_performances` fills it and a member's rows
        go whenever their rating is rewritten (trigger performances_stale), which every
        apply, replay, void, import and recompute does for each member whose game list
        changes (participants of the matches replayed, everyone on a full replay)."""
        rows = await self._all(
            "SELECT user_id, measure, value, up, down FROM performances WHERE guild_id = ? "
            "AND measure IN (SELECT value FROM json_each(?)) "
            "AND user_id IN (SELECT value FROM json_each(?))",
            (guild_id, json.dumps(list(measures)), _json_ints(user_ids)),
        )
        return {(user_id, measure): _performance(values) for user_id, measure, *values in rows}

    async def log_rows(self, guild_id: int, start: LogKey = LOG_START) -> list[LogRow]:
        """Enabled participants of the applied matches from `start` on, in log order."""
        rows = await self._all(
            "SELECT p.match_id, p.position, p.user_id, p.side, p.score, p.minutes, "
            "p.rating_before FROM matches m JOIN participants p ON p.match_id = m.id "
            "WHERE m.guild_id = ? AND m.status = 'applied' AND (m.applied_at, m.id) >= (?, ?) "
            "AND p.enabled ORDER BY m.applied_at, m.id, p.position",
            (guild_id, *start),
        )
        return [LogRow(*row) for row in rows]

    async def newest_log_key(self, guild_id: int) -> LogKey | None:
        row = await self._one(
            "SELECT applied_at, id FROM matches WHERE guild_id = ? AND status = 'applied' "
            "ORDER BY applied_at DESC, id DESC LIMIT 1",
            (guild_id,),
        )
        return None if row is None else (row[0], row[1])

    async def due_pending(self, now: float) -> list[tuple[int, int]]:
        """(guild_id, match_id) of pending matches older than their guild's
        auto_confirm_hours, oldest first."""
        rows = await self._all(
            "SELECT m.guild_id, m.id FROM matches m JOIN guilds g ON g.guild_id = m.guild_id "
            "WHERE m.status = 'pending' AND m.created_at + g.auto_confirm_hours * 3600 <= ? "
            "ORDER BY m.created_at, m.id",
            (now,),
        )
        return [(row[0], row[1]) for row in rows]

    async def live_boards_due(self, now: float, edit_seconds: float) -> list[LiveBoard]:
        """Live boards never posted, or whose guild changed since the last edit and whose
        last edit is at least edit_seconds old."""
        rows = await self._all(
            f"SELECT {_LIVE_BOARD_COLUMNS} FROM guilds "
            "WHERE live_channel_id IS NOT NULL AND (live_edited_at IS NULL OR "
            "(changed_at > live_edited_at AND live_edited_at + ? <= ?)) ORDER BY guild_id",
            (edit_seconds, now),
        )
        return [LiveBoard(*row) for row in rows]

    async def live_board(self, guild_id: int) -> LiveBoard | None:
        row = await self._one(
            f"SELECT {_LIVE_BOARD_COLUMNS} FROM guilds "
            "WHERE guild_id = ? AND live_channel_id IS NOT NULL",
            (guild_id,),
        )
        return None if row is None else LiveBoard(*row)

    async def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, in a stable order (for "nothing changed" checks)."""
        tables = {
            "guilds": "guild_id",
            "members": "guild_id, user_id",
            "matches": "id",
            "participants": "match_id, position",
        }
        return {
            table: [
                tuple(row) for row in await self._all(f"SELECT * FROM {table} ORDER BY {order}")
            ]
            for table, order in tables.items()
        }

    async def integrity_check(self) -> str:
        row = await self._one("PRAGMA integrity_check")
        return str(row[0])


class WriteTransaction(Queries):
    """The writes; only exists inside `Database.write()` (one BEGIN IMMEDIATE transaction).

    Its queries run on the writer's thread (`_Writer`), not the reader's. Writes whose
    results nobody reads are queued and go to that thread together with the next statement
    that returns rows, or with the COMMIT: an applied report waits for the thread twice
    (its reads, then its writes and the COMMIT), not once per statement. Statements still
    run in the order made; a failing one rolls the whole transaction back.

    `known_settings` are the committed settings of guilds seen before (the bot is the only
    writer of settings, so they stay true); what this transaction learns or changes goes to
    `settings_seen`, which `Database.write()` keeps only once the transaction commits.
    """

    def __init__(self, writer: _Writer, known_settings: Mapping[int, GuildSettings]) -> None:
        self._writer = writer
        self._queued: list[_Statement] = [("BEGIN IMMEDIATE", (), False)]
        self._reads: list[tuple[str, Sequence[Any], asyncio.Future[list[Any]]]] = []
        self._sending: asyncio.Task[None] | None = None
        self._known_settings = known_settings
        self.settings_seen: dict[int, GuildSettings] = {}

    def _write(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        self._queued.append((sql, parameters, False))

    def _write_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._queued.append((sql, list(rows), True))

    def _take_queued(self) -> list[_Statement]:
        queued, self._queued = self._queued, []
        return queued

    async def _all(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """The rows of a statement. Those asked for in the same turn of the event loop (as
        `in_one_trip` does) run in one trip to the writer's thread, after the queued writes."""
        future: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._reads.append((sql, parameters, future))
        if self._sending is None:
            self._sending = asyncio.create_task(self._send_reads())
        return await future

    async def _send_reads(self) -> None:
        reads, self._reads, self._sending = self._reads, [], None
        queued = self._take_queued()

        def run(connection: sqlite3.Connection) -> list[list[Any] | Exception]:
            _run_statements(connection, queued)
            answers: list[list[Any] | Exception] = []
            for sql, parameters, _ in reads:
                try:
                    answers.append(connection.execute(sql, parameters).fetchall())
                except Exception as error:  # each statement answers for itself
                    answers.append(error)
            return answers

        try:
            answers = await self._writer.run(run)
        except BaseException as error:
            for *_, future in reads:
                if not future.done():
                    future.set_exception(error)
            raise
        for answer, (*_, future) in zip(answers, reads, strict=True):
            if future.done():  # its caller was cancelled
                continue
            if isinstance(answer, Exception):
                future.set_exception(answer)
            else:
                future.set_result(answer)

    async def commit(self) -> None:
        """Run what is queued and COMMIT, in one trip; all or nothing."""
        queued = self._take_queued()

        def run(connection: sqlite3.Connection) -> None:
            try:
                _run_statements(connection, queued)
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise

        await self._writer.run(run)

    async def roll_back(self) -> None:
        """Forget what is queued and ROLLBACK what ran (if BEGIN ever did)."""
        if self._sending is not None:  # reads asked for by a cancelled caller: never sent
            self._sending.cancel()
        if self._take_queued()[:1] == [("BEGIN IMMEDIATE", (), False)]:
            return

        def run(connection: sqlite3.Connection) -> None:
            if connection.in_transaction:
                connection.execute("ROLLBACK")

        await self._writer.run(run)

    async def ensure_guild(self, guild_id: int, defaults: GuildSettings) -> GuildSettings:
        """The guild's settings, creating the guild with the defaults on first use."""
        known = self.settings_seen.get(guild_id) or self._known_settings.get(guild_id)
        if known is not None:
            return known
        self._write(
            f"INSERT OR IGNORE INTO guilds (guild_id, {', '.join(SETTING_COLUMNS)}) "
            f"VALUES (?, {', '.join('?' * len(SETTING_COLUMNS))})",
            (guild_id, *astuple(defaults)),
        )
        settings = await self.guild_settings(guild_id)
        assert settings is not None
        self.settings_seen[guild_id] = settings
        return settings

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        self._write(
            f"UPDATE guilds SET {', '.join(f'{name} = ?' for name in SETTING_COLUMNS)} "
            "WHERE guild_id = ?",
            (*astuple(settings), guild_id),
        )
        self.settings_seen[guild_id] = settings

    async def upsert_members(self, guild_id: int, members: Iterable[MemberInfo]) -> list[Member]:
        """Record display names and bot flags as the front end sees them; returns those
        members as stored (in no particular order)."""
        rows = [(guild_id, info.user_id, info.name, int(info.is_bot)) for info in members]
        stored: list[Member] = []
        for start in range(0, len(rows), _UPSERT_CHUNK):
            chunk = rows[start : start + _UPSERT_CHUNK]
            found = await self._all(
                "INSERT INTO members (guild_id, user_id, name, is_bot) VALUES "
                + ", ".join(["(?, ?, ?, ?)"] * len(chunk))
                + " ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, "
                f"is_bot = excluded.is_bot RETURNING {_MEMBER_COLUMNS}",
                [value for row in chunk for value in row],
            )
            stored.extend(_member(row) for row in found)
        return stored

    async def add_members(self, guild_id: int, user_ids: Iterable[int]) -> list[Member]:
        """Make sure members exist (name = their id until the front end tells us more);
        returns them as stored."""
        wanted = sorted(set(user_ids))
        self._write_many(
            "INSERT OR IGNORE INTO members (guild_id, user_id, name) VALUES (?, ?, ?)",
            [(guild_id, user_id, str(user_id)) for user_id in wanted],
        )
        return await self.members_by_id(guild_id, wanted)

    async def set_enabled(self, guild_id: int, user_id: int, enabled: bool) -> None:
        self._write(
            "UPDATE members SET enabled = ? WHERE guild_id = ? AND user_id = ?",
            (int(enabled), guild_id, user_id),
        )

    async def next_match_id(self) -> int:
        """The id the next inserted match takes (ids are only assigned inside the one write
        transaction, so it stays free until this one inserts)."""
        row = await self._one("SELECT coalesce(max(id), 0) + 1 FROM matches")
        return int(row[0])

    async def insert_matches(
        self,
        guild_id: int,
        matches: Sequence[NewMatch],
        status: MatchStatus,
        first_id: int,
        applied_at: Sequence[float | None] | None = None,
    ) -> list[int]:
        """Insert matches with their participants in bulk, with the ids first_id,
        first_id + 1, ... (first_id from `next_match_id`); returns the ids in order."""
        stamps = applied_at if applied_at is not None else [None] * len(matches)
        rows = [
            (
                guild_id,
                status,
                new.reporter_id,
                new.created_at,
                new.played_at,
                stamp,
                new.request_id,
            )
            for new, stamp in zip(matches, stamps, strict=True)
        ]
        ids = list(range(first_id, first_id + len(matches)))
        self._write_many(
            f"INSERT INTO matches (id, {_MATCH_INSERT}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(match_id, *row) for match_id, row in zip(ids, rows, strict=True)],
        )
        self._write_many(
            f"INSERT INTO participants ({_PARTICIPANT_COLUMNS_IN}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (match_id, *row)
                for match_id, new in zip(ids, matches, strict=True)
                for row in _participant_rows(new)
            ],
        )
        return ids

    async def set_status(
        self,
        match_id: int,
        status: MatchStatus,
        *,
        void_reason: str | None = None,
        disputed_by: int | None = None,
    ) -> None:
        self._write(
            "UPDATE matches SET status = ?, void_reason = coalesce(?, void_reason), "
            "disputed_by = coalesce(?, disputed_by) WHERE id = ?",
            (status, void_reason, disputed_by, match_id),
        )

    async def set_match_message(self, match_id: int, channel_id: int, message_id: int) -> None:
        self._write(
            "UPDATE matches SET channel_id = ?, message_id = ? WHERE id = ?",
            (channel_id, message_id, match_id),
        )

    async def add_applied_match(
        self, guild_id: int, new: NewMatch, match_id: int, applied_at: float, changed_at: float
    ) -> None:
        """Insert a match (id from `next_match_id`) applied at once at the end of the log (its
        rated participants carry their ratings before and after) and mark the guild changed.
        Each rated member's rating becomes `after` and its record counts one more game."""
        await self.insert_matches(guild_id, [new], "applied", match_id, [applied_at])
        await self._count_game(
            guild_id,
            [
                (p.user_id, p.rating_after, p.outcome)
                for p in new.participants
                if p.user_id is not None and p.rating_after is not None
            ],
        )
        self._mark_changed(guild_id, changed_at)

    async def apply_match(
        self,
        match: Match,
        applied_at: float,
        ratings: Mapping[int, tuple[float, float]],
        changed_at: float,
    ) -> None:
        """Mark a pending match applied at the end of the log and the guild changed; ratings:
        user id -> (before, after). Each rated member's rating becomes `after` and its record
        counts one more game."""
        self._write(
            "UPDATE matches SET status = 'applied', applied_at = ? WHERE id = ?",
            (applied_at, match.id),
        )
        rated = [
            (p.position, p.user_id, p.outcome)
            for p in match.participants
            if p.user_id is not None and p.user_id in ratings
        ]
        self._write_many(
            "UPDATE participants SET rating_before = ?, rating_after = ? "
            "WHERE match_id = ? AND position = ?",
            [(*ratings[user_id], match.id, position) for position, user_id, _ in rated],
        )
        await self._count_game(
            match.guild_id,
            [(user_id, ratings[user_id][1], outcome) for _, user_id, outcome in rated],
        )
        self._mark_changed(match.guild_id, changed_at)

    async def _count_game(
        self, guild_id: int, rated: Iterable[tuple[int, float, Outcome | None]]
    ) -> None:
        """(user id, rating after, outcome) of each rated member of one applied match."""
        self._write_many(
            "UPDATE members SET rating = ?, games = games + 1, wins = wins + ?, "
            "draws = draws + ?, losses = losses + ? WHERE guild_id = ? AND user_id = ?",
            [
                (after, *_record_increment(outcome), guild_id, user_id)
                for user_id, after, outcome in rated
            ],
        )

    async def write_replay(
        self,
        guild_id: int,
        participant_ratings: Iterable[tuple[float, float, int, int]],
        member_ratings: Mapping[int, float | None],
        changed_at: float,
    ) -> None:
        """Store a replay: (before, after, match_id, position) per participant, the final
        rating per member (None: no rated match left); then recount their records and mark
        the guild changed."""
        self._write_many(
            "UPDATE participants SET rating_before = ?, rating_after = ? "
            "WHERE match_id = ? AND position = ?",
            participant_ratings,
        )
        self._write_many(
            "UPDATE members SET rating = ? WHERE guild_id = ? AND user_id = ?",
            [(rating, guild_id, user_id) for user_id, rating in member_ratings.items()],
        )
        await self.recount_records(guild_id, list(member_ratings))
        self._mark_changed(guild_id, changed_at)

    async def recount_records(self, guild_id: int, user_ids: Sequence[int] | None = None) -> None:
        """games/wins/draws/losses from the applied matches (all members when None);
        a member left without a rated match has no rating."""
        chosen = "" if user_ids is None else "AND user_id IN (SELECT value FROM json_each(?))"
        extra: tuple[Any, ...] = () if user_ids is None else (_json_ints(user_ids),)
        # The chosen members' rows come through the participants_user index; only a
        # recount of everyone reads the whole guild.
        played = (
            "FROM participants p"
            if user_ids is None
            else "FROM json_each(?) AS chosen CROSS JOIN participants p ON p.user_id = chosen.value"
        )
        self._write(
            "UPDATE members SET games = 0, wins = 0, draws = 0, losses = 0 "
            f"WHERE guild_id = ? {chosen}",
            (guild_id, *extra),
        )
        self._write(
            "WITH record AS (SELECT p.user_id, count(*) AS games, "
            "sum(p.outcome = 'win') AS wins, sum(p.outcome = 'draw') AS draws, "
            f"sum(p.outcome = 'loss') AS losses {played} "
            "JOIN matches m ON m.id = p.match_id WHERE m.guild_id = ? AND m.status = 'applied' "
            "AND p.enabled GROUP BY p.user_id) "
            "UPDATE members SET games = record.games, wins = record.wins, "
            "draws = record.draws, losses = record.losses FROM record "
            "WHERE members.guild_id = ? AND members.user_id = record.user_id",
            (*extra, guild_id, guild_id),
        )
        self._write(
            f"UPDATE members SET rating = NULL WHERE guild_id = ? AND games = 0 {chosen}",
            (guild_id, *extra),
        )

    async def store_performances(
        self, guild_id: int, performances: Mapping[tuple[int, str], Performance]
    ) -> None:
        """Cache performances by (user id, measure); nan is stored as NULL."""
        self._write_many(
            "INSERT OR REPLACE INTO performances (guild_id, user_id, measure, value, up, down) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    guild_id,
                    user_id,
                    measure,
                    *(None if math.isnan(v) else v for v in (found.value, found.up, found.down)),
                )
                for (user_id, measure), found in performances.items()
            ],
        )

    def _mark_changed(self, guild_id: int, now: float) -> None:
        """Ratings of the guild changed (its live leaderboard needs an edit)."""
        self._write("UPDATE guilds SET changed_at = ? WHERE guild_id = ?", (now, guild_id))

    async def set_live_board(self, guild_id: int, channel_id: int | None) -> None:
        self._write(
            "UPDATE guilds SET live_channel_id = ?, live_message_id = NULL, "
            "live_edited_at = NULL WHERE guild_id = ?",
            (channel_id, guild_id),
        )

    async def mark_live_board_edited(
        self, guild_id: int, message_id: int, edited_at: float
    ) -> None:
        self._write(
            "UPDATE guilds SET live_message_id = ?, live_edited_at = ? WHERE guild_id = ?",
            (message_id, edited_at, guild_id),
        )


def _match(row: Sequence[Any], participants: tuple[Participant, ...]) -> Match:
    (match_id, guild_id, status, reporter, created, played, applied, request, *rest) = row
    channel_id, message_id, void_reason, disputed_by = rest
    return Match(
        match_id,
        guild_id,
        status,
        reporter,
        created,
        played,
        applied,
        request,
        channel_id,
        message_id,
        void_reason,
        disputed_by,
        participants,
    )


_MATCH_INSERT: Final = (
    "guild_id, status, reporter_id, created_at, played_at, applied_at, request_id"
)
_PARTICIPANT_COLUMNS_IN: Final = (
    "match_id, position, user_id, guest, side, score, minutes, enabled, outcome, "
    "rating_before, rating_after"
)


def _participant_rows(new: NewMatch) -> list[tuple[Any, ...]]:
    """The values of _PARTICIPANT_COLUMNS_IN after match_id, one tuple per participant."""
    return [
        (
            position,
            p.user_id,
            p.guest,
            p.side,
            p.score,
            p.minutes,
            int(p.enabled),
            p.outcome,
            p.rating_before,
            p.rating_after,
        )
        for position, p in enumerate(new.participants)
    ]


async def in_one_trip(*calls: Awaitable[Any]) -> list[Any]:
    """Await calls of one write transaction whose statements need nothing from each other:
    started in the same turn of the event loop, their statements run in one trip to the
    writer's thread, for one wait instead of one per statement. All run even when one fails
    (the transaction then rolls back); the first failure is raised. Results in order."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def _performance(values: Sequence[float | None]) -> Performance:
    """value, up, down as stored: NULL is nan (SQLite has no nan)."""
    value, up, down = values
    return Performance(
        math.nan if value is None else value,
        math.nan if up is None else up,
        math.nan if down is None else down,
    )


def _record_increment(outcome: Outcome | None) -> tuple[int, int, int]:
    return (int(outcome == "win"), int(outcome == "draw"), int(outcome == "loss"))


def _json_ints(values: Iterable[int]) -> str:
    return "[" + ",".join(str(int(value)) for value in values) + "]"


_Statement = tuple[str, Sequence[Any], bool]
"""(sql, parameters, many): many runs executemany with a list of parameter rows."""

_Result = TypeVar("_Result")


def _run_statements(connection: sqlite3.Connection, statements: Iterable[_Statement]) -> None:
    for sql, parameters, many in statements:
        if many:
            connection.executemany(sql, parameters)
        else:
            connection.execute(sql, parameters)


class _Writer:
    """The writer's sqlite3 connection, used only on a thread of its own (as aiosqlite
    does for the reader), where `run` executes a whole function: any number of statements
    for one wait (the standard library's executor, no private aiosqlite API)."""

    def __init__(self, executor: ThreadPoolExecutor, connection: sqlite3.Connection) -> None:
        self._executor = executor
        self._connection = connection

    @classmethod
    async def open(cls, path: str) -> _Writer:
        """Connect on the writer thread, set the pragmas and migrate."""
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ladderbot-writer")
        loop = asyncio.get_running_loop()
        try:
            connection = await loop.run_in_executor(executor, _connect_writer, path)
        except BaseException:
            executor.shutdown()
            raise
        return cls(executor, connection)

    async def run(self, function: Callable[[sqlite3.Connection], _Result]) -> _Result:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, function, self._connection)

    async def close(self) -> None:
        await self.run(sqlite3.Connection.close)
        self._executor.shutdown()


def _connect_writer(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        for pragma in (
            "journal_mode = WAL",
            "synchronous = FULL",
            "foreign_keys = ON",
            f"busy_timeout = {BUSY_TIMEOUT_MS}",
        ):
            connection.execute(f"PRAGMA {pragma}")
        _migrate(connection)
    except BaseException:
        connection.close()
        raise
    return connection


class Database:
    """The open database: `read` answers queries, `write()` opens the one write transaction."""

    def __init__(self, writer: _Writer, reader: aiosqlite.Connection) -> None:
        self._writer = writer
        self._reader = reader
        self._lock = asyncio.Lock()
        self._settings: dict[int, GuildSettings] = {}
        """Committed settings per guild: this process is the only writer of settings."""
        self.read = Queries(reader)

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        """Open (creating if needed) and migrate the database file at `path`."""
        writer = await _Writer.open(str(path))
        try:
            reader = await aiosqlite.connect(str(path), isolation_level=None)
        except BaseException:
            await writer.close()
            raise
        await reader.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await reader.execute("PRAGMA query_only = ON")
        return cls(writer, reader)

    async def close(self) -> None:
        async with self._lock:
            await self._reader.close()
            await self._writer.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[WriteTransaction]:
        """One write transaction: committed when the block ends, rolled back on an error."""
        async with self._lock:
            transaction = WriteTransaction(self._writer, self._settings)
            try:
                yield transaction
            except BaseException:
                await transaction.roll_back()
                raise
            await transaction.commit()
            self._settings.update(transaction.settings_seen)


def _migrate(connection: sqlite3.Connection) -> None:
    """Apply the migrations the file has not seen yet, each in its own transaction."""
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"the database is at schema version {version}, newer than this ladderbot "
            f"({len(MIGRATIONS)}): upgrade ladderbot"
        )
    for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(script):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")


def _statements(script: str) -> list[str]:
    """Split a migration into statements (executescript would commit on its own); a
    trigger's body holds semicolons, so a statement ends where SQLite says it is complete."""
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                statements.append(pending.strip())
            pending = ""
    return statements
