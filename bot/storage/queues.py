"""The queues aggregate (SPEC 10): queues and their waiting members, lobbies and their
players, no-show penalties, and the timed actions that are due.

Queues and lobbies are numbered per guild, the next number taken under the guild's write
lock from the guild's counter (never reused, even after a delete). Each changed row counts
one more `version`; its Discord message shows `shown_version` (the front end marks what it
showed, so a restart knows which messages are stale).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, Final, Literal

from bot.storage.engine import Row, Session, one_state

QueueFormat = Literal["teams", "ffa"]
TeamMode = Literal["balance", "captains", "random"]
MapPick = Literal["random", "vote", "ban"]
RoomKind = Literal["none", "text", "voice"]
RoomState = Literal["open", "closed", "deleted", "failed"]
LobbyState = Literal["ready", "picking", "playing", "reported", "cancelled", "dissolved"]
OPEN_STATES: Final[tuple[LobbyState, ...]] = ("ready", "picking", "playing")
_OPEN: Final = "('ready', 'picking', 'playing')"


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """What a moderator chooses for a queue (SPEC 10.1)."""

    name: str
    channel_id: int
    size: int
    format: QueueFormat = "teams"
    teams: int = 2
    mode: TeamMode = "balance"
    ready_seconds: int = 60
    expire_minutes: int = 60
    maps: tuple[str, ...] = ()
    pick_order: str = ""
    """Letters a-d; empty: the snake of the teams (bot.services.queue_rules)."""
    rating_range: int = 0
    """Elo: pop only members this near the longest-waiting one's rating (0: any)."""
    widen: int = 0
    """Elo the range grows per minute the longest-waiting member has waited."""
    party_max: int = 1
    """The largest party that may join (1: no parties)."""
    map_pick: MapPick = "random"
    """How a lobby's map is chosen: drawn, voted by its players, or banned by two captains."""
    rooms: RoomKind = "none"
    """Each lobby gets a private text channel (text), and a voice channel per team (voice)."""
    waiting_voice: int | None = None
    """The voice channel players are moved back to when their room closes."""


_SETTING_NAMES: Final = tuple(field.name for field in fields(QueueSettings))


@dataclass(frozen=True, slots=True)
class Waiting:
    user_id: int
    joined_at: float


@dataclass(frozen=True, slots=True)
class Queue:
    guild_id: int
    queue_id: int
    settings: QueueSettings
    message_id: int | None
    previous_map: str | None
    """The map of the queue's last lobby (never drawn twice in a row)."""
    notice: str | None
    """The last thing that happened to it that its message tells (an expiry)."""
    version: int
    shown_version: int
    waiting: tuple[Waiting, ...]
    """In queue order: the first `size` pop."""

    @property
    def name(self) -> str:
        return self.settings.name

    def place_of(self, user_id: int) -> int | None:
        """1 for the first in line; None if not waiting."""
        for place, waiting in enumerate(self.waiting, 1):
            if waiting.user_id == user_id:
                return place
        return None


@dataclass(frozen=True, slots=True)
class Party:
    """Members who queue together (SPEC 10.5), named by their leader."""

    guild_id: int
    leader_id: int
    members: tuple[int, ...]
    """The leader first, then in the order they accepted."""
    invited: tuple[int, ...]
    """Members with an invitation not yet answered."""
    active_at: float
    """When it last changed or left a queue; an hour later without a queue it ends."""


PARTY_IDLE_SECONDS: Final = 3600.0
"""A party without a queue this long ends; an invitation this old has expired."""


@dataclass(frozen=True, slots=True)
class Room:
    """A lobby's match room (SPEC 10.5): its channels in Discord and who may see them."""

    guild_id: int
    lobby_id: int
    state: RoomState
    text_id: int | None
    voice_ids: tuple[int, ...]
    """Team A's voice channel first."""
    members: tuple[int, ...]
    """The players who were given access (a substitute changes them)."""
    message_id: int | None
    delete_at: float | None


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(",")) if text else ()


def _room(row: Row) -> Room:
    return Room(
        row["guild_id"], row["lobby_id"], row["state"], row["text_id"], _ids(row["voice_ids"]),
        _ids(row["members"]), row["message_id"], row["delete_at"],
    )  # fmt: skip


_ROOM_COLUMNS: Final = (
    "guild_id, lobby_id, state, text_id, voice_ids, members, message_id, delete_at"
)


