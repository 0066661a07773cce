"""Benchmark: a big guild of 8-player matches (issue 9). The command line as whole processes
- `ladderbot import` of 100,000 matches' CSV, `ladderbot recompute`, the void of the oldest
match - each against openskill's PlackettLuce over the same stream in memory, measured in the
same run; the peak memory of a 1,000,000-match recompute; and a cold `/leaderboard by:p8` of
50,000 members in process, with its longest event-loop stall. SQLite always, PostgreSQL too
when LADDERBOT_BENCH_POSTGRES is set (bench.service)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bench import floor
from bench.baselines import replay_openskill
from bench.data import MatchLog, match_log
from bench.harness import Table, format_seconds, verdict
from bench.measured import PEAK_MARK, peak_resident_bytes, status_bytes
from bench.replay import MB, waves
from bench.responsiveness import loop_lag
from bench.service import (
    ENGINE_NAMES,
    FLOOR_MAIN,
    GUILD,
    START_TIME,
    engines,
    import_text,
    stored_ratings,
    temporary_database,
    user_id,
)
from bot.config import Config
from bot.ratings.ladder import match_outcomes
from bot.services import Services
from bot.storage import Database, NewMatch, NewParticipant, logchunks
from bot.storage.engine import INSERT_SLICE_ROWS

TARGET_RECOMPUTE_RATIO = {"sqlite": 5.0, "postgresql": 3.0}
TARGET_IMPORT_RATIO = {"sqlite": 2.0, "postgresql": 1.0}
TARGET_VOID_OVER_RECOMPUTE = 1.2
TARGET_BIG_PEAK_MB = 1_000.0
TARGET_BOARD_SECONDS = 1.0
TARGET_BOARD_MB = 300.0
TARGET_STALL_SECONDS = 0.100
BOARD_RUNS = 3
"""Fresh processes reading the cold board: one run on a busy 2-core host varied by 0.3 s."""
AGREEMENT = 1e-6
"""Stored ratings against replay_waves over the same stream."""
BUILD_CHUNK = 20_000
"""Matches per write transaction when building a big guild through the storage layer."""


@dataclass(frozen=True, slots=True)
class Sizes:
    stream_matches: int
    stream_members: int
    big_matches: int
    board_matches: int
    board_members: int


FULL = Sizes(100_000, 10_000, 1_000_000, 100_000, 50_000)
QUICK = Sizes(5_000, 1_000, 20_000, 5_000, 2_500)


# --- whole processes --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Process:
    seconds: float
    """Wall time from start to exit, interpreter start included."""
    peak_bytes: int
    output: str


COMMAND_PROCESS = "from bench.measured import command_process; command_process()"
"""Only what `ladderbot` itself imports is timed (bench.scale would add 0.15 s)."""


def run_process(*arguments: str, probe: str = COMMAND_PROCESS) -> Process:
    """A fresh Python process running `probe` (command_process) with ARGUMENTS; raises if
    it fails."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", probe, *arguments],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise AssertionError(f"{arguments[0]} exited {done.returncode}: {done.stderr[-2000:]}")
    peaks = [line for line in done.stderr.splitlines() if line.startswith(PEAK_MARK)]
    return Process(seconds, int(peaks[-1].removeprefix(PEAK_MARK)), done.stdout)


def ladderbot(command: str, url: str, *rest: str) -> Process:
    return run_process(command, "--guild", str(GUILD), "--db", url, *rest)


async def _oldest_match_id(url: str) -> int:
    """The id of the stream's match 0 (imported under its CSV label '0')."""
    db = await Database.open(url)
    try:
        (oldest,) = await db.read.keyed_matches(GUILD, ["0"], [])
    finally:
        await db.close()
    return oldest.id


async def _disagreement(url: str, log: MatchLog) -> float:
    """Largest |stored rating - replay_waves final| over the stream's players."""
    async with await Services.open(url, Config()) as services:
        stored = await stored_ratings(services, log.member_count)
    played = np.unique(log.player)
    return float(np.max(np.abs(stored[played] - waves(log).final[played])))


