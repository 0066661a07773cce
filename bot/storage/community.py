"""The community aggregate (SPEC 9.2 and 9.4): a guild's rank roles and its mod log channel."""

from __future__ import annotations

from bot.storage.engine import Session
from bot.storage.models import MatchEdit


class CommunityReads:
    _session: Session

    async def guilds_with_rank_roles(self) -> list[int]:
        rows = await self._session.all("SELECT DISTINCT guild_id FROM rank_roles ORDER BY guild_id")
        return [int(row["guild_id"]) for row in rows]

    async def rank_roles(self, guild_id: int) -> dict[int, float]:
        """role id -> min_rating, lowest min_rating first."""
        rows = await self._session.all(
            "SELECT role_id, min_rating FROM rank_roles WHERE guild_id = :guild_id "
            "ORDER BY min_rating, role_id",
            {"guild_id": guild_id},
        )
        return {row["role_id"]: row["min_rating"] for row in rows}

    async def played_since(self, guild_id: int, since: float) -> set[int]:
        """Members with an applied match played at or after `since` (SPEC 9.3: the active)."""
        rows = await self._session.all(
            "SELECT DISTINCT p.user_id FROM matches m JOIN participants p ON p.match_id = m.id "
            "WHERE m.guild_id = :guild_id AND m.status = 'applied' AND m.played_at >= :since "
            "AND p.user_id IS NOT NULL",
            {"guild_id": guild_id, "since": since},
        )
        return {row["user_id"] for row in rows}

    async def match_edits(self, match_id: int) -> list[MatchEdit]:
        """The lineups a match had before each /admin edit, oldest first."""
        rows = await self._session.all(
            "SELECT edited_at, editor_id, old_lineup FROM match_edits "
            "WHERE match_id = :match_id ORDER BY edited_at",
            {"match_id": match_id},
        )
        return [MatchEdit(row["edited_at"], row["editor_id"], row["old_lineup"]) for row in rows]

    async def modlog_channel(self, guild_id: int) -> int | None:
        row = await self._session.one(
            "SELECT modlog_channel_id FROM guilds WHERE guild_id = :guild_id",
            {"guild_id": guild_id},
        )
        return None if row is None else row["modlog_channel_id"]


class CommunityWrites(CommunityReads):
    async def set_rank_role(self, guild_id: int, role_id: int, min_rating: float) -> None:
        await self._session.run(
            "INSERT INTO rank_roles (guild_id, role_id, min_rating) "
            "VALUES (:guild_id, :role_id, :min_rating) "
            "ON CONFLICT (guild_id, role_id) DO UPDATE SET min_rating = excluded.min_rating",
            {"guild_id": guild_id, "role_id": role_id, "min_rating": min_rating},
        )

    async def remove_rank_role(self, guild_id: int, role_id: int) -> None:
        await self._session.run(
            "DELETE FROM rank_roles WHERE guild_id = :guild_id AND role_id = :role_id",
            {"guild_id": guild_id, "role_id": role_id},
        )

    async def clear_lineup(self, match_id: int, edit: MatchEdit) -> None:
        """Take a match's participants away, keeping its old lineup (as text) in its history;
        the caller inserts the new ones (insert_participants)."""
        await self._session.run(
            "INSERT INTO match_edits (match_id, edited_at, editor_id, old_lineup) "
            "VALUES (:match_id, :edited_at, :editor_id, :old_lineup)",
            {
                "match_id": match_id,
                "edited_at": edit.edited_at,
                "editor_id": edit.editor_id,
                "old_lineup": edit.old_lineup,
            },
        )
        await self._session.run(
            "DELETE FROM participants WHERE match_id = :match_id", {"match_id": match_id}
        )

    async def set_modlog_channel(self, guild_id: int, channel_id: int | None) -> None:
        await self._session.run(
            "UPDATE guilds SET modlog_channel_id = :channel_id WHERE guild_id = :guild_id",
            {"channel_id": channel_id, "guild_id": guild_id},
        )
