"""Benchmarks 3-5: the service on a durable database - reports applied per second (one guild,
and CONCURRENT_GUILDS guilds at once, as a bot serving many guilds does), void of
the newest match and the read commands in a 100,000-match guild. On SQLite always, and on
PostgreSQL too when LADDERBOT_BENCH_POSTGRES names a server (an admin URL such as
postgresql://postgres@127.0.0.1:5432/postgres): a fresh database there, dropped after."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import numpy as np

from bench.baselines import replay_plain
from bench.data import MatchLog, duel_log
from bench.harness import Table, format_seconds, verdict
from bot.config import Config
from bot.ratings.ladder import DEFAULT_SETTINGS
from bot.services import Actor, MemberInfo, Player, Services, duel_lineup
from bot.storage.sqlite import SqliteEngine

GUILD = 1
FIRST_USER_ID = 10**17
"""Member index i is the Discord user FIRST_USER_ID + i."""
MODERATOR = Actor(user_id=42, is_moderator=True)
START_TIME = 1_700_000_000.0
AGREEMENT = 1e-6
"""Stored ratings against the plain loop over the same duels (sums of many updates)."""
TARGET_REPORTS_PER_SECOND = 1_000.0
CONCURRENT_GUILDS = 8
TARGETED_GUILDS = {"sqlite": 1, "postgresql": CONCURRENT_GUILDS}
"""Which report rate the target is for: SQLite writes one transaction at a time whatever the
guild; PostgreSQL's writes to different guilds run at once."""
TARGET_VOID_SECONDS = 0.050
TARGET_READ_SECONDS = 0.020
POSTGRES_VARIABLE = "LADDERBOT_BENCH_POSTGRES"
FLOOR_MAIN = "from bench.floor import main; main()"
"""A floor's process imports none of ladderbot's services or storage (bench.floor)."""
FLOOR_FILES = ("reported.sqlite3", "before.sqlite3", "statements.json")


@dataclass(frozen=True, slots=True)
class Sizes:
    report_batch: int
    guild_matches: int
    guild_members: int
    runs: int


FULL = Sizes(report_batch=1_000, guild_matches=100_000, guild_members=1_000, runs=7)
QUICK = Sizes(report_batch=200, guild_matches=5_000, guild_members=200, runs=5)


def user_id(member: int) -> int:
    return FIRST_USER_ID + member


def member_info(member: int) -> MemberInfo:
    return MemberInfo(user_id(member), f"member{member}")


def member_infos(log: MatchLog) -> list[MemberInfo]:
    return [member_info(member) for member in range(log.member_count)]


def import_text(log: MatchLog) -> str:
    """The log as the match CSV of SPEC 5, one second between matches."""
    out = io.StringIO()
    out.write("match,played_at,side,player,score,minutes\n")
    stamp = np.datetime64(int(START_TIME), "s")
    players, sides = log.player.tolist(), log.side.tolist()
    scores, minutes = log.score.tolist(), log.minutes.tolist()
    for row, match in enumerate(log.match.tolist()):
        out.write(
            f"{match},{stamp + match}Z,{sides[row]},{user_id(players[row])},"
            f"{scores[row]!r},{minutes[row]!r}\n"
        )
    return out.getvalue()


@asynccontextmanager
async def temporary_database(engine: str, admin: str | None = None) -> AsyncIterator[str]:
    """The URL of a fresh database of the engine: a SQLite file in a temporary folder, or a
    new PostgreSQL database dropped afterwards (on the server of `admin`, an admin URL;
    default LADDERBOT_BENCH_POSTGRES)."""
    if engine == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield os.path.join(folder, "bench.sqlite3")
        return
    admin = admin or os.environ[POSTGRES_VARIABLE]
    name = f"ladderbot_bench_{uuid.uuid4().hex[:12]}"
    server = await asyncpg.connect(admin)
    try:
        await server.execute(f"CREATE DATABASE {name}")
        try:
            yield urlunsplit(urlsplit(admin)._replace(path=f"/{name}"))
        finally:
            await server.execute(f"DROP DATABASE {name} WITH (FORCE)")
    finally:
        await server.close()


@asynccontextmanager
async def temporary_ladder(engine: str) -> AsyncIterator[Services]:
    """A service on a fresh database of the engine with the bot's durable settings."""
    async with (
        temporary_database(engine) as url,
        await Services.open(url, Config(), fill_cache=True) as services,
    ):
        yield services


def engines() -> list[str]:
    return ["sqlite", "postgresql"] if os.environ.get(POSTGRES_VARIABLE) else ["sqlite"]


