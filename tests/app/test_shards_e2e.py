"""End to end with shards (SPEC 8.4): the fake Discord routes each guild's events to the
connection of its shard `(guild_id >> 22) % shard_count`, as Discord does.

Every command and button in every guild must be answered by the process running that
guild's shard, and the other process must get nothing of that guild.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from tests.app.fakediscord import GUILD_ID, FakeDiscord, Member, shard_of
from tests.app.harness import MOD, PLAYERS, BotProcess, write_config

SHARD_COUNT = 2
GUILDS_BY_SHARD = {
    shard: [
        guild_id
        for guild_id in (GUILD_ID + (step << 22) for step in range(8))
        if shard_of(guild_id, SHARD_COUNT) == shard
    ][:2]
    for shard in range(SHARD_COUNT)
}
GUILDS = [guild_id for guilds in GUILDS_BY_SHARD.values() for guild_id in guilds]

StartBot = Callable[[str, Sequence[int]], BotProcess]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    server = FakeDiscord([MOD, *PLAYERS], guilds=GUILDS, recommended_shards=SHARD_COUNT)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def database(tmp_path: Path) -> str:
    """The one database every bot process of a test shares: a SQLite file for now; SPEC 8.4
    puts shard processes on PostgreSQL, which only this fixture will change."""
    return str(tmp_path / "ladder.sqlite3")


@pytest.fixture
def start_bot(fake: FakeDiscord, database: str, tmp_path: Path) -> Iterator[StartBot]:
    """Starts a bot process running the given shards of SHARD_COUNT; all stop at the end."""
    started: list[BotProcess] = []

    def start(origin: str, shard_ids: Sequence[int]) -> BotProcess:
        directory = tmp_path / origin
        directory.mkdir()
        config = write_config(directory, "global", database, (SHARD_COUNT, shard_ids))
        guilds = [guild_id for shard in shard_ids for guild_id in GUILDS_BY_SHARD[shard]]
        process = BotProcess(fake, config, origin, guilds)
        started.append(process)
        process.start()
        return process

    yield start
    for process in started:
        process.stop()


def test_guild_ids_cover_both_shards() -> None:
    assert all(len(guilds) == 2 for guilds in GUILDS_BY_SHARD.values())
    assert shard_of(GUILDS_BY_SHARD[1][0], SHARD_COUNT) == 1


def _play(
    fake: FakeDiscord, guild_id: int, players: Sequence[Member] = PLAYERS[:2]
) -> set[str | None]:
    """A pending duel between new players and its confirm button in the guild; the
    processes that answered."""
    winner, loser = players
    reported = fake.slash(winner, "report duel", guild_id, winner=winner, loser=loser).reply()
    assert not reported.ephemeral and "pending" in reported.embeds[0]["description"]
    confirm = reported.custom_ids()[0]
    assert reported.message_id is not None
    applied = fake.click(loser, reported.message_id, confirm).reply()
    assert applied.kind == "update" and "applied" in applied.embeds[0]["description"]
    sides = "\n".join(field["value"] for field in applied.embeds[0]["fields"])
    assert f"<@{winner.id}> — 1 pts, 20 min: 500.0 → 520.0 (+20.0)" in sides
    return {reported.origin, applied.origin}


def _identified_shards(fake: FakeDiscord, origin: str) -> list[tuple[int, int] | None]:
    return sorted(
        event.payload["shard"] for event in fake.of_kind("identify") if event.origin == origin
    )


def test_one_process_runs_both_shards_and_answers_in_every_guild(
    fake: FakeDiscord, start_bot: StartBot
) -> None:
    start_bot("both", [0, 1])
    assert _identified_shards(fake, "both") == [(0, 2), (1, 2)]
    for guild_id in GUILDS:
        assert _play(fake, guild_id) == {"both"}

    mark = fake.mark()
    fake.drop_gateway()  # both shards reconnect, each to its own guilds
    fake.wait_ready(after=mark, guilds=GUILDS, origin="both")
    assert sorted(e.payload["shard"] for e in fake.of_kind("identify", mark)) == [(0, 2), (1, 2)]
    for guild_id in GUILDS:
        assert _play(fake, guild_id, PLAYERS[2:4]) == {"both"}


def test_two_processes_each_answer_their_own_shards_guilds_only(
    fake: FakeDiscord, start_bot: StartBot
) -> None:
    origins = {0: "shard0", 1: "shard1"}
    for shard, origin in origins.items():
        start_bot(origin, [shard])
        assert _identified_shards(fake, origin) == [(shard, SHARD_COUNT)]
    mark = fake.mark()
    for guild_id in GUILDS:
        owner = origins[shard_of(guild_id, SHARD_COUNT)]
        assert _play(fake, guild_id) == {owner}

    events = fake.events[mark:]
    for guild_id in GUILDS:
        owner = origins[shard_of(guild_id, SHARD_COUNT)]
        channels = {channel.id for channel in fake.channels_of(guild_id)}
        about_guild = [
            event
            for event in events
            if event.payload.get("guild_id") == guild_id or event.channel_id in channels
        ]
        assert {event.kind for event in about_guild} >= {"dispatch", "respond", "update"}
        assert {event.origin for event in about_guild} == {owner}, guild_id


def test_gateway_bot_recommends_the_shard_count(fake: FakeDiscord) -> None:
    """What an AutoShardedClient without shard_count asks before connecting."""
    with urllib.request.urlopen(f"{fake.url}/api/v10/gateway/bot", timeout=5) as response:
        assert response.headers["Content-Type"] == "application/json"
        answer = json.loads(response.read())
    assert answer["shards"] == SHARD_COUNT
    assert answer["url"] == fake.url.replace("http", "ws", 1) + "/gateway"
    assert answer["session_start_limit"]["max_concurrency"] >= 1
