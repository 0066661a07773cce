"""Refusals found by issue 8 in what the Discord front end asks: each says what is wrong,
stays one short line, and changes nothing (a dump of every table)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import pytest

from bot.services import Services, UserError, parse_lineup
from bot.services.errors import QUOTE_LIMIT, quoted
from tests.services.test_refusals import GUILD, MOD, seeded

ROBOT = 50  # a bot member of the seeded guild


async def refused(services: Services, call: Callable[[], Awaitable[object]], message: str) -> str:
    before = await services.context.db.read.dump()
    with pytest.raises(UserError) as refusal:
        await call()
    assert message in str(refusal.value)
    assert await services.context.db.read.dump() == before
    return str(refusal.value)


async def test_voiding_a_void_match_is_refused_as_already_void(services: Services) -> None:
    pending = await seeded(services)
    await services.matches.void(GUILD, MOD, pending)
    await refused(
        services,
        lambda: services.matches.void(GUILD, MOD, pending),
        f"match #{pending} is void; only a pending, disputed or applied match can be voided",
    )


async def test_a_leaderboard_page_past_the_end_names_the_page_count(services: Services) -> None:
    await seeded(services)
    pages = (await services.standings.leaderboard(GUILD, page_size=1)).pages
    assert pages == 3  # members 1, 2 and 3 played
    last = await services.standings.leaderboard(GUILD, page=pages, page_size=1)
    assert last.page == pages and len(last.rows) == 1
    for page in (pages + 1, 1_000_000_000, 0):
        await refused(
            services,
            partial(services.standings.leaderboard, GUILD, page=page, page_size=1),
            f"page {page} must be from 1 to 3",
        )


async def test_an_empty_leaderboard_still_has_its_first_page(services: Services) -> None:
    page = await services.standings.leaderboard(GUILD + 1)
    assert (page.page, page.pages, page.rows) == (1, 1, ())


async def test_predicting_a_member_against_themself_is_refused(services: Services) -> None:
    await seeded(services)
    await refused(
        services, lambda: services.standings.predict(GUILD, 1, 1), "a and b are both <@1>"
    )


@pytest.mark.parametrize("order", [(ROBOT, 1), (1, ROBOT)])
async def test_predicting_a_bot_is_refused(services: Services, order: tuple[int, int]) -> None:
    await seeded(services)
    await refused(
        services, lambda: services.standings.predict(GUILD, *order), f"<@{ROBOT}> is a bot"
    )


@pytest.mark.parametrize(
    "lineup",
    [
        "x" * 3000 + " 5 | <@1> 1",  # a bad player: the entry and the player quoted
        "<@1> " + "9" * 3000 + "x | <@2> 1",  # a bad score: the entry and the score quoted
        "<@1> 1 2 3 " + "4 " * 1500,  # too many words in one entry
    ],
)
def test_a_long_bad_entry_is_quoted_cut_short(lineup: str) -> None:
    with pytest.raises(UserError) as refusal:
        parse_lineup(lineup)
    message = str(refusal.value)
    assert "…" in message
    assert len(message) < 4 * QUOTE_LIMIT + 200


def test_a_quote_keeps_short_input_whole_and_cuts_long_input() -> None:
    assert quoted("bob") == "'bob'"
    long = quoted("y" * 500)
    assert long == repr("y" * (QUOTE_LIMIT - 1) + "…")
    assert len(long) == QUOTE_LIMIT + 2
