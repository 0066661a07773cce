"""SPEC 8.6 on PostgreSQL: reads beside a fast writer each see one committed state (see
tests/storage/snapshot_reads.py)."""

from __future__ import annotations

import asyncio

import pytest

from tests.storage.engines import _empty
from tests.storage.snapshot_reads import checked_run

pytestmark = pytest.mark.long


def test_reads_beside_a_fast_writer_see_one_state_each(postgres_url: str) -> None:
    asyncio.run(_empty(postgres_url))
    checked_run(postgres_url)
