"""Scheduled work per guild owner (SPEC 8.4): each process auto-confirms its guilds only."""

from __future__ import annotations

from bot.config import DiscordConfig
from bot.services import Actor, Services, parse_lineup
from tests.services.conftest import Clock

SHARD_0_GUILD = 4 << 22
SHARD_1_GUILD = (5 << 22) | 7


async def test_auto_confirm_applies_only_owned_guilds_and_each_once(
    services: Services, clock: Clock
) -> None:
    pending = {
        guild: (
            await services.matches.report(
                guild, Actor(1), parse_lineup("<@1> 1 | <@2> 0"), request_id=f"r{guild}"
            )
        ).match.id
        for guild in (SHARD_0_GUILD, SHARD_1_GUILD)
    }
    clock.now += 25 * 3600
    first, second = (DiscordConfig(shard_count=2, shard_ids=(shard,)) for shard in (0, 1))
    assert [(m.guild_id, m.id) for m in await services.matches.auto_confirm(second.owns_guild)] == [
        (SHARD_1_GUILD, pending[SHARD_1_GUILD])
    ]
    assert (await services.matches.show(SHARD_0_GUILD, pending[SHARD_0_GUILD])).status == "pending"
    assert [(m.guild_id, m.id) for m in await services.matches.auto_confirm(first.owns_guild)] == [
        (SHARD_0_GUILD, pending[SHARD_0_GUILD])
    ]
    assert await services.matches.auto_confirm(first.owns_guild) == []
    assert await services.matches.auto_confirm(second.owns_guild) == []