@dataclass(frozen=True, slots=True)
class LobbyPlayer:
    user_id: int
    position: int
    """Order in the queue when it popped (0: the first)."""
    rating: float
    """Ladder rating in Elo units when it popped (SPEC 3.1)."""
    ready: bool = False
    team: int | None = None
    """0 for team A, 1 for B, …; in a free-for-all each player's own position."""
    captain: bool = False
    pick: int | None = None
    """The turn at which a captain picked this player (0 first)."""
    party: int | None = None
    """The leader of the party the player queued with (SPEC 10.5); None: alone."""
    vote: str | None = None
    """The map the player votes for (map_pick vote)."""


@dataclass(frozen=True, slots=True)
class Lobby:
    guild_id: int
    lobby_id: int
    queue_id: int
    queue_name: str
    channel_id: int
    message_id: int | None
    state: LobbyState
    format: QueueFormat
    teams: int
    mode: TeamMode
    pick_order: str
    created_at: float
    ready_deadline: float | None
    pick_deadline: float | None
    close_deadline: float
    map: str | None
    seed: int | None
    """The random split's seed (mode random), shown on the lobby."""
    match_id: int | None
    closed_at: float | None
    notice: str | None
    version: int
    shown_version: int
    players: tuple[LobbyPlayer, ...]
    """In queue order (position)."""
    map_pick: MapPick = "random"
    map_candidates: tuple[str, ...] = ()
    """The maps still in the running of a vote or ban."""
    map_banned: tuple[str, ...] = ()
    """The maps banned so far, in order (team A's first)."""
    map_deadline: float | None = None
    """When the vote closes, or the ban whose turn it is is made for its captain."""
    rooms: RoomKind = "none"
    waiting_voice: int | None = None

    @property
    def choosing_map(self) -> bool:
        return self.map_deadline is not None

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    def player(self, user_id: int) -> LobbyPlayer | None:
        return next((p for p in self.players if p.user_id == user_id), None)


LOBBY_COLUMNS: Final = frozenset(
    {"message_id", "state", "ready_deadline", "pick_deadline", "map", "seed", "match_id",
     "closed_at", "notice", "map_candidates", "map_banned", "map_deadline"}
)  # fmt: skip
"""The columns of a lobby that change after its pop (`update_lobby`)."""
_QUEUE_COLUMNS: Final = (
    "guild_id, queue_id, name, channel_id, message_id, size, format, teams, mode, "
    "ready_seconds, expire_minutes, maps, pick_order, rating_range, widen, party_max, "
    "map_pick, rooms, waiting_voice, previous_map, notice, version, shown_version"
)
_LOBBY_COLUMNS: Final = (
    "guild_id, lobby_id, queue_id, queue_name, channel_id, message_id, state, format, teams, "
    "mode, pick_order, created_at, ready_deadline, pick_deadline, close_deadline, map, seed, "
    "match_id, closed_at, notice, version, shown_version, map_pick, map_candidates, map_banned, "
    "map_deadline, rooms, waiting_voice"
)
_LOBBY_NAMES: Final = tuple(name.strip() for name in _LOBBY_COLUMNS.split(","))
_PLAYER_COLUMNS: Final = "user_id, position, rating, ready, team, captain, pick, party, vote"
MAP_SEPARATOR: Final = ","
_INSERT_PLAYER: Final = (
    f"INSERT INTO lobby_players (guild_id, lobby_id, {_PLAYER_COLUMNS}, open) "
    "VALUES (:guild_id, :lobby_id, :user_id, :position, :rating, :ready, :team, "
    ":captain, :pick, :party, :vote, :open)"
)


def _queue(row: Row, waiting: Sequence[Waiting]) -> Queue:
    settings = QueueSettings(
        **{name: row[name] for name in _SETTING_NAMES if name != "maps"},
        maps=split_maps(row["maps"]),
    )
    return Queue(
        row["guild_id"],
        row["queue_id"],
        settings,
        row["message_id"],
        row["previous_map"],
        row["notice"],
        row["version"],
        row["shown_version"],
        tuple(waiting),
    )


def _player(row: Row) -> LobbyPlayer:
    return LobbyPlayer(
        row["user_id"],
        row["position"],
        row["rating"],
        bool(row["ready"]),
        row["team"],
        bool(row["captain"]),
        row["pick"],
        row["party"],
        row["vote"],
    )


