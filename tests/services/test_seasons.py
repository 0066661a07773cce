"""Seasons (SPEC 9.1): starts, carry-over, closing standings, refusals, CSV round trips."""

from __future__ import annotations

import math

import pytest

from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, UserError, parse_lineup
from bot.services.matchcsv.rows import parse_csv
from bot.services.season_rules import FIRST_SEASON
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth
from tests.storage.engines import OpenDatabase

GUILD = 11
OTHER = 12
MOD = Actor(999, is_moderator=True)


async def play(services: Services, clock: Clock, lineup: str) -> None:
    clock.now += 600
    await services.matches.report(
        GUILD, MOD, parse_lineup(lineup), request_id=f"{lineup}@{clock.now}"
    )


async def ratings(services: Services, guild_id: int) -> dict[int, float | None]:
    return {m.user_id: m.rating for m in await services.context.db.read.members(guild_id)}


async def test_a_season_start_carries_ratings_restarts_records_and_keeps_standings(
    services: Services, clock: Clock
) -> None:
    await play(services, clock, "<@1> 10, <@2> 0")
    await play(services, clock, "<@1> 10, <@3> 0")
    before = await ratings(services, GUILD)
    clock.now += 600
    season = await services.seasons.start(GUILD, MOD, "  spring  ", 0.25)
    assert (season.name, season.carry) == ("spring", 0.25)
    initial = GuildSettings().initial_rating
    for member in await services.context.db.read.members(GUILD):
        start = before[member.user_id]
        assert start is not None and member.rating is not None
        assert member.rating == pytest.approx(initial + 0.25 * (start - initial))
        assert (member.games, member.wins, member.draws, member.losses) == (0, 0, 0, 0)
    closed = await services.standings.leaderboard(GUILD, season=FIRST_SEASON, page_size=0)
    assert closed.season == FIRST_SEASON
    assert [(row.user_id, row.rating, row.games, row.wins) for row in closed.rows] == [
        (1, before[1], 2, 2),
        *sorted(((u, before[u], 1, 0) for u in (2, 3)), key=lambda r: -(r[1] or 0)),
    ]
    now = await services.standings.leaderboard(GUILD, season="spring")
    assert now.season is None and now.total == 0  # nobody played in spring yet
    listed = await services.seasons.season_list(GUILD)
    assert [(s.name, s.ended_at is None, s.members) for s in listed] == [
        (FIRST_SEASON, False, 3),
        ("spring", True, 0),
    ]
    await assert_log_is_truth(services, GUILD)


async def test_a_void_before_the_boundary_rewrites_both_seasons(
    services: Services, clock: Clock
) -> None:
    await play(services, clock, "<@1> 10, <@2> 0")
    await play(services, clock, "<@2> 10, <@3> 0")
    clock.now += 600
    await services.seasons.start(GUILD, MOD, "two", 1.0)
    await play(services, clock, "<@3> 10, <@1> 0")
    first = (await services.context.db.read.all_matches(GUILD))[0]
    result = await services.matches.void(GUILD, MOD, first.id)
    assert result.replayed == 2
    await assert_log_is_truth(services, GUILD)
    closed = await services.standings.leaderboard(GUILD, season=FIRST_SEASON, page_size=0)
    assert {row.user_id for row in closed.rows} == {2, 3}  # member 1 played only the void


@pytest.mark.parametrize(
    ("name", "carry", "message"),
    [
        ("", 0.0, "1 to 32 printable characters"),
        ("x" * 33, 0.0, "1 to 32 printable characters"),
        ("tab\there", 0.0, "holds the control character U\\+0009"),
        (FIRST_SEASON, 0.0, "before the first start"),
        ("taken", 0.0, "is taken"),
        ("ok", -0.1, "carry -0.1 must be a number from 0 to 1"),
        ("ok", 1.5, "carry 1.5 must be a number from 0 to 1"),
        ("ok", math.nan, "carry nan must be a number from 0 to 1"),
    ],
)
async def test_refused_season_starts_change_nothing(
    services: Services, clock: Clock, name: str, carry: float, message: str
) -> None:
    await play(services, clock, "<@1> 10, <@2> 0")
    await services.seasons.start(GUILD, MOD, "taken")
    stored = await services.context.db.read.dump()
    with pytest.raises(UserError, match=message):
        await services.seasons.start(GUILD, MOD, name, carry)
    with pytest.raises(UserError, match="only moderators"):
        await services.seasons.start(GUILD, Actor(1), "fine")
    assert await services.context.db.read.dump() == stored


async def test_an_unknown_season_or_a_closed_one_by_performance_is_refused(
    services: Services, clock: Clock
) -> None:
    await play(services, clock, "<@1> 10, <@2> 0")
    await services.seasons.start(GUILD, MOD, "b")
    with pytest.raises(UserError, match="must be one of this server's seasons: 'first, b'"):
        await services.standings.leaderboard(GUILD, season="c")
    with pytest.raises(UserError, match="rank by ladder only"):
        await services.standings.leaderboard(GUILD, by="p8", season=FIRST_SEASON)