@dataclass(frozen=True, slots=True)
class CommandFigures:
    imported: Process
    recomputed: Process
    voided: Process
    disagreements: dict[str, float]
    """After import, recompute and void: stored ratings vs replay_waves of the stream."""
    floors: dict[str, Process] | None = None
    """The same work through plain sqlite3 and the same replay; PostgreSQL: the void's
    (bench.floor)."""


def command_line(engine: str, log: MatchLog) -> CommandFigures:
    """Import the stream's CSV into a fresh database, recompute, void the oldest match:
    each as its own process."""

    async def measured() -> CommandFigures:
        with tempfile.TemporaryDirectory() as folder:
            csv = os.path.join(folder, "matches.csv")
            with open(csv, "w", encoding="utf-8") as out:
                out.write(import_text(log))
            floors: dict[str, Process] | None = None
            async with temporary_database(engine) as url:
                imported = ladderbot("import", url, csv)
                after_import = await _disagreement(url, log)
                recomputed = ladderbot("recompute", url)
                after_recompute = await _disagreement(url, log)
                if engine == "sqlite":
                    empty = os.path.join(folder, "floor.sqlite3")
                    floors = {
                        "import": run_process("import", empty, csv, url, probe=FLOOR_MAIN),
                        "recompute": run_process("recompute", url, str(GUILD), probe=FLOOR_MAIN),
                        "void": run_process("void", url, str(GUILD), probe=FLOOR_MAIN),
                    }
                else:
                    floors = {
                        "void": run_process("void-postgresql", url, str(GUILD), probe=FLOOR_MAIN)
                    }
                voided = ladderbot("void", url, str(await _oldest_match_id(url)))
                after_void = await _disagreement(url, log.matches(1, log.match_count))
        return CommandFigures(
            imported,
            recomputed,
            voided,
            {"import": after_import, "recompute": after_recompute, "void": after_void},
            floors,
        )

    return asyncio.run(measured())


# --- a big guild built through the storage layer ------------------------------------------


def _new_matches(log: MatchLog, first: int, stop: int) -> list[NewMatch]:
    """Matches first..stop-1 as the import stores them: applied, records from the scores."""
    made = []
    size = log.players_per_match
    for match in range(first, stop):
        rows = slice(match * size, (match + 1) * size)
        sides = [str(side) for side in log.side[rows].tolist()]
        scores, minutes = log.score[rows].tolist(), log.minutes[rows].tolist()
        outcomes = match_outcomes(sides, scores, minutes)
        participants = tuple(
            NewParticipant(user_id(player), None, side, score, played, True, outcome)
            for player, side, score, played, outcome in zip(
                log.player[rows].tolist(), sides, scores, minutes, outcomes, strict=True
            )
        )
        played_at = START_TIME + match
        made.append(NewMatch(None, played_at, played_at, f"bench:{match}", participants))
    return made


async def build_guild(url: str, log: MatchLog) -> None:
    """The stream stored as applied matches, BUILD_CHUNK per transaction, ratings not yet
    computed (a recompute fills them): far faster than `ladderbot import` for a million."""
    db = await Database.open(url)
    try:
        async with db.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, Config().defaults)
            await tx.add_members(GUILD, [user_id(m) for m in range(log.member_count)])
        for first in range(0, log.match_count, BUILD_CHUNK):
            chunk = _new_matches(log, first, min(first + BUILD_CHUNK, log.match_count))
            async with db.write(GUILD) as tx:
                ids = await tx.new_match_ids(len(chunk))
                await tx.insert_matches(GUILD, chunk, "applied", ids, [m.played_at for m in chunk])
    finally:
        await db.close()


@dataclass(frozen=True, slots=True)
class BigFigures:
    build_seconds: float
    filling: Process
    """The first recompute, which computes every rating."""
    again: Process
    """A second recompute, of a guild whose ratings are up to date."""


