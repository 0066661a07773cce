"""Benchmark: webhooks (SPEC 14).

- Delivery: 10,000 events (5,000 moderator duel reports, each `match.reported` and
  `match.applied`) written to the outbox of one guild with one webhook, then delivered by
  the delivery worker to a local aiohttp receiver (its own thread and event loop, as a
  receiver is another process): deliveries per second, and the delivery's process's longest
  event-loop stall while it drains (SPEC 8.5: at most 100 ms).
- Cost to the writer: a moderator's duel report with three webhooks subscribed to every
  event (6 outbox rows, 2 snapshots of the match) against the same report in a guild with
  none, reported alternately in the same run; the ratio of their median times.
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from aiohttp import web

from bench.harness import Table, format_seconds, verdict
from bench.responsiveness import TARGET_STALL_SECONDS, loop_lag
from bench.service import ENGINE_NAMES, MODERATOR, engines, temporary_database
from bot.app.webhook_posts import HttpPoster
from bot.config import Config, WebhooksConfig
from bot.services import MemberInfo, Services
from bot.services.delivery import WebhookDelivery
from bot.services.lineup import parse_lineup

HOOKED_GUILD = 7
PLAIN_GUILD = 8
PLAYERS = [MemberInfo(10**17 + n, f"m{n}") for n in range(20)]


@dataclass(frozen=True, slots=True)
class Sizes:
    events: int
    reports: int
    """Reports timed in each guild (with and without webhooks)."""


FULL = Sizes(events=10_000, reports=500)
QUICK = Sizes(events=1_000, reports=100)


@contextmanager
def receiver() -> Iterator[str]:
    """A receiver answering 204 to every POST, on 127.0.0.1 in a thread: its URL."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=204)

    async def start() -> tuple[web.AppRunner, int]:
        app = web.Application()
        app.router.add_post("/in", answer)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.base_events.Server)
        return runner, server.sockets[0].getsockname()[1]

    runner, port = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield f"http://127.0.0.1:{port}/in"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)


async def _report(services: Services, guild_id: int, number: int) -> float:
    """One moderator duel report (applied at once); its time."""
    a, b = PLAYERS[number % 20], PLAYERS[(number * 7 + 3) % 20]
    if a == b:
        b = PLAYERS[(number + 1) % 20]
    lineup = parse_lineup(f"<@{a.user_id}> 1 | <@{b.user_id}> 0")
    started = time.perf_counter()
    await services.matches.report(
        guild_id, MODERATOR, lineup, request_id=uuid.uuid4().hex, members=[a, b]
    )
    return time.perf_counter() - started


@dataclass(frozen=True, slots=True)
class Result:
    delivered: int
    seconds: float
    longest_stall: float
    idle_stall: float
    """The longest stall of the same loop doing nothing, in the same run."""
    plain: float
    hooked: float


async def measure(engine: str, sizes: Sizes, url: str) -> Result:
    config = Config(webhooks=WebhooksConfig(allow_private=True))
    async with (
        temporary_database(engine) as location,
        await Services.open(location, config) as services,
    ):
        plain, hooked = [], []
        for _ in range(3):
            await services.webhooks.add(HOOKED_GUILD, MODERATOR, url)
        await _report(services, PLAIN_GUILD, 0)  # both guilds exist before timing
        for number in range(sizes.reports):
            plain.append(await _report(services, PLAIN_GUILD, number))
            hooked.append(await _report(services, HOOKED_GUILD, number))
        for number in (2, 3, 1):
            await services.webhooks.remove(HOOKED_GUILD, MODERATOR, number)
        await services.webhooks.add(HOOKED_GUILD, MODERATOR, url)
        for number in range(sizes.events // 2):
            await _report(services, HOOKED_GUILD, number)
        (hook,) = await services.webhooks.list(HOOKED_GUILD)
        assert hook.waiting == sizes.events, hook
        delivery = WebhookDelivery(services.context, HttpPoster, allow_private=True)
        await delivery.start()
        try:
            async with loop_lag() as lag:
                started = time.perf_counter()
                await delivery.catch_up()
                await delivery.idle()
                seconds = time.perf_counter() - started
        finally:
            await delivery.stop()
        async with loop_lag() as idle:  # the machine's own noise, for comparison
            await asyncio.sleep(min(seconds, 10.0))
        (hook,) = await services.webhooks.list(HOOKED_GUILD)
        assert hook.waiting == 0 and hook.last_status == "204", hook
        return Result(
            sizes.events,
            seconds,
            lag.longest,
            idle.longest,
            statistics.median(plain),
            statistics.median(hooked),
        )


def run(quick: bool) -> list[Table]:
    sizes = QUICK if quick else FULL
    tables = []
    with receiver() as url:
        for engine in engines():
            result = asyncio.run(measure(engine, sizes, url))
            table = Table(f"Webhooks ({ENGINE_NAMES[engine]})", ["measure", "value", "target"])
            table.add(
                f"{result.delivered:,} events delivered to a local receiver",
                f"{result.delivered / result.seconds:,.0f} deliveries/s "
                f"({format_seconds(result.seconds)})",
                "",
            )
            table.add(
                "longest event-loop stall while delivering",
                format_seconds(result.longest_stall),
                f"<= 100 ms {verdict(result.longest_stall <= TARGET_STALL_SECONDS)}",
            )
            table.add(
                "longest stall of the same loop idle, afterwards (the machine's noise)",
                format_seconds(result.idle_stall),
                "",
            )
            table.add(
                "a moderator's duel report, median: no webhooks → 3 webhooks",
                f"{format_seconds(result.plain)} → {format_seconds(result.hooked)} "
                f"(x{result.hooked / result.plain:.2f})",
                "",
            )
            table.notes.append(
                f"{sizes.reports} reports in each guild, alternately; a report with webhooks "
                "writes 2 events x 3 webhooks to the outbox in its transaction."
            )
            tables.append(table)
    return tables
