"""Match rooms (SPEC 10.5): what each lobby's room needs next, and the record of what the
front end did in Discord. The channels themselves are made, changed and deleted by the
process that owns the guild (bot.app.rooms); every step is stored here, so that after a
restart a room is neither made twice nor left behind.

A room is needed once its lobby's teams are made (state playing) and its queue gives rooms.
It closes when its lobby closes, except that a result still pending (or disputed) keeps it
open for its confirmation: it closes when that match is applied or voided. A closed room is
deleted room_grace_seconds after it closed; a room whose lobby closed while the bot was down
is deleted at once (`closed_while_down`). A room that could not be made is marked failed and
never tried again; the mod log says why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.services.changes import Change
from bot.services.context import ServiceContext
from bot.services.errors import N_, Notice
from bot.storage import Queries
from bot.storage.queues import Lobby, Room

__all__ = ["Room", "RoomWork", "Rooms"]

OPEN_MATCH_STATES = ("pending", "disputed")
"""A lobby's match in these states keeps its room open."""


@dataclass(frozen=True, slots=True)
class RoomWork:
    """What a guild's rooms need now."""

    make: tuple[Lobby, ...]
    """Lobbies whose teams are made and that have no room yet."""
    sync: tuple[tuple[Room, Lobby], ...]
    """Open rooms whose lobby's players changed (a substitute)."""
    close: tuple[tuple[Room, Lobby], ...]
    """Open rooms whose lobby is over."""
    delete: tuple[Room, ...]
    """Closed rooms whose grace has passed."""


class Rooms:
    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def guilds(self) -> list[int]:
        """Guilds with a room not deleted yet."""
        return await self.context.db.read.guilds_with_rooms()

    async def room(self, guild_id: int, lobby_id: int) -> Room | None:
        return await self.context.db.read.room(guild_id, lobby_id)

    async def work(self, guild_id: int) -> RoomWork:
        now = self.context.clock()
        async with self.context.db.snapshot() as read:
            lobbies = {lobby.lobby_id: lobby for lobby in await read.open_lobbies(guild_id)}
            rooms = await read.rooms(guild_id, ("open", "closed", "deleted", "failed"))
            known = {room.lobby_id for room in rooms}
            make = tuple(
                lobby
                for lobby in lobbies.values()
                if lobby.rooms != "none" and lobby.state == "playing"
                and lobby.lobby_id not in known
            )  # fmt: skip
            sync: list[tuple[Room, Lobby]] = []
            close: list[tuple[Room, Lobby]] = []
            for room in rooms:
                if room.state != "open":
                    continue
                lobby = lobbies.get(room.lobby_id) or await read.lobby(guild_id, room.lobby_id)
                assert lobby is not None  # a lobby is never deleted
                if lobby.is_open:
                    if set(room.members) != {p.user_id for p in lobby.players}:
                        sync.append((room, lobby))
                elif not await self._result_pending(read, lobby):
                    close.append((room, lobby))
            delete = tuple(r for r in rooms if r.state == "closed" and (r.delete_at or 0.0) <= now)
        return RoomWork(make, tuple(sync), tuple(close), delete)

    @staticmethod
    async def _result_pending(read: Queries, lobby: Lobby) -> bool:
        if lobby.match_id is None:
            return False
        match = await read.match(lobby.guild_id, lobby.match_id)
        return match is not None and match.status in OPEN_MATCH_STATES

    async def claim(self, lobby: Lobby) -> Room:
        """The lobby's room, recorded before its first channel is made: a restart while
        it is being made never makes a second one."""
        room = Room(
            lobby.guild_id, lobby.lobby_id, "open", None, (),
            tuple(p.user_id for p in lobby.players), None, None,
        )  # fmt: skip
        await self._put(room)
        return room

    async def record(self, room: Room) -> Room:
        """The room with a channel or its message made."""
        await self._put(room)
        return room

    async def failed(self, lobby: Lobby, why: Notice) -> None:
        """No room could be made; the mod log says why (SPEC 10.5)."""
        room = Room(lobby.guild_id, lobby.lobby_id, "failed", None, (), (), None, None)
        async with self.context.write(lobby.guild_id) as unit:
            await unit.tx.put_room(room)
            detail = Notice(
                N_("lobby #{number} has no room: {why}"), number=lobby.lobby_id, why=why
            )
            unit.change = Change(lobby.guild_id, "room_failed", detail=detail.stored())

    async def synced(self, room: Room, lobby: Lobby) -> None:
        await self._put(replace(room, members=tuple(p.user_id for p in lobby.players)))

    async def closed(self, room: Room, closed_while_down: bool) -> Room:
        """The room's lobby is over: delete it after the grace (at once if it closed while
        the bot was down)."""
        settings = await self.context.settings(room.guild_id)
        now = self.context.clock()
        grace = 0.0 if closed_while_down else float(settings.room_grace_seconds)
        after = replace(room, state="closed", delete_at=now + grace)
        await self._put(after)
        return after

    async def deleted(self, room: Room) -> None:
        await self._put(replace(room, state="deleted"))

    async def _put(self, room: Room) -> None:
        async with self.context.write(room.guild_id) as unit:
            await unit.tx.put_room(room)