def big_recompute(engine: str, matches: int) -> BigFigures:
    log = match_log(matches)

    async def measured() -> BigFigures:
        async with temporary_database(engine) as url:
            started = time.perf_counter()
            await build_guild(url, log)
            build = time.perf_counter() - started
            return BigFigures(build, ladderbot("recompute", url), ladderbot("recompute", url))

    return asyncio.run(measured())


# --- a cold /leaderboard by:p8 in process --------------------------------------------------


async def _cold_board(url: str) -> dict[str, float]:
    """A cold `services.standings.leaderboard(by="p8")`: wall time, longest loop stall and the
    process's peak resident growth; then again under tracemalloc for the call's traced peak. The
    service is opened as the command line opens it: its reads store nothing, so the
    performance cache stays cold for the second call too."""
    async with await Services.open(url, Config()) as services:
        resident = status_bytes("VmRSS")
        async with loop_lag() as lag:
            started = time.perf_counter()
            page = await services.standings.leaderboard(GUILD, by="p8")
            seconds = time.perf_counter() - started
        peak = peak_resident_bytes()
        tracemalloc.start()
        await services.standings.leaderboard(GUILD, by="p8")
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return {
        "seconds": seconds,
        "stall": lag.longest,
        "growth": peak - resident,
        "peak": peak,
        "traced": traced,
        "ranked": page.total,
    }


def board_process(url: str) -> None:
    """In a fresh process (its peak resident set is the board's alone): print the figures."""
    print(json.dumps(asyncio.run(_cold_board(url))))


def cold_board(engine: str, matches: int, members: int) -> dict[str, float]:
    """Build a guild of `matches` among `members`, recompute it, then read the board cold in a
    fresh process, BOARD_RUNS times: the median wall time with the fastest and the slowest,
    and the largest memory and stall of the runs."""
    log = match_log(matches, members)

    async def measured() -> list[dict[str, float]]:
        async with temporary_database(engine) as url:
            await build_guild(url, log)
            ladderbot("recompute", url)
            probe = f"from bench.scale import board_process; board_process({url!r})"
            return [
                json.loads(
                    subprocess.run(
                        [sys.executable, "-c", probe], check=True, capture_output=True, text=True
                    ).stdout
                )
                for _ in range(BOARD_RUNS)
            ]

    runs = asyncio.run(measured())
    seconds = [run["seconds"] for run in runs]
    largest = {
        name: max(run[name] for run in runs) for name in ("stall", "growth", "peak", "traced")
    }
    return {
        **largest,
        "seconds": float(np.median(seconds)),
        "fastest": min(seconds),
        "slowest": max(seconds),
        "ranked": runs[0]["ranked"],
    }


# --- the tables -------------------------------------------------------------------------


def _megabytes(count: float) -> str:
    return f"{count / MB:.0f} MB"


def _wall_and_peak(process: Process) -> str:
    return f"{format_seconds(process.seconds)}, peak {_megabytes(process.peak_bytes)}"


