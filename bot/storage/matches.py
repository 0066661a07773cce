"""The matches aggregate: matches with their participants, the log and its order.

The log order of a guild: applied matches sorted by (applied_at, id), the season starts among
them by their own stamp (bot.storage.seasons). A report or a confirm stamps applied_at at the
end of the log (bot.services.core.log_end_stamp: now, or the next float after the newest
entry's stamp when the clock is not past it), so it always appends; an import stamps
applied_at = played_at, so it merges by time and the import replays from its earliest match.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from bot.ratings.ladder import side_codes
from bot.storage import logchunks
from bot.storage.engine import Ahead, Row, Session, one_state
from bot.storage.models import (
    BoolArray,
    FloatArray,
    IntArray,
    KeyedMatch,
    LogColumns,
    LogKey,
    Match,
    MatchStatus,
    NewMatch,
    NewMatchColumns,
    NewParticipant,
    Outcome,
    Participant,
    PlayedColumns,
)

LOG_START: Final[LogKey] = (-math.inf, 0)
"""A key before every match: replaying from it replays the whole guild."""

_MATCH: Final = (
    "m.id, m.guild_id, m.status, m.reporter_id, m.created_at, m.played_at, m.applied_at, "
    "m.request_id, m.channel_id, m.message_id, m.void_reason, m.disputed_by, m.import_key"
)
_PARTICIPANT: Final = (
    "p.match_id, p.position, p.user_id, p.guest, coalesce(mb.name, p.guest, '') AS name, "
    "p.side, p.score, p.minutes, p.enabled, p.outcome, p.rating_before, p.rating_after"
)
_PARTICIPANT_JOIN: Final = (
    "FROM participants p JOIN matches m ON m.id = p.match_id "
    "LEFT JOIN members mb ON mb.guild_id = m.guild_id AND mb.user_id = p.user_id"
)
NEWEST_ENTRY: Final = (
    "SELECT applied_at, id FROM (SELECT applied_at, id FROM matches WHERE guild_id = :guild_id "
    "AND status = 'applied' ORDER BY applied_at DESC, id DESC LIMIT 1) AS newest_match "
    "UNION ALL SELECT starts_at, 0 FROM seasons WHERE guild_id = :guild_id "
    "ORDER BY applied_at DESC, id DESC LIMIT 1"
)
"""The log key of the end of the log: its newest applied match or season start (whose key
is (starts_at, 0), see seasons.py)."""
BULK_MATCHES: Final = 1_000
"""Inserting this many matches at once refreshes the planner's statistics (the dialect's)."""
_NEW_PARTICIPANT: Final = (
    "match_id", "position", "user_id", "guest", "side", "score", "minutes", "enabled",
    "outcome", "rating_before", "rating_after",
)  # fmt: skip


_IMPORTED_MATCH: Final = (
    "id", "guild_id", "status", "applied_at", "created_at", "played_at", "request_id",
    "import_key",
)  # fmt: skip


def _participant(row: Row) -> Participant:
    return Participant(
        row["position"],
        row["user_id"],
        row["guest"],
        row["name"],
        row["side"],
        row["score"],
        row["minutes"],
        bool(row["enabled"]),
        row["outcome"],
        row["rating_before"],
        row["rating_after"],
    )


def _match(row: Row, participants: tuple[Participant, ...]) -> Match:
    return Match(
        row["id"],
        row["guild_id"],
        row["status"],
        row["reporter_id"],
        row["created_at"],
        row["played_at"],
        row["applied_at"],
        row["request_id"],
        row["channel_id"],
        row["message_id"],
        row["void_reason"],
        row["disputed_by"],
        participants,
        row["import_key"],
    )


def _looked_up(keys: IntArray, values: FloatArray, wanted: IntArray) -> FloatArray:
    """The value of each wanted key (every one among `keys`)."""
    order = np.argsort(keys)
    found: FloatArray = values[order[np.searchsorted(keys, wanted, sorter=order)]]
    return found


_RatedEntries = tuple[IntArray, IntArray, FloatArray, FloatArray]
"""match_id, position, rating before, rating after of log entries."""


@dataclass(frozen=True, slots=True)
class ImportedMatches:
    """Matches an import inserted (`MatchWrites.insert_imported_matches`) whose participants
    and log entries the replay that follows writes, once, with their ratings."""

    matches: NewMatchColumns
    ids: Sequence[int]
    entries: logchunks.Entries
    """Their log entries, in log order, without ratings."""

    def rated_entries(self, rated: _RatedEntries) -> logchunks.Entries:
        """The entries with their ratings before and after from `rated` (worker-thread
        work)."""
        entries = self.entries
        before, after = _ratings_of(
            rated, entries["match_id"], entries["position"], np.ones(len(entries), np.bool_)
        )
        return logchunks.Entries(
            {**entries.columns, "rating_before": before, "rating_after": after}
        )


class MatchReads:
    _session: Session

    @one_state
    async def _matches(
        self, where: str, parameters: Mapping[str, Any], tail: str = "", source: str = ""
    ) -> list[Match]:
        rows = await self._session.all(
            f"SELECT {_MATCH} FROM {source or 'matches m'} WHERE {where} {tail}", parameters
        )
        if not rows:
            return []
        ids = [row["id"] for row in rows]
        participants: dict[int, list[Participant]] = {match_id: [] for match_id in ids}
        dialect = self._session.dialect
        found = await self._session.all(
            f"SELECT {_PARTICIPANT} {_PARTICIPANT_JOIN} "
            f"WHERE {dialect.in_list('p.match_id', ':ids', 'bigint')} "
            "ORDER BY p.match_id, p.position",
            {"ids": dialect.encode_list(ids)},
        )
        for row in found:
            participants[row["match_id"]].append(_participant(row))
        return [_match(row, tuple(participants[row["id"]])) for row in rows]

    async def match(self, guild_id: int, match_id: int) -> Match | None:
        found = await self._matches(
            "m.guild_id = :guild_id AND m.id = :match_id",
            {"guild_id": guild_id, "match_id": match_id},
        )
        return found[0] if found else None

    async def recent_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10, offset: int = 0
    ) -> list[Match]:
        """Newest reports first (by creation), skipping `offset`; with a user id, only
        matches they played."""
        tail = "ORDER BY m.created_at DESC, m.id DESC LIMIT :limit OFFSET :offset"
        parameters = {"guild_id": guild_id, "user_id": user_id, "limit": limit, "offset": offset}
        if user_id is None:
            return await self._matches("m.guild_id = :guild_id", parameters, tail)
        # From the member's rows of participants_user (a member plays a match at most once).
        join = self._session.dialect.ordered_join
        return await self._matches(
            "p.user_id = :user_id AND m.guild_id = :guild_id",
            parameters,
            tail,
            f"participants p {join} matches m ON m.id = p.match_id",
        )

    async def matches_before(self, guild_id: int, before: int | None, limit: int) -> list[Match]:
        """The guild's newest matches by id (ids follow creation), only those with an id
        below `before` when given: pages of a match list that stay put as matches arrive."""
        return await self._matches(
            "m.guild_id = :guild_id AND m.id < :before",
            {"guild_id": guild_id, "before": before or 2**63 - 1, "limit": limit},
            "ORDER BY m.id DESC LIMIT :limit",
        )

    async def match_count(self, guild_id: int, user_id: int | None = None) -> int:
        """How many matches `recent_matches` can page through."""
        if user_id is None:
            row = await self._session.one(
                "SELECT count(*) AS n FROM matches WHERE guild_id = :guild_id",
                {"guild_id": guild_id},
            )
        else:
            row = await self._session.one(
                "SELECT count(*) AS n FROM participants p JOIN matches m ON m.id = p.match_id "
                "WHERE p.user_id = :user_id AND m.guild_id = :guild_id",
                {"guild_id": guild_id, "user_id": user_id},
            )
        assert row is not None
        return int(row["n"])

    async def head_to_head(self, guild_id: int, a: int, b: int) -> list[Match]:
        """Applied matches in which members a and b were both rated, on different sides;
        newest first in log order."""
        join = self._session.dialect.ordered_join
        return await self._matches(
            "pa.user_id = :a AND pb.user_id = :b AND pa.enabled AND pb.enabled "
            "AND pa.side <> pb.side AND m.guild_id = :guild_id AND m.status = 'applied'",
            {"guild_id": guild_id, "a": a, "b": b},
            "ORDER BY m.applied_at DESC, m.id DESC",
            f"participants pa {join} participants pb ON pb.match_id = pa.match_id "
            f"{join} matches m ON m.id = pa.match_id",
        )

    async def matches_by_id(self, guild_id: int, match_ids: Iterable[int]) -> list[Match]:
        """The guild's matches with these ids, by id: the ids drive the read (tested
        against a scan of the guild's matches, 5 ids of 100,000 matches took 16 ms)."""
        dialect = self._session.dialect
        return await self._matches(
            "m.guild_id = :guild_id",
            {"guild_id": guild_id, "ids": dialect.encode_list(sorted(set(match_ids)))},
            "ORDER BY m.id",
            f"{dialect.list_table(':ids', 'chosen', 'bigint')} {dialect.ordered_join} "
            "matches m ON m.id = chosen.value",
        )

    async def all_matches(self, guild_id: int) -> list[Match]:
        """Every match of the guild whatever its status, oldest report first."""
        return await self._matches(
            "m.guild_id = :guild_id", {"guild_id": guild_id}, "ORDER BY m.id"
        )

    async def rated_results(
        self, guild_id: int, user_id: int
    ) -> list[tuple[float, float, int, Outcome, float, float]]:
        """(played_at, applied_at, match id, outcome, rating before, rating after) of each
        applied match in which the member was rated, in log order (the player card)."""
        rows = await self._session.all(
            "SELECT m.played_at, m.applied_at, m.id, p.outcome, p.rating_before, p.rating_after "
            "FROM participants p JOIN matches m ON m.id = p.match_id WHERE p.user_id = :user_id "
            "AND p.enabled AND p.rating_after IS NOT NULL AND m.guild_id = :guild_id "
            "AND m.status = 'applied' ORDER BY m.applied_at, m.id",
            {"guild_id": guild_id, "user_id": user_id},
        )
        return [
            (
                row["played_at"],
                row["applied_at"],
                row["id"],
                row["outcome"],
                row["rating_before"],
                row["rating_after"],
            )
            for row in rows
        ]

    @one_state
    async def played_columns(
        self, guild_id: int, user_ids: Iterable[int] | None = None
    ) -> PlayedColumns:
        """The enabled participants of the guild's applied matches in which one of the
        members (None: anyone) was enabled: found through the participants_user index for
        a few members, from the log's chunks for the whole guild."""
        if user_ids is None:
            return (
                await logchunks.entries_from(
                    self._session, guild_id, LOG_START, logchunks.PLAYED_FIELDS
                )
            ).played()
        dialect = self._session.dialect
        parameters: dict[str, Any] = {"guild_id": guild_id}
        # The members' matches drive the read (a plan that scans the guild's matches
        # and tests each against them costs 20 ms for one member of 100,000 matches).
        parameters["user_ids"] = dialect.encode_list(sorted(set(user_ids)))
        source = (
            "(SELECT DISTINCT me.match_id FROM "
            f"{dialect.list_table(':user_ids', 'chosen', 'bigint')} "
            f"{dialect.ordered_join} participants me ON me.user_id = chosen.value "
            f"WHERE me.enabled) AS played {dialect.ordered_join} matches m "
            "ON m.id = played.match_id"
        )
        # When each match was played is read once per match, not per participant: a
        # column of the matches table read with every entry costs a third of the read.
        match_id, played_at = await self._session.columns(
            f"SELECT m.id, m.played_at FROM {source} "
            "WHERE m.guild_id = :guild_id AND m.status = 'applied'",
            parameters,
            [np.dtype(np.int64), np.dtype(np.float64)],
        )
        columns = await self._session.columns(
            f"SELECT p.match_id, p.user_id, {dialect.side_code} AS side, p.score, p.minutes, "
            f"coalesce(p.rating_before, {dialect.missing_real}) AS rating_before "
            f"FROM {source} JOIN participants p ON p.match_id = m.id "
            "WHERE m.guild_id = :guild_id AND m.status = 'applied' AND p.enabled",
            parameters,
            [
                np.dtype(np.int64),
                np.dtype(np.int64),
                dialect.side_dtype,
                *[np.dtype(np.float64)] * 3,
            ],
        )
        entry_played_at = await asyncio.to_thread(_looked_up, match_id, played_at, columns[0])
        return PlayedColumns(columns[0], entry_played_at, *columns[1:])

    @one_state
    async def log_columns(
        self, guild_id: int, start: LogKey = LOG_START, imported: ImportedMatches | None = None
    ) -> LogColumns:
        """Enabled participants of the applied matches from `start` on, in log order: from
        the log's chunks (bot.storage.logchunks), and the entries of `imported` (matches
        inserted from `start` on, not yet in the chunks) held in memory."""
        if imported is None:
            found = await logchunks.entries_from(
                self._session, guild_id, start, logchunks.LOG_FIELDS
            )
            return found.log()
        found = await logchunks.entries_from(self._session, guild_id, start)
        if not len(found):
            return imported.entries.log()
        return await asyncio.to_thread(
            lambda: logchunks.in_log_order(logchunks.joined([found, imported.entries])).log()
        )

    @one_state
    async def log_entries(self, guild_id: int, start: LogKey = LOG_START) -> logchunks.Entries:
        """The entries log_columns reads, with when each match was applied and played."""
        return await logchunks.entries_from(self._session, guild_id, start)

    async def log_rows(self, guild_id: int, start: LogKey = LOG_START) -> logchunks.Entries:
        """The same entries (with when each match was applied and played) from the rows,
        the truth the chunks are a copy of (tests and migrate-db compare them)."""
        return await logchunks.entries_from_rows(self._session, guild_id, start)

    async def keyed_matches(
        self, guild_id: int, import_keys: Iterable[str], match_ids: Iterable[int]
    ) -> list[KeyedMatch]:
        """The guild's matches imported under one of `import_keys`, and those of `match_ids`
        that were not imported (any status), by id."""
        dialect = self._session.dialect
        rows = await self._session.all(
            "SELECT m.id, m.import_key, m.played_at, p.user_id, p.guest "
            "FROM matches m JOIN participants p ON p.match_id = m.id "
            "WHERE m.guild_id = :guild_id AND ("
            f"{dialect.in_list('m.import_key', ':import_keys', 'text')} OR "
            f"(m.import_key IS NULL AND {dialect.in_list('m.id', ':match_ids', 'bigint')})) "
            "ORDER BY m.id, p.position",
            {
                "guild_id": guild_id,
                "import_keys": dialect.encode_list(import_keys),
                "match_ids": dialect.encode_list(match_ids),
            },
        )
        firsts: dict[int, Row] = {}
        players: dict[int, list[tuple[int | None, str | None]]] = {}
        for row in rows:
            firsts.setdefault(row["id"], row)
            players.setdefault(row["id"], []).append((row["user_id"], row["guest"]))
        return [
            KeyedMatch(match_id, row["import_key"], row["played_at"], tuple(players[match_id]))
            for match_id, row in firsts.items()
        ]

    async def newest_log_key(self, guild_id: int) -> LogKey | None:
        row = await self._session.one(NEWEST_ENTRY, {"guild_id": guild_id})
        return None if row is None else (row["applied_at"], row["id"])

    async def due_pending(self, now: float) -> list[tuple[int, int]]:
        """(guild_id, match_id) of pending matches older than their guild's
        auto_confirm_hours, oldest first."""
        rows = await self._session.all(
            "SELECT m.guild_id, m.id FROM matches m JOIN guilds g ON g.guild_id = m.guild_id "
            "WHERE m.status = 'pending' AND m.created_at + g.auto_confirm_hours * 3600 <= :now "
            "ORDER BY m.created_at, m.id",
            {"now": now},
        )
        return [(row["guild_id"], row["id"]) for row in rows]


