"""Webhook delivery (SPEC 14), run by the bot process that owns the guild (SPEC 8.4); the
command line only writes the outbox (bot.services.webhooks).

Each webhook with deliveries waiting has one worker, which sends them one at a time in the
order they were written (a delivery waits for the one before it to be made or given up),
at least once: a row goes only after a 2xx (those answered 2xx are marked done together,
within ACK_SECONDS: one write for many), so a process killed after the POST sends it again
after its restart, with the same body and `id`. Anything else, or no answer within
`timeout`, is tried again after 1 s doubling up to an hour apart, until 24 hours have passed since
the event (`Timing`): then it is dropped and the mod log told (a Change of kind
"webhook_dropped"). A 410 removes the webhook. Redirects are not followed (a 3xx is a
failure). Unless `allow_private`, every address the host resolves to is checked before
each batch of deliveries, and again by the resolver of each new connection (the addresses
actually connected to; the bot's Poster, bot.app.webhook_posts, holds the HTTP client), so
a name that now resolves to a private address is refused (DNS can change after `add`).

The workers are started at `start` (catching up on what waits) and whenever `wake` is
called: the bot calls it on every change of the change feed, which is how a delivery written
by another process (the command line) reaches this one; a poll every 30 s is the safety net.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Protocol

from bot.services.changes import Change
from bot.services.context import ServiceContext
from bot.services.errors import N_, Duration, Notice, UserError
from bot.services.webhooks import Resolve, checked_target, system_resolve
from bot.storage.webhooks import Delivery

log = logging.getLogger(__name__)

BATCH: Final = 100
"""Deliveries read at once for one webhook."""
ACK_SECONDS: Final = 0.25
"""How long deliveries answered 2xx may wait to be marked done (one write for them all)."""


@dataclass(frozen=True, slots=True)
class Timing:
    """How long a delivery waits (SPEC 14's; tests make them short)."""

    timeout: float = 10.0
    first_wait: float = 1.0
    max_wait: float = 3600.0
    give_up_after: float = 24 * 3600.0
    poll_seconds: float = 30.0
    concurrency: int = 16
    """Requests in flight at once, over every webhook."""


TIMING = Timing()
"""The bot's timing (a test's bot process replaces it before it starts)."""


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Ladderbot-Signature header: HMAC-SHA256 of "<timestamp>.<body>"."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"sha256={digest.hexdigest()}"


def retry_wait(attempts: int, timing: Timing) -> float:
    """The wait before the next try, after `attempts` failed ones (1 or more): 1 s doubling,
    at most an hour."""
    return min(timing.first_wait * 2.0 ** min(attempts - 1, 60), timing.max_wait)


class Poster(Protocol):
    """What sends a delivery over HTTP (bot.app.webhook_posts.HttpPoster: the services hold
    no HTTP client). Its connections check every address they connect to as `refused_address`
    does, unless private ones are allowed, and follow no redirects."""

    async def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> str:
        """One attempt: the answer's HTTP status, or what went wrong instead."""

    async def close(self) -> None: ...


OpenPoster = Callable[[Resolve, bool, float], Poster]
"""(resolve, allow_private, timeout in seconds) -> a Poster."""


@dataclass(slots=True)
class Acknowledged:
    """Deliveries of one webhook answered 2xx and not yet marked done."""

    guild_id: int
    webhook_id: int
    seqs: list[int] = field(default_factory=list)
    status: str = ""
    since: float = 0.0

    def add(self, seq: int, status: str) -> None:
        self.seqs.append(seq)
        self.status = status

    def clear(self, now: float) -> None:
        self.seqs.clear()
        self.since = now


class WebhookDelivery:
    """Delivers the outbox of the guilds `owned` accepts."""

    def __init__(
        self,
        context: ServiceContext,
        open_poster: OpenPoster,
        *,
        owned: Callable[[int], bool] = lambda guild_id: True,
        allow_private: bool = False,
        resolve: Resolve = system_resolve,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.context = context
        self.open_poster = open_poster
        self.owned = owned
        self.allow_private = allow_private
        self.resolve = resolve
        self.timing = TIMING if timing is None else timing
        self.clock = clock
        self._slots = asyncio.Semaphore(self.timing.concurrency)
        self._poster: Poster | None = None
        self._workers: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._again: set[tuple[int, int]] = set()
        """Workers to look once more before they end (a delivery written meanwhile)."""
        self._wake = asyncio.Event()
        self._woken: set[int | None] = set()
        """The guilds woken since the last look (None: any)."""
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Deliver what waits, and from now on what is written."""
        self._poster = self.open_poster(self.resolve, self.allow_private, self.timing.timeout)
        self._task = asyncio.create_task(self._run())

    def wake(self, guild_id: int | None = None) -> None:
        """The guild (None: any) may have written to the outbox (a change of the feed)."""
        self._woken.add(guild_id)
        self._wake.set()

    async def stop(self) -> None:
        tasks = [task for task in (self._task, *self._workers.values()) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._task = None
        if self._poster is not None:
            await self._poster.close()
            self._poster = None

    async def _run(self) -> None:
        polled = True
        while True:
            self._wake.clear()
            woken, self._woken = self._woken, set()
            try:
                if polled or None in woken:
                    await self.catch_up()
                else:
                    for guild_id in woken:
                        await self.catch_up(guild_id)
            except Exception:
                log.exception("could not read the webhook outbox; trying again")
            try:
                await asyncio.wait_for(self._wake.wait(), self.timing.poll_seconds)
                polled = False
            except TimeoutError:
                polled = True

    async def catch_up(self, guild_id: int | None = None) -> None:
        """A worker for each owned webhook (of the guild; None: of every guild) with
        deliveries waiting."""
        for key in await self.context.db.read.waiting_webhooks(guild_id):
            if not self.owned(key[0]):
                continue
            if key in self._workers:
                self._again.add(key)
            else:
                self._workers[key] = asyncio.create_task(self._work(*key))

    async def idle(self) -> None:
        """Wait until no worker runs (tests and benchmarks)."""
        while self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def _work(self, guild_id: int, webhook_id: int) -> None:
        key = (guild_id, webhook_id)
        try:
            while True:
                self._again.discard(key)
                try:
                    found = await self._deliver_batch(guild_id, webhook_id)
                except asyncio.CancelledError:
                    raise
                except Exception:  # the database, say: the rows stay, tried again later
                    log.exception("webhook #%s of guild %s: delivery failed", webhook_id, guild_id)
                    await asyncio.sleep(self.timing.first_wait)
                    continue
                if not found and key not in self._again:
                    return
        finally:
            self._workers.pop(key, None)

    async def _deliver_batch(self, guild_id: int, webhook_id: int) -> bool:
        """Send the webhook's oldest waiting deliveries in order, until one fails or the
        webhook is removed; False when none waits. Those answered 2xx are marked done
        together, at the latest every ACK_SECONDS (a crash before that sends them again,
        with their ids), which is also how soon a removal stops the sending."""
        read = self.context.db.read
        batch = await read.next_deliveries(guild_id, webhook_id, BATCH)
        target = await read.delivery_target(guild_id, webhook_id)
        if not batch or target is None:  # none, or removed (its rows went with it)
            return False
        url, secret = target
        done = Acknowledged(guild_id, webhook_id, since=self.clock())
        try:
            for delivery in batch:
                wait = delivery.next_at - self.clock()
                if wait > 0:
                    await self._acknowledge(done)
                    await asyncio.sleep(wait)
                    if await read.delivery_target(guild_id, webhook_id) is None:
                        break  # removed while waiting
                if delivery is batch[0]:
                    # the addresses again, once a batch (DNS can change), when it is due: a
                    # refused delivery waits for its next try like any that failed
                    try:
                        await checked_target(url, self.allow_private, self.resolve)
                    except UserError as error:
                        await self._failed(delivery, f"refused: {error}", url)
                        break
                status = await self._post(url, secret, delivery)
                if status.isdigit() and 200 <= int(status) < 300:
                    done.add(delivery.seq, status)
                    if self.clock() - done.since < ACK_SECONDS or await self._acknowledge(done):
                        continue
                elif await self._acknowledge(done):
                    await self._failed(delivery, status, url)
                break
        finally:
            await asyncio.shield(self._acknowledge(done))
        return True

    async def _acknowledge(self, done: Acknowledged) -> bool:
        """Mark the deliveries answered 2xx done (their rows go); whether the webhook is
        still there (True when there was nothing to mark)."""
        if not done.seqs:
            return True
        async with self.context.write(done.guild_id) as unit:
            tx = unit.tx
            await tx.deliveries_done(
                done.guild_id, done.webhook_id, done.seqs, done.status, self.clock()
            )
            kept = await tx.delivery_target(done.guild_id, done.webhook_id) is not None
        done.clear(self.clock())
        return kept

    async def _failed(self, delivery: Delivery, status: str, url: str) -> None:
        """An attempt answered otherwise than 2xx: tried again later, dropped once the retry
        window has passed, or (410) the webhook removed."""
        now = self.clock()
        async with self.context.write(delivery.guild_id) as unit:
            tx = unit.tx
            if await tx.delivery_target(delivery.guild_id, delivery.webhook_id) is None:
                return
            if status == "410":
                await tx.remove_webhook(delivery.guild_id, delivery.webhook_id, now)
                unit.change = self._told(
                    delivery,
                    Notice(
                        N_("webhook #{number} ({url}) answered 410 Gone and was removed"),
                        number=delivery.webhook_id,
                        url=url,
                    ),
                )
            elif now - delivery.created_at >= self.timing.give_up_after:
                await tx.deliveries_done(
                    delivery.guild_id, delivery.webhook_id, [delivery.seq], status, now
                )
                unit.change = self._told(
                    delivery,
                    Notice(
                        N_(
                            "webhook #{number} ({url}) dropped {event} {delivery} after {wait} of "
                            "failures (last: {status})"
                        ),
                        number=delivery.webhook_id,
                        url=url,
                        event=delivery.event,
                        delivery=delivery.delivery_id,
                        wait=Duration(self.timing.give_up_after),
                        status=status,
                    ),
                )
            else:
                wait = retry_wait(delivery.attempts + 1, self.timing)
                await tx.delivery_failed(delivery, status, now, now + wait)

    @staticmethod
    def _told(delivery: Delivery, detail: Notice) -> Change:
        """The mod log's change for a delivery given up or a webhook removed."""
        return Change(delivery.guild_id, "webhook_dropped", detail=detail.stored())

    async def _post(self, url: str, secret: str, delivery: Delivery) -> str:
        """One attempt: the answer's HTTP status, or what went wrong instead."""
        assert self._poster is not None, "start() first"
        body = delivery.body.encode()
        timestamp = str(int(self.clock()))
        headers = {
            "Content-Type": "application/json",
            "X-Ladderbot-Event": delivery.event,
            "X-Ladderbot-Delivery": delivery.delivery_id,
            "X-Ladderbot-Timestamp": timestamp,
            "X-Ladderbot-Signature": signature(secret, timestamp, body),
        }
        async with self._slots:
            return await self._poster.post(url, body, headers)
