"""Issue 24 findings 3, 4 and 5 on both engines: queue and lobby numbers are never reused
(SPEC 10.1), a member who leaves the ladder or the server leaves every queue (SPEC 10.1),
and deadlines that passed while the bot was down are acted on in the order they fell due
(SPEC 10.4)."""

from __future__ import annotations

import pytest

from bot.services import Services, UserError
from bot.services.errors import Notice
from bot.services.queues import Queues
from tests.services.conftest import Clock
from tests.services.queue_helpers import GUILD, MOD, make, member


async def test_finding_5_a_ready_check_that_ran_out_during_downtime_dissolves_not_cancels(
    queues: Queues, services: Services, clock: Clock
) -> None:
    await services.settings.change(GUILD, MOD, {"no_show_minutes": 10, "lobby_hours": 1})
    queue_id = await make(queues, "duel", 2, ready_seconds=30)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=queue_id)).lobbies
    await queues.ready(GUILD, 1, lobby.lobby_id)
    clock.now += 2 * 3600  # down for 2 h: the ready check (30 s) ran out before lobby_hours
    assert await queues.run_due() == 1
    after = await queues.lobby(GUILD, lobby.lobby_id)
    assert (
        after.state == "dissolved"
        and str(Notice.load(after.notice or "")) == "dissolved: not everyone was ready"
    )
    queue = await queues.queue(GUILD, queue_id)
    assert queue is not None and [w.user_id for w in queue.waiting] == [1]  # ready: back
    with pytest.raises(UserError, match="missed a ready check and cannot queue for 10 min"):
        await queues.join(GUILD, member(2), queue_id=queue_id)
    assert await queues.run_due() == 0


async def test_finding_5_a_playing_lobby_past_lobby_hours_is_still_cancelled(
    queues: Queues, services: Services, clock: Clock
) -> None:
    await services.settings.change(GUILD, MOD, {"lobby_hours": 1})
    queue_id = await make(queues, "duel", 2, ready_seconds=30)
    await queues.join(GUILD, member(1), queue_id=queue_id)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=queue_id)).lobbies
    for user_id in (1, 2):
        await queues.ready(GUILD, user_id, lobby.lobby_id)
    clock.now += 2 * 3600
    assert await queues.run_due() == 1
    assert (await queues.lobby(GUILD, lobby.lobby_id)).state == "cancelled"


async def test_finding_3_a_deleted_queues_stale_button_and_dissolved_lobby_touch_no_new_queue(
    queues: Queues, services: Services
) -> None:
    old = await make(queues, "duel", 2, ready_seconds=30)
    await queues.join(GUILD, member(1), queue_id=old)
    (lobby,) = (await queues.join(GUILD, member(2), queue_id=old)).lobbies
    await queues.ready(GUILD, 1, lobby.lobby_id)
    await queues.delete_queue(GUILD, MOD, "duel")
    new = await make(queues, "duel", 2)
    assert new != old
    await queues.join(GUILD, member(3), queue_id=new)
    stored = await services.context.db.read.dump()
    for stale in (
        queues.join(GUILD, member(4), queue_id=old),
        queues.leave(GUILD, 3, queue_id=old),
    ):
        with pytest.raises(UserError, match="this queue was deleted"):
            await stale
    assert await services.context.db.read.dump() == stored
    update = await queues.decline(GUILD, 2, lobby.lobby_id)  # 1 was ready: no queue to go to
    assert update.lobby.state == "dissolved" and not update.lobbies
    queue = await queues.queue(GUILD, new)
    assert queue is not None and [w.user_id for w in queue.waiting] == [3]
    assert (await queues.join(GUILD, member(1), queue_id=new)).lobbies  # 1 is free to queue


async def test_finding_4_leaving_the_ladder_while_waiting_leaves_every_queue(
    queues: Queues, services: Services
) -> None:
    duel = await make(queues, "duel", 2)
    fours = await make(queues, "4s", 4)
    for queue_id in (duel, fours):
        await queues.join(GUILD, member(1), queue_id=queue_id)
    await queues.join(GUILD, member(3), queue_id=fours)
    await services.members.leave(GUILD, member(1))
    for queue_id, waiting in ((duel, []), (fours, [3])):
        queue = await queues.queue(GUILD, queue_id)
        assert queue is not None and [w.user_id for w in queue.waiting] == waiting
        assert str(Notice.load(queue.notice or "")) == "<@1> left the ladder and the queue"
    assert not (await queues.join(GUILD, member(2), queue_id=duel)).lobbies  # nobody to pop


async def test_finding_4_leaving_the_server_while_waiting_leaves_every_queue(
    queues: Queues,
) -> None:
    duel = await make(queues, "duel", 2)
    await queues.join(GUILD, member(1), queue_id=duel)
    left = await queues.left_server(GUILD, 1)
    assert [q.queue_id for q in left.left] == [duel] and not left.left[0].waiting
    assert str(Notice.load(left.left[0].notice or "")) == "<@1> left the server and the queue"
    assert not (await queues.left_server(GUILD, 1)).left  # twice: nothing more
    assert not (await queues.join(GUILD, member(2), queue_id=duel)).lobbies


async def test_finding_4_a_pop_leaves_out_a_member_who_may_no_longer_play(
    queues: Queues, services: Services
) -> None:
    """A member who left the ladder by a path that did not take them out (a database of an
    earlier version) is left out of the pop, and the next in line takes the place."""
    duel = await make(queues, "duel", 2)
    await queues.join(GUILD, member(1), queue_id=duel)
    async with services.context.db.write(GUILD) as tx:
        await tx.set_enabled(GUILD, 1, False)
    assert not (await queues.join(GUILD, member(2), queue_id=duel)).lobbies
    queue = await queues.queue(GUILD, duel)
    assert queue is not None and [w.user_id for w in queue.waiting] == [2]
    assert str(Notice.load(queue.notice or "")) == "<@1> may not play now and left the queue"
    (lobby,) = (await queues.join(GUILD, member(3), queue_id=duel)).lobbies
    assert [p.user_id for p in lobby.players] == [2, 3]


async def test_finding_4_leaving_the_ladder_takes_the_members_party_out_with_them(
    queues: Queues, services: Services
) -> None:
    fours = await make(queues, "4s", 4, party_max=2)
    await queues.invite(GUILD, member(1), member(2))
    await queues.answer_invite(GUILD, 2, 1, accept=True)
    await queues.join(GUILD, member(1), queue_id=fours)  # the leader joins for the party
    await queues.join(GUILD, member(3), queue_id=fours)
    await services.members.leave(GUILD, member(2))
    queue = await queues.queue(GUILD, fours)
    assert queue is not None and [w.user_id for w in queue.waiting] == [3]
    assert (
        str(Notice.load(queue.notice or ""))
        == "<@2> left the ladder and the queue; their party (<@1>) left with them"
    )
