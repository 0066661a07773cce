"""SPEC 2.5 bit for bit: the ratings a report stores are exactly (==, no tolerance) what a
replay of the log gives, so a recompute after any use rewrites nothing."""

from __future__ import annotations

import random

from bot.services import Actor, Ladder, parse_lineup
from bot.storage import Database

GUILD = 1
MOD = Actor(999, is_moderator=True)

Stored = tuple[dict[int, float | None], list[tuple[int, int | None, float | None, float | None]]]


async def stored_ratings(db: Database, guild_id: int) -> Stored:
    """Every member's rating, and every participant's rating before and after its match."""
    members = {m.user_id: m.rating for m in await db.read.members(guild_id)}
    rows = [
        (m.id, p.user_id, p.rating_before, p.rating_after)
        for m in await db.read.applied_matches(guild_id)
        for p in m.participants
    ]
    return members, rows


async def assert_recompute_rewrites_nothing(ladder: Ladder, guild_id: int) -> None:
    before = await stored_ratings(ladder.db, guild_id)
    await ladder.recompute(guild_id, MOD)
    assert await stored_ratings(ladder.db, guild_id) == before  # floats compared with ==


async def test_recompute_after_reports_rewrites_no_rating_bit(ladder: Ladder) -> None:
    """The report of issue 16 (a free-for-all with 0.01 minutes), then free-for-alls of four
    that a replay rates in waves beside each other: a match's sums used to depend on the
    matches rated with it (a matrix product's summation order), and member 46 came out of
    a recompute 539.9800049987502 instead of the stored 539.9800049987504."""
    text = "<@19> 6 0.01, <@13> 13, <@11> 10, <@12> 3"
    await ladder.report(GUILD, MOD, parse_lineup(text), request_id="issue")
    await assert_recompute_rewrites_nothing(ladder, GUILD)
    rng = random.Random(3)
    for number in range(12):
        players = rng.sample(range(10, 60), 4)
        text = ", ".join(
            f"<@{p}> {rng.randint(0, 20)} {rng.choice([0.01, 3, 20, 35])}" for p in players
        )
        await ladder.report(GUILD, MOD, parse_lineup(text), request_id=f"r{number}")
    await assert_recompute_rewrites_nothing(ladder, GUILD)
