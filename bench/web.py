"""Benchmark: the web pages and read API (SPEC 11) of a 100,000-match guild.

One server process serves the guild as `ladderbot web` does (the database opened without
creating, the application of bot.web, no access log); this process builds the guild, then
loads the server with an aiohttp client: `concurrency` keep-alive connections asking one
address after another.

- warm: the same address again and again (the guild unchanged, so the server's response
  cache answers after the first);
- cold: a match is reported first (the guild's stamp changes, so no cached response can
  answer), then every page of the leaderboard is asked once, all at once: each request reads
  and renders its page.

The server times every request in a middleware around the whole application (from the
request's arrival at the application to its response, body included, made): the "server
time". The baseline, measured in the same run with the same client and connections, is the
same server answering a fixed body as long as the API leaderboard's (it reads nothing): how
many requests per second this client and server can carry at all.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final

import aiohttp
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
)
from bot.config import Config
from bot.services import Services

TARGET_REQUESTS_PER_SECOND: Final = 1_000.0
TARGET_SERVER_SECONDS: Final = 0.020
TIMES_PATH: Final = "/bench/times"
FIXED_PATH: Final = "/bench/fixed"
API_BOARD: Final = f"/api/v1/guilds/{GUILD}/leaderboard"
HTML_BOARD: Final = f"/g/{GUILD}"


@dataclass(frozen=True, slots=True)
class Sizes:
    matches: int
    members: int
    warm_requests: int
    """Of each warm load; every warm load (and the baseline's) runs `warm_runs` times,
    taking turns, so that the host's other work falls on all of them alike."""
    warm_runs: int
    cold_rounds: int
    concurrency: int


FULL = Sizes(
    matches=100_000,
    members=1_000,
    warm_requests=3_000,
    warm_runs=5,
    cold_rounds=5,
    concurrency=16,
)
QUICK = Sizes(
    matches=2_000, members=200, warm_requests=200, warm_runs=2, cold_rounds=2, concurrency=8
)


@dataclass(frozen=True, slots=True)
class Load:
    """One load, or several merged: how many requests, in how long, and their server and
    client times; `rates`, the requests per second of each load merged."""

    requests: int
    seconds: float
    server: list[float]
    client: list[float]
    rates: tuple[float, ...] = ()
    cpu: float = 0.0
    """The server process's CPU time during the load(s)."""

    @property
    def cpu_per_request(self) -> float:
        return self.cpu / self.requests

    @property
    def rate(self) -> float:
        """The median of the merged loads' rates (of this one alone if not merged)."""
        return statistics.median(self.rates) if self.rates else self.requests / self.seconds

    @property
    def server_median(self) -> float:
        return statistics.median(self.server)

    @property
    def client_median(self) -> float:
        return statistics.median(self.client)


# --- the server process -------------------------------------------------------------------


async def _serve(location: str) -> None:
    """Serve the web application over the database at `location` on a free port of
    127.0.0.1 (printed as one line), with the timing middleware and the baseline's route,
    until standard input closes."""
    from bot.web import create_app

    services = await Services.open(location, Config(), create=False)
    app = create_app(services)
    times: list[float] = []

    @web.middleware
    async def timing(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == TIMES_PATH:
            return await handler(request)
        started = time.perf_counter()
        response = await handler(request)
        times.append(time.perf_counter() - started)
        return response

    async def taken(_: web.Request) -> web.Response:
        found = {"times": list(times), "cpu": time.process_time()}
        times.clear()
        return web.json_response(found)

    fixed: dict[str, bytes] = {}

    async def fixed_body(request: web.Request) -> web.Response:
        size = int(request.query.get("size", "1000"))
        body = fixed.setdefault(str(size), b"x" * size)
        return web.Response(body=body, content_type="application/json")

    app.middlewares.insert(0, timing)
    app.router.add_get(TIMES_PATH, taken)
    app.router.add_get(FIXED_PATH, fixed_body)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server = site._server
    assert isinstance(server, asyncio.base_events.Server)
    print(server.sockets[0].getsockname()[1], flush=True)
    try:
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    finally:
        await runner.cleanup()
        await services.close()


@asynccontextmanager
async def server_process(location: str) -> AsyncIterator[str]:
    """The base URL of a server process over `location`, stopped afterwards."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.web",
        location,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), 60)
        if not line.strip():
            raise RuntimeError("the web server process did not start")
        yield f"http://127.0.0.1:{int(line)}"
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()


# --- the load generator -------------------------------------------------------------------


async def _server_times(session: aiohttp.ClientSession, base: str) -> tuple[list[float], float]:
    """The server's times of the requests since the last call, and its CPU time so far."""
    async with session.get(base + TIMES_PATH) as response:
        found = json.loads(await response.read())
        return found["times"], found["cpu"]


async def load(
    session: aiohttp.ClientSession, base: str, paths: Sequence[str], concurrency: int
) -> Load:
    """Ask every path of `paths` once, `concurrency` at a time; every answer must be 200."""
    _, cpu_before = await _server_times(session, base)  # forget earlier requests
    client: list[float] = []
    following = iter(paths)

    async def worker() -> None:
        for path in following:
            started = time.perf_counter()
            async with session.get(base + path) as response:
                await response.read()
                if response.status != 200:
                    raise AssertionError(f"{path} answered {response.status}")
            client.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    seconds = time.perf_counter() - started
    server, cpu_after = await _server_times(session, base)
    if len(server) != len(paths):
        raise AssertionError(f"the server timed {len(server)} requests of {len(paths)}")
    return Load(len(paths), seconds, server, client, cpu=cpu_after - cpu_before)


def _merged(loads: Sequence[Load]) -> Load:
    return Load(
        sum(one.requests for one in loads),
        sum(one.seconds for one in loads),
        [time for one in loads for time in one.server],
        [time for one in loads for time in one.client],
        tuple(one.requests / one.seconds for one in loads),
        sum(one.cpu for one in loads),
    )


@dataclass(frozen=True, slots=True)
class Figures:
    body_bytes: dict[str, int]
    baseline: Load
    warm: dict[str, Load]
    cold: dict[tuple[str, int], Load]
    """By address and concurrency."""
    cold_first: dict[str, list[float]]
    """Server times of the first request after each change, one at a time."""
    first: dict[str, float]
    """Server time of the very first request of each address after the server started."""
    pages: int


async def measure(sizes: Sizes) -> Figures:
    log = duel_log(sizes.matches + 4 * sizes.cold_rounds, sizes.members)
    built = log.head(sizes.matches)
    async with (
        temporary_database("sqlite") as location,
        await Services.open(location, Config(), fill_cache=True) as services,
    ):
        await services.members.upsert(GUILD, member_infos(log))
        await services.transfers.import_csv(GUILD, MODERATOR, import_text(built))
        await services.settings.change(GUILD, MODERATOR, {"web": True})
        connector = aiohttp.TCPConnector(limit=sizes.concurrency)
        async with (
            server_process(location) as base,
            aiohttp.ClientSession(connector=connector) as session,
        ):
            first = {}
            body_bytes = {}
            for path in (API_BOARD, HTML_BOARD):
                one = await load(session, base, [path], 1)
                first[path] = one.server[0]
                async with session.get(base + path) as response:
                    body_bytes[path] = len(await response.read())
            pages = json.loads(await (await session.get(base + API_BOARD)).read())["pages"]
            fixed = f"{FIXED_PATH}?size={body_bytes[API_BOARD]}"
            warm_loads: dict[str, list[Load]] = {}
            for _ in range(sizes.warm_runs):
                for path in (fixed, API_BOARD, HTML_BOARD):
                    asked = [path] * sizes.warm_requests
                    found = await load(session, base, asked, sizes.concurrency)
                    warm_loads.setdefault(path, []).append(found)
            baseline = _merged(warm_loads.pop(fixed))
            warm = {path: _merged(loads) for path, loads in warm_loads.items()}
            cold: dict[tuple[str, int], list[Load]] = {}
            reported = sizes.matches
            for _ in range(sizes.cold_rounds):
                for path in (API_BOARD, HTML_BOARD):
                    for concurrency in (1, sizes.concurrency):
                        await report_duels(services, log, reported, 1)
                        reported += 1
                        every = [f"{path}?page={page}" for page in range(1, pages + 1)]
                        found = await load(session, base, every, concurrency)
                        cold.setdefault((path, concurrency), []).append(found)
    return Figures(
        body_bytes,
        baseline,
        warm,
        {key: _merged(loads) for key, loads in cold.items()},
        {path: [one.server[0] for one in cold[path, 1]] for path in (API_BOARD, HTML_BOARD)},
        first,
        pages,
    )


def _capacity(load: Load) -> str:
    """The server's CPU time a request, and the requests a second one core gives at that."""
    per = load.cpu_per_request
    return f"{format_seconds(per)} ({1 / per:,.0f}/s)" if per > 0 else "—"


def run(quick: bool) -> Table:
    sizes = QUICK if quick else FULL
    figures = asyncio.run(measure(sizes))
    table = Table(
        f"Web (SPEC 11): the leaderboard of a {sizes.matches:,}-match guild "
        f"({sizes.members:,} members, duels; SQLite file, WAL), one server process",
        ["request", "requests/s", "server time (median)", "client latency (median)",
         "server CPU a request (one core's capacity)", "vs baseline", "target"],
    )  # fmt: skip
    base = figures.baseline
    table.add(
        f"baseline: a fixed {figures.body_bytes[API_BOARD]:,}-byte body, no read",
        f"{base.rate:,.0f}",
        format_seconds(base.server_median),
        format_seconds(base.client_median),
        _capacity(base),
        "1x",
        "",
    )
    names = {API_BOARD: "API leaderboard", HTML_BOARD: "HTML leaderboard page"}
    for path, name in names.items():
        warm = figures.warm[path]
        met = (
            warm.rate >= TARGET_REQUESTS_PER_SECOND and warm.server_median <= TARGET_SERVER_SECONDS
        )
        table.add(
            f"{name} `{path}`, warm ({figures.body_bytes[path]:,} bytes)",
            f"{warm.rate:,.0f}",
            format_seconds(warm.server_median),
            format_seconds(warm.client_median),
            _capacity(warm),
            f"{warm.rate / base.rate:.2f}x the rate",
            f">= 1,000/s, <= 20 ms {verdict(met)}",
        )
    for (path, concurrency), cold in figures.cold.items():
        met = cold.server_median <= TARGET_SERVER_SECONDS
        table.add(
            f"{names[path]}, cold: each of its {figures.pages} pages once after a change, "
            + ("one at a time" if concurrency == 1 else f"{concurrency} at once"),
            f"{cold.rate:,.0f}",
            format_seconds(cold.server_median),
            format_seconds(cold.client_median),
            _capacity(cold),
            f"{cold.rate / base.rate:.2f}x the rate",
            f"<= 20 ms {verdict(met)}",
        )
    table.notes += [
        f"{sizes.concurrency} keep-alive connections of one aiohttp client process; the server "
        "is another process; both on this host's cores (shared with other work). Warm: "
        f"{sizes.warm_runs} loads of {sizes.warm_requests:,} requests of the same address, "
        "the baseline's and the two addresses' taking turns; requests/s is the median of the "
        f"loads, the times over all their requests. Cold: {sizes.cold_rounds} "
        "rounds of: one match reported (through the service, from the client's process), then "
        "every page of the board by ladder asked once (one at a time, or all at once); the "
        "figures are over all rounds. At once, a request's server time includes its wait for "
        "the others (one process, one event loop).",
        "server time: the application's own time for a request (a middleware around it), "
        "the median; client latency: from sending to the whole body read, the median; server "
        "CPU: the server process's CPU time (time.process_time, its worker threads included) "
        "over the loads divided by their requests, which the host's other work does not add "
        "to, and the requests a second that one core would serve at that cost.",
        "the first request after a change (page 1, one at a time), server time, median of "
        f"{sizes.cold_rounds}: "
        + ", ".join(
            f"{names[path]} {format_seconds(statistics.median(figures.cold_first[path]))}"
            for path in names
        )
        + "; the very first request after the server started (nothing cached in its process): "
        + ", ".join(
            f"{names[path]} {format_seconds(seconds)}" for path, seconds in figures.first.items()
        )
        + ".",
    ]
    return table


if __name__ == "__main__":
    asyncio.run(_serve(sys.argv[1]))
