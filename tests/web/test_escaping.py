"""Every text that came from a user is shown as text (SPEC 11.2): member and guest names
with markup, quotes and Markdown, a void reason with tags."""

from __future__ import annotations

import html
import re

from markupsafe import escape

from tests.web.conftest import Client
from tests.web.data import GUEST_NAME, GUILD, MARKDOWN_NAME, NAMES, QUOTED_NAME, SCRIPT_NAME

RAW = [SCRIPT_NAME, QUOTED_NAME, GUEST_NAME, "<b>twice</b>"]


async def _page(client: Client, address: str) -> str:
    response = await client.get(address)
    assert response.status == 200, address
    return await response.text()


def _as_text(page: str) -> str:
    """What a reader sees: the page's text without its tags, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", page))


async def test_names_are_escaped_on_every_page(client: Client) -> None:
    listed = await (await client.get(f"/api/v1/guilds/{GUILD}/matches?limit=100")).json()
    void = next(m for m in listed["matches"] if m["status"] == "void")["id"]
    guest = next(
        m["id"]
        for m in listed["matches"]
        if any(p["guest"] == GUEST_NAME for p in m["participants"])
    )
    pages = {
        "board": await _page(client, f"/g/{GUILD}"),
        "closed": await _page(client, f"/g/{GUILD}?season=first"),
        "matches": await _page(client, f"/g/{GUILD}/matches?limit=100"),
        "guest": await _page(client, f"/g/{GUILD}/matches/{guest}"),
        "void": await _page(client, f"/g/{GUILD}/matches/{void}"),
        **{str(u): await _page(client, f"/g/{GUILD}/players/{u}") for u in NAMES},
    }
    for name, page in pages.items():
        assert "<script" not in page, name
        for raw in RAW:
            assert raw not in page, (name, raw)
    assert str(escape(SCRIPT_NAME)) in pages["board"]
    assert SCRIPT_NAME in _as_text(pages["board"])
    assert QUOTED_NAME in _as_text(pages["2"])
    assert MARKDOWN_NAME in _as_text(pages["3"])  # Markdown is not rendered: shown as typed
    assert "<strong>" not in pages["3"] and "<em>" not in pages["3"]
    assert GUEST_NAME in _as_text(pages["guest"])
    assert "reported by mistake <b>twice</b>" in _as_text(pages["void"])


async def test_the_api_gives_names_as_they_are(client: Client) -> None:
    board = await (await client.get(f"/api/v1/guilds/{GUILD}/leaderboard")).json()
    assert {row["user_id"]: row["name"] for row in board["rows"]}.items() <= NAMES.items()
    card = await (await client.get(f"/api/v1/guilds/{GUILD}/members/1")).json()
    assert card["name"] == SCRIPT_NAME
