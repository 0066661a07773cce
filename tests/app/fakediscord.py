"""A fake Discord (REST + gateway) on 127.0.0.1 for driving the real bot process in tests.

It runs its own event loop in a thread, so tests are plain synchronous functions. It records
every request the bot makes as an `Event`; tests inject INTERACTION_CREATE payloads (slash
commands and button clicks) and wait, with a timeout, for what the bot answered.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import itertools
import json
import keyword
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from aiohttp import BodyPartReader, WSMsgType, web

from tests.app.discord_rules import (
    DEFAULT_ATTACHMENT_SIZE_LIMIT,
    JsonDict,
    Problem,
    autocomplete_problems,
    commands_problems,
    invalid_form_body,
    message_problems,
)

APPLICATION_ID = 900_000_000_000_000_001
BOT_USER_ID = APPLICATION_ID
GUILD_ID = 910_000_000_000_000_001
OWNER_ID = 920_000_000_000_000_001
CHANNEL_ID = 930_000_000_000_000_001
LIVE_CHANNEL_ID = 930_000_000_000_000_002
MANAGE_GUILD = 1 << 5
MANAGE_ROLES = 1 << 28
MANAGE_CHANNELS = 1 << 4
MOVE_MEMBERS = 1 << 24
VOICE_ID = 930_000_000_000_000_003
"""A voice channel of the default guild where members hang out before their match."""
WAITING_VOICE_ID = 930_000_000_000_000_004
"""A second voice channel (a queue's waiting_voice in the tests)."""
BOT_ROLE_POSITION = 10
EPHEMERAL = 1 << 6
TIMESTAMP = "2024-01-01T00:00:00+00:00"
ORIGIN_HEADER = "X-Fake-Origin"
"""Names the bot process behind a request (set by fakeenv/sitecustomize.py from
FAKE_DISCORD_ORIGIN), so tests can tell which process answered."""

ATTACHMENT_SIZE_LIMIT = DEFAULT_ATTACHMENT_SIZE_LIMIT
"""The upload limit of a server without boosts: what the fake's interactions announce as
`attachment_size_limit` by default, and the limit of its channel messages."""


AUTOCOMPLETE_RESULT = 8


def _sizes(files: list[File]) -> list[int]:
    return [len(file.data) for file in files]


def _json(data: Any, status: int = 200) -> web.Response:
    """discord.py parses JSON only with this exact content type (no charset)."""
    return web.Response(
        body=json.dumps(data).encode(), status=status, headers={"Content-Type": "application/json"}
    )


@dataclass(frozen=True)
class Member:
    """A guild member as the fake knows it; permissions is the interaction bit set."""

    id: int
    name: str
    bot: bool = False
    permissions: int = 0
    locale: str = "en-US"
    """The language of the member's Discord client (an interaction's `locale`)."""

    def user_payload(self) -> JsonDict:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
        }

    def member_payload(self, with_user: bool = True, roles: Iterable[int] = ()) -> JsonDict:
        payload: JsonDict = {
            "roles": [str(role_id) for role_id in sorted(roles)],
            "flags": 0,
            "joined_at": TIMESTAMP,
            "deaf": False,
            "mute": False,
            "nick": None,
            "permissions": str(self.permissions),
        }
        if with_user:
            payload["user"] = self.user_payload()
        return payload


@dataclass(frozen=True)
class Role:
    id: int
    name: str
    position: int
    permissions: int = 0

    def payload(self) -> JsonDict:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
        }


@dataclass
class RoleRateLimit:
    """The fake's limit on role calls per guild, as Discord's buckets work: `limit` calls per
    `window` seconds (announced in X-RateLimit-* headers), and every `throttle_every`-th call
    answered 429 with `retry_after` anyway (a shared limit the headers cannot predict). A
    call made while a 429's retry_after runs or with the window spent is a violation."""

    limit: int = 50
    window: float = 0.5
    throttle_every: int = 0
    retry_after: float = 0.3
    calls: int = 0
    window_end: float = 0.0
    used: int = 0
    blocked_until: float = 0.0


@dataclass(frozen=True)
class File:
    filename: str
    data: bytes


@dataclass
class Event:
    """One request from the bot (or a gateway step). kind names what happened."""

    kind: str
    payload: JsonDict = field(default_factory=dict)
    files: list[File] = field(default_factory=list)
    token: str | None = None
    message_id: int | None = None
    channel_id: int | None = None
    at: float = field(default_factory=time.monotonic)
    origin: str | None = None


class EmbedField(TypedDict):
    name: str
    value: str
    inline: NotRequired[bool]


class EmbedFooter(TypedDict):
    text: str
    icon_url: NotRequired[str]


class Embed(TypedDict, total=False):
    """An embed as the bot sends it (Discord's embed object, the parts the bot uses)."""

    type: str
    title: str
    description: str
    url: str
    color: int
    timestamp: str
    fields: list[EmbedField]
    footer: EmbedFooter
    image: JsonDict
    thumbnail: JsonDict
    author: JsonDict


@dataclass
class Reply:
    """What a user sees as the answer to one interaction."""

    kind: str
    content: str | None
    embeds: list[Embed]
    components: list[JsonDict]
    flags: int
    files: list[File]
    message_id: int
    origin: str | None = None  # the bot process that sent it

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    def custom_ids(self) -> list[str]:
        return [
            button["custom_id"]
            for row in self.components
            for button in row.get("components", [])
            if "custom_id" in button
        ]


@dataclass
class Token:
    """What the fake remembers of one interaction, by its token."""

    id: str
    type: int
    channel_id: int
    clicked: int | None
    """The message whose component was used, for a click or a select."""
    answered: bool = False
    flags: int = 0
    original: int | None = None
    """The message of the interaction's answer, once answered."""


