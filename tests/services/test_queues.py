"""The queue service on both engines: pop, ready check, teams, captains, result, refusals,
timed actions (SPEC 10)."""

from __future__ import annotations

import itertools

import pytest

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, Services, UserError
from bot.services.errors import Notice
from bot.services.queues import Queues
from bot.storage.queues import QueueSettings
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth
from tests.services.queue_helpers import GUILD, MOD, make, member, seated


async def test_join_pop_ready_balance_result_confirm(queues: Queues, services: Services) -> None:
    queue_id = await make(queues, maps=("dust", "nuke"))
    for user_id in (1, 2, 3):
        joined = await queues.join(GUILD, member(user_id), queue_id=queue_id)
        assert joined.place == user_id and not joined.lobbies
    stored = await services.context.db.read.dump()
    again = await queues.join(GUILD, MemberInfo(2, "renamed"), "4S")
    assert again.already and again.place == 2
    assert await services.context.db.read.dump() == stored  # twice changes nothing
    popped = await queues.join(GUILD, member(4), queue_id=queue_id)
    assert popped.place is None and not popped.queue.waiting
    (lobby,) = popped.lobbies
    assert [p.user_id for p in lobby.players] == [1, 2, 3, 4]
    assert lobby.state == "ready" and lobby.map in ("dust", "nuke")
    for user_id in (1, 2, 3):
        assert (await queues.ready(GUILD, user_id, lobby.lobby_id)).lobby.state == "ready"
    assert (await queues.ready(GUILD, 1, lobby.lobby_id)).already
    playing = (await queues.ready(GUILD, 4, lobby.lobby_id)).lobby
    assert playing.state == "playing"
    assert sorted(sum(1 for p in playing.players if p.team == t) for t in (0, 1)) == [2, 2]
    with pytest.raises(UserError, match="only the players of lobby"):
        await queues.result(GUILD, Actor(50), lobby.lobby_id, winner="a")
    with pytest.raises(UserError, match="winner 'e' must be one of a, b or draw"):
        await queues.result(GUILD, Actor(1), lobby.lobby_id, winner="e")
    done = await queues.result(GUILD, Actor(1), lobby.lobby_id, winner="a")
    assert done.lobby.state == "reported" and done.lobby.match_id == done.report.match.id
    assert done.report.match.status == "pending"
    with pytest.raises(UserError, match=f"already has its result: match #{done.lobby.match_id}"):
        await queues.result(GUILD, Actor(2), lobby.lobby_id, winner="b")
    team_of = {p.user_id: p.team for p in playing.players}
    opponent = next(u for u, t in team_of.items() if t != team_of[1])
    await services.matches.confirm(GUILD, Actor(opponent), done.report.match.id)
    match = await services.matches.show(GUILD, done.report.match.id)
    assert match.status == "applied"
    assert {p.user_id: p.side for p in match.participants} == {
        u: "AB"[t or 0] for u, t in team_of.items()
    }
    winners = [p for p in match.participants if p.side == "A"]
    assert all((p.rating_after or 0) > (p.rating_before or 0) for p in winners)
    await assert_log_is_truth(services, GUILD)
    assert await queues.join(GUILD, member(1), queue_id=queue_id)  # free again


async def test_moderator_result_applies_at_once_and_ffa_by_order(queues: Queues) -> None:
    queue_id = await make(queues, "ffa", 3, format="ffa", ready_seconds=0)
    for user_id in (1, 2, 3):
        joined = await queues.join(GUILD, member(user_id), queue_id=queue_id)
    (lobby,) = joined.lobbies
    assert lobby.state == "playing" and [p.team for p in lobby.players] == [0, 1, 2]
    with pytest.raises(UserError, match="free-for-all: give the order"):
        await queues.result(GUILD, MOD, lobby.lobby_id, winner="a")
    with pytest.raises(UserError, match="each of the 3 players"):
        await queues.result(GUILD, MOD, lobby.lobby_id, order=[3, 1, 1])
    done = await queues.result(GUILD, MOD, lobby.lobby_id, order=[3, 1, 2])
    assert done.report.match.status == "applied"
    scores = {p.user_id: p.score for p in done.report.match.participants}
    assert scores == {3: 2.0, 1: 1.0, 2: 0.0}


