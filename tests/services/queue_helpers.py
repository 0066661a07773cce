"""What the queue service tests share: their guild, channel and moderator, a member, a queue
made with the settings a test chooses (typed), a lobby's player."""

from __future__ import annotations

from typing import TypedDict, Unpack

from bot.services import Actor, MemberInfo
from bot.services.queues import Queues
from bot.storage.queues import (
    Lobby,
    LobbyPlayer,
    MapPick,
    QueueFormat,
    QueueSettings,
    RoomKind,
    TeamMode,
)

GUILD = 11
CHANNEL = 40
MOD = Actor(999, is_moderator=True)


class QueueOptions(TypedDict, total=False):
    """QueueSettings beyond name, channel and size, typed as the dataclass types them, so
    `make(queues, "q", 4, mode="captains")` is checked like QueueSettings itself."""

    format: QueueFormat
    teams: int
    mode: TeamMode
    ready_seconds: int
    expire_minutes: int
    maps: tuple[str, ...]
    pick_order: str
    rating_range: int
    widen: int
    party_max: int
    map_pick: MapPick
    rooms: RoomKind
    waiting_voice: int | None


def seated(lobby: Lobby, user_id: int) -> LobbyPlayer:
    """The member's place in the lobby; the member must be in it."""
    player = lobby.player(user_id)
    assert player is not None, f"{user_id} is not in lobby #{lobby.lobby_id}"
    return player


def member(user_id: int) -> MemberInfo:
    return MemberInfo(user_id, f"player{user_id}")


async def make(
    queues: Queues, name: str = "4s", size: int = 4, **options: Unpack[QueueOptions]
) -> int:
    """A queue of GUILD made by its moderator; its number."""
    settings = QueueSettings(name, CHANNEL, size, **options)
    created = await queues.create_queue(
        GUILD, MOD, settings, pick_order_given="pick_order" in options
    )
    return created.queue_id