async def test_export_imported_into_an_empty_guild_reproduces_seasons_and_ratings(
    services: Services, clock: Clock
) -> None:
    await play(services, clock, "<@1> 10, <@2> 0")
    await play(services, clock, "<@2> 10, <@3> 3, <@4> 0")
    clock.now += 600
    await services.seasons.start(GUILD, MOD, "second", 0.5)
    await play(services, clock, "<@3> 10, <@1> 0")
    clock.now += 600
    await services.seasons.start(GUILD, MOD, "=third", 0.75)  # its cell starts with "season:"
    await play(services, clock, "<@4> 10, <@1> 4")
    # An import before the first boundary and a void in the middle season.
    await services.transfers.import_csv(
        GUILD,
        MOD,
        "match,played_at,side,player,score,minutes\nold,2023-11-14T22:20:00Z,a,5,1,10\n"
        "old,2023-11-14T22:20:00Z,b,2,0,10\n",
    )
    middle = [
        m for m in await services.context.db.read.all_matches(GUILD) if m.status == "applied"
    ][3]
    await services.matches.void(GUILD, MOD, middle.id)
    await assert_log_is_truth(services, GUILD)

    exported = await services.transfers.export_csv(GUILD)
    assert "\nseason:second," in exported and "\nseason:=third," in exported
    result = await services.transfers.import_csv(OTHER, MOD, exported)
    assert (result.seasons, result.skipped) == (2, 0)
    await assert_log_is_truth(services, OTHER)
    # Each guild's export imported back into it (SPEC 8.3): its matches and starts are skipped.
    for guild in (GUILD, OTHER):
        stored = await services.context.db.read.dump()
        again = await services.transfers.import_csv(
            guild, MOD, await services.transfers.export_csv(guild)
        )
        assert (again.matches, again.seasons, again.replayed) == (0, 0, 0)
        assert again.skipped == result.matches + 2
        assert await services.context.db.read.dump() == stored
    source = await services.context.db.read.seasons(GUILD)
    copy = await services.context.db.read.seasons(OTHER)
    assert [(s.name, s.carry, s.starts_at) for s in copy] == [
        (s.name, s.carry, s.starts_at) for s in source
    ]
    assert await ratings(services, OTHER) == pytest.approx(await ratings(services, GUILD))
    for season in (FIRST_SEASON, "second"):
        mine = await services.standings.leaderboard(GUILD, season=season, page_size=0)
        theirs = await services.standings.leaderboard(OTHER, season=season, page_size=0)
        assert [(r.user_id, r.games, r.wins, r.losses) for r in theirs.rows] == [
            (r.user_id, r.games, r.wins, r.losses) for r in mine.rows
        ]
        assert [r.rating for r in theirs.rows] == pytest.approx([r.rating for r in mine.rows])


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("season:a,2024-01-01T00:00:00Z,,,2,\n", "line 2: carry \\(score\\) '2' must be"),
        ("season:,2024-01-01T00:00:00Z,,,0,\n", "line 2: season name '' must be"),
        ("season:a,2024-01-01T00:00:00Z,x,,0,\n", "line 2: side 'x' must be empty"),
        ("season:a,2024-01-01,,,0,\nseason:a,2024-01-02,,,0,\n", "line 3: season 'a' is also"),
    ],
)
def test_bad_season_rows_are_refused_naming_the_line(rows: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_csv("match,played_at,side,player,score,minutes\n" + rows, 2e9)


async def test_an_imported_season_name_taken_by_another_start_is_refused(
    fresh_database: OpenDatabase,
) -> None:
    clock = Clock()
    services = Services.build(ServiceContext(await fresh_database(), GuildSettings(), clock=clock))
    try:
        await services.seasons.start(GUILD, MOD, "a")
        stored = await services.context.db.read.dump()
        with pytest.raises(
            UserError,
            match="line 2: season 'a' is already in the guild with another start or carry",
        ):
            await services.transfers.import_csv(
                GUILD, MOD, "match,played_at,side,player,score,minutes\nseason:a,2023-01-01,,,0,\n"
            )
        assert await services.context.db.read.dump() == stored
    finally:
        await services.close()


async def test_finding_7_the_chart_ends_at_the_rating_a_season_start_carried(
    services: Services, clock: Clock
) -> None:
    """Issue 23 finding 7: after a season start with carry 0.5 the card's series ends at the
    carried rating (the card's rating), with the start as a point of its own; matches after
    the start follow it; a member the start left where they were gets no such point."""
    await play(services, clock, "<@1> 10, <@2> 0")
    await play(services, clock, "<@1> 10, <@2> 0")
    clock.now += 600
    await services.seasons.start(GUILD, MOD, "two", 0.5)
    card = await services.standings.rating_card(GUILD, 1)
    *matches, season = card.stats.history
    assert [point.match_id for point in matches] == [1, 2] and season.match_id is None
    assert season.rating == card.rating != matches[-1].rating
    assert season.at == clock.now
    assert card.stats.peak == matches[-1].rating  # the carry lowered it: the peak stays
    await play(services, clock, "<@1> 0, <@2> 10")
    card = await services.standings.rating_card(GUILD, 1)
    assert [point.match_id for point in card.stats.history] == [1, 2, None, 3]
    assert card.stats.history[-1].rating == card.rating
    clock.now += 600
    await services.seasons.start(GUILD, MOD, "three", 1.0)  # carries everything: no move
    card = await services.standings.rating_card(GUILD, 1)
    assert [point.match_id for point in card.stats.history] == [1, 2, None, 3]
