"""SPEC 8.6 on SQLite: reads beside a fast writer each see one committed state (see
tests/storage/snapshot_reads.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.storage.snapshot_reads import checked_run

pytestmark = pytest.mark.long


def test_reads_beside_a_fast_writer_see_one_state_each(tmp_path: Path) -> None:
    checked_run(str(tmp_path / "ladder.sqlite3"))
