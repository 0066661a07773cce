"""The web pages from the bot process (SPEC 11.1): `[web] enabled = true`, `/admin settings
web:True` shows the guild at once, `/admin web` gives its address, web:False hides it."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.fakediscord import GUILD_ID, FakeDiscord, Member
from tests.app.harness import MOD, BotProcess, serving, write_config

PUBLIC_URL = "https://ladder.example.org"
FIRST, SECOND = Member(6_000_001, "web1"), Member(6_000_002, "web2")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, FIRST, SECOND]))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture(scope="module")
def web_bot(
    fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[BotProcess, int]]:
    port = _free_port()
    config = write_config(tmp_path_factory.mktemp("webbot"))
    with config.open("a", encoding="utf-8") as text:
        text.write(f'[web]\nenabled = true\nport = {port}\npublic_url = "{PUBLIC_URL}/"\n')
    process = BotProcess(fake, config)
    try:
        process.start()
        yield process, port
    finally:
        process.stop()


def _status(address: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(address, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_bot_serves_a_guild_once_shown_and_hides_it_at_once(
    fake: FakeDiscord, web_bot: tuple[BotProcess, int]
) -> None:
    bot, port = web_bot
    fake.slash(MOD, "report duel", winner=FIRST, loser=SECOND).reply()
    board = f"http://127.0.0.1:{port}/api/v1/guilds/{GUILD_ID}/leaderboard"
    unknown = f"http://127.0.0.1:{port}/api/v1/guilds/{GUILD_ID + 1}/leaderboard"
    hidden = _status(board)
    assert hidden[0] == 404 and hidden == _status(unknown)
    shown = fake.slash(MOD, "admin settings", web=True).reply()
    assert shown.ephemeral is False  # a settings change is answered in the channel
    assert any("web" in str(embed) for embed in shown.embeds)
    status, body = _status(board)
    assert status == 200
    assert FIRST.id in [row["user_id"] for row in json.loads(body)["rows"]]
    address = fake.slash(MOD, "admin web").reply()
    assert address.ephemeral
    assert f"<{PUBLIC_URL}/g/{GUILD_ID}>" in (address.content or "")
    assert "/admin settings web:False hides" in (address.content or "")
    page = _status(f"http://127.0.0.1:{port}/g/{GUILD_ID}")
    assert page[0] == 200 and b"<bdi>Fake Guild</bdi>" in page[1]  # the bot stored its name
    fake.slash(MOD, "admin settings", web=False).reply()
    assert _status(board) == hidden
    bot.assert_alive()


def test_embeds_link_to_their_page_while_the_guild_is_shown(
    fake: FakeDiscord, web_bot: tuple[BotProcess, int]
) -> None:
    """Issue 23 finding 10: with public_url set, the leaderboard, card and match embeds of a
    shown guild link (embed url) to their web page; a hidden guild's link nowhere."""
    reported = fake.slash(MOD, "report duel", winner=SECOND, loser=FIRST).reply()
    match_id = int(reported.embeds[0]["title"].removeprefix("Match #"))
    asked: dict[str, tuple[tuple[str], dict[str, Any], str]] = {
        "leaderboard": (("leaderboard",), {"by": "p3"}, f"/g/{GUILD_ID}?by=p3"),
        "rating": (("rating",), {"member": FIRST}, f"/g/{GUILD_ID}/players/{FIRST.id}"),
        "match": (("match show",), {"id": match_id}, f"/g/{GUILD_ID}/matches/{match_id}"),
    }
    hidden = {
        name: fake.slash(MOD, *command, **options).reply().embeds[0].get("url")
        for name, (command, options, _) in asked.items()
    }
    assert hidden == dict.fromkeys(asked)
    fake.slash(MOD, "admin settings", web=True).reply()
    try:
        for command, options, path in asked.values():
            embed = fake.slash(MOD, *command, **options).reply().embeds[0]
            assert embed.get("url") == PUBLIC_URL + path, (command, embed)
    finally:
        fake.slash(MOD, "admin settings", web=False).reply()
