"""Smoke test of the processes benchmark: both layouts run on a fresh PostgreSQL database,
every report is applied and the stored ratings equal a replay. Nothing here is timed."""

from __future__ import annotations

import pytest

from bench.processes import GUILDS, Sizes, run_layout

TINY = Sizes(reports_per_guild=3)


@pytest.mark.parametrize("processes", [1, 2])
def test_every_layout_applies_every_report_agreeing_with_the_replay(
    processes: int, postgres_admin: str
) -> None:
    figure = run_layout(postgres_admin, processes, TINY)
    assert figure.processes == processes
    assert figure.applied == figure.reports == GUILDS * TINY.reports_per_guild
    assert figure.seconds > 0 and figure.disagreements == 0
