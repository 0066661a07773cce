"""The change feed end to end on SQLite: tests/app/feed_scenario.py holds the tests."""

from __future__ import annotations

import pytest

from tests.app.feed_scenario import (
    bot,
    fake,
    gold,
    test_command_line_changes_reach_the_bot_once,
    test_the_bot_restarted_learns_nothing_twice,
)

pytestmark = pytest.mark.long

__all__ = [
    "bot",
    "fake",
    "gold",
    "test_command_line_changes_reach_the_bot_once",
    "test_the_bot_restarted_learns_nothing_twice",
]


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("feed-sqlite") / "ladder.sqlite3")
