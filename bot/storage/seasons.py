"""The seasons aggregate (SPEC 9.1): season starts and the closing standings of each season.

A season start is an entry of the match log. Its log key is (starts_at, 0): it sorts after
every match applied before starts_at and before every match applied at or after it (match
ids start at 1), so a match belongs to the season of the latest start with starts_at <=
applied_at. Starts sharing a starts_at (an import) follow each other by number. A start made
by a moderator takes starts_at just after the end of the log, as a confirm does.

A season's closing standings are its members' ratings just before the next season's start
(before the carry-over) and their records in the season; they are rewritten by every
replay that crosses that start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from bot.storage.engine import Row, Session
from bot.storage.models import LogKey

_SEASON: Final = "guild_id, number, name, carry, starts_at, created_at, actor_id"
_RECORD_SUMS: Final = ", ".join(
    f"sum(CASE WHEN p.outcome = '{outcome}' THEN 1 ELSE 0 END) AS {column}"
    for outcome, column in (("win", "wins"), ("draw", "draws"), ("loss", "losses"))
)


@dataclass(frozen=True, slots=True)
class Season:
    """A season start: the season `name` begins at log key (starts_at, 0)."""

    guild_id: int
    number: int
    """1, 2, ... in log order within the guild."""
    name: str
    carry: float
    starts_at: float
    created_at: float
    actor_id: int | None


@dataclass(frozen=True, slots=True)
class Standing:
    """A member's closing rating and record in a season."""

    user_id: int
    name: str
    rating: float
    games: int
    wins: int
    draws: int
    losses: int


def _season(row: Row) -> Season:
    return Season(
        row["guild_id"],
        row["number"],
        row["name"],
        row["carry"],
        row["starts_at"],
        row["created_at"],
        row["actor_id"],
    )


class SeasonReads:
    _session: Session

    async def seasons(self, guild_id: int) -> list[Season]:
        """The guild's season starts in log order."""
        rows = await self._session.all(
            f"SELECT {_SEASON} FROM seasons WHERE guild_id = :guild_id ORDER BY starts_at, number",
            {"guild_id": guild_id},
        )
        return [_season(row) for row in rows]

    async def seasons_from(self, guild_id: int, start: LogKey) -> list[tuple[Season, int]]:
        """The season starts from log key `start` on, in log order, each with how many applied
        matches lie between `start` and it (its position in a replay from `start`)."""
        rows = await self._session.all(
            f"SELECT {_SEASON}, (SELECT count(*) FROM matches m WHERE m.guild_id = s.guild_id "
            "AND m.status = 'applied' AND (m.applied_at, m.id) >= (:applied_at, :id) "
            "AND m.applied_at < s.starts_at) AS matches_before "
            "FROM seasons s WHERE s.guild_id = :guild_id "
            "AND (s.starts_at, 0) >= (:applied_at, :id) "
            "ORDER BY s.starts_at, s.number",
            {"guild_id": guild_id, "applied_at": start[0], "id": start[1]},
        )
        return [(_season(row), int(row["matches_before"])) for row in rows]

    async def closing_ratings(self, guild_id: int, number: int) -> dict[int, float]:
        """Every member's stored rating at the close of season start `number`."""
        rows = await self._session.all(
            "SELECT user_id, rating FROM season_standings "
            "WHERE guild_id = :guild_id AND number = :number",
            {"guild_id": guild_id, "number": number},
        )
        return {row["user_id"]: row["rating"] for row in rows}

    async def member_closings(self, guild_id: int, user_id: int) -> list[tuple[Season, float]]:
        """The season starts that closed a season with the member rated, in log order, each
        with the member's closing rating (their rating just before the start)."""
        rows = await self._session.all(
            f"SELECT {', '.join('s.' + column for column in _SEASON.split(', '))}, "
            "st.rating AS closing FROM season_standings st JOIN seasons s "
            "ON s.guild_id = st.guild_id AND s.number = st.number "
            "WHERE st.guild_id = :guild_id AND st.user_id = :user_id "
            "ORDER BY s.starts_at, s.number",
            {"guild_id": guild_id, "user_id": user_id},
        )
        return [(_season(row), row["closing"]) for row in rows]

    async def standings_sizes(self, guild_id: int) -> dict[int, int]:
        """How many members each stored closing standings hold, by season start number."""
        rows = await self._session.all(
            "SELECT number, count(*) AS members FROM season_standings "
            "WHERE guild_id = :guild_id GROUP BY number",
            {"guild_id": guild_id},
        )
        return {row["number"]: int(row["members"]) for row in rows}

    async def closing_standings(self, guild_id: int, number: int) -> list[Standing]:
        """The closing standings of the season that ends at season start `number`, with the
        members' current names, by user id."""
        rows = await self._session.all(
            "SELECT s.user_id, coalesce(mb.name, '') AS name, s.rating, s.games, s.wins, "
            "s.draws, s.losses FROM season_standings s LEFT JOIN members mb "
            "ON mb.guild_id = s.guild_id AND mb.user_id = s.user_id "
            "WHERE s.guild_id = :guild_id AND s.number = :number ORDER BY s.user_id",
            {"guild_id": guild_id, "number": number},
        )
        return [
            Standing(
                row["user_id"],
                row["name"],
                row["rating"],
                row["games"],
                row["wins"],
                row["draws"],
                row["losses"],
            )
            for row in rows
        ]


