"""The guilds aggregate: settings, the changed mark and the live leaderboard message."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Final

from bot.config import GuildSettings
from bot.storage.engine import Row, Session
from bot.storage.models import LiveBoard

SETTING_COLUMNS: Final = tuple(field.name for field in fields(GuildSettings))
_SETTINGS: Final = ", ".join(SETTING_COLUMNS)
_SHOWN_SETTINGS: Final = ", ".join(f"g.{column} AS {column}" for column in SETTING_COLUMNS)
_LIVE_BOARD: Final = (
    "guild_id, live_channel_id AS channel_id, live_message_id AS message_id, "
    "live_edited_at AS edited_at"
)


def settings_from(row: Row) -> GuildSettings:
    found = {name: row[name] for name in SETTING_COLUMNS}
    found["web"] = bool(found["web"])  # SQLite keeps booleans as 0 and 1
    return GuildSettings(**found)


def _live_board(row: Row) -> LiveBoard:
    return LiveBoard(row["guild_id"], row["channel_id"], row["message_id"], row["edited_at"])


@dataclass(frozen=True, slots=True)
class WebStamp:
    """What the web pages of a guild show depends on (SPEC 11.3's ETag): its settings, the
    change stamp of its standings, and its matches not applied yet (reports, disputes and
    withdrawals leave the change stamp be)."""

    settings: GuildSettings
    changed_at: float | None
    pending: int
    disputed: int
    newest_match: int | None
    name: str | None
    """The guild's name as Discord last showed it to the bot (None: not seen yet)."""


class GuildReads:
    _session: Session

    async def web_stamp(self, guild_id: int) -> WebStamp | None:
        """The WebStamp of a guild shown on the web, in one statement; None for a guild not
        shown or never seen. Both of those do the same work (the subqueries run, finding
        nothing, whether the guild's row exists or not), so no one can tell them apart by the
        time the answer takes (SPEC 11.1)."""
        row = await self._session.one(
            f"SELECT {_SHOWN_SETTINGS}, g.changed_at AS changed_at, g.web AS shown, "
            "g.name AS name, "
            "(SELECT count(*) FROM matches m WHERE m.guild_id = g.guild_id "
            "AND m.status = 'pending') AS pending, "
            "(SELECT count(*) FROM matches m WHERE m.guild_id = g.guild_id "
            "AND m.status = 'disputed') AS disputed, "
            "(SELECT max(m.id) FROM matches m WHERE m.guild_id = g.guild_id) AS newest "
            "FROM (SELECT CAST(:guild_id AS BIGINT) AS guild_id) asked "
            "LEFT JOIN guilds g ON g.guild_id = asked.guild_id AND g.web",
            {"guild_id": guild_id},
        )
        if row is None or row["shown"] is None:
            return None
        return WebStamp(
            settings_from(row),
            row["changed_at"],
            int(row["pending"]),
            int(row["disputed"]),
            None if row["newest"] is None else int(row["newest"]),
            row["name"],
        )

    async def guild_name(self, guild_id: int) -> tuple[bool, str | None]:
        """Whether the guild is stored, and its stored name."""
        row = await self._session.one(
            "SELECT name FROM guilds WHERE guild_id = :guild_id", {"guild_id": guild_id}
        )
        return (False, None) if row is None else (True, row["name"])

    async def guild_ids(self) -> list[int]:
        """Every guild the database knows, ascending."""
        rows = await self._session.all("SELECT guild_id FROM guilds ORDER BY guild_id")
        return [int(row["guild_id"]) for row in rows]

    async def guild_settings(self, guild_id: int) -> GuildSettings | None:
        row = await self._session.one(
            f"SELECT {_SETTINGS} FROM guilds WHERE guild_id = :guild_id", {"guild_id": guild_id}
        )
        return None if row is None else settings_from(row)

    async def live_boards_due(self, now: float, edit_seconds: float) -> list[LiveBoard]:
        """Live boards never posted, or whose guild changed since the last edit and whose
        last edit is at least edit_seconds old."""
        rows = await self._session.all(
            f"SELECT {_LIVE_BOARD} FROM guilds WHERE live_channel_id IS NOT NULL "
            "AND (live_edited_at IS NULL OR (changed_at > live_edited_at "
            "AND live_edited_at + :edit_seconds <= :now)) ORDER BY guild_id",
            {"edit_seconds": edit_seconds, "now": now},
        )
        return [_live_board(row) for row in rows]

    async def live_board(self, guild_id: int) -> LiveBoard | None:
        row = await self._session.one(
            f"SELECT {_LIVE_BOARD} FROM guilds "
            "WHERE guild_id = :guild_id AND live_channel_id IS NOT NULL",
            {"guild_id": guild_id},
        )
        return None if row is None else _live_board(row)


class GuildWrites(GuildReads):
    async def ensure_guild(self, guild_id: int, defaults: GuildSettings) -> GuildSettings:
        """The guild's settings, creating the guild with the defaults on first use."""
        found = await self.guild_settings(guild_id)
        if found is not None:
            return found
        await self._session.run(
            f"INSERT INTO guilds (guild_id, {_SETTINGS}) "
            f"VALUES (:guild_id, {', '.join(f':{name}' for name in SETTING_COLUMNS)}) "
            "ON CONFLICT (guild_id) DO NOTHING",
            {"guild_id": guild_id, **asdict(defaults)},
        )
        created = await self.guild_settings(guild_id)
        assert created is not None
        return created

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self._session.run(
            f"UPDATE guilds SET {', '.join(f'{name} = :{name}' for name in SETTING_COLUMNS)} "
            "WHERE guild_id = :guild_id",
            {"guild_id": guild_id, **asdict(settings)},
        )

    async def set_guild_name(self, guild_id: int, name: str) -> None:
        await self._session.run(
            "UPDATE guilds SET name = :name WHERE guild_id = :guild_id",
            {"name": name, "guild_id": guild_id},
        )

    async def mark_changed(self, guild_id: int, now: float) -> None:
        """Ratings of the guild changed (its live leaderboard needs an edit)."""
        await self._session.run(
            "UPDATE guilds SET changed_at = :now WHERE guild_id = :guild_id",
            {"now": now, "guild_id": guild_id},
        )

    async def set_live_board(self, guild_id: int, channel_id: int | None) -> None:
        await self._session.run(
            "UPDATE guilds SET live_channel_id = :channel_id, live_message_id = NULL, "
            "live_edited_at = NULL WHERE guild_id = :guild_id",
            {"channel_id": channel_id, "guild_id": guild_id},
        )

    async def mark_live_board_edited(
        self, guild_id: int, message_id: int, edited_at: float
    ) -> None:
        await self._session.run(
            "UPDATE guilds SET live_message_id = :message_id, live_edited_at = :edited_at "
            "WHERE guild_id = :guild_id",
            {"message_id": message_id, "edited_at": edited_at, "guild_id": guild_id},
        )
