"""Webhooks with shards (SPEC 14, 8.4): two bot processes on one PostgreSQL database, each
owning one shard, both hearing every change (NOTIFY); each guild's events are delivered by
the process that owns its shard, once."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import Config, WebhooksConfig
from bot.services import Actor, Services
from bot.services.changes import COMMAND_LINE_ID
from bot.services.lineup import parse_lineup
from tests.app.fakediscord import FakeDiscord
from tests.app.harness import PLAYERS, BotProcess, write_config
from tests.app.test_shards_e2e import GUILDS_BY_SHARD, SHARD_COUNT, sharded_discord
from tests.storage.engines import _empty
from tests.webhook_receiver import Received, Receiver

ORIGINS = ("zero", "one")
MOD_ACTOR = Actor(COMMAND_LINE_ID, is_moderator=True)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from sharded_discord(PLAYERS)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.close()


def hooked_config(directory: Path, database: str, shard: int) -> Path:
    directory.mkdir()
    config = write_config(directory, "global", database, (SHARD_COUNT, [shard]))
    config.write_text(config.read_text() + "[webhooks]\nallow_private = true\n")
    return config


@pytest.fixture
def bots(fake: FakeDiscord, postgres_url: str, tmp_path: Path) -> Iterator[list[BotProcess]]:
    asyncio.run(_empty(postgres_url))
    patch = pytest.MonkeyPatch()
    patch.setenv("LADDERBOT_TEST_WEBHOOK_TIMING", "2,0.2,1")
    started = []
    try:
        for shard, origin in enumerate(ORIGINS):
            config = hooked_config(tmp_path / origin, postgres_url, shard)
            process = BotProcess(fake, config, origin, GUILDS_BY_SHARD[shard])
            started.append(process)
            process.start()
        yield started
    finally:
        patch.undo()
        for process in started:
            process.stop()


async def write(database: str, guild_id: int, *uses: str) -> None:
    """Changes made by another process than the bots (as the command line makes them)."""
    config = Config(webhooks=WebhooksConfig(allow_private=True))
    async with await Services.open(database, config) as services:
        for use in uses:
            if use.startswith("http"):
                await services.webhooks.add(guild_id, MOD_ACTOR, use, "match.applied")
            else:
                await services.matches.report(
                    guild_id, MOD_ACTOR, parse_lineup(use), request_id=uuid.uuid4().hex
                )


def test_each_guilds_events_are_delivered_once_by_the_process_owning_its_shard(
    bots: list[BotProcess], receiver: Receiver, postgres_url: str
) -> None:
    guilds = [GUILDS_BY_SHARD[shard][0] for shard in range(SHARD_COUNT)]
    for guild_id in guilds:
        asyncio.run(write(postgres_url, guild_id, receiver.url(f"/{guild_id}")))

    def arrived(count: int) -> list[Received]:
        def enough(received: list[Received]) -> bool:
            return all(len([r for r in received if r.path == f"/{g}"]) >= count for g in guilds)

        return receiver.wait_for(enough)

    a, b = PLAYERS[0], PLAYERS[1]
    for round_ in range(2):  # the second round arrives after any duplicate of the first would
        for guild_id in guilds:
            asyncio.run(write(postgres_url, guild_id, f"<@{a.id}> {round_ + 1} | <@{b.id}> 0"))
        got = arrived(round_ + 1)
    for shard, guild_id in enumerate(guilds):
        mine = [r for r in got if r.path == f"/{guild_id}"]
        assert [r.headers["X-Fake-Origin"] for r in mine] == [ORIGINS[shard]] * 2
        assert len({r.json["id"] for r in mine}) == 2
        assert [r.json["guild_id"] for r in mine] == [guild_id] * 2
