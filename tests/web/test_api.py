"""The web application's answers (SPEC 11): addresses, parameters, 404s, ETags, methods and
headers, on both engines."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient, TestServer
from markupsafe import escape

from bot.services import Services
from bot.web import create_app, reading
from bot.web.app import CACHE_SECONDS, SECURITY_HEADERS
from bot.web.openapi import openapi_document
from tests.web.data import GUILD, HIDDEN, MOD, UNKNOWN, report

Client = TestClient[web.Request, web.Application]
GUILD_ADDRESSES = [
    "/api/v1/guilds/{g}/leaderboard",
    "/api/v1/guilds/{g}/leaderboard?by=p8&page=1",
    "/api/v1/guilds/{g}/leaderboard?season=first",
    "/api/v1/guilds/{g}/members/1",
    "/api/v1/guilds/{g}/members/1?variant=p3",
    "/api/v1/guilds/{g}/matches",
    "/api/v1/guilds/{g}/matches?before=5&limit=2",
    "/api/v1/guilds/{g}/matches/1",
    "/api/v1/guilds/{g}/seasons",
    "/g/{g}",
    "/g/{g}?by=ra",
    "/g/{g}?season=first",
    "/g/{g}/players/1",
    "/g/{g}/matches",
    "/g/{g}/matches/1",
]


def _headers_but_date(response: ClientResponse) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k not in ("Date",)}


def _security_headers_on(response: ClientResponse) -> None:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    assert "script-src" not in response.headers["Content-Security-Policy"]
    assert response.headers["Content-Security-Policy"].endswith("; frame-ancestors 'none'")
    cors = response.headers.get("Access-Control-Allow-Origin")
    assert cors == ("*" if response.url.path.startswith("/api/") else None)


async def test_the_pages_may_be_embedded_by_the_configured_origins(services: Services) -> None:
    """Issue 23 finding 10: [web] frame_ancestors names who may embed the pages."""
    app = create_app(services, frame_ancestors=("https://club.example.org", "https://*.b.org"))
    async with TestClient(TestServer(app)) as client:
        response = await client.get(f"/g/{GUILD}")
        policy = response.headers["Content-Security-Policy"]
        assert policy.endswith("; frame-ancestors https://club.example.org https://*.b.org")


async def test_a_shown_guild_answers_every_address(client: Client) -> None:
    for address in GUILD_ADDRESSES:
        response = await client.get(address.format(g=GUILD))
        assert response.status == 200, (address, await response.text())
        api = address.startswith("/api/")
        assert response.content_type == ("application/json" if api else "text/html")
        assert response.headers["ETag"].startswith('"')
        assert response.headers["Cache-Control"] == f"public, max-age={CACHE_SECONDS}"
        _security_headers_on(response)
        if api:
            json.loads(await response.text(), parse_constant=_no_constant)
        else:
            assert "<script" not in (await response.text()).replace("&lt;script", "")


def _no_constant(name: str) -> None:
    raise AssertionError(f"{name} is not JSON")


async def test_hidden_and_unknown_guilds_answer_the_same_404(client: Client) -> None:
    for address in GUILD_ADDRESSES:
        hidden = await client.get(address.format(g=HIDDEN))
        unknown = await client.get(address.format(g=UNKNOWN))
        assert hidden.status == unknown.status == 404, address
        assert await hidden.read() == await unknown.read()
        assert _headers_but_date(hidden) == _headers_but_date(unknown)
        assert "ETag" not in hidden.headers
        _security_headers_on(hidden)


async def test_turning_web_off_hides_the_guild_at_once(client: Client, services: Services) -> None:
    address = f"/api/v1/guilds/{GUILD}/leaderboard"
    assert (await client.get(address)).status == 200
    await services.settings.change(GUILD, MOD, {"web": False})
    hidden = await client.get(address)
    unknown = await client.get(f"/api/v1/guilds/{UNKNOWN}/leaderboard")
    assert hidden.status == 404 and await hidden.read() == await unknown.read()
    assert (await client.get(f"/g/{GUILD}")).status == 404
    await services.settings.change(GUILD, MOD, {"web": True})
    assert (await client.get(address)).status == 200


async def test_if_none_match_answers_304_until_the_guild_changes(
    client: Client, services: Services
) -> None:
    for address in (f"/api/v1/guilds/{GUILD}/leaderboard", f"/g/{GUILD}/matches"):
        first = await client.get(address)
        tag = first.headers["ETag"]
        again = await client.get(address, headers={"If-None-Match": tag})
        assert again.status == 304 and again.headers["ETag"] == tag
        assert await again.read() == b""
        weak = await client.get(address, headers={"If-None-Match": f'"other", W/{tag}'})
        assert weak.status == 304
    board = f"/api/v1/guilds/{GUILD}/leaderboard"
    listed = f"/g/{GUILD}/matches"
    tags = {a: (await client.get(a)).headers["ETag"] for a in (board, listed)}
    await report(services, GUILD, "<@6> 1 | <@1> 0", 50)  # a pending report: the list changes
    assert (await client.get(listed, headers={"If-None-Match": tags[listed]})).status == 200
    await report(services, GUILD, "<@4> 1 | <@1> 0", 51, MOD)  # applied: the standings change
    changed = await client.get(board, headers={"If-None-Match": tags[board]})
    assert changed.status == 200 and changed.headers["ETag"] != tags[board]


async def test_head_answers_the_headers_of_get(client: Client) -> None:
    address = f"/api/v1/guilds/{GUILD}/leaderboard"
    got, head = await client.get(address), await client.head(address)
    assert head.status == 200 and await head.read() == b""
    assert head.headers["ETag"] == got.headers["ETag"]


BAD_PARAMETERS: Final = [
    ("/api/v1/guilds/{g}/leaderboard?by=elo", "by 'elo' must be one of ladder, p1"),
    ("/api/v1/guilds/{g}/leaderboard?page=0", "page '0' must be a whole number from 1"),
    ("/api/v1/guilds/{g}/leaderboard?page=x", "page 'x' must be a whole number"),
    ("/api/v1/guilds/{g}/leaderboard?page=1&page=2", "page is given 2 times"),
    ("/api/v1/guilds/{g}/members/0", "user id '0' must be"),
    ("/api/v1/guilds/{g}/members/1?variant=p9", "variant 'p9' must be one of p1"),
    ("/api/v1/guilds/{g}/matches?before=0", "before '0' must be a whole number from 1"),
    ("/api/v1/guilds/{g}/matches?limit=101", "limit '101' must be a whole number from 1"),
    ("/api/v1/guilds/{g}/matches/99999999999999999999", "match id '99999999999999999999'"),
    ("/api/v1/guilds/abc/seasons", "guild id 'abc' must be"),
    ("/api/v1/guilds/%C2%B2/seasons", "guild id '²' must be"),
]


async def test_a_bad_parameter_is_a_400_naming_it(client: Client) -> None:
    for address, words in BAD_PARAMETERS:
        response = await client.get(address.format(g=GUILD))
        assert response.status == 400, address
        found: dict[str, Any] = await response.json()
        assert list(found) == ["error"] and words in found["error"], found
        assert "\n" not in found["error"]


async def test_bad_page_parameters_are_a_400_page(client: Client) -> None:
    response = await client.get(f"/g/{GUILD}?by=%3Cscript%3E")
    assert response.status == 400 and response.content_type == "text/html"
    text = await response.text()
    assert "by &#39;&lt;script&gt;&#39; must be one of" in text and "<script>" not in text


async def test_standings_a_guild_does_not_have_are_404_saying_why(client: Client) -> None:
    for address, words in [
        ("/api/v1/guilds/{g}/leaderboard?page=9", "page 9 must be from 1 to 1"),
        ("/api/v1/guilds/{g}/leaderboard?season=winter", "season 'winter' must be one of"),
        ("/api/v1/guilds/{g}/leaderboard?season=first&by=p8", "rank by ladder only"),
    ]:
        response = await client.get(address.format(g=GUILD))
        assert response.status == 404
        assert words in (await response.json())["error"]
        page = await client.get(
            address.format(g=GUILD).replace("/api/v1/guilds/", "/g/").replace("/leaderboard", "")
        )
        assert page.status == 404
        assert str(escape(words)) in await page.text()


async def test_unknown_members_matches_and_addresses_are_404(client: Client) -> None:
    for address in [
        "/api/v1/guilds/{g}/members/123456",
        "/api/v1/guilds/{g}/matches/123456",
        "/g/{g}/players/123456",
        "/g/{g}/matches/123456",
        "/api/v1/guilds/{g}/nothing",
        "/nothing",
    ]:
        response = await client.get(address.format(g=GUILD))
        assert response.status == 404, address
        if address.startswith("/api/"):
            assert list(await response.json()) == ["error"]


async def test_only_get_and_head_are_served(client: Client) -> None:
    for method in ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"]:
        for address in ["/api/v1/guilds/{g}/leaderboard", "/g/{g}", "/api/v1/openapi.json", "/x"]:
            response = await client.request(method, address.format(g=GUILD))
            assert response.status == 405, (method, address)
            assert response.headers["Allow"] == "GET, HEAD"
            _security_headers_on(response)
            if address.startswith("/api/"):
                assert "is not served" in (await response.json())["error"]


async def test_the_openapi_document_describes_every_api_route(client: Client) -> None:
    app = client.app
    assert app is not None
    routes = {
        resource.canonical
        for resource in app.router.resources()
        if resource.canonical.startswith("/api/v1/guilds/")
    }
    described = await (await client.get("/api/v1/openapi.json")).json()
    assert described == openapi_document()
    assert set(described["paths"]) == routes
    assert described["openapi"].startswith("3.1")


async def test_the_matches_list_pages_by_id(client: Client) -> None:
    seen: list[int] = []
    address = f"/api/v1/guilds/{GUILD}/matches?limit=3"
    while True:
        page = await (await client.get(address)).json()
        seen.extend(match["id"] for match in page["matches"])
        if page["next_before"] is None:
            break
        address = f"/api/v1/guilds/{GUILD}/matches?limit=3&before={page['next_before']}"
    assert seen == sorted(seen, reverse=True) and len(seen) == len(set(seen)) == 13


async def test_a_closed_seasons_standings(client: Client) -> None:
    board = await (await client.get(f"/api/v1/guilds/{GUILD}/leaderboard?season=first")).json()
    assert board["season"] == "first" and board["rows"]
    seasons = await (await client.get(f"/api/v1/guilds/{GUILD}/seasons")).json()
    assert [s["name"] for s in seasons["seasons"]] == ["first", "spring"]
    assert [s["current"] for s in seasons["seasons"]] == [False, True]


async def test_every_page_is_cut_from_the_board_of_the_guilds_stamp(
    client: Client, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pages of a board share one read of the whole board per stamp: together they are
    the service's whole board, and after a change every page shows the new standings."""
    monkeypatch.setattr(reading, "PAGE_SIZE", 2)
    board = f"/api/v1/guilds/{GUILD}/leaderboard"

    async def every_page() -> list[tuple[int, int, float]]:
        first = await (await client.get(board)).json()
        rows = []
        for page in range(1, first["pages"] + 1):
            found = await (await client.get(f"{board}?page={page}")).json()
            assert (found["page"], found["pages"], found["page_size"]) == (page, first["pages"], 2)
            rows += [(row["rank"], row["user_id"], row["rating"]) for row in found["rows"]]
        past = await client.get(f"{board}?page={first['pages'] + 1}")
        assert past.status == 404
        assert f"the leaderboard has {first['pages']} pages" in (await past.json())["error"]
        return rows

    async def whole() -> list[tuple[int, int, float]]:
        found = await services.standings.leaderboard(GUILD, "ladder", 1, 0)
        return [(row.rank, row.user_id, row.rating) for row in found.rows]

    before = await every_page()
    assert before == await whole() and len(before) > 2
    await report(services, GUILD, "<@4> 1 | <@1> 0", 52, MOD)  # applied: the standings change
    after = await every_page()
    assert after == await whole() and after != before