async def timed(call: Awaitable[Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = await call
    return time.perf_counter() - start, value


async def report_duels(
    services: Services, log: MatchLog, first: int, count: int, guild: int = GUILD
) -> list[Any]:
    """Matches first..first+count of a duel log, reported by a moderator (applied at once)."""
    results = []
    for match in range(first, first + count):
        winner, loser = (int(p) for p in log.player[2 * match : 2 * match + 2])
        lineup = duel_lineup(
            Player(user_id(winner)),
            Player(user_id(loser)),
            draw=bool(log.score[2 * match] == log.score[2 * match + 1]),
            minutes=float(log.minutes[2 * match]),
        )
        infos = [member_info(winner), member_info(loser)]
        results.append(
            await services.matches.report(
                guild, MODERATOR, lineup, request_id=f"r{match}", members=infos
            )
        )
    return results


async def stored_ratings(services: Services, member_count: int, guild: int = GUILD) -> np.ndarray:
    """Every member's ladder rating (nan for a member without a match)."""
    page = await services.standings.leaderboard(guild, by="ladder", page=1, page_size=0)
    ratings = np.full(member_count, np.nan)
    for row in page.rows:
        ratings[row.user_id - FIRST_USER_ID] = row.rating
    return ratings


def disagreement(stored: np.ndarray, log: MatchLog) -> float:
    """Largest |stored - plain-loop replay| over the members who played."""
    _, _, final = replay_plain(log, DEFAULT_SETTINGS)
    played = np.unique(log.player)
    return float(np.max(np.abs(stored[played] - np.array(final)[played])))


async def reports_per_second(
    sizes: Sizes, engine: str = "sqlite", guilds: int = 1
) -> tuple[list[float], float]:
    """Per batch: duels applied per second, with `guilds` guilds reporting at once (one task
    each, the same duels in every guild, report_batch in all); and the stored ratings'
    largest disagreement at the end."""
    per_guild = sizes.report_batch // guilds
    log = duel_log(sizes.runs * per_guild, sizes.guild_members)
    chosen = range(GUILD, GUILD + guilds)
    async with temporary_ladder(engine) as services:
        for guild in chosen:
            await services.members.upsert(guild, member_infos(log))
        rates = []
        for batch in range(sizes.runs):
            first = batch * per_guild
            seconds, results = await timed(
                asyncio.gather(
                    *(report_duels(services, log, first, per_guild, guild) for guild in chosen)
                )
            )
            if not all(result.applied for reported in results for result in reported):
                raise AssertionError("a moderator's duel was not applied at once")
            rates.append(per_guild * guilds / seconds)
        return rates, max(
            [
                disagreement(await stored_ratings(services, log.member_count, guild), log)
                for guild in chosen
            ]
        )


async def recorded_reports(sizes: Sizes, folder: str) -> tuple[str, str, str]:
    """One batch of duels reported through the service on a SQLite database in `folder`,
    with every statement its writer connection runs recorded: the database's path, a copy
    of it from before the batch, and the statements (a JSON list of SQL texts with their
    values written in) - what the floor of the report rate runs."""
    log = duel_log(sizes.report_batch, sizes.guild_members)
    path, before, script = (os.path.join(folder, name) for name in FLOOR_FILES)
    recorded: list[str] = []
    async with await Services.open(path, Config(), fill_cache=True) as services:
        await services.members.upsert(GUILD, member_infos(log))
        await asyncio.to_thread(_copied, path, before)
        engine = services.context.db.engine
        assert isinstance(engine, SqliteEngine)
        writer = engine._writer_connection  # the bench's own look inside the engine
        await writer.set_trace_callback(recorded.append)
        await report_duels(services, log, 0, sizes.report_batch)
        batch = recorded.copy()  # not what closing the service runs
    # sqlite3 traces a trigger's run as its statement once more: each is run once.
    with open(script, "w", encoding="utf-8") as target:
        json.dump([text for index, text in enumerate(batch) if batch[index - 1] != text], target)
    return path, before, script


async def reports_floor(sizes: Sizes) -> float:
    """The floor of one guild's report rate on SQLite (issue 29): the statements of a batch
    of reports (`recorded_reports`) run by plain sqlite3 in a fresh process (bench.floor) on
    the database as it was before the batch. Reports a second."""
    with tempfile.TemporaryDirectory() as folder:
        _, before, script = await recorded_reports(sizes, folder)
        done = subprocess.run(
            [sys.executable, "-c", FLOOR_MAIN, "statements", before, script],
            check=True,
            capture_output=True,
            text=True,
        )
    return sizes.report_batch / float(done.stdout)


def _copied(path: str, copy: str) -> None:
    """A copy of the SQLite database at `path` (WAL included) at `copy`."""
    with sqlite3.connect(path) as source, sqlite3.connect(copy) as target:
        source.backup(target)


@dataclass
class GuildFigures:
    build_seconds: float
    void_seconds: list[float]
    reads: dict[str, list[float]]
    disagreement_built: float
    disagreement_voided: float


READS: dict[str, Callable[[Services, int], Awaitable[Any]]] = {
    "/rating (card, p8)": lambda services, member: services.standings.rating_card(
        GUILD, user_id(member)
    ),
    "/leaderboard by ladder, page 1": lambda services, _: services.standings.leaderboard(
        GUILD, by="ladder"
    ),
    "/leaderboard by p8, page 1": lambda services, _: services.standings.leaderboard(
        GUILD, by="p8"
    ),
}


async def big_guild(sizes: Sizes, engine: str = "sqlite") -> GuildFigures:
    """Build the guild by CSV import, time the reads, then void the newest match `runs` times
    (reading again after each void, when nothing can be cached)."""
    log = duel_log(sizes.guild_matches, sizes.guild_members)
    text = import_text(log)
    async with temporary_ladder(engine) as services:
        await services.members.upsert(GUILD, member_infos(log))
        build, _ = await timed(services.transfers.import_csv(GUILD, MODERATOR, text))
        built = disagreement(await stored_ratings(services, log.member_count), log)
        reads: dict[str, list[float]] = {}
        for name, read in READS.items():
            for run in range(sizes.runs):
                seconds, _ = await timed(read(services, run))
                reads.setdefault(f"{name}, repeated", []).append(seconds)
        voids = []
        for run in range(sizes.runs):
            recent = await services.matches.list_matches(GUILD, limit=sizes.runs + 1)
            newest = next(match for match in recent if match.status == "applied")
            seconds, result = await timed(services.matches.void(GUILD, MODERATOR, newest.id))
            if result.replayed != 0:
                raise AssertionError(f"voiding the newest match replayed {result.replayed}")
            voids.append(seconds)
            for name, read in READS.items():
                seconds, _ = await timed(read(services, run))
                reads.setdefault(f"{name}, after a void", []).append(seconds)
        voided = disagreement(
            await stored_ratings(services, log.member_count),
            log.head(sizes.guild_matches - sizes.runs),
        )
    return GuildFigures(build, voids, reads, built, voided)


ENGINE_NAMES = {
    "sqlite": "SQLite file, WAL, synchronous=FULL",
    "postgresql": "PostgreSQL, local server",
}


def run(quick: bool) -> list[Table]:
    sizes = QUICK if quick else FULL
    return [table for engine in engines() for table in run_on(engine, sizes)]


def run_on(engine: str, sizes: Sizes) -> list[Table]:
    writes = Table(
        f"Service: reports applied per second ({ENGINE_NAMES[engine]})",
        ["operation", "median", "target", "floor"],
    )
    floor = asyncio.run(reports_floor(sizes)) if engine == "sqlite" else None
    worst = 0.0
    for guilds in (1, CONCURRENT_GUILDS):
        rates, reported = asyncio.run(reports_per_second(sizes, engine, guilds))
        worst = max(worst, reported)
        rate = statistics.median(rates)
        met = rate >= TARGET_REPORTS_PER_SECOND
        writes.add(
            f"duel reported by a moderator, "
            f"{'one guild' if guilds == 1 else f'{guilds} guilds at once'} "
            f"(batches of {sizes.report_batch // guilds * guilds:,})",
            f"{rate:,.0f} /s ({format_seconds(1 / rate)} each)",
            f">= {TARGET_REPORTS_PER_SECOND:,.0f}/s {verdict(met)}"
            if TARGETED_GUILDS[engine] == guilds
            else "(for comparison)",
            f"{floor:,.0f} /s: {rate / floor:.2f}x the floor"
            if floor is not None and guilds == 1
            else "",
        )
    writes.notes.append(
        f"median of {sizes.runs} batches, each report a separate durable transaction through "
        f"services.matches.report (at once: one task per guild, the same duels in each); stored "
        f"ratings vs the plain loop over the same duels: max |Δ| {worst:.1e} "
        f"({verdict(worst <= AGREEMENT)}, <= {AGREEMENT:g})."
    )
    if floor is not None:
        writes.notes.append(
            "floor (bench.service.reports_floor): the statements the writer ran for one batch "
            "of these reports, recorded, then run one by one through plain sqlite3 on a copy "
            "of the database from before the batch (a durable COMMIT each, as recorded)."
        )
    guild = asyncio.run(big_guild(sizes, engine))
    reads = Table(
        f"Service ({engine}): a {sizes.guild_matches:,}-match guild "
        f"({sizes.guild_members:,} members, duels)",
        ["operation", "median", "target"],
    )
    reads.add(
        f"build: import_csv of {sizes.guild_matches:,} matches",
        format_seconds(guild.build_seconds),
        "(setup)",
    )
    void = statistics.median(guild.void_seconds)
    reads.add(
        "void the newest match",
        format_seconds(void),
        f"<= 50 ms {verdict(void <= TARGET_VOID_SECONDS)}",
    )
    for name, times in guild.reads.items():
        read = statistics.median(times)
        reads.add(name, format_seconds(read), f"<= 20 ms {verdict(read <= TARGET_READ_SECONDS)}")
    reads.notes += [
        f"medians of {sizes.runs} calls; 'after a void' times the first call after the ratings "
        "changed (no cache can answer it); the card is of a different member each call.",
        f"stored ratings vs the plain loop: max |Δ| {guild.disagreement_built:.1e} after the "
        f"import, {guild.disagreement_voided:.1e} after the voids "
        f"({verdict(max(guild.disagreement_built, guild.disagreement_voided) <= AGREEMENT)}).",
    ]
    return [writes, reads]
