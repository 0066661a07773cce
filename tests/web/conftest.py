"""The web application over the seeded guild (tests.web.data), on each engine."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.config import GuildSettings
from bot.services import ServiceContext, Services
from bot.storage import Database
from bot.web import create_app
from tests.services.conftest import Clock
from tests.web.data import seed

Client = TestClient[web.Request, web.Application]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def services(database: Database, clock: Clock) -> AsyncIterator[Services]:
    service = Services.build(ServiceContext(database, GuildSettings(), clock=clock))
    await seed(service)
    yield service


@pytest.fixture
async def client(
    services: Services, clock: Clock
) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    async with TestClient(TestServer(create_app(services, clock=clock))) as found:
        yield found
