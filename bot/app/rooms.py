"""Match rooms in Discord (SPEC 10.5), done by the process that owns the guild: a private
text channel `lobby-<id>` per lobby whose teams are made (its players, the bot and the roles
holding Manage Server may see it), with `voice` a voice channel per team that only that
team may join; players in voice are moved into their team's channel. When the lobby is over
(bot.services.rooms says when) players still in its voice channels go to the queue's
waiting_voice, and its channels are deleted room_grace_seconds later. A substitute gets the
replaced player's access. Every step is recorded through bot.services.rooms, so a restart
neither makes a room twice nor forgets one; a room deleted by hand is not made again.

Without Manage Channels (or Move Members for voice), a lobby gets no room and the mod log
says why (`Rooms.failed`); /admin queue create|edit refuse the option while the bot lacks
it (`refuse_rooms`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import discord

from bot.app.bot import LadderBot
from bot.app.workers import GuildWorkers
from bot.present.language import N_, Words
from bot.services import UserError
from bot.services.errors import Notice, Phrase
from bot.services.queue_rules import team_letter
from bot.services.queues import Lobby, Queue
from bot.services.rooms import Room, Rooms

log = logging.getLogger(__name__)

PLAYER = discord.PermissionOverwrite(
    view_channel=True, send_messages=True, read_message_history=True, connect=True, speak=True
)
HIDDEN = discord.PermissionOverwrite(view_channel=False, connect=False)


def missing_permission(guild: discord.Guild, rooms: str) -> Phrase | None:
    """The permission the bot lacks to give lobbies `rooms` (None: it has what they need)."""
    allowed = guild.me.guild_permissions
    if rooms != "none" and not allowed.manage_channels:
        return Phrase(N_("Manage Channels"))
    if rooms == "voice" and not allowed.move_members:
        return Phrase(N_("Move Members"))
    return None


def refuse_rooms(guild: discord.Guild, rooms: str) -> None:
    """/admin queue create|edit's refusal (UserError) of `rooms` while the bot lacks a
    permission."""
    missing = missing_permission(guild, rooms)
    if missing is not None:
        raise UserError(
            N_(
                "rooms {rooms} needs my {permission} permission (to make each lobby's channels "
                "and move its players): grant it to my role, then try again"
            ),
            rooms=rooms,
            permission=missing,
        )


def _member(user_id: int) -> discord.Object:
    return discord.Object(user_id, type=discord.Member)


class RoomKeeper:
    """Tends the rooms of the guilds this process owns, one guild at a time."""

    def __init__(
        self, bot: LadderBot, rooms: Rooms, parts: Callable[[Lobby], Awaitable[dict[str, Any]]]
    ) -> None:
        self.bot = bot
        self.rooms = rooms
        self.parts = parts
        """The lobby's message (content, embed, view), as its queue channel shows it."""
        self.started_at = rooms.context.clock()
        self.workers = GuildWorkers("the match rooms", self._work)

    def touch(self, guild_id: int) -> None:
        if self.bot.config.discord.owns_guild(guild_id):
            self.workers.touch(guild_id)

    async def close(self) -> None:
        await self.workers.close()

    async def _work(self, guild_id: int) -> None:
        await self.tend(guild_id)

    async def check(self, guild_id: int, queues: Sequence[Queue]) -> None:
        """At start: warn of every queue that gives rooms the bot lacks a permission for."""
        guild = self.bot.get_guild(guild_id)
        if guild is None:
            return
        for queue in queues:
            missing = missing_permission(guild, queue.settings.rooms)
            if missing is not None:
                log.warning(
                    "guild %s: queue %r gives %s rooms, but I lack the %s permission there "
                    "(its lobbies get no room until it is granted)",
                    guild_id, queue.name, queue.settings.rooms, missing,
                )  # fmt: skip

    async def tend(self, guild_id: int) -> None:
        guild = self.bot.get_guild(guild_id)
        if guild is None:
            return  # not seen yet: the next touch
        work = await self.rooms.work(guild_id)
        for lobby in work.make:
            await self._make(guild, lobby)
        for room, lobby in work.sync:
            await self._sync(room, lobby)
        for room, lobby in work.close:
            await self._close(guild, room, lobby)
        for room in work.delete:
            await self._delete(room)

    async def _make(self, guild: discord.Guild, lobby: Lobby) -> None:
        missing = missing_permission(guild, lobby.rooms)
        if missing is not None:
            await self.rooms.failed(
                lobby, Notice(N_("the bot lacks the {permission} permission"), permission=missing)
            )
            return
        parent = guild.get_channel(lobby.channel_id)
        category = parent.category if isinstance(parent, discord.abc.GuildChannel) else None
        moderators = [role for role in guild.roles if role.permissions.manage_guild]
        base: dict[Any, discord.PermissionOverwrite] = {
            guild.default_role: HIDDEN,
            guild.me: discord.PermissionOverwrite(
                view_channel=True, send_messages=True, embed_links=True, connect=True,
                move_members=True, manage_channels=True,
            ),
            **{role: discord.PermissionOverwrite(view_channel=True, connect=True)
               for role in moderators},
        }  # fmt: skip
        room = await self.rooms.claim(lobby)
        made: list[int] = []
        try:
            text = await guild.create_text_channel(
                f"lobby-{lobby.lobby_id}",
                category=category,
                overwrites={**base, **{_member(p.user_id): PLAYER for p in lobby.players}},
                reason=f"match room of lobby #{lobby.lobby_id}",
            )
            made.append(text.id)
            room = await self.rooms.record(replace(room, text_id=text.id))
            if lobby.rooms == "voice":
                said = await self.bot.public_words(guild.id)
                for team in range(lobby.teams):
                    members = [p.user_id for p in lobby.players if p.team == team]
                    voice = await guild.create_voice_channel(
                        said.gettext(
                            N_("Lobby {number} · {team}"),
                            number=lobby.lobby_id,
                            team=team_letter(team),
                        ),
                        category=category,
                        overwrites={**base, **{_member(m): PLAYER for m in members}},
                        reason=f"team {team_letter(team)} of lobby #{lobby.lobby_id}",
                    )
                    made.append(voice.id)
                    room = await self.rooms.record(
                        replace(room, voice_ids=(*room.voice_ids, voice.id))
                    )
        except discord.HTTPException as error:
            for channel_id in made:  # no half room left behind
                await self._delete_channel(channel_id)
            why = (
                Notice(N_("Discord refused the channels (missing permissions)"))
                if isinstance(error, discord.Forbidden)
                else Notice(N_("Discord refused the channels ({error})"), error=str(error))
            )
            await self.rooms.failed(lobby, why)
            return
        moved = await self._move_in(guild, lobby, room.voice_ids)
        message_id = await self._post(text, lobby, room.voice_ids, moved)
        await self.rooms.record(replace(room, message_id=message_id))

    async def _move_in(self, guild: discord.Guild, lobby: Lobby, voices: Sequence[int]) -> set[int]:
        """Players in a voice channel of the server now go to their team's; who was moved."""
        moved: set[int] = set()
        for player in lobby.players if voices else ():
            member = guild.get_member(player.user_id)
            if member is None or member.voice is None or member.voice.channel is None:
                continue
            try:
                await self._move(guild.id, member.id, voices[player.team or 0])
                moved.add(player.user_id)
            except discord.HTTPException as error:
                log.info("could not move %s into lobby %s: %s", member.id, lobby.lobby_id, error)
        return moved

    async def _post(
        self, text: discord.TextChannel, lobby: Lobby, voices: Sequence[int], moved: set[int]
    ) -> int | None:
        """The room's message: the lobby (teams, map, result buttons) and where to go."""
        parts = await self.parts(lobby)
        said: Words = parts["said"]
        where = [
            said.gettext(
                N_("{member}: join {channel}"),
                member=f"<@{p.user_id}>",
                channel=f"<#{voices[p.team or 0]}>",
            )
            for p in lobby.players
            if voices and p.user_id not in moved
        ]
        head = said.gettext(N_("Lobby #{number}: this is your match room."), number=lobby.lobby_id)
        content = "\n".join([head, *where])[:2000]
        try:
            sent = await text.send(
                content=content,
                embed=parts["embed"],
                view=parts["view"] or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions(users=True),
            )
        except discord.HTTPException as error:
            log.warning("could not post in the room of lobby %s: %s", lobby.lobby_id, error)
            return None
        return sent.id

    async def mirror(self, lobby: Lobby) -> None:
        """Bring the room's message in line with the lobby's (a map chosen, a result)."""
        room = await self.rooms.room(lobby.guild_id, lobby.lobby_id)
        if room is not None and room.state == "open":
            await self._show(room, lobby)

    async def _show(self, room: Room, lobby: Lobby) -> None:
        if room.message_id is None or room.text_id is None:
            return
        parts = await self.parts(lobby)
        channel = self.bot.get_partial_messageable(room.text_id, guild_id=lobby.guild_id)
        try:
            await channel.get_partial_message(room.message_id).edit(
                embed=parts["embed"], view=parts["view"],
                allowed_mentions=discord.AllowedMentions.none(),
            )  # fmt: skip
        except discord.HTTPException as error:
            log.info("could not update the room of lobby %s: %s", lobby.lobby_id, error)

    async def _move(self, guild_id: int, user_id: int, channel_id: int) -> None:
        """Move a member who is in voice to another voice channel (Move Members)."""
        await self.bot.http.edit_member(guild_id, user_id, channel_id=channel_id)

    async def _sync(self, room: Room, lobby: Lobby) -> None:
        """A substitute: the incoming player gets the access of the one they replaced."""
        assert room.text_id is not None  # an open room has its channels
        players = {p.user_id: p for p in lobby.players}
        http = self.bot.http
        for user_id in set(room.members) - players.keys():
            for channel_id in (room.text_id, *room.voice_ids):
                await self._quietly(http.delete_channel_permissions(channel_id, user_id))
        allow, deny = PLAYER.pair()
        for user_id in players.keys() - set(room.members):
            team = players[user_id].team or 0
            voice = room.voice_ids[team : team + 1]
            for channel_id in (room.text_id, *voice):
                await self._quietly(
                    http.edit_channel_permissions(channel_id, user_id, str(allow.value),
                                                  str(deny.value), 1)
                )  # fmt: skip
        await self.rooms.synced(room, lobby)

    async def _close(self, guild: discord.Guild, room: Room, lobby: Lobby) -> None:
        """Players still in the room's voice channels go to waiting_voice; the channels
        are deleted after the grace (at once when the lobby closed while the bot was down).
        Its message shows how the lobby ended meanwhile."""
        await self._show(room, lobby)
        if lobby.waiting_voice is not None:
            for channel_id in room.voice_ids:
                channel = guild.get_channel(channel_id)
                for member in getattr(channel, "members", []):
                    await self._quietly(self._move(guild.id, member.id, lobby.waiting_voice))
        down = lobby.closed_at is not None and lobby.closed_at < self.started_at
        closed = await self.rooms.closed(room, closed_while_down=down)
        assert closed.delete_at is not None
        grace = closed.delete_at - self.rooms.context.clock()
        if grace <= 0:
            await self._delete(closed)
        else:  # at its time (the timer's sweep also finds it, after a restart too)
            asyncio.get_running_loop().call_later(grace + 0.05, self.touch, guild.id)

    async def _delete(self, room: Room) -> None:
        for channel_id in (room.text_id, *room.voice_ids):
            await self._delete_channel(channel_id)
        await self.rooms.deleted(room)

    async def _delete_channel(self, channel_id: int | None) -> None:
        if channel_id is not None:
            await self._quietly(self.bot.http.delete_channel(channel_id))

    @staticmethod
    async def _quietly(call: Any) -> None:
        """A Discord call whose failure changes nothing we keep (a channel deleted by hand,
        a member who left voice): logged, not raised."""
        try:
            await call
        except discord.HTTPException as error:
            log.info("match rooms: %s", error)
