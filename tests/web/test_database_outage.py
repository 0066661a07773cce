"""SPEC 8.8 for the web pages: while the PostgreSQL database refuses connections (its own
uuid-named database: ALLOW_CONNECTIONS false, its backends terminated), a page answers 503
saying the database is unavailable (not busy), with no traceback logged; once it is back,
the same server answers 200."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.config import GuildSettings
from bot.services import ServiceContext, Services
from bot.storage import Database
from bot.web import create_app
from tests.services.conftest import Clock
from tests.storage.engines import _admin, _with_database, own_database, take_offline
from tests.web.data import GUILD, seed


@pytest.fixture(name="own_database")
def own_test_database(postgres_admin: str) -> Iterator[str]:
    with own_database(postgres_admin, "ladderbot_web_outage") as name:
        yield name


async def test_pages_say_the_database_is_unavailable_during_an_outage_then_recover(
    own_database: str, postgres_admin: str, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    database = await Database.open(_with_database(postgres_admin, own_database))
    try:
        services = Services.build(ServiceContext(database, GuildSettings(), clock=clock))
        await seed(services)
        async with TestClient(TestServer(create_app(services, clock=clock))) as client:
            address = f"/api/v1/guilds/{GUILD}/leaderboard"
            assert (await client.get(address)).status == 200
            await take_offline(postgres_admin, own_database)
            caplog.set_level(logging.WARNING)
            down = await client.get(address)
            assert down.status == 503, await down.text()
            assert "database is unavailable" in await down.text()
            assert down.headers["Retry-After"] == "5"
            await _admin(postgres_admin, f"ALTER DATABASE {own_database} ALLOW_CONNECTIONS true")
            assert (await client.get(address)).status == 200
            assert not [r for r in caplog.records if r.exc_info], caplog.text
    finally:
        await database.close()
