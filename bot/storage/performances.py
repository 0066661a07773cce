"""The performances aggregate: a cache of measures derived from the log.

A member's rows go whenever their rating is rewritten (trigger performances_stale), which
every apply, replay, void, import and recompute does for each member whose game list
changes (participants of the matches replayed, everyone on a full replay). A read that finds
it cold computes in memory and writes nothing; the bot stores what it computed afterwards, in
a write of its own that checks the members are still as they were (`store_performances`).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Mapping
from typing import Final

import numpy as np

from bot.storage.engine import Row, Session
from bot.storage.models import MeasuredColumns, Performance

_VALUES: Final = ("value", "up", "down")


def _performance(row: Row) -> Performance:
    """value, up, down as stored: NULL is nan (SQLite has no nan)."""
    value, up, down = (math.nan if row[name] is None else row[name] for name in _VALUES)
    return Performance(value, up, down)


class PerformanceReads:
    _session: Session

    async def performances(
        self, guild_id: int, user_ids: Iterable[int], measures: Iterable[str]
    ) -> dict[tuple[int, str], Performance]:
        """The cached performances of the given members by (user id, measure)."""
        dialect = self._session.dialect
        rows = await self._session.all(
            "SELECT user_id, measure, value, up, down FROM performances "
            f"WHERE guild_id = :guild_id AND {dialect.in_list('measure', ':measures', 'text')} "
            f"AND {dialect.in_list('user_id', ':user_ids', 'bigint')}",
            {
                "guild_id": guild_id,
                "measures": dialect.encode_list(measures),
                "user_ids": dialect.encode_list(user_ids),
            },
        )
        return {(row["user_id"], row["measure"]): _performance(row) for row in rows}

    async def measured_columns(self, guild_id: int, measure: str) -> MeasuredColumns:
        """Every member of the guild with their cached `measure`, as columns: up to a whole
        guild's members, so no object per member."""
        missing = self._session.dialect.missing_real
        user_id, rating, games, rankable, cached, value = await self._session.columns(
            f"SELECT mb.user_id, coalesce(mb.rating, {missing}) AS rating, "
            "CAST(mb.games AS BIGINT) AS games, "
            "CAST(CASE WHEN mb.enabled AND NOT mb.is_bot THEN 1 ELSE 0 END AS BIGINT) AS rankable, "
            "CAST(CASE WHEN pf.measure IS NULL THEN 0 ELSE 1 END AS BIGINT) AS cached, "
            f"coalesce(pf.value, {missing}) AS value "
            "FROM members mb LEFT JOIN performances pf ON pf.guild_id = mb.guild_id "
            "AND pf.user_id = mb.user_id AND pf.measure = :measure "
            "WHERE mb.guild_id = :guild_id ORDER BY mb.user_id",
            {"measure": measure, "guild_id": guild_id},
            [
                np.dtype(np.int64),
                np.dtype(np.float64),
                np.dtype(np.int64),
                np.dtype(np.int64),
                np.dtype(np.int64),
                np.dtype(np.float64),
            ],
        )
        return MeasuredColumns(
            user_id, rating, games, rankable.astype(bool), cached.astype(bool), value
        )


class PerformanceWrites(PerformanceReads):
    async def forget_performances(
        self, guild_id: int, user_ids: Iterable[int] | None = None
    ) -> None:
        """Drop cached measures: the members' (whose games changed), or the whole guild's
        (None: the settings they were computed in changed)."""
        dialect = self._session.dialect
        chosen = (
            "" if user_ids is None else "AND " + dialect.in_list("user_id", ":user_ids", "bigint")
        )
        await self._session.run(
            f"DELETE FROM performances WHERE guild_id = :guild_id {chosen}",
            {"guild_id": guild_id}
            | ({} if user_ids is None else {"user_ids": dialect.encode_list(user_ids)}),
        )

    async def store_performances(
        self,
        guild_id: int,
        performances: Mapping[tuple[int, str], Performance],
        versions: Mapping[int, tuple[float | None, int]],
    ) -> None:
        """Cache performances by (user id, measure), computed when each member's (rating,
        games) was `versions[user id]`: a member whose rating or record changed since (a
        write changed their games) is not stored. nan is stored as NULL."""
        await self._session.run_many(
            "INSERT INTO performances (guild_id, user_id, measure, value, up, down) "
            "SELECT guild_id, user_id, CAST(:measure AS TEXT), CAST(:value AS DOUBLE PRECISION), "
            "CAST(:up AS DOUBLE PRECISION), CAST(:down AS DOUBLE PRECISION) FROM members "
            "WHERE guild_id = :guild_id AND user_id = :user_id "
            "AND rating IS NOT DISTINCT FROM CAST(:rating AS DOUBLE PRECISION) "
            "AND games = :games "
            "ON CONFLICT (guild_id, user_id, measure) DO UPDATE SET value = excluded.value, "
            "up = excluded.up, down = excluded.down",
            # up to a whole guild's members: their parameters are built off the event loop
            await asyncio.to_thread(_performance_rows, guild_id, performances, versions),
        )


def _performance_rows(
    guild_id: int,
    performances: Mapping[tuple[int, str], Performance],
    versions: Mapping[int, tuple[float | None, int]],
) -> list[dict[str, object]]:
    """store_performances' parameters, one mapping per measure of a member in `versions`."""
    return [
        {
            "guild_id": guild_id,
            "user_id": user_id,
            "measure": measure,
            **{
                name: None if math.isnan(number) else number
                for name, number in zip(_VALUES, (found.value, found.up, found.down), strict=True)
            },
            "rating": versions[user_id][0],
            "games": versions[user_id][1],
        }
        for (user_id, measure), found in performances.items()
        if user_id in versions
    ]
