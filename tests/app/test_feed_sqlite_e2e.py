"""The change feed end to end on SQLite (tests/app/feed_scenario.py says what is checked)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app import feed_scenario
from tests.app.fakediscord import FakeDiscord, Role
from tests.app.harness import BotProcess


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from feed_scenario.fake_discord()


@pytest.fixture(scope="module")
def gold(fake: FakeDiscord) -> Role:
    return fake.add_role("gold", 4)  # below the bot's own role: it may give it


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("feed-sqlite") / "ladder.sqlite3")


@pytest.fixture(scope="module")
def bot(
    fake: FakeDiscord, gold: Role, database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BotProcess]:
    yield from feed_scenario.running_bot(fake, database, tmp_path_factory.mktemp("feed-bot"))


def test_command_line_changes_reach_the_bot_once(
    fake: FakeDiscord, bot: BotProcess, gold: Role, database: str
) -> None:
    feed_scenario.command_line_changes_reach_the_bot_once(fake, bot, gold, database)


def test_the_bot_restarted_learns_nothing_twice(
    fake: FakeDiscord, bot: BotProcess, database: str
) -> None:
    feed_scenario.the_bot_restarted_learns_nothing_twice(fake, bot, database)
