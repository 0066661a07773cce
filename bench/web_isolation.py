"""Benchmark: a Discord command's latency in the bot process while its web pages (`[web]
enabled`) serve a flood of cold leaderboard requests for a big guild (issue 24 finding 2,
SPEC 11.1).

This process plays the bot: the services over one SQLite file (with the bot's cache fill),
the web server of bot.web.serving on the same event loop, a `/predict` of another guild
asked again and again through the service layer (its latency is the command's, before
Discord's own round trip), and one match a second reported to the big guild (a `/report`),
which changes its stamp so no cached board can answer. A client process floods the web with
`concurrency` connections asking the big guild's boards by every measure, pages 1 to 3,
as HTML and API, as fast as they are answered.

Three runs, each with the same number of predictions: quiet (no flood), flood against the
web as served (its own thread pool, a bounded line of responses), and flood against the web
as it was before (the application on the default executor, no line): the same code path
with the two guards off, for comparison.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Final

import aiohttp
import numpy as np
from aiohttp import web

from bench.data import duel_log
from bench.harness import Table, format_seconds, verdict
from bench.service import (
    GUILD,
    MODERATOR,
    import_text,
    member_infos,
    report_duels,
    temporary_database,
    user_id,
)
from bot.config import Config, WebConfig
from bot.services import Services
from bot.services.standings import MEASURES
from bot.web.app import SITE, Turns, create_app
from bot.web.serving import WebServer

SMALL_GUILD: Final = 2
TARGET_EXTRA_P99: Final = 0.100
"""The flood may add at most this much to the quiet p99 of a command (issue 24)."""
REPORT_SECONDS: Final = 1.0
PREDICT_GAP: Final = 0.010
"""The pause between two predictions (a command now and then, not a loop of them)."""


@dataclass(frozen=True, slots=True)
class Sizes:
    matches: int
    members: int
    predictions: int
    """Of each run."""
    rounds: int
    """Each round runs quiet, guarded and unguarded once, in turn, so that the host's other
    work falls on all three alike; the figures are the medians over the rounds."""
    concurrency: int


FULL = Sizes(matches=100_000, members=1_000, predictions=300, rounds=3, concurrency=32)
QUICK = Sizes(matches=5_000, members=1_000, predictions=150, rounds=1, concurrency=16)
RUNS: Final = ("quiet", "guarded", "unguarded")


@dataclass(frozen=True, slots=True)
class Run:
    latencies: list[float]
    answers: dict[str, int]
    """The flood's answers by status (none when quiet)."""
    reports: int

    def quantile(self, q: float) -> float:
        return float(np.quantile(self.latencies, q))


@dataclass(frozen=True, slots=True)
class Rounds:
    """One kind of run, over the rounds."""

    runs: list[Run]

    def quantile(self, q: float) -> float:
        """The median over the rounds of the runs' quantile q."""
        return float(np.median([run.quantile(q) for run in self.runs]))

    @property
    def answers(self) -> dict[str, int]:
        summed: dict[str, int] = {}
        for run in self.runs:
            for key, count in run.answers.items():
                summed[key] = summed.get(key, 0) + count
        return summed


# --- the flood client (its own process) ---------------------------------------------------


def _addresses(base: str) -> list[str]:
    boards = [f"?by={m}&page={p}" for m in MEASURES for p in (1, 2, 3)]
    return [
        f"{base}{prefix}{query}"
        for query in boards
        for prefix in (f"/g/{GUILD}", f"/api/v1/guilds/{GUILD}/leaderboard")
    ]


