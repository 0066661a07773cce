"""Webhooks (SPEC 14): a guild's webhooks (add, remove, list, test), the address check, and
the outbox writer the one write path calls (`EventOutbox`).

An event's body is made in the transaction of the change it reports: its facts are read
there (the state that commits) and put in the API's shapes (a match as the API's match, a
lobby as `queue list --json` shows it, a season as the API's season), and the whole body is
stored; every attempt sends those bytes. Delivery is bot.services.delivery's.

Decisions the spec leaves open:
- One delivery per event and webhook, each with its own `id`; a repeat carries it again.
- A report applied at once (a moderator's, or confirm: none) is `match.reported` and then
  `match.applied`; a report withdrawn by its reporter is `match.voided`. Imports send no
  events (they may hold thousands of matches).
- A member in a queue event is the API member's stored fields (user_id, name, rating,
  games, wins, draws, losses): the performance ratings of the API's member are computed,
  not stored, and an event is made inside a write.
- A lobby's players leave its queue when it pops: that is `lobby.popped`, not `queue.left`.
  A member taken out (left the ladder or the server, barred at a pop) is `queue.left` with
  reason "removed"; a ready player put back by a dissolved lobby is `queue.joined`, "back".
- A body larger than 64 KiB keeps its event's identity and `"too_large": true` in `data`.
- `test` sends `webhook.test` to that one webhook through the outbox, so the process that
  owns the guild delivers it as it delivers everything else.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import secrets
import socket
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from bot.services import season_rules
from bot.services.changes import Change
from bot.services.context import ServiceContext, Subscribed, use_cases
from bot.services.core import Actor, ladder_rating, must_moderate
from bot.services.errors import N_, UserError, quoted
from bot.services.events import EVENTS, TEST_EVENT, PendingEvent
from bot.services.matchcsv.format import format_time
from bot.services.shapes import lobby_object, match_object, season_object
from bot.storage import Member, WriteTransaction
from bot.storage.webhooks import NewDelivery
from bot.storage.webhooks import Webhook as Webhook  # a result type of list/add

MAX_WEBHOOKS: Final = 5
MAX_BODY: Final = 64 * 1024
MAX_URL: Final = 2000

Resolve = Callable[[str, int], Awaitable[list[str]]]
"""A host name and port -> the addresses it resolves to (tests stub DNS with one)."""


async def system_resolve(host: str, port: int) -> list[str]:
    """The host's addresses, by the event loop's getaddrinfo (off the loop)."""
    found = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return [str(sockaddr[0]) for *_, sockaddr in found]


_NOT_PUBLIC: Final = {
    "loopback": N_("{address} is a loopback address"),
    "link-local": N_("{address} is a link-local address"),
    "multicast": N_("{address} is a multicast address"),
    "private": N_("{address} is a private address"),
}


def refused_address(address: str) -> UserError | None:
    """Why a webhook may not reach `address` (loopback, private, link-local, multicast or
    otherwise not public), or None for a public address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind, flag in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("private", ip.is_private),
    ):
        if flag:
            return UserError(_NOT_PUBLIC[kind], address=address)
    if not ip.is_global:
        return UserError(N_("{address} is not a public address"), address=address)
    return None


@dataclass(frozen=True, slots=True)
class Target:
    """A webhook's URL, taken apart."""

    url: str
    host: str
    port: int
    literal: bool
    """The host is an IP address (no DNS)."""


def target_of(url: str, allow_private: bool) -> Target:
    """The URL's parts; UserError naming what is wrong with its form."""
    text = url.strip()
    if not text or len(text) > MAX_URL:
        raise UserError(N_("a webhook URL is 1 to {most} characters"), most=MAX_URL)
    if any(ord(c) < 33 or ord(c) == 127 for c in text):
        raise UserError(N_("a webhook URL cannot hold spaces or control characters"))
    try:
        parts = urlsplit(text)
        port = parts.port
        host = parts.hostname
    except ValueError as error:
        raise UserError(
            N_("{url} is not a valid URL ({problem})"), url=quoted(text), problem=str(error)
        ) from None
    schemes = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in schemes:
        raise UserError(
            N_("a webhook URL must start with https:// (not {url})"), url=quoted(text[:40])
        )
    if not host:
        raise UserError(N_("{url} names no host"), url=quoted(text))
    if parts.username is not None or parts.password is not None:
        raise UserError(N_("a webhook URL cannot hold a user name or password; use the secret"))
    if parts.fragment:
        raise UserError(N_("a webhook URL cannot have a #fragment"))
    if port == 0:
        raise UserError(N_("port 0 is no port: give 1 to 65535"))
    try:
        ipaddress.ip_address(host)
        literal = True
    except ValueError:
        literal = False
    return Target(text, host, port or (443 if parts.scheme == "https" else 80), literal)


