"""Fixtures: one fake Discord and one real bot process (`python -m bot run`) per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app.fakediscord import FakeDiscord
from tests.app.harness import (
    MOD,
    PLAYERS,
    ROBOT,
    BotProcess,
    Players,
    running,
    serving,
    write_config,
)


@pytest.fixture(scope="session")
def fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, ROBOT, *PLAYERS]))


@pytest.fixture(scope="session")
def bot(fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    yield from running(BotProcess(fake, write_config(tmp_path_factory.mktemp("bot"))))


@pytest.fixture(scope="session")
def players() -> Players:
    return Players()
