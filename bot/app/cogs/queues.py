"""Matchmaking queues in Discord (SPEC 10): /queue join|leave|list|result, /admin queue
create|edit|delete, /admin lobby sub|cancel, the persistent Join/Leave, Ready/Leave and
result buttons and the captains' select menu, the queue and lobby messages, the timed
actions, and a member who leaves the server leaving every queue.

Only the process owning a guild (SPEC 8.4) edits its messages and runs its timed actions;
interactions reach that process anyway (Discord sends them on the guild's shard). Every
message edit follows the one change path: a change marks the guild, and `QueueMessages`
redraws the queues and lobbies whose rows are newer than their messages (version >
shown_version), each message at most once per EDIT_SECONDS, and posts the messages that are
missing. After a restart the same sweep brings every message up to date, and the timed
actions that fell due while the bot was down are done first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, Final, Literal, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app.bot import LadderBot
from bot.app.buttons import answer_recorded
from bot.app.cogs.admin import add_admin_commands, check_moderator
from bot.app.members import actor, guild_of, member_info, refuse_unpostable, shown_name
from bot.app.options import LobbyId, choices
from bot.app.queue_views import (
    lobby_content,
    lobby_embed,
    lobby_view,
    map_chosen,
    map_text,
    party_invite_view,
    party_text,
    queue_embed,
    queue_list_text,
    queue_view,
)
from bot.app.replies import answer_error, member_words, note_stored
from bot.app.rooms import RoomKeeper, refuse_rooms
from bot.app.workers import GuildWorkers
from bot.present.language import ENGLISH, N_, Words
from bot.services import DatabaseBusy, DatabaseUnavailable, UserError
from bot.services.changes import Change
from bot.services.core import elo_bridge
from bot.services.queue_rules import (
    EXPIRE_MINUTES,
    FORMATS,
    MAP_PICKS,
    MAX_SIZE,
    MIN_SIZE,
    MODES,
    PARTY_MAX,
    RATING_RANGE,
    READY_SECONDS,
    ROOM_KINDS,
    WIDEN,
    parse_maps,
    team_letter,
)
from bot.services.queues import JoinResult, Lobby, Queue, Queues, QueueSettings

log = logging.getLogger(__name__)

EDIT_SECONDS: Final = 2.0
"""A queue or lobby message is edited at most once per this long (SPEC 10.1)."""
TIMER_POLL_SECONDS: Final = 5.0
"""The timed actions are looked for at least this often (and at each deadline)."""
MENTION: Final = re.compile(r"<@!?([0-9]+)>")


def service_of(bot: LadderBot) -> Queues:
    cog = bot.get_cog("QueueCog")
    assert isinstance(cog, QueueCog)
    return cog.service


def popped_text(result: JoinResult, user_id: int, said: Words = ENGLISH) -> str:
    for lobby in result.lobbies:
        if lobby.player(user_id) is not None:
            return said.gettext(
                N_(
                    "The queue {queue} popped: you play in lobby #{number} "
                    "(its message follows in the queue's channel)."
                ),
                queue=result.queue.name,
                number=lobby.lobby_id,
            )
    return ""


def joined_text(result: JoinResult, user_id: int, said: Words = ENGLISH) -> str:
    name = result.queue.name
    if result.already:
        return said.gettext(
            N_("You are already in the queue {queue} (place {place}); nothing changed."),
            queue=name,
            place=result.place,
        )
    popped = popped_text(result, user_id, said)
    if popped:
        return popped
    return said.gettext(
        N_("You joined the queue {queue}: place {place} of {size}."),
        queue=name,
        place=result.place,
        size=result.queue.settings.size,
    )


def left_text(names: Sequence[str], said: Words) -> str:
    """What a member who left queues reads."""
    if not names:
        return said.gettext(N_("You left."))
    return said.gettext(N_("You left: {queues}."), queues=", ".join(names))


# -- persistent components ------------------------------------------------------------------


class QueueButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:queue:(?P<action>join|leave):(?P<queue_id>\d+)",
):
    """Join or Leave on a queue's message; the queue's number is in the custom id."""

    def __init__(self, action: str, queue_id: int) -> None:
        super().__init__(
            discord.ui.Button(label=action, custom_id=f"ladderbot:queue:{action}:{queue_id}")
        )
        self.action = action
        self.queue_id = queue_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> QueueButton:  # fmt: skip
        return cls(match["action"], int(match["queue_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            service = service_of(interaction.client)
            guild_id = guild_of(interaction).id
            if self.action == "join":
                result = await service.join(
                    guild_id, member_info(interaction.user), queue_id=self.queue_id
                )
                text = joined_text(result, interaction.user.id, member_words(interaction))
            else:
                left = await service.leave(guild_id, interaction.user.id, queue_id=self.queue_id)
                text = left_text([q.name for q in left.left], member_words(interaction))
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        except Exception as error:  # every failure gets an answer (views have no tree.on_error)
            await answer_error(interaction, error)


LobbyAction = Literal["ready", "leave", "a", "b", "c", "d", "draw"]


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:lobby:(?P<action>ready|leave|a|b|c|d|draw):(?P<lobby_id>\d+)",
):
    """Ready and Leave in a lobby's ready check; A won … D won and Draw once it plays."""

    def __init__(self, action: LobbyAction, lobby_id: int) -> None:
        super().__init__(
            discord.ui.Button(label=action, custom_id=f"ladderbot:lobby:{action}:{lobby_id}")
        )
        self.action: LobbyAction = action
        self.lobby_id = lobby_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> LobbyButton:  # fmt: skip
        return cls(cast(LobbyAction, match["action"]), int(match["lobby_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self._act(interaction)
        except Exception as error:
            await answer_error(interaction, error)

    async def _act(self, interaction: discord.Interaction[Any]) -> None:
        bot: LadderBot = interaction.client
        service = service_of(bot)
        guild_id = guild_of(interaction).id
        user_id = interaction.user.id
        if self.action == "ready":
            update = await service.ready(guild_id, user_id, self.lobby_id)
            lobby = update.lobby
            said = member_words(interaction)
            if update.already:
                text = said.gettext(
                    N_("You are already ready in lobby #{number}."), number=self.lobby_id
                )
            elif lobby.state == "ready":
                ready = sum(1 for p in lobby.players if p.ready)
                text = said.gettext(
                    N_("You are ready ({ready}/{players})."),
                    ready=ready,
                    players=len(lobby.players),
                )
            else:
                text = said.gettext(
                    N_("Everyone is ready: lobby #{number} is on."), number=self.lobby_id
                )
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        elif self.action == "leave":
            await service.decline(guild_id, user_id, self.lobby_id)
            text = member_words(interaction).gettext(
                N_("You left lobby #{number}; it is dissolved."), number=self.lobby_id
            )
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        else:
            await report_result(interaction, service, self.lobby_id, self.action, None, None)


class PartyButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:party:(?P<action>accept|decline):(?P<leader>\d+):(?P<invitee>\d+)",
):
    """Accept or Decline on a party invitation; only the invitee may click (SPEC 10.5)."""

    def __init__(self, action: str, leader_id: int, invitee_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=action, custom_id=f"ladderbot:party:{action}:{leader_id}:{invitee_id}"
            )
        )
        self.action = action
        self.leader_id = leader_id
        self.invitee_id = invitee_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> PartyButton:  # fmt: skip
        return cls(match["action"], int(match["leader"]), int(match["invitee"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            if interaction.user.id != self.invitee_id:
                raise UserError(
                    N_("only {member} can answer this invitation"), member=f"<@{self.invitee_id}>"
                )
            accept = self.action == "accept"
            party = await service_of(interaction.client).answer_invite(
                guild_of(interaction).id, self.invitee_id, self.leader_id, accept
            )
            said = await interaction.client.public_words(guild_of(interaction).id)
            invitee, leader = f"<@{self.invitee_id}>", f"<@{self.leader_id}>"
            if not accept:
                text = said.gettext(
                    N_("{invitee} declined {leader}'s invitation."), invitee=invitee, leader=leader
                )
            elif party is None:
                text = said.gettext(
                    N_("{invitee} joined {leader}'s party."), invitee=invitee, leader=leader
                )
            else:
                text = said.ngettext(
                    "{invitee} joined {leader}'s party ({count} member now).",
                    "{invitee} joined {leader}'s party ({count} members now).",
                    len(party.members),
                    invitee=invitee,
                    leader=leader,
                )
            note_stored(interaction, text)
            await interaction.response.edit_message(
                content=text, view=None, allowed_mentions=discord.AllowedMentions.none()
            )
        except Exception as error:
            await answer_error(interaction, error)


class MapVoteButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=r"ladderbot:map:vote:(?P<lobby_id>\d+):(?P<choice>\d+)",
):
    """A candidate map's button in a lobby's map vote (SPEC 10.5)."""

    def __init__(self, lobby_id: int, choice: int) -> None:
        super().__init__(
            discord.ui.Button(label="map", custom_id=f"ladderbot:map:vote:{lobby_id}:{choice}")
        )
        self.lobby_id = lobby_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> MapVoteButton:  # fmt: skip
        return cls(int(match["lobby_id"]), int(match["choice"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            update = await service_of(interaction.client).vote_map(
                guild_of(interaction).id, interaction.user.id, self.lobby_id, self.choice
            )
            voted = update.lobby.player(interaction.user.id)
            choice = voted.vote if voted is not None else None
            said = member_words(interaction)
            text = (
                said.gettext(N_("You vote {map} already."), map=choice)
                if update.already
                else said.gettext(N_("Your vote: {map}."), map=choice)
            ) + map_chosen(update.lobby, said)
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        except Exception as error:
            await answer_error(interaction, error)


class MapBanSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"ladderbot:map:ban:(?P<lobby_id>\d+)",
):
    """The ban menu of a lobby's map ban: the captain whose turn it is bans a map."""

    def __init__(self, lobby_id: int) -> None:
        super().__init__(discord.ui.Select(custom_id=f"ladderbot:map:ban:{lobby_id}"))
        self.lobby_id = lobby_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> MapBanSelect:  # fmt: skip
        return cls(int(match["lobby_id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            data = cast(dict[str, Any], interaction.data or {})
            values = cast(list[str], data.get("values") or [])
            if not values:
                raise UserError(N_("choose one map to ban from the menu"))
            update = await service_of(interaction.client).ban_map(
                guild_of(interaction).id, interaction.user.id, self.lobby_id, values[0]
            )
            said = member_words(interaction)
            text = said.gettext(N_("You banned {map}."), map=values[0])
            text += map_chosen(update.lobby, said)
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        except Exception as error:
            await answer_error(interaction, error)


class PickSelect(
    discord.ui.DynamicItem[discord.ui.Select[discord.ui.View]],
    template=r"ladderbot:pick:(?P<lobby_id>\d+):(?P<part>\d+)",
):
    """The captains' select menu: the captain whose turn it is picks a player."""

    def __init__(self, lobby_id: int, part: int) -> None:
        super().__init__(discord.ui.Select(custom_id=f"ladderbot:pick:{lobby_id}:{part}"))
        self.lobby_id = lobby_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
        match: re.Match[str], /,
    ) -> PickSelect:  # fmt: skip
        return cls(int(match["lobby_id"]), int(match["part"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            data = cast(dict[str, Any], interaction.data or {})
            values = data.get("values") or []
            if not values:
                raise UserError(N_("pick one player from the menu"))
            picked = int(cast(list[str], values)[0])
            service = service_of(interaction.client)
            update = await service.pick(
                guild_of(interaction).id, interaction.user.id, self.lobby_id, picked
            )
            team = update.lobby.player(picked)
            letter = "" if team is None or team.team is None else team_letter(team.team)
            text = member_words(interaction).gettext(
                N_("You picked {member} for team {team}."), member=f"<@{picked}>", team=letter
            )
            note_stored(interaction, text)
            await interaction.response.send_message(text, ephemeral=True)
        except Exception as error:
            await answer_error(interaction, error)


async def report_result(
    interaction: discord.Interaction[Any],
    service: Queues,
    lobby_id: int,
    winner: str | None,
    order: list[int] | None,
    minutes: float | None,
) -> None:
    """Record a lobby's result; the answer is the match's message with Confirm/Dispute
    for the other team when it is pending (SPEC 4), as /report's."""
    guild_id = guild_of(interaction).id
    done = await service.result(
        guild_id, actor(interaction), lobby_id, winner=winner, order=order, minutes=minutes
    )
    match = done.report.match
    said = await interaction.client.public_words(guild_id)
    played = map_text(done.lobby, said)
    on_map = f" {played}." if played else ""
    lead = said.gettext(
        N_("Lobby #{lobby}: result recorded as match #{match}."), lobby=lobby_id, match=match.id
    )
    await answer_recorded(interaction, guild_id, match, lead + on_map)


# -- the messages ---------------------------------------------------------------------------


class QueueMessages:
    """Keeps the queue and lobby messages of the guilds this process owns current."""

    def __init__(self, bot: LadderBot, service: Queues) -> None:
        self.bot = bot
        self.service = service
        self.workers = GuildWorkers("the queue messages", self.refresh)
        self.rooms = RoomKeeper(bot, bot.services.rooms, self.lobby_parts)
        self._edited: dict[tuple[int, str, int], float] = {}

    def touch(self, guild_id: int) -> None:
        if self.bot.config.discord.owns_guild(guild_id):
            self.workers.touch(guild_id)

    async def close(self) -> None:
        """At shutdown (bot.app.workers): the later redraws are left for the next start."""
        await self.workers.close()

    def _too_soon(self, key: tuple[int, str, int]) -> float:
        last = self._edited.get(key)
        return 0.0 if last is None else max(0.0, last + EDIT_SECONDS - time.monotonic())

    async def refresh(self, guild_id: int) -> float | None:
        """Redraw every stale message of the guild that may be edited now; how long until
        the others may (None: none left)."""
        queues, lobbies = await self.service.unshown(guild_id)
        if not queues and not lobbies:
            return None
        later: list[float] = []
        for queue in queues:
            wait = self._too_soon((guild_id, "queue", queue.queue_id))
            if wait:
                later.append(wait)
            else:
                await self._show_queue(queue)
        if lobbies:
            bridge = elo_bridge(await self.bot.services.settings.current(guild_id))
            names = await self.service.names(
                guild_id, [p.user_id for lobby in lobbies for p in lobby.players]
            )
            for lobby in lobbies:
                wait = self._too_soon((guild_id, "lobby", lobby.lobby_id))
                if wait:
                    later.append(wait)
                    continue
                said = await self.bot.public_words(guild_id)
                view = lobby_view(lobby, bridge, names, said)
                await self._show(
                    guild_id, "lobby", lobby.lobby_id, lobby.version, lobby.channel_id,
                    lobby.message_id,
                    {"content": lobby_content(lobby, said),
                     "embed": lobby_embed(lobby, bridge, said), "view": view},
                )  # fmt: skip
                if lobby.rooms != "none":
                    await self.rooms.mirror(lobby)
        return min(later) if later else None

    async def lobby_parts(self, lobby: Lobby) -> dict[str, Any]:
        """A lobby's message as its channel shows it: content, embed and components."""
        bridge = elo_bridge(await self.bot.services.settings.current(lobby.guild_id))
        names = await self.service.names(lobby.guild_id, [p.user_id for p in lobby.players])
        said = await self.bot.public_words(lobby.guild_id)
        return {
            "content": lobby_content(lobby, said),
            "embed": lobby_embed(lobby, bridge, said),
            "view": lobby_view(lobby, bridge, names, said),
            "said": said,
        }

    async def _show_queue(self, queue: Queue) -> None:
        said = await self.bot.public_words(queue.guild_id)
        await self._show(
            queue.guild_id, "queue", queue.queue_id, queue.version, queue.settings.channel_id,
            queue.message_id,
            {"embed": queue_embed(queue, said=said), "view": queue_view(queue, said)},
        )  # fmt: skip

    async def _show(
        self,
        guild_id: int,
        kind: str,
        number: int,
        version: int,
        channel_id: int,
        message_id: int | None,
        parts: dict[str, Any],
    ) -> None:
        """Edit the message (post it when it is missing or was deleted), then mark the
        version shown. A message Discord refuses is marked shown too (no retry storm)."""
        channel = self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
        self._edited[(guild_id, kind, number)] = time.monotonic()
        view = parts.pop("view", None)
        try:
            if message_id is not None:
                try:
                    await channel.get_partial_message(message_id).edit(
                        **parts, view=view, allowed_mentions=discord.AllowedMentions.none()
                    )
                except discord.NotFound:
                    message_id = None
            if message_id is None:
                sent = await channel.send(
                    **parts,
                    view=view or discord.utils.MISSING,
                    allowed_mentions=discord.AllowedMentions(users=True),
                )
                message_id = sent.id
        except discord.HTTPException as error:
            log.warning("could not show %s %s of guild %s: %s", kind, number, guild_id, error)
        await self.service.mark_shown(guild_id, kind, number, version, message_id)


# -- commands -------------------------------------------------------------------------------


async def queue_names(
    service: Queues, interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """The server's queue names starting with what was typed (Discord shows up to 25)."""
    if interaction.guild_id is None:
        return []
    typed = current.strip().lower()
    return [
        app_commands.Choice(name=queue.name, value=queue.name)
        for queue in await service.queues(interaction.guild_id)
        if queue.name.lower().startswith(typed)
    ][:25]


@app_commands.guild_only()
class QueueCog(commands.GroupCog, group_name="queue", group_description="Matchmaking queues"):
    def __init__(self, bot: LadderBot, service: Queues) -> None:
        self.bot = bot
        self.service = service
        self.messages = QueueMessages(bot, service)
        self._wake = asyncio.Event()
        self._timers: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        self._timers = asyncio.create_task(self._run_timers())

    async def cog_unload(self) -> None:
        if self._timers is not None:
            self._timers.cancel()
        await self.messages.rooms.close()
        await self.messages.close()

    async def _run_timers(self) -> None:
        """Every timed action of the owned guilds, at its deadline; at start, first those
        that fell due while the bot was down, then every stale message."""
        owns = self.bot.config.discord.owns_guild
        started = False
        while True:
            self._wake.clear()
            delay = TIMER_POLL_SECONDS
            try:
                await self.service.run_due(owns)
                if not started:
                    for guild_id in await self.service.guilds():
                        self.messages.touch(guild_id)
                        self.messages.rooms.touch(guild_id)
                        if owns(guild_id):
                            queues = await self.service.queues(guild_id)
                            await self.messages.rooms.check(guild_id, queues)
                    started = True
                for guild_id in await self.bot.services.rooms.guilds():  # deletes when due
                    self.messages.rooms.touch(guild_id)
                deadline = await self.service.next_deadline()
                if deadline is not None:
                    left = deadline - self.service.context.clock()
                    # a deadline already passed is another process's guild (or failing): poll
                    delay = min(delay, left) if left > 0 else 1.0
            except Exception:
                log.exception("the queues' timed actions failed; retrying")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(delay, 0.05))

    @commands.Cog.listener()
    async def on_ladder_change(self, change: Change) -> None:
        """Any change may concern a queue or lobby (a lobby's result is a match change)."""
        self.messages.touch(change.guild_id)
        self.messages.rooms.touch(change.guild_id)
        self._wake.set()

    @commands.Cog.listener()
    async def on_raw_member_remove(self, payload: discord.RawMemberRemoveEvent) -> None:
        """A member who left the server leaves every queue at once (SPEC 10.1); the event
        comes to the process that owns the guild, cached member or not."""
        await self._left_server(payload.guild_id, [payload.user.id])

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Members who left a server while the bot was away leave its queues too: each
        waiting member the server's member list (complete once chunked) no longer holds."""
        for guild in self.bot.guilds:
            if not guild.chunked:
                continue
            try:
                queues = await self.service.queues(guild.id)
            except (DatabaseBusy, DatabaseUnavailable) as error:
                log.warning("could not read the queues of %s: %s", guild.id, error)
                continue
            waiting = {w.user_id for queue in queues for w in queue.waiting}
            await self._left_server(guild.id, sorted(u for u in waiting if not guild.get_member(u)))

    async def _left_server(self, guild_id: int, user_ids: list[int]) -> None:
        for user_id in user_ids:
            try:
                await self.service.left_server(guild_id, user_id)
            except (DatabaseBusy, DatabaseUnavailable) as error:
                log.warning("could not take member %s out of the queues: %s", user_id, error)

    @app_commands.command(name="join", description="Join a queue (no name: this channel's)")
    @app_commands.describe(name="The queue's name")
    async def join(
        self, interaction: discord.Interaction[LadderBot], name: str | None = None
    ) -> None:
        guild = guild_of(interaction)
        result = await self.service.join(
            guild.id, member_info(interaction.user), name, interaction.channel_id
        )
        text = joined_text(result, interaction.user.id, member_words(interaction))
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="leave", description="Leave a queue (no name: every queue)")
    @app_commands.describe(name="The queue's name (leave it out to leave every queue)")
    async def leave(
        self, interaction: discord.Interaction[LadderBot], name: str | None = None
    ) -> None:
        left = await self.service.leave(guild_of(interaction).id, interaction.user.id, name)
        text = left_text([q.name for q in left.left], member_words(interaction))
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)

    @join.autocomplete("name")
    @leave.autocomplete("name")
    async def _queue_names(
        self, interaction: discord.Interaction[LadderBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return await queue_names(self.service, interaction, current)

    @app_commands.command(name="list", description="Every queue, its count and your place")
    async def list(self, interaction: discord.Interaction[LadderBot]) -> None:
        guild_id = guild_of(interaction).id
        queues = await self.service.queues(guild_id)
        windows = await self.service.windows(guild_id, queues)
        await interaction.response.send_message(
            queue_list_text(queues, interaction.user.id, windows, member_words(interaction)),
            ephemeral=True,
        )

    party = app_commands.Group(name="party", description="Queue together: invite, leave, show")

    @party.command(name="invite", description="Invite a member into your party")
    @app_commands.describe(member="Who you invite (they accept or decline with the buttons)")
    async def party_invite(
        self, interaction: discord.Interaction[LadderBot], member: discord.Member
    ) -> None:
        guild = guild_of(interaction)
        party = await self.service.invite(
            guild.id, member_info(interaction.user), member_info(member)
        )
        note_stored(
            interaction,
            member_words(interaction).gettext(
                N_("{member} was invited into your party."), member=member.mention
            ),
        )
        said = await self.bot.public_words(guild.id)
        await interaction.response.send_message(
            said.ngettext(
                "{member}, {leader} invites you into their party ({count} member now): its "
                "leader joins queues for the whole party.",
                "{member}, {leader} invites you into their party ({count} members now): its "
                "leader joins queues for the whole party.",
                len(party.members),
                member=member.mention,
                leader=interaction.user.mention,
            ),
            view=party_invite_view(interaction.user.id, member.id, said),
            allowed_mentions=discord.AllowedMentions(users=[member]),
        )

    @party.command(name="leave", description="Leave your party (it leaves its queues)")
    async def party_leave(self, interaction: discord.Interaction[LadderBot]) -> None:
        user_id = interaction.user.id
        party = await self.service.leave_party(guild_of(interaction).id, user_id)
        ended = user_id == party.leader_id or len(party.members) <= 2
        said = member_words(interaction)
        text = (
            said.gettext(N_("Your party ended."))
            if ended
            else said.gettext(N_("You left {leader}'s party."), leader=f"<@{party.leader_id}>")
        )
        note_stored(interaction, text)
        await interaction.response.send_message(
            text + " " + said.gettext(N_("It was taken out of its queues.")), ephemeral=True
        )

    @party.command(name="show", description="Your party and its open invitations")
    async def party_show(self, interaction: discord.Interaction[LadderBot]) -> None:
        party = await self.service.party(guild_of(interaction).id, interaction.user.id)
        text = party_text(party, member_words(interaction))
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="result", description="Report a lobby's result")
    @app_commands.describe(
        lobby="The lobby number",
        winner="The winning team, or draw (team lobbies)",
        order="Free-for-all: every player's mention, first to last",
        minutes="Minutes played (default: the server's max_game_length)",
    )
    @app_commands.choices(winner=choices(("a", "b", "c", "d", "draw")))
    async def result(
        self,
        interaction: discord.Interaction[LadderBot],
        lobby: LobbyId,
        winner: str | None = None,
        order: str | None = None,
        minutes: float | None = None,
    ) -> None:
        ids = None if order is None else [int(found) for found in MENTION.findall(order)]
        if order is not None and not ids:
            raise UserError(N_("order must list the players' mentions, first to last"))
        await report_result(interaction, self.service, lobby, winner, ids, minutes)


class AdminQueue(app_commands.Group):
    """/admin queue create|edit|delete"""

    def __init__(self, bot: LadderBot, service: Queues) -> None:
        super().__init__(name="queue", description="Create, change or delete queues")
        self.bot = bot
        self.service = service

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return check_moderator(interaction)

    @app_commands.command(name="create", description="Create a queue and post its message")
    @app_commands.describe(
        name="1 to 32 characters, unique in the server",
        channel="Where its message (Join/Leave) and its lobbies go",
        size=f"Players per match ({MIN_SIZE} to {MAX_SIZE}; a multiple of teams)",
        format="teams (default) or ffa",
        teams="Number of teams (2 to 4, default 2)",
        mode="balance (default), captains or random",
        ready_seconds="Ready check length (0 = none, at most 600; default 60)",
        expire_minutes="Members leave after waiting this long (1 to 1440; default 60)",
        maps="Up to 25 map names separated by commas",
        pick_order="Captains' pick order, letters a-d (default the snake abba…)",
        range_="Pop only players this near the longest-waiting one's rating (Elo; 0 = off)",
        widen="Elo the range grows per minute that player has waited (0 to 500; default 0)",
        party_max="Largest party that may queue together (1 = none, at most a team; default 1)",
        map_pick="How a lobby's map is chosen: random (default), vote, or ban (two teams)",
        rooms="A private channel per lobby: none (default), text, or voice (a channel a team)",
        waiting_voice="Voice channel players go back to when their lobby's room closes",
    )
    @app_commands.rename(range_="range")
    @app_commands.choices(
        format=choices(FORMATS), mode=choices(MODES), map_pick=choices(MAP_PICKS),
        rooms=choices(ROOM_KINDS),
    )  # fmt: skip
    async def create(
        self,
        interaction: discord.Interaction[LadderBot],
        name: str,
        channel: discord.TextChannel,
        size: app_commands.Range[int, MIN_SIZE, MAX_SIZE],
        format: str = "teams",
        teams: app_commands.Range[int, 2, 4] = 2,
        mode: str = "balance",
        ready_seconds: app_commands.Range[int, READY_SECONDS[0], READY_SECONDS[1]] = 60,
        expire_minutes: app_commands.Range[int, EXPIRE_MINUTES[0], EXPIRE_MINUTES[1]] = 60,
        maps: str | None = None,
        pick_order: str | None = None,
        range_: app_commands.Range[int, RATING_RANGE[0], RATING_RANGE[1]] = 0,
        widen: app_commands.Range[int, WIDEN[0], WIDEN[1]] = 0,
        party_max: app_commands.Range[int, PARTY_MAX[0], PARTY_MAX[1]] = 1,
        map_pick: str = "random",
        rooms: str = "none",
        waiting_voice: discord.VoiceChannel | None = None,
    ) -> None:
        guild = guild_of(interaction)
        refuse_rooms(guild, rooms)
        refuse_unpostable(guild, channel, "/admin queue create")
        settings = QueueSettings(
            name, channel.id, size, cast(Any, format), teams, cast(Any, mode), ready_seconds,
            expire_minutes, parse_maps(maps or ""), pick_order or "", range_, widen, party_max,
            cast(Any, map_pick), cast(Any, rooms),
            None if waiting_voice is None else waiting_voice.id,
        )  # fmt: skip
        queue = await self.service.create_queue(
            guild.id, actor(interaction), settings, pick_order_given=pick_order is not None
        )
        said = member_words(interaction)
        name = shown_name(queue.name)
        note_stored(interaction, said.gettext(N_("The queue {name} was created."), name=name))
        await interaction.response.send_message(
            said.gettext(
                N_("The queue {name} was created; its message is in {channel}."),
                name=name,
                channel=channel.mention,
            ),
            ephemeral=True,
        )

    @app_commands.command(name="edit", description="Change a queue's settings")
    @app_commands.describe(
        name="The queue's name",
        new_name="A new name",
        channel="Move its message to this channel",
        size=f"Players per match ({MIN_SIZE} to {MAX_SIZE})",
        format="teams or ffa",
        teams="Number of teams (2 to 4)",
        mode="balance, captains or random",
        ready_seconds="Ready check length (0 = none, at most 600)",
        expire_minutes="Members leave after waiting this long (1 to 1440)",
        maps="Map names separated by commas (a single - for none)",
        pick_order="Captains' pick order, letters a-d",
        range_="Pop only players this near the longest-waiting one's rating (Elo; 0 = off)",
        widen="Elo the range grows per minute that player has waited (0 to 500)",
        party_max="Largest party that may queue together (1 = none, at most a team)",
        map_pick="How a lobby's map is chosen: random, vote, or ban (two teams)",
        rooms="A private channel per lobby: none, text, or voice (a channel a team)",
        waiting_voice="Voice channel players go back to when their lobby's room closes",
    )
    @app_commands.rename(range_="range")
    @app_commands.choices(
        format=choices(FORMATS), mode=choices(MODES), map_pick=choices(MAP_PICKS),
        rooms=choices(ROOM_KINDS),
    )  # fmt: skip
    async def edit(
        self,
        interaction: discord.Interaction[LadderBot],
        name: str,
        new_name: str | None = None,
        channel: discord.TextChannel | None = None,
        size: app_commands.Range[int, MIN_SIZE, MAX_SIZE] | None = None,
        format: str | None = None,
        teams: app_commands.Range[int, 2, 4] | None = None,
        mode: str | None = None,
        ready_seconds: app_commands.Range[int, READY_SECONDS[0], READY_SECONDS[1]] | None = None,
        expire_minutes: app_commands.Range[int, EXPIRE_MINUTES[0], EXPIRE_MINUTES[1]] | None = None,
        maps: str | None = None,
        pick_order: str | None = None,
        range_: app_commands.Range[int, RATING_RANGE[0], RATING_RANGE[1]] | None = None,
        widen: app_commands.Range[int, WIDEN[0], WIDEN[1]] | None = None,
        party_max: app_commands.Range[int, PARTY_MAX[0], PARTY_MAX[1]] | None = None,
        map_pick: str | None = None,
        rooms: str | None = None,
        waiting_voice: discord.VoiceChannel | None = None,
    ) -> None:
        guild = guild_of(interaction)
        refuse_rooms(guild, rooms or "none")
        given: dict[str, Any] = {
            "name": new_name, "channel_id": None if channel is None else channel.id,
            "size": size, "format": format, "teams": teams, "mode": mode,
            "ready_seconds": ready_seconds, "expire_minutes": expire_minutes,
            "maps": None if maps is None else parse_maps("" if maps.strip() == "-" else maps),
            "pick_order": pick_order, "rating_range": range_, "widen": widen,
            "party_max": party_max, "map_pick": map_pick, "rooms": rooms,
            "waiting_voice": None if waiting_voice is None else waiting_voice.id,
        }  # fmt: skip
        changes = {key: value for key, value in given.items() if value is not None}
        if not changes:
            names = ", ".join(
                "range" if f.name == "rating_range" else f.name
                for f in fields(QueueSettings)
                if f.name != "channel_id"
            )
            raise UserError(N_("give something to change: {names}, channel"), names=names)
        before = await self.service.find(guild.id, name)
        result = await self.service.edit_queue(guild.id, actor(interaction), name, changes)
        changed = member_words(interaction).gettext(
            N_("The queue {name} was changed."), name=shown_name(result.queue.name)
        )
        note_stored(interaction, changed)
        if channel is not None and channel.id != before.settings.channel_id:
            await _delete_message(self.bot, before)
            await self.service.set_queue_message(guild.id, before.queue_id, None)
        await interaction.response.send_message(changed, ephemeral=True)

    @app_commands.command(name="delete", description="Delete a queue (open lobbies stay)")
    @app_commands.describe(name="The queue's name")
    async def delete(self, interaction: discord.Interaction[LadderBot], name: str) -> None:
        guild = guild_of(interaction)
        queue = await self.service.delete_queue(guild.id, actor(interaction), name)
        said = member_words(interaction)
        name = shown_name(queue.name)
        note_stored(interaction, said.gettext(N_("The queue {name} was deleted."), name=name))
        if queue.message_id is not None:
            channel = self.bot.get_partial_messageable(queue.settings.channel_id, guild_id=guild.id)
            try:
                said = await self.bot.public_words(guild.id)
                await channel.get_partial_message(queue.message_id).edit(
                    embed=queue_embed(queue, deleted=True, said=said), view=None
                )
            except discord.HTTPException as error:
                log.info("could not mark queue %s deleted: %s", queue.queue_id, error)
        await interaction.response.send_message(
            said.ngettext(
                "The queue {name} was deleted ({count} waiting member was taken out; its open "
                "lobbies go on).",
                "The queue {name} was deleted ({count} waiting members were taken out; its "
                "open lobbies go on).",
                len(queue.waiting),
                name=name,
            ),
            ephemeral=True,
        )

    @edit.autocomplete("name")
    @delete.autocomplete("name")
    async def _queue_names(
        self, interaction: discord.Interaction[LadderBot], current: str
    ) -> list[app_commands.Choice[str]]:
        return await queue_names(self.service, interaction, current)


async def _delete_message(bot: LadderBot, queue: Queue) -> None:
    if queue.message_id is None:
        return
    channel = bot.get_partial_messageable(queue.settings.channel_id, guild_id=queue.guild_id)
    try:
        await channel.get_partial_message(queue.message_id).delete()
    except discord.HTTPException as error:
        log.info("could not delete the old message of queue %s: %s", queue.queue_id, error)


class AdminLobby(app_commands.Group):
    """/admin lobby sub|cancel"""

    def __init__(self, service: Queues) -> None:
        super().__init__(name="lobby", description="Substitute a player or cancel a lobby")
        self.service = service

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return check_moderator(interaction)

    @app_commands.command(name="sub", description="Swap a lobby's player for another member")
    @app_commands.describe(id="The lobby number", out="The player who leaves", in_="Who comes in")
    @app_commands.rename(in_="in")
    async def sub(
        self,
        interaction: discord.Interaction[LadderBot],
        id: LobbyId,
        out: discord.Member,
        in_: discord.Member,
    ) -> None:
        update = await self.service.substitute(
            guild_of(interaction).id, actor(interaction), id, out.id, member_info(in_)
        )
        text = member_words(interaction).gettext(
            N_("{member} plays in lobby #{number} instead of {player}."),
            member=in_.mention,
            number=update.lobby.lobby_id,
            player=out.mention,
        )
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.command(name="cancel", description="Cancel a lobby before its result")
    @app_commands.describe(id="The lobby number")
    async def cancel(self, interaction: discord.Interaction[LadderBot], id: LobbyId) -> None:
        update = await self.service.cancel(guild_of(interaction).id, actor(interaction), id)
        text = member_words(interaction).gettext(
            N_("Lobby #{number} was cancelled."), number=update.lobby.lobby_id
        )
        note_stored(interaction, text)
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: LadderBot) -> None:
    service = bot.services.queues
    add_admin_commands(bot, AdminQueue(bot, service), AdminLobby(service))
    bot.add_dynamic_items(
        QueueButton, LobbyButton, PickSelect, PartyButton, MapVoteButton, MapBanSelect
    )
    await bot.add_cog(QueueCog(bot, service))
