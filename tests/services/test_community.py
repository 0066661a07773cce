"""Rank roles and the mod log channel in the services, and the Changes they report
(both engines through the `services` fixture)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.ratings.ranks import rank_ladder, rank_role
from bot.services import Actor, ServiceContext, Services, UserError, parse_lineup
from bot.services.changes import Change
from bot.services.community import RoleCall
from bot.services.errors import Notice
from bot.storage import Database

GUILD = 7
MOD = Actor(999, is_moderator=True)
BRONZE, SILVER, GOLD = 11, 12, 13


async def rated(services: Services) -> None:
    """1 beats 2 over 20 minutes: 1 at 520, 2 at 480; 3 never plays."""
    await services.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="a")


async def test_rank_roles_are_added_listed_moved_and_removed(services: Services) -> None:
    community = services.community
    assert await community.add_rank_role(GUILD, MOD, GOLD, 600) == {GOLD: 600.0}
    assert await community.add_rank_role(GUILD, MOD, BRONZE, 0) == {BRONZE: 0.0, GOLD: 600.0}
    assert await community.add_rank_role(GUILD, MOD, GOLD, 550.5) == {BRONZE: 0.0, GOLD: 550.5}
    await community.remove_rank_role(GUILD, MOD, BRONZE)
    assert await community.rank_roles(GUILD) == {GOLD: 550.5}


@pytest.mark.parametrize(
    ("actor", "role", "min_rating", "message"),
    [
        (Actor(5), SILVER, 10.0, "only moderators"),
        (MOD, SILVER, float("nan"), "min_rating nan must be a finite number from -1e6 to 1e6"),
        (MOD, SILVER, 2e6, "min_rating 2000000.0 must be"),
        (MOD, SILVER, 600.0, "already the threshold of role 13"),
    ],
)
async def test_refused_rank_roles_change_nothing(
    services: Services, actor: Actor, role: int, min_rating: float, message: str
) -> None:
    community = services.community
    await community.add_rank_role(GUILD, MOD, GOLD, 600)
    with pytest.raises(UserError, match=message):
        await community.add_rank_role(GUILD, actor, role, min_rating)
    with pytest.raises(UserError, match="not a rank role"):
        await community.remove_rank_role(GUILD, MOD, role)
    assert await community.rank_roles(GUILD) == {GOLD: 600.0}


async def test_role_calls_fix_what_members_hold(services: Services) -> None:
    community = services.community
    await rated(services)
    assert await community.role_calls(GUILD, {1: [], 2: []}) == []  # no rank roles yet
    await community.add_rank_role(GUILD, MOD, BRONZE, -1000)
    await community.add_rank_role(GUILD, MOD, GOLD, 510)
    held = {1: [BRONZE, 77], 2: [GOLD], 3: [BRONZE], 4: [77]}  # 77: not a rank role
    calls = await community.role_calls(GUILD, held)
    assert sorted(calls, key=lambda c: (c.user_id, c.add)) == [
        RoleCall(1, BRONZE, add=False),
        RoleCall(1, GOLD, add=True),
        RoleCall(2, GOLD, add=False),  # 480 is below 510 - 25: gold goes
        RoleCall(2, BRONZE, add=True),
        RoleCall(3, BRONZE, add=False),  # 3 never played: no rank role
    ]
    assert await community.role_calls(GUILD, held, only={3}) == [RoleCall(3, BRONZE, False)]


@settings(max_examples=30, deadline=None)
@given(
    ratings=st.lists(st.floats(-2000, 3000), min_size=1, max_size=3, unique=True),
    margin=st.floats(0, 500),
    held_index=st.integers(-1, 2),
)
def test_role_calls_agree_with_rank_role(
    ratings: list[float], margin: float, held_index: int
) -> None:
    """The calls leave member 1 holding exactly rank_role's answer, whatever it held."""

    async def check(directory: str) -> None:
        db = await Database.open(Path(directory) / "ladder.sqlite3")
        services = Services.build(ServiceContext(db, GuildSettings(rank_margin=margin)))
        try:
            await rated(services)
            community = services.community
            roles = {100 + index: value for index, value in enumerate(ratings)}
            for role_id, min_rating in roles.items():
                await community.add_rank_role(GUILD, MOD, role_id, min_rating)
            held = [] if held_index < 0 or held_index >= len(ratings) else [100 + held_index]
            calls = await community.role_calls(GUILD, {1: held})
            after = set(held)
            for call in calls:
                (after.add if call.add else after.discard)(call.role_id)
            member = (await services.context.db.read.members_by_id(GUILD, [1]))[0]
            expected = rank_role(
                rank_ladder(roles, margin), member.rating, True, held[0] if held else None
            )
            assert after == ({expected} if expected is not None else set())
        finally:
            await db.close()

    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(check(directory))


