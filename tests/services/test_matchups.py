"""Head to head, balance, match-list pages and a member's leaderboard page (services)."""

from __future__ import annotations

import asyncio
import contextlib
import math
import tempfile
from pathlib import Path
from typing import Literal, assert_never

import pytest
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.ratings.ladder import ladder_expected_score
from bot.services import (
    Actor,
    LineupEntry,
    MemberInfo,
    Player,
    ServiceContext,
    Services,
    UserError,
    parse_lineup,
)
from bot.services.matchups import parse_players
from bot.storage import Database, Match
from tests.services.conftest import Clock

GUILD = 12
MOD = Actor(999, is_moderator=True)
USERS = (1, 2, 3, 4)


@st.composite
def history_lineups(draw: st.DrawFn) -> tuple[LineupEntry, ...]:
    """Two to four of the members, maybe a guest or two; a free-for-all or two teams."""
    members = draw(st.lists(st.sampled_from(USERS), min_size=2, max_size=4, unique=True))
    guests = draw(st.lists(st.sampled_from(["bob", "eve"]), max_size=2, unique=True))
    players = [Player(user_id=user) for user in members] + [Player(guest=g) for g in guests]
    teams = draw(st.booleans())
    sides = [str(draw(st.integers(1, 2))) if teams else str(i) for i in range(len(players))]
    return tuple(
        LineupEntry(
            player,
            side,
            float(draw(st.integers(0, 4))),
            draw(st.one_of(st.none(), st.sampled_from([5.0, 10.0, 20.0]))),
        )
        for player, side in zip(players, sides, strict=True)
    )


report_step = st.tuples(st.just("report"), history_lineups(), st.sampled_from([True, True, False]))
history_step = st.one_of(
    report_step,
    report_step,
    report_step,
    st.tuples(st.just("void"), st.integers(0, 20), st.booleans()),
    st.tuples(st.just("leave"), st.sampled_from(USERS), st.booleans()),
    st.tuples(st.just("join"), st.sampled_from(USERS), st.booleans()),
)


HistoryStep = (
    tuple[Literal["report"], tuple[LineupEntry, ...], bool]
    | tuple[Literal["void", "leave", "join"], int, bool]
)
"""What `history_step` draws: its name, then its two arguments."""


async def play(services: Services, clock: Clock, step: int, op: HistoryStep) -> None:
    """A report by a moderator (applied) or a player (pending), a void, a leave or a join."""
    clock.now += 60
    match op:
        case ("report", lineup, applied):
            members = [e.player.user_id for e in lineup if e.player.user_id is not None]
            actor = MOD if applied or not members else Actor(members[0])
            await services.matches.report(GUILD, actor, lineup, request_id=str(step))
        case ("void", number, _):
            matches = await services.context.db.read.all_matches(GUILD)
            if matches:
                await services.matches.void(GUILD, MOD, matches[number % len(matches)].id)
        case (("leave" | "join") as kind, user, _):
            info = MemberInfo(user, f"u{user}")
            await (services.members.leave if kind == "leave" else services.members.join)(
                GUILD, info
            )
        case _:
            assert_never(op)


def plain_record(matches: list[Match], a: int, b: int) -> tuple[list[int], list[str]]:
    """From the log, one match at a time: applied matches, newest first in log order, in
    which a and b were both rated on different sides, and a's result (SPEC 2.3 step 4)."""
    ids, results = [], []
    applied = [m for m in matches if m.status == "applied"]
    for match in sorted(applied, key=lambda m: (m.applied_at, m.id), reverse=True):
        mine = [p for p in match.participants if p.user_id == a and p.enabled]
        theirs = [p for p in match.participants if p.user_id == b and p.enabled]
        if not mine or not theirs or mine[0].side == theirs[0].side:
            continue
        left = mine[0].score * theirs[0].minutes
        right = theirs[0].score * mine[0].minutes
        ids.append(match.id)
        results.append("win" if left > right else "loss" if left < right else "draw")
    return ids, results


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(history_step, min_size=4, max_size=16), st.sampled_from(USERS))
def test_head_to_head_is_a_plain_recount_of_the_log(steps: list[HistoryStep], a: int) -> None:
    asyncio.run(check_head_to_head(steps, a))


