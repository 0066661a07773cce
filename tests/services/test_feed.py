"""The change feed (SPEC 8.7) on both engines: a bot process's listener hears every change,
its own at once and another process's (the command line's) from the change log, each exactly
once, with what changed and who made it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bot.config import GuildSettings
from bot.services import Actor, Change, ServiceContext, Services, parse_lineup
from bot.services.changes import COMMAND_LINE_ID
from bot.services.feed import ChangeFeed, record_change
from bot.storage import Database
from tests.storage.engines import _empty

GUILD = 7 << 22
OTHER_GUILD = 9 << 22
MOD = Actor(1, is_moderator=True)
COMMAND_LINE = Actor(COMMAND_LINE_ID, is_moderator=True)


async def _until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the feed never told it"
        await asyncio.sleep(0.02)


def _summary(change: Change) -> tuple[object, ...]:
    return (change.guild_id, change.kind, change.match_id, change.actor_id, change.everyone)


async def test_every_change_reaches_the_feed_once(database_url: str) -> None:
    bot_db, cli_db = await Database.open(database_url), await Database.open(database_url)
    told: list[Change] = []
    feed = ChangeFeed(bot_db, told.append, poll_seconds=0.05)
    bot = Services.build(ServiceContext(bot_db, GuildSettings(), on_change=feed.publish))
    cli = Services.build(ServiceContext(cli_db, GuildSettings()))
    try:
        await feed.start()
        first = await cli.matches.report(
            GUILD, COMMAND_LINE, parse_lineup("<@11> 3 | <@12> 1"), request_id="a"
        )
        await _until(lambda: len(told) == 1)
        mine = await bot.matches.report(
            GUILD, MOD, parse_lineup("<@11> 1 | <@13> 2"), request_id="b"
        )
        assert len(told) == 2  # this process's own: at once
        await cli.matches.void(GUILD, COMMAND_LINE, first.match.id, "typo")
        await cli.settings.change(OTHER_GUILD, COMMAND_LINE, {"min_games": 2})
        await _until(lambda: len(told) == 4)
        await asyncio.sleep(0.3)  # several polls: nothing is told twice
        assert [_summary(change) for change in told] == [
            (GUILD, "applied", first.match.id, COMMAND_LINE_ID, False),
            (GUILD, "applied", mine.match.id, MOD.user_id, False),
            (GUILD, "voided", first.match.id, COMMAND_LINE_ID, False),
            (OTHER_GUILD, "settings", None, COMMAND_LINE_ID, True),
        ]
        assert told[0].member_ids == {11, 12}
        assert "typo" in told[2].detail and told[2].member_ids >= {11, 12}
        assert "min_games" in told[3].detail
    finally:
        await feed.stop()
        await bot.close()
        await cli.close()


async def test_changes_made_before_the_feed_starts_are_not_told(database_url: str) -> None:
    """A restarted bot catches up on its boards itself (LiveBoards.catch_up); the feed tells
    what is committed after it starts."""
    bot_db, cli_db = await Database.open(database_url), await Database.open(database_url)
    told: list[Change] = []
    feed = ChangeFeed(bot_db, told.append, poll_seconds=0.05)
    cli = Services.build(ServiceContext(cli_db, GuildSettings()))
    try:
        await cli.matches.report(
            GUILD, COMMAND_LINE, parse_lineup("<@11> 3 | <@12> 1"), request_id="a"
        )
        await feed.start()
        assert await feed.catch_up() == 0
        await cli.matches.report(
            GUILD, COMMAND_LINE, parse_lineup("<@11> 3 | <@12> 1"), request_id="b"
        )
        await _until(lambda: len(told) == 1)
    finally:
        await feed.stop()
        await bot_db.close()
        await cli.close()


async def test_a_change_committed_after_a_later_one_is_still_told(database_url: str) -> None:
    """Numbers are taken before commit: on PostgreSQL a write to another guild may commit
    between; the skipped number is looked for again."""
    bot_db, cli_db = await Database.open(database_url), await Database.open(database_url)
    told: list[Change] = []
    feed = ChangeFeed(bot_db, told.append)  # not started: read by hand (from change 1 on)
    try:
        async with cli_db.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings())
            await tx.record_change(
                GUILD, cli_db.origin, "settings", match_id=None, actor_id=0, everyone=True,
                member_ids=(), detail="", now=time.time(),
            )  # fmt: skip
        async with cli_db.write(GUILD) as tx:
            await tx.record_change(
                GUILD, cli_db.origin, "settings", match_id=None, actor_id=0, everyone=True,
                member_ids=(), detail="late", now=time.time(),
            )  # fmt: skip
        async with cli_db.write(None) as tx:  # as if the first had not committed yet
            await tx._session.run("DELETE FROM changes WHERE detail = ''")
        assert await feed.catch_up() == 1
        async with cli_db.write(None) as tx:  # now it commits, under its old number
            await tx._session.run(
                "INSERT INTO changes (seq, guild_id, origin, kind, everyone, member_ids, "
                f"detail, created_at) VALUES (1, {GUILD}, '{cli_db.origin}', 'settings', "
                f"{'TRUE' if database_url.startswith('postgresql') else 1}, '', 'early', 0)"
            )
        assert await feed.catch_up() == 1
        assert await feed.catch_up() == 0
        assert [change.detail for change in told] == ["late", "early"]
    finally:
        await feed.stop()
        await bot_db.close()
        await cli_db.close()


async def test_a_change_of_very_many_members_is_logged_as_everyone_s(database_url: str) -> None:
    """An import into a big guild names every member it touched: the log keeps its row small
    (the listeners then treat every member as changed, as they would with `everyone`)."""
    db = await Database.open(database_url)
    told: list[Change] = []
    feed = ChangeFeed(db, told.append)
    db.origin = "this process"
    try:
        many = Change(GUILD, "imported", frozenset(range(1, 1002)), actor_id=COMMAND_LINE_ID)
        few = Change(GUILD, "applied", frozenset({1, 2}), match_id=3, actor_id=COMMAND_LINE_ID)
        async with db.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings())
            await record_change(tx, "another process", many, time.time())
            await record_change(tx, "another process", few, time.time())
        assert await feed.catch_up() == 2
        assert told == [
            Change(GUILD, "imported", everyone=True, actor_id=COMMAND_LINE_ID),
            few,
        ]
    finally:
        await db.close()


async def test_a_lost_listening_connection_is_replaced(postgres_url: str) -> None:
    """PostgreSQL: the feed's LISTEN connection killed (a server restart, an operator), the
    feed listens anew at its next poll, and notifications wake it again."""
    await _empty(postgres_url)
    bot_db, cli_db = await Database.open(postgres_url), await Database.open(postgres_url)
    told: list[Change] = []
    feed = ChangeFeed(bot_db, told.append, poll_seconds=0.1)
    cli = Services.build(ServiceContext(cli_db, GuildSettings()))
    try:
        await feed.start()
        assert feed.notified and bot_db.watching
        listener = bot_db.engine._listener  # type: ignore[attr-defined]
        async with cli_db.write(None) as tx:
            await tx._session.run(f"SELECT pg_terminate_backend({listener.get_server_pid()})")
        await _until(lambda: bot_db.engine._listener is not listener and bot_db.watching)  # type: ignore[attr-defined]
        feed.poll_seconds = 60.0  # from now on only a notification wakes it
        await asyncio.sleep(0.3)  # the last short wait ends
        await cli.matches.report(
            GUILD, COMMAND_LINE, parse_lineup("<@11> 3 | <@12> 1"), request_id="a"
        )
        await _until(lambda: len(told) == 1, timeout=3.0)
    finally:
        await feed.stop()
        await bot_db.close()
        await cli.close()


async def test_a_guild_s_write_deletes_its_rows_older_than_an_hour(database_url: str) -> None:
    db = await Database.open(database_url)
    try:
        start = 1_700_000_000.0
        for guild_id, now in ((GUILD, start), (OTHER_GUILD, start), (GUILD, start + 3601.0)):
            async with db.write(guild_id) as tx:
                await tx.ensure_guild(guild_id, GuildSettings())
                await record_change(tx, "p", Change(guild_id, "settings"), now)
        kept = await db.read.changes_from(0, 10)
        assert [(row.guild_id, row.created_at) for row in kept] == [
            (OTHER_GUILD, start),  # another guild's rows wait for that guild's next write
            (GUILD, start + 3601.0),
        ]
    finally:
        await db.close()
