"""SPEC 2.5 bit for bit: the ratings a report stores are exactly (==, no tolerance) what a
replay of the log gives, so a recompute after any use rewrites nothing."""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import (
    Actor,
    LineupEntry,
    Player,
    ServiceContext,
    Services,
    UserError,
    parse_lineup,
)
from bot.services.changes import Change
from bot.services.lineup import Lineup
from bot.storage import Database, logchunks
from bot.storage.seasons import Standing
from tests.services.conftest import Clock
from tests.services.test_log_invariant import csv_of
from tests.storage.engines import OpenDatabase
from tests.storage.reads import applied_matches

GUILD = 1
MOD = Actor(999, is_moderator=True)

Stored = tuple[
    dict[int, tuple[float | None, int, int, int, int]],
    list[tuple[int, int | None, float | None, float | None]],
    list[tuple[int, Standing]],
]


async def stored_ratings(db: Database, guild_id: int) -> Stored:
    """Every member's rating and record, every participant's rating before and after its
    match, and every closing standing."""
    members = {
        m.user_id: (m.rating, m.games, m.wins, m.draws, m.losses)
        for m in await db.read.members(guild_id)
    }
    rows = [
        (m.id, p.user_id, p.rating_before, p.rating_after)
        for m in await applied_matches(db.read, guild_id)
        for p in m.participants
    ]
    closings = [
        (season.number, standing)
        for season in await db.read.seasons(guild_id)
        for standing in await db.read.closing_standings(guild_id, season.number)
    ]
    return members, rows, closings


async def assert_recompute_rewrites_nothing(services: Services, guild_id: int) -> None:
    """A recompute leaves every stored value as it was, and reports that it changed
    nothing (its change names no member and moves no standings)."""
    before = await stored_ratings(services.context.db, guild_id)
    reported: list[Change] = []
    services.context.on_change = reported.append
    await services.settings.recompute(guild_id, MOD)
    services.context.on_change = None
    assert await stored_ratings(services.context.db, guild_id) == before  # floats compared with ==
    assert reported == [Change(guild_id, "replayed", actor_id=MOD.user_id)]
    assert not reported[0].changes_standings


