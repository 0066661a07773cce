"""Smoke test of the service benchmarks on a tiny guild: the stored ratings agree with the
plain loop after reports, an import and voids. Nothing here is timed."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from bench import floor
from bench.service import (
    AGREEMENT,
    READS,
    Sizes,
    big_guild,
    recorded_reports,
    reports_per_second,
)

TINY = Sizes(report_batch=15, guild_matches=60, guild_members=8, runs=3)


async def test_reports_are_applied_and_agree_with_the_plain_loop() -> None:
    rates, disagreement = await reports_per_second(TINY)
    assert len(rates) == TINY.runs and min(rates) > 0
    assert disagreement <= AGREEMENT


async def test_imported_guild_agrees_before_and_after_voiding_the_newest_matches() -> None:
    figures = await big_guild(TINY)
    assert len(figures.void_seconds) == TINY.runs
    assert figures.disagreement_built <= AGREEMENT
    assert figures.disagreement_voided <= AGREEMENT
    assert len(figures.reads) == 2 * len(READS)
    assert all(len(times) == TINY.runs for times in figures.reads.values())


async def test_guilds_reporting_at_once_each_agree_with_the_plain_loop() -> None:
    rates, disagreement = await reports_per_second(TINY, guilds=3)
    assert len(rates) == TINY.runs and min(rates) > 0
    assert disagreement <= AGREEMENT


STORED = {
    "matches": "SELECT id, status, request_id FROM matches ORDER BY id",
    "participants": "SELECT match_id, position, user_id, outcome FROM participants "
    "ORDER BY match_id, position",
    "log_chunks": "SELECT first_id, last_id, entries, data FROM log_chunks ORDER BY first_id",
    "members": "SELECT user_id, games, wins, losses FROM members ORDER BY user_id",
    "ratings": "SELECT rating FROM members ORDER BY user_id",
}


def stored(path: str) -> dict[str, list[tuple[object, ...]]]:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return {name: connection.execute(sql).fetchall() for name, sql in STORED.items()}


async def test_the_report_floor_runs_the_statements_that_stored_the_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The floor's plain sqlite3, run on the database from before the batch, stores what the
    service stored: the same matches, entries, log chunks and members (ratings as SQL
    writes them out, to 15 digits)."""
    reported, before, script = await recorded_reports(TINY, str(tmp_path))
    floor.statements(before, script)
    assert float(capsys.readouterr().out) > 0
    service, plain = stored(reported), stored(before)
    assert len(service["matches"]) == TINY.report_batch
    ratings = [[rating for (rating,) in found.pop("ratings")] for found in (plain, service)]
    assert plain == service
    assert ratings[0] == pytest.approx(ratings[1], rel=1e-14)
