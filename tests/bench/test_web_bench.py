"""`python -m bench web --quick` runs: a server process over a small guild, loaded warm and
cold, every answer a 200 timed by the server, and a table with every row."""

from __future__ import annotations

import asyncio

from bench import web


def test_web_bench_quick() -> None:
    figures = asyncio.run(web.measure(web.QUICK))
    assert figures.pages >= 2
    for load in [figures.baseline, *figures.warm.values()]:
        requests = web.QUICK.warm_requests * web.QUICK.warm_runs
        assert load.requests == requests == len(load.server) == len(load.client)
        assert len(load.rates) == web.QUICK.warm_runs
        assert load.rate > 0 and load.server_median <= load.client_median
        assert load.cpu_per_request > 0
    assert set(figures.cold) == {
        (path, concurrency)
        for path in (web.API_BOARD, web.HTML_BOARD)
        for concurrency in (1, web.QUICK.concurrency)
    }
    for cold in figures.cold.values():
        assert cold.requests == web.QUICK.cold_rounds * figures.pages == len(cold.server)
    for path in (web.API_BOARD, web.HTML_BOARD):
        assert len(figures.cold_first[path]) == web.QUICK.cold_rounds
    assert figures.body_bytes[web.HTML_BOARD] > figures.body_bytes[web.API_BOARD] > 1_000
    table = web.run(quick=True)
    assert len(table.rows) == 7 and "requests/s" in table.render()
