"""Webhooks end to end (SPEC 14): the real bot process with `[webhooks] allow_private = true`
delivers to a real receiver on 127.0.0.1 the events of changes made in Discord (the fake)
and on the command line, each once, in order, signed, in the API's shapes; killed (SIGKILL)
while a delivery is under way, it sends that delivery again after its restart with the same
`id`, and what was written while it was down."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.config import Config
from bot.services import Services
from bot.services.shapes import match_object
from tests.app.fakediscord import GUILD_ID, FakeDiscord, Reply
from tests.app.harness import MOD, BotProcess, ladderbot, running, write_config
from tests.app.queue_scenario import (  # noqa: F401 (queue_fake: the module's fake Discord)
    click,
    create,
    queue_fake,
    take,
)
from tests.webhook_receiver import Received, Receiver

TIMING = "2,0.2,1"
"""The bot's delivery timeout, first retry wait and longest wait, in seconds."""


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    found = Receiver(slow_seconds=3.0).start()
    yield found
    found.close()


@pytest.fixture(scope="module")
def bot(fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    config = write_config(tmp_path_factory.mktemp("webhooks"))
    config.write_text(config.read_text() + "[webhooks]\nallow_private = true\n")
    patch = pytest.MonkeyPatch()
    patch.setenv("LADDERBOT_TEST_WEBHOOK_TIMING", TIMING)
    try:
        yield from running(BotProcess(fake, config))
    finally:
        patch.undo()


async def api_match(bot: BotProcess, match_id: int) -> dict[str, Any]:
    """The match as the read API (and `ladderbot match --json`) shapes it now."""
    async with await Services.open(bot.database, Config(), create=False) as services:
        found = await services.matches.show(GUILD_ID, match_id)
        return match_object(found, await services.matches.edits(GUILD_ID, match_id))


def add_webhook(fake: FakeDiscord, url: str, events: str | None = None) -> tuple[int, str]:
    """/admin webhook add: the webhook's number and its secret (shown once, ephemeral)."""
    options: dict[str, Any] = {"url": url} if events is None else {"url": url, "events": events}
    reply = fake.slash(MOD, "admin webhook add", **options).reply()
    assert reply.ephemeral, reply.content
    found = re.search(r"webhook #(\d+) .*secret \(shown only now[^:]*\): ([0-9a-f]{64})",
                      reply.content or "", re.S)  # fmt: skip
    assert found, reply.content
    return int(found.group(1)), found.group(2)


def match_id_of(reply: Reply) -> int:
    found = re.search(r"#(\d+)", reply.embeds[0]["title"])
    assert found, reply.embeds[0]["title"]
    return int(found.group(1))


EXPECTED = [
    "match.reported", "match.disputed", "match.voided",  # Discord: reported, disputed, voided
    "match.reported", "match.applied", "match.edited",  # Discord: reported, confirmed, edited
    "queue.joined", "queue.left", "queue.joined", "queue.joined", "lobby.popped",
    "lobby.teams", "lobby.closed",  # Discord: the queue's buttons, /admin lobby cancel
    "match.reported", "match.applied", "season.started", "webhook.test",  # the command line
]  # fmt: skip


def test_discord_and_command_line_changes_arrive_once_in_order_signed(
    fake: FakeDiscord, bot: BotProcess, receiver: Receiver
) -> None:
    number, secret = add_webhook(fake, receiver.url("/all"))
    add_webhook(fake, receiver.url("/teams"), "lobby.teams")
    a, b, c, d = take(4)
    disputed = fake.slash(a, "report duel", winner=a, loser=b).reply()
    fake.click(b, disputed.message_id, disputed.custom_ids()[1]).reply()  # Dispute
    fake.slash(MOD, "admin void", id=match_id_of(disputed), reason="no-show").reply()
    reported = fake.slash(a, "report duel", winner=a, loser=b).reply()
    fake.click(b, reported.message_id, reported.custom_ids()[0]).reply()  # Confirm
    edited = match_id_of(reported)
    fake.slash(MOD, "admin edit", id=edited, lineup=f"<@{b.id}> 1 | <@{a.id}> 0").reply()
    queue_id, message = create(fake, "hooked", 2, ready_seconds=0)
    join, leave = f"ladderbot:queue:join:{queue_id}", f"ladderbot:queue:leave:{queue_id}"
    click(fake, c, message, join)
    click(fake, c, message, leave)
    click(fake, c, message, join)
    popped = click(fake, d, message, join).content or ""
    found = re.search(r"lobby #(\d+)", popped)
    assert found, popped
    lobby_id = int(found.group(1))
    fake.slash(MOD, "admin lobby cancel", id=lobby_id).reply()
    ladderbot(bot.database, "report", f"<@{c.id}> 2 | <@{d.id}> 1")
    ladderbot(bot.database, "season", "start", "Hooked")
    assert "webhook.test event waits" in ladderbot(bot.database, "webhook", "test", str(number))

    got = receiver.wait_for(
        lambda r: (
            len([x for x in r if x.path == "/all"]) >= len(EXPECTED)
            and any(x.path == "/teams" for x in r)
        )
    )
    mine = [r for r in got if r.path == "/all"]
    assert [r.json["event"] for r in mine] == EXPECTED
    assert all(r.answered == 200 and r.signed_by(secret) for r in mine)
    assert len({r.json["id"] for r in mine}) == len(mine)  # each once
    assert receiver.events("/teams") == ["lobby.teams"]
    shown = asyncio.run(api_match(bot, edited))
    edit_event = mine[EXPECTED.index("match.edited")].json
    assert edit_event["data"]["match"] == shown  # the API's shape, as it stood then
    assert edit_event["guild_id"] == GUILD_ID
    teams = mine[EXPECTED.index("lobby.teams")].json["data"]["lobby"]
    assert sorted(p["user_id"] for p in teams["players"]) == sorted([c.id, d.id])
    listed = fake.slash(MOD, "admin webhook list").reply()
    assert listed.ephemeral and f"#{number} {receiver.url('/all')} (all events)" in (
        listed.content or ""
    )
    assert "last delivery 200" in (listed.content or "") and secret not in (listed.content or "")
    refused = fake.slash(
        MOD, "admin webhook add", url=receiver.url("/x"), events="match.nope"
    ).reply()
    assert refused.ephemeral and "unknown event 'match.nope'" in (refused.content or "")


def test_killed_between_commit_and_delivery_it_delivers_after_restart_with_the_same_id(
    fake: FakeDiscord, bot: BotProcess, receiver: Receiver
) -> None:
    receiver.plans["/kill"] = ["slow"]  # the first try gets no answer: under way when killed
    add_webhook(fake, receiver.url("/kill"), "season.started")
    ladderbot(bot.database, "season", "start", "Before")
    got = receiver.wait_for(lambda r: any(x.path == "/kill" for x in r))
    first = next(x for x in got if x.path == "/kill")
    assert first.answered == "slow"
    assert bot.process is not None
    bot.process.kill()  # SIGKILL: no clean shutdown
    bot.process.wait(5)
    bot.process = None
    ladderbot(bot.database, "season", "start", "While down")  # written while no bot runs
    bot.start()
    got = receiver.wait_for(lambda r: len(delivered(r, "/kill")) >= 2)
    names = [r.json["data"]["season"]["name"] for r in delivered(got, "/kill")]
    assert names == ["Before", "While down"]
    assert delivered(got, "/kill")[0].json["id"] == first.json["id"]  # the same delivery


def delivered(received: list[Received], path: str) -> list[Received]:
    return [r for r in received if r.path == path and r.answered == 200]
