"""Typed helpers the queue tests share: the settings a test chooses, a lobby's player."""

from __future__ import annotations

from typing import TypedDict

from bot.storage.queues import Lobby, LobbyPlayer, MapPick, QueueFormat, RoomKind, TeamMode


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