_MAP_LISTS: Final = ("map_candidates", "map_banned")


def split_maps(text: str) -> tuple[str, ...]:
    return tuple(text.split(MAP_SEPARATOR)) if text else ()


def _lobby(row: Row, players: Sequence[LobbyPlayer]) -> Lobby:
    values = {name: row[name] for name in _LOBBY_NAMES}
    values.update({name: split_maps(row[name]) for name in _MAP_LISTS})
    return Lobby(**values, players=tuple(players))


def _lobby_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """A lobby's values as stored (lists of maps joined)."""
    return {
        name: MAP_SEPARATOR.join(value) if name in _MAP_LISTS else value
        for name, value in values.items()
    }


def _settings_row(settings: QueueSettings) -> dict[str, Any]:
    return {**asdict(settings), "maps": MAP_SEPARATOR.join(settings.maps)}


@dataclass(frozen=True, slots=True)
class DueWork:
    """The timed actions due at a time, across guilds (SPEC 10.4)."""

    expired: tuple[tuple[int, int, int], ...]
    """(guild, queue, member) of every member who has waited the queue's expire_minutes."""
    lobbies: tuple[tuple[int, int], ...]
    """(guild, lobby) of every open lobby with a passed ready, pick or close deadline."""
    ranged: tuple[tuple[int, int], ...]
    """(guild, queue) of every queue with a rating range that holds its size: its window
    may have widened enough to pop (SPEC 10.5)."""
    idle_parties: tuple[tuple[int, int], ...] = ()
    """(guild, leader) of every party an hour without a queue."""


