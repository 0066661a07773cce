"""The ladder service: idempotency, confirmation, refusals, voids, imports, concurrency."""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

import pytest

from bot.config import GuildSettings
from bot.ratings.gamelist import format_games
from bot.services import (
    Actor,
    MemberInfo,
    ServiceContext,
    Services,
    UserError,
    parse_lineup,
    performances,
)
from bot.services import standings as standings_module
from bot.services.lineup import Player, duel_lineup
from bot.services.matches import ReportResult
from bot.storage import PlayedColumns
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth
from tests.storage.engines import OpenDatabase

T = TypeVar("T")

GUILD = 5
MOD = Actor(999, is_moderator=True)


async def report(services: Services, actor: Actor, text: str, request: str) -> int:
    result = await services.matches.report(GUILD, actor, parse_lineup(text), request_id=request)
    return result.match.id


async def test_same_request_id_twice_records_one_match(services: Services) -> None:
    first = await services.matches.report(
        GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="r"
    )
    again = await services.matches.report(
        GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="r"
    )
    assert (first.created, again.created) == (True, False)
    assert again.match == first.match
    assert len(await services.context.db.read.all_matches(GUILD)) == 1
    member = await services.context.db.read.member(GUILD, 1)
    assert member is not None and member.games == 1


async def test_a_retried_report_changes_nothing(services: Services, clock: Clock) -> None:
    """Not the names it brings, nor the guild's change stamp (no live board edit)."""
    lineup = parse_lineup("<@1> 1 | <@2> 0")
    await services.matches.report(
        GUILD, MOD, lineup, request_id="r", members=[MemberInfo(1, "Ann")]
    )
    stored = await services.context.db.read.dump()
    clock.now += 60
    again = await services.matches.report(
        GUILD, MOD, lineup, request_id="r", members=[MemberInfo(1, "Bo")]
    )
    assert not again.created
    assert await services.context.db.read.dump() == stored


async def test_pending_until_an_opponent_confirms_once(services: Services) -> None:
    match_id = await report(services, Actor(1), "<@1> 1 | <@2> 0", "a")
    assert (await services.matches.show(GUILD, match_id)).status == "pending"
    with pytest.raises(UserError, match="opponent of the reporter"):
        await services.matches.confirm(GUILD, Actor(1), match_id)  # the reporter cannot confirm
    first = await services.matches.confirm(GUILD, Actor(2), match_id)
    second = await services.matches.confirm(GUILD, Actor(2), match_id)
    assert (first.applied_now, second.applied_now) == (True, False)
    member = await services.context.db.read.member(GUILD, 1)
    assert member is not None and (member.rating, member.games) == (520.0, 1)
    await assert_log_is_truth(services, GUILD)


async def test_dispute_blocks_auto_confirm_but_not_moderators(
    services: Services, clock: Clock
) -> None:
    disputed = await report(services, Actor(1), "<@1> 1 | <@2> 0", "a")
    waiting = await report(services, Actor(3), "<@3> 1 | <@4> 0", "b")
    await services.matches.dispute(GUILD, Actor(2), disputed)
    clock.now += 23 * 3600
    assert await services.matches.auto_confirm() == []
    clock.now += 3600
    assert [m.id for m in await services.matches.auto_confirm()] == [waiting]
    assert (await services.matches.show(GUILD, disputed)).status == "disputed"
    with pytest.raises(UserError, match="disputed"):
        await services.matches.confirm(GUILD, Actor(2), disputed)
    assert (await services.matches.confirm(GUILD, MOD, disputed)).applied_now
    await assert_log_is_truth(services, GUILD)


async def test_leaving_keeps_past_matches_and_unrates_future_ones(services: Services) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0 | <@3> 0", "a")
    await services.members.leave(GUILD, MemberInfo(3, "three"))
    match_id = await report(services, MOD, "<@1> 0 | <@2> 1 | <@3> 5", "b")
    third = next(
        p for p in (await services.matches.show(GUILD, match_id)).participants if p.user_id == 3
    )
    assert not third.enabled and third.rating_after is None
    member = await services.context.db.read.member(GUILD, 3)
    assert member is not None and member.games == 1
    page = await services.standings.leaderboard(GUILD)
    assert 3 not in [row.user_id for row in page.rows]
    await services.members.join(GUILD, MemberInfo(3, "three"))
    assert 3 in [row.user_id for row in (await services.standings.leaderboard(GUILD)).rows]
    await assert_log_is_truth(services, GUILD)