async def check_head_to_head(steps: list[HistoryStep], a: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        db = await Database.open(Path(folder) / "ladder.sqlite3")
        clock = Clock()
        services = Services.build(ServiceContext(db, GuildSettings(), clock=clock))
        try:
            for step, op in enumerate(steps):
                with contextlib.suppress(UserError):
                    await play(services, clock, step, op)
            await services.members.upsert(GUILD, [MemberInfo(user, f"u{user}") for user in USERS])
            matches = await db.read.all_matches(GUILD)
            meetings = 0
            for b in USERS:
                if b == a:
                    continue
                found = await services.matchups.head_to_head(GUILD, a, b, recent=3)
                ids, results = plain_record(matches, a, b)
                record = (found.wins, found.draws, found.losses)
                assert record == tuple(results.count(r) for r in ("win", "draw", "loss"))
                assert [m.match.id for m in found.recent] == ids[:3]
                assert [m.result for m in found.recent] == results[:3]
                assert found.prediction == await services.standings.predict(GUILD, a, b)
                meetings += len(ids)
            target(float(meetings))  # steer towards histories where they often meet
        finally:
            await db.close()


async def test_head_to_head_refuses_one_member_twice_and_bots(services: Services) -> None:
    await services.members.upsert(GUILD, [MemberInfo(1, "one"), MemberInfo(7, "robot", True)])
    with pytest.raises(UserError, match="same member"):
        await services.matchups.head_to_head(GUILD, 1, 1)
    with pytest.raises(UserError, match="<@7> is a bot"):
        await services.matchups.head_to_head(GUILD, 1, 7)


async def test_balance_rates_guests_and_newcomers_at_initial_rating(services: Services) -> None:
    for _ in range(3):
        await services.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id=f"{_}"
        )
    one, two = await services.context.db.read.members_by_id(GUILD, [1, 2])
    found = await services.matchups.balance(GUILD, parse_players("<@1> <@2> <@3> zed"), 2)
    rating = {entry.player.label: entry.rating for team in found.teams for entry in team.players}
    assert rating == {"<@1>": one.rating, "<@2>": two.rating, "<@3>": 500.0, "zed": 500.0}
    first, second = found.teams
    assert {e.player.label for e in first.players} in ({"<@1>", "<@2>"}, {"<@3>", "zed"})
    assert found.exact
    average = sum(e.rating for e in first.players) / len(first.players)
    assert first.average == pytest.approx(average)
    # the team P is the ladder's P between the team averages (SPEC 2.3 step 3)
    assert first.win_probability == pytest.approx(
        float(ladder_expected_score(first.average, second.average, 120.0))
    )


async def test_balance_of_uneven_ratings_uses_the_ladder_scale(services: Services) -> None:
    for _ in range(4):
        await services.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id=f"{_}"
        )
    found = await services.matchups.balance(GUILD, parse_players("<@3> <@1>"), 2)
    strong, weak = found.teams
    assert [e.player.user_id for e in strong.players + weak.players] == [1, 3]
    assert strong.win_probability > 0.5 > weak.win_probability
    assert strong.win_probability == pytest.approx(
        float(ladder_expected_score(strong.average, weak.average, 120.0))
    )


@pytest.mark.parametrize(
    ("text", "teams", "message"),
    [
        ("<@1> <@1>", 2, "<@1> is listed twice"),
        ("bob bob", 2, "bob is listed twice"),
        ("<@1>", 2, "player count 1 must be from 2 to 32"),
        (" ".join(f"g{n}" for n in range(33)), 2, "player count 33 must be from 2 to 32"),
        ("<@1> <@2>", 5, "teams 5 must be from 2 to 4"),
        ("<@1> <@2>", 3, r"teams 3 must be at most the number of players \(2\)"),
        ("<@1> <@7>", 2, "<@7> is a bot"),
        ("<@1> bo@b", 2, "'bo@b' is not a player"),
    ],
)
async def test_balance_refusals(services: Services, text: str, teams: int, message: str) -> None:
    await services.members.upsert(GUILD, [MemberInfo(7, "robot", True)])
    with pytest.raises(UserError, match=message):
        await services.matchups.balance(GUILD, parse_players(text), teams)


def test_empty_player_list_is_refused() -> None:
    with pytest.raises(UserError, match="players is empty"):
        parse_players("  ")


async def test_match_pages_cover_the_matches_newest_first(services: Services) -> None:
    services.context.page_size = 3
    for n in range(7):
        await services.matches.report(
            GUILD, MOD, parse_lineup(f"<@1> 1 | <@{n + 2}> 0"), request_id=f"{n}"
        )
    matches = services.matches
    newest_first = [m.id for m in await services.context.db.read.recent_matches(GUILD, None, 100)]
    pages = [await matches.page(GUILD, None, page) for page in (1, 2, 3)]
    assert [m.id for page in pages for m in page.matches] == newest_first
    assert [(p.page, p.pages, p.total) for p in pages] == [(1, 3, 7), (2, 3, 7), (3, 3, 7)]
    assert (await matches.page(GUILD, None, 99)).page == 3
    own = await matches.page(GUILD, 4, 1)
    member = await services.context.db.read.member(GUILD, 4)
    assert member is not None and (own.total, own.name) == (1, member.name)
    assert all(any(p.user_id == 4 for p in m.participants) for m in own.matches)
    nobody = await matches.page(GUILD, 50, 1)
    assert (nobody.total, nobody.pages, nobody.matches) == (0, 1, ())


async def test_leaderboard_page_of_a_member(services: Services) -> None:
    services.context.page_size = 2
    for n in range(3):
        text = f"<@{10 + n}> 1 | <@{20 + n}> 0"
        await services.matches.report(GUILD, MOD, parse_lineup(text), request_id=f"{n}")
    standings = services.standings
    everyone = (await services.standings.leaderboard(GUILD, "ladder", page_size=0)).rows
    for row in everyone:
        page = await standings.page_of(GUILD, "ladder", row.user_id)
        assert page is not None and page.page == math.ceil(row.rank / 2)
        assert row.user_id in [r.user_id for r in page.rows]
    assert await standings.page_of(GUILD, "ladder", 999) is None