async def test_refusals(queues: Queues, services: Services, clock: Clock) -> None:
    with pytest.raises(UserError, match="no queues yet"):
        await queues.join(GUILD, member(1))
    with pytest.raises(UserError, match="only moderators"):
        await queues.create_queue(GUILD, Actor(1), QueueSettings("q", 1, 2), pick_order_given=False)
    queue_id = await make(queues, "duel", 2)
    with pytest.raises(UserError, match="already"):
        await make(queues, "DUEL", 2)
    with pytest.raises(UserError, match="bots cannot join"):
        await queues.join(GUILD, MemberInfo(5, "bot", is_bot=True), queue_id=queue_id)
    await services.members.leave(GUILD, member(6))
    with pytest.raises(UserError, match="you left the ladder"):
        await queues.join(GUILD, member(6), queue_id=queue_id)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=queue_id)).lobbies
    with pytest.raises(UserError, match=f"you are playing in lobby #{lobby.lobby_id}"):
        await queues.join(GUILD, member(1), queue_id=queue_id)
    with pytest.raises(UserError, match="is still in its ready check"):
        await queues.result(GUILD, Actor(1), lobby.lobby_id, winner="a")
    with pytest.raises(UserError, match="only moderators"):
        await queues.cancel(GUILD, Actor(1), lobby.lobby_id)
    with pytest.raises(UserError, match="you are not in any queue"):
        await queues.leave(GUILD, 3)
    stored = await services.context.db.read.dump()
    for refused in (
        queues.join(GUILD, member(2), queue_id=queue_id),
        queues.pick(GUILD, 1, lobby.lobby_id, 2),
        queues.substitute(GUILD, MOD, lobby.lobby_id, 1, member(2)),
    ):
        with pytest.raises(UserError):
            await refused
    assert await services.context.db.read.dump() == stored


async def test_deadline_dissolves_ready_players_go_back_no_shows_penalized(
    queues: Queues, services: Services, clock: Clock
) -> None:
    await services.settings.change(GUILD, MOD, {"no_show_minutes": 10})
    queue_id = await make(queues, ready_seconds=30)
    for user_id in (1, 2, 3, 4):
        joined = await queues.join(GUILD, member(user_id), queue_id=queue_id)
    (lobby,) = joined.lobbies
    await queues.join(GUILD, member(5), queue_id=queue_id)
    await queues.ready(GUILD, 3, lobby.lobby_id)
    await queues.ready(GUILD, 1, lobby.lobby_id)
    clock.now += 29
    assert await queues.run_due() == 0
    clock.now += 1
    assert await queues.run_due() == 1
    assert await queues.run_due() == 0  # once
    dissolved = await queues.lobby(GUILD, lobby.lobby_id)
    assert dissolved.state == "dissolved"
    queue = await queues.queue(GUILD, queue_id)
    assert queue is not None and [w.user_id for w in queue.waiting] == [1, 3, 5]
    with pytest.raises(UserError, match="missed a ready check and cannot queue for 10 min"):
        await queues.join(GUILD, member(2), queue_id=queue_id)
    clock.now += 600
    popped = await queues.join(GUILD, member(2), queue_id=queue_id)
    assert [p.user_id for p in popped.lobbies[0].players] == [1, 3, 5, 2]


async def test_leave_in_the_ready_check_refills_and_pops_again(queues: Queues) -> None:
    queue_id = await make(queues, "duel", 2)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=queue_id)).lobbies
    await queues.join(GUILD, member(3), queue_id=queue_id)
    await queues.ready(GUILD, 1, lobby.lobby_id)
    update = await queues.decline(GUILD, 2, lobby.lobby_id)
    assert update.lobby.state == "dissolved"
    (again,) = update.lobbies
    assert [p.user_id for p in again.players] == [1, 3]


async def test_captains_pick_in_order_and_auto_pick(queues: Queues, clock: Clock) -> None:
    queue_id = await make(queues, "caps", 6, mode="captains", ready_seconds=0)
    for user_id in range(1, 7):
        joined = await queues.join(GUILD, member(user_id), queue_id=queue_id)
    (lobby,) = joined.lobbies
    assert lobby.state == "picking"
    captains = [p for p in lobby.players if p.captain]
    assert [p.team for p in captains] == [0, 1]  # all at 1500: the first in the queue
    a, b = captains[0].user_id, captains[1].user_id
    with pytest.raises(UserError, match=f"it is <@{a}>'s turn"):
        await queues.pick(GUILD, b, lobby.lobby_id, 3)
    await queues.pick(GUILD, a, lobby.lobby_id, 6)
    clock.now += 60
    assert await queues.run_due() == 1  # b's pick times out: the highest-rated left (3)
    after = await queues.lobby(GUILD, lobby.lobby_id)
    assert seated(after, 3).team == 1
    done = await queues.pick(GUILD, b, lobby.lobby_id, 5)
    assert done.lobby.state == "playing"
    teams = {p.user_id: p.team for p in done.lobby.players}
    assert teams == {1: 0, 2: 1, 6: 0, 3: 1, 5: 1, 4: 0}


