"""Smoke test of the service benchmarks on a tiny guild: the stored ratings agree with the
plain loop after reports, an import and voids. Nothing here is timed."""

from __future__ import annotations

from bench.service import AGREEMENT, READS, Sizes, big_guild, reports_per_second

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
