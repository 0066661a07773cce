"""Auto-confirm exactly once across processes (SPEC 8.4): pending → applied is one
transaction that reads the match again under the guild's write lock, so a second process
that listed the same due match finds it no longer pending and leaves it alone."""

from __future__ import annotations

import asyncio

from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, parse_lineup
from bot.storage import Database
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth

GUILDS = (4 << 22, (5 << 22) | 7)


async def test_two_processes_racing_apply_each_due_match_once(database_url: str) -> None:
    clock = Clock()
    first = Services.build(
        ServiceContext(await Database.open(database_url), GuildSettings(), clock=clock)
    )
    second = Services.build(
        ServiceContext(await Database.open(database_url), GuildSettings(), clock=clock)
    )
    try:
        pending = set()
        for number in range(6):
            guild = GUILDS[number % 2]
            lineup = parse_lineup(f"<@{number + 1}> 1 | <@{number + 11}> 0")
            reported = await first.matches.report(
                guild, Actor(number + 1), lineup, request_id=str(number)
            )
            assert reported.match.status == "pending"
            pending.add((guild, reported.match.id))
        clock.now += 25 * 3600

        # Both list every due match before either applies one (everyone owns every guild).
        by_first, by_second = await asyncio.gather(
            first.matches.auto_confirm(), second.matches.auto_confirm()
        )

        applied = [(m.guild_id, m.id) for m in [*by_first, *by_second]]
        assert sorted(applied) == sorted(pending)  # each exactly once, none lost
        for guild in GUILDS:
            matches = await second.context.db.read.all_matches(guild)
            assert {m.status for m in matches} == {"applied"}
            await assert_log_is_truth(second, guild)
        assert (
            await first.matches.auto_confirm() == [] and await second.matches.auto_confirm() == []
        )
    finally:
        await first.close()
        await second.close()
