"""Issue 24 finding 3 in storage (SPEC 10.1): queue and lobby numbers are never reused in a
guild, even after a delete, and an existing database's counters start past every number it
still knows of (its queues, and the deleted queues its lobbies name)."""

from __future__ import annotations

import pytest

from bot.config import GuildSettings
from bot.storage import Database, schema
from bot.storage import postgres as postgres_engine
from bot.storage import sqlite as sqlite_engine
from bot.storage.queues import QueueSettings
from tests.storage.test_queues import draft

GUILD, OTHER = 7, 8
COUNTERS = next(
    number for number, m in enumerate(schema.MIGRATIONS) if "last_queue_id" in "".join(m)
)
"""How many migrations come before the one that adds the counters."""


async def test_finding_3_numbers_are_not_reused_after_a_delete(database: Database) -> None:
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        first = await tx.add_queue(GUILD, QueueSettings("a", 1, 2))
        second = await tx.add_queue(GUILD, QueueSettings("b", 1, 2))
        lobby = await tx.add_lobby(draft(second, [1, 2]))
        await tx.delete_queue(GUILD, second)
        third = await tx.add_queue(GUILD, QueueSettings("c", 1, 2))
        assert (first, second, third) == (1, 2, 3)
        assert await tx.add_lobby(draft(third, [3, 4])) == lobby + 1
        await tx.ensure_guild(OTHER, GuildSettings())
        assert await tx.add_queue(OTHER, QueueSettings("a", 1, 2)) == 1  # per guild


async def test_finding_3_the_migration_starts_the_counters_past_every_known_number(
    own_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database of the schema before the counters: queues 1 and 3 and lobbies 2 and 7 of
    the deleted queue 5. After the migration the next queue is 6 and the next lobby 8."""
    with monkeypatch.context() as older:
        for module in (schema, sqlite_engine, postgres_engine):
            older.setattr(module, "MIGRATIONS", schema.MIGRATIONS[:COUNTERS])
        db = await Database.open(own_database_url)
        try:
            async with db.write(GUILD) as tx:
                for guild_id in (GUILD, OTHER):  # the guild columns of that schema only
                    await tx._session.run(
                        "INSERT INTO guilds (guild_id, t, game_mult, max_game_length, "
                        "initial_rating, variant, confirm, auto_confirm_hours, min_games) "
                        "VALUES (:g, 120, 2, 20, 500, 'p8', 'opponent', 24, 1)",
                        {"g": guild_id},
                    )
                for queue_id, name in ((1, "a"), (3, "c")):
                    await tx._session.run(
                        "INSERT INTO queues (guild_id, queue_id, name, channel_id, size, "
                        "format, teams, mode, ready_seconds, expire_minutes, maps, pick_order) "
                        "VALUES (:g, :q, :n, 1, 2, 'teams', 2, 'balance', 60, 60, '', 'abba')",
                        {"g": GUILD, "q": queue_id, "n": name},
                    )
                for lobby_id in (2, 7):
                    await tx._session.run(
                        "INSERT INTO lobbies (guild_id, lobby_id, queue_id, queue_name, "
                        "channel_id, state, format, teams, mode, pick_order, created_at, "
                        "close_deadline) VALUES (:g, :l, 5, 'gone', 1, 'cancelled', 'teams', "
                        "2, 'balance', 'abba', 1, 2)",
                        {"g": GUILD, "l": lobby_id},
                    )
        finally:
            await db.close()
    db = await Database.open(own_database_url)
    try:
        async with db.write(GUILD) as tx:
            assert await tx.add_queue(GUILD, QueueSettings("f", 1, 2)) == 6
            assert await tx.add_lobby(draft(6, [1, 2])) == 8
            assert await tx.add_queue(OTHER, QueueSettings("a", 1, 2)) == 1
    finally:
        await db.close()
