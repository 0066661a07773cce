"""The queue tests' shared part (SPEC 10): their players, one fake Discord and one bot
process per test module (the fixtures `fake` and `bot`: import queue_fake and queue_bot
into the module), and the steps through the queue and lobby messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.fakediscord import GENERAL, Event, FakeDiscord, Member, Reply
from tests.app.harness import MOD, ROBOT, BotProcess, running, serving, write_config

PICK_SECONDS = 4.0
PLAYERS = [Member(6_000_000 + number, f"queuer{number}") for number in range(1, 41)]
_unused = iter(PLAYERS)


def take(count: int) -> list[Member]:
    return [next(_unused) for _ in range(count)]


@pytest.fixture(scope="module", name="fake")
def queue_fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, ROBOT, *PLAYERS]))


@pytest.fixture(scope="module", name="bot")
def queue_bot(fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    patch = pytest.MonkeyPatch()
    patch.setenv("LADDERBOT_TEST_PICK_SECONDS", str(PICK_SECONDS))
    try:
        yield from running(BotProcess(fake, write_config(tmp_path_factory.mktemp("queues"))))
    finally:
        patch.undo()


def title(event: Event) -> str:
    embeds = event.payload.get("embeds") or [{}]
    return str(embeds[0].get("title", ""))


def custom_ids(event: Event) -> list[str]:
    return [
        part["custom_id"]
        for row in event.payload.get("components") or []
        for part in row.get("components", [])
    ]


def posted(
    fake: FakeDiscord, starts: str, after: int, timeout: float = 30.0, new: bool = False
) -> Event:
    """The bot's message (posted, or also edited unless `new`) whose embed title starts so."""
    kinds = ("message_create",) if new else ("message_create", "message_edit")
    return fake.wait_for(lambda e: e.kind in kinds and title(e).startswith(starts), timeout, after)


def create(fake: FakeDiscord, name: str, size: int, **options: Any) -> tuple[int, int]:
    """Create a queue; its number and its message's id."""
    mark = fake.mark()
    reply = fake.slash(MOD, "admin queue create", name=name, channel=GENERAL, size=size, **options)
    assert reply.reply().ephemeral
    message = posted(fake, f"Queue {name} — 0/{size}", mark)
    (join, leave) = custom_ids(message)
    assert leave.replace("leave", "join") == join
    return int(join.rsplit(":", 1)[1]), int(message.message_id or 0)


def click(fake: FakeDiscord, user: Member, message_id: int, custom_id: str) -> Reply:
    return fake.click(user, message_id, custom_id).reply()
