"""The open database: reads by aggregate, and write transactions as units of work.

`Database.open(url)` picks the engine (SQLite: a path or sqlite:///path; PostgreSQL:
postgresql://...). `db.read` answers queries; `db.snapshot()` is one read transaction (SPEC
8.6), and inside its block `db.read` is that snapshot, so that a read use case's queries,
however deep in its helpers, see one committed state. `db.write(guild_id)` is one write
transaction whose methods are those reads plus the writes of every aggregate, all on the
transaction's own connection (a use case reads what it wrote).
"""

from __future__ import annotations

import asyncio
import os
import re
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import numpy as np

from bot.config import POSTGRES_SCHEMES, SQLITE_URL, GuildSettings
from bot.storage import logchunks
from bot.storage.changes import ChangeReads, ChangeWrites
from bot.storage.community import CommunityReads, CommunityWrites
from bot.storage.engine import Ahead, DatabaseUnavailable, Engine, Row, Session
from bot.storage.guilds import SETTING_COLUMNS, GuildReads, GuildWrites, settings_from
from bot.storage.matches import NEWEST_ENTRY, ImportedMatches, MatchReads, MatchWrites
from bot.storage.members import MemberReads, MemberWrites
from bot.storage.models import (
    ChangedEntries,
    FloatArray,
    LogKey,
    Match,
    MatchEdit,
    Member,
    MemberInfo,
    NewMatch,
    NewParticipant,
    Outcome,
)
from bot.storage.performances import PerformanceReads, PerformanceWrites
from bot.storage.queues import QueueReads, QueueWrites
from bot.storage.seasons import SeasonReads, SeasonWrites
from bot.storage.webhooks import WebhookReads, WebhookWrites

