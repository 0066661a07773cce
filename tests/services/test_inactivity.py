"""SPEC 9.3: members with no applied match in inactive_days are off the leaderboards and
marked on their card until they play again; ratings never change by time (both engines)."""

from __future__ import annotations

import pytest

from bot.services import Actor, Services, UserError, parse_lineup
from tests.services.conftest import Clock

GUILD = 8
MOD = Actor(999, is_moderator=True)
DAY = 86_400.0


async def board(services: Services) -> list[tuple[int, int]]:
    page = await services.standings.leaderboard(GUILD, page_size=0)
    return [(row.rank, row.user_id) for row in page.rows]


async def test_inactive_members_leave_the_board_until_they_play(
    services: Services, clock: Clock
) -> None:
    await services.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="a")
    clock.now += 10 * DAY
    await services.matches.report(GUILD, MOD, parse_lineup("<@3> 1 | <@4> 0"), request_id="b")
    assert await board(services) == [(1, 1), (2, 3), (3, 2), (4, 4)]  # ties: by user id
    ratings = {m.user_id: m.rating for m in await services.context.db.read.members(GUILD)}

    await services.settings.change(GUILD, MOD, {"inactive_days": 7})
    assert await board(services) == [(1, 3), (2, 4)]  # 1 and 2 last played 10 days ago
    card = await services.standings.rating_card(GUILD, 1)
    assert (card.inactive, card.rank) == (True, None)
    active = await services.standings.rating_card(GUILD, 4)
    assert (active.inactive, active.rank) == (False, 2)  # 1, inactive, is not counted ahead
    assert {m.user_id: m.rating for m in await services.context.db.read.members(GUILD)} == ratings

    await services.matches.report(GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="c")
    listed = {user for _, user in await board(services)}
    assert listed == {2, 3, 4}  # 2 played again; 1 did not
    clock.now += 8 * DAY
    assert await board(services) == []  # nobody played within 7 days
    await services.settings.change(GUILD, MOD, {"inactive_days": 0})
    assert len(await board(services)) == 4  # off: everyone is back, ratings as they were


@pytest.mark.parametrize("days", [-1, 3651, 1.5, "x"])
async def test_inactive_days_out_of_bounds_is_refused(services: Services, days: object) -> None:
    with pytest.raises(UserError, match="inactive_days"):
        await services.settings.change(GUILD, MOD, {"inactive_days": days})
    assert (await services.settings.current(GUILD)).inactive_days == 0
