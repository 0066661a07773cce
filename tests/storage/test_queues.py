"""Queues and lobbies in storage, on both engines (SPEC 10.4)."""

from __future__ import annotations

import pytest

from bot.config import GuildSettings
from bot.storage import Database
from bot.storage.queues import Lobby, LobbyPlayer, QueueSettings

GUILD = 7


def draft(queue_id: int, user_ids: list[int], *, ready_deadline: float | None = 160.0) -> Lobby:
    return Lobby(
        guild_id=GUILD,
        lobby_id=0,
        queue_id=queue_id,
        queue_name="5v5",
        channel_id=99,
        message_id=None,
        state="ready",
        format="teams",
        teams=2,
        mode="balance",
        pick_order="abba",
        created_at=100.0,
        ready_deadline=ready_deadline,
        pick_deadline=None,
        close_deadline=10_900.0,
        map="dust",
        seed=None,
        match_id=None,
        closed_at=None,
        notice=None,
        version=1,
        shown_version=0,
        players=tuple(LobbyPlayer(u, i, 1500.0 + i) for i, u in enumerate(user_ids)),
    )


async def test_queue_waiting_order_front_and_back(database: Database) -> None:
    async with database.write(GUILD) as tx:
        settings = await tx.ensure_guild(GUILD, GuildSettings())
        assert (settings.no_show_minutes, settings.lobby_hours) == (0, 3.0)
        spec = QueueSettings("5v5", 99, 4, maps=("dust", "nuke"), pick_order="abba")
        queue_id = await tx.add_queue(GUILD, spec)
        other = await tx.add_queue(GUILD, QueueSettings("duel", 99, 2, pick_order="ab"))
        for user_id, at in ((1, 10.0), (2, 11.0), (3, 12.0)):
            await tx.add_waiting(GUILD, queue_id, [user_id], at, front=False)
        await tx.add_waiting(GUILD, other, [3], 13.0, front=False)
        await tx.add_waiting(GUILD, queue_id, [8, 9], 14.0, front=True)
    queue = await database.read.queue(GUILD, queue_id)
    assert queue is not None and queue.settings == spec
    assert [w.user_id for w in queue.waiting] == [8, 9, 1, 2, 3]
    assert queue.place_of(1) == 3 and queue.place_of(4) is None
    assert queue.version > queue.shown_version
    async with database.write(GUILD) as tx:
        assert await tx.remove_waiting(GUILD, [3, 9]) == [queue_id, other]
        assert await tx.remove_waiting(GUILD, [3]) == []
    queues = await database.read.queues(GUILD)
    assert [[w.user_id for w in q.waiting] for q in queues] == [[8, 1, 2], []]


async def test_a_member_is_in_one_open_lobby_at_most(database: Database) -> None:
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        queue_id = await tx.add_queue(GUILD, QueueSettings("q", 99, 2, pick_order="ab"))
        first = await tx.add_lobby(draft(queue_id, [1, 2]))
    assert await database.read.open_lobby_of(GUILD, 2) == first
    with pytest.raises(Exception, match=r"(?i)unique"):
        async with database.write(GUILD) as tx:
            await tx.add_lobby(draft(queue_id, [3, 2]))
    async with database.write(GUILD) as tx:
        await tx.update_lobby(GUILD, first, state="cancelled", closed_at=200.0)
        second = await tx.add_lobby(draft(queue_id, [3, 2]))
    assert (first, second) == (1, 2)
    assert await database.read.open_lobby_of(GUILD, 2) == second
    lobbies = await database.read.open_lobbies(GUILD)
    assert [(lobby.lobby_id, [p.user_id for p in lobby.players]) for lobby in lobbies] == [
        (2, [3, 2])
    ]
    closed = await database.read.lobby(GUILD, first)
    assert closed is not None and closed.state == "cancelled" and not closed.is_open


async def test_due_work_and_next_deadline(database: Database) -> None:
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        spec = QueueSettings("q", 99, 4, expire_minutes=1, pick_order="abba")
        queue_id = await tx.add_queue(GUILD, spec)
        await tx.add_waiting(GUILD, queue_id, [5], 100.0, front=False)
        await tx.add_waiting(GUILD, queue_id, [6], 130.0, front=False)
        lobby_id = await tx.add_lobby(draft(queue_id, [1, 2]))
    assert await database.read.next_deadline() == 160.0
    due = await database.read.due_work(165.0)
    assert due.expired == ((GUILD, queue_id, 5),) and due.lobbies == ((GUILD, lobby_id),)
    assert due.ranged == ()
    async with database.write(GUILD) as tx:
        await tx.update_lobby(GUILD, lobby_id, state="playing", ready_deadline=None)
    assert (await database.read.due_work(165.0)).lobbies == ()
    assert (await database.read.due_work(10_900.0)).lobbies == ((GUILD, lobby_id),)


async def test_players_and_shown_versions(database: Database) -> None:
    async with database.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        queue_id = await tx.add_queue(GUILD, QueueSettings("q", 99, 2, pick_order="ab"))
        lobby_id = await tx.add_lobby(draft(queue_id, [1, 2]))
        lobby = await tx.lobby(GUILD, lobby_id)
        assert lobby is not None
        captain = LobbyPlayer(1, 0, 1500.0, ready=True, team=0, captain=True)
        await tx.set_players(GUILD, lobby_id, [captain])
        await tx.swap_player(GUILD, lobby_id, 2, LobbyPlayer(3, 1, 1400.0, team=1, pick=0))
    stored = await database.read.lobby(GUILD, lobby_id)
    assert stored is not None
    assert stored.players == (captain, LobbyPlayer(3, 1, 1400.0, team=1, pick=0))
    assert stored.version == 3
    assert [lobby.lobby_id for lobby in await database.read.unshown_lobbies(GUILD)] == [lobby_id]
    async with database.write(GUILD) as tx:
        await tx.mark_shown(GUILD, "lobby", lobby_id, stored.version, 555)
        await tx.mark_shown(GUILD, "queue", queue_id, 1, 556)
    assert await database.read.unshown_lobbies(GUILD) == []
    assert await database.read.unshown_queues(GUILD) == []
    shown = await database.read.lobby(GUILD, lobby_id)
    assert shown is not None and shown.message_id == 555
    async with database.write(GUILD) as tx:
        await tx.penalize(GUILD, [1], 500.0)
        await tx.delete_queue(GUILD, queue_id)
    assert await database.read.penalty_until(GUILD, 1, 499.0) == 500.0
    assert await database.read.penalty_until(GUILD, 1, 500.0) is None
    assert await database.read.queues(GUILD) == []
    assert await database.read.guilds_with_queues() == [GUILD]
