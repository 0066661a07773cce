"""A Ladder over a fresh database file, with a clock the tests move by hand."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config import GuildSettings
from bot.services import Ladder
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
async def ladder(tmp_path: Path, clock: Clock) -> AsyncIterator[Ladder]:
    db = await Database.open(tmp_path / "ladder.sqlite3")
    service = Ladder(db, GuildSettings(), clock=clock)
    try:
        yield service
    finally:
        await db.close()