@pytest.fixture(autouse=True)
def small_log_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few entries, so that random use splits, merges and rewrites many."""
    monkeypatch.setattr(logchunks, "CHUNK_ENTRIES", 6)
    monkeypatch.setattr(logchunks, "MERGED_AT_ONCE", 3)


async def test_recompute_after_reports_rewrites_no_rating_bit(services: Services) -> None:
    """The reported case (a free-for-all with 0.01 minutes), then free-for-alls of four
    that a replay rates in waves beside each other: a match's sums used to depend on the
    matches rated with it (a matrix product's summation order), and member 46 came out of
    a recompute 539.9800049987502 instead of the stored 539.9800049987504."""
    text = "<@19> 6 0.01, <@13> 13, <@11> 10, <@12> 3"
    await services.matches.report(GUILD, MOD, parse_lineup(text), request_id="issue")
    await assert_recompute_rewrites_nothing(services, GUILD)
    rng = random.Random(3)
    for number in range(12):
        players = rng.sample(range(10, 60), 4)
        text = ", ".join(
            f"<@{p}> {rng.randint(0, 20)} {rng.choice([0.01, 3, 20, 35])}" for p in players
        )
        await services.matches.report(GUILD, MOD, parse_lineup(text), request_id=f"r{number}")
    await assert_recompute_rewrites_nothing(services, GUILD)


# --- any use, then a recompute: nothing moves by a bit --------------------------------------

USERS = st.integers(1, 60)
ODD_MINUTES = st.sampled_from([None, 0.01, 0.37, 1.0, 7.77, 13.333, 20.0, 59.99, 240.5, 1440.0])
SCORES = st.one_of(
    st.integers(0, 30).map(float), st.floats(0, 1000, allow_nan=False).map(lambda x: round(x, 3))
)


def _lineup(draw: st.DrawFn, users: list[int]) -> Lineup:
    """A duel, a free-for-all or a team game (2 or 3 teams) of some of `users` (at least
    8), with odd minutes."""
    shape = draw(st.sampled_from(["duel", "ffa", "teams"]))
    size = 2 if shape == "duel" else draw(st.integers(3, 8))
    teams = draw(st.integers(2, 3))
    return tuple(
        LineupEntry(
            Player(user_id=user),
            str(n % teams) if shape == "teams" else str(n),
            draw(SCORES),
            draw(ODD_MINUTES),
        )
        for n, user in enumerate(users[:size])
    )


@st.composite
def lineups(draw: st.DrawFn) -> Lineup:
    return _lineup(draw, draw(st.lists(USERS, min_size=8, max_size=8, unique=True)))


@st.composite
def side_by_side(draw: st.DrawFn) -> list[Lineup]:
    """Matches of disjoint members: a replay rates them in one wave, side by side."""
    count = draw(st.integers(2, 6))
    users = draw(st.lists(st.integers(1, 200), min_size=8 * count, max_size=8 * count, unique=True))
    return [_lineup(draw, users[8 * n : 8 * n + 8]) for n in range(count)]


OPERATIONS = st.one_of(
    st.tuples(st.just("report"), st.lists(lineups(), min_size=1, max_size=6)),
    st.tuples(st.just("report"), side_by_side()),
    st.tuples(st.just("void"), st.integers(0, 20)),
    st.tuples(st.just("edit"), st.tuples(st.integers(0, 20), lineups())),
    st.tuples(
        st.just("settings"),
        st.fixed_dictionaries(
            {},
            optional={
                "t": st.sampled_from([60.0, 120.0, 333.3]),
                "game_mult": st.sampled_from([0.7, 2.0, 3.0]),
                "max_game_length": st.sampled_from([9.5, 20.0, 45.0]),
                "initial_rating": st.sampled_from([0.0, 500.0, 1234.5]),
            },
        ),
    ),
    st.tuples(
        st.just("import"),
        st.tuples(st.lists(lineups(), min_size=1, max_size=3), st.integers(-3, 2)),
    ),
    st.tuples(st.just("season"), st.sampled_from([0.0, 0.37, 1.0])),
)


async def run(services: Services, clock: Clock, step: int, op: tuple[str, Any]) -> None:
    kind, argument = op
    clock.now += 600
    matches = await services.context.db.read.all_matches(GUILD)

    def target(index: int) -> int | None:
        return matches[index % len(matches)].id if matches else None

    if kind == "report":  # one after another, each applied at the end of the log
        for number, lineup in enumerate(argument):
            await services.matches.report(GUILD, MOD, lineup, request_id=f"r{step}.{number}")
    elif kind == "void" and (match_id := target(argument)) is not None:
        await services.matches.void(GUILD, MOD, match_id)
    elif kind == "edit" and (match_id := target(argument[0])) is not None:
        await services.matches.edit(GUILD, MOD, match_id, argument[1])
    elif kind == "settings":
        await services.settings.change(GUILD, MOD, argument)
    elif kind == "import":  # hours before or after now: merged into the log, or at its end
        played, offset = argument
        text = csv_of(played, clock.now + 3600 * offset).replace("\nx", f"\ni{step}.")
        await services.transfers.import_csv(GUILD, MOD, text)
    elif kind == "season":
        await services.seasons.start(GUILD, MOD, f"s{step}", argument)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(OPERATIONS, min_size=1, max_size=12))
def test_stored_ratings_are_the_replay_bit_for_bit(
    fresh_database: OpenDatabase, steps: list[tuple[str, Any]]
) -> None:
    """Reports, voids, edits, settings changes, imports and season starts in any order;
    then a recompute rewrites nothing: every stored rating (members', the matches' before
    and after, the closing standings') is exactly the replay's."""

    async def scenario() -> None:
        db = await fresh_database()
        clock = Clock()
        services = Services.build(ServiceContext(db, GuildSettings(), clock=clock))
        try:
            for step, op in enumerate(steps):
                with contextlib.suppress(UserError):
                    await run(services, clock, step, op)
            await assert_recompute_rewrites_nothing(services, GUILD)
        finally:
            await services.close()

    asyncio.run(scenario())


async def test_a_recompute_that_rewrites_reports_who_changed(services: Services) -> None:
    await services.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="a")
    await services.matches.report(GUILD, MOD, parse_lineup("<@3> 1 | <@4> 0"), request_id="b")
    async with services.context.db.write(GUILD) as tx:  # a stored rating off by its last bit
        member = await tx.member(GUILD, 3)
        assert member is not None and member.rating is not None
        await tx.set_ratings(GUILD, {3: math.nextafter(member.rating, math.inf)})
    reported: list[Change] = []
    services.context.on_change = reported.append
    await services.settings.recompute(GUILD, MOD)
    assert reported == [
        Change(GUILD, "replayed", frozenset({3}), everyone=True, actor_id=MOD.user_id)
    ]
    assert (await services.context.db.read.member(GUILD, 3)) == member
