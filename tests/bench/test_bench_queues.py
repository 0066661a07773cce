"""`python -m bench queues --quick` runs, and its workload is what it claims: every member
once (all accepted, the same lobbies one at a time and at once), then a crowd with refusals,
then the rating-range queues with parties (the party members leave the joins to their
leaders, and some lobbies pop)."""

from __future__ import annotations

import asyncio

import pytest

from bench import queues


def test_queue_bench_quick_on_sqlite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LADDERBOT_BENCH_POSTGRES", raising=False)
    serial, at_once, crowd, ranged = asyncio.run(queues.bursts(queues.QUICK, "sqlite"))
    assert serial.accepted == at_once.accepted == queues.QUICK.joins
    assert serial.lobbies == at_once.lobbies > 0
    assert serial.longest_stall is None and at_once.longest_stall is not None
    assert crowd.accepted < crowd.joins
    assert ranged.joins < queues.QUICK.joins and ranged.lobbies > 0
    assert ranged.longest_stall is not None
    (table,) = queues.run(quick=True)
    assert len(table.rows) == 4 and "pops/s" in table.render()
