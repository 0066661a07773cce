"""`ladderbot queue list --guild ID [--json]` (SPEC 10.4), on both engines."""

from __future__ import annotations

import asyncio
import json

from bot.config import Config
from bot.services import Actor, MemberInfo, Services
from bot.services.queues import Queues
from bot.storage.queues import QueueSettings
from tests.test_cli import run

GUILD = 7
MOD = Actor(1, is_moderator=True)


async def fill(database: str) -> None:
    async with await Services.open(database, Config()) as services:
        service = Queues(services.context, services.matches)
        for spec in (
            QueueSettings("duel", 50, 2, ready_seconds=30),
            QueueSettings("5v5", 51, 10, maps=("dust", "nuke")),
        ):
            await service.create_queue(7, MOD, spec, pick_order_given=False)
        await service.join(GUILD, MemberInfo(10, "Ann"), "duel")
        await service.join(GUILD, MemberInfo(11, "Bo"), "duel")
        await service.join(GUILD, MemberInfo(12, "Cy"), "5v5")
        await service.ready(GUILD, 11, 1)


def test_queue_list_text_and_json(database_url: str) -> None:
    asyncio.run(fill(database_url))
    status, out, err = run("queue", "list", "--guild", str(GUILD), "--db", database_url)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("queue 1 duel: 0/2 waiting (2 teams, balance, ready 30 s")
    assert lines[1].startswith("queue 2 5v5: 1/10 waiting") and "maps dust, nuke" in lines[1]
    assert lines[2].startswith("  1. Cy (12) waited ")
    assert lines[3] == "lobby #1 of duel: ready: Ann, Bo (ready)"
    status, out, err = run("queue", "list", "--guild", str(GUILD), "--db", database_url, "--json")
    view = json.loads(out)
    assert [q["name"] for q in view["queues"]] == ["duel", "5v5"]
    assert view["queues"][1]["waiting"][0]["user_id"] == 12
    (lobby,) = view["lobbies"]
    assert lobby["state"] == "ready" and [p["ready"] for p in lobby["players"]] == [False, True]
    assert lobby["ready_deadline"].endswith("Z")


def test_queue_list_of_an_unknown_guild_is_refused(database_url: str) -> None:
    asyncio.run(fill(database_url))
    status, out, err = run("queue", "list", "--guild", "8", "--db", database_url)
    assert (status, out) == (2, "") and "has no guild 8" in err
