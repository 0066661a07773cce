"""SPEC 8.6 under load: read commands beside a fast writer each see one committed state.

`run_beside_writer` starts tests/storage/fast_writer.py (another process, reporting matches
into guild 1 as fast as the database takes them) and meanwhile runs the command line's
`leaderboard --by p8|p3|ra --json`, `rating MEMBER --json` and `gr MEMBER` in this process,
one after another, until the writer stops. `check_reads` then holds every read to the log the
writer left: the writer only appends, so each committed state is the log's first k matches,
and a read is consistent when it equals what the first k matches give, for one k:
- a leaderboard: its games add up to those of the first k matches (which fixes k: every
  match adds at least two); every row's ladder rating and record equal member's after
  match k, its members are exactly those who played by then, and its measure (p8, p3, RA)
  is the one computed from the games of the first k matches;
- a rating card: its rating and record are the member's after some k, its rank is the rank
  after one of those k, its performance, RA and recent form are those of the member's games
  by then;
- a game list: the member's games after some k, that is the newest run's oldest lines,
  ending where one of their matches ends.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from bot.cli import Streams, main
from bot.config import Config, GuildSettings
from bot.ratings.gamelist import format_games
from bot.services import Services
from bot.services.core import elo_bridge
from bot.services.performances import RATING_ACCURACY, measured
from bot.storage import Database, Match, PlayedColumns
from tests.storage.fast_writer import GUILD, MEMBERS

ROOT = Path(__file__).resolve().parents[2]
WRITER_SECONDS = 20.0
MEASURES = ("p8", "p3", "ra")
RECENT = 5
"""Matches of a card's recent form."""
RELATIVE = 1e-9
"""Measures computed from the same games agree to this (the order of a sum may differ)."""

State = tuple[float, int, int, int, int]
"""A member's ladder rating, games, wins, draws, losses."""


@dataclass
class Read:
    argv: list[str]
    status: int | None
    stdout: str
    stderr: str
    crash: str | None = None


@dataclass
class Run:
    reads: list[Read] = field(default_factory=list)
    reported: int = 0
    writer_stderr: str = ""


def cli(argv: list[str]) -> Read:
    stdout, stderr = io.StringIO(), io.StringIO()
    try:
        status: int | None = main(argv, Streams(io.StringIO(), stdout, stderr))
    except Exception:
        return Read(argv, None, stdout.getvalue(), stderr.getvalue(), traceback.format_exc())
    return Read(argv, status, stdout.getvalue(), stderr.getvalue())


