"""Match rooms end to end through the real bot and the fake Discord (SPEC 10.5): a voice
queue pops, a private text channel and a voice channel per team appear with the right
permission overwrites, a player in voice is moved into their team's channel; the bot
restarts; the result is recorded, players go back to waiting_voice and the channels are
deleted after room_grace_seconds. A substitute gets access and the replaced player loses
it; a cancelled lobby's room goes too. Missing permissions are refused at create, and a
permission lost later leaves the lobby without a room, which the mod log says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.app.discord_rules import JsonDict
from tests.app.fakediscord import (
    BOT_USER_ID as BOT_ID,
)
from tests.app.fakediscord import (
    GUILD_ID,
    LIVE,
    LOUNGE,
    MANAGE_CHANNELS,
    MANAGE_ROLES,
    MOVE_MEMBERS,
    WAITING,
    WAITING_VOICE_ID,
    Event,
    FakeDiscord,
)
from tests.app.harness import MOD, BotProcess
from tests.app.queue_scenario import (  # noqa: F401 (queue_fake, queue_bot: fixtures)
    click,
    create,
    posted,
    queue_bot,
    queue_fake,
    take,
    title,
)

VIEW = 1 << 10
CONNECT = 1 << 20


def made(fake: FakeDiscord, after: int, count: int) -> list[Event]:
    """The next `count` channels the bot made."""
    found: list[Event] = []
    while len(found) < count:
        found.append(
            fake.wait_for(lambda e: e.kind == "channel_create" and e not in found, 10, after)
        )
    return found


def overwrites(channel: JsonDict) -> dict[int, tuple[int, int]]:
    return {
        int(o["id"]): (int(o["allow"]), int(o["deny"])) for o in channel["permission_overwrites"]
    }


def allowed(channel: JsonDict, permission: int) -> set[int]:
    return {who for who, (allow, _) in overwrites(channel).items() if allow & permission}


def channel_deleted(channel_id: int) -> Callable[[Event], bool]:
    return lambda e: e.kind == "channel_delete" and e.channel_id == channel_id


def overwritten(method: str) -> Callable[[Event], bool]:
    """An overwrite set (PUT) or removed (DELETE)."""
    return lambda e: e.kind == "overwrite" and e.payload["method"] == method


def pop(fake: FakeDiscord, name: str, players: list[Any], **options: Any) -> tuple[int, int]:
    """Create a 1v1 queue, both players join: the lobby's number and the mark before."""
    queue_id, message = create(fake, name, 2, ready_seconds=0, **options)
    mark = fake.mark()
    for player in players:
        click(fake, player, message, f"ladderbot:queue:join:{queue_id}")
    lobby = posted(fake, "Lobby #", mark, new=True)
    return int(title(lobby).split("#")[1].split()[0]), mark


def test_a_voice_room_is_made_moved_into_and_deleted_after_the_result(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    first, second = take(2)
    fake.slash(MOD, "admin settings", room_grace_seconds=1).reply()
    fake.connect_voice(first, LOUNGE.id)
    lobby_id, mark = pop(fake, "vc", [first, second], rooms="voice", waiting_voice=WAITING)
    text, team_a, team_b = (e.payload for e in made(fake, mark, 3))
    assert text["name"] == f"lobby-{lobby_id}" and text["type"] == 0
    assert [team_a["name"], team_b["name"]] == [f"Lobby {lobby_id} · A", f"Lobby {lobby_id} · B"]
    assert overwrites(text)[GUILD_ID][1] & VIEW  # @everyone may not see it
    assert {first.id, second.id, BOT_ID} <= allowed(text, VIEW)
    a_side, b_side = (allowed(team, CONNECT) - {BOT_ID} for team in (team_a, team_b))
    assert {len(a_side), len(b_side)} == {1} and a_side | b_side == {first.id, second.id}
    first_team = team_a if first.id in a_side else team_b
    move = fake.wait_for(lambda e: e.kind == "member_move", 10, mark)
    assert move.payload == {"user_id": first.id, "channel_id": first_team["id"]}
    room_post = fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == int(text["id"]), 10, mark
    )
    assert f"<@{second.id}>: join" in room_post.payload["content"]  # not in voice: told
    bot.restart()
    mark = fake.mark()
    done = fake.slash(MOD, "queue result", lobby=lobby_id, winner="a").reply()
    assert "result recorded" in (done.content or "")
    fake.wait_for(  # the room's copy of the lobby follows it
        lambda e: e.kind == "message_edit" and e.message_id == room_post.message_id
        and "result reported" in e.payload["embeds"][0]["title"], 10, mark,
    )  # fmt: skip
    back = fake.wait_for(lambda e: e.kind == "member_move", 10, mark)
    assert back.payload == {"user_id": first.id, "channel_id": str(WAITING_VOICE_ID)}
    for channel in (text, team_a, team_b):
        gone = int(channel["id"])
        fake.wait_for(channel_deleted(gone), 10, mark)
        assert gone not in fake.channels


def test_a_substitute_gets_access_and_a_cancelled_lobbys_room_goes(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    first, second, sub = take(3)
    lobby_id, mark = pop(fake, "txt", [first, second], rooms="text")
    (text,) = (e.payload for e in made(fake, mark, 1))
    room = int(text["id"])
    mark = fake.mark()
    fake.slash(MOD, "admin lobby sub", id=lobby_id, out=second, in_=sub).reply()
    changes = [fake.wait_for(overwritten(method), 10, mark) for method in ("DELETE", "PUT")]
    assert [c.payload["target"] for c in changes] == [second.id, sub.id]
    assert sub.id in allowed(fake.channels[room], VIEW)
    assert second.id not in overwrites(fake.channels[room])
    mark = fake.mark()
    fake.slash(MOD, "admin lobby cancel", id=lobby_id).reply()
    fake.wait_for(lambda e: e.kind == "channel_delete" and e.channel_id == room, 10, mark)


def test_missing_permissions_are_refused_at_create_and_reported_when_lost(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    first, second = take(2)
    fake.slash(MOD, "admin modlog", channel=LIVE).reply()
    everything = MANAGE_ROLES | MANAGE_CHANNELS | MOVE_MEMBERS
    fake.set_bot_permissions(MANAGE_ROLES | MANAGE_CHANNELS)
    refused = fake.slash(MOD, "admin queue create", name="novoice", channel=LIVE, size=2,
                         rooms="voice").reply()  # fmt: skip
    assert refused.ephemeral and "needs my Move Members permission" in (refused.content or "")
    fake.set_bot_permissions(everything)
    queue_id, message = create(fake, "lost", 2, ready_seconds=0, rooms="text")
    fake.set_bot_permissions(MANAGE_ROLES)  # lost later
    mark = fake.mark()
    for player in (first, second):
        click(fake, player, message, f"ladderbot:queue:join:{queue_id}")
    said = fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == LIVE.id
        and "has no room" in (e.payload.get("content") or ""), 10, mark,
    )  # fmt: skip
    assert "Manage Channels" in said.payload["content"]
    assert not fake.of_kind("channel_create", mark)
    fake.set_bot_permissions(everything)
