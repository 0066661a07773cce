"""SPEC 2.5 under random use: ratings always equal a replay of the log from scratch, and the
log's columnar copy equals its rows (issue 29)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Literal, assert_never

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import VARIANTS, GuildSettings
from bot.services import (
    Actor,
    LineupEntry,
    Match,
    MemberInfo,
    Player,
    ServiceContext,
    Services,
    UserError,
)
from bot.services.matchcsv.format import format_time
from bot.storage import logchunks
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth, assert_performances_are_fresh
from tests.storage.engines import OpenDatabase

GUILD = 3
MOD = Actor(999, is_moderator=True)
USERS = st.integers(1, 40)

member = USERS.map(lambda user: Player(user_id=user))
player = st.one_of(
    member,
    member,
    member,
    st.sampled_from(["bob", "eve", "zed"]).map(lambda name: Player(guest=name)),
)
number = st.floats(0, 50, allow_nan=False).map(lambda x: round(x, 1))
minutes = st.one_of(st.none(), st.floats(0.5, 60).map(lambda x: round(x, 1)))


@st.composite
def lineups(draw: st.DrawFn) -> tuple[LineupEntry, ...]:
    players = draw(st.lists(player, min_size=2, max_size=32, unique=True))
    teams = draw(st.booleans())
    return tuple(
        LineupEntry(
            p, str(draw(st.integers(1, 3))) if teams else str(i), draw(number), draw(minutes)
        )
        for i, p in enumerate(players)
    )


operation = st.one_of(
    st.tuples(st.just("report"), lineups(), st.booleans()),
    st.tuples(st.just("confirm"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("dispute"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("void"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("cancel"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("edit"), st.integers(0, 30), lineups()),
    st.tuples(
        st.just("settings"), st.sampled_from([60.0, 120.0, 300.0]), st.sampled_from([1.0, 2.0])
    ),
    st.tuples(st.just("leave"), USERS, st.booleans()),
    st.tuples(st.just("import"), st.lists(lineups(), min_size=1, max_size=3), st.integers(-5, 5)),
    st.tuples(st.just("season"), st.one_of(st.just(0.0), st.floats(0, 1)), st.booleans()),
    st.tuples(st.just("recompute"), st.none(), st.none()),
)


Lineup = tuple[LineupEntry, ...]
Operation = (
    tuple[Literal["report"], Lineup, bool]
    | tuple[Literal["confirm", "dispute", "void", "cancel", "leave"], int, bool]
    | tuple[Literal["edit"], int, Lineup]
    | tuple[Literal["settings"], float, float]
    | tuple[Literal["import"], list[Lineup], int]
    | tuple[Literal["season"], float, bool]
    | tuple[Literal["recompute"], None, None]
)
"""What `operation` draws: its name, then its two arguments."""


def csv_of(matches: list[tuple[LineupEntry, ...]], start: float) -> str:
    lines = ["match,played_at,side,player,score,minutes"]
    for n, lineup in enumerate(matches):
        for e in lineup:
            who = str(e.player.user_id) if e.player.user_id is not None else f"~{e.player.guest}"
            lines.append(
                f"x{n},{format_time(start + 3600 * n)},{e.side},{who},{e.score},{e.minutes or 15}"
            )
    return "\n".join(lines) + "\n"


async def apply(services: Services, clock: Clock, step: int, op: Operation) -> None:
    clock.now += 600
    matches = await services.context.db.read.all_matches(GUILD)

    def chosen(number: int) -> Match | None:
        return matches[number % len(matches)] if matches else None

    match op:
        case ("report", lineup, by_moderator):
            playing = [e.player.user_id for e in lineup if e.player.user_id is not None]
            actor = MOD if by_moderator or not playing else Actor(playing[0])
            await services.matches.report(GUILD, actor, lineup, request_id=str(step))
        case (("confirm" | "dispute") as kind, number, by_moderator):
            if (target := chosen(number)) is not None:
                opponents = [
                    p.user_id for p in target.participants if p.user_id != target.reporter_id
                ]
                actor = MOD if by_moderator or opponents[0] is None else Actor(opponents[0])
                await getattr(services.matches, kind)(GUILD, actor, target.id)
        case ("void", number, _):
            if (target := chosen(number)) is not None:
                await services.matches.void(GUILD, MOD, target.id)
        case ("cancel", number, by_moderator):
            if (target := chosen(number)) is not None:
                reporter = target.reporter_id
                actor = MOD if by_moderator or reporter is None else Actor(reporter)
                await services.matches.cancel(GUILD, actor, target.id)
        case ("edit", number, lineup):
            if (target := chosen(number)) is not None:
                await services.matches.edit(GUILD, MOD, target.id, lineup)
        case ("settings", t, game_mult):
            await services.settings.change(GUILD, MOD, {"t": t, "game_mult": game_mult})
        case ("leave", user, _):
            await services.members.leave(GUILD, MemberInfo(user, f"u{user}"))
        case ("season", carry, again):
            name = "again" if again else f"s{step}"  # "again" a second time is refused
            await services.seasons.start(GUILD, MOD, name, carry)
        case ("recompute", _, _):
            await services.settings.recompute(GUILD, MOD)
        case ("import", imported, days):
            start = clock.now + 86400 * days
            await services.transfers.import_csv(GUILD, MOD, csv_of(imported, start))
        case _:
            assert_never(op)


measure = st.one_of(st.just("p8"), st.sampled_from([*VARIANTS, "ra"]))
"""Checked after each operation; p8 (the default variant) often, so its cached rows live
through several operations before they are checked again."""


@pytest.fixture(autouse=True)
def small_log_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few entries, so that random use splits, merges and rewrites many."""
    monkeypatch.setattr(logchunks, "CHUNK_ENTRIES", 6)
    monkeypatch.setattr(logchunks, "MERGED_AT_ONCE", 3)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.tuples(operation, measure), min_size=1, max_size=16))
def test_ratings_are_a_replay_of_the_log(
    fresh_database: OpenDatabase, steps: list[tuple[Operation, str]]
) -> None:
    asyncio.run(run_operations(fresh_database, steps))


async def run_operations(fresh_database: OpenDatabase, steps: list[tuple[Operation, str]]) -> None:
    """Each operation (a refused one must change nothing), then the invariant, then the
    cached performances by a measure (and RA) against a computation from scratch. The reads
    fill the cache in the background, racing the next operations."""
    db = await fresh_database()
    clock = Clock()
    services = Services.build(ServiceContext(db, GuildSettings(), clock=clock, fill_cache=True))
    try:
        for step, (op, checked) in enumerate(steps):
            with contextlib.suppress(UserError):
                await apply(services, clock, step, op)
            await assert_log_is_truth(services, GUILD)
            await assert_performances_are_fresh(services, GUILD, checked)
            await assert_performances_are_fresh(services, GUILD, "ra")
    finally:
        await services.close()