async def test_void_replays_only_successors(services: Services) -> None:
    ids = [await report(services, MOD, f"<@{i}> 1 | <@{i + 1}> 0", str(i)) for i in range(1, 6)]
    assert (await services.matches.void(GUILD, MOD, ids[-1])).replayed == 0
    assert (await services.matches.void(GUILD, MOD, ids[1], "typo")).replayed == 2
    voided = await services.matches.show(GUILD, ids[1])
    assert (voided.status, voided.void_reason) == ("void", "typo")
    with pytest.raises(
        UserError,
        match=f"match #{ids[1]} is void; only a pending, disputed or applied match can be voided",
    ):
        await services.matches.void(GUILD, MOD, ids[1])  # again: refused, nothing to do
    await assert_log_is_truth(services, GUILD)


async def test_settings_change_replays_the_guild(services: Services) -> None:
    for i in range(3):
        await report(services, MOD, "<@1> 1 | <@2> 0", str(i))
    result = await services.settings.change(GUILD, MOD, {"t": 200, "min_games": 0})
    assert (result.settings.t, result.replayed) == (200.0, 3)
    assert (await services.settings.change(GUILD, MOD, {"variant": "p3"})).replayed is None
    assert (await services.settings.change(GUILD, MOD, {"t": 200.0})).replayed is None
    await assert_log_is_truth(services, GUILD)


async def test_leaderboard_order_pages_and_min_games(services: Services) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    await report(services, MOD, "<@3> 1 | <@4> 0", "b")
    await report(services, MOD, "<@3> 1 | <@5> 0", "c")
    page = await services.standings.leaderboard(GUILD, page_size=2)
    assert (page.pages, page.total) == (3, 5)
    first = page.rows[0]
    assert first.user_id == 3  # rating above 520 after two wins
    all_rows = (await services.standings.leaderboard(GUILD, page_size=0)).rows
    keys = [(-row.value, -row.games, row.user_id) for row in all_rows]
    assert keys == sorted(keys)
    await services.settings.change(GUILD, MOD, {"min_games": 2})
    assert [row.user_id for row in (await services.standings.leaderboard(GUILD)).rows] == [3]
    for measure in ("p1", "p8", "ra"):
        rows = (await services.standings.leaderboard(GUILD, by=measure, page_size=0)).rows
        assert [row.user_id for row in rows] == [3]
    assert (await services.standings.leaderboard(GUILD, by="ra")).rows[0].value == pytest.approx(
        2.0
    )


