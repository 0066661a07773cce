"""The members aggregate: who plays in a guild, their ladder rating and record."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bot.storage.engine import Ahead, Row, Session, made_each
from bot.storage.models import Member, MemberColumns, MemberInfo, Outcome, Roster

MEMBER_COLUMNS: Final = (
    "guild_id", "user_id", "name", "is_bot", "enabled", "rating", "games", "wins", "draws",
    "losses",
)  # fmt: skip
RECORD_COLUMNS: Final = ("games", "wins", "draws", "losses")
_MEMBER: Final = ", ".join(MEMBER_COLUMNS)
_UPSERT_CHUNK: Final = 5_000
"""Rows per multi-row upsert (3 parameters each, under both engines' limits)."""


def member_from(row: Row) -> Member:
    return Member(
        row["guild_id"],
        row["user_id"],
        row["name"],
        bool(row["is_bot"]),
        bool(row["enabled"]),
        row["rating"],
        row["games"],
        row["wins"],
        row["draws"],
        row["losses"],
    )


def _roster_of(rows: Sequence[Row]) -> Roster:
    """The rows (user id, name, games, wins, draws, losses) as columns."""
    user_id, name, *record = zip(*rows, strict=True) if rows else ((),) * 6
    return Roster(
        np.array(user_id, np.int64),
        np.array(name, object),
        *(np.array(column, np.int64) for column in record),
    )


def _record_increment(outcome: Outcome | None) -> dict[str, int]:
    return {
        "wins": int(outcome == "win"),
        "draws": int(outcome == "draw"),
        "losses": int(outcome == "loss"),
    }


class MemberReads:
    _session: Session

    async def member(self, guild_id: int, user_id: int) -> Member | None:
        row = await self._session.one(
            f"SELECT {_MEMBER} FROM members WHERE guild_id = :guild_id AND user_id = :user_id",
            {"guild_id": guild_id, "user_id": user_id},
        )
        return None if row is None else member_from(row)

    async def member_columns(self, guild_id: int) -> MemberColumns:
        columns = await self._session.columns(
            "SELECT user_id, coalesce(rating, "
            f"{self._session.dialect.missing_real}) AS rating, "
            + ", ".join(f"CAST({name} AS BIGINT) AS {name}" for name in RECORD_COLUMNS)
            + " FROM members WHERE guild_id = :guild_id ORDER BY user_id",
            {"guild_id": guild_id},
            [np.dtype(np.int64), np.dtype(np.float64), *[np.dtype(np.int64)] * 4],
        )
        return MemberColumns(*columns)

    async def roster(self, guild_id: int) -> Roster:
        """Every member's name and record, made columns off the event loop: no Member
        object each (a whole leaderboard of 50,000 members)."""
        rows = await self._session.all(
            f"SELECT user_id, name, {', '.join(RECORD_COLUMNS)} FROM members "
            "WHERE guild_id = :guild_id ORDER BY user_id",
            {"guild_id": guild_id},
        )
        return await asyncio.to_thread(_roster_of, rows)

    async def members(self, guild_id: int) -> list[Member]:
        rows = await self._session.all(
            f"SELECT {_MEMBER} FROM members WHERE guild_id = :guild_id ORDER BY user_id",
            {"guild_id": guild_id},
        )
        return await made_each(member_from, rows)

    async def members_by_id(self, guild_id: int, user_ids: Iterable[int]) -> list[Member]:
        dialect = self._session.dialect
        rows = await self._session.all(
            f"SELECT {_MEMBER} FROM members WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('user_id', ':user_ids', 'bigint')} ORDER BY user_id",
            {"guild_id": guild_id, "user_ids": dialect.encode_list(user_ids)},
        )
        return await made_each(member_from, rows)

    async def members_named(self, guild_id: int, name: str) -> list[Member]:
        """Members whose display name is `name` (case-insensitive)."""
        rows = await self._session.all(
            f"SELECT {_MEMBER} FROM members WHERE guild_id = :guild_id "
            "AND lower(name) = lower(:name) ORDER BY user_id",
            {"guild_id": guild_id, "name": name},
        )
        return await made_each(member_from, rows)

    async def ladder_rank(
        self,
        member: Member,
        min_games: int,
        initial_rating: float,
        active_since: float | None = None,
    ) -> int:
        """The place on the ladder leaderboard of a member who is on it (enabled, no bot, at
        least min_games, and with active_since an applied match played since then): 1 + the
        members ahead (higher rating, then more games, then a lower user id)."""
        active = (
            ""
            if active_since is None
            else "AND EXISTS (SELECT 1 FROM participants p JOIN matches m ON m.id = p.match_id "
            "WHERE p.user_id = members.user_id AND m.guild_id = members.guild_id "
            "AND m.status = 'applied' AND m.played_at >= :since) "
        )
        row = await self._session.one(
            "SELECT 1 + count(*) AS rank FROM members WHERE guild_id = :guild_id AND enabled "
            f"AND NOT is_bot AND games >= :min_games {active}"
            "AND (coalesce(rating, :initial) > :rating "
            "OR (coalesce(rating, :initial) = :rating AND (games > :games "
            "OR (games = :games AND user_id < :user_id))))",
            {
                **({} if active_since is None else {"since": active_since}),
                "guild_id": member.guild_id,
                "min_games": min_games,
                "initial": initial_rating,
                "rating": initial_rating if member.rating is None else member.rating,
                "games": member.games,
                "user_id": member.user_id,
            },
        )
        assert row is not None
        return int(row["rank"])


class MemberWrites(MemberReads):
    async def upsert_members(self, guild_id: int, members: Iterable[MemberInfo]) -> list[Member]:
        """Record display names and bot flags as the front end sees them; returns those
        members as stored (in no particular order)."""
        return await (await self.upsert_members_ahead(guild_id, members))

    async def upsert_members_ahead(
        self, guild_id: int, members: Iterable[MemberInfo], request_id: str | None = None
    ) -> Ahead[list[Member]]:
        """upsert_members, the members as stored wanted later (Session.run_ahead). Given the
        `request_id` of a report, a member already stored keeps its name and flag when a
        match with that id is stored (a retried report changes nothing), and is then not
        returned."""
        infos = list(members)
        returned: list[Ahead[list[Row]]] = []
        unless = (
            ""
            if request_id is None
            else " WHERE NOT EXISTS (SELECT 1 FROM matches WHERE guild_id = :guild_id "
            "AND request_id = :request_id)"
        )
        for start in range(0, len(infos), _UPSERT_CHUNK):
            chunk = infos[start : start + _UPSERT_CHUNK]
            parameters: dict[str, Any] = {"guild_id": guild_id}
            if request_id is not None:
                parameters["request_id"] = request_id
            for index, info in enumerate(chunk):
                parameters[f"u{index}"] = info.user_id
                parameters[f"n{index}"] = info.name
                parameters[f"b{index}"] = info.is_bot
            returned.append(
                await self._session.run_ahead(
                    "INSERT INTO members (guild_id, user_id, name, is_bot) VALUES "
                    + ", ".join(f"(:guild_id, :u{i}, :n{i}, :b{i})" for i in range(len(chunk)))
                    + " ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, "
                    f"is_bot = excluded.is_bot{unless} RETURNING {_MEMBER}",
                    parameters,
                )
            )

        async def stored() -> list[Member]:
            return await made_each(member_from, [row for rows in returned for row in await rows])

        return Ahead(stored)

    async def add_members(self, guild_id: int, user_ids: Iterable[int]) -> list[Member]:
        """Make sure members exist (name = their id until the front end tells us more);
        returns them as stored. Those already stored (most, past a guild's first matches)
        are only read."""
        wanted = sorted(set(user_ids))
        stored = await self.members_by_id(guild_id, wanted)
        if len(stored) == len(wanted):
            return stored
        found = {member.user_id for member in stored}
        dialect = self._session.dialect
        # One statement for them all (an import adds 10,000s): `WHERE true` tells SQLite
        # the ON CONFLICT is the upsert's, not a join's.
        await self._session.run(
            "INSERT INTO members (guild_id, user_id, name) "
            "SELECT :guild_id, listed.value, CAST(listed.value AS TEXT) "
            f"FROM {dialect.list_table(':user_ids', 'listed', 'bigint')} WHERE true "
            "ON CONFLICT (guild_id, user_id) DO NOTHING",
            {
                "guild_id": guild_id,
                "user_ids": dialect.encode_list(u for u in wanted if u not in found),
            },
        )
        return await self.members_by_id(guild_id, wanted)

    async def set_enabled(self, guild_id: int, user_id: int, enabled: bool) -> None:
        await self._session.run(
            "UPDATE members SET enabled = :enabled WHERE guild_id = :guild_id "
            "AND user_id = :user_id",
            {"enabled": enabled, "guild_id": guild_id, "user_id": user_id},
        )

    async def count_game(
        self, guild_id: int, rated: Iterable[tuple[int, float, Outcome | None]]
    ) -> None:
        """(user id, rating after, outcome) of each rated member of one applied match: the
        rating becomes `after` and the record counts one more game."""
        await self._session.run_many(
            "UPDATE members SET rating = :rating, games = games + 1, wins = wins + :wins, "
            "draws = draws + :draws, losses = losses + :losses "
            "WHERE guild_id = :guild_id AND user_id = :user_id",
            [
                {"rating": after, **_record_increment(outcome), "guild_id": guild_id, "user_id": u}
                for u, after, outcome in rated
            ],
        )

    async def set_ratings(self, guild_id: int, ratings: Mapping[int, float | None]) -> None:
        """Each member's rating by user id (None: no rated match left, stored as NULL)."""
        rated = {user_id: rating for user_id, rating in ratings.items() if rating is not None}
        await self._set_columns(
            guild_id, list(rated), {"rating": np.fromiter(rated.values(), float)}
        )
        await self._session.run_many(
            "UPDATE members SET rating = NULL WHERE guild_id = :guild_id AND user_id = :user_id",
            [
                {"guild_id": guild_id, "user_id": u}
                for u, rating in ratings.items()
                if rating is None
            ],
        )

    async def set_records(
        self, guild_id: int, records: Mapping[int, tuple[int, int, int, int]]
    ) -> None:
        """games, wins, draws, losses of each member by user id."""
        counts = np.array(list(records.values()), np.int64).reshape(-1, len(RECORD_COLUMNS))
        await self._set_columns(
            guild_id, list(records), dict(zip(RECORD_COLUMNS, counts.T, strict=True))
        )

    async def _set_columns(
        self, guild_id: int, user_ids: Sequence[int], columns: Mapping[str, npt.NDArray[Any]]
    ) -> None:
        """Columns of the members `user_ids` (a value each, in order): one bulk update (a
        replay sets 10,000s of members at once; one statement each took 0.15 s per column
        group on PostgreSQL)."""
        if not user_ids:
            return
        keys = [np.full(len(user_ids), guild_id, np.int64), np.asarray(user_ids, np.int64)]
        await self._session.update_rows(
            "members", ("guild_id", "user_id"), tuple(columns), len(user_ids),
            [[*keys, *columns.values()]],
        )  # fmt: skip

    async def recount_records(self, guild_id: int, user_ids: Sequence[int] | None = None) -> None:
        """games/wins/draws/losses from the applied matches of the current season (after
        the latest season start; all members when None); a member left without any rated
        match has no rating."""
        dialect = self._session.dialect
        parameters: dict[str, Any] = {"guild_id": guild_id}
        chosen = ""
        # The chosen members' rows come through the participants_user index; only a
        # recount of everyone reads the whole guild.
        played = "FROM participants p"
        if user_ids is not None:
            parameters["user_ids"] = dialect.encode_list(user_ids)
            chosen = "AND " + dialect.in_list("user_id", ":user_ids", "bigint")
            played = (
                f"FROM {dialect.list_table(':user_ids', 'chosen', 'bigint')} "
                f"{dialect.ordered_join} participants p ON p.user_id = chosen.value"
            )
        # The current season began at the latest season start (bot.storage.seasons).
        season = await self._session.one(
            "SELECT max(starts_at) AS since FROM seasons WHERE guild_id = :guild_id", parameters
        )
        in_season = ""
        if season is not None and season["since"] is not None:
            parameters["since"] = season["since"]
            in_season = "AND m.applied_at >= :since"
        await self._session.run(
            "UPDATE members SET games = 0, wins = 0, draws = 0, losses = 0 "
            f"WHERE guild_id = :guild_id {chosen}",
            parameters,
        )
        await self._session.run(
            "WITH record AS (SELECT p.user_id, count(*) AS games, "
            + ", ".join(
                f"sum(CASE WHEN p.outcome = '{outcome}' THEN 1 ELSE 0 END) AS {column}"
                for outcome, column in (("win", "wins"), ("draw", "draws"), ("loss", "losses"))
            )
            + f" {played} JOIN matches m ON m.id = p.match_id WHERE m.guild_id = :guild_id "
            f"AND m.status = 'applied' AND p.enabled {in_season} GROUP BY p.user_id) "
            "UPDATE members SET games = record.games, wins = record.wins, "
            "draws = record.draws, losses = record.losses FROM record "
            "WHERE members.guild_id = :guild_id AND members.user_id = record.user_id",
            parameters,
        )
        await self._session.run(
            f"UPDATE members SET rating = NULL WHERE guild_id = :guild_id AND games = 0 {chosen} "
            "AND NOT EXISTS (SELECT 1 FROM participants p JOIN matches m ON m.id = p.match_id "
            "WHERE p.user_id = members.user_id AND m.guild_id = :guild_id "
            "AND m.status = 'applied' AND p.enabled)",
            parameters,
        )
