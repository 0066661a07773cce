"""Webhook delivery (SPEC 14) to a real HTTP receiver on 127.0.0.1, with short waits: every
event once and in order, signed, in the API's shapes; the faults (receiver down, 500, 410,
slow, redirect, given up after the retry window) and the address check at delivery."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.app.cogs.community import modlog_line
from bot.app.webhook_posts import HttpPoster
from bot.config import GuildSettings
from bot.present.language import words
from bot.services import Actor, MemberInfo, ServiceContext, Services
from bot.services.changes import Change
from bot.services.delivery import Timing, WebhookDelivery
from bot.services.errors import Notice
from bot.services.events import EVENTS
from bot.services.lineup import parse_lineup
from bot.services.shapes import match_object
from bot.storage import Database
from bot.storage.queues import QueueSettings
from tests.webhook_receiver import Received, Receiver

GUILD = 31
MOD = Actor(900, is_moderator=True)
FAST = Timing(timeout=0.5, first_wait=0.05, max_wait=0.2, poll_seconds=0.5)


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    found = Receiver(slow_seconds=2.0).start()
    yield found
    found.close()


@pytest.fixture
def fresh(receiver: Receiver) -> Receiver:
    receiver.received.clear()
    receiver.plans.clear()
    return receiver


class Told:
    """The changes the services report (the mod log's share among them)."""

    def __init__(self) -> None:
        self.changes: list[Change] = []

    def __call__(self, change: Change) -> None:
        self.changes.append(change)


@pytest.fixture
async def setup(tmp_path: Path) -> AsyncIterator[tuple[Services, WebhookDelivery, Told]]:
    told = Told()
    db = await Database.open(tmp_path / "hooks.sqlite3")
    services = Services.build(
        ServiceContext(db, GuildSettings(confirm="opponent"), on_change=told), allow_private=True
    )
    delivery = WebhookDelivery(services.context, HttpPoster, allow_private=True, timing=FAST)
    await delivery.start()
    yield services, delivery, told
    await delivery.stop()
    await services.close()


async def deliver(delivery: WebhookDelivery) -> None:
    """Let the delivery catch up with what was written, and finish it."""
    delivery.wake(GUILD)
    await asyncio.sleep(0)
    async with asyncio.timeout(30):
        await delivery.catch_up(GUILD)
        await delivery.idle()


def bodies(received: list[Received]) -> list[tuple[str, str]]:
    return [(r.json["event"], r.json["id"]) for r in received]


async def every_event(services: Services) -> int:
    """Changes that send each event of SPEC 14 once, in the order of EVENTS; the match."""
    members = [MemberInfo(user_id, f"p{user_id}") for user_id in (1, 2, 3, 4)]
    report = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 10 | <@2> 5"), request_id="a", members=members
    )
    match_id = report.match.id
    await services.matches.confirm(GUILD, Actor(2), match_id)
    second = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 3 | <@2> 5"), request_id="b"
    )
    await services.matches.dispute(GUILD, Actor(2), second.match.id)
    await services.matches.edit(GUILD, MOD, match_id, parse_lineup("<@1> 7 | <@2> 5"))
    await services.matches.void(GUILD, MOD, second.match.id, "test")
    queue = await services.queues.create_queue(
        GUILD, MOD, QueueSettings("duo", 50, 2, ready_seconds=0), pick_order_given=False
    )
    await services.queues.join(GUILD, members[2], queue_id=queue.queue_id)
    await services.queues.leave(GUILD, 3)
    await services.queues.join(GUILD, members[2], queue_id=queue.queue_id)
    popped = await services.queues.join(GUILD, members[3], queue_id=queue.queue_id)
    await services.queues.cancel(GUILD, MOD, popped.lobbies[0].lobby_id)
    await services.seasons.start(GUILD, MOD, "Spring")
    return match_id


ORDER = [
    "match.reported", "match.applied", "match.reported", "match.disputed", "match.edited",
    "match.voided", "queue.joined", "queue.left", "queue.joined", "queue.joined",
    "lobby.popped", "lobby.teams", "lobby.closed", "season.started",
]  # fmt: skip