class MatchWrites(MatchReads):
    async def new_match_ids(self, count: int) -> list[int]:
        """`count` ids for new matches, ascending (see Dialect.next_match_id)."""
        (ids,) = await self._session.columns(
            self._session.dialect.new_match_ids, {"count": count}, [np.dtype(np.int64)]
        )
        ascending: list[int] = np.sort(ids).tolist()
        return ascending

    async def insert_matches(
        self,
        guild_id: int,
        matches: Sequence[NewMatch],
        status: MatchStatus,
        ids: Sequence[int],
        applied_at: Sequence[float | None] | None = None,
        log_end: Ahead[list[Row]] | None = None,
    ) -> list[int]:
        """Insert matches with their participants in bulk, with the ids in order (from
        `new_match_ids` or `report_slot`); returns the ids. `log_end`: the end of the log
        read ahead (logchunks.merge)."""
        stamps = applied_at if applied_at is not None else [None] * len(matches)
        await self._session.run_many(
            "INSERT INTO matches (id, guild_id, status, reporter_id, created_at, played_at, "
            "applied_at, request_id, import_key) VALUES (:id, :guild_id, :status, "
            ":reporter_id, :created_at, :played_at, :applied_at, :request_id, :import_key)",
            [
                {
                    "id": match_id,
                    "guild_id": guild_id,
                    "status": status,
                    "reporter_id": new.reporter_id,
                    "created_at": new.created_at,
                    "played_at": new.played_at,
                    "applied_at": stamp,
                    "request_id": new.request_id,
                    "import_key": new.import_key,
                }
                for match_id, new, stamp in zip(ids, matches, stamps, strict=True)
            ],
        )
        await self.insert_participants(
            (match_id, new.participants) for match_id, new in zip(ids, matches, strict=True)
        )
        if status == "applied":
            entries = (
                _new_entries(matches, ids, stamps)  # a report: less than a thread's hop
                if len(matches) == 1
                else await asyncio.to_thread(_new_entries, matches, ids, stamps)
            )
            await logchunks.merge(self._session, guild_id, entries, log_end)
        refresh = self._session.dialect.after_bulk_insert
        if refresh is not None and len(matches) >= BULK_MATCHES:
            await self._session.run(refresh)
        return list(ids)

    async def insert_imported_matches(
        self, guild_id: int, matches: NewMatchColumns, ids: Sequence[int]
    ) -> ImportedMatches:
        """Insert applied matches in bulk from columns (an import: applied_at = played_at),
        with the ids in order (from `new_match_ids`). Their participants and log entries
        are written once, with the ratings the replay that follows gives them
        (`WriteTransaction.write_replay`); until then the replay reads them from the
        ImportedMatches returned (`log_columns`)."""

        def match_columns(first: int, stop: int) -> list[Sequence[Any]]:
            count = stop - first
            played_at = matches.played_at[first:stop].tolist()
            return [
                ids[first:stop],
                [guild_id] * count,
                ["applied"] * count,
                played_at,
                [matches.created_at] * count,
                played_at,
                matches.request_ids[first:stop],
                matches.import_keys[first:stop],
            ]

        # The entries are numpy work in a worker thread while the server takes the rows;
        # the insert stays in this task, so a failure of either leaves no statement running.
        entries = asyncio.ensure_future(asyncio.to_thread(_imported_entries, matches, ids))
        try:
            await self._session.insert_columns(
                "matches", _IMPORTED_MATCH, len(matches), match_columns
            )
        except BaseException:
            entries.cancel()
            raise
        return ImportedMatches(matches, ids, await entries)

    async def insert_imported_participants(
        self, guild_id: int, imported: ImportedMatches, rated: _RatedEntries
    ) -> None:
        """The participants and log entries of matches inserted by
        `insert_imported_matches`, each enabled one with its rating before and after from
        `rated` (match_id, position, before, after of at least every enabled participant)."""
        matches, ids = imported.matches, imported.ids

        sizes = np.diff(matches.firsts)
        match_of_row = np.repeat(np.asarray(ids, dtype=np.int64), sizes)
        position = np.arange(len(matches.user_ids)) - np.repeat(matches.firsts[:-1], sizes)
        enabled = matches.enabled.astype(bool)
        before, after = await asyncio.to_thread(_ratings_of, rated, match_of_row, position, enabled)

        def participant_columns(first: int, stop: int) -> list[Sequence[Any]]:
            rows = slice(first, stop)
            on = self._session.dialect.bool_values(enabled[rows])
            return [
                match_of_row[rows].tolist(),
                position[rows].tolist(),
                matches.user_ids[rows].tolist(),
                [guest or "" for guest in matches.guests[rows].tolist()],
                matches.sides[rows].tolist(),
                matches.scores[rows].tolist(),
                matches.minutes[rows].tolist(),
                on,
                matches.outcomes[rows].tolist(),
                _where(before[rows].tolist(), on),
                _where(after[rows].tolist(), on),
            ]

        await self._session.insert_columns(
            "participants",
            _NEW_PARTICIPANT,
            len(match_of_row),
            participant_columns,
            null_values={"user_id": 0, "guest": ""},  # a guest's user id, a member's guest name
        )
        await logchunks.merge(
            self._session, guild_id, await asyncio.to_thread(imported.rated_entries, rated)
        )
        refresh = self._session.dialect.after_bulk_insert
        if refresh is not None and len(matches) >= BULK_MATCHES:
            await self._session.run(refresh)

    async def set_status(
        self,
        match_id: int,
        status: MatchStatus,
        *,
        void_reason: str | None = None,
        disputed_by: int | None = None,
    ) -> None:
        """An applied match set to another status leaves the log (its chunk too)."""
        was = await self._session.one(
            "SELECT guild_id, status, applied_at FROM matches WHERE id = :id", {"id": match_id}
        )
        if was is not None and was["status"] == "applied" and status != "applied":
            await logchunks.replace_match(
                self._session,
                was["guild_id"],
                match_id,
                (was["applied_at"], match_id),
                logchunks.no_entries(),
            )
        await self._session.run(
            "UPDATE matches SET status = :status, "
            "void_reason = coalesce(:void_reason, void_reason), "
            "disputed_by = coalesce(:disputed_by, disputed_by) WHERE id = :id",
            {
                "status": status,
                "void_reason": void_reason,
                "disputed_by": disputed_by,
                "id": match_id,
            },
        )

    async def set_match_message(self, match_id: int, channel_id: int, message_id: int) -> None:
        await self._session.run(
            "UPDATE matches SET channel_id = :channel_id, message_id = :message_id WHERE id = :id",
            {"channel_id": channel_id, "message_id": message_id, "id": match_id},
        )

    async def insert_participants(
        self, matches: Iterable[tuple[int, Sequence[NewParticipant]]]
    ) -> None:
        """The participants of each match id, positions from 0 in lineup order."""
        await self._session.run_many(
            f"INSERT INTO participants ({', '.join(_NEW_PARTICIPANT)}) "
            f"VALUES ({', '.join(f':{name}' for name in _NEW_PARTICIPANT)})",
            [
                {
                    "match_id": match_id,
                    "position": position,
                    "user_id": p.user_id,
                    "guest": p.guest,
                    "side": p.side,
                    "score": p.score,
                    "minutes": p.minutes,
                    "enabled": p.enabled,
                    "outcome": p.outcome,
                    "rating_before": p.rating_before,
                    "rating_after": p.rating_after,
                }
                for match_id, participants in matches
                for position, p in enumerate(participants)
            ],
        )

    async def mark_applied(self, match_id: int, applied_at: float) -> None:
        await self._session.run(
            "UPDATE matches SET status = 'applied', applied_at = :applied_at WHERE id = :id",
            {"applied_at": applied_at, "id": match_id},
        )

    async def sync_log_chunk(self, match_id: int) -> None:
        """The log's chunks take the match's entries as its rows now hold them (applied, or
        its lineup replaced)."""
        guild_id, key, entries = await logchunks.match_entries(self._session, match_id)
        if key is not None:
            await logchunks.replace_match(self._session, guild_id, match_id, key, entries)

    async def set_participant_ratings(
        self, ratings: Iterable[tuple[float, float, int, int]]
    ) -> None:
        """(rating before, rating after, match id, position) per participant."""
        await self._session.run_many(
            "UPDATE participants SET rating_before = :before, rating_after = :after "
            "WHERE match_id = :match_id AND position = :position",
            [
                {"before": before, "after": after, "match_id": match_id, "position": position}
                for before, after, match_id, position in ratings
            ],
        )


