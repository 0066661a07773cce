"""SPEC 8.2 on PostgreSQL: 16 command-line processes on one database at once (see
tests/storage/processes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.storage.engines import _empty
from tests.storage.processes import sixteen_processes

pytestmark = pytest.mark.long


async def test_sixteen_processes_on_one_database(postgres_url: str, tmp_path: Path) -> None:
    await _empty(postgres_url)
    await sixteen_processes(postgres_url, tmp_path)
