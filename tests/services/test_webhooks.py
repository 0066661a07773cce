"""Webhooks on both engines (SPEC 14): the address check, the limits, and the outbox written
by the one write path in the transaction of the change (a rolled-back write has no event)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, ServiceContext, Services, UserError
from bot.services.changes import Change
from bot.services.events import EVENTS
from bot.services.lineup import parse_lineup
from bot.services.shapes import match_object
from bot.services.webhooks import MAX_BODY, _body, checked_target
from bot.storage import Database
from bot.storage.queues import QueueSettings
from tests.services.conftest import Clock

GUILD = 21
MOD = Actor(900, is_moderator=True)
PUBLIC = "93.184.216.34"
ADDRESSES = {"hooks.example.org": [PUBLIC], "inside.example.org": [PUBLIC, "10.1.2.3"]}


async def stub_resolve(host: str, port: int) -> list[str]:
    """DNS for the tests: a name resolves as ADDRESSES says, never through the network."""
    return ADDRESSES[host]


@pytest.fixture
async def services(database: Database, clock: Clock) -> AsyncIterator[Services]:
    yield Services.build(
        ServiceContext(database, GuildSettings(), clock=clock), resolve=stub_resolve
    )


async def outbox(services: Services) -> list[dict[str, Any]]:
    """Every delivery waiting, oldest first, as its body."""
    read = services.context.db.read
    bodies = []
    for guild_id, webhook_id in await read.waiting_webhooks():
        rows = await read._session.all(  # the whole queue, not only its head
            "SELECT body FROM webhook_outbox WHERE guild_id = :g AND webhook_id = :w ORDER BY seq",
            {"g": guild_id, "w": webhook_id},
        )
        bodies += [json.loads(row["body"]) for row in rows]
    return bodies


UNSAFE = [
    ("http://hooks.example.org/in", "must start with https://"),
    ("https://127.0.0.1/in", "127.0.0.1 is a loopback address"),
    ("https://10.0.0.1/in", "10.0.0.1 is a private address"),
    ("https://[::1]/in", "::1 is a loopback address"),
    ("https://169.254.169.254/latest", "169.254.169.254 is a link-local address"),
    ("https://inside.example.org/in", "inside.example.org → 10.1.2.3 is a private address"),
    ("https://[::ffff:127.0.0.1]/in", "is a loopback address"),
    ("https://224.0.0.1/in", "224.0.0.1 is a multicast address"),
    ("https://user:pw@hooks.example.org/", "cannot hold a user name or password"),
    ("not a url", "cannot hold spaces"),
]


async def test_unsafe_urls_are_refused_naming_why() -> None:
    for url, why in UNSAFE:
        with pytest.raises(UserError, match=re.escape(why)):
            await checked_target(url, False, stub_resolve)
    assert (await checked_target("https://hooks.example.org/in", False, stub_resolve)).port == 443


async def test_add_refuses_unsafe_urls_and_changes_nothing(services: Services) -> None:
    before = await services.context.db.read.dump()
    for url, why in UNSAFE:
        with pytest.raises(UserError, match=re.escape(why)):
            await services.webhooks.add(GUILD, MOD, url)
    assert await services.context.db.read.dump() == before
    assert await services.webhooks.list(GUILD) == []


async def test_allow_private_accepts_http_and_loopback(database: Database, clock: Clock) -> None:
    services = Services.build(
        ServiceContext(database, GuildSettings(), clock=clock), allow_private=True
    )
    added = await services.webhooks.add(GUILD, MOD, "http://127.0.0.1:9/in")
    assert added.webhook.url == "http://127.0.0.1:9/in"


async def test_add_list_remove_limits_and_numbers_never_reused(services: Services) -> None:
    with pytest.raises(UserError, match="only moderators"):
        await services.webhooks.add(GUILD, Actor(5), "https://hooks.example.org/a")
    with pytest.raises(UserError, match=re.escape("unknown event 'match.nope'")):
        await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/a", "match.nope")
    first = await services.webhooks.add(
        GUILD, MOD, "https://hooks.example.org/a", " queue.left, match.applied"
    )
    assert first.webhook.webhook_id == 1 and len(first.secret) == 64
    assert first.webhook.events == ("match.applied", "queue.left")
    for n in range(2, 6):
        added = await services.webhooks.add(GUILD, MOD, f"https://hooks.example.org/{n}")
        assert added.webhook.events == EVENTS and added.webhook.webhook_id == n
    with pytest.raises(UserError, match="5 webhooks already"):
        await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/6")
    await services.webhooks.remove(GUILD, MOD, 5)
    again = await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/6")
    assert again.webhook.webhook_id == 6  # 5 is never given again
    listed = await services.webhooks.list(GUILD)
    assert [w.webhook_id for w in listed] == [1, 2, 3, 4, 6]
    with pytest.raises(UserError, match="no webhook #5"):
        await services.webhooks.test(GUILD, MOD, 5)


async def test_events_are_written_with_the_change_as_the_api_shapes_them(
    services: Services, clock: Clock
) -> None:
    await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/all")
    await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/applied", "match.applied")
    members = [MemberInfo(1, "ann"), MemberInfo(2, "bob")]
    report = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 10 | <@2> 5"), request_id="r1", members=members
    )
    assert report.match.status == "pending"
    clock.now += 60
    await services.matches.confirm(GUILD, Actor(2), report.match.id)
    bodies = await outbox(services)
    assert [(b["event"], b["data"]["match"]["status"]) for b in bodies] == [
        ("match.reported", "pending"),  # as it was when it committed, not as it is now
        ("match.applied", "applied"),
        ("match.applied", "applied"),
    ]
    shown = await services.matches.show(GUILD, report.match.id)
    assert bodies[1]["data"] == {"match": match_object(shown)}
    assert bodies[1]["guild_id"] == GUILD and bodies[1]["at"] == "2023-11-14T22:14:20Z"
    assert len({b["id"] for b in bodies}) == 3


async def test_a_rolled_back_write_leaves_no_event(services: Services) -> None:
    await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/all")
    with pytest.raises(RuntimeError):
        async with services.context.write(GUILD) as unit:
            unit.change = Change(GUILD, "season_started", everyone=True)
            assert unit.events  # named, and written before the commit …
            raise RuntimeError("the write fails after its events were named")
    assert await outbox(services) == []  # … but rolled back with it
    with pytest.raises(UserError):  # a refused report: nothing at all
        await services.matches.report(
            GUILD, Actor(7), parse_lineup("<@1> 10 | <@2> 5"), request_id="r2"
        )
    assert await outbox(services) == []
    await services.webhooks.test(GUILD, MOD, 1)
    assert [b["event"] for b in await outbox(services)] == ["webhook.test"]


def test_a_body_over_64_kib_keeps_its_identity_and_says_too_large() -> None:
    small = json.loads(_body("d1", "match.edited", GUILD, 0.0, '{"x": 1}'))
    assert small["data"] == {"x": 1}
    big = json.loads(_body("d1", "match.edited", GUILD, 0.0, json.dumps({"x": "a" * MAX_BODY})))
    assert big["data"] == {"too_large": True}
    assert {key: big[key] for key in ("id", "event", "guild_id")} == {
        "id": "d1",
        "event": "match.edited",
        "guild_id": GUILD,
    }


async def test_queue_events_of_a_dissolved_lobby_a_resize_and_members_taken_out(
    services: Services,
) -> None:
    await services.webhooks.add(GUILD, MOD, "https://hooks.example.org/q")
    queues = services.queues
    settings = QueueSettings("pair", 50, 2, ready_seconds=60)
    queue_id = (await queues.create_queue(GUILD, MOD, settings, pick_order_given=False)).queue_id
    ann, bob, cy, dee, eve, fay = (MemberInfo(n, f"p{n}") for n in range(1, 7))
    await queues.join(GUILD, ann, queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, bob, queue_id=queue_id)).lobbies
    await queues.ready(GUILD, 1, lobby.lobby_id)
    await queues.decline(GUILD, 2, lobby.lobby_id)  # ann goes back to the front
    await queues.join(GUILD, cy, queue_id=queue_id)  # pops ann and cy
    quad = QueueSettings("quad", 50, 4, ready_seconds=60)
    quad_id = (await queues.create_queue(GUILD, MOD, quad, pick_order_given=False)).queue_id
    await queues.join(GUILD, dee, queue_id=quad_id)
    await queues.join(GUILD, eve, queue_id=quad_id)
    await queues.edit_queue(GUILD, MOD, "quad", {"size": 2})  # pops dee and eve
    await queues.join(GUILD, fay, queue_id=quad_id)
    await services.members.leave(GUILD, fay)  # taken out of the queue
    events = [
        (b["event"], b["data"].get("reason"), (b["data"].get("member") or {}).get("user_id"))
        for b in await outbox(services)
    ]
    assert events == [
        ("queue.joined", None, 1),
        ("queue.joined", None, 2),
        ("lobby.popped", None, None),
        ("lobby.closed", None, None),
        ("queue.joined", "back", 1),
        ("queue.joined", None, 3),
        ("lobby.popped", None, None),
        ("queue.joined", None, 4),
        ("queue.joined", None, 5),
        ("lobby.popped", None, None),
        ("queue.joined", None, 6),
        ("queue.left", "removed", 6),
    ]