async def _flood(base: str, concurrency: int) -> None:
    """Ask the boards until standard input closes; print the answers by status (JSON)."""
    addresses = _addresses(base)
    answers: dict[str, int] = {}
    stop = asyncio.Event()
    turn = iter(range(10**12))

    async def worker(session: aiohttp.ClientSession) -> None:
        while not stop.is_set():
            address = addresses[next(turn) % len(addresses)]
            try:
                async with session.get(address) as response:
                    await response.read()
                    key = str(response.status)
            except aiohttp.ClientError as error:
                key = type(error).__name__
            answers[key] = answers.get(key, 0) + 1

    timeout = aiohttp.ClientTimeout(total=60)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        workers = [asyncio.create_task(worker(session)) for _ in range(concurrency)]
        print("flooding", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        stop.set()
        await asyncio.gather(*workers)
    print(json.dumps(answers), flush=True)


@asynccontextmanager
async def flood_process(base: str, concurrency: int) -> AsyncIterator[dict[str, int]]:
    """A client process flooding the web while the block runs; its answers after."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.web_isolation",
        base,
        str(concurrency),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    assert process.stdout is not None and process.stdin is not None
    answers: dict[str, int] = {}
    try:
        await asyncio.wait_for(process.stdout.readline(), 60)
        await asyncio.sleep(2.0)  # the flood under way before the first prediction
        yield answers
    finally:
        process.stdin.close()
        line = await asyncio.wait_for(process.stdout.readline(), 120)
        answers.update(json.loads(line) if line.strip() else {})
        await process.wait()


# --- the bot process ------------------------------------------------------------------------


@asynccontextmanager
async def web_served(services: Services, guarded: bool) -> AsyncIterator[str]:
    """The web on a free port of this process: as served (guarded), or as before."""
    if guarded:
        server = WebServer(services, replace(WebConfig(), port=0, max_connections=10_000))
        await server.start()
        try:
            yield f"http://127.0.0.1:{server.bound_port}"
        finally:
            await server.stop()
        return
    app = create_app(services)
    app[SITE].turns = Turns(working=10**6, waiting=10**6)
    app[SITE].handling = asyncio.Semaphore(10**6)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    listener = site._server
    assert isinstance(listener, asyncio.base_events.Server)
    try:
        yield f"http://127.0.0.1:{listener.sockets[0].getsockname()[1]}"
    finally:
        await runner.cleanup()


async def _predictions(services: Services, count: int) -> list[float]:
    latencies = []
    for number in range(count):
        first, second = user_id(number % 10), user_id(10 + number % 10)
        started = time.perf_counter()
        await services.standings.predict(SMALL_GUILD, first, second)
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(PREDICT_GAP)
    return latencies


async def _reporting(services: Services, log_first: int, reported: list[int]) -> None:
    """One match a second to the big guild (its stamp changes: no cached board answers)."""
    log = duel_log(10_000, 50, seed=7)
    number = log_first
    while True:
        await asyncio.sleep(REPORT_SECONDS)
        await report_duels(services, log, number % 10_000, 1)
        reported[0] += 1
        number += 1


async def _run(services: Services, sizes: Sizes, flood: str | None, first: int) -> Run:
    reported = [0]
    reporter = asyncio.create_task(_reporting(services, first, reported))
    try:
        if flood is None:
            return Run(await _predictions(services, sizes.predictions), {}, reported[0])
        async with (
            web_served(services, guarded=flood == "guarded") as base,
            flood_process(base, sizes.concurrency) as answers,
        ):
            latencies = await _predictions(services, sizes.predictions)
        return Run(latencies, answers, reported[0])
    finally:
        reporter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reporter


async def measure(sizes: Sizes) -> dict[str, Rounds]:
    log = duel_log(sizes.matches, sizes.members)
    small = duel_log(200, 20, seed=5)
    async with (
        temporary_database("sqlite") as url,
        await Services.open(url, Config(), fill_cache=True) as services,
    ):
        await services.members.upsert(GUILD, member_infos(log))
        await services.transfers.import_csv(GUILD, MODERATOR, import_text(log))
        await services.settings.change(GUILD, MODERATOR, {"web": True})
        await report_duels(services, small, 0, 200, guild=SMALL_GUILD)
        runs: dict[str, Rounds] = {name: Rounds([]) for name in RUNS}
        for round_number in range(sizes.rounds):
            for number, name in enumerate(RUNS):
                flood = None if name == "quiet" else name
                first = (round_number * len(RUNS) + number) * 100
                runs[name].runs.append(await _run(services, sizes, flood, first))
        return runs


def run(quick: bool) -> Table:
    sizes = QUICK if quick else FULL
    runs = asyncio.run(measure(sizes))
    quiet = runs["quiet"]
    table = Table(
        f"Web isolation (SPEC 11.1, issue 24 finding 2): `/predict` in the bot process while "
        f"its web serves a flood of cold boards of a {sizes.matches:,}-match guild "
        f"({sizes.members:,} members), SQLite",
        ["run", "predict p50", "predict p99", "p99 vs quiet", "flood answers", "target"],
    )
    for name, label in [
        ("quiet", "quiet: no web requests"),
        (
            "guarded",
            "flood, the web as served (2 requests handled at once, its own 1-thread pool, "
            "2 responses made at once, 32 waiting)",
        ),
        ("unguarded", "flood, the web as before (no limits, the bot's thread pool)"),
    ]:
        found = runs[name]
        extra = found.quantile(0.99) - quiet.quantile(0.99)
        answers = ", ".join(f"{key}: {count:,}" for key, count in sorted(found.answers.items()))
        target = "" if name != "guarded" else f"p99 <= quiet + 100 ms {verdict(extra <= 0.1)}"
        table.add(
            label,
            format_seconds(found.quantile(0.5)),
            format_seconds(found.quantile(0.99)),
            "1x"
            if name == "quiet"
            else f"{found.quantile(0.99) / quiet.quantile(0.99):.2f}x "
            f"({'+' if extra >= 0 else '-'}{format_seconds(abs(extra))})",
            answers or "—",
            target,
        )
    table.notes += [
        f"{sizes.rounds} rounds of the three runs in turn; each figure is the median over the "
        f"rounds of that run's figure (the flood answers: summed). {sizes.predictions} "
        "predictions of a 20-member guild per run, one every "
        f"{PREDICT_GAP * 1000:.0f} ms or so, through the service layer on the event loop that "
        "also serves the web; one match reported to the big guild a second in every run (the "
        "quiet one too), so each flood request finds its board cold after each report. The "
        f"flood: {sizes.concurrency} keep-alive connections of another process asking the "
        f"{len(MEASURES)} measures' boards, pages 1-3, as HTML and API, round robin, "
        "as fast as answered; 503s are the line refusing work past its bound.",
    ]
    return table


if __name__ == "__main__":
    asyncio.run(_flood(sys.argv[1], int(sys.argv[2])))
