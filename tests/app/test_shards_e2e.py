"""End to end with shards (SPEC 8.4): bot processes on one PostgreSQL database; the fake
Discord routes each guild's events to the connection of its shard
`(guild_id >> 22) % shard_count`, as Discord does.

Every command and button in every guild must be answered by the process running that
guild's shard, and the other process must get nothing of that guild; the guild's follow-up
work (auto-confirm, live board edits) is done by its owner once, whoever made the change.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from bot.storage import Database
from tests.app.fakediscord import GUILD_ID, FakeDiscord, Member, Reply, shard_of
from tests.app.harness import (
    EDIT_SECONDS,
    MOD,
    PLAYERS,
    REPO,
    BotProcess,
    bot_environment,
    serving,
    write_config,
)
from tests.storage.engines import _empty

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

REPORT = (sys.executable, "-m", "bot", "report")
StartBot = Callable[[str, Sequence[int]], BotProcess]


def sharded_discord(players: Sequence[Member]) -> Iterator[FakeDiscord]:
    """A fake Discord with MOD and `players` in the GUILDS, recommending SHARD_COUNT shards."""
    yield from serving(FakeDiscord([MOD, *players], guilds=GUILDS, recommended_shards=SHARD_COUNT))


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from sharded_discord(PLAYERS)


@pytest.fixture(name="database")
def shared_database(postgres_url: str) -> str:
    """The one PostgreSQL database every bot process of a test shares, emptied first."""
    asyncio.run(_empty(postgres_url))
    return postgres_url


@pytest.fixture(name="start_bot")
def bot_starter(fake: FakeDiscord, database: str, tmp_path: Path) -> Iterator[StartBot]:
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
    assert f"<@{winner.id}> — 1 point, 20 min: 500.0 → 520.0 (+20.0)" in sides
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


def _start_both(start_bot: StartBot) -> dict[int, BotProcess]:
    return {shard: start_bot(f"shard{shard}", [shard]) for shard in range(SHARD_COUNT)}


def _matches(database: str, guild_id: int) -> dict[int, str]:
    """Match id -> status of the guild's matches, read from the database."""

    async def read() -> dict[int, str]:
        db = await Database.open(database)
        try:
            return {match.id: match.status for match in await db.read.all_matches(guild_id)}
        finally:
            await db.close()

    return asyncio.run(read())


def _match_id(reply: Reply) -> int:
    return int(reply.embeds[0]["title"].removeprefix("Match #"))


def test_a_command_line_report_edits_the_live_board_once_by_its_owner(
    fake: FakeDiscord, start_bot: StartBot, database: str
) -> None:
    _start_both(start_bot)
    guild_id = GUILDS_BY_SHARD[1][1]
    live = fake.channels_of(guild_id)[1]
    mark = fake.mark()
    assert fake.slash(MOD, "admin channel", guild_id, channel=live).reply().origin == "shard1"
    board = fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == live.id, 10, mark
    )
    time.sleep(EDIT_SECONDS)  # the board may be edited again at once

    reported = fake.mark()
    winner, loser = PLAYERS[:2]
    subprocess.run(
        [*REPORT, "--guild", str(guild_id), "--db", database, f"<@{winner.id}> 1|<@{loser.id}> 0"],
        cwd=REPO,
        env=bot_environment(None),
        capture_output=True,
        timeout=30,
        check=True,
    )
    edited = fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == board.message_id, 10, reported
    )
    assert edited.origin == "shard1"
    assert f"{winner.id} — 520.0 · 1W 0D 0L" in edited.payload["embeds"][0]["description"]
    time.sleep(EDIT_SECONDS + 2.0)  # room for a second edit, which must not come
    touched = [
        event
        for event in fake.events[reported:]
        if event.channel_id == live.id and event.kind in ("message_edit", "message_create")
    ]
    assert touched == [edited]


def test_a_killed_process_restarts_losing_nothing(
    fake: FakeDiscord, start_bot: StartBot, database: str
) -> None:
    processes = _start_both(start_bot)
    due_guild, busy_guild = GUILDS_BY_SHARD[1]
    other_guild = GUILDS_BY_SHARD[0][0]
    # A pending match that falls due in a moment (auto_confirm_hours 0.0005: 1.8 s).
    fake.slash(MOD, "admin settings", due_guild, auto_confirm_hours=0.0005).reply()
    winner, loser = PLAYERS[10:12]
    due = fake.slash(winner, "report duel", due_guild, winner=winner, loser=loser).reply()
    assert due.message_id is not None and "pending" in due.embeds[0]["description"]
    # Pending matches whose confirm buttons must work after the restart.
    buttons = []
    for number in range(3):
        winner, loser = PLAYERS[20 + 2 * number : 22 + 2 * number]
        pending = fake.slash(winner, "report duel", busy_guild, winner=winner, loser=loser)
        buttons.append((loser, pending.reply()))

    # A burst of reports; the process is killed while it answers them.
    burst = [
        fake.slash(MOD, "report duel", busy_guild, winner=PLAYERS[40], loser=PLAYERS[41])
        for _ in range(30)
    ]
    burst[3].reply()
    shard1 = processes[1]
    assert shard1.process is not None
    shard1.process.kill()
    shard1.process.wait(timeout=10)
    shard1.process = None
    acknowledged = []
    for interaction in burst:
        try:
            acknowledged.append(_match_id(interaction.reply(timeout=0.1)))
        except AssertionError:
            continue
    assert len(acknowledged) >= 4
    assert _play(fake, other_guild) == {"shard0"}  # the other process still answers

    restarted = fake.mark()
    shard1.start()
    stored = _matches(database, busy_guild)
    assert all(stored.get(match_id) == "applied" for match_id in acknowledged)
    assert _play(fake, other_guild, PLAYERS[2:4]) == {"shard0"}

    for loser, posted in buttons:  # buttons posted before the kill
        assert posted.message_id is not None
        clicked = fake.click(loser, posted.message_id, posted.custom_ids()[0]).reply()
        assert clicked.origin == "shard1" and "applied" in clicked.embeds[0]["description"]

    # The due match is applied by its owner's auto-confirm, once.
    decided = fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == due.message_id, 20, restarted
    )
    assert decided.origin == "shard1"
    assert "applied" in decided.payload["embeds"][0]["description"]
    assert _matches(database, due_guild) == {_match_id(due): "applied"}
    time.sleep(2.0)
    edits = [e for e in fake.of_kind("message_edit") if e.message_id == due.message_id]
    assert edits == [decided]
    processes[0].assert_alive()