async def test_modlog_channel_is_set_and_switched_off(services: Services) -> None:
    community = services.community
    assert await community.modlog_channel(GUILD) is None
    await community.set_modlog_channel(GUILD, MOD, 555)
    assert await community.modlog_channel(GUILD) == 555
    with pytest.raises(UserError, match="only moderators"):
        await community.set_modlog_channel(GUILD, Actor(5), None)
    await community.set_modlog_channel(GUILD, MOD, None)
    assert await community.modlog_channel(GUILD) is None


async def test_cancel_withdraws_a_pending_report_for_its_reporter_or_a_moderator(
    services: Services,
) -> None:
    await rated(services)
    first = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 1 | <@3> 0"), request_id="b"
    )
    with pytest.raises(
        UserError, match=f"only the reporter or a moderator can cancel match #{first.match.id}"
    ):
        await services.matches.cancel(GUILD, Actor(3), first.match.id)
    cancelled = await services.matches.cancel(GUILD, Actor(1), first.match.id)
    assert cancelled.status == "void"
    with pytest.raises(
        UserError, match="is void; only a pending or disputed match can be cancelled"
    ):
        await services.matches.cancel(GUILD, Actor(1), first.match.id)
    second = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 1 | <@3> 0"), request_id="c"
    )
    await services.matches.dispute(GUILD, Actor(3), second.match.id)
    assert (await services.matches.cancel(GUILD, MOD, second.match.id)).status == "void"
    members = await services.context.db.read.members_by_id(GUILD, [1, 2, 3])
    assert [(m.rating, m.games) for m in members] == [(520.0, 1), (480.0, 1), (None, 0)]
    with pytest.raises(UserError, match=r"is applied; .* \(a moderator can void it"):
        await services.matches.cancel(GUILD, MOD, 1)


async def test_edit_replaces_the_lineup_keeps_the_old_one_and_replays(services: Services) -> None:
    seen: list[Change] = []
    services.context.on_change = seen.append
    await rated(services)  # 1 beats 2
    await services.matches.report(GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="b")
    await services.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@3> 0"), request_id="c")
    first = (await services.matches.list_matches(GUILD, limit=10))[-1]
    result = await services.matches.edit(GUILD, MOD, first.id, parse_lineup("<@4> 3 5 | <@2> 1 5"))
    assert result.old_lineup == "<@1> 1 20 | <@2> 0 20"
    assert [p.user_id for p in result.match.participants] == [4, 2]
    assert result.match.status == "applied" and result.replayed == 3
    stored = {
        m.user_id: (m.rating, m.games, m.wins)
        for m in await services.context.db.read.members(GUILD)
    }
    await services.settings.recompute(GUILD, MOD)
    replayed = {
        m.user_id: (m.rating, m.games, m.wins)
        for m in await services.context.db.read.members(GUILD)
    }
    assert stored == replayed
    assert stored[1][1:] == (1, 1) and stored[4][1:] == (1, 1)  # 1 lost the edited match
    edits = await services.matches.edits(GUILD, first.id)
    assert [(e.editor_id, e.old_lineup) for e in edits] == [(MOD.user_id, result.old_lineup)]
    assert parse_lineup(result.old_lineup)  # the history reads back as lineup text
    assert seen[-2].kind == "edited" and str(Notice.load(seen[-2].detail)) == (
        f"was {result.old_lineup}"
    )


async def test_edit_refuses_void_and_disputed_matches_saying_their_state(
    services: Services,
) -> None:
    pending = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 1 | <@2> 0"), request_id="a"
    )
    await services.matches.dispute(GUILD, Actor(2), pending.match.id)
    new = parse_lineup("<@1> 0 | <@2> 1")
    with pytest.raises(UserError, match="is disputed; only a pending or applied match can be"):
        await services.matches.edit(GUILD, MOD, pending.match.id, new)
    await services.matches.void(GUILD, MOD, pending.match.id)
    with pytest.raises(UserError, match=r"is void; .* \(report it again if it happened\)"):
        await services.matches.edit(GUILD, MOD, pending.match.id, new)
    with pytest.raises(UserError, match="only moderators"):
        await services.matches.edit(GUILD, Actor(1), pending.match.id, new)
    assert await services.matches.edits(GUILD, pending.match.id) == []
