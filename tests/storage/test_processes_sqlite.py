"""SPEC 8.2 on SQLite: 16 command-line processes on one database file at once (see
tests/storage/processes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.storage.processes import sixteen_processes

pytestmark = pytest.mark.long


async def test_sixteen_processes_on_one_database(tmp_path: Path) -> None:
    await sixteen_processes(str(tmp_path / "ladder.sqlite3"), tmp_path)
