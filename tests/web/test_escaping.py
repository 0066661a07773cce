"""Every text that came from a user is shown as text (SPEC 11.2): member and guest names
with markup, quotes and Markdown, a void reason with tags."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Final

from markupsafe import escape

from bot.services import MemberInfo, Services, parse_lineup
from tests.web.conftest import Client
from tests.web.data import (
    GUEST_NAME,
    GUILD,
    MARKDOWN_NAME,
    MOD,
    NAMES,
    QUOTED_NAME,
    SCRIPT_NAME,
)

OVERRIDE: Final = "\u202e"
VOID_TAGS: Final = frozenset({"meta", "link", "br", "img", "input", "line", "circle", "polyline"})

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


class _Isolation(HTMLParser):
    """Collects each text run holding a right-to-left override with the tags it is in."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.found: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID_TAGS:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        if OVERRIDE in data:
            self.found.append((data, list(self.open)))


async def test_a_right_to_left_override_in_a_name_reverses_nothing_else(
    client: Client, services: Services
) -> None:
    """Issue 24 finding 7: U+202E in a name stays inside it (<bdi>, or FSI…PDI in a title)."""
    name = f"{OVERRIDE}evil"
    members = [MemberInfo(41, name), MemberInfo(42, "Plain")]
    played = await services.matches.report(
        GUILD, MOD, parse_lineup("<@41> 24 | <@42> 39"), request_id="rlo", members=members
    )
    pages = {
        "board": f"/g/{GUILD}",
        "matches": f"/g/{GUILD}/matches",
        "match": f"/g/{GUILD}/matches/{played.match.id}",
        "player": f"/g/{GUILD}/players/41",
    }
    for page, address in pages.items():
        text = await _page(client, address)
        runs = _Isolation()
        runs.feed(text)
        assert runs.found, page
        for data, tags in runs.found:
            starts, ends = data.find("\u2068"), data.find("\u2069")  # FSI, PDI
            isolated = tags[-1] == "title" and 0 <= starts < data.find(OVERRIDE) < ends
            assert isolated or (tags[-1] == "bdi" and data.startswith(OVERRIDE)), (page, data)
