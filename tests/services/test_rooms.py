"""What match rooms need, from the database (SPEC 10.5), on both engines: a room once the
teams are made and never twice (not after a failure either); a substitute to sync; a
pending result keeps the room open until it is confirmed; a closed room is deleted after
room_grace_seconds, or at once when its lobby closed while the bot was down."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.app.cogs.community import modlog_line
from bot.present.language import words
from bot.services import Actor, MemberInfo, Services
from bot.services.changes import Change
from bot.services.errors import N_, Notice
from bot.services.queues import Queues
from bot.storage.queues import QueueSettings
from tests.services.conftest import Clock

GUILD = 14
MOD = Actor(999, is_moderator=True)


async def test_a_rooms_life_from_the_teams_to_its_deletion(
    services: Services, clock: Clock
) -> None:
    queues = Queues(services.context, services.matches, rng=random.Random(1))
    rooms = services.rooms
    spec = QueueSettings("r", 40, 2, ready_seconds=0, rooms="text")
    await queues.create_queue(GUILD, MOD, spec, pick_order_given=False)
    for user in (1, 2):
        result = await queues.join(GUILD, MemberInfo(user, f"p{user}"), "r")
    (lobby,) = result.lobbies
    assert [lobby.lobby_id for lobby in (await rooms.work(GUILD)).make] == [lobby.lobby_id]
    room = await rooms.claim(lobby)
    room = await rooms.record(replace(room, text_id=77))
    work = await rooms.work(GUILD)
    assert not work.make and not work.sync and not work.close
    await queues.substitute(GUILD, MOD, lobby.lobby_id, 2, MemberInfo(3, "p3"))
    ((stale, changed),) = (await rooms.work(GUILD)).sync
    await rooms.synced(stale, changed)
    assert not (await rooms.work(GUILD)).sync
    reported = await queues.result(GUILD, Actor(1), lobby.lobby_id, winner="a")
    assert reported.report.match.status == "pending"
    assert not (await rooms.work(GUILD)).close  # open for its confirmation
    await services.matches.confirm(GUILD, Actor(3), reported.report.match.id)
    ((closing, _),) = (await rooms.work(GUILD)).close
    closed = await rooms.closed(closing, closed_while_down=False)
    assert closed.delete_at == clock.now + 120  # room_grace_seconds' default
    assert not (await rooms.work(GUILD)).delete
    clock.now += 120
    (due,) = (await rooms.work(GUILD)).delete
    await rooms.deleted(due)
    assert await rooms.work(GUILD) == type(await rooms.work(GUILD))((), (), (), ())
    again = await rooms.closed(room, closed_while_down=True)
    assert again.delete_at == clock.now  # closed while the bot was down: at once


async def test_a_failed_room_is_never_made_again(services: Services) -> None:
    queues = Queues(services.context, services.matches, rng=random.Random(1))
    spec = QueueSettings("v", 40, 2, ready_seconds=0, rooms="voice")
    await queues.create_queue(GUILD, MOD, spec, pick_order_given=False)
    for user in (1, 2):
        result = await queues.join(GUILD, MemberInfo(user, f"p{user}"), "v")
    (lobby,) = result.lobbies
    heard: list[Change] = []
    services.context.on_change = heard.append
    await services.rooms.failed(
        lobby, Notice(N_("Discord refused the channels (missing permissions)"))
    )
    assert not (await services.rooms.work(GUILD)).make
    failed = await services.rooms.room(GUILD, lobby.lobby_id)
    assert failed is not None and failed.state == "failed" and failed.text_id is None
    number = lobby.lobby_id
    assert modlog_line(heard[-1]) == (
        f"Match rooms: lobby #{number} has no room: Discord refused the channels (missing "
        "permissions)."
    )
    assert modlog_line(heard[-1], words("de")) == (
        f"Match-Räume: Lobby #{number} hat keinen Raum: Discord hat die Kanäle abgelehnt "
        "(fehlende Berechtigungen)."
    )


def test_a_detail_stored_in_english_before_shows_as_it_is() -> None:
    stored = Change(GUILD, "room_failed", detail="lobby #3 has no room: Discord refused")
    assert modlog_line(stored, words("de")) == "Match-Räume: lobby #3 has no room: Discord refused."