def _new_entries(
    matches: Sequence[NewMatch], ids: Sequence[int], applied_at: Sequence[float | None]
) -> logchunks.Entries:
    """The log entries of applied matches stored from NewMatch (worker-thread work for
    many; one match, already in log order, is built directly)."""
    if len(matches) == 1:
        new, stamp = matches[0], applied_at[0]
        rated = [(position, p) for position, p in enumerate(new.participants) if p.enabled]
        codes: dict[str, int] = {}
        return logchunks.Entries(
            {
                "match_id": np.full(len(rated), ids[0], np.int64),
                "position": np.array([position for position, _ in rated], np.int64),
                "user_id": np.array([p.user_id for _, p in rated], np.int64),
                "side": np.array([codes.setdefault(p.side, len(codes)) for _, p in rated]),
                "score": np.array([p.score for _, p in rated], np.float64),
                "minutes": np.array([p.minutes for _, p in rated], np.float64),
                "rating_before": np.array(
                    [np.nan if p.rating_before is None else p.rating_before for _, p in rated]
                ),
                "rating_after": np.array(
                    [np.nan if p.rating_after is None else p.rating_after for _, p in rated]
                ),
                "applied_at": np.full(len(rated), np.nan if stamp is None else stamp),
                "played_at": np.full(len(rated), new.played_at),
            }
        )
    rows = [
        (match_id, position, p, stamp, new.played_at)
        for match_id, new, stamp in zip(ids, matches, applied_at, strict=True)
        for position, p in enumerate(new.participants)
        if p.enabled
    ]
    return logchunks.entries_of(
        {
            "match_id": [row[0] for row in rows],
            "position": [row[1] for row in rows],
            "user_id": [row[2].user_id for row in rows],
            "side": [(row[0], row[2].side) for row in rows],
            "score": [row[2].score for row in rows],
            "minutes": [row[2].minutes for row in rows],
            "rating_before": [row[2].rating_before for row in rows],
            "rating_after": [row[2].rating_after for row in rows],
            "applied_at": [row[3] for row in rows],
            "played_at": [row[4] for row in rows],
        }
    )


