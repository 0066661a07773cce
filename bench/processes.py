"""Benchmark: processes (SPEC 8.4) - applied reports per second with one bot process x 8
guilds and two bot processes x 4 guilds each on one PostgreSQL database, in one run (needs
LADDERBOT_BENCH_POSTGRES, an admin URL: a fresh database there for each layout, dropped
after). Each process reports duels as a moderator through services.matches.report, one task
per guild; the figure is every report of every process over the wall time from the common
start to the last report, and the stored ratings are checked against a replay afterwards."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier

from bench.data import duel_log
from bench.harness import Table, verdict
from bench.service import (
    MODERATOR,
    POSTGRES_VARIABLE,
    TARGET_REPORTS_PER_SECOND,
    member_info,
    temporary_database,
    user_id,
)
from bot.config import Config
from bot.services import Player, Services, duel_lineup
from bot.services.migrating import replay_disagreements
from bot.storage import Database

GUILDS = 8
MEMBERS_PER_GUILD = 50


@dataclass(frozen=True, slots=True)
class Sizes:
    reports_per_guild: int


FULL = Sizes(reports_per_guild=250)
QUICK = Sizes(reports_per_guild=40)


def guild_id(number: int) -> int:
    """Guild `number`: consecutive shards of 2 (even numbers on shard 0)."""
    return (number << 22) | 1


async def _worker_reports(url: str, guilds: Sequence[int], count: int, start: Barrier) -> float:
    """Report `count` duels in each guild (one task per guild); the time the last ended."""
    log = duel_log(count, MEMBERS_PER_GUILD)
    async with await Services.open(url, Config()) as services:
        for guild in guilds:
            await services.members.upsert(guild, [member_info(m) for m in range(MEMBERS_PER_GUILD)])
        await asyncio.to_thread(start.wait)

        async def report(guild: int) -> None:
            for match in range(count):
                winner, loser = (int(p) for p in log.player[2 * match : 2 * match + 2])
                lineup = duel_lineup(
                    Player(user_id(winner)),
                    Player(user_id(loser)),
                    draw=bool(log.score[2 * match] == log.score[2 * match + 1]),
                    minutes=float(log.minutes[2 * match]),
                )
                result = await services.matches.report(
                    guild, MODERATOR, lineup, request_id=f"r{match}"
                )
                if not result.applied:
                    raise AssertionError("a moderator's duel was not applied at once")

        await asyncio.gather(*(report(guild) for guild in guilds))
        return time.time()


def _worker(url: str, guilds: Sequence[int], count: int, start: Barrier, ends: object) -> None:
    ends.put(asyncio.run(_worker_reports(url, guilds, count, start)))  # type: ignore[attr-defined]


@asynccontextmanager
async def _fresh_database(admin: str) -> AsyncIterator[str]:
    """A fresh PostgreSQL database at `admin`'s server with the schema made (before the race)."""
    async with temporary_database("postgresql", admin) as url:
        await (await Database.open(url)).close()
        yield url


@dataclass(frozen=True, slots=True)
class Figure:
    processes: int
    reports: int
    seconds: float
    applied: int
    """Applied matches found in the database afterwards (every report: `reports`)."""
    disagreements: int

    @property
    def rate(self) -> float:
        return self.reports / self.seconds


def run_layout(admin: str, processes: int, sizes: Sizes) -> Figure:
    """GUILDS guilds split over `processes` processes on a fresh database."""

    async def measured() -> Figure:
        async with _fresh_database(admin) as url:
            spawn = multiprocessing.get_context("spawn")
            start, ends = spawn.Barrier(processes + 1), spawn.Queue()
            shares = [
                [guild_id(n) for n in range(GUILDS) if n % processes == p] for p in range(processes)
            ]
            workers = [
                spawn.Process(
                    target=_worker, args=(url, share, sizes.reports_per_guild, start, ends)
                )
                for share in shares
            ]
            for worker in workers:
                worker.start()
            await asyncio.to_thread(start.wait)
            began = time.time()
            finished = [await asyncio.to_thread(ends.get, True, 600) for _ in workers]
            for worker in workers:
                worker.join()
                if worker.exitcode != 0:
                    raise AssertionError(f"a bench process failed ({worker.exitcode})")
            db = await Database.open(url)
            try:
                wrong = len(await replay_disagreements(db.read))
                applied = 0
                for guild in await db.read.guild_ids():
                    matches = await db.read.all_matches(guild)
                    applied += sum(match.status == "applied" for match in matches)
            finally:
                await db.close()
            reports = GUILDS * sizes.reports_per_guild
            return Figure(processes, reports, max(finished) - began, applied, wrong)

    return asyncio.run(measured())


def run(quick: bool) -> list[Table]:
    sizes = QUICK if quick else FULL
    admin = os.environ.get(POSTGRES_VARIABLE)
    table = Table(
        "Processes: reports applied per second on one PostgreSQL database (SPEC 8.4)",
        ["layout", "reports", "wall time", "rate", "target"],
    )
    if not admin:
        table.notes.append(f"skipped: {POSTGRES_VARIABLE} is not set (a PostgreSQL admin URL)")
        return [table]
    one = run_layout(admin, 1, sizes)
    two = run_layout(admin, 2, sizes)
    for figure in (one, two):
        table.add(
            f"{figure.processes} process{'es' if figure.processes > 1 else ''} x "
            f"{GUILDS // figure.processes} guilds",
            figure.reports,
            f"{figure.seconds:.2f} s",
            f"{figure.rate:,.0f} /s",
            f">= {TARGET_REPORTS_PER_SECOND:,.0f}/s "
            f"{verdict(figure.rate >= TARGET_REPORTS_PER_SECOND)}",
        )
    table.notes.append(
        f"two processes against one: {two.rate / one.rate:.2f}x (a process writes to different "
        "guilds at once on its own, so a second one adds only CPU)."
    )
    table.notes.append(
        f"applied matches found afterwards: {one.applied} and {two.applied}; "
        f"stored ratings vs a replay of each guild's log: {one.disagreements + two.disagreements} "
        "disagreements (0 expected)."
    )
    return [table]