async def test_every_event_arrives_once_in_order_signed_in_the_api_shapes(
    setup: tuple[Services, WebhookDelivery, Told], fresh: Receiver
) -> None:
    services, delivery, _ = setup
    added = await services.webhooks.add(GUILD, MOD, fresh.url("/all"))
    picky = await services.webhooks.add(GUILD, MOD, fresh.url("/few"), "lobby.teams,match.edited")
    edited_id = await every_event(services)
    await deliver(delivery)
    got = fresh.wait_for(lambda r: len(r) >= len(ORDER) + 2)
    assert set(ORDER) == set(EVENTS)
    assert fresh.events("/all") == ORDER
    assert fresh.events("/few") == ["match.edited", "lobby.teams"]
    assert all(r.signed_by(added.secret) for r in got if r.path == "/all")
    assert all(r.signed_by(picky.secret) and not r.signed_by(added.secret)
               for r in got if r.path == "/few")  # fmt: skip
    assert len({r.json["id"] for r in got}) == len(got)  # once each
    by_event = {r.json["event"]: r.json for r in got if r.path == "/all"}
    edited = by_event["match.edited"]["data"]["match"]
    shown = await services.matches.show(GUILD, edited_id)
    assert edited == match_object(shown, await services.matches.edits(GUILD, edited_id))
    assert by_event["season.started"]["data"]["season"]["name"] == "Spring"
    assert by_event["queue.left"]["data"]["member"]["user_id"] == 3
    assert by_event["queue.left"]["data"]["reason"] == "left"
    lobby = by_event["lobby.teams"]["data"]["lobby"]
    assert {p["team"] for p in lobby["players"]} == {"A", "B"}
    assert by_event["lobby.closed"]["data"]["lobby"]["state"] == "cancelled"
    first = got[0]
    assert first.headers["X-Ladderbot-Event"] == "match.reported"
    assert set(first.json) == {"id", "event", "guild_id", "at", "data"}
    assert first.json["guild_id"] == GUILD
    listed = {w.webhook_id: w for w in await services.webhooks.list(GUILD)}
    assert listed[added.webhook.webhook_id].last_status == "200"
    assert listed[added.webhook.webhook_id].waiting == 0


async def test_receiver_down_for_a_while_then_everything_in_order(
    setup: tuple[Services, WebhookDelivery, Told], fresh: Receiver
) -> None:
    services, delivery, _ = setup
    await services.webhooks.add(GUILD, MOD, fresh.url("/down"))
    fresh.stop()
    try:
        for number in range(3):
            await services.seasons.start(GUILD, MOD, f"S{number}")
        delivery.wake(GUILD)
        async with asyncio.timeout(30):
            while True:  # until a try failed against the closed port
                (hook,) = await services.webhooks.list(GUILD)
                if hook.last_status is not None:
                    break
                await asyncio.sleep(0.02)
        assert hook.last_status.startswith("failed") and hook.waiting == 3
    finally:
        fresh.start()
    await deliver(delivery)
    got = fresh.delivered("/down")
    assert [r.json["data"]["season"]["name"] for r in got] == ["S0", "S1", "S2"]


async def test_500_then_200_410_slow_and_redirect(
    setup: tuple[Services, WebhookDelivery, Told], fresh: Receiver
) -> None:
    services, delivery, told = setup
    fresh.plans.update(
        {"/flaky": [500, 503], "/gone": [410], "/slow": ["slow"], "/moved": ["redirect"]}
    )
    for path in ("/flaky", "/gone", "/slow", "/moved"):
        await services.webhooks.add(GUILD, MOD, fresh.url(path), "season.started")
    await services.seasons.start(GUILD, MOD, "One")
    await services.seasons.start(GUILD, MOD, "Two")
    await deliver(delivery)
    for path in ("/flaky", "/slow", "/moved"):
        tries = [r for r in fresh.received if r.path == path]
        assert len(tries) >= 3, path  # retried …
        assert bodies(fresh.delivered(path)) == bodies(tries[-2:])  # … both in order, once
        assert tries[0].json["id"] == tries[1].json["id"]  # a repeat carries the same id
        assert [r.json["data"]["season"]["name"] for r in tries[-2:]] == ["One", "Two"]
    assert [r.answered for r in fresh.received if r.path == "/flaky"][:3] == [500, 503, 200]
    assert not [r for r in fresh.received if r.path == "/elsewhere"]  # not followed
    assert [r.answered for r in fresh.received if r.path == "/gone"] == [410]
    remaining = await services.webhooks.list(GUILD)
    assert [w.url for w in remaining] == [fresh.url(p) for p in ("/flaky", "/slow", "/moved")]
    (dropped,) = [c for c in told.changes if c.kind == "webhook_dropped"]
    assert modlog_line(dropped) == (
        f"Webhooks: webhook #2 ({fresh.url('/gone')}) answered 410 Gone and was removed."
    )
    assert modlog_line(dropped, words("fr")) == (
        f"Webhooks : le webhook n°2 ({fresh.url('/gone')}) a répondu 410 Gone et a été retiré."
    )


