"""Taking members out of every queue of a guild (SPEC 10.1, 10.5), which the members
service (a member who left the ladder or the server) and the queues (a member barred at a
pop) share: on its own, so that the members service loads none of the queues' use cases."""

from __future__ import annotations

from collections.abc import Sequence

from bot.services.errors import N_, Notice
from bot.services.events import PendingEvent
from bot.storage import WriteTransaction


async def take_out_of_queues(
    tx: WriteTransaction,
    guild_id: int,
    user_ids: Sequence[int],
    why: str,
    events: list[PendingEvent],
) -> list[int]:
    """Take members out of every queue of the guild at once, with their parties (a party
    member's leave takes the whole party out, SPEC 10.5), each queue's message saying `why`
    (an N_-marked notice of `{members}`, SPEC 10.1: left the ladder, left the server), and a
    `queue.left` event (reason "removed") added to `events` for each; the queues they left."""
    if not user_ids:
        return []
    leaving = list(dict.fromkeys(user_ids))
    mates: list[int] = []
    for user_id in leaving:
        party = await tx.party_of(guild_id, user_id)
        if party is not None:
            mates += [m for m in party.members if m not in leaving and m not in mates]
    gone = {*leaving, *mates}
    events.extend(
        PendingEvent("queue.left", queue_id=queue.queue_id, user_id=w.user_id, reason="removed")
        for queue in await tx.queues(guild_id)
        for w in queue.waiting
        if w.user_id in gone
    )
    left = await tx.remove_waiting(guild_id, [*leaving, *mates])
    notice = Notice(why, members=mentions(leaving))
    if mates:
        notice = Notice(
            N_("{removed}; their party ({mates}) left with them"),
            removed=notice,
            mates=mentions(mates),
        )
    for queue_id in left:
        await tx.set_queue_notice(guild_id, queue_id, notice.stored())
    return left


def mentions(user_ids: Sequence[int]) -> str:
    """The members as Discord mentions, in a queue's message."""
    return ", ".join(f"<@{user_id}>" for user_id in user_ids)
