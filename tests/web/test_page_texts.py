"""Issue 23 finding 10 (SPEC 11.2): every page names the server, the leaderboard explains
each measure in a line of visible text, and the 404 of a hidden or unknown server says how a
moderator publishes one."""

from __future__ import annotations

import html
import re

from bot.services import Services
from tests.web.conftest import Client
from tests.web.data import GUILD, HIDDEN, UNKNOWN

SERVER_NAME = "Chess <Club> \u202e"


def _visible(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", page)).split())


async def test_every_page_names_the_server_once_the_bot_has_seen_it(
    client: Client, services: Services
) -> None:
    before = await (await client.get(f"/g/{GUILD}")).text()
    assert f"Server {GUILD}" in _visible(before)
    assert await services.settings.learn_guild_name(GUILD, SERVER_NAME)
    assert not await services.settings.learn_guild_name(UNKNOWN, "Nobody")  # nothing stored
    for address in ["", "/matches", "/matches/1", "/players/1", "?by=p3"]:
        page = await (await client.get(f"/g/{GUILD}{address}")).text()
        assert f"<bdi>{html.escape(SERVER_NAME, quote=False)}</bdi>" in page, address
        assert f"\u2068{html.escape(SERVER_NAME, quote=False)}\u2069</title>" in page, address


async def test_the_leaderboard_explains_each_measure_in_one_line(client: Client) -> None:
    text = _visible(await (await client.get(f"/g/{GUILD}?by=ra")).text())
    for measure in ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]:
        assert re.search(rf"\b{measure} performance rating: [^.]+", text), measure
    assert "RA rating accuracy: " in text
    assert "ladder the ladder rating" in text


async def test_the_404_says_how_a_moderator_publishes_a_server(client: Client) -> None:
    hidden = await client.get(f"/g/{HIDDEN}")
    unknown = await client.get(f"/g/{UNKNOWN}")
    assert hidden.status == unknown.status == 404
    body = await hidden.text()
    assert body == await unknown.text()
    assert "a moderator publishes them with /admin settings web:True" in _visible(body)
    missing_member = await (await client.get(f"/g/{GUILD}/players/999999")).text()
    assert "/admin settings web:True" not in missing_member  # the server is published