def command_table(engine: str, log: MatchLog, openskill_seconds: float) -> Table:
    found = command_line(engine, log)
    table = Table(
        f"Scale ({ENGINE_NAMES[engine]}): the command line on {log.match_count:,} matches of 8 "
        f"(half 4v4, half free-for-all), {log.member_count:,} members",
        ["operation", "figure", "baseline", "ratio", "target", "floor"],
    )
    floors = found.floors or {}

    def floor(step: str, process: Process, standing: Callable[[float], str] | None = None) -> str:
        """The floor's figures, the command's time over it, and what `standing` says of the
        floor's own time (against the target's baseline)."""
        if step not in floors:
            return ""
        bottom = floors[step]
        figures = f"{_wall_and_peak(bottom)}: {process.seconds / bottom.seconds:.2f}x the floor"
        return figures if standing is None else f"{figures}; {standing(bottom.seconds)}"

    openskill = f"openskill PlackettLuce {format_seconds(openskill_seconds)}"
    recompute_ratio = openskill_seconds / found.recomputed.seconds
    target = TARGET_RECOMPUTE_RATIO[engine]
    table.add(
        "`ladderbot recompute`, whole process",
        _wall_and_peak(found.recomputed),
        openskill,
        f"{recompute_ratio:.2f}x faster",
        f">= {target:g}x {verdict(recompute_ratio >= target)}",
        floor("recompute", found.recomputed),
    )
    import_ratio = openskill_seconds / found.imported.seconds
    table.add(
        "`ladderbot import` of its CSV, whole process",
        _wall_and_peak(found.imported),
        openskill,
        f"{import_ratio:.2f}x faster",
        f">= {TARGET_IMPORT_RATIO[engine]:g}x "
        f"{verdict(import_ratio >= TARGET_IMPORT_RATIO[engine])}",
        floor(
            "import",
            found.imported,
            lambda seconds: f"the floor itself {openskill_seconds / seconds:.2f}x faster",
        ),
    )
    void_ratio = found.voided.seconds / found.recomputed.seconds
    table.add(
        "void the oldest match, whole process",
        _wall_and_peak(found.voided),
        f"the recompute {format_seconds(found.recomputed.seconds)}",
        f"{void_ratio:.2f}x the recompute",
        f"<= {TARGET_VOID_OVER_RECOMPUTE:g}x {verdict(void_ratio <= TARGET_VOID_OVER_RECOMPUTE)}",
        floor(
            "void",
            found.voided,
            lambda seconds: (
                f"the floor itself {seconds / found.recomputed.seconds:.2f}x the recompute"
            ),
        ),
    )
    worst = max(found.disagreements.values())
    table.notes += [
        "whole process: wall time of a fresh `python -c` that runs bot.cli.main (as "
        "`python -m bot` does) and prints its peak resident set (VmHWM) as it exits; the "
        "import goes into a fresh database; `ladderbot void` voids the stream's first match "
        "(it replays every later one).",
        "openskill: bench.baselines.replay_openskill over the whole stream in memory, once, "
        "in this run (sides ranked by summed score per hour).",
        "stored ratings vs replay_waves of the stream: max |Δ| "
        + ", ".join(f"after {step} {delta:.1e}" for step, delta in found.disagreements.items())
        + f" ({verdict(worst <= AGREEMENT)}, <= {AGREEMENT:g}).",
    ]
    if engine == "postgresql" and floors:
        table.notes.append(
            "floor (bench.floor, issue 29): the void's least, a fresh process reading the "
            "log's column BLOBs through asyncpg and replaying them without the first match "
            "(replay_waves), then one UPDATE of every participant's two ratings to the "
            "values they hold, rolled back (the command sends the new ones by COPY and "
            "joins them). Where the floor itself misses the target, no void that writes "
            "the rows can meet it on this host."
        )
    elif floors:
        table.notes.append(
            "floor (bench.floor, issue 29): the same work with none of ladderbot's machinery, "
            "a fresh process each: the recompute reads the log's column BLOBs through plain "
            "sqlite3 and replays them (replay_waves); the void does that for the log without "
            "its first match and sends the same UPDATEs of every participant's ratings, a "
            "match's rows by one statement (executemany, rolled back: no commit, no chunk "
            "written); the import parses the CSV with pyarrow, replays, and writes into an "
            "empty file of the command's schema (foreign keys on) the same rows, indexes, "
            "column BLOBs and ratings in one durable transaction, checking nothing. 'x the "
            "floor' is the command's wall time over it. Where the floor itself misses a "
            "target, no command doing that work can meet it on this host."
        )
    return table