def _ratings_of(
    rated: _RatedEntries, match_id: IntArray, position: IntArray, enabled: BoolArray
) -> tuple[FloatArray, FloatArray]:
    """The rating before and after of each (match_id, position) from `rated` (of at least
    every enabled participant; any value for one not enabled)."""
    keys = rated[0] * 65_536 + rated[1]
    order = np.argsort(keys)
    wanted = match_id * 65_536 + position
    found = order[np.searchsorted(keys, wanted, sorter=order).clip(max=max(len(keys) - 1, 0))]
    if len(keys) and not (keys[found][enabled] == wanted[enabled]).all():
        raise ValueError("an enabled participant of an imported match was not replayed")
    if not len(keys):
        return np.full(len(wanted), np.nan), np.full(len(wanted), np.nan)
    return rated[2][found], rated[3][found]


def _where(values: list[float], on: list[Any]) -> list[float | None]:
    """Each value where its flag in `on` is true (as Dialect.bool_values gives them), else
    None (NULL)."""
    return [value if flag else None for value, flag in zip(values, on, strict=True)]


def _imported_entries(matches: NewMatchColumns, ids: Sequence[int]) -> logchunks.Entries:
    """The log entries of imported matches (applied at played_at, no ratings yet)."""
    sizes = np.diff(matches.firsts)
    match_of_row = np.repeat(np.asarray(ids, dtype=np.int64), sizes)
    position = np.arange(len(matches.user_ids)) - np.repeat(matches.firsts[:-1], sizes)
    played_at = np.repeat(matches.played_at, sizes)
    enabled = matches.enabled.astype(bool)
    nothing = np.full(int(np.count_nonzero(enabled)), np.nan)
    side = side_codes(matches.sides[enabled])  # equal labels, equal codes: so in each match
    return logchunks.entries_of(
        {
            "match_id": match_of_row[enabled],
            "position": position[enabled],
            "user_id": matches.user_ids[enabled],
            "side": side,
            "score": matches.scores[enabled],
            "minutes": matches.minutes[enabled],
            "rating_before": nothing,
            "rating_after": nothing,
            "applied_at": played_at[enabled],
            "played_at": played_at[enabled],
        },
        side_codes=True,
    )