class SeasonWrites(SeasonReads):
    async def add_season(
        self,
        guild_id: int,
        name: str,
        carry: float,
        starts_at: float,
        created_at: float,
        actor_id: int | None,
    ) -> Season:
        """Record a season start (a name taken in the guild violates the UNIQUE constraint:
        check with `seasons` first)."""
        row = await self._session.one(
            "SELECT coalesce(max(number), 0) + 1 AS number FROM seasons WHERE guild_id = :guild_id",
            {"guild_id": guild_id},
        )
        assert row is not None
        season = Season(guild_id, int(row["number"]), name, carry, starts_at, created_at, actor_id)
        await self._session.run(
            f"INSERT INTO seasons ({_SEASON}) VALUES (:guild_id, :number, :name, :carry, "
            ":starts_at, :created_at, :actor_id)",
            {
                "guild_id": guild_id,
                "number": season.number,
                "name": name,
                "carry": carry,
                "starts_at": starts_at,
                "created_at": created_at,
                "actor_id": actor_id,
            },
        )
        return season

    async def store_closing(
        self,
        season: Season,
        previous: Season | None,
        ratings: Mapping[int, float],
    ) -> None:
        """Replace the closing standings at `season`'s start: the `ratings` there of the
        members who played an applied match before it, and their records from the matches
        after `previous` (the start before it; None: the log's beginning) and before it."""
        key = {"guild_id": season.guild_id, "number": season.number}
        await self._session.run(
            "DELETE FROM season_standings WHERE guild_id = :guild_id AND number = :number", key
        )
        await self._session.run_many(
            "INSERT INTO season_standings (guild_id, number, user_id, rating, games, wins, "
            "draws, losses) VALUES (:guild_id, :number, :user_id, :rating, 0, 0, 0, 0)",
            [{**key, "user_id": user_id, "rating": rating} for user_id, rating in ratings.items()],
        )
        since = "" if previous is None else "AND m.applied_at >= :since "
        await self._session.run(
            f"WITH record AS (SELECT p.user_id, count(*) AS games, {_RECORD_SUMS} "
            "FROM matches m JOIN participants p ON p.match_id = m.id "
            "WHERE m.guild_id = :guild_id AND m.status = 'applied' AND p.enabled "
            f"AND p.user_id IS NOT NULL AND m.applied_at < :until {since}GROUP BY p.user_id) "
            "UPDATE season_standings SET games = record.games, wins = record.wins, "
            "draws = record.draws, losses = record.losses FROM record "
            "WHERE season_standings.guild_id = :guild_id "
            "AND season_standings.number = :number AND season_standings.user_id = record.user_id",
            {
                **key,
                "until": season.starts_at,
                **({} if previous is None else {"since": previous.starts_at}),
            },
        )
        await self._session.run(
            "DELETE FROM season_standings WHERE guild_id = :guild_id AND number = :number "
            "AND NOT EXISTS (SELECT 1 FROM participants p JOIN matches m ON m.id = p.match_id "
            "WHERE p.user_id = season_standings.user_id AND m.guild_id = :guild_id "
            "AND m.status = 'applied' AND p.enabled AND m.applied_at < :until)",
            {**key, "until": season.starts_at},
        )

    async def restart_records(self, guild_id: int) -> None:
        """A season start: every member's record restarts at 0."""
        await self._session.run(
            "UPDATE members SET games = 0, wins = 0, draws = 0, losses = 0 "
            "WHERE guild_id = :guild_id",
            {"guild_id": guild_id},
        )