async def test_finding_7_the_members_chart_ends_at_the_rating_its_season_start_carried(
    client: Client,
) -> None:
    """Issue 23 finding 7: member 3 last played before the season start of carry 0.5 (a
    later match of theirs is void): the series ends with the start, at the card's rating;
    the player page marks the start on its chart."""
    card = await (await client.get(f"/api/v1/guilds/{GUILD}/members/3")).json()
    chart = card["chart"]
    assert chart[-1]["match_id"] is None and chart[-1]["rating"] == card["rating"]
    assert all(point["match_id"] is not None for point in chart[:-1])
    assert chart[-2]["rating"] != card["rating"]
    times = [datetime.fromisoformat(point["at"]) for point in chart]
    assert times == sorted(times)
    page = await (await client.get(f"/g/{GUILD}/players/3")).text()
    assert page.count('class="season-start"') == 1 and "1 season start" in page


async def test_finding_8_infinite_performance_is_plus_or_minus_inf_in_json_and_pages(
    client: Client, services: Services
) -> None:
    """Issue 23 finding 8: p1 after only wins / only losses is "+inf" / "-inf" in the API
    (finite values stay numbers) and on the pages, not null or a dash."""
    await report(services, UNKNOWN, "<@1> 1 | <@2> 0", 50)
    await report(services, UNKNOWN, "<@1> 2 | <@3> 0", 51)
    await services.settings.change(UNKNOWN, MOD, {"web": True, "variant": "p1"})
    board = await (await client.get(f"/api/v1/guilds/{UNKNOWN}/leaderboard?by=p1")).json()
    assert [row["value"] for row in board["rows"]] == ["+inf", "-inf", "-inf"]
    finite = await (await client.get(f"/api/v1/guilds/{GUILD}/leaderboard?by=p1")).json()
    assert all(isinstance(row["value"], float | int) for row in finite["rows"])
    card = await (await client.get(f"/api/v1/guilds/{UNKNOWN}/members/1")).json()
    assert (card["performance"], card["performance_text"]) == ("+inf", "+inf")
    page = await (await client.get(f"/g/{UNKNOWN}?by=p1")).text()
    assert page.count(">+inf<") == 1 and page.count(">-inf<") == 2
    player = await (await client.get(f"/g/{UNKNOWN}/players/2")).text()
    assert "-inf" in player and "undefined" not in player
