"""The services over a fresh database on each engine, with a clock the tests move by hand."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.config import GuildSettings
from bot.services import ServiceContext, Services
from bot.services.queues import Queues
from bot.storage import Database


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def services(database: Database, clock: Clock) -> AsyncIterator[Services]:
    service = Services.build(
        ServiceContext(database, GuildSettings(), clock=clock, fill_cache=True)
    )
    yield service
    await service.context.cache_filled()


@pytest.fixture
async def queues(services: Services) -> AsyncIterator[Queues]:
    """The queue service with a seeded draw and the captains' 60 s pick."""
    yield Queues(services.context, services.matches, rng=random.Random(7), pick_seconds=60.0)