async def checked_target(url: str, allow_private: bool, resolve: Resolve) -> Target:
    """The URL's target once its form is right and, unless `allow_private`, every address
    its host resolves to is public; else UserError saying why."""
    target = target_of(url, allow_private)
    if allow_private:
        return target
    if target.literal:
        addresses = [target.host]
    else:
        try:
            addresses = await resolve(target.host, target.port)
        except OSError as error:
            raise UserError(
                N_("cannot resolve {host} ({problem})"), host=target.host, problem=str(error)
            ) from None
        if not addresses:
            raise UserError(N_("{host} resolves to no address"), host=target.host)
    for address in addresses:
        why = refused_address(address)
        if why is not None and address != target.host:
            raise UserError(
                N_("webhooks only go to public addresses: {host} → {why}"),
                host=target.host,
                why=why,
            )
        if why is not None:
            raise UserError(N_("webhooks only go to public addresses: {why}"), why=why)
    return target


def parse_events(text: str | None) -> tuple[str, ...]:
    """A comma-separated choice of events (none given: all), in the spec's order."""
    if text is None or not text.strip():
        return EVENTS
    chosen = {part.strip().lower() for part in text.split(",") if part.strip()}
    unknown = sorted(chosen - set(EVENTS))
    if unknown:
        raise UserError(
            N_("unknown event {value}: choose from {choices}"),
            value=quoted(unknown[0]),
            choices=", ".join(EVENTS),
        )
    return tuple(event for event in EVENTS if event in chosen)


@dataclass(frozen=True, slots=True)
class AddedWebhook:
    webhook: Webhook
    secret: str
    """Shown once, to whoever added it."""


def _member_object(member: Member, rating: float) -> dict[str, Any]:
    return {
        "user_id": member.user_id,
        "name": member.name,
        "rating": rating,
        "games": member.games,
        "wins": member.wins,
        "draws": member.draws,
        "losses": member.losses,
    }


class EventOutbox:
    """Writes a write's events to the outbox (ServiceContext.outbox): one delivery per
    subscribed webhook, its body made from the facts the transaction holds."""

    async def write(
        self,
        tx: WriteTransaction,
        guild_id: int,
        events: Sequence[PendingEvent],
        now: float,
        webhooks: Subscribed,
    ) -> None:
        subscribed = await webhooks
        if not subscribed:
            return
        deliveries: list[NewDelivery] = []
        matches: dict[tuple[int, bool], str] = {}
        """A match's facts, once per write (its events see the same committed state)."""
        for event in events:
            if event.webhook_id is not None:
                targets = [
                    webhook_id for webhook_id, _ in subscribed if webhook_id == event.webhook_id
                ]
            else:
                targets = [webhook_id for webhook_id, names in subscribed if event.name in names]
            if not targets:
                continue
            if event.match_id is None:
                data = _data_text(await self._data(tx, guild_id, event))
            else:
                key = (event.match_id, event.name == "match.edited")
                if key not in matches:
                    matches[key] = _data_text(await self._data(tx, guild_id, event))
                data = matches[key]
            for webhook_id in targets:
                delivery_id = uuid.uuid4().hex
                body = _body(delivery_id, event.name, guild_id, now, data)
                deliveries.append(NewDelivery(webhook_id, delivery_id, event.name, body))
        if deliveries:
            await tx.add_deliveries(guild_id, deliveries, now)

    async def _data(
        self, tx: WriteTransaction, guild_id: int, event: PendingEvent
    ) -> dict[str, Any]:
        """The event's facts as the transaction holds them, in the API's shapes."""
        if event.match_id is not None:
            match = await tx.match(guild_id, event.match_id)
            if match is None:
                return {"match_id": event.match_id}
            edits = await tx.match_edits(match.id) if event.name == "match.edited" else None
            return {"match": match_object(match, edits)}
        if event.lobby_id is not None:
            lobby = await tx.lobby(guild_id, event.lobby_id)
            if lobby is None:
                return {"lobby_id": event.lobby_id}
            members = await tx.members_by_id(guild_id, [p.user_id for p in lobby.players])
            return {"lobby": lobby_object(lobby, {m.user_id: m.name for m in members})}
        if event.queue_id is not None and event.user_id is not None:
            queue = await tx.queue(guild_id, event.queue_id)
            member = await tx.member(guild_id, event.user_id)
            settings = await tx.guild_settings(guild_id)
            data: dict[str, Any] = {
                "queue": {
                    "id": event.queue_id,
                    "name": None if queue is None else queue.name,
                    "waiting": None if queue is None else len(queue.waiting),
                },
                "member": None
                if member is None or settings is None
                else _member_object(member, ladder_rating(member, settings)),
            }
            if event.reason is not None:
                data["reason"] = event.reason
            return data
        if event.name == "season.started":
            summaries = season_rules.summaries(
                await tx.seasons(guild_id), await tx.standings_sizes(guild_id)
            )
            return {"season": season_object(summaries[-1])}
        return {}