_request_origin: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "request_origin", default=None
)


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's rule for the shard that carries a guild's events."""
    return (guild_id >> 22) % shard_count


@dataclass
class Connection:
    """One gateway connection: a bot process's session for one shard, or for every guild
    when it identified without `shard`."""

    ws: web.WebSocketResponse
    origin: str | None
    shard: tuple[int, int] | None = None  # [shard_id, shard_count] from IDENTIFY

    def carries(self, guild_id: int) -> bool:
        return self.shard is None or shard_of(guild_id, self.shard[1]) == self.shard[0]


BOT = Member(BOT_USER_ID, "ladderbot", bot=True)
VISIBLE_KINDS = ("respond", "update", "edit_original", "followup")


class FakeDiscord:
    """REST + gateway for some guilds (by default one), each with all the given members."""

    def __init__(
        self,
        members: list[Member],
        guilds: Sequence[int] = (GUILD_ID,),
        recommended_shards: int = 1,
        role_rate: RoleRateLimit | None = None,
        port: int = 0,
    ) -> None:
        self.members = {member.id: member for member in [BOT, *members]}
        self.role_rate = role_rate or RoleRateLimit()
        self._role_ids = itertools.count(960_000_000_000_000_001)
        self.bot_role = Role(
            next(self._role_ids), "ladderbot", BOT_ROLE_POSITION,
            MANAGE_ROLES | MANAGE_CHANNELS | MOVE_MEMBERS,
        )  # fmt: skip
        self.roles: dict[int, list[Role]] = {guild_id: [self.bot_role] for guild_id in guilds}
        self.member_roles: dict[tuple[int, int], set[int]] = {
            (guild_id, BOT.id): {self.bot_role.id} for guild_id in guilds
        }
        self.guild_ids = list(guilds)
        self.guild_locales: dict[int, str] = {}
        """Each guild's preferred locale (`guild_locale`), en-US unless set."""
        self.recommended_shards = recommended_shards
        self.events: list[Event] = []
        self.messages: dict[int, JsonDict] = {}
        self.deleted: set[int] = set()
        self.port = port
        """Where it listens (0 until started: any free port)."""
        self.refuse_token = False
        """Answer the login with 401, as Discord answers a token it does not know."""
        self.attachment_size_limit = ATTACHMENT_SIZE_LIMIT
        """The upload limit each interaction carries, and that the fake enforces on the
        interaction's replies (a test lowers it to try large files)."""
        self._cond = threading.Condition()
        self._ids = itertools.count(950_000_000_000_000_001)
        self._sequence = itertools.count(1)
        self._tokens: dict[str, Token] = {}
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self._failures: list[tuple[str, int]] = []  # (event kind, HTTP status) to fail once
        self._connections: list[Connection] = []  # open ones, oldest first
        self._session_shards: dict[str, tuple[int, int] | None] = {}
        self.channels: dict[int, JsonDict] = {}
        """Channels the bot made (POST /guilds/{id}/channels), by id, until deleted."""
        self.voice: dict[tuple[int, int], int] = {}
        """(guild, member) -> the voice channel the member is connected to."""
        self._guild_channels = {
            guild_id: (CHANNEL_ID, LIVE_CHANNEL_ID)
            if guild_id == GUILD_ID
            else (next(self._ids), next(self._ids))
            for guild_id in self.guild_ids
        }

    # ----------------------------------------------------------------- lifecycle
    def start(self) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        self.port = server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        for connection in list(self._connections):
            await connection.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # ----------------------------------------------------------------- recording
    def _record(self, event: Event) -> Event:
        if event.origin is None:
            event.origin = _request_origin.get()
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()
        return event

    def wait_for(self, predicate: Callable[[Event], bool], timeout: float, after: int = 0) -> Event:
        """The first event (from index `after`) matching predicate; AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for event in self.events[after:]:
                    if predicate(event):
                        return event
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    kinds = [e.kind for e in self.events[after:]]
                    raise AssertionError(f"no matching event within {timeout}s; saw {kinds}")
                self._cond.wait(remaining)

    def mark(self) -> int:
        """An index to pass as `after` so a wait only sees events from now on."""
        with self._cond:
            return len(self.events)

    def of_kind(self, kind: str, after: int = 0) -> list[Event]:
        with self._cond:
            return [event for event in self.events[after:] if event.kind == kind]

    def wait_ready(
        self,
        timeout: float = 60.0,
        after: int = 0,
        guilds: Sequence[int] = (GUILD_ID,),
        origin: str | None = None,
    ) -> None:
        """The bot (the process `origin`, or any) has identified and received the members of
        each of `guilds` (its caches are full)."""

        def members_of(guild_id: int) -> Callable[[Event], bool]:
            return lambda e: (
                e.kind == "members_chunk"
                and e.payload.get("guild_id") == guild_id
                and origin in (None, e.origin)
            )

        deadline = time.monotonic() + timeout
        for guild_id in guilds:
            self.wait_for(members_of(guild_id), max(0.0, deadline - time.monotonic()), after)

    def fail_next(self, kind: str, status: int = 400) -> None:
        """The next request that would record an event of this kind (respond, followup,
        edit_original, message_edit, ...) fails with this status instead, as Discord may."""
        with self._cond:
            self._failures.append((kind, status))

    def rejected(self, after: int = 0) -> list[Event]:
        """Requests refused for breaking Discord's limits (or by fail_next)."""
        return self.of_kind("rejected", after)

    def _refusal(
        self, kind: str, body: Any, token: str | None, problems: list[Problem]
    ) -> web.Response | None:
        """Discord's answer when it would not take this request (it breaks Discord's rules,
        `problems`, or a test asked for a failure), else None. Each refusal is recorded."""
        with self._cond:
            status = next((s for k, s in self._failures if k == kind), None)
            if status is not None:
                self._failures.remove((kind, status))
        if status is None and not problems:
            return None
        answer = (
            invalid_form_body(problems)
            if problems
            else {"code": 0, "message": f"fake: {kind} failed as asked"}
        )
        self._record(Event("rejected", {"kind": kind, "body": body, "answer": answer}, [], token))
        return _json(answer, status or 400)

    def synced_commands(self) -> list[JsonDict]:
        commands: list[JsonDict] = self.of_kind("sync")[-1].payload["commands"]
        return commands

    # ----------------------------------------------------------------- gateway
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        origin = request.headers.get(ORIGIN_HEADER)
        _request_origin.set(origin)
        connection = Connection(ws, origin)
        self._connections.append(connection)
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": 41250}})
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                break
            await self._on_gateway(connection, json.loads(message.data))
        self._connections.remove(connection)
        self._record(Event("gateway_closed", {"shard": connection.shard}))
        return ws

    async def _dispatch(self, ws: web.WebSocketResponse, name: str, data: JsonDict) -> None:
        await ws.send_json({"op": 0, "t": name, "s": next(self._sequence), "d": data})

    async def _on_gateway(self, connection: Connection, message: JsonDict) -> None:
        ws, op = connection.ws, message["op"]
        if op == 1:
            await ws.send_json({"op": 11})
            return
        data: JsonDict = message["d"]  # identify, resume and request members carry an object
        if op in (2, 6):  # identify, or resume: always a fresh session
            shard = data.get("shard") if op == 2 else self._session_shards.get(data["session_id"])
            connection.shard = None if shard is None else (shard[0], shard[1])
            self._record(Event("identify", {"shard": connection.shard}))
            ready = self._ready_payload(connection)
            self._session_shards[ready["session_id"]] = connection.shard
            await self._dispatch(ws, "READY", ready)
            for guild_id in self.guild_ids:
                if connection.carries(guild_id):
                    await self._dispatch(ws, "GUILD_CREATE", self._guild_payload(guild_id))
        elif op == 8:
            chunk = {
                "guild_id": data["guild_id"],
                "members": [
                    m.member_payload(roles=self.held(int(data["guild_id"]), m.id))
                    for m in self.members.values()
                ],
                "chunk_index": 0,
                "chunk_count": 1,
                "nonce": data["nonce"],
            }
            await self._dispatch(ws, "GUILD_MEMBERS_CHUNK", chunk)
            self._record(Event("members_chunk", {"guild_id": int(data["guild_id"])}))

    def _ready_payload(self, connection: Connection) -> JsonDict:
        ready: JsonDict = {
            "v": 10,
            "user": BOT.user_payload(),
            "guilds": [
                {"id": str(guild_id), "unavailable": True}
                for guild_id in self.guild_ids
                if connection.carries(guild_id)
            ],
            "session_id": f"session-{next(self._ids)}",
            "resume_gateway_url": f"ws://127.0.0.1:{self.port}/gateway",
            "application": {"id": str(APPLICATION_ID), "flags": 0},
        }
        if connection.shard is not None:
            ready["shard"] = list(connection.shard)
        return ready

    def _guild_payload(self, guild_id: int) -> JsonDict:
        def channel(channel_id: int, name: str) -> JsonDict:
            return {
                "id": str(channel_id),
                "type": 0,
                "name": name,
                "position": 0,
                "guild_id": str(guild_id),
                "permission_overwrites": [],
            }

        general, live = self._guild_channels[guild_id]
        everyone = {
            "id": str(guild_id),
            "name": "@everyone",
            # view channel, send messages, embed links, attach files
            "permissions": str(1 << 10 | 1 << 11 | 1 << 14 | 1 << 15),
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
        }
        return {
            "id": str(guild_id),
            "name": "Fake Guild",
            "owner_id": str(OWNER_ID),
            "unavailable": False,
            "large": False,
            "member_count": len(self.members),
            "members": [BOT.member_payload(roles=self.held(guild_id, BOT.id))],  # rest: chunk
            "channels": [
                channel(general, "general"),
                channel(live, "ladder"),
                *(self._voice_channel(guild_id, c, n) for c, n in self._voices(guild_id)),
                *(c for c in self.channels.values() if int(c["guild_id"]) == guild_id),
            ],
            "roles": [everyone, *(role.payload() for role in self.roles[guild_id])],
            "emojis": [],
            "stickers": [],
            "features": [],
            "threads": [],
            "voice_states": [
                self._voice_state(guild, user, channel)
                for (guild, user), channel in self.voice.items()
                if guild == guild_id
            ],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "joined_at": TIMESTAMP,
            "preferred_locale": self.guild_locales.get(guild_id, "en-US"),
        }

    # ----------------------------------------------------------------- REST
    async def _body(self, request: web.Request) -> tuple[JsonDict, list[File]]:
        if request.content_type.startswith("multipart/"):
            payload: JsonDict = {}
            files: list[File] = []
            reader = await request.multipart()
            async for part in reader:
                assert isinstance(part, BodyPartReader)  # discord.py sends no nested multipart
                data = await part.read()
                if part.name == "payload_json":
                    payload = json.loads(data)
                else:
                    files.append(File(part.filename or "", bytes(data)))
            return payload, files
        if request.can_read_body:
            return await request.json(), []
        return {}, []

    async def _rest(self, request: web.Request) -> web.Response:
        _request_origin.set(request.headers.get(ORIGIN_HEADER))
        path = "/" + request.match_info["path"]
        parts = path.strip("/").split("/")
        body, files = await self._body(request)
        method = request.method
        if method == "GET" and path == "/users/@me":
            if self.refuse_token:
                return _json({"code": 0, "message": "401: Unauthorized"}, 401)
            return _json(BOT.user_payload())
        if method == "GET" and path == "/oauth2/applications/@me":
            return _json(self._application())
        if method == "GET" and path == "/gateway/bot":
            return _json(self._gateway_bot())
        if method == "PUT" and parts[0] == "applications" and parts[-1] == "commands":
            return self._sync(parts, body)
        if parts[0] == "interactions" and parts[-1] == "callback":
            return self._callback(parts[2], body, files)
        if parts[0] == "webhooks":
            return self._webhook(method, parts, body, files)
        if parts[0] == "channels" and len(parts) >= 3 and parts[2] == "messages":
            return self._channel_message(method, parts, body, files)
        if method in ("PUT", "DELETE") and parts[0] == "guilds" and parts[4:5] == ["roles"]:
            return self._member_role(method, int(parts[1]), int(parts[3]), int(parts[5]))
        if method == "POST" and parts[0] == "guilds" and parts[2:] == ["channels"]:
            return self._create_channel(int(parts[1]), body)
        if method == "DELETE" and parts[0] == "channels" and len(parts) == 2:
            return self._delete_channel(int(parts[1]))
        if method in ("PUT", "DELETE") and parts[0] == "channels" and parts[2:3] == ["permissions"]:
            return self._overwrite(method, int(parts[1]), int(parts[3]), body)
        if method == "PATCH" and parts[0] == "guilds" and parts[2:3] == ["members"]:
            return self._modify_member(int(parts[1]), int(parts[3]), body)
        if method == "GET" and parts[0] == "guilds" and parts[2:3] == ["members"]:
            member = self.members.get(int(parts[3]))
            if member is None:
                return _json({"code": 10007, "message": "Unknown Member"}, 404)
            return _json(member.member_payload())
        self._record(Event("unhandled", {"method": method, "path": path, "body": body}))
        return _json({"code": 0, "message": f"fake: no route {method} {path}"}, 404)

    # ----------------------------------------------------------------- roles
    def held(self, guild_id: int, user_id: int) -> set[int]:
        """The roles a member holds now (a copy)."""
        return set(self.member_roles.get((guild_id, user_id), set()))

    def add_role(self, name: str, position: int, guild_id: int = GUILD_ID) -> Role:
        """A new role in the guild (GUILD_ROLE_CREATE if the bot is connected)."""
        role = Role(next(self._role_ids), name, position)
        self.roles[guild_id].append(role)
        if any(connection.carries(guild_id) for connection in self._connections):
            payload = {"guild_id": str(guild_id), "role": role.payload()}
            self.send_guild_event(guild_id, "GUILD_ROLE_CREATE", payload)
        return role

    def hold(self, member: Member, role: Role, guild_id: int = GUILD_ID) -> None:
        """The member holds `role` from the start, before the bot connects: the bot learns
        it from the member chunks, as it learns the roles a guild's members already have."""
        assert not any(connection.carries(guild_id) for connection in self._connections)
        self.member_roles.setdefault((guild_id, member.id), set()).add(role.id)

    def role_violations(self, after: int = 0) -> list[Event]:
        """Role calls made faster than the fake allowed."""
        return self.of_kind("rate_violation", after)

    def _rate_headers(self, remaining: int, reset_after: float) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.role_rate.limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": "fake-member-roles",
            "Via": "1.1 google",
        }

    def _rate_limited(self) -> web.Response | None:
        """A 429 for this role call, or None when it may go through (then it is counted)."""
        rate, now = self.role_rate, time.monotonic()
        if now >= rate.window_end:
            rate.window_end, rate.used = now + rate.window, 0
        early = now < rate.blocked_until or rate.used >= rate.limit
        if early:
            self._record(
                Event(
                    "rate_violation", {"early_by": max(rate.blocked_until, rate.window_end) - now}
                )
            )
        rate.calls += 1
        if not early and not (rate.throttle_every and rate.calls % rate.throttle_every == 0):
            rate.used += 1
            return None
        retry_after = max(rate.retry_after, rate.window_end - now if early else 0.0)
        rate.blocked_until = now + retry_after
        self._record(Event("throttled", {"retry_after": retry_after}))
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": False,
        }
        response = _json(body, 429)
        response.headers.update(self._rate_headers(0, retry_after))
        response.headers["X-RateLimit-Scope"] = "shared"
        response.headers["Retry-After"] = str(math.ceil(retry_after))
        return response

    def _member_role(self, method: str, guild_id: int, user_id: int, role_id: int) -> web.Response:
        limited = self._rate_limited()
        if limited is not None:
            return limited
        role = next((r for r in self.roles.get(guild_id, []) if r.id == role_id), None)
        member = self.members.get(user_id)
        if role is None or member is None:
            return _json({"code": 10011, "message": "Unknown Role or Member"}, 404)
        if role.position >= BOT_ROLE_POSITION:
            return _json({"code": 50013, "message": "Missing Permissions"}, 403)
        held = self.member_roles.setdefault((guild_id, user_id), set())
        if method == "PUT":
            held.add(role_id)
        else:
            held.discard(role_id)
        self._record(
            Event("member_role", {"method": method, "user_id": user_id, "role_id": role_id})
        )
        update = {"guild_id": str(guild_id), **member.member_payload(roles=held)}
        asyncio.get_running_loop().create_task(self._member_update(guild_id, update))
        rate = self.role_rate
        response = web.Response(status=204)
        reset_after = max(0.0, rate.window_end - time.monotonic())
        response.headers.update(self._rate_headers(rate.limit - rate.used, reset_after))
        return response

    async def _member_update(self, guild_id: int, payload: JsonDict) -> None:
        """Discord tells the bot of a role change through the gateway, a moment later."""
        if any(connection.carries(guild_id) for connection in self._connections):
            connection = self._connection_for(guild_id)
            await self._dispatch(connection.ws, "GUILD_MEMBER_UPDATE", payload)

    def _application(self) -> JsonDict:
        return {
            "id": str(APPLICATION_ID),
            "name": "ladderbot",
            "description": "",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": {
                "id": str(OWNER_ID),
                "username": "owner",
                "discriminator": "0",
                "avatar": None,
            },
            "verify_key": "0" * 64,
            "flags": 0,
        }

    def _sync(self, parts: list[str], commands: Any) -> web.Response:
        """A bulk overwrite of the global or a guild's commands: all or nothing, as on
        Discord (one invalid command refuses the whole list)."""
        guild_id = int(parts[3]) if len(parts) > 3 and parts[2] == "guilds" else None
        refusal = self._refusal("sync", commands, None, commands_problems(commands))
        if refusal is not None:
            return refusal
        echoed = [
            {
                **command,
                **self._permissions_as_string(command),
                "id": str(next(self._ids)),
                "application_id": str(APPLICATION_ID),
                "version": "1",
                **({"guild_id": str(guild_id)} if guild_id else {}),
            }
            for command in commands
        ]
        self._record(Event("sync", {"commands": echoed, "guild_id": guild_id}))
        return _json(echoed)

    @staticmethod
    def _permissions_as_string(command: JsonDict) -> JsonDict:
        """Discord stores a permission bit set as a decimal string and answers with one."""
        value = command.get("default_member_permissions")
        return {} if value is None else {"default_member_permissions": str(value)}

    def _new_message(self, channel_id: int, body: JsonDict, files: list[File]) -> JsonDict:
        message_id = next(self._ids)
        message: JsonDict = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "guild_id": str(self._guild_of_channel(channel_id)),
            "type": 0,
            "author": BOT.user_payload(),
            "timestamp": TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "pinned": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "content": "",
            "embeds": [],
            "components": [],
            "attachments": [],
            "flags": 0,
        }
        self.messages[message_id] = message
        self._apply_edit(message, body, files)
        return message

    def _apply_edit(self, message: JsonDict, body: JsonDict, files: list[File]) -> None:
        for key in ("content", "embeds", "components", "flags"):
            if key in body and body[key] is not None:
                message[key] = body[key]
        if files or "attachments" in body:
            message["attachments"] = [
                {
                    "id": str(next(self._ids)),
                    "filename": file.filename,
                    "size": len(file.data),
                    "url": f"{self.url}/files/{file.filename}",
                    "proxy_url": f"{self.url}/files/{file.filename}",
                }
                for file in files
            ]

    def _callback(self, token: str, body: JsonDict, files: list[File]) -> web.Response:
        info = self._tokens.get(token)
        if info is None:
            return _json({"code": 10062, "message": "Unknown interaction"}, 404)
        if info.answered:
            return _json(
                {"code": 40060, "message": "Interaction has already been acknowledged."}, 400
            )
        kind = {4: "respond", 5: "defer", 6: "defer_update", 7: "update"}.get(body["type"], "other")
        data = body.get("data") or {}
        problems = (
            autocomplete_problems(data)
            if body["type"] == AUTOCOMPLETE_RESULT
            else message_problems(data, _sizes(files), self.attachment_size_limit)
        )
        refusal = self._refusal(kind, data, token, problems)
        if refusal is not None:
            return refusal  # the interaction stays unanswered, as with Discord
        info.answered = True
        info.flags = data.get("flags", 0) or 0
        if kind in ("update", "defer_update"):
            assert info.clicked is not None, "only a component's interaction updates its message"
            message = self.messages[info.clicked]
            if kind == "update":
                self._apply_edit(message, data, files)
        else:
            message = self._new_message(info.channel_id, data, files)
        info.original = int(message["id"])
        self._record(
            Event(kind, data, files, token, int(message["id"]), channel_id=info.channel_id)
        )
        return _json(
            {
                "interaction": {
                    "id": info.id,
                    "type": info.type,
                    "response_message_id": message["id"],
                    "response_message_loading": kind == "defer",
                    "response_message_ephemeral": bool(info.flags & EPHEMERAL),
                },
                "resource": {"type": body["type"], "message": message},
            }
        )

    def _webhook(
        self, method: str, parts: list[str], body: JsonDict, files: list[File]
    ) -> web.Response:
        token = parts[2]
        info = self._tokens.get(token)
        if info is None:
            return _json({"code": 10015, "message": "Unknown Webhook"}, 404)
        kind = {"POST": "followup", "PATCH": "edit_original"}.get(method)
        problems = message_problems(body, _sizes(files), self.attachment_size_limit)
        refusal = self._refusal(kind, body, token, problems) if kind else None
        if refusal is not None:
            return refusal
        if method == "POST" and len(parts) == 3:
            message = self._new_message(info.channel_id, body, files)
            self._record(Event("followup", body, files, token, int(message["id"])))
            return _json(message)
        target = parts[4] if len(parts) > 4 else "@original"
        message_id = info.original if target == "@original" else int(target)
        if message_id is None or message_id not in self.messages:
            return _json({"code": 10008, "message": "Unknown Message"}, 404)
        message = self.messages[message_id]
        if method == "PATCH":
            self._apply_edit(message, body, files)
            self._record(Event("edit_original", body, files, token, message_id))
        elif method == "DELETE":
            self.deleted.add(message_id)
            self._record(Event("delete_original", {}, [], token, message_id))
            return web.Response(status=204)
        return _json(message)

    def _channel_message(
        self, method: str, parts: list[str], body: JsonDict, files: list[File]
    ) -> web.Response:
        channel_id = int(parts[1])
        kind = {"POST": "message_create", "PATCH": "message_edit"}.get(method)
        problems = message_problems(body, _sizes(files), ATTACHMENT_SIZE_LIMIT)
        refusal = self._refusal(kind, body, None, problems) if kind else None
        if refusal is not None:
            return refusal
        if method == "POST" and len(parts) == 3:
            message = self._new_message(channel_id, body, files)
            self._record(Event("message_create", body, files, None, int(message["id"]), channel_id))
            return _json(message)
        message_id = int(parts[3])
        existing = self.messages.get(message_id)
        if existing is None or message_id in self.deleted:
            return _json({"code": 10008, "message": "Unknown Message"}, 404)
        if method == "PATCH":
            self._apply_edit(existing, body, files)
            self._record(Event("message_edit", body, files, None, message_id, channel_id))
        elif method == "DELETE":
            self.deleted.add(message_id)
            self._record(Event("message_delete", {}, [], None, message_id, channel_id))
            return web.Response(status=204)
        return _json(existing)

    def drop_gateway(self) -> None:
        """Close the bot's gateway connections as Discord does now and then; it reconnects."""

        async def close() -> None:
            for connection in list(self._connections):
                await connection.ws.close(code=4000, message=b"fake: reconnect")

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(5)

    def delete_message(self, message_id: int) -> None:
        """As if a user deleted the message in the client."""
        self._loop.call_soon_threadsafe(self.deleted.add, message_id)

    # ----------------------------------------------------------------- interactions
    def _interaction(
        self,
        user: Member,
        kind: int,
        data: JsonDict,
        message_id: int | None = None,
        seen: JsonDict | None = None,
        guild_id: int = GUILD_ID,
    ) -> Interaction:
        interaction_id = next(self._ids)
        token = f"token-{interaction_id}"
        channel_id = self._guild_channels[guild_id][0]
        payload: JsonDict = {
            "id": str(interaction_id),
            "application_id": str(APPLICATION_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "attachment_size_limit": self.attachment_size_limit,
            "guild_id": str(guild_id),
            "channel_id": str(channel_id),
            "channel": {"id": str(channel_id), "type": 0, "guild_id": str(guild_id)},
            "member": user.member_payload(roles=self.held(guild_id, user.id)),
            "app_permissions": str((1 << 40) - 1),
            "locale": user.locale,
            "guild_locale": self.guild_locales.get(guild_id, "en-US"),
            "data": data,
        }
        if message_id is not None:
            message = seen or self.messages[message_id]
            payload["message"] = message
            channel_id = int(message["channel_id"])
        self._tokens[token] = Token(str(interaction_id), kind, channel_id, message_id)
        handle = Interaction(self, token, self.mark())
        self.send_guild_event(guild_id, "INTERACTION_CREATE", payload)
        return handle

    def _command(self, command: str) -> tuple[JsonDict, list[JsonDict], list[JsonDict]]:
        """`/command [sub]` in the synced schema: the interaction's data (its options naming
        the subcommands, if any), the list the command's own options go in, and their
        schema."""
        words = command.split()
        synced = {c["name"]: c for c in self.synced_commands()}
        top = synced[words[0]]
        schema = top.get("options", [])
        nested: list[JsonDict] = []
        target = nested
        for word in words[1:]:
            sub = next(o for o in schema if o["name"] == word)
            inner: list[JsonDict] = []
            target.append({"name": word, "type": sub["type"], "options": inner})
            target, schema = inner, sub.get("options", [])
        data: JsonDict = {"id": top["id"], "name": top["name"], "type": 1, "options": nested}
        if top.get("guild_id"):
            data["guild_id"] = top["guild_id"]
        return data, target, schema

    def slash(
        self, user: Member, command: str, guild_id: int = GUILD_ID, **options: Any
    ) -> Interaction:
        """Invoke `/command [sub]` as user in the guild; option values are typed by the
        synced schema. An option named by a Python keyword takes a trailing underscore
        (`in_=member` for the option `in`)."""
        data, target, schema = self._command(command)
        resolved: JsonDict = {}
        types = {o["name"]: o["type"] for o in schema}
        for given, value in options.items():
            bare = given.removesuffix("_")
            name = bare if keyword.iskeyword(bare) else given
            if name not in types:
                raise KeyError(f"/{command} has no option {name!r}")
            target.append(
                {"name": name, "type": types[name], "value": self._value(value, resolved)}
            )
        if resolved:
            data["resolved"] = resolved
        return self._interaction(user, 2, data, guild_id=guild_id)

    def autocomplete(
        self, user: Member, command: str, option: str, typed: str, guild_id: int = GUILD_ID
    ) -> Interaction:
        """A user typing `typed` into the string option `option` of `/command [sub]`: the bot
        answers with choices (callback type 8, recorded as kind "other")."""
        data, target, _ = self._command(command)
        target.append({"name": option, "type": 3, "value": typed, "focused": True})
        return self._interaction(user, 4, data, guild_id=guild_id)

    def _value(self, value: Any, resolved: JsonDict) -> Any:
        if isinstance(value, Member):
            resolved.setdefault("users", {})[str(value.id)] = value.user_payload()
            resolved.setdefault("members", {})[str(value.id)] = value.member_payload(False)
            return str(value.id)
        if isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if isinstance(value, Channel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "type": value.kind,
                "name": value.name,
                "permissions": str((1 << 40) - 1),
            }
            return str(value.id)
        return value

    def click(
        self, user: Member, message_id: int, custom_id: str, seen: JsonDict | None = None
    ) -> Interaction:
        """Click a button; `seen` is the message as the user's client showed it (a snapshot
        from `message()`), for clicks on a stale message such as a double click."""
        data = {"custom_id": custom_id, "component_type": 2}
        guild_id = int((seen or self.messages[message_id])["guild_id"])
        return self._interaction(user, 3, data, message_id, seen, guild_id)

    def select(
        self, user: Member, message_id: int, custom_id: str, values: Sequence[str]
    ) -> Interaction:
        """Choose `values` in a select menu of a message."""
        data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        guild_id = int(self.messages[message_id]["guild_id"])
        return self._interaction(user, 3, data, message_id, None, guild_id)

    def message(self, message_id: int) -> JsonDict:
        """A snapshot of a message as it is now."""
        return copy.deepcopy(self.messages[message_id])

    # ----------------------------------------------------------------- guilds and shards
    def channels_of(self, guild_id: int) -> tuple[Channel, Channel]:
        """The guild's general and ladder channels."""
        general, live = self._guild_channels[guild_id]
        return Channel(general, "general"), Channel(live, "ladder")

    def _guild_of_channel(self, channel_id: int) -> int:
        if channel_id in self.channels:
            return int(self.channels[channel_id]["guild_id"])
        return next(
            guild_id
            for guild_id, channels in self._guild_channels.items()
            if channel_id in channels
        )

    def _gateway_bot(self) -> JsonDict:
        """GET /gateway/bot: where to connect and how many shards Discord recommends."""
        return {
            "url": f"ws://127.0.0.1:{self.port}/gateway",
            "shards": self.recommended_shards,
            "session_start_limit": {
                "total": 1000,
                "remaining": 1000,
                "reset_after": 0,
                "max_concurrency": 1,
            },
        }

    def _connection_for(self, guild_id: int) -> Connection:
        """The newest open connection that carries the guild: its shard's, as on Discord."""
        for connection in reversed(self._connections):
            if connection.carries(guild_id):
                return connection
        raise AssertionError(f"no gateway connection carries guild {guild_id}")

    def send_guild_event(self, guild_id: int, name: str, data: JsonDict) -> None:
        """Dispatch a guild's gateway event on the connection of the guild's shard only; the
        dispatch is recorded with the process it went to."""

        async def send() -> None:
            connection = self._connection_for(guild_id)
            self._record(
                Event("dispatch", {"t": name, "guild_id": guild_id}, origin=connection.origin)
            )
            await self._dispatch(connection.ws, name, data)

        asyncio.run_coroutine_threadsafe(send(), self._loop).result(5)

    # ----------------------------------------------------------------- channels and voice
    def _voices(self, guild_id: int) -> list[tuple[int, str]]:
        return [(VOICE_ID, "Lounge"), (WAITING_VOICE_ID, "Waiting")] if guild_id == GUILD_ID else []

    @staticmethod
    def _voice_channel(guild_id: int, channel_id: int, name: str) -> JsonDict:
        return {
            "id": str(channel_id), "type": 2, "name": name, "position": 1,
            "guild_id": str(guild_id), "permission_overwrites": [], "bitrate": 64000,
            "user_limit": 0, "parent_id": None,
        }  # fmt: skip

    def _voice_state(self, guild_id: int, user_id: int, channel_id: int | None) -> JsonDict:
        member = self.members[user_id]
        roles = self.held(guild_id, user_id)
        return {
            "guild_id": str(guild_id),
            "channel_id": None if channel_id is None else str(channel_id),
            "user_id": str(user_id), "member": member.member_payload(roles=roles),
            "session_id": f"voice-{user_id}", "deaf": False, "mute": False, "self_deaf": False,
            "self_mute": False, "self_video": False, "suppress": False,
            "request_to_speak_timestamp": None,
        }  # fmt: skip

    def bot_permissions(self) -> int:
        """The permissions the bot holds in the guild (@everyone's and its role's)."""
        return (1 << 10 | 1 << 11 | 1 << 14 | 1 << 15) | self.bot_role.permissions

    def set_bot_permissions(self, permissions: int, guild_id: int = GUILD_ID) -> None:
        """A moderator changes the bot's role: GUILD_ROLE_UPDATE if the bot is connected."""
        changed = Role(self.bot_role.id, self.bot_role.name, self.bot_role.position, permissions)
        self.roles[guild_id] = [changed if r.id == changed.id else r for r in self.roles[guild_id]]
        self.bot_role = changed
        if any(connection.carries(guild_id) for connection in self._connections):
            payload = {"guild_id": str(guild_id), "role": changed.payload()}
            self.send_guild_event(guild_id, "GUILD_ROLE_UPDATE", payload)

    def _missing(self, permission: int) -> web.Response | None:
        if self.bot_permissions() & permission:
            return None
        return _json({"code": 50013, "message": "Missing Permissions"}, 403)

    def _create_channel(self, guild_id: int, body: JsonDict) -> web.Response:
        """POST /guilds/{id}/channels: a text (0) or voice (2) channel with its permission
        overwrites (id, type 0 role or 1 member, allow and deny as strings of bits)."""
        problems: list[Problem] = []
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append(
                Problem(("name",), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
            )
        if body.get("type", 0) not in (0, 2, 4):
            problems.append(
                Problem(("type",), "BASE_TYPE_CHOICES", "Value must be one of {0, 2, 4}.")
            )
        for index, overwrite in enumerate(body.get("permission_overwrites") or []):
            at = ("permission_overwrites", str(index))
            if overwrite.get("type") not in (0, 1):
                problems.append(
                    Problem((*at, "type"), "BASE_TYPE_CHOICES", "Value must be 0 or 1.")
                )
            if not str(overwrite.get("id", "")).isdigit():
                problems.append(
                    Problem((*at, "id"), "NUMBER_TYPE_COERCE", "Value is not snowflake.")
                )
        if problems:
            self._record(Event("rejected", {"kind": "channel_create", "body": body}))
            return _json(invalid_form_body(problems), 400)
        missing = self._missing(MANAGE_CHANNELS)
        if missing is not None:
            self._record(Event("channel_refused", body))
            return missing
        channel_id = next(self._ids)
        channel: JsonDict = {
            "id": str(channel_id), "type": body.get("type", 0), "name": name,
            "guild_id": str(guild_id), "position": body.get("position") or 0,
            "parent_id": body.get("parent_id"), "nsfw": False,
            "permission_overwrites": [
                {"id": str(o["id"]), "type": o["type"], "allow": str(o.get("allow", "0")),
                 "deny": str(o.get("deny", "0"))}
                for o in body.get("permission_overwrites") or []
            ],
        }  # fmt: skip
        if channel["type"] == 2:
            channel.update(bitrate=64000, user_limit=0)
        self.channels[channel_id] = channel
        self._record(Event("channel_create", copy.deepcopy(channel), channel_id=channel_id))
        self._later(guild_id, "CHANNEL_CREATE", copy.deepcopy(channel))
        return _json(channel, 201)

    def _delete_channel(self, channel_id: int) -> web.Response:
        channel = self.channels.get(channel_id)
        if channel is None:
            return _json({"code": 10003, "message": "Unknown Channel"}, 404)
        missing = self._missing(MANAGE_CHANNELS)
        if missing is not None:
            return missing
        del self.channels[channel_id]
        guild_id = int(channel["guild_id"])
        for key, connected in list(self.voice.items()):
            if key[0] == guild_id and connected == channel_id:
                del self.voice[key]  # Discord disconnects who was in it
                self._later(
                    guild_id, "VOICE_STATE_UPDATE", self._voice_state(guild_id, key[1], None)
                )
        self._record(Event("channel_delete", {"id": channel_id}, channel_id=channel_id))
        self._later(guild_id, "CHANNEL_DELETE", copy.deepcopy(channel))
        return _json(channel)

    def delete_channel(self, channel_id: int) -> None:
        """Someone deletes a channel by hand."""
        channel = self.channels.pop(channel_id)
        self.send_guild_event(int(channel["guild_id"]), "CHANNEL_DELETE", channel)

    def _overwrite(self, method: str, channel_id: int, target: int, body: JsonDict) -> web.Response:
        """PUT or DELETE /channels/{id}/permissions/{overwrite}: 204."""
        channel = self.channels.get(channel_id)
        if channel is None:
            return _json({"code": 10003, "message": "Unknown Channel"}, 404)
        missing = self._missing(MANAGE_ROLES)
        if missing is not None:
            return missing
        kept = [o for o in channel["permission_overwrites"] if int(o["id"]) != target]
        if method == "PUT":
            if body.get("type") not in (0, 1):
                problem = Problem(("type",), "BASE_TYPE_CHOICES", "Value must be 0 or 1.")
                return _json(invalid_form_body([problem]), 400)
            allow, deny = str(body.get("allow", "0")), str(body.get("deny", "0"))
            kept.append({"id": str(target), "type": body["type"], "allow": allow, "deny": deny})
        channel["permission_overwrites"] = kept
        self._record(
            Event("overwrite", {"method": method, "target": target}, channel_id=channel_id)
        )
        self._later(int(channel["guild_id"]), "CHANNEL_UPDATE", copy.deepcopy(channel))
        return web.Response(status=204)

    def _modify_member(self, guild_id: int, user_id: int, body: JsonDict) -> web.Response:
        """PATCH /guilds/{id}/members/{user}: only `channel_id` (a move in voice, which needs
        Move Members and a member connected to voice) is known to the fake."""
        member = self.members.get(user_id)
        if member is None:
            return _json({"code": 10007, "message": "Unknown Member"}, 404)
        if set(body) - {"channel_id"}:
            raise AssertionError(f"the fake knows only channel_id moves, not {sorted(body)}")
        missing = self._missing(MOVE_MEMBERS)
        if missing is not None:
            return missing
        if (guild_id, user_id) not in self.voice:
            return _json({"code": 40032, "message": "Target user is not connected to voice."}, 400)
        target = None if body["channel_id"] is None else str(body["channel_id"])  # int or str
        if target is None:
            del self.voice[(guild_id, user_id)]
        else:
            self.voice[(guild_id, user_id)] = int(target)
        self._record(Event("member_move", {"user_id": user_id, "channel_id": target}))
        state = self._voice_state(guild_id, user_id, None if target is None else int(target))
        self._later(guild_id, "VOICE_STATE_UPDATE", state)
        return _json(member.member_payload(roles=self.held(guild_id, user_id)))

    def connect_voice(self, member: Member, channel_id: int, guild_id: int = GUILD_ID) -> None:
        """A member joins a voice channel (VOICE_STATE_UPDATE if the bot is connected)."""
        self.voice[(guild_id, member.id)] = channel_id
        if any(connection.carries(guild_id) for connection in self._connections):
            self.send_guild_event(
                guild_id, "VOICE_STATE_UPDATE", self._voice_state(guild_id, member.id, channel_id)
            )

    def _later(self, guild_id: int, name: str, data: JsonDict) -> None:
        """Dispatch from inside a REST handler (on the fake's loop), a moment later."""

        async def send() -> None:
            if any(connection.carries(guild_id) for connection in self._connections):
                await self._dispatch(self._connection_for(guild_id).ws, name, data)

        asyncio.get_running_loop().create_task(send())


@dataclass(frozen=True)
class Channel:
    id: int
    name: str
    kind: int = 0
    """0 text, 2 voice."""


GENERAL = Channel(CHANNEL_ID, "general")
LIVE = Channel(LIVE_CHANNEL_ID, "ladder")
LOUNGE = Channel(VOICE_ID, "Lounge", 2)
WAITING = Channel(WAITING_VOICE_ID, "Waiting", 2)


class Interaction:
    """A handle on one injected interaction: wait for what the user saw."""

    def __init__(self, fake: FakeDiscord, token: str, after: int) -> None:
        self.fake = fake
        self.token = token
        self.after = after

    def reply(self, timeout: float = 30.0) -> Reply:
        """The first visible answer: a response, an update, an edit after defer, a followup."""
        event = self.fake.wait_for(
            lambda e: e.token == self.token and e.kind in VISIBLE_KINDS, timeout, self.after
        )
        return self._reply(event)

    def replies(self, count: int, timeout: float = 30.0) -> list[Reply]:
        deadline = time.monotonic() + timeout
        found: list[Event] = []
        after = self.after
        while len(found) < count:
            event = self.fake.wait_for(
                lambda e: e.token == self.token and e.kind in VISIBLE_KINDS,
                max(0.0, deadline - time.monotonic()),
                after,
            )
            found.append(event)
            after = self.fake.events.index(event) + 1
        return [self._reply(event) for event in found]

    def _reply(self, event: Event) -> Reply:
        flags: int = event.payload.get("flags") or 0
        if event.kind == "edit_original":
            flags |= self.fake._tokens[self.token].flags
        message_id = event.message_id
        assert message_id is not None, "every visible answer is a message"
        return Reply(
            kind=event.kind,
            content=event.payload.get("content"),
            embeds=event.payload.get("embeds") or [],
            components=event.payload.get("components") or [],
            flags=flags,
            files=event.files,
            message_id=message_id,
            origin=event.origin,
        )