async def test_expiry_substitute_cancel_and_lobby_timeout(
    queues: Queues, services: Services, clock: Clock
) -> None:
    queue_id = await make(queues, "duel", 2, expire_minutes=5, ready_seconds=0)
    other = await make(queues, "4s", 4, expire_minutes=60)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    await queues.join(GUILD, member(2), queue_id=other)
    clock.now += 300
    assert await queues.run_due() == 1
    queue = await queues.queue(GUILD, queue_id)
    assert (
        queue is not None
        and not queue.waiting
        and "<@1> left the queue" in str(Notice.load(queue.notice or ""))
    )
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(3), queue_id=queue_id)).lobbies
    sub = await queues.substitute(GUILD, MOD, lobby.lobby_id, 3, member(2))
    assert [p.user_id for p in sub.lobby.players] == [1, 2]
    left = await queues.queue(GUILD, other)
    assert left is not None and not left.waiting  # the substitute left their queue
    cancelled = await queues.cancel(GUILD, MOD, lobby.lobby_id)
    assert cancelled.lobby.state == "cancelled"
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (timed,) = (await queues.join(GUILD, member(3), queue_id=queue_id)).lobbies
    clock.now += 3 * 3600
    assert await queues.run_due(lambda guild_id: guild_id != GUILD) == 0  # not the owner
    assert await queues.run_due() == 1
    assert (await queues.lobby(GUILD, timed.lobby_id)).state == "cancelled"
    deleted = await queues.delete_queue(GUILD, MOD, "duel")
    assert deleted.queue_id == queue_id
    assert [q.name for q in await queues.queues(GUILD)] == ["4s"]


async def test_settings_defaults(services: Services) -> None:
    settings = await services.settings.current(GUILD)
    assert (settings.no_show_minutes, settings.lobby_hours) == (0, 3.0)
    assert GuildSettings().lobby_hours == 3.0


async def test_edit_random_split_and_maps(queues: Queues, clock: Clock) -> None:
    queue_id = await make(queues, "r", 6, mode="random", ready_seconds=0, maps=("x", "y"))
    for user_id in (1, 2, 3):
        await queues.join(GUILD, member(user_id), queue_id=queue_id)
    with pytest.raises(UserError, match="only moderators"):
        await queues.edit_queue(GUILD, Actor(1), "r", {"size": 2})
    with pytest.raises(UserError, match="size 3 must be a multiple of teams"):
        await queues.edit_queue(GUILD, MOD, "r", {"size": 3})
    edited = await queues.edit_queue(GUILD, MOD, "r", {"size": 2, "teams": 2})
    (lobby,) = edited.lobbies  # the queue already held its new size: it popped
    assert [p.user_id for p in lobby.players] == [1, 2] and edited.queue.place_of(3) == 1
    assert lobby.seed is not None and sorted(
        p.team for p in lobby.players if p.team is not None
    ) == [0, 1]
    maps = [lobby.map]
    for user_id in range(4, 12):
        popped = await queues.join(GUILD, member(user_id), queue_id=queue_id)
        maps += [found.map for found in popped.lobbies]
    assert len(maps) == 5 and all(a != b for a, b in itertools.pairwise(maps))
    renamed = await queues.edit_queue(GUILD, MOD, "R", {"name": "rapid", "teams": 2})
    assert renamed.queue.name == "rapid" and renamed.queue.settings.pick_order == "abba"


async def test_ready_on_a_closed_lobby_says_its_state(queues: Queues) -> None:
    queue_id = await make(queues, "d", 2)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=queue_id)).lobbies
    await queues.ready(GUILD, 1, lobby.lobby_id)
    await queues.cancel(GUILD, MOD, lobby.lobby_id)
    with pytest.raises(UserError, match=f"lobby #{lobby.lobby_id} was cancelled"):
        await queues.ready(GUILD, 1, lobby.lobby_id)