async def test_given_up_after_the_window_and_the_mod_log_told(
    setup: tuple[Services, WebhookDelivery, Told], fresh: Receiver
) -> None:
    services, delivery, told = setup
    delivery.timing = Timing(timeout=0.5, first_wait=0.05, max_wait=0.1, give_up_after=0.3)
    fresh.plans["/broken"] = [500] * 100
    await services.webhooks.add(GUILD, MOD, fresh.url("/broken"), "season.started")
    await services.seasons.start(GUILD, MOD, "Lost")
    await deliver(delivery)
    assert fresh.delivered("/broken") == []
    (hook,) = await services.webhooks.list(GUILD)
    assert hook.waiting == 0 and hook.last_status == "500"
    (dropped,) = [c for c in told.changes if c.kind == "webhook_dropped"]
    detail = str(Notice.load(dropped.detail))
    assert "dropped season.started" in detail and "after 1 sec of failures (last: 500)" in detail
    fresh.plans["/broken"] = []
    await services.seasons.start(GUILD, MOD, "Found")  # the next one still goes
    await deliver(delivery)
    assert [r.json["data"]["season"]["name"] for r in fresh.delivered("/broken")] == ["Found"]


@pytest.fixture
async def rebound(tmp_path: Path, fresh: Receiver) -> AsyncIterator[tuple[Services, list[str]]]:
    """A webhook added while its host resolved to a public address, which now resolves to
    127.0.0.1 (DNS changed after the add), and a season started since, whose delivery is
    being tried: the services, and the hosts looked up since the change."""
    addresses = {"hooks.example.org": ["93.184.216.34"]}
    looked_up: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        return addresses[host]

    db = await Database.open(tmp_path / "dns.sqlite3")
    services = Services.build(ServiceContext(db, GuildSettings()), resolve=resolve)
    delivery = WebhookDelivery(services.context, HttpPoster, resolve=resolve, timing=FAST)
    await delivery.start()
    try:
        await services.webhooks.add(GUILD, MOD, f"https://hooks.example.org:{fresh.port}/dns")
        addresses["hooks.example.org"] = ["127.0.0.1"]
        looked_up.clear()
        await services.seasons.start(GUILD, MOD, "Rebound")
        delivery.wake(GUILD)
        yield services, looked_up
    finally:
        async with asyncio.timeout(10):
            await delivery.stop()
        await services.close()


async def test_a_name_that_now_resolves_to_a_private_address_is_refused_at_delivery(
    rebound: tuple[Services, list[str]], fresh: Receiver
) -> None:
    services, _ = rebound
    async with asyncio.timeout(30):
        while not (await services.webhooks.list(GUILD))[0].last_status:
            await asyncio.sleep(0.02)
    (hook,) = await services.webhooks.list(GUILD)
    assert hook.last_status == (
        "refused: webhooks only go to public addresses: "
        "hooks.example.org → 127.0.0.1 is a loopback address"
    )
    assert hook.waiting == 1 and fresh.received == []


async def test_a_refused_delivery_waits_for_its_next_try(
    rebound: tuple[Services, list[str]], fresh: Receiver
) -> None:
    """A delivery refused at the address check is tried again after its retry wait, like
    one that failed: not at once over and over, the worker spinning on the database (and,
    cancelled at a stop mid-write, not stopping)."""
    _, looked_up = rebound
    await asyncio.sleep(1.0)
    # FAST waits 0.05 s after the first refusal, doubling to at most 0.2 s: about 7 tries in
    # the second
    assert 2 <= len(looked_up) <= 12, len(looked_up)
    assert fresh.received == []


async def test_a_webhook_removed_while_its_events_go_out_gets_no_more_of_them(
    setup: tuple[Services, WebhookDelivery, Told], fresh: Receiver
) -> None:
    services, delivery, _ = setup
    fresh.plans["/removed"] = ["pause"] * 60
    await services.webhooks.add(GUILD, MOD, fresh.url("/removed"), "season.started")
    for _ in range(60):
        await services.webhooks.test(GUILD, MOD, 1)
    delivery.wake(GUILD)
    await fresh.wait_async(lambda received: len(received) >= 3)
    await services.webhooks.remove(GUILD, MOD, 1)
    await deliver(delivery)
    assert 3 <= len(fresh.received) < 20  # at most ACK_SECONDS of them after the removal
    assert await services.context.db.read.waiting_webhooks(GUILD) == []
