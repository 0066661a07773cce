"""Matchmaking queues (SPEC 10): join, leave, expire, pop, ready check, teams, captains'
picks, substitutes, cancel, and a lobby's result as one match of the ladder.

Every use case is one write transaction under the guild's write lock (bot.storage), so a
queue never holds more than its size, a pop takes the first `size` joiners once, and no
member is in two open lobbies (the storage's unique index says so too), whatever arrives at
once. Each reports one Change of kind "queue" (a result: the match's own Change) once
committed; the front end redraws the messages whose rows changed (version > shown_version).

Timed actions (expiry, ready deadline, pick timeout, lobby timeout) are `run_due`, called by
the process that owns the guild; each re-checks its deadline inside its own transaction, so
a second run, or a click that came first, finds nothing left to do.

Decisions the spec leaves open (with what users of NeatQueue and PUBobot2 expect):
- `/queue join` without a name joins the queue of the channel it is used in, else the
  guild's only queue; with several and none in the channel it asks for a name.
- A lobby's players are taken out of every queue of the guild at the pop (SPEC 10.2); while
  a lobby is open its players cannot join any queue (PUBobot2: "you are in a match").
- A dissolved lobby's ready players go back to the front of their queue in their old order
  with their wait restarted (they do not expire at once); when the queue was deleted
  meanwhile, nobody is put back.
- Ready check Leave: the leaver is not put back and counts as a no-show (penalty when
  no_show_minutes > 0); the players who had not answered yet are not put back either (SPEC
  10.2) but not penalized: their time had not run out. On the deadline every player who is
  not ready is a no-show.
- Leave exists only during the ready check; once the teams are made a moderator substitutes
  or cancels.
- A pick timeout that passed while the bot was down is caught up once at start: the captain
  gets the highest-rated player left and the next captain 60 s from then.
- Deadlines that passed while the bot was down are acted on in the order they fell due (a
  ready check or pick that ran out before lobby_hours first); a no-show's penalty counts
  from when it is acted on, so downtime does not use it up.
- lobby_hours counts from the pop. A cancelled or timed-out lobby puts nobody back.
- A substitute takes the place of the player they replace (team, captain, pick) and counts
  as ready (a moderator chose them); teams are not remade, their chances are.
- A queue's size may be changed while members wait: if it is then full, it pops.
- Rating range (SPEC 10.5): the longest-waiting member is the one who joined earliest
  (ties: the earlier in line; players put back by a dissolved lobby restart their wait),
  and "the earliest joiners inside the window" are taken in queue order.
- The result of a lobby is recorded with the request id `lobby:<id>`: a retry records
  nothing twice, and a second report is refused with the first match's id.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot.config import GuildSettings
from bot.services.changes import Change
from bot.services.context import ServiceContext, Unit, use_cases
from bot.services.core import Actor, elo_bridge, ladder_rating, must_moderate
from bot.services.errors import N_, Counted, Duration, Notice, UserError, quoted
from bot.services.events import PendingEvent
from bot.services.matches import Matches, ReportResult
from bot.services.queue_exits import mentions, take_out_of_queues
from bot.services.queue_rules import (
    MAP_SECONDS,
    MAX_QUEUES,
    PICK_SECONDS,
    TEAM_LETTERS,
    balanced,
    banning_captain,
    checked_settings,
    draw_map,
    map_candidates,
    parse_maps,
    pick,
    picking_team,
    pop_choice,
    random_split,
    result_lineup,
    team_letter,
    vote_winner,
    window,
    with_captains,
)
from bot.storage import Member, MemberInfo, Queries, WriteTransaction
from bot.storage.queues import (
    PARTY_IDLE_SECONDS,
    Lobby,
    LobbyPlayer,
    Party,
    Queue,
    QueueSettings,
)

__all__ = [
    "JoinResult",
    "LeaveResult",
    "Lobby",
    "LobbyPlayer",
    "LobbyUpdate",
    "Party",
    "Queue",
    "QueueBoard",
    "QueueSettings",
    "Queues",
    "ResultOfLobby",
    "Window",
    "parse_maps",
]

NO_QUEUES: Final = N_(
    "this server has no queues yet; a moderator creates one with /admin queue create"
)
_STATE_REFUSALS: Final = {
    "ready": N_("lobby #{number} is still in its ready check"),
    "picking": N_("lobby #{number} is still picking its teams"),
    "playing": N_("lobby #{number} is being played"),
    "reported": N_("lobby #{number} already has its result"),
    "cancelled": N_("lobby #{number} was cancelled"),
    "dissolved": N_("lobby #{number} was dissolved"),
}


@dataclass(frozen=True, slots=True)
class QueueBoard:
    """The queues with their waiting members and the open lobbies, as of one moment."""

    queues: tuple[Queue, ...]
    lobbies: tuple[Lobby, ...]
    names: Mapping[int, str]
    """The display names of everyone in them, as last seen."""
    read_at: float


@dataclass(frozen=True, slots=True)
class JoinResult:
    queue: Queue
    """The queue as the join left it (after a pop: without the lobby's players)."""
    place: int | None
    """The member's place in line; None when the join popped the queue."""
    already: bool
    """The member was already waiting: nothing changed."""
    lobbies: tuple[Lobby, ...] = ()
    """Lobbies the join popped."""


@dataclass(frozen=True, slots=True)
class LeaveResult:
    left: tuple[Queue, ...]
    """The queues the member left (as they are now)."""


@dataclass(frozen=True, slots=True)
class LobbyUpdate:
    lobby: Lobby
    """The lobby as the use case left it."""
    already: bool = False
    """Nothing changed (a second Ready click)."""
    lobbies: tuple[Lobby, ...] = ()
    """Lobbies popped by ready players going back to a full queue."""


@dataclass(frozen=True, slots=True)
class Window:
    """A waiting member's rating and how far from it (both Elo) the range reaches now."""

    user_id: int
    rating: float
    reach: float


@dataclass(frozen=True, slots=True)
class ResultOfLobby:
    lobby: Lobby
    report: ReportResult


def _player_of(lobby: Lobby, user_id: int) -> LobbyPlayer:
    found = lobby.player(user_id)
    if found is None:
        raise UserError(
            N_("{member} is not a player of lobby #{number}"),
            member=f"<@{user_id}>",
            number=lobby.lobby_id,
        )
    return found


def _must_be_open(lobby: Lobby, *states: str) -> None:
    if lobby.state not in states:
        refusal = UserError(_STATE_REFUSALS[lobby.state], number=lobby.lobby_id)
        if lobby.match_id is None:
            raise refusal
        raise UserError(N_("{refusal} (match #{number})"), refusal=refusal, number=lobby.match_id)


def _check_name_free(queues: Sequence[Queue], name: str, renamed: int | None = None) -> None:
    """UserError when a queue other than `renamed` has the name (case aside)."""
    if any(q.name.lower() == name.lower() and q.queue_id != renamed for q in queues):
        raise UserError(N_("there is a queue named {name} already"), name=quoted(name))


@use_cases()
class Queues:
    """The queue use cases; a lobby's result is a report of the matches service."""

    def __init__(
        self,
        context: ServiceContext,
        matches: Matches,
        *,
        rng: random.Random | None = None,
        pick_seconds: float = PICK_SECONDS,
        map_seconds: float = MAP_SECONDS,
    ) -> None:
        self.context = context
        self.matches = matches
        self.rng = rng or random.SystemRandom()
        self.pick_seconds = pick_seconds
        """How long a captain has to pick (tests make it short)."""
        self.map_seconds = map_seconds
        """How long a map vote, or a captain's ban, lasts (tests make it short)."""

    async def _settings(self, tx: WriteTransaction, guild_id: int) -> GuildSettings:
        return await tx.ensure_guild(guild_id, self.context.defaults)

    @staticmethod
    def _changed(unit: Unit, guild_id: int, actor_id: int | None, detail: str = "") -> None:
        unit.change = Change(guild_id, "queue", actor_id=actor_id, detail=detail)

    @staticmethod
    def _popped(unit: Unit, lobbies: Iterable[Lobby]) -> None:
        """The webhook events of lobbies just popped (their teams, when made at once)."""
        for lobby in lobbies:
            unit.events.append(PendingEvent("lobby.popped", lobby_id=lobby.lobby_id))
            if lobby.state == "playing":
                unit.events.append(PendingEvent("lobby.teams", lobby_id=lobby.lobby_id))

    @staticmethod
    def _lobby_moved(unit: Unit, before: Lobby, after: Lobby) -> None:
        """The webhook event of a lobby's step: its teams made, or it closed (a dissolved
        lobby's is `_dissolve`'s, before the players it puts back)."""
        if after.state == "playing" and before.state != "playing":
            unit.events.append(PendingEvent("lobby.teams", lobby_id=after.lobby_id))
        elif before.is_open and not after.is_open and after.state != "dissolved":
            unit.events.append(PendingEvent("lobby.closed", lobby_id=after.lobby_id))

    @staticmethod
    def _left(unit: Unit, queue_ids: Iterable[int], user_ids: Iterable[int], why: str) -> None:
        for queue_id in queue_ids:
            for user_id in user_ids:
                unit.events.append(
                    PendingEvent("queue.left", queue_id=queue_id, user_id=user_id, reason=why)
                )

    # -- reads -----------------------------------------------------------------------------

    async def queues(self, guild_id: int) -> list[Queue]:
        return await self.context.db.read.queues(guild_id)

    async def windows(self, guild_id: int, queues: Sequence[Queue]) -> dict[int, list[Window]]:
        """Each waiting member's current window in every rating-range queue (SPEC 10.5),
        by queue number, in queue order."""
        ranged = [q for q in queues if q.settings.rating_range]
        if not ranged:
            return {}
        settings = await self.context.settings(guild_id)
        user_ids = sorted({w.user_id for q in ranged for w in q.waiting})
        ratings = await self._elo_ratings(self.context.db.read, guild_id, settings, user_ids)
        now = self.context.clock()
        return {
            q.queue_id: [
                Window(w.user_id, ratings[w.user_id], window(q.settings, w.joined_at, now))
                for w in q.waiting
                if w.user_id in ratings
            ]
            for q in ranged
        }

    async def board(self, guild_id: int) -> QueueBoard:
        """The queues and open lobbies with the names of everyone in them, as of one moment
        (`ladderbot queue list`)."""
        async with self.context.db.snapshot() as read:
            queues = await read.queues(guild_id)
            lobbies = await read.open_lobbies(guild_id)
            user_ids = {w.user_id for q in queues for w in q.waiting}
            user_ids |= {p.user_id for lobby in lobbies for p in lobby.players}
            names = {m.user_id: m.name for m in await read.members_by_id(guild_id, user_ids)}
        return QueueBoard(tuple(queues), tuple(lobbies), names, self.context.clock())

    async def open_lobbies(self, guild_id: int) -> list[Lobby]:
        return await self.context.db.read.open_lobbies(guild_id)

    async def lobby(self, guild_id: int, lobby_id: int) -> Lobby:
        lobby = await self.context.db.read.lobby(guild_id, lobby_id)
        if lobby is None:
            raise UserError(N_("there is no lobby #{number} in this server"), number=lobby_id)
        return lobby

    async def queue(self, guild_id: int, queue_id: int) -> Queue | None:
        return await self.context.db.read.queue(guild_id, queue_id)

    async def names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """The members' display names as last seen."""
        members = await self.context.db.read.members_by_id(guild_id, set(user_ids))
        return {m.user_id: m.name for m in members}

    async def guilds(self) -> list[int]:
        """Every guild with a queue or a lobby."""
        return await self.context.db.read.guilds_with_queues()

    async def unshown(self, guild_id: int) -> tuple[list[Queue], list[Lobby]]:
        """The queues and lobbies whose messages are older than their rows."""
        async with self.context.db.snapshot() as read:
            return await read.unshown_queues(guild_id), await read.unshown_lobbies(guild_id)

    async def mark_shown(
        self, guild_id: int, kind: str, number: int, version: int, message_id: int | None
    ) -> None:
        """The front end showed this version of a queue or lobby (a write of no Change)."""
        async with self.context.write(guild_id) as unit:
            await unit.tx.mark_shown(guild_id, "queue" if kind == "queue" else "lobby", number,
                                     version, message_id)  # fmt: skip

    @staticmethod
    def _find(queues: Sequence[Queue], name: str | None, channel_id: int | None) -> Queue:
        if not queues:
            raise UserError(NO_QUEUES)
        if name is not None and name.strip():
            wanted = name.strip().lower()
            for queue in queues:
                if queue.name.lower() == wanted:
                    return queue
            names = ", ".join(q.name for q in queues)
            raise UserError(
                N_("there is no queue {name}; the queues are: {names}"),
                name=quoted(name),
                names=names,
            )
        in_channel = [q for q in queues if q.settings.channel_id == channel_id]
        if len(in_channel) == 1:
            return in_channel[0]
        if len(queues) == 1:
            return queues[0]
        names = ", ".join(q.name for q in (in_channel or queues))
        raise UserError(N_("name the queue: {names}"), names=names)

    async def find(self, guild_id: int, name: str | None, channel_id: int | None = None) -> Queue:
        return self._find(await self.context.db.read.queues(guild_id), name, channel_id)

    # -- queues ----------------------------------------------------------------------------

    async def create_queue(
        self, guild_id: int, actor: Actor, settings: QueueSettings, *, pick_order_given: bool
    ) -> Queue:
        must_moderate(actor, N_("create queues"))
        checked = checked_settings(settings, pick_order_given)
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            await self._settings(tx, guild_id)
            queues = await tx.queues(guild_id)
            if len(queues) >= MAX_QUEUES:
                raise UserError(
                    N_("this server has {most} queues, the most it can have"), most=MAX_QUEUES
                )
            _check_name_free(queues, checked.name)
            queue_id = await tx.add_queue(guild_id, checked)
            self._changed(unit, guild_id, actor.user_id, f"queue {checked.name} created")
            created = await tx.queue(guild_id, queue_id)
        assert created is not None
        return created

    async def edit_queue(
        self, guild_id: int, actor: Actor, name: str, changes: Mapping[str, Any]
    ) -> JoinResult:
        """Change some settings of a queue (names as QueueSettings'). A size it already holds
        pops it."""
        must_moderate(actor, N_("edit queues"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await self._settings(tx, guild_id)
            queues = await tx.queues(guild_id)
            queue = self._find(queues, name, None)
            given = "pick_order" in changes or changes.get("teams", queue.settings.teams) == (
                queue.settings.teams
            )
            checked = checked_settings(replace(queue.settings, **changes), given)
            _check_name_free(queues, checked.name, queue.queue_id)
            await tx.set_queue_settings(guild_id, queue.queue_id, checked)
            lobbies, edited = await self._pop_full(
                tx, guild_id, settings, queue.queue_id, unit.events
            )
            self._popped(unit, lobbies)
            self._changed(unit, guild_id, actor.user_id, f"queue {checked.name} edited")
        assert edited is not None
        return JoinResult(edited, None, False, tuple(lobbies))

    async def set_queue_message(self, guild_id: int, queue_id: int, message_id: int | None) -> None:
        async with self.context.write(guild_id) as unit:
            await unit.tx.set_queue_message(guild_id, queue_id, message_id)

    async def delete_queue(self, guild_id: int, actor: Actor, name: str) -> Queue:
        """Remove a queue and its waiting members (returned as they were, for its message);
        its open lobbies stay."""
        must_moderate(actor, N_("delete queues"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            queue = self._find(await tx.queues(guild_id), name, None)
            await tx.delete_queue(guild_id, queue.queue_id)
            self._changed(unit, guild_id, actor.user_id, f"queue {queue.name} deleted")
        return queue

    # -- joining and leaving ---------------------------------------------------------------

    async def join(
        self,
        guild_id: int,
        member: MemberInfo,
        name: str | None = None,
        channel_id: int | None = None,
        *,
        queue_id: int | None = None,
    ) -> JoinResult:
        """The member joins a queue (by number, name, or channel), which pops when full."""
        if member.is_bot:
            raise UserError(N_("bots cannot join queues"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await self._settings(tx, guild_id)
            queue = await self._queue_for(tx, guild_id, name, channel_id, queue_id)
            place = queue.place_of(member.user_id)
            if place is not None:  # says so, and writes nothing
                return JoinResult(queue, place, already=True)
            stored = (await tx.upsert_members(guild_id, [member]))[0]
            await self._may_queue(tx, guild_id, stored)
            joining = await self._party_joining(tx, queue, member.user_id)
            now = self.context.clock()
            await tx.add_waiting(guild_id, queue.queue_id, joining, now, front=False)
            for user_id in joining:
                unit.events.append(
                    PendingEvent("queue.joined", queue_id=queue.queue_id, user_id=user_id)
                )
            lobbies, after = await self._pop_full(
                tx, guild_id, settings, queue.queue_id, unit.events
            )
            self._popped(unit, lobbies)
            self._changed(unit, guild_id, member.user_id)
        assert after is not None
        return JoinResult(after, after.place_of(member.user_id), False, tuple(lobbies))

    async def _queue_for(
        self,
        tx: WriteTransaction,
        guild_id: int,
        name: str | None,
        channel_id: int | None,
        queue_id: int | None,
    ) -> Queue:
        if queue_id is not None:
            queue = await tx.queue(guild_id, queue_id)
            if queue is None:
                raise UserError(N_("this queue was deleted"))
            return queue
        return self._find(await tx.queues(guild_id), name, channel_id)

    async def _may_queue(
        self, tx: WriteTransaction, guild_id: int, member: Member, mate: bool = False
    ) -> None:
        """UserError when the member may not queue; `mate`: said of a party member who is
        not the one joining."""
        user_id = member.user_id
        mention = f"<@{user_id}>"
        if member.is_bot:
            raise UserError(N_("bots cannot join queues"))
        if not member.enabled and mate:
            raise UserError(
                N_(
                    "your party member {member} left the ladder; use /ladder join to be rated, "
                    "then queue"
                ),
                member=mention,
            )
        if not member.enabled:
            raise UserError(N_("you left the ladder; use /ladder join to be rated, then queue"))
        lobby_id = await tx.open_lobby_of(guild_id, user_id)
        if lobby_id is not None and mate:
            raise UserError(
                N_(
                    "your party member {member}: playing in lobby #{number}; join again once it "
                    "has its result"
                ),
                member=mention,
                number=lobby_id,
            )
        if lobby_id is not None:
            raise UserError(
                N_("you are playing in lobby #{number}; join again once it has its result"),
                number=lobby_id,
            )
        now = self.context.clock()
        until = await tx.penalty_until(guild_id, user_id, now)
        if until is not None and mate:
            raise UserError(
                N_(
                    "your party member {member} missed a ready check and cannot queue for {wait} "
                    "more"
                ),
                member=mention,
                wait=Duration(until - now),
            )
        if until is not None:
            raise UserError(
                N_("you missed a ready check and cannot queue for {wait} more"),
                wait=Duration(until - now),
            )

    async def _party_joining(self, tx: WriteTransaction, queue: Queue, user_id: int) -> list[int]:
        """Who joins with the member: their whole party when they lead one (all or none:
        each must be eligible), else themselves alone (SPEC 10.5)."""
        guild_id, spec = queue.guild_id, queue.settings
        party = await tx.party_of(guild_id, user_id)
        if party is None or len(party.members) < 2:
            return [user_id]
        if party.leader_id != user_id:
            raise UserError(
                N_(
                    "you are in {leader}'s party: its leader joins for it (or /queue party leave "
                    "to queue alone)"
                ),
                leader=f"<@{party.leader_id}>",
            )
        size = Counted("{count} member", "{count} members", len(party.members))
        if spec.format == "ffa":
            raise UserError(
                N_("the queue {name} is a free-for-all: parties cannot join it"), name=spec.name
            )
        if spec.party_max == 1:
            raise UserError(
                N_("the queue {name} takes no parties; your party has {size}"),
                name=spec.name,
                size=size,
            )
        if size.count > spec.party_max:
            raise UserError(
                N_("the queue {name} takes parties of up to {most}; your party has {size}"),
                name=spec.name,
                most=spec.party_max,
                size=size,
            )
        # party_max is at most a team's size (checked_settings): the party fits one team
        mates = [m for m in await tx.members_by_id(guild_id, party.members) if m.user_id != user_id]
        for mate in mates:
            if queue.place_of(mate.user_id) is not None:
                raise UserError(
                    N_("your party member {member} waits in {name} already"),
                    member=f"<@{mate.user_id}>",
                    name=spec.name,
                )
            await self._may_queue(tx, guild_id, mate, mate=True)
        return list(party.members)

    async def leave(
        self,
        guild_id: int,
        user_id: int,
        name: str | None = None,
        *,
        queue_id: int | None = None,
    ) -> LeaveResult:
        """Leave one queue (by name or number), or every queue the member waits in; the
        member's party leaves with them (SPEC 10.5)."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            party = await tx.party_of(guild_id, user_id)
            leaving = list(party.members) if party is not None else [user_id]
            if queue_id is not None or (name is not None and name.strip()):
                one = await self._queue_for(tx, guild_id, name, None, queue_id)
                if one.place_of(user_id) is None:
                    raise UserError(N_("you are not in the queue {name}"), name=one.name)
                chosen = [one.queue_id]
            else:
                queues = await tx.queues(guild_id)
                chosen = [q.queue_id for q in queues if q.place_of(user_id) is not None]
                if not chosen:
                    raise UserError(N_("you are not in any queue"))
            left: list[int] = []
            for number in chosen:
                left += await tx.remove_waiting(guild_id, leaving, number)
            if party is not None:
                await tx.touch_parties(guild_id, [party.leader_id], self.context.clock())
            self._left(unit, left, leaving, "left")
            self._changed(unit, guild_id, user_id)
            after = [await tx.queue(guild_id, number) for number in left]
        return LeaveResult(tuple(q for q in after if q is not None))

    async def left_server(self, guild_id: int, user_id: int) -> LeaveResult:
        """The member left the server: out of every queue at once (SPEC 10.1)."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            left = await take_out_of_queues(
                tx, guild_id, [user_id], N_("{members} left the server and the queue"), unit.events
            )
            if left:
                self._changed(unit, guild_id, None)
            after = [await tx.queue(guild_id, number) for number in left]
        return LeaveResult(tuple(q for q in after if q is not None))

    # -- parties (SPEC 10.5) ----------------------------------------------------------------

    async def party(self, guild_id: int, user_id: int) -> Party | None:
        """The member's party, if any."""
        return await self.context.db.read.party_of(guild_id, user_id)

    @staticmethod
    def _party_limit(queues: Sequence[Queue]) -> int:
        """The largest party any queue of the guild takes (1: none takes parties)."""
        return max((q.settings.party_max for q in queues), default=1)

    async def invite(self, guild_id: int, leader: MemberInfo, invitee: MemberInfo) -> Party:
        """The leader invites a member into their party (made when the first accepts)."""
        if invitee.is_bot:
            raise UserError(
                N_("{member} is a bot; bots cannot join parties"), member=f"<@{invitee.user_id}>"
            )
        if invitee.user_id == leader.user_id:
            raise UserError(N_("you cannot invite yourself"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            await self._settings(tx, guild_id)
            queues = await tx.queues(guild_id)
            limit = self._party_limit(queues)
            if limit < 2:
                raise UserError(
                    N_("no queue of this server takes parties (a moderator sets party_max)")
                )
            await tx.upsert_members(guild_id, [leader, invitee])
            party = await tx.party_of(guild_id, leader.user_id)
            members = party.members if party is not None else (leader.user_id,)
            if party is not None and party.leader_id != leader.user_id:
                raise UserError(
                    N_("you are in {leader}'s party; only its leader invites"),
                    leader=f"<@{party.leader_id}>",
                )
            if invitee.user_id in members:
                raise UserError(
                    N_("{member} is in your party already"), member=f"<@{invitee.user_id}>"
                )
            theirs = await tx.party_of(guild_id, invitee.user_id)
            if theirs is not None:
                raise UserError(
                    N_("{member} is in {leader}'s party already"),
                    member=f"<@{invitee.user_id}>",
                    leader=f"<@{theirs.leader_id}>",
                )
            if len(members) >= limit:
                raise UserError(
                    N_(
                        "your party has {size}, the most a queue of this server takes "
                        "(party_max {limit})"
                    ),
                    size=Counted("{count} member", "{count} members", len(members)),
                    limit=limit,
                )
            if any(q.place_of(leader.user_id) is not None for q in queues):
                raise UserError(N_("you are in a queue; leave it before inviting"))
            now = self.context.clock()
            await tx.add_invite(guild_id, leader.user_id, invitee.user_id, now)
            self._changed(unit, guild_id, leader.user_id)
            stored = await tx.party(guild_id, leader.user_id)
        return stored or Party(guild_id, leader.user_id, members, (invitee.user_id,), now)

    async def answer_invite(
        self, guild_id: int, user_id: int, leader_id: int, accept: bool
    ) -> Party | None:
        """The invitee accepts (joins the party) or declines; the party as it is then."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            now = self.context.clock()
            invited = await tx.invited_at(guild_id, leader_id, user_id)
            if invited is None:
                raise UserError(N_("this invitation was already answered or has ended"))
            if invited + PARTY_IDLE_SECONDS <= now:
                raise UserError(
                    N_("this invitation has expired (after an hour); ask for a new one")
                )
            if not accept:
                await tx.drop_invite(guild_id, leader_id, user_id)
                self._changed(unit, guild_id, user_id)
                return await tx.party(guild_id, leader_id)
            queues = await tx.queues(guild_id)
            theirs = await tx.party_of(guild_id, user_id)
            if theirs is not None:
                raise UserError(
                    N_("you are in {leader}'s party; /queue party leave first"),
                    leader=f"<@{theirs.leader_id}>",
                )
            leader = f"<@{leader_id}>"
            party = await tx.party_of(guild_id, leader_id)
            if party is not None and party.leader_id != leader_id:
                raise UserError(N_("{leader} has joined another party meanwhile"), leader=leader)
            size = len(party.members) if party is not None else 1
            limit = self._party_limit(queues)
            if size >= limit:
                raise UserError(
                    N_("{leader}'s party is full ({size}, party_max {limit})"),
                    leader=leader,
                    size=size,
                    limit=limit,
                )
            if any(q.place_of(user_id) is not None for q in queues):
                raise UserError(N_("you are in a queue; accept once you have left the queue"))
            if any(q.place_of(leader_id) is not None for q in queues):
                raise UserError(
                    N_("{leader}'s party is in a queue; accept once it has left the queue"),
                    leader=leader,
                )
            if await tx.open_lobby_of(guild_id, leader_id) is not None:
                raise UserError(
                    N_("{leader} is playing in a lobby; accept once it is over"), leader=leader
                )
            await tx.add_party_member(guild_id, leader_id, user_id, now)
            self._changed(unit, guild_id, user_id)
            return await tx.party(guild_id, leader_id)

    async def leave_party(self, guild_id: int, user_id: int) -> Party:
        """The member leaves their party, taking it out of its queues; when the leader
        leaves, or one member would be left, the party ends. The party as it was."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            party = await tx.party_of(guild_id, user_id)
            if party is None:
                raise UserError(N_("you are not in a party"))
            left = await tx.remove_waiting(guild_id, party.members)
            self._left(unit, left, party.members, "left")
            if user_id == party.leader_id or len(party.members) <= 2:
                await tx.end_parties(guild_id, [party.leader_id])
            else:
                await tx.remove_party_member(guild_id, user_id)
                await tx.touch_parties(guild_id, [party.leader_id], self.context.clock())
            self._changed(unit, guild_id, user_id)
        return party

    # -- the pop ---------------------------------------------------------------------------

    async def _pop_full(
        self,
        tx: WriteTransaction,
        guild_id: int,
        settings: GuildSettings,
        queue_id: int,
        events: list[PendingEvent],
    ) -> tuple[list[Lobby], Queue | None]:
        """Pop the queue while it can (SPEC 10.2, 10.5): its chosen members form a lobby and
        leave every queue of the guild (members who may not play now are taken out: their
        events go to `events`). The lobbies, and the queue as it is left."""
        lobbies: list[Lobby] = []
        while True:
            queue = await tx.queue(guild_id, queue_id)
            if queue is None:
                return lobbies, queue
            chosen = await self._pop_choice(tx, settings, queue)
            if chosen is None:
                return lobbies, queue
            barred = await self._not_eligible(tx, guild_id, chosen)
            if barred:  # left out, and the next in line move up
                why = N_("{members} may not play now and left the queue")
                await take_out_of_queues(tx, guild_id, barred, why, events)
                continue
            lobbies.append(await self._pop(tx, settings, queue, chosen))

    async def _pop_choice(
        self, read: Queries, settings: GuildSettings, queue: Queue
    ) -> list[int] | None:
        """Whom the queue pops now (None: nobody); ratings are read only for a range."""
        if len(queue.waiting) < queue.settings.size:
            return None
        ratings: dict[int, float] = {}
        user_ids = [w.user_id for w in queue.waiting]
        if queue.settings.rating_range:
            ratings = await self._elo_ratings(read, queue.guild_id, settings, user_ids)
        leaders = (
            await read.leaders_of(queue.guild_id, user_ids) if queue.settings.party_max > 1 else {}
        )
        return pop_choice(queue.settings, queue.waiting, ratings, self.context.clock(), leaders)

    async def _not_eligible(
        self, tx: WriteTransaction, guild_id: int, user_ids: Sequence[int]
    ) -> list[int]:
        """Those of the members a pop would take who may not queue now (SPEC 10.1)."""
        members = {m.user_id: m for m in await tx.members_by_id(guild_id, user_ids)}
        barred = []
        for user_id in user_ids:
            try:
                await self._may_queue(tx, guild_id, members[user_id])
            except UserError:
                barred.append(user_id)
        return barred

    async def _pop(
        self, tx: WriteTransaction, settings: GuildSettings, queue: Queue, user_ids: list[int]
    ) -> Lobby:
        guild_id, spec, now = queue.guild_id, queue.settings, self.context.clock()
        await tx.remove_waiting(guild_id, user_ids)
        players = await self._players(tx, guild_id, settings, user_ids)
        leaders = await tx.leaders_of(guild_id, user_ids)
        if leaders:  # the parties go into the lobby together, and end (SPEC 10.5)
            players = [replace(p, party=leaders.get(p.user_id)) for p in players]
            await tx.end_parties(guild_id, set(leaders.values()))
        chosen_map: str | None = None
        candidates: tuple[str, ...] = ()
        if spec.map_pick == "random":
            chosen_map = draw_map(spec.maps, queue.previous_map, self.rng)
        else:  # voted or banned once the teams are made
            candidates = map_candidates(spec.map_pick, spec.maps, queue.previous_map, self.rng)
        if chosen_map is not None:
            await tx.set_queue_notice(guild_id, queue.queue_id, None, previous_map=chosen_map)
        seed = self.rng.getrandbits(32) if spec.mode == "random" else None
        draft = Lobby(
            guild_id=guild_id,
            lobby_id=0,
            queue_id=queue.queue_id,
            queue_name=spec.name,
            channel_id=spec.channel_id,
            message_id=None,
            state="ready",
            format=spec.format,
            teams=spec.teams if spec.format == "teams" else len(players),
            mode=spec.mode,
            pick_order=spec.pick_order,
            created_at=now,
            ready_deadline=now + spec.ready_seconds,
            pick_deadline=None,
            close_deadline=now + settings.lobby_hours * 3600.0,
            map=chosen_map,
            map_pick=spec.map_pick,
            map_candidates=candidates,
            rooms=spec.rooms,
            waiting_voice=spec.waiting_voice,
            seed=seed,
            match_id=None,
            closed_at=None,
            notice=None,
            version=1,
            shown_version=0,
            players=tuple(players),
        )
        if spec.ready_seconds == 0:
            draft = await self._teams_made(replace(draft, ready_deadline=None))
        lobby_id = await tx.add_lobby(draft)
        lobby = await tx.lobby(guild_id, lobby_id)
        assert lobby is not None
        return lobby

    @staticmethod
    async def _elo_ratings(
        read: Queries, guild_id: int, settings: GuildSettings, user_ids: list[int]
    ) -> dict[int, float]:
        """The members' ladder ratings in Elo units (SPEC 3.1; no rating: initial)."""
        bridge = elo_bridge(settings)
        return {
            m.user_id: float(bridge.to_elo(ladder_rating(m, settings)))
            for m in await read.members_by_id(guild_id, user_ids)
        }

    async def _players(
        self, tx: WriteTransaction, guild_id: int, settings: GuildSettings, user_ids: list[int]
    ) -> list[LobbyPlayer]:
        """The players in queue order, with their ladder ratings in Elo units."""
        ratings = await self._elo_ratings(tx, guild_id, settings, user_ids)
        return [
            LobbyPlayer(user_id, position, ratings[user_id])
            for position, user_id in enumerate(user_ids)
        ]

    async def _teams_made(self, lobby: Lobby) -> Lobby:
        """The lobby once its ready check passed: teams made (or the captains' picking
        begun), and the state that follows."""
        players: Sequence[LobbyPlayer] = lobby.players
        now = self.context.clock()
        if lobby.format == "ffa":
            players = [replace(p, team=p.position) for p in players]
        elif lobby.mode == "balance":
            players = await asyncio.to_thread(balanced, players, lobby.teams)
        elif lobby.mode == "random":
            assert lobby.seed is not None
            players = random_split(players, lobby.teams, lobby.seed)
        else:
            players = with_captains(players, lobby.teams)
            if picking_team(players, lobby.teams, lobby.pick_order) is not None:
                return replace(
                    lobby,
                    state="picking",
                    players=tuple(players),
                    pick_deadline=now + self.pick_seconds,
                )
        return self._playing(replace(lobby, players=tuple(players)))

    def _playing(self, lobby: Lobby) -> Lobby:
        """The lobby with its teams made: it plays, and a map vote or ban begins."""
        deadline = None
        if lobby.map_pick != "random" and lobby.map is None:
            deadline = self.context.clock() + self.map_seconds
        return replace(lobby, state="playing", pick_deadline=None, map_deadline=deadline)

    async def _store(self, tx: WriteTransaction, before: Lobby, after: Lobby) -> Lobby:
        """Store what changed between two states of an open lobby; the lobby as stored."""
        changed = [p for p in after.players if p != before.player(p.user_id)]
        if changed:
            await tx.set_players(after.guild_id, after.lobby_id, changed)
        values = {
            name: getattr(after, name)
            for name in ("state", "ready_deadline", "pick_deadline", "closed_at", "notice", "map",
                         "map_candidates", "map_banned", "map_deadline")
            if getattr(after, name) != getattr(before, name)
        }  # fmt: skip
        await tx.update_lobby(after.guild_id, after.lobby_id, **values)
        if after.map is not None and before.map is None:  # never the same map twice in a row
            await tx.set_queue_notice(after.guild_id, after.queue_id, None, previous_map=after.map)
        stored = await tx.lobby(after.guild_id, after.lobby_id)
        assert stored is not None
        return stored

    async def _open_lobby(self, tx: WriteTransaction, guild_id: int, lobby_id: int) -> Lobby:
        lobby = await tx.lobby(guild_id, lobby_id)
        if lobby is None:
            raise UserError(N_("there is no lobby #{number} in this server"), number=lobby_id)
        return lobby

    # -- the ready check -------------------------------------------------------------------

    async def ready(self, guild_id: int, user_id: int, lobby_id: int) -> LobbyUpdate:
        """A player is ready; when all are, the teams are made."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            player = _player_of(lobby, user_id)
            if lobby.state in ("picking", "playing"):
                return LobbyUpdate(lobby, already=True)
            _must_be_open(lobby, "ready")
            if player.ready:
                return LobbyUpdate(lobby, already=True)
            players = tuple(replace(p, ready=True) if p is player else p for p in lobby.players)
            after = replace(lobby, players=players)
            if all(p.ready for p in players):
                after = await self._teams_made(replace(after, ready_deadline=None))
            stored = await self._store(tx, lobby, after)
            self._lobby_moved(unit, lobby, stored)
            self._changed(unit, guild_id, user_id)
        return LobbyUpdate(stored)

    async def decline(self, guild_id: int, user_id: int, lobby_id: int) -> LobbyUpdate:
        """A player leaves during the ready check: the lobby is dissolved."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await self._settings(tx, guild_id)
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            _player_of(lobby, user_id)
            _must_be_open(lobby, "ready")
            update = await self._dissolve(
                tx,
                settings,
                lobby,
                [user_id],
                Notice(N_("{member} left"), member=f"<@{user_id}>"),
                unit.events,
            )
            self._popped(unit, update.lobbies)
            self._changed(unit, guild_id, user_id)
        return update

    async def _dissolve(
        self,
        tx: WriteTransaction,
        settings: GuildSettings,
        lobby: Lobby,
        no_shows: Sequence[int],
        why: Notice,
        events: list[PendingEvent],
    ) -> LobbyUpdate:
        """Dissolve a lobby in its ready check (its `lobby.closed` event): the ready players
        (but `no_shows`) go back to the front of the queue in their order (each a
        `queue.joined` event, reason "back"), `no_shows` get the no-show penalty."""
        guild_id, now = lobby.guild_id, self.context.clock()
        back = [p.user_id for p in lobby.players if p.ready and p.user_id not in no_shows]
        stored = await self._store(
            tx,
            lobby,
            replace(
                lobby,
                state="dissolved",
                closed_at=now,
                notice=Notice(N_("dissolved: {why}"), why=why).stored(),
            ),
        )
        events.append(PendingEvent("lobby.closed", lobby_id=lobby.lobby_id))
        if settings.no_show_minutes > 0 and no_shows:
            await tx.penalize(guild_id, no_shows, now + settings.no_show_minutes * 60.0)
        lobbies: list[Lobby] = []
        if back and await tx.queue(guild_id, lobby.queue_id) is not None:
            await tx.remove_waiting(guild_id, back, lobby.queue_id)  # never twice in line
            await tx.add_waiting(guild_id, lobby.queue_id, back, now, front=True)
            events.extend(
                PendingEvent(
                    "queue.joined", queue_id=lobby.queue_id, user_id=user_id, reason="back"
                )
                for user_id in back
            )
            lobbies, _ = await self._pop_full(tx, guild_id, settings, lobby.queue_id, events)
        return LobbyUpdate(stored, lobbies=tuple(lobbies))

    # -- captains --------------------------------------------------------------------------

    async def pick(self, guild_id: int, user_id: int, lobby_id: int, picked_id: int) -> LobbyUpdate:
        """The captain whose turn it is picks a player."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            _must_be_open(lobby, "picking")
            team = picking_team(lobby.players, lobby.teams, lobby.pick_order)
            assert team is not None
            captain = next(p for p in lobby.players if p.captain and p.team == team)
            if captain.user_id != user_id:
                raise UserError(
                    N_("it is {captain}'s turn to pick (captain of team {team})"),
                    captain=f"<@{captain.user_id}>",
                    team=team_letter(team),
                )
            chosen = _player_of(lobby, picked_id)
            if chosen.team is not None:
                raise UserError(
                    N_("{member} is in team {team} already"),
                    member=f"<@{picked_id}>",
                    team=team_letter(chosen.team),
                )
            stored = await self._picked(tx, lobby, picked_id)
            self._lobby_moved(unit, lobby, stored)
            self._changed(unit, guild_id, user_id)
        return LobbyUpdate(stored)

    async def _picked(self, tx: WriteTransaction, lobby: Lobby, picked_id: int | None) -> Lobby:
        players = pick(lobby.players, lobby.teams, lobby.pick_order, picked_id)
        after = replace(lobby, players=tuple(players))
        if picking_team(players, lobby.teams, lobby.pick_order) is None:
            after = self._playing(after)
        else:
            after = replace(after, pick_deadline=self.context.clock() + self.pick_seconds)
        return await self._store(tx, lobby, after)

    # -- map vote and ban (SPEC 10.5) -------------------------------------------------------

    @staticmethod
    def _must_choose(lobby: Lobby, pick: str) -> None:
        _must_be_open(lobby, "playing")
        if lobby.map_pick != pick or not lobby.choosing_map:
            refusal = UserError(
                N_("lobby #{number} has no map {pick} under way"),
                number=lobby.lobby_id,
                pick=pick,
            )
            if not lobby.map:
                raise refusal
            raise UserError(N_("{refusal}: its map is {map}"), refusal=refusal, map=lobby.map)

    async def vote_map(
        self, guild_id: int, user_id: int, lobby_id: int, choice: int
    ) -> LobbyUpdate:
        """A player votes for the candidate map `choice` (or changes their vote); once every
        player has voted, the most votes win."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            self._must_choose(lobby, "vote")
            player = _player_of(lobby, user_id)
            if not 0 <= choice < len(lobby.map_candidates):
                raise UserError(N_("that map is not on lobby #{number}'s ballot"), number=lobby_id)
            voted = lobby.map_candidates[choice]
            if player.vote == voted:
                return LobbyUpdate(lobby, already=True)
            players = tuple(replace(p, vote=voted) if p is player else p for p in lobby.players)
            after = replace(lobby, players=players)
            if all(p.vote is not None for p in players):
                after = self._vote_closed(after)
            stored = await self._store(tx, lobby, after)
            self._changed(unit, guild_id, user_id)
        return LobbyUpdate(stored)

    def _vote_closed(self, lobby: Lobby) -> Lobby:
        chosen = vote_winner(lobby.map_candidates, lobby.players, self.rng)
        return replace(lobby, map=chosen, map_deadline=None)

    async def ban_map(self, guild_id: int, user_id: int, lobby_id: int, banned: str) -> LobbyUpdate:
        """The captain whose turn it is bans one of the maps left."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            self._must_choose(lobby, "ban")
            captain = banning_captain(lobby.players, len(lobby.map_banned))
            if captain.user_id != user_id:
                raise UserError(
                    N_("it is {captain}'s turn to ban a map (team {team})"),
                    captain=f"<@{captain.user_id}>",
                    team=team_letter(len(lobby.map_banned) % 2),
                )
            if banned not in lobby.map_candidates:
                raise UserError(N_("{map} is not among the maps left"), map=quoted(banned))
            stored = await self._store(tx, lobby, self._banned(lobby, banned))
            self._changed(unit, guild_id, user_id)
        return LobbyUpdate(stored)

    def _banned(self, lobby: Lobby, banned: str) -> Lobby:
        """The lobby after a ban: the last map left is chosen, else the other team's turn."""
        left = tuple(m for m in lobby.map_candidates if m != banned)
        after = replace(lobby, map_candidates=left, map_banned=(*lobby.map_banned, banned))
        if len(left) == 1:
            return replace(after, map=left[0], map_deadline=None)
        return replace(after, map_deadline=self.context.clock() + self.map_seconds)

    # -- moderators ------------------------------------------------------------------------

    async def substitute(
        self, guild_id: int, actor: Actor, lobby_id: int, out_id: int, member: MemberInfo
    ) -> LobbyUpdate:
        """Swap a player of an open lobby for another member (before its result)."""
        must_moderate(actor, N_("substitute players"))
        if member.is_bot:
            raise UserError(
                N_("{member} is a bot; bots cannot play in ladder matches"),
                member=f"<@{member.user_id}>",
            )
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await self._settings(tx, guild_id)
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            _must_be_open(lobby, "ready", "picking", "playing")
            out = _player_of(lobby, out_id)
            if lobby.player(member.user_id) is not None:
                raise UserError(
                    N_("{member} plays in lobby #{number} already"),
                    member=f"<@{member.user_id}>",
                    number=lobby_id,
                )
            stored = (await tx.upsert_members(guild_id, [member]))[0]
            if not stored.enabled:
                raise UserError(
                    N_("{member} left the ladder and cannot play"), member=f"<@{member.user_id}>"
                )
            other = await tx.open_lobby_of(guild_id, member.user_id)
            if other is not None:
                raise UserError(
                    N_("{member} plays in lobby #{number}"),
                    member=f"<@{member.user_id}>",
                    number=other,
                )
            await tx.remove_waiting(guild_id, [member.user_id])
            rating = (await self._players(tx, guild_id, settings, [member.user_id]))[0].rating
            incoming = replace(out, user_id=member.user_id, rating=rating, ready=True)
            await tx.swap_player(guild_id, lobby_id, out_id, incoming)
            after = await self._open_lobby(tx, guild_id, lobby_id)
            if after.state == "ready" and all(p.ready for p in after.players):
                after = await self._store(
                    tx, after, await self._teams_made(replace(after, ready_deadline=None))
                )
            if after.state == "playing":  # the teams changed, or were just made
                unit.events.append(PendingEvent("lobby.teams", lobby_id=lobby_id))
            self._changed(
                unit, guild_id, actor.user_id,
                f"lobby #{lobby_id}: <@{member.user_id}> in for <@{out_id}>",
            )  # fmt: skip
        return LobbyUpdate(after)

    async def cancel(self, guild_id: int, actor: Actor, lobby_id: int) -> LobbyUpdate:
        """A moderator cancels an open lobby; nobody is put back in a queue."""
        must_moderate(actor, N_("cancel lobbies"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            _must_be_open(lobby, "ready", "picking", "playing")
            stored = await self._store(
                tx,
                lobby,
                replace(lobby, state="cancelled", closed_at=self.context.clock(),
                        notice=Notice(N_("cancelled by a moderator")).stored()),
            )  # fmt: skip
            self._lobby_moved(unit, lobby, stored)
            self._changed(unit, guild_id, actor.user_id, f"lobby #{lobby_id} cancelled")
        return LobbyUpdate(stored)

    # -- the result ------------------------------------------------------------------------

    async def result(
        self,
        guild_id: int,
        actor: Actor,
        lobby_id: int,
        *,
        winner: str | None = None,
        order: Sequence[int] | None = None,
        minutes: float | None = None,
        members: Iterable[MemberInfo] = (),
    ) -> ResultOfLobby:
        """Record the lobby's match: `winner` a team letter or "draw" (teams), or `order`
        the players first to last (free-for-all). Goes through the guild's confirmation
        (SPEC 4) like any report; the lobby closes with it."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            lobby = await self._open_lobby(tx, guild_id, lobby_id)
            if lobby.match_id is not None:
                raise UserError(
                    N_("lobby #{number} already has its result: match #{match}"),
                    number=lobby_id,
                    match=lobby.match_id,
                )
            _must_be_open(lobby, "playing")
            if lobby.choosing_map:
                raise UserError(
                    N_("lobby #{number} is still choosing its map; report once it is chosen"),
                    number=lobby_id,
                )
            if not actor.is_moderator and lobby.player(actor.user_id) is None:
                raise UserError(
                    N_("only the players of lobby #{number} or a moderator can report its result"),
                    number=lobby_id,
                )
            lineup = result_lineup(lobby.players, *self._outcome(lobby, winner, order))
            report = await self.matches.report(
                guild_id,
                actor,
                lineup,
                request_id=f"lobby:{lobby_id}",
                minutes=minutes,
                members=members,
                within=unit,
            )
            await tx.update_lobby(
                guild_id,
                lobby_id,
                state="reported",
                match_id=report.match.id,
                closed_at=self.context.clock(),
            )
            unit.events.append(PendingEvent("lobby.closed", lobby_id=lobby_id))
            stored = await self._open_lobby(tx, guild_id, lobby_id)
        return ResultOfLobby(stored, report)

    @staticmethod
    def _outcome(
        lobby: Lobby, winner: str | None, order: Sequence[int] | None
    ) -> tuple[int | None, Sequence[int] | None]:
        if lobby.format == "ffa":
            if order is None:
                raise UserError(
                    N_(
                        "lobby #{number} is a free-for-all: give the order of its players, "
                        "first to last"
                    ),
                    number=lobby.lobby_id,
                )
            ids = list(order)
            expected = {p.user_id for p in lobby.players}
            if len(ids) != len(set(ids)) or set(ids) != expected:
                raise UserError(
                    N_("the order must name each of the {players} of lobby #{number} once"),
                    players=Counted("{count} player", "{count} players", len(expected)),
                    number=lobby.lobby_id,
                )
            return None, ids
        if order is not None or winner is None:
            raise UserError(
                N_("lobby #{number} has teams: give the winner or draw"), number=lobby.lobby_id
            )
        letters = TEAM_LETTERS[: lobby.teams]
        text = winner.strip().lower()
        if text == "draw":
            return None, None
        if len(text) != 1 or text not in letters:
            raise UserError(
                N_("winner {value} must be one of {choices} or draw"),
                value=quoted(winner),
                choices=", ".join(letters),
            )
        return letters.index(text), None

    # -- timed actions ---------------------------------------------------------------------

    async def next_deadline(self) -> float | None:
        return await self.context.db.read.next_deadline()

    async def run_due(self, owned: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Every timed action due now in the guilds `owned` accepts (the owner process's):
        expiries, ready deadlines, pick timeouts, lobby timeouts, and the pops of rating-range
        queues whose window widened enough. How many were done."""
        work = await self.context.db.read.due_work(self.context.clock())
        done = 0
        by_queue: dict[tuple[int, int], list[int]] = {}
        for guild_id, queue_id, user_id in work.expired:
            if owned(guild_id):
                by_queue.setdefault((guild_id, queue_id), []).append(user_id)
        for (guild_id, queue_id), user_ids in by_queue.items():
            done += await self._expire(guild_id, queue_id, user_ids)
        for guild_id, lobby_id in work.lobbies:
            if owned(guild_id):
                done += await self._lobby_due(guild_id, lobby_id)
        for guild_id, queue_id in work.ranged:
            if owned(guild_id):
                done += await self._pop_widened(guild_id, queue_id)
        for guild_id, leader_id in work.idle_parties:
            if owned(guild_id):
                done += await self._end_idle_party(guild_id, leader_id)
        return done

    async def _end_idle_party(self, guild_id: int, leader_id: int) -> int:
        """End a party an hour without a queue (looked at again under the lock)."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            party = await tx.party(guild_id, leader_id)
            now = self.context.clock()
            if party is None or party.active_at + PARTY_IDLE_SECONDS > now:
                return 0
            if any(q.place_of(leader_id) is not None for q in await tx.queues(guild_id)):
                return 0
            await tx.end_parties(guild_id, [leader_id])
            self._changed(unit, guild_id, None, f"<@{leader_id}>'s party ended: an hour idle")
        return 1

    async def _pop_widened(self, guild_id: int, queue_id: int) -> int:
        """Pop a rating-range queue if its window now holds enough members; looked at in a
        read first, so a queue that cannot pop costs no write. How many lobbies popped."""
        settings = await self.context.settings(guild_id)
        async with self.context.db.snapshot() as read:
            queue = await read.queue(guild_id, queue_id)
            if queue is None or await self._pop_choice(read, settings, queue) is None:
                return 0
        async with self.context.write(guild_id) as unit:
            settings = await self._settings(unit.tx, guild_id)
            lobbies, _ = await self._pop_full(unit.tx, guild_id, settings, queue_id, unit.events)
            if lobbies:
                self._popped(unit, lobbies)
                self._changed(unit, guild_id, None)
        return len(lobbies)

    async def _expire(self, guild_id: int, queue_id: int, user_ids: Sequence[int]) -> int:
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            queue = await tx.queue(guild_id, queue_id)
            if queue is None:
                return 0
            now = self.context.clock()
            limit = queue.settings.expire_minutes * 60.0
            due = [
                w.user_id
                for w in queue.waiting
                if w.user_id in user_ids and w.joined_at + limit <= now
            ]
            if not due:
                return 0
            await tx.remove_waiting(guild_id, due, queue_id)
            leaders = await tx.leaders_of(guild_id, due)
            await tx.touch_parties(guild_id, set(leaders.values()), now)
            self._left(unit, [queue_id], due, "expired")
            notice = Notice(
                N_("{members} left the queue after waiting {wait}"),
                members=mentions(due),
                wait=Duration(limit),
            )
            await tx.set_queue_notice(guild_id, queue_id, notice.stored())
            self._changed(unit, guild_id, None)
        return len(due)

    async def _lobby_due(self, guild_id: int, lobby_id: int) -> int:
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await self._settings(tx, guild_id)
            lobby = await tx.lobby(guild_id, lobby_id)
            now = self.context.clock()
            if lobby is None or not lobby.is_open:
                return 0
            popped: tuple[Lobby, ...] = ()
            step = _step_deadline(lobby)
            if lobby.close_deadline <= now and (step is None or lobby.close_deadline < step):
                limit = Duration(settings.lobby_hours * 3600)
                notice = Notice(N_("cancelled: no result after {wait}"), wait=limit)
                after = await self._store(
                    tx,
                    lobby,
                    replace(lobby, state="cancelled", closed_at=now, notice=notice.stored()),
                )
            elif lobby.state == "ready" and (lobby.ready_deadline or 0.0) <= now:
                no_shows = [p.user_id for p in lobby.players if not p.ready]
                update = await self._dissolve(
                    tx, settings, lobby, no_shows, Notice(N_("not everyone was ready")), unit.events
                )
                after, popped = update.lobby, update.lobbies
            elif lobby.state == "picking" and (lobby.pick_deadline or 0.0) <= now:
                after = await self._picked(tx, lobby, None)
            elif lobby.map_deadline is not None and lobby.map_deadline <= now:
                if lobby.map_pick == "vote":
                    chosen = self._vote_closed(lobby)
                else:  # the captain whose turn it was gets a random ban
                    chosen = self._banned(lobby, self.rng.choice(lobby.map_candidates))
                after = await self._store(tx, lobby, chosen)
            else:
                return 0
            self._lobby_moved(unit, lobby, after)
            self._popped(unit, popped)
            self._changed(unit, guild_id, None)
        return 1


def _step_deadline(lobby: Lobby) -> float | None:
    """The deadline of the lobby's current step (ready check, captain's pick, map vote or
    ban), if any: after downtime, one that fell due before the lobby timeout is acted on
    first (SPEC 10.4)."""
    if lobby.state == "ready":
        return lobby.ready_deadline
    if lobby.state == "picking":
        return lobby.pick_deadline
    return lobby.map_deadline