async def test_a_long_board_shows_what_its_pages_show(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A board of more members than WHOLE_GUILD_MEMBERS reads the whole guild's members for
    its rows; a page reads its own by id: the rows are the same."""
    for request, lineup in enumerate(("<@1> 1 | <@2> 0", "<@3> 2 | <@4> 2", "<@3> 1 | <@5> 0")):
        await report(services, MOD, lineup, str(request))
    for by in ("ladder", "p8"):
        pages = [await services.standings.leaderboard(GUILD, by, page, 2) for page in (1, 2, 3)]
        monkeypatch.setattr(standings_module, "WHOLE_GUILD_MEMBERS", 2)
        whole = await services.standings.leaderboard(GUILD, by, page_size=0)
        monkeypatch.undo()
        assert whole.rows == tuple(row for page in pages for row in page.rows)


async def test_boards_read_while_their_cache_fills_start_no_second_fill(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cold boards asked while the bot's cache fill of the first is still computing (a busy
    channel after a change) compute their values each and start no second fill; a board
    after the fill is served from the cache."""
    for request, lineup in enumerate(("<@1> 1 | <@2> 0", "<@3> 2 | <@1> 2", "<@3> 1 | <@2> 0")):
        await report(services, MOD, lineup, str(request))
    fills: list[list[int]] = []
    computing = threading.Event()
    measured = performances.measured

    def held(played: PlayedColumns, user_ids: list[int], *rest: Any) -> Any:
        fills.append(user_ids)
        computing.wait(10)
        return measured(played, user_ids, *rest)

    monkeypatch.setattr(standings_module, "measured", held)
    first = await services.standings.leaderboard(GUILD, "p8")
    later = [await services.standings.leaderboard(GUILD, "p8") for _ in range(3)]
    computing.set()
    await services.context.cache_filled()
    assert fills == [[1, 2, 3]] and later == [first] * 3
    assert await services.standings.leaderboard(GUILD, "p8") == first
    assert len(fills) == 1  # from the cache


async def test_rating_card_and_prediction(services: Services) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    await report(services, MOD, "<@1> 0 | <@2> 1", "b")
    await report(services, MOD, "<@1> 1 | <@3> 0", "c")
    card = await services.standings.rating_card(GUILD, 1, "p3")
    assert (card.games, card.wins, card.losses, card.rank) == (3, 2, 1, 1)
    assert [point.match_id for point in card.stats.history] == sorted(
        p.match_id for p in card.stats.history if p.match_id is not None
    )
    assert card.stats.history[-1].rating == card.rating
    assert card.ra == pytest.approx(math.sqrt(2) + 1)
    assert card.up > 0 and card.down > 0
    prediction = await services.standings.predict(GUILD, 1, 2)
    assert 0.5 < prediction.ladder < 1
    reverse = await services.standings.predict(GUILD, 2, 1)
    assert prediction.ladder + reverse.ladder == pytest.approx(1.0)
    assert prediction.performance is not None and reverse.performance is not None
    assert prediction.performance + reverse.performance == pytest.approx(1.0)


async def test_live_board_is_due_after_changes_at_most_once_per_interval(
    services: Services, clock: Clock
) -> None:
    await services.standings.set_live_channel(GUILD, MOD, 42)
    assert [b.channel_id for b in await services.standings.live_boards_due()] == [
        42
    ]  # never posted
    await services.standings.mark_live_board_edited(GUILD, 4242)
    assert await services.standings.live_boards_due() == []
    clock.now += 1
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    assert await services.standings.live_boards_due() == []  # edited a second ago
    clock.now += 60
    due = await services.standings.live_boards_due()
    assert [(b.channel_id, b.message_id) for b in due] == [(42, 4242)]


async def test_history_text_is_the_game_list(services: Services) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0, <@3> 0", "a")
    text = format_games(await services.standings.game_history(GUILD, 1))
    assert text == "+1500 2\n+1500 3\n"  # initial rating = 1500 Elo; opponents by id


async def test_concurrent_operations_equal_the_same_operations_one_by_one(
    fresh_database: OpenDatabase,
) -> None:
    async def scenario(services: Services, concurrently: bool) -> dict[int, float | None]:
        async def run_all(calls: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
            if concurrently:
                return await asyncio.gather(*(call() for call in calls))
            return [await call() for call in calls]

        def reporter(i: int) -> Callable[[], Awaitable[ReportResult]]:
            a, b, c = i % 13 + 1, (i * 7) % 13 + 20, (i * 5) % 11 + 40
            text = f"<@{a}> {i % 5} {5 + i % 15} | <@{b}> {(i * 3) % 5}, <@{c}> {i % 2}"
            return lambda: services.matches.report(
                GUILD, Actor(a), parse_lineup(text), request_id=str(i)
            )

        pending = await run_all([reporter(i) for i in range(100)])
        mixed: list[Callable[[], Awaitable[object]]] = []
        for i, result in enumerate(pending):
            opponent = next(
                p.user_id
                for p in result.match.participants
                if p.side == "2" and p.user_id is not None  # members, no guests, on side 2
            )
            mixed.append(partial(services.matches.confirm, GUILD, Actor(opponent), result.match.id))
            mixed.append(reporter(100 + i))
        await run_all(mixed)
        return {m.user_id: m.rating for m in await services.context.db.read.members(GUILD)}

    results = []
    for concurrently in (False, True):
        db = await fresh_database()
        try:
            service = Services.build(
                ServiceContext(db, GuildSettings(confirm="opponent"), clock=Clock())
            )
            results.append(await scenario(service, concurrently))
            await assert_log_is_truth(service, GUILD)
        finally:
            await db.close()
    assert results[0] == results[1]
    assert len(results[0]) == 13 + 13 + 11


async def test_user_id_zero_is_a_member_like_any_other(services: Services) -> None:
    # Lineup text refuses id 0 (SPEC 7); the service must still not treat 0 as "no id".
    lineup = duel_lineup(Player(user_id=0), Player(user_id=2))
    await services.matches.report(GUILD, MOD, lineup, request_id="zero")
    zero = await services.context.db.read.member(GUILD, 0)
    assert zero is not None and (zero.games, zero.wins) == (1, 1)