NO_RECORD: Final = (0, 0, 0, 0)
REWRITE_BLOCK_ENTRIES: Final = 250_000
"""Changed ratings gathered at a time for update_rows: their copies (8 MB) exist one block at
a time, not the millions a whole-guild replay can change."""
"""games, wins, draws, losses of a member without a match in the current season."""
_ANY_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""What starts a URL of another kind (mysql://...): refused, not taken for a path."""
URL_FORMS: Final = "a file path, sqlite:///PATH or postgresql://USER@HOST:PORT/DATABASE"

_DUMPED: Final = {
    "guilds": "guild_id",
    "members": "guild_id, user_id",
    "matches": "id",
    "participants": "match_id, position",
    "log_chunks": "guild_id, first_at, first_id",
    "seasons": "guild_id, number",
    "season_standings": "guild_id, number, user_id",
    "queues": "guild_id, queue_id",
    "queue_members": "guild_id, queue_id, user_id",
    "lobbies": "guild_id, lobby_id",
    "lobby_players": "guild_id, lobby_id, user_id",
    "queue_penalties": "guild_id, user_id",
    "parties": "guild_id, leader_id",
    "party_members": "guild_id, user_id",
    "party_invites": "guild_id, leader_id, user_id",
    "lobby_rooms": "guild_id, lobby_id",
    "webhooks": "guild_id, webhook_id",
    "webhook_outbox": "seq",
}

_REQUESTED: Final = (
    "(SELECT id FROM matches WHERE guild_id = :guild_id AND request_id = :request_id)"
)
"""The match an earlier report with the request id recorded (NULL: none)."""


def is_postgres(url: str) -> bool:
    return url.startswith(POSTGRES_SCHEMES)


def redacted(url: str | Path) -> str:
    """The URL without its password, for messages (split by hand: a malformed URL is
    quoted in the message that refuses it)."""
    text = str(url)
    if not is_postgres(text):
        return text
    scheme, _, rest = text.partition("://")
    netloc, slash, path = rest.partition("/")
    user, _, host = netloc.rpartition("@")
    if ":" not in user:
        return text
    return f"{scheme}://{user.partition(':')[0]}:***@{host}{slash}{path}"


def sqlite_path(url: str | Path) -> str:
    """The file of a SQLite URL (sqlite:///relative, sqlite:////absolute) or plain path."""
    text = str(url)
    return text[len(SQLITE_URL) :] if text.startswith(SQLITE_URL) else text


def check_location(url: str | Path, create: bool) -> None:
    """Refuse, before anything is opened, a location no engine should open (SPEC 7): an
    empty one, :memory: (it would keep nothing), a URL of no known kind, a PostgreSQL URL
    without a database name or with a bad host or port; and, unless `create`, a SQLite
    file that does not exist (a command that only reads creates nothing, SPEC 5)."""
    text = str(url)
    if not text.strip():
        raise DatabaseUnavailable(f"no database named: give {URL_FORMS}")
    if is_postgres(text):
        _check_postgres_url(text)
        return
    path = sqlite_path(text)
    if (text.startswith("sqlite:") and not text.startswith(SQLITE_URL)) or not path.strip():
        raise DatabaseUnavailable(f"a SQLite URL is sqlite:///PATH (a file), not {text!r}")
    if "\0" in path:
        raise DatabaseUnavailable("a file path cannot hold a NUL character")
    if _ANY_SCHEME.match(path):
        raise DatabaseUnavailable(f"not a kind of database ladderbot knows: give {URL_FORMS}")
    if path.startswith((":memory:", "file::memory:")):
        raise DatabaseUnavailable("an in-memory database would keep nothing: give a file path")
    if path == "-":
        raise DatabaseUnavailable("'-' is no database file: give a file path")
    if os.path.isdir(path):
        raise DatabaseUnavailable("that is a folder, not a database file")
    exists = os.path.exists(path)
    if not create and not exists:
        raise DatabaseUnavailable("no such database file (a command that only reads creates none)")
    folder = os.path.dirname(path) or "."
    if not exists and not os.path.isdir(folder):
        raise DatabaseUnavailable(f"no such folder: {folder}")


def _check_postgres_url(text: str) -> None:
    """A PostgreSQL URL with a parseable host and port (1-65535) and a database name."""
    try:
        parts = urlsplit(text)
        port = parts.port
        parts.hostname  # noqa: B018 (parsing it refuses a malformed host such as "[::1")
    except ValueError as error:
        raise DatabaseUnavailable(f"a malformed PostgreSQL URL ({error})") from None
    if port == 0:
        raise DatabaseUnavailable("port 0 is no port: give 1 to 65535")
    if not parts.path.strip("/"):
        raise DatabaseUnavailable(
            "the PostgreSQL URL names no database: postgresql://USER@HOST:PORT/DATABASE"
        )


class Queries(
    GuildReads,
    MemberReads,
    MatchReads,
    PerformanceReads,
    SeasonReads,
    CommunityReads,
    QueueReads,
    ChangeReads,
    WebhookReads,
):
    """Every read query, on one session (the reader, or a write transaction's)."""

    def __init__(self, session: Session, engine: Engine) -> None:
        self._session = session
        self._engine = engine

    async def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, in a stable order (for "nothing changed" checks)."""
        return {
            table: [
                tuple(row)
                for row in await self._session.all(f"SELECT * FROM {table} ORDER BY {order}")
            ]
            for table, order in _DUMPED.items()
        }

    async def integrity_check(self) -> str:
        return await self._engine.integrity_check()


@dataclass(frozen=True, slots=True)
class ReportSlot:
    """What a new report needs to know (`WriteTransaction.report_slot`)."""

    settings: GuildSettings
    existing: int | None
    """The match an earlier request with this id recorded."""
    newest: LogKey | None
    """The end of the guild's log (None: empty)."""
    match_id: int
    """The id the new match takes (see Dialect.next_match_id)."""
    log_end: Ahead[list[Row]]
    """The end of the guild's log in chunks, read ahead for `add_applied_match`."""
    members: list[Member]
    """The members the front end told about, as stored."""


class WriteTransaction(
    Queries,
    GuildWrites,
    MemberWrites,
    MatchWrites,
    PerformanceWrites,
    SeasonWrites,
    CommunityWrites,
    QueueWrites,
    ChangeWrites,
    WebhookWrites,
):
    """The writes; only exists inside `Database.write()`. The units of work that span
    aggregates (a match applied, a replay stored) are here."""

    async def report_slot(
        self,
        guild_id: int,
        request_id: str,
        by_moderator: bool,
        now: float,
        defaults: GuildSettings,
        members: Iterable[MemberInfo],
    ) -> ReportSlot:
        """A report's slot, read in one statement (the guild made with `defaults` on its
        first write): the guild's settings, the match an earlier request with this id
        recorded, the end of the log and the next match id. The same statement marks the
        guild changed at `now` when the report applies at once (by a moderator, or the
        guild's confirm setting is "none") and is no retry (a retry changes nothing); a
        report that is then refused rolls back, and the mark with it. The members the front
        end told about are upserted after it (a retry leaves the stored ones be) and the end
        of the log's chunks read ahead: on SQLite one trip to the worker thread does all of
        it."""
        log_end = logchunks.log_end(self._session, guild_id)
        applies = by_moderator or defaults.confirm == "none"
        found = await self._session.run_ahead(
            f"INSERT INTO guilds (guild_id, {', '.join(SETTING_COLUMNS)}, changed_at) "
            f"VALUES (:guild_id, {', '.join(f':{name}' for name in SETTING_COLUMNS)}, :made) "
            "ON CONFLICT (guild_id) DO UPDATE SET changed_at = CASE WHEN "
            f"(:by_moderator OR guilds.confirm = 'none') AND {_REQUESTED} IS NULL THEN :now "
            "ELSE guilds.changed_at END "
            f"RETURNING {', '.join(SETTING_COLUMNS)}, {_REQUESTED} AS existing, "
            f"{self._session.dialect.next_match_id} AS next_id, "
            f"(SELECT applied_at FROM ({NEWEST_ENTRY}) AS entry) AS newest_at, "
            f"(SELECT id FROM ({NEWEST_ENTRY}) AS entry) AS newest",
            {
                **asdict(defaults),
                "guild_id": guild_id,
                "request_id": request_id,
                "by_moderator": by_moderator,
                "now": now,
                "made": now if applies else None,
            },
        )
        upserted = await self.upsert_members_ahead(guild_id, members, request_id)
        (row,) = await found
        newest = None if row["newest"] is None else (row["newest_at"], row["newest"])
        return ReportSlot(
            settings_from(row),
            row["existing"],
            newest,
            int(row["next_id"]),
            log_end,
            await upserted,
        )

    async def add_applied_match(
        self, guild_id: int, new: NewMatch, slot: ReportSlot, applied_at: float
    ) -> None:
        """Insert a match in its slot (`report_slot`, read since the log last changed)
        applied at once at the end of the log (its rated participants carry their ratings
        before and after). Each rated member's rating becomes `after` and its record counts
        one more game."""
        await self.insert_matches(
            guild_id, [new], "applied", [slot.match_id], [applied_at], slot.log_end
        )
        await self.count_game(
            guild_id,
            [
                (p.user_id, p.rating_after, p.outcome)
                for p in new.participants
                if p.user_id is not None and p.rating_after is not None
            ],
        )

    async def apply_match(
        self, match: Match, applied_at: float, ratings: Mapping[int, tuple[float, float]]
    ) -> None:
        """Mark a pending match applied at the end of the log; ratings:
        user id -> (before, after). Each rated member's rating becomes `after` and its record
        counts one more game."""
        await self.mark_applied(match.id, applied_at)
        rated: list[tuple[int, int, Outcome | None]] = [
            (p.position, p.user_id, p.outcome)
            for p in match.participants
            if p.user_id is not None and p.user_id in ratings
        ]
        await self.set_participant_ratings(
            (*ratings[user_id], match.id, position) for position, user_id, _ in rated
        )
        await self.count_game(
            match.guild_id,
            [(user_id, ratings[user_id][1], outcome) for _, user_id, outcome in rated],
        )
        await self.sync_log_chunk(match.id)

    async def replace_lineup(
        self, match_id: int, edit: MatchEdit, participants: Sequence[NewParticipant]
    ) -> None:
        """A match's participants replaced (SPEC 9.4), the old lineup kept in its history;
        an applied match's entries in the log's chunks too."""
        await self.clear_lineup(match_id, edit)
        await self.insert_participants([(match_id, participants)])
        await self.sync_log_chunk(match_id)

    async def write_replay(
        self,
        guild_id: int,
        replayed: tuple[LogKey, FloatArray, FloatArray],
        changed: ChangedEntries,
        ratings: Mapping[int, float | None],
        records: Mapping[int, tuple[int, int, int, int]],
        unwritten: ImportedMatches | None = None,
    ) -> None:
        """Store what a replay changed (bot.services.replaying decides what): `replayed`,
        the log key it started at and the ratings before and after of every entry from
        there (the log's chunks take them); `changed`, the entries whose ratings differ;
        members' ratings (None: no rated match left) and records; `unwritten`, matches just
        imported (insert_imported_matches) whose participants and log entries are written
        here, once, with their ratings. The caller marks the guild changed and drops the
        cached performances that no longer hold."""
        in_rows = changed
        if unwritten is not None:
            ids = np.asarray(unwritten.ids, np.int64)
            fresh = np.isin(changed.match_id[changed.places], ids)
            rated = changed.where(fresh).gathered()
            await self.insert_imported_participants(guild_id, unwritten, rated)
            in_rows = changed.where(~fresh)
        if len(in_rows):
            await self._session.update_rows(
                "participants",
                ("match_id", "position"),
                ("rating_before", "rating_after"),
                len(in_rows),
                in_rows.blocks(REWRITE_BLOCK_ENTRIES),
                grouped=True,
            )
            # The chunks took the imported entries' ratings as they were merged: only a
            # change to an entry already stored is left to write (a first import reads
            # none of its 64 MB back).
            await logchunks.set_ratings_from(self._session, guild_id, *replayed)
        await self.set_ratings(guild_id, ratings)
        await self.set_records(guild_id, records)


@dataclass(slots=True)
class _Snapshot:
    """The read snapshot a task is inside (see Database.snapshot)."""

    database: Database
    queries: Queries
    task: asyncio.Task[Any] | None
    open: bool = True

    def serves(self, database: Database) -> bool:
        """Whether `database`'s reads in the running task are this snapshot's: a task
        started inside the block inherits the variable but runs its reads on its own (two
        statements at once on one connection would fail), and so does a worker thread."""
        if not self.open or self.database is not database:
            return False
        try:
            return self.task is asyncio.current_task()
        except RuntimeError:  # no event loop: a worker thread (asyncio.to_thread)
            return False


_CURRENT_SNAPSHOT: ContextVar[_Snapshot | None] = ContextVar("snapshot", default=None)
"""The snapshot the running task is inside, if any."""


class Database:
    """The open database: `read` answers queries, `snapshot()` opens one read transaction,
    `write()` one write transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._reader = Queries(engine.reader, engine)
        self.origin = uuid.uuid4().hex
        """Names this process's changes in the change log (bot.storage.changes)."""

    @property
    def read(self) -> Queries:
        """The queries: inside a `snapshot()` block, on its snapshot; elsewhere each query
        is a statement of its own (a single statement always sees one state)."""
        current = _CURRENT_SNAPSHOT.get()
        if current is not None and current.serves(self):
            return current.queries
        return self._reader

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Queries]:
        """One read transaction for the block (SPEC 8.6): every query of it, whether made
        on what this yields or through `db.read`, sees the same committed state; a write
        committing meanwhile is not seen, never fails the read and never waits for it. A
        snapshot inside another of the same database is that one."""
        current = _CURRENT_SNAPSHOT.get()
        if current is not None and current.serves(self):
            yield current.queries
            return
        async with self.engine.snapshot() as session:
            entered = _Snapshot(self, Queries(session, self.engine), asyncio.current_task())
            token = _CURRENT_SNAPSHOT.set(entered)
            try:
                yield entered.queries
            finally:
                entered.open = False
                _CURRENT_SNAPSHOT.reset(token)

    @classmethod
    async def open(cls, url: str | Path, *, create: bool = True) -> Database:
        """Open and migrate the database at `url`: a SQLite path or sqlite:/// URL, or a
        postgresql:// URL. `create`: a new or empty database gets the schema; without it,
        only one that holds a ladderbot database opens (see check_location)."""
        check_location(url, create)
        text = str(url)
        try:
            if is_postgres(text):
                from bot.storage import postgres

                try:
                    return cls(await postgres.PostgresEngine.open(text, create))
                except postgres.OPEN_ERRORS as error:
                    raise DatabaseUnavailable(str(error)) from error
            from bot.storage import sqlite

            try:
                return cls(await sqlite.SqliteEngine.open(sqlite_path(text), create))
            except sqlite.OPEN_ERRORS as error:
                raise DatabaseUnavailable(str(error)) from error
        except DatabaseUnavailable:
            raise
        except ValueError as error:  # a malformed URL
            raise DatabaseUnavailable(str(error)) from error

    async def close(self) -> None:
        await self.engine.close()

    async def watch_changes(self, on_change: Callable[[int], None]) -> bool:
        """See Engine.watch_changes."""
        return await self.engine.watch_changes(on_change)

    @property
    def watching(self) -> bool:
        """See Engine.watching."""
        return self.engine.watching

    @asynccontextmanager
    async def write(self, guild_id: int | None = None) -> AsyncIterator[WriteTransaction]:
        """One write transaction: committed when the block ends, rolled back on an error.
        `guild_id`: the guild it writes (other processes' writes to it wait)."""
        async with self.engine.transaction(guild_id) as session:
            yield WriteTransaction(session, self.engine)