class QueueReads:
    _session: Session

    @one_state
    async def queues(self, guild_id: int) -> list[Queue]:
        """The guild's queues by number, each with its waiting members in order."""
        rows = await self._session.all(
            f"SELECT {_QUEUE_COLUMNS} FROM queues WHERE guild_id = :guild_id ORDER BY queue_id",
            {"guild_id": guild_id},
        )
        waiting = await self._waiting(guild_id, None)
        return [_queue(row, waiting.get(row["queue_id"], ())) for row in rows]

    @one_state
    async def queue(self, guild_id: int, queue_id: int) -> Queue | None:
        row = await self._session.one(
            f"SELECT {_QUEUE_COLUMNS} FROM queues "
            "WHERE guild_id = :guild_id AND queue_id = :queue_id",
            {"guild_id": guild_id, "queue_id": queue_id},
        )
        if row is None:
            return None
        waiting = await self._waiting(guild_id, queue_id)
        return _queue(row, waiting.get(queue_id, ()))

    async def _waiting(self, guild_id: int, queue_id: int | None) -> dict[int, list[Waiting]]:
        one_queue = "" if queue_id is None else "AND queue_id = :queue_id "
        rows = await self._session.all(
            "SELECT queue_id, user_id, joined_at FROM queue_members WHERE guild_id = :guild_id "
            f"{one_queue}ORDER BY queue_id, place",
            {"guild_id": guild_id, **({} if queue_id is None else {"queue_id": queue_id})},
        )
        found: dict[int, list[Waiting]] = {}
        for row in rows:
            found.setdefault(row["queue_id"], []).append(Waiting(row["user_id"], row["joined_at"]))
        return found

    async def lobby(self, guild_id: int, lobby_id: int) -> Lobby | None:
        lobbies = await self._lobbies(guild_id, "lobby_id = :lobby_id", {"lobby_id": lobby_id})
        return lobbies[0] if lobbies else None

    async def open_lobbies(self, guild_id: int) -> list[Lobby]:
        return await self._lobbies(guild_id, f"state IN {_OPEN}", {})

    @one_state
    async def _lobbies(
        self, guild_id: int, where: str, parameters: Mapping[str, Any]
    ) -> list[Lobby]:
        rows = await self._session.all(
            f"SELECT {_LOBBY_COLUMNS} FROM lobbies WHERE guild_id = :guild_id AND {where} "
            "ORDER BY lobby_id",
            {"guild_id": guild_id, **parameters},
        )
        if not rows:
            return []
        dialect = self._session.dialect
        players = await self._session.all(
            f"SELECT lobby_id, {_PLAYER_COLUMNS} FROM lobby_players WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('lobby_id', ':lobby_ids', 'bigint')} "
            "ORDER BY lobby_id, position",
            {"guild_id": guild_id, "lobby_ids": dialect.encode_list(r["lobby_id"] for r in rows)},
        )
        by_lobby: dict[int, list[LobbyPlayer]] = {}
        for player in players:
            by_lobby.setdefault(player["lobby_id"], []).append(_player(player))
        return [_lobby(row, by_lobby.get(row["lobby_id"], ())) for row in rows]

    async def open_lobby_of(self, guild_id: int, user_id: int) -> int | None:
        """The open lobby the member plays in, if any."""
        row = await self._session.one(
            "SELECT lobby_id FROM lobby_players WHERE guild_id = :guild_id "
            "AND user_id = :user_id AND open = :open",
            {"guild_id": guild_id, "user_id": user_id, "open": True},
        )
        return None if row is None else int(row["lobby_id"])

    async def penalty_until(self, guild_id: int, user_id: int, now: float) -> float | None:
        """When the member's no-show penalty ends, if it has not yet."""
        row = await self._session.one(
            "SELECT until FROM queue_penalties WHERE guild_id = :guild_id "
            "AND user_id = :user_id AND until > :now",
            {"guild_id": guild_id, "user_id": user_id, "now": now},
        )
        return None if row is None else float(row["until"])

    @one_state
    async def due_work(self, now: float) -> DueWork:
        """Every timed action due at `now`, in every guild."""
        expired = await self._session.all(
            "SELECT w.guild_id, w.queue_id, w.user_id FROM queue_members w "
            "JOIN queues q ON q.guild_id = w.guild_id AND q.queue_id = w.queue_id "
            "WHERE w.joined_at + q.expire_minutes * 60 <= :now "
            "ORDER BY w.guild_id, w.queue_id, w.place",
            {"now": now},
        )
        lobbies = await self._session.all(
            f"SELECT guild_id, lobby_id FROM lobbies WHERE state IN {_OPEN} "
            "AND (close_deadline <= :now OR (state = 'ready' AND ready_deadline <= :now) "
            "OR (state = 'picking' AND pick_deadline <= :now) OR map_deadline <= :now) "
            "ORDER BY guild_id, lobby_id",
            {"now": now},
        )
        ranged = await self._session.all(
            "SELECT q.guild_id, q.queue_id FROM queues q WHERE q.rating_range > 0 AND q.size <= "
            "(SELECT count(*) FROM queue_members w WHERE w.guild_id = q.guild_id "
            "AND w.queue_id = q.queue_id) ORDER BY q.guild_id, q.queue_id"
        )
        idle = await self._session.all(
            "SELECT p.guild_id, p.leader_id FROM parties p WHERE p.active_at <= :cutoff "
            "AND NOT EXISTS (SELECT 1 FROM queue_members w WHERE w.guild_id = p.guild_id "
            "AND w.user_id = p.leader_id) ORDER BY p.guild_id, p.leader_id",
            {"cutoff": now - PARTY_IDLE_SECONDS},
        )
        return DueWork(
            tuple((r["guild_id"], r["queue_id"], r["user_id"]) for r in expired),
            tuple((r["guild_id"], r["lobby_id"]) for r in lobbies),
            tuple((r["guild_id"], r["queue_id"]) for r in ranged),
            tuple((r["guild_id"], r["leader_id"]) for r in idle),
        )

    async def party_of(self, guild_id: int, user_id: int) -> Party | None:
        """The party the member is in, if any."""
        row = await self._session.one(
            "SELECT leader_id FROM party_members WHERE guild_id = :guild_id AND user_id = :user_id",
            {"guild_id": guild_id, "user_id": user_id},
        )
        return None if row is None else await self.party(guild_id, int(row["leader_id"]))

    @one_state
    async def party(self, guild_id: int, leader_id: int) -> Party | None:
        keys = {"guild_id": guild_id, "leader_id": leader_id}
        row = await self._session.one(
            "SELECT active_at FROM parties WHERE guild_id = :guild_id AND leader_id = :leader_id",
            keys,
        )
        if row is None:
            return None
        members = await self._session.all(
            "SELECT user_id FROM party_members WHERE guild_id = :guild_id "
            "AND leader_id = :leader_id ORDER BY user_id <> :leader_id, joined_at, user_id",
            keys,
        )
        invited = await self._session.all(
            "SELECT user_id FROM party_invites WHERE guild_id = :guild_id "
            "AND leader_id = :leader_id ORDER BY created_at, user_id",
            keys,
        )
        return Party(
            guild_id,
            leader_id,
            tuple(int(r["user_id"]) for r in members),
            tuple(int(r["user_id"]) for r in invited),
            float(row["active_at"]),
        )

    async def leaders_of(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, int]:
        """The party leader of each of the members who is in a party."""
        dialect = self._session.dialect
        rows = await self._session.all(
            "SELECT user_id, leader_id FROM party_members WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('user_id', ':user_ids', 'bigint')}",
            {"guild_id": guild_id, "user_ids": dialect.encode_list(user_ids)},
        )
        return {int(r["user_id"]): int(r["leader_id"]) for r in rows}

    async def invited_at(self, guild_id: int, leader_id: int, user_id: int) -> float | None:
        row = await self._session.one(
            "SELECT created_at FROM party_invites WHERE guild_id = :guild_id "
            "AND leader_id = :leader_id AND user_id = :user_id",
            {"guild_id": guild_id, "leader_id": leader_id, "user_id": user_id},
        )
        return None if row is None else float(row["created_at"])

    async def rooms(self, guild_id: int, states: Sequence[RoomState]) -> list[Room]:
        """The guild's rooms in these states, by lobby."""
        dialect = self._session.dialect
        rows = await self._session.all(
            f"SELECT {_ROOM_COLUMNS} FROM lobby_rooms WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('state', ':states', 'text')} ORDER BY lobby_id",
            {"guild_id": guild_id, "states": dialect.encode_list(states)},
        )
        return [_room(row) for row in rows]

    async def room(self, guild_id: int, lobby_id: int) -> Room | None:
        row = await self._session.one(
            f"SELECT {_ROOM_COLUMNS} FROM lobby_rooms WHERE guild_id = :guild_id "
            "AND lobby_id = :lobby_id",
            {"guild_id": guild_id, "lobby_id": lobby_id},
        )
        return None if row is None else _room(row)

    async def guilds_with_rooms(self) -> list[int]:
        """Guilds with a room not deleted yet."""
        rows = await self._session.all(
            "SELECT DISTINCT guild_id FROM lobby_rooms WHERE state IN ('open', 'closed') "
            "ORDER BY guild_id"
        )
        return [int(row["guild_id"]) for row in rows]

    async def next_deadline(self) -> float | None:
        """The earliest time a timed action falls due (None: nothing waits)."""
        row = await self._session.one(
            "SELECT min(at) AS at FROM ("
            "SELECT min(w.joined_at + q.expire_minutes * 60) AS at FROM queue_members w "
            "JOIN queues q ON q.guild_id = w.guild_id AND q.queue_id = w.queue_id "
            f"UNION ALL SELECT min(close_deadline) FROM lobbies WHERE state IN {_OPEN} "
            "UNION ALL SELECT min(ready_deadline) FROM lobbies WHERE state = 'ready' "
            "UNION ALL SELECT min(pick_deadline) FROM lobbies WHERE state = 'picking' "
            f"UNION ALL SELECT min(map_deadline) FROM lobbies WHERE state IN {_OPEN}"
            ") AS deadlines"
        )
        return None if row is None or row["at"] is None else float(row["at"])

    async def unshown_queues(self, guild_id: int) -> list[Queue]:
        """Queues whose message is older than their last change."""
        return [q for q in await self.queues(guild_id) if q.version > q.shown_version]

    async def unshown_lobbies(self, guild_id: int) -> list[Lobby]:
        return await self._lobbies(guild_id, "version > shown_version", {})

    async def guilds_with_queues(self) -> list[int]:
        rows = await self._session.all(
            "SELECT guild_id FROM queues UNION SELECT guild_id FROM lobbies ORDER BY guild_id"
        )
        return [int(row["guild_id"]) for row in rows]