def _data_text(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=False)


def _body(delivery_id: str, event: str, guild_id: int, now: float, data: str) -> str:
    """The request body, one JSON object (`data`: its data as JSON text); at most MAX_BODY
    bytes."""
    head = json.dumps(
        {"id": delivery_id, "event": event, "guild_id": guild_id, "at": format_time(now)}
    )
    body = head[:-1] + ', "data": ' + data + "}"
    if len(body.encode()) <= MAX_BODY:
        return body
    return head[:-1] + ', "data": {"too_large": true}}'


@use_cases()
class Webhooks:
    """A guild's webhooks: the moderators' use cases."""

    def __init__(
        self,
        context: ServiceContext,
        *,
        allow_private: bool = False,
        resolve: Resolve = system_resolve,
    ) -> None:
        self.context = context
        self.allow_private = allow_private
        self.resolve = resolve

    async def add(
        self, guild_id: int, actor: Actor, url: str, events: str | None = None
    ) -> AddedWebhook:
        """A new webhook, after its URL's check; its secret (shown once)."""
        must_moderate(actor, N_("add webhooks"))
        chosen = parse_events(events)
        target = await checked_target(url, self.allow_private, self.resolve)
        secret = secrets.token_hex(32)
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            await tx.ensure_guild(guild_id, self.context.defaults)
            if len(await tx.webhooks(guild_id)) >= MAX_WEBHOOKS:
                raise UserError(
                    N_(
                        "this server has {most} webhooks already, the most it can have; remove "
                        "one first"
                    ),
                    most=MAX_WEBHOOKS,
                )
            now = self.context.clock()
            webhook_id = await tx.add_webhook(guild_id, target.url, secret, chosen, now)
            added = await tx.webhook(guild_id, webhook_id)
            assert added is not None
        return AddedWebhook(added, secret)

    async def remove(self, guild_id: int, actor: Actor, webhook_id: int) -> Webhook:
        """Remove a webhook; its waiting deliveries are dropped."""
        must_moderate(actor, N_("remove webhooks"))
        async with self.context.write(guild_id) as unit:
            found = await self._webhook(unit.tx, guild_id, webhook_id)
            await unit.tx.remove_webhook(guild_id, webhook_id, self.context.clock())
        return found

    async def list(self, guild_id: int) -> list[Webhook]:
        return await self.context.db.read.webhooks(guild_id)

    async def test(self, guild_id: int, actor: Actor, webhook_id: int) -> Webhook:
        """Queue a `webhook.test` event for one webhook."""
        must_moderate(actor, N_("test webhooks"))
        async with self.context.write(guild_id) as unit:
            found = await self._webhook(unit.tx, guild_id, webhook_id)
            unit.events.append(PendingEvent(TEST_EVENT, webhook_id=webhook_id))
            unit.change = Change(guild_id, "webhook_test", actor_id=actor.user_id)
        return found

    @staticmethod
    async def _webhook(tx: WriteTransaction, guild_id: int, webhook_id: int) -> Webhook:
        found = await tx.webhook(guild_id, webhook_id)
        if found is None:
            raise UserError(
                N_("there is no webhook #{number} in this server; see webhook list for ids"),
                number=webhook_id,
            )
        return found
