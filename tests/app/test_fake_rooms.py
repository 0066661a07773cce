"""The fake Discord's channels and voice answer as Discord does (SPEC 10.5's rooms): a
channel made with its permission overwrites (201), a bad one refused (400, 50035), none
without Manage Channels (403, 50013); a member moved only while in voice (400, 40032) and
only with Move Members; an unknown channel is 404, 10003."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app.fakediscord import (
    GUILD_ID,
    MANAGE_ROLES,
    VOICE_ID,
    WAITING_VOICE_ID,
    FakeDiscord,
    Member,
)
from tests.app.test_fakediscord import request

PLAYER = Member(7_000_000_001, "player")
GUEST = Member(7_000_000_002, "guest")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeDiscord]:
    fake = FakeDiscord([PLAYER, GUEST])
    fake.start()
    yield fake
    fake.stop()


def test_channels_and_moves_answer_as_discord_does(server: FakeDiscord) -> None:
    room = {
        "name": "lobby-1", "type": 0,
        "permission_overwrites": [
            {"id": str(GUILD_ID), "type": 0, "allow": "0", "deny": str(1 << 10)},
            {"id": str(PLAYER.id), "type": 1, "allow": str(1 << 10), "deny": "0"},
        ],
    }  # fmt: skip
    status, made = request(server, "POST", f"/guilds/{GUILD_ID}/channels", room)
    assert status == 201 and made["name"] == "lobby-1"
    assert [o["id"] for o in made["permission_overwrites"]] == [str(GUILD_ID), str(PLAYER.id)]
    status, bad = request(server, "POST", f"/guilds/{GUILD_ID}/channels", {"name": ""})
    assert (status, bad["code"]) == (400, 50035) and "name" in bad["errors"]
    moved = {"channel_id": str(WAITING_VOICE_ID)}
    status, refused = request(server, "PATCH", f"/guilds/{GUILD_ID}/members/{GUEST.id}", moved)
    assert (status, refused["code"]) == (400, 40032)  # not connected to voice
    server.connect_voice(PLAYER, VOICE_ID)
    status, _ = request(server, "PATCH", f"/guilds/{GUILD_ID}/members/{PLAYER.id}", moved)
    assert status == 200 and server.voice[(GUILD_ID, PLAYER.id)] == WAITING_VOICE_ID
    everything = server.bot_role.permissions
    server.set_bot_permissions(MANAGE_ROLES)
    try:
        status, denied = request(server, "POST", f"/guilds/{GUILD_ID}/channels", room)
        assert (status, denied["code"]) == (403, 50013)
        status, denied = request(server, "PATCH", f"/guilds/{GUILD_ID}/members/{PLAYER.id}", moved)
        assert (status, denied["code"]) == (403, 50013)
    finally:
        server.set_bot_permissions(everything)
    status, deleted = request(server, "DELETE", f"/channels/{made['id']}", None)
    assert status == 200 and deleted["id"] == made["id"] and int(made["id"]) not in server.channels
    status, gone = request(server, "DELETE", f"/channels/{made['id']}", None)
    assert (status, gone["code"]) == (404, 10003)
