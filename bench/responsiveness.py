"""Benchmark 6: the longest event-loop stall (SPEC 8.5) in the service's process during the
heavy operations of a big guild: its import, a whole-guild replay, a cold `/leaderboard
by:p8` (with the cache fill after it) and a void of the oldest match. A sampler task asks to
wake every few milliseconds; how late it wakes is how long the loop was blocked."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.data import duel_log
from bench.harness import Table, format_seconds, verdict
from bench.service import (
    ENGINE_NAMES,
    GUILD,
    MODERATOR,
    engines,
    import_text,
    member_infos,
    temporary_ladder,
    user_id,
)
from bot.services import Services

SAMPLE_SECONDS = 0.002
TARGET_STALL_SECONDS = 0.100


@dataclass(frozen=True, slots=True)
class Sizes:
    matches: int
    members: int


FULL = Sizes(matches=100_000, members=50_000)
QUICK = Sizes(matches=5_000, members=2_000)


@dataclass
class LoopLag:
    """The longest stall of the running event loop seen by the sampler while it runs."""

    longest: float = 0.0
    samples: int = 0
    watched: float = 0.0
    """How long the sampler ran (seconds): no stall it saw can be longer."""
    _task: asyncio.Task[None] | None = field(default=None, repr=False)

    async def _sample(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(SAMPLE_SECONDS)
            self.longest = max(self.longest, loop.time() - asked - SAMPLE_SECONDS)
            self.samples += 1


@asynccontextmanager
async def loop_lag() -> AsyncIterator[LoopLag]:
    """Sample the loop's stalls while the block runs."""
    lag = LoopLag()
    loop = asyncio.get_running_loop()
    began = loop.time()
    task = asyncio.create_task(lag._sample())
    await asyncio.sleep(0)  # the sampler starts before the measured work
    try:
        yield lag
        await asyncio.sleep(SAMPLE_SECONDS)  # the sampler's last wake sees the block's end
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        lag.watched = loop.time() - began


@dataclass(frozen=True, slots=True)
class Stall:
    operation: str
    seconds: float
    longest_stall: float
    samples: int
    watched: float
    """How long the sampler ran, the operation included."""


async def _stall(operation: str, work: Callable[[], Awaitable[Any]]) -> Stall:
    async with loop_lag() as lag:
        started = time.perf_counter()
        await work()
        seconds = time.perf_counter() - started
    return Stall(operation, seconds, lag.longest, lag.samples, lag.watched)


async def stalls(sizes: Sizes, engine: str = "sqlite") -> list[Stall]:
    log = duel_log(sizes.matches, sizes.members)
    text = import_text(log)
    async with temporary_ladder(engine) as services:
        await services.members.upsert(GUILD, member_infos(log))

        async def cold_p8(services: Services = services) -> None:
            await services.standings.leaderboard(GUILD, by="p8")
            await services.context.cache_filled()

        async def void_oldest(services: Services = services) -> None:
            (oldest,) = await services.context.db.read.matches_by_id(GUILD, [1])
            await services.matches.void(GUILD, MODERATOR, oldest.id)

        return [
            await _stall(
                f"import_csv of {sizes.matches:,} matches",
                lambda: services.transfers.import_csv(GUILD, MODERATOR, text),
            ),
            await _stall(
                "recompute (whole-guild replay)",
                lambda: services.settings.recompute(GUILD, MODERATOR),
            ),
            await _stall(
                f"/leaderboard by:p8, cold cache ({sizes.members:,} members), and its cache fill",
                cold_p8,
            ),
            await _stall("void the oldest match (replays every later one)", void_oldest),
            await _stall(
                f"whole leaderboard after that change, as the web cuts its pages from it "
                f"({sizes.members:,} members)",
                lambda: services.standings.whole_board(GUILD, "ladder", None),
            ),
            await _stall(
                "'My rank': the leaderboard page a member is on",
                lambda: services.standings.page_of(GUILD, "ladder", user_id(0)),
            ),
        ]


def run(quick: bool) -> list[Table]:
    sizes = QUICK if quick else FULL
    tables = []
    for engine in engines():
        found = asyncio.run(stalls(sizes, engine))
        table = Table(
            f"Responsiveness: longest event-loop stall ({ENGINE_NAMES[engine]})",
            ["operation", "wall time", "longest stall", "target"],
        )
        for stall in found:
            table.add(
                stall.operation,
                format_seconds(stall.seconds),
                format_seconds(stall.longest_stall),
                f"<= 100 ms {verdict(stall.longest_stall <= TARGET_STALL_SECONDS)}",
            )
        table.notes.append(
            f"a sampler task asks to wake every {SAMPLE_SECONDS * 1000:g} ms during each "
            "operation; the stall is how much later than asked it woke at worst. Duels, "
            f"{sizes.matches:,} matches among {sizes.members:,} members."
        )
        tables.append(table)
    return tables
