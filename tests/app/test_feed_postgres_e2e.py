"""The change feed end to end on PostgreSQL: tests/app/feed_scenario.py holds the tests."""

from __future__ import annotations

import asyncio

import pytest

from tests.app.feed_scenario import (
    bot,
    fake,
    gold,
    test_command_line_changes_reach_the_bot_once,
    test_the_bot_restarted_learns_nothing_twice,
)
from tests.storage.engines import _empty

pytestmark = pytest.mark.long

__all__ = [
    "bot",
    "fake",
    "gold",
    "test_command_line_changes_reach_the_bot_once",
    "test_the_bot_restarted_learns_nothing_twice",
]


@pytest.fixture(scope="module")
def database(postgres_url: str) -> str:
    asyncio.run(_empty(postgres_url))
    return postgres_url