def memory_table(engine: str, sizes: Sizes) -> Table:
    big = big_recompute(engine, sizes.big_matches)
    board = cold_board(engine, sizes.board_matches, sizes.board_members)
    table = Table(
        f"Scale ({ENGINE_NAMES[engine]}): memory and a cold /leaderboard by:p8",
        ["operation", "figure", "baseline", "ratio", "target"],
    )
    for label, process in (("computes every rating", big.filling), ("up to date", big.again)):
        table.add(
            f"peak memory, `ladderbot recompute` of {sizes.big_matches:,} matches ({label})",
            _megabytes(process.peak_bytes),
            "",
            f"{format_seconds(process.seconds)} wall",
            f"<= {TARGET_BIG_PEAK_MB:,.0f} MB "
            f"{verdict(process.peak_bytes <= TARGET_BIG_PEAK_MB * MB)}",
        )
    board_title = (
        f"/leaderboard by:p8, cold ({sizes.board_members:,} members, "
        f"{sizes.board_matches:,} matches): services.standings.leaderboard"
    )
    table.add(
        f"{board_title}, wall time (median of {BOARD_RUNS} fresh processes)",
        f"{format_seconds(board['seconds'])} ({format_seconds(board['fastest'])}"
        f" to {format_seconds(board['slowest'])})",
        "",
        "",
        f"<= {TARGET_BOARD_SECONDS:g} s {verdict(board['seconds'] <= TARGET_BOARD_SECONDS)}",
    )
    largest = max(board["growth"], board["traced"])
    table.add(
        f"{board_title}, memory",
        f"+{_megabytes(board['growth'])} resident, {_megabytes(board['traced'])} traced",
        f"process peak {_megabytes(board['peak'])}",
        "",
        f"<= {TARGET_BOARD_MB:g} MB {verdict(largest <= TARGET_BOARD_MB * MB)}",
    )
    table.add(
        f"{board_title}, longest event-loop stall",
        format_seconds(board["stall"]),
        "",
        "",
        f"<= 100 ms {verdict(board['stall'] <= TARGET_STALL_SECONDS)}",
    )
    table.notes += [
        f"the {sizes.big_matches:,}-match guild (10,000 members) is built through the storage "
        f"layer (WriteTransaction.insert_matches, {BUILD_CHUNK:,} matches per transaction, "
        f"{format_seconds(big.build_seconds)}), not by `ladderbot import`, which is too slow "
        "for a million today; the first `ladderbot recompute` computes every rating, the "
        "second finds them up to date. Peak memory is the process's VmHWM.",
        f"the board's guild is built the same way, then recomputed; {board['ranked']:,.0f} "
        f"members ranked. The read runs in a fresh process, {BOARD_RUNS} times, with the "
        "service opened as the command line opens it (its reads store nothing, so the cache "
        "stays cold): memory is the growth of the peak resident set over the resident set "
        "before the call, and tracemalloc's peak of the same call made again (still cold), "
        "the largest of the runs; the verdict takes the larger. The stall, the longest "
        "of the runs, is bench.responsiveness's sampler during the call (the bot's cache "
        "fill after it is measured by `python -m bench responsiveness`).",
    ]
    return table


def run(quick: bool) -> list[Table]:
    mirrored = {
        "LAYOUT": (tuple((name, dtype.str) for name, dtype in logchunks.FIELDS), floor.LAYOUT),
        "CHUNK_ENTRIES": (logchunks.CHUNK_ENTRIES, floor.CHUNK_ENTRIES),
        "SLICE_ROWS": (INSERT_SLICE_ROWS, floor.SLICE_ROWS),
    }
    for name, (storage, written_out) in mirrored.items():
        if storage != written_out:
            raise AssertionError(f"bench.floor.{name} no longer matches bot.storage's")
    sizes = QUICK if quick else FULL
    log = match_log(sizes.stream_matches, sizes.stream_members)
    started = time.perf_counter()
    replay_openskill(log)
    openskill_seconds = time.perf_counter() - started
    tables = [command_table(engine, log, openskill_seconds) for engine in engines()]
    tables.append(memory_table("sqlite", sizes))
    tables[-1].notes.append(
        "measured on SQLite only: building a million-match PostgreSQL guild takes too long for "
        "this benchmark's run."
    )
    return tables
