"""The change log behind the change feed (SPEC 8.7): every committed write that reports a
change leaves one row, written in that write's transaction, saying what changed and which
process made it. The process owning a guild reads the rows other processes (other bot processes, the
command line) wrote, so their changes reach its follow-ups (live boards, rank roles, the mod
log, match and queue messages) as its own do. Rows are kept for `KEEP_SECONDS`; the feed
needs them only for moments (a change is read within a poll of its commit). Only the guild's
own writes delete its old rows, so two writers never contend for a row they both delete.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

from bot.storage.engine import Session

KEEP_SECONDS: Final = 3600.0
"""Rows older than this are deleted by the next write of their guild (the feed reads a row
within seconds; an hour bounds the table to an hour of changes, 360,000 rows at 100 a
second)."""


@dataclass(frozen=True, slots=True)
class StoredChange:
    seq: int
    guild_id: int
    origin: str
    """The process that made it (its database's `origin`)."""
    kind: str
    match_id: int | None
    actor_id: int | None
    everyone: bool
    member_ids: tuple[int, ...]
    detail: str
    created_at: float


def _members_text(member_ids: Collection[int]) -> str:
    return ",".join(str(user_id) for user_id in sorted(member_ids))


def _members(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",")) if text else ()


class ChangeReads:
    _session: Session

    async def latest_change(self) -> int:
        """The newest change's number (0: none yet)."""
        row = await self._session.one("SELECT max(seq) AS seq FROM changes")
        return 0 if row is None or row["seq"] is None else int(row["seq"])

    async def changes_from(self, seq: int, limit: int) -> list[StoredChange]:
        """The changes numbered `seq` and after, oldest first, at most `limit`."""
        rows = await self._session.all(
            "SELECT seq, guild_id, origin, kind, match_id, actor_id, everyone, member_ids, "
            "detail, created_at FROM changes WHERE seq >= :seq ORDER BY seq LIMIT :limit",
            {"seq": seq, "limit": limit},
        )
        return [
            StoredChange(
                int(row["seq"]),
                int(row["guild_id"]),
                row["origin"],
                row["kind"],
                row["match_id"],
                row["actor_id"],
                bool(row["everyone"]),
                _members(row["member_ids"]),
                row["detail"],
                float(row["created_at"]),
            )
            for row in rows
        ]


class ChangeWrites:
    _session: Session

    async def record_change(
        self,
        guild_id: int,
        origin: str,
        kind: str,
        *,
        match_id: int | None,
        actor_id: int | None,
        everyone: bool,
        member_ids: Collection[int],
        detail: str,
        now: float,
    ) -> None:
        """One committed change for the feed; the guild's rows past KEEP_SECONDS go."""
        await self._session.run(
            "DELETE FROM changes WHERE guild_id = :guild_id AND created_at < :old",
            {"guild_id": guild_id, "old": now - KEEP_SECONDS},
        )
        await self._session.run(
            "INSERT INTO changes (guild_id, origin, kind, match_id, actor_id, everyone, "
            "member_ids, detail, created_at) VALUES (:guild_id, :origin, :kind, :match_id, "
            ":actor_id, :everyone, :member_ids, :detail, :now)",
            {
                "guild_id": guild_id,
                "origin": origin,
                "kind": kind,
                "match_id": match_id,
                "actor_id": actor_id,
                "everyone": everyone,
                "member_ids": _members_text(member_ids),
                "detail": detail,
                "now": now,
            },
        )
