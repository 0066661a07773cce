"""Queues with shards (SPEC 10.4, 8.4): two bot processes on one PostgreSQL database, each
running one shard. Every queue's message, lobby and timed action (here a ready deadline) is
handled by the process owning its guild, once."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from tests.app.fakediscord import Event, FakeDiscord, Member, shard_of
from tests.app.harness import MOD
from tests.app.queue_scenario import custom_ids, title
from tests.app.test_shards_e2e import (  # noqa: F401 (bot_starter, shared_database: fixtures)
    GUILDS_BY_SHARD,
    SHARD_COUNT,
    StartBot,
    bot_starter,
    sharded_discord,
    shared_database,
)

PLAYERS = [Member(7_000_000 + number, f"sharded{number}") for number in range(1, 9)]
READY = 3


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from sharded_discord(PLAYERS)


@pytest.fixture
def bots(start_bot: StartBot) -> dict[int, str]:
    """Shard -> the origin of the process running it."""
    for shard in range(SHARD_COUNT):
        start_bot(f"shard{shard}", [shard])
    return {shard: f"shard{shard}" for shard in range(SHARD_COUNT)}


def posted_in(channel_id: int, title_start: str = "") -> Callable[[Event], bool]:
    """A message posted in the channel whose embed's title starts so."""
    return lambda e: (
        e.kind == "message_create"
        and e.channel_id == channel_id
        and title(e).startswith(title_start)
    )


def dissolved_lobby(message_id: int | None) -> Callable[[Event], bool]:
    return lambda e: (
        e.kind == "message_edit" and e.message_id == message_id and "dissolved" in title(e)
    )


def test_each_guilds_queue_is_run_by_its_owner_once(
    fake: FakeDiscord, bots: dict[int, str]
) -> None:
    guilds = [GUILDS_BY_SHARD[shard][0] for shard in range(SHARD_COUNT)]
    mark = fake.mark()
    lobbies = {}
    for guild_id, pair in zip(guilds, (PLAYERS[:2], PLAYERS[2:4]), strict=True):
        general = fake.channels_of(guild_id)[0]
        owner = bots[shard_of(guild_id, SHARD_COUNT)]
        created = fake.slash(
            MOD, "admin queue create", guild_id, name="duel", channel=general, size=2,
            ready_seconds=READY,
        ).reply()  # fmt: skip
        assert created.origin == owner
        queue = fake.wait_for(posted_in(general.id), 10, mark)
        for player in pair:
            joined = fake.click(player, int(queue.message_id or 0), custom_ids(queue)[0]).reply()
            assert joined.origin == owner
        lobbies[guild_id] = fake.wait_for(posted_in(general.id, "Lobby #"), 10, mark)
    time.sleep(READY + 1.5)  # nobody readies: each lobby is dissolved by its guild's owner
    for guild_id, lobby in lobbies.items():
        owner = bots[shard_of(guild_id, SHARD_COUNT)]
        dissolved = fake.wait_for(dissolved_lobby(lobby.message_id), 10, mark)
        assert dissolved.origin == owner
        channels = {channel.id for channel in fake.channels_of(guild_id)}
        writes = [
            e
            for e in fake.events[mark:]
            if e.kind in ("message_create", "message_edit") and e.channel_id in channels
        ]
        assert {e.origin for e in writes} == {owner}
        assert sum(1 for e in writes if "dissolved" in title(e)) == 1
