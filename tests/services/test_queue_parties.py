"""Parties (SPEC 10.5) on both engines: invite, accept, decline; the leader's join puts the
whole party in (all or none), any member's leave takes it out; a party is never split by
balance, random or captains (hypothesis over ratings and party shapes); the refusals; a
party ends at its pop or after an hour without a queue."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import ServiceContext, Services, UserError
from bot.services.core import elo_bridge
from bot.services.queues import Queues
from bot.storage.queues import Lobby, QueueSettings, TeamMode
from tests.services.conftest import Clock
from tests.services.queue_helpers import GUILD, MOD, make, member, seated
from tests.storage.engines import OpenDatabase


async def form(queues: Queues, leader: int, *mates: int) -> None:
    for mate in mates:
        await queues.invite(GUILD, member(leader), member(mate))
        await queues.answer_invite(GUILD, mate, leader, accept=True)


async def refused(call: Awaitable[object], text: str, services: Services) -> None:
    stored = await services.context.db.read.dump()
    with pytest.raises(UserError, match=text):
        await call
    assert await services.context.db.read.dump() == stored


async def test_invite_accept_decline_and_the_refusals(
    queues: Queues, services: Services, clock: Clock
) -> None:
    await refused(queues.invite(GUILD, member(1), member(2)), "no queue of this server", services)
    duo = await make(queues, "duo", 4, party_max=2, ready_seconds=0)
    await make(queues, "ffa", 4, format="ffa")
    await refused(queues.invite(GUILD, member(1), member(1)), "yourself", services)
    invited = await queues.invite(GUILD, member(1), member(2))
    assert invited.invited == (2,) and invited.members == (1,)
    await queues.invite(GUILD, member(1), member(3))
    declined = await queues.answer_invite(GUILD, 3, 1, accept=False)
    assert declined is None  # no party yet: nobody accepted
    await refused(queues.answer_invite(GUILD, 3, 1, accept=True), "already answered", services)
    party = await queues.answer_invite(GUILD, 2, 1, accept=True)
    assert party is not None and party.members == (1, 2) and party.invited == ()
    await refused(queues.invite(GUILD, member(1), member(4)), "party_max 2", services)
    await refused(queues.invite(GUILD, member(2), member(4)), "only its leader", services)
    await refused(queues.invite(GUILD, member(5), member(2)), "in <@1>'s party", services)
    await refused(queues.join(GUILD, member(2), "duo"), "its leader joins for it", services)
    await refused(queues.join(GUILD, member(1), "ffa"), "free-for-all", services)
    # all or none: a member in a lobby keeps the whole party out
    await queues.invite(GUILD, member(6), member(7))
    for user in (3, 4, 7):
        await queues.join(GUILD, member(user), queue_id=duo)
    await queues.answer_invite(GUILD, 7, 6, accept=False)
    await queues.join(GUILD, member(8), queue_id=duo)  # pops 3, 4, 7, 8
    await form(queues, 9, 3)
    await refused(queues.join(GUILD, member(9), "duo"), "<@3>: playing in lobby", services)
    # the leader's join puts both in, a member's leave takes both out
    joined = await queues.join(GUILD, member(1), queue_id=duo)
    assert [w.user_id for w in joined.queue.waiting] == [1, 2]
    left = await queues.leave(GUILD, 2)
    assert [q.name for q in left.left] == ["duo"] and not left.left[0].waiting
    await refused(queues.invite(GUILD, member(1), member(2)), "in your party already", services)
    # an hour without a queue ends a party; the leader's leave ends it at once
    clock.now += 3600
    assert await queues.run_due() == 2  # parties of 1 and of 9
    assert await queues.party(GUILD, 1) is None and await queues.party(GUILD, 9) is None


async def test_a_party_pops_together_and_ends_with_its_pop(queues: Queues) -> None:
    """Two solos ahead of a party of two in a 2v2: the party is not split by the first
    four places; it joins a lobby whole, stays on one team, and its party ends."""
    duo = await make(queues, "duo", 4, party_max=2, ready_seconds=0)
    await form(queues, 1, 2)
    await queues.join(GUILD, member(3), queue_id=duo)
    await queues.join(GUILD, member(4), queue_id=duo)
    await queues.join(GUILD, member(5), queue_id=duo)
    popped = await queues.join(GUILD, member(1), queue_id=duo)
    (lobby,) = popped.lobbies  # 3, 4 and the party: 5 waits (a party of 2 does not split)
    assert sorted(p.user_id for p in lobby.players) == [1, 2, 3, 4]
    assert seated(lobby, 1).team == seated(lobby, 2).team
    assert [w.user_id for w in popped.queue.waiting] == [5]
    assert await queues.party(GUILD, 1) is None


async def test_a_party_that_does_not_fit_the_teams_waits_for_one_that_does(
    queues: Queues,
) -> None:
    """Teams of 3: a trio, then a duo and a duo cannot fill two teams of 3 (2 + 2 + 3 is
    not 3 + 3); a solo completes it, the second duo waits."""
    trio = await make(queues, "3v3", 6, party_max=3, ready_seconds=0)
    await form(queues, 1, 2, 3)
    await form(queues, 4, 5)
    await form(queues, 6, 7)
    for leader in (1, 4, 6):
        assert not (await queues.join(GUILD, member(leader), queue_id=trio)).lobbies
    popped = await queues.join(GUILD, member(8), queue_id=trio)
    (lobby,) = popped.lobbies
    assert sorted(p.user_id for p in lobby.players) == [1, 2, 3, 4, 5, 8]
    assert [w.user_id for w in popped.queue.waiting] == [6, 7]


@st.composite
def lobby_case(draw: st.DrawFn) -> tuple[int, int, TeamMode, list[int], list[float]]:
    """teams, team size, mode, party sizes and ratings of a lobby."""
    teams = draw(st.integers(2, 4))
    per_team = draw(st.integers(2, 8 if teams == 2 else 4))
    parties: list[int] = []
    room = [per_team] * teams
    for team in range(teams):  # parties that surely fit: drawn team by team
        while room[team]:
            size = draw(st.integers(1, room[team]))
            parties.append(size)
            room[team] -= size
    order = draw(st.permutations(parties))
    ratings = draw(
        st.lists(st.integers(0, 2500).map(float), min_size=teams * per_team,
                 max_size=teams * per_team)
    )  # fmt: skip
    modes: list[TeamMode] = ["balance", "random", "captains"]
    mode = draw(st.sampled_from(modes))
    return teams, per_team, mode, list(order), ratings


async def run_lobby(
    fresh_database: OpenDatabase, case: tuple[int, int, TeamMode, list[int], list[float]]
) -> None:
    teams, per_team, mode, parties, ratings = case
    db = await fresh_database()
    clock = Clock()
    defaults = GuildSettings()
    services = Services.build(ServiceContext(db, defaults, clock=clock))
    service = Queues(services.context, services.matches, rng=random.Random(5), pick_seconds=5.0)
    try:
        spec = QueueSettings("q", 40, teams * per_team, teams=teams, mode=mode,
                             ready_seconds=0, party_max=per_team)  # fmt: skip
        await service.create_queue(GUILD, MOD, spec, pick_order_given=False)
        bridge = elo_bridge(defaults)
        users = list(range(1, len(ratings) + 1))
        async with services.context.write(GUILD) as unit:
            await unit.tx.ensure_guild(GUILD, defaults)
            await unit.tx.add_members(GUILD, users)
            await unit.tx.set_ratings(
                GUILD, {u: float(bridge.from_elo(r)) for u, r in zip(users, ratings, strict=True)}
            )
        party_of: dict[int, int] = {}
        start = 1
        for size in parties:
            await form(service, start, *range(start + 1, start + size))
            party_of.update(dict.fromkeys(range(start, start + size), start))
            start += size
        lobby: Lobby | None = None
        for leader in sorted(set(party_of.values())):
            result = await service.join(GUILD, member(leader), "q")
            lobby = result.lobbies[0] if result.lobbies else lobby
        assert lobby is not None
        while lobby.state == "picking":  # auto-picks, one per timeout
            clock.now += 6
            await service.run_due()
            lobby = await service.lobby(GUILD, lobby.lobby_id)
        assert lobby.state == "playing"
        for player in lobby.players:
            assert player.team == seated(lobby, party_of[player.user_id]).team
        sizes = [sum(1 for p in lobby.players if p.team == t) for t in range(teams)]
        assert sizes == [per_team] * teams
    finally:
        await services.close()


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(lobby_case())
def test_no_mode_ever_splits_a_party(
    fresh_database: OpenDatabase, case: tuple[int, int, TeamMode, list[int], list[float]]
) -> None:
    asyncio.run(run_lobby(fresh_database, case))
