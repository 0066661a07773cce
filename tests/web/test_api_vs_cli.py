"""The read API against the command line's `--json` outputs (SPEC 11.3): the same members,
ratings, ranks, matches and seasons, on both engines."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.config import Config
from bot.services import Services
from bot.web import create_app
from tests.test_cli import run
from tests.web.data import GUILD, NAMES, seed

SERVED_ONLY = ("guild_id", "read_at")
"""Fields the API adds to the command line's objects."""


def cli_json(database: str, *command: str) -> Any:
    status, out, err = run(*command, "--guild", str(GUILD), "--db", database, "--json")
    assert (status, err) == (0, ""), err
    return _nan_as_null(json.loads(out))


def _nan_as_null(value: Any) -> Any:
    """The command line prints NaN where the API, strict JSON, says null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _nan_as_null(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_nan_as_null(item) for item in value]
    return value


def _without_served(found: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in found.items() if key not in SERVED_ONLY}


async def _seeded(database: str) -> None:
    async with await Services.open(database, Config()) as services:
        await seed(services)


async def _api(database: str, addresses: list[str]) -> dict[str, Any]:
    services = await Services.open(database, Config(), create=False)
    try:
        async with TestClient(TestServer(create_app(services))) as client:
            found = {}
            for address in addresses:
                response = await client.get(f"/api/v1/guilds/{GUILD}/{address}")
                assert response.status == 200, (address, await response.text())
                found[address] = await response.json()
            return found
    finally:
        await services.close()


def test_the_api_answers_what_the_command_line_prints(database_url: str) -> None:
    asyncio.run(_seeded(database_url))
    matches = cli_json(database_url, "matches")
    measures = ["ladder", "p8", "p1", "ra"]
    addresses = [
        *(f"leaderboard?by={by}" for by in measures),
        "leaderboard?season=first",
        *(f"members/{user_id}" for user_id in NAMES),
        *(f"members/{user_id}?variant=p3" for user_id in NAMES),
        "matches?limit=100",
        *(f"matches/{match['id']}" for match in matches),
        "seasons",
    ]
    api = asyncio.run(_api(database_url, addresses))
    for by in measures:
        board = api[f"leaderboard?by={by}"]
        assert board["pages"] == 1
        assert board["rows"] == cli_json(database_url, "leaderboard", "--by", by)
        assert board["rows"], by
    closed = api["leaderboard?season=first"]
    assert closed["rows"] == cli_json(database_url, "leaderboard", "--season", "first")
    for user_id in NAMES:
        card = cli_json(database_url, "rating", str(user_id))
        assert _without_served(api[f"members/{user_id}"]) == card
        assert card["name"] == NAMES[user_id]
        other = cli_json(database_url, "rating", str(user_id), "--variant", "p3")
        assert _without_served(api[f"members/{user_id}?variant=p3"]) == other
    assert api["matches?limit=100"]["matches"] == matches
    assert {match["status"] for match in matches} == {"applied", "void", "pending", "disputed"}
    for match in matches:
        shown = cli_json(database_url, "match", str(match["id"]))
        assert _without_served(api[f"matches/{match['id']}"]) == shown
    assert api["seasons"]["seasons"] == cli_json(database_url, "season", "list")