class QueueWrites(QueueReads):
    async def put_room(self, room: Room) -> None:
        """Store a lobby's room as it is now (made, synced, closed, deleted or failed)."""
        values = {
            **asdict(room),
            "voice_ids": ",".join(map(str, room.voice_ids)),
            "members": ",".join(map(str, room.members)),
        }
        names = _ROOM_COLUMNS.split(", ")
        updates = ", ".join(f"{name} = excluded.{name}" for name in names[2:])
        await self._session.run(
            f"INSERT INTO lobby_rooms ({_ROOM_COLUMNS}) "
            f"VALUES ({', '.join(f':{name}' for name in names)}) "
            f"ON CONFLICT (guild_id, lobby_id) DO UPDATE SET {updates}",
            values,
        )

    async def add_invite(self, guild_id: int, leader_id: int, user_id: int, now: float) -> None:
        await self._session.run(
            "INSERT INTO party_invites (guild_id, leader_id, user_id, created_at) "
            "VALUES (:guild_id, :leader_id, :user_id, :now) "
            "ON CONFLICT (guild_id, leader_id, user_id) "
            "DO UPDATE SET created_at = excluded.created_at",
            {"guild_id": guild_id, "leader_id": leader_id, "user_id": user_id, "now": now},
        )

    async def drop_invite(self, guild_id: int, leader_id: int, user_id: int) -> None:
        await self._session.run(
            "DELETE FROM party_invites WHERE guild_id = :guild_id AND leader_id = :leader_id "
            "AND user_id = :user_id",
            {"guild_id": guild_id, "leader_id": leader_id, "user_id": user_id},
        )

    async def add_party_member(
        self, guild_id: int, leader_id: int, user_id: int, now: float
    ) -> None:
        """Put the member in the leader's party (made, with the leader, if new)."""
        keys = {"guild_id": guild_id, "leader_id": leader_id, "now": now}
        await self._session.run(
            "INSERT INTO parties (guild_id, leader_id, active_at) "
            "VALUES (:guild_id, :leader_id, :now) "
            "ON CONFLICT (guild_id, leader_id) DO UPDATE SET active_at = excluded.active_at",
            keys,
        )
        await self._session.run_many(
            "INSERT INTO party_members (guild_id, user_id, leader_id, joined_at) "
            "VALUES (:guild_id, :user_id, :leader_id, :now) ON CONFLICT DO NOTHING",
            [{**keys, "user_id": leader_id}, {**keys, "user_id": user_id}],
        )
        await self.drop_invite(guild_id, leader_id, user_id)

    async def remove_party_member(self, guild_id: int, user_id: int) -> None:
        await self._session.run(
            "DELETE FROM party_members WHERE guild_id = :guild_id AND user_id = :user_id",
            {"guild_id": guild_id, "user_id": user_id},
        )

    async def touch_parties(self, guild_id: int, leader_ids: Iterable[int], now: float) -> None:
        """The parties changed or left a queue now: an hour from now they may end."""
        dialect = self._session.dialect
        await self._session.run(
            "UPDATE parties SET active_at = :now WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('leader_id', ':leader_ids', 'bigint')}",
            {"now": now, "guild_id": guild_id, "leader_ids": dialect.encode_list(leader_ids)},
        )

    async def end_parties(self, guild_id: int, leader_ids: Iterable[int]) -> None:
        """The parties end: their members, invitations and rows go."""
        dialect = self._session.dialect
        leaders = list(leader_ids)
        for table in ("party_members", "party_invites", "parties"):
            await self._session.run(
                f"DELETE FROM {table} WHERE guild_id = :guild_id "
                f"AND {dialect.in_list('leader_id', ':leader_ids', 'bigint')}",
                {"guild_id": guild_id, "leader_ids": dialect.encode_list(leaders)},
            )

    async def _next_number(self, counter: Literal["last_queue_id", "last_lobby_id"],
                           guild_id: int) -> int:  # fmt: skip
        """The guild's next queue or lobby number: never one it gave before, even to a
        deleted queue (SPEC 10.1); taken under the guild's write lock."""
        (row,) = await self._session.all(
            f"UPDATE guilds SET {counter} = {counter} + 1 WHERE guild_id = :guild_id "
            f"RETURNING {counter} AS number",
            {"guild_id": guild_id},
        )
        return int(row["number"])

    async def add_queue(self, guild_id: int, settings: QueueSettings) -> int:
        queue_id = await self._next_number("last_queue_id", guild_id)
        values = _settings_row(settings)
        await self._session.run(
            f"INSERT INTO queues (guild_id, queue_id, {', '.join(values)}) "
            f"VALUES (:guild_id, :queue_id, {', '.join(f':{name}' for name in values)})",
            {"guild_id": guild_id, "queue_id": queue_id, **values},
        )
        return queue_id

    async def set_queue_settings(
        self, guild_id: int, queue_id: int, settings: QueueSettings
    ) -> None:
        values = _settings_row(settings)
        await self._update("queues", "queue_id", guild_id, queue_id, values)

    async def set_queue_message(self, guild_id: int, queue_id: int, message_id: int | None) -> None:
        """The queue's message (None: to be posted anew); its version stays."""
        await self._session.run(
            "UPDATE queues SET message_id = :message_id WHERE guild_id = :guild_id "
            "AND queue_id = :queue_id",
            {"message_id": message_id, "guild_id": guild_id, "queue_id": queue_id},
        )

    async def set_queue_notice(
        self, guild_id: int, queue_id: int, notice: str | None, previous_map: str | None = None
    ) -> None:
        values: dict[str, Any] = {"notice": notice}
        if previous_map is not None:
            values["previous_map"] = previous_map
        await self._update("queues", "queue_id", guild_id, queue_id, values)

    async def delete_queue(self, guild_id: int, queue_id: int) -> None:
        parameters = {"guild_id": guild_id, "queue_id": queue_id}
        for table in ("queue_members", "queues"):
            await self._session.run(
                f"DELETE FROM {table} WHERE guild_id = :guild_id AND queue_id = :queue_id",
                parameters,
            )

    async def touch_queues(self, guild_id: int, queue_ids: Iterable[int]) -> None:
        """Their waiting members changed: their messages need an edit."""
        dialect = self._session.dialect
        await self._session.run(
            "UPDATE queues SET version = version + 1 WHERE guild_id = :guild_id "
            f"AND {dialect.in_list('queue_id', ':queue_ids', 'bigint')}",
            {"guild_id": guild_id, "queue_ids": dialect.encode_list(queue_ids)},
        )

    async def touch_queue_messages(self, guild_id: int) -> None:
        """Every queue's message and every open lobby's needs a redraw (a new language)."""
        for table in ("queues", "lobbies"):
            open_only = " AND closed_at IS NULL" if table == "lobbies" else ""
            await self._session.run(
                f"UPDATE {table} SET version = version + 1 WHERE guild_id = :guild_id{open_only}",
                {"guild_id": guild_id},
            )

    async def add_waiting(
        self, guild_id: int, queue_id: int, members: Sequence[int], joined_at: float, front: bool
    ) -> None:
        """Put members in line in the given order: at the back, or (`front`) before
        everyone waiting."""
        row = await self._session.one(
            "SELECT coalesce(min(place), 0) AS first, coalesce(max(place), 0) AS last "
            "FROM queue_members WHERE guild_id = :guild_id AND queue_id = :queue_id",
            {"guild_id": guild_id, "queue_id": queue_id},
        )
        assert row is not None
        start = row["first"] - len(members) if front else row["last"] + 1
        await self._session.run_many(
            "INSERT INTO queue_members (guild_id, queue_id, user_id, place, joined_at) "
            "VALUES (:guild_id, :queue_id, :user_id, :place, :joined_at)",
            [
                {
                    "guild_id": guild_id,
                    "queue_id": queue_id,
                    "user_id": user_id,
                    "place": start + offset,
                    "joined_at": joined_at,
                }
                for offset, user_id in enumerate(members)
            ],
        )
        await self.touch_queues(guild_id, [queue_id])

    async def remove_waiting(
        self, guild_id: int, user_ids: Iterable[int], queue_id: int | None = None
    ) -> list[int]:
        """Take members out of one queue (or, queue None, every queue of the guild); the
        queues they left, whose messages need an edit."""
        dialect = self._session.dialect
        one_queue = "" if queue_id is None else "AND queue_id = :queue_id "
        rows = await self._session.all(
            f"DELETE FROM queue_members WHERE guild_id = :guild_id {one_queue}"
            f"AND {dialect.in_list('user_id', ':user_ids', 'bigint')} RETURNING queue_id",
            {
                "guild_id": guild_id,
                "user_ids": dialect.encode_list(user_ids),
                **({} if queue_id is None else {"queue_id": queue_id}),
            },
        )
        left = sorted({int(row["queue_id"]) for row in rows})
        if left:
            await self.touch_queues(guild_id, left)
        return left

    async def add_lobby(self, lobby: Lobby) -> int:
        """Store a lobby just popped (its number is taken here) with its players, who are in
        it while it is open."""
        lobby_id = await self._next_number("last_lobby_id", lobby.guild_id)
        values = _lobby_values({name: getattr(lobby, name) for name in _LOBBY_NAMES})
        values.update(lobby_id=lobby_id, version=1, shown_version=0)
        await self._session.run(
            f"INSERT INTO lobbies ({_LOBBY_COLUMNS}) "
            f"VALUES ({', '.join(f':{name}' for name in values)})",
            values,
        )
        await self._session.run_many(
            _INSERT_PLAYER,
            [
                {"guild_id": lobby.guild_id, "lobby_id": lobby_id, "open": True, **asdict(p)}
                for p in lobby.players
            ],
        )
        return lobby_id

    async def update_lobby(self, guild_id: int, lobby_id: int, **values: Any) -> None:
        """Change some of LOBBY_COLUMNS; leaving the open states frees its players."""
        unknown = values.keys() - LOBBY_COLUMNS
        assert not unknown, unknown
        await self._update("lobbies", "lobby_id", guild_id, lobby_id, _lobby_values(values))
        if "state" in values and values["state"] not in OPEN_STATES:
            await self._session.run(
                "UPDATE lobby_players SET open = :closed WHERE guild_id = :guild_id "
                "AND lobby_id = :lobby_id",
                {"closed": False, "guild_id": guild_id, "lobby_id": lobby_id},
            )

    async def set_players(
        self, guild_id: int, lobby_id: int, players: Iterable[LobbyPlayer]
    ) -> None:
        """Store the ready flags, teams, captains and picks of players of an open lobby."""
        await self._session.run_many(
            "UPDATE lobby_players SET ready = :ready, team = :team, captain = :captain, "
            "pick = :pick, vote = :vote WHERE guild_id = :guild_id AND lobby_id = :lobby_id "
            "AND user_id = :user_id",
            [
                {
                    "guild_id": guild_id,
                    "lobby_id": lobby_id,
                    "user_id": p.user_id,
                    "ready": p.ready,
                    "team": p.team,
                    "captain": p.captain,
                    "pick": p.pick,
                    "vote": p.vote,
                }
                for p in players
            ],
        )
        await self._update("lobbies", "lobby_id", guild_id, lobby_id, {})

    async def swap_player(
        self, guild_id: int, lobby_id: int, out_id: int, player: LobbyPlayer
    ) -> None:
        """Put `player` in the place of member `out_id` in an open lobby."""
        await self._session.run(
            "DELETE FROM lobby_players WHERE guild_id = :guild_id AND lobby_id = :lobby_id "
            "AND user_id = :user_id",
            {"guild_id": guild_id, "lobby_id": lobby_id, "user_id": out_id},
        )
        await self._session.run(
            _INSERT_PLAYER,
            {"guild_id": guild_id, "lobby_id": lobby_id, "open": True, **asdict(player)},
        )
        await self._update("lobbies", "lobby_id", guild_id, lobby_id, {})

    async def penalize(self, guild_id: int, user_ids: Iterable[int], until: float) -> None:
        await self._session.run_many(
            "INSERT INTO queue_penalties (guild_id, user_id, until) "
            "VALUES (:guild_id, :user_id, :until) "
            "ON CONFLICT (guild_id, user_id) DO UPDATE SET until = excluded.until",
            [{"guild_id": guild_id, "user_id": user_id, "until": until} for user_id in user_ids],
        )

    async def mark_shown(
        self,
        guild_id: int,
        kind: Literal["queue", "lobby"],
        number: int,
        version: int,
        message_id: int | None,
    ) -> None:
        """The front end showed this version of a queue or lobby in its message."""
        table, key = ("queues", "queue_id") if kind == "queue" else ("lobbies", "lobby_id")
        await self._session.run(
            f"UPDATE {table} SET shown_version = :version, "
            "message_id = coalesce(:message_id, message_id) "
            f"WHERE guild_id = :guild_id AND {key} = :number",
            {"version": version, "message_id": message_id, "guild_id": guild_id, "number": number},
        )

    async def _update(
        self, table: str, key: str, guild_id: int, number: int, values: Mapping[str, Any]
    ) -> None:
        assignments = "".join(f"{name} = :{name}, " for name in values)
        await self._session.run(
            f"UPDATE {table} SET {assignments}version = version + 1 "
            f"WHERE guild_id = :guild_id AND {key} = :number",
            {**values, "guild_id": guild_id, "number": number},
        )