def read_commands(turn: int, url: str) -> list[str]:
    where = ["--guild", str(GUILD), "--db", url]
    member = str(1 + turn // 5 % MEMBERS)
    kinds = [
        *(["leaderboard", "--by", measure, "--json", *where] for measure in MEASURES),
        ["rating", member, "--json", *where],
        ["gr", member, *where],
    ]
    return kinds[turn % len(kinds)]


def run_beside_writer(url: str, seconds: float = WRITER_SECONDS) -> Run:
    """The reads made while the writer ran, `seconds` from its start (a first match of every
    member before)."""
    everyone = ", ".join(f"<@{user_id}> {user_id % 4}" for user_id in range(1, MEMBERS + 1))
    first = cli(["report", everyone, "--guild", str(GUILD), "--db", url])
    assert first.status == 0, first
    writer = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.fast_writer", url, repr(time.time() + seconds)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    run = Run()
    try:
        time.sleep(0.5)  # the writer under way
        while writer.poll() is None:
            run.reads.append(cli(read_commands(len(run.reads), url)))
        out, run.writer_stderr = writer.communicate(timeout=30)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert writer.returncode == 0, run.writer_stderr
    run.reported = int(out)
    return run


@dataclass(repr=False)  # asyncio.run shows its result in full (a second for 10,000 matches)
class Log:
    """The guild's log as the writer left it, and the state after each of its matches."""

    matches: list[Match]
    played: PlayedColumns
    settings: GuildSettings
    states: list[dict[int, State]]
    """states[k]: every member who played by then, after the first k matches."""
    games: dict[int, int]
    """The number of games in the first k matches -> k."""
    final_lines: dict[int, list[str]]
    """Each member's game list (gr) of the whole log."""
    lines_after: dict[int, list[int]]
    """Each member's game list length after each of their matches, in order."""
    changed: dict[int, list[int]]
    """Each member's matches by k (their state changes after each), in order."""
    _measured: dict[tuple[int, str], dict[int, float]] = field(default_factory=dict)

    def measure(self, k: int, measure: str, user_ids: Sequence[int]) -> dict[int, float]:
        """The measure of the members as the first k matches give it."""
        if (k, measure) not in self._measured:
            last = self.matches[k - 1].id
            keep = self.played.match_id <= last
            played = PlayedColumns(
                *(getattr(self.played, column.name)[keep] for column in fields(PlayedColumns))
            )
            found = measured(played, sorted(self.states[k]), [measure], elo_bridge(self.settings))
            self._measured[k, measure] = {
                user_id: performance.value for (user_id, _), performance in found.items()
            }
        return {user_id: self._measured[k, measure][user_id] for user_id in user_ids}

    def rank(self, k: int, user_id: int) -> int:
        rating, games = self.states[k][user_id][:2]
        return 1 + sum(
            (other[0], other[1], -other_id) > (rating, games, -user_id)
            for other_id, other in self.states[k].items()
            if other[1] >= self.settings.min_games
        )


async def read_log(url: str) -> Log:
    db = await Database.open(url, create=False)
    try:
        matches = sorted(await db.read.all_matches(GUILD), key=lambda match: match.id)
        played = await db.read.played_columns(GUILD)
        settings = await db.read.guild_settings(GUILD)
    finally:
        await db.close()
    async with await Services.open(url, Config()) as services:
        final_lines = {
            user_id: format_games(
                await services.standings.game_history(GUILD, user_id)
            ).splitlines()
            for user_id in range(1, MEMBERS + 1)
        }
    assert settings is not None
    assert all(match.status == "applied" for match in matches)
    applied = [match.applied_at or 0.0 for match in matches]
    assert applied == sorted(applied)  # the log order is the id order: prefixes are states
    state: dict[int, State] = {}
    states: list[dict[int, State]] = [{}]
    games = {0: 0}
    lines_after: dict[int, list[int]] = {}
    changed: dict[int, list[int]] = {}
    total = 0
    for k, match in enumerate(matches, start=1):
        for p in match.participants:
            assert p.user_id is not None and p.rating_after is not None and p.outcome
            _, played_games, wins, draws, losses = state.get(p.user_id, (0.0, 0, 0, 0, 0))
            state[p.user_id] = (
                p.rating_after,
                played_games + 1,
                wins + (p.outcome == "win"),
                draws + (p.outcome == "draw"),
                losses + (p.outcome == "loss"),
            )
            opponents = sum(other.side != p.side for other in match.participants)
            counts = lines_after.setdefault(p.user_id, [0])
            counts.append(counts[-1] + opponents)
            changed.setdefault(p.user_id, []).append(k)
        total += len(match.participants)
        states.append(dict(state))
        games[total] = k
    assert all(len(final_lines[user]) == lines[-1] for user, lines in lines_after.items())
    return Log(matches, played, settings, states, games, final_lines, lines_after, changed)


def same(value: float | None, expected: float) -> bool:
    if value is None:
        return not math.isfinite(expected)
    return math.isclose(value, expected, rel_tol=RELATIVE, abs_tol=RELATIVE)


def leaderboard_problem(log: Log, measure: str, rows: list[dict[str, Any]]) -> str | None:
    total = sum(row["games"] for row in rows)
    k = log.games.get(total)
    if k is None:
        return f"{total} games: no committed state has that many"
    state = log.states[k]
    if sorted(row["user_id"] for row in rows) != sorted(state):
        return f"the members of state {k} are {sorted(state)}"
    for row in rows:
        shown = (row["rating"], row["games"], row["wins"], row["draws"], row["losses"])
        if shown != state[row["user_id"]]:
            return f"member {row['user_id']}: {shown}, but {state[row['user_id']]} at {k}"
    expected = log.measure(k, measure, [row["user_id"] for row in rows])
    for row in rows:
        if not same(row["value"], expected[row["user_id"]]):
            return f"member {row['user_id']}: {measure} {row['value']} not {expected} at {k}"
    return None


def card_problem(log: Log, card: dict[str, Any]) -> str | None:
    user_id = card["user_id"]
    shown = (card["rating"], card["games"], card["wins"], card["draws"], card["losses"])
    theirs = log.changed[user_id]  # the card's games fix the member's state, if any
    if not 1 <= card["games"] <= len(theirs):
        return f"{card['games']} games: the member never had that many"
    first = theirs[card["games"] - 1]
    ks = range(first, theirs[card["games"]] if card["games"] < len(theirs) else len(log.states))
    if log.states[first][user_id] != shown:
        return f"{shown}, but {log.states[first][user_id]} after that many games"
    if card["rank"] not in {log.rank(k, user_id) for k in ks}:
        return f"rank {card['rank']} is the rank after none of states {ks[0]}..{ks[-1]}"
    for measure, value in ((card["variant"], card["performance"]), (RATING_ACCURACY, card["ra"])):
        expected = log.measure(ks[0], measure, [user_id])[user_id]
        if not same(value, expected):
            return f"{measure} {value}, but {expected} from the member's games"
    newest = [log.matches[k - 1].id for k in theirs[: card["games"]]][::-1][:RECENT]
    form = [entry["match_id"] for entry in card["form"]]
    if form != newest:
        return f"recent form {form}, but the member's newest matches are {newest}"
    return None


def game_list_problem(log: Log, user_id: int, text: str) -> str | None:
    lines = text.splitlines()
    if len(lines) not in log.lines_after[user_id]:
        return f"{len(lines)} lines end inside a match"
    if lines != log.final_lines[user_id][len(log.final_lines[user_id]) - len(lines) :]:
        return "the lines are not the member's oldest games"
    return None


def check_reads(url: str, run: Run) -> dict[str, int]:
    """Every read's problems (none expected); the number of reads of each kind."""
    log = asyncio.run(read_log(url))
    assert len(log.matches) == run.reported + 1
    problems = []
    kinds: dict[str, int] = {}
    for read in run.reads:
        name = " ".join(read.argv[:3] if read.argv[0] == "leaderboard" else read.argv[:1])
        kinds[name] = kinds.get(name, 0) + 1
        if read.crash is not None or read.status != 0 or read.stderr:
            problems.append(f"{name}: exit {read.status} {read.stderr}{read.crash or ''}")
            continue
        if read.argv[0] == "leaderboard":
            problem = leaderboard_problem(log, read.argv[2], json.loads(read.stdout))
        elif read.argv[0] == "rating":
            problem = card_problem(log, json.loads(read.stdout))
        else:
            problem = game_list_problem(log, int(read.argv[1]), read.stdout)
        if problem is not None:
            problems.append(f"{' '.join(read.argv[:4])}: {problem}")
    assert not problems, f"{len(problems)} of {len(run.reads)} reads:\n" + "\n".join(problems[:10])
    return kinds


def checked_run(url: str) -> None:
    started = time.monotonic()
    run = run_beside_writer(url)
    checking = time.monotonic()
    kinds = check_reads(url, run)
    print(
        f"{run.reported} reports beside {len(run.reads)} reads: {kinds}; "
        f"{checking - started:.1f} s of writing, {time.monotonic() - checking:.1f} s of checks"
    )
    assert all(kinds.get(kind, 0) >= 2 for kind in ("leaderboard --by p8", "rating", "gr"))
