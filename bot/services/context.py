"""What every service shares: the database, the defaults that start a new guild, the clock,
the one write path (`ServiceContext.write`): every write of the services is one transaction
of it, and reports at most one `Change` once committed (bot.services.changes), and the one
retry policy after a lost connection (`use_cases`), for the bot and the command line alike.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from bot.config import GuildSettings
from bot.services.changes import Change, ChangeListener
from bot.services.errors import N_, UserError
from bot.services.events import PendingEvent, change_events
from bot.services.feed import record_change
from bot.storage import ConnectionLost, Database, Match, Member, WriteTransaction
from bot.storage.engine import UNKNOWN_COMMIT

log = logging.getLogger(__name__)


_IN_USE_CASE: ContextVar[bool] = ContextVar("in_use_case", default=False)
"""Set while a use case runs: one it calls (a lobby's result records its match) is part of
it and is not retried on its own."""
_Service = TypeVar("_Service", bound=type)


def use_cases(*idempotent: str) -> Callable[[_Service], _Service]:
    """The one retry policy after a lost database connection (SPEC 8.8), on every public
    coroutine method of a service class: run once more on a new connection only when the
    loss is known to have come before the commit (nothing was stored), or for the methods
    named `idempotent` (a report by its request id, an import by its keys), which a second
    run stores at most once. Otherwise a lost commit ends in ConnectionLost saying the change
    may or may not be stored, and a second try failing never turns that into "nothing was
    changed"."""

    def apply(service: _Service) -> _Service:
        for name, method in list(vars(service).items()):
            if not name.startswith("_") and inspect.iscoroutinefunction(method):
                setattr(service, name, _retried(method, name in idempotent))
        return service

    return apply


def _retried(
    method: Callable[..., Awaitable[Any]], idempotent: bool
) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def use_case(*args: Any, **kwargs: Any) -> Any:
        if _IN_USE_CASE.get():
            return await method(*args, **kwargs)
        token = _IN_USE_CASE.set(True)
        try:
            try:
                return await method(*args, **kwargs)
            except ConnectionLost as lost:
                if lost.committing and not idempotent:
                    raise
                first = lost
            log.info("%s lost its connection (%s); once more", method.__qualname__, first)
            try:
                return await method(*args, **kwargs)
            except ConnectionLost as second:
                if first.committing:
                    raise ConnectionLost(UNKNOWN_COMMIT, committing=True) from second
                raise
        finally:
            _IN_USE_CASE.reset(token)

    return use_case


def not_found(match_id: int) -> UserError:
    return UserError(
        N_("there is no match #{match_id} in this server; see /match list for ids"),
        match_id=match_id,
    )


class Unit:
    """One write: its transaction, the Change it reports once committed (None: a write
    that changes nothing anyone follows, such as a message id or a cache fill), and the
    webhook events it reports (SPEC 14): a Change's own (setting it adds them), and those
    a use case adds itself, in the order they happened."""

    __slots__ = ("_change", "events", "stamped", "tx")

    def __init__(self, tx: WriteTransaction) -> None:
        self.tx = tx
        self._change: Change | None = None
        self.stamped = False
        """The write's own statements already marked the guild changed (a report)."""
        self.events: list[PendingEvent] = []

    @property
    def change(self) -> Change | None:
        return self._change

    @change.setter
    def change(self, change: Change | None) -> None:
        self._change = change
        if change is not None:
            self.events.extend(change_events(change))


Subscribed = Awaitable[Sequence[tuple[int, tuple[str, ...]]]]
"""The guild's webhooks, (number, events) each, as a write began (read ahead)."""


class Outbox(Protocol):
    """Writes a write's webhook events to the outbox, in its transaction, one delivery per
    webhook of `subscribed` that takes the event (bot.services.webhooks)."""

    async def write(
        self,
        tx: WriteTransaction,
        guild_id: int,
        events: Sequence[PendingEvent],
        now: float,
        subscribed: Subscribed,
    ) -> None: ...


class ServiceContext:
    """One database and what every service over it shares; `defaults` start every new
    guild. Each write reports what it changed to `on_change` once committed."""

    def __init__(
        self,
        db: Database,
        defaults: GuildSettings,
        *,
        clock: Callable[[], float] = time.time,
        page_size: int = 10,
        edit_seconds: float = 60.0,
        fill_cache: bool = False,
        on_change: ChangeListener | None = None,
    ) -> None:
        self.db = db
        self.defaults = defaults
        self.clock = clock
        self.page_size = page_size
        self.edit_seconds = edit_seconds
        self.fill_cache = fill_cache
        """Store the performances reads compute, after the read has answered (the bot);
        off, reads write nothing at all (the command line)."""
        self._background: set[asyncio.Task[None]] = set()
        self.on_change = on_change
        """Told every committed change; the bot sets it once it exists."""
        self.outbox: Outbox | None = None
        """Where each write's webhook events go (Services sets it)."""

    @asynccontextmanager
    async def write(self, guild_id: int) -> AsyncIterator[Unit]:
        """The one write path: a write's transaction. When the Change it sets changes the
        standings, the guild is marked changed in the same transaction (the web pages' ETag,
        the live boards' catch-up at start); the Change is written to the change log in the
        same transaction (other processes hear it through their change feed,
        bot.services.feed), and so are its webhook events (the outbox); once committed, the
        Change goes to `on_change`. A refusal or a rollback reports nothing. Who the events
        go to is read as the write begins, ahead of need: on SQLite the read rides with the
        transaction's next trip to the database instead of one of its own before the commit
        (a write that adds or removes a webhook sends no event)."""
        async with self.db.write(guild_id) as tx:
            subscribed = tx.subscribed(guild_id)
            unit = Unit(tx)
            yield unit
            if unit.change is not None and unit.change.changes_standings and not unit.stamped:
                await tx.mark_changed(guild_id, self.clock())
            if unit.change is not None:
                await record_change(tx, self.db.origin, unit.change, self.clock())
            if unit.events and self.outbox is not None:
                await self.outbox.write(tx, guild_id, unit.events, self.clock(), subscribed)
        if unit.change is not None and self.on_change is not None:
            try:
                self.on_change(unit.change)
            except Exception:  # the write stands whatever a listener does
                log.exception("a change listener failed on %r", unit.change)

    @asynccontextmanager
    async def write_in(self, guild_id: int, within: Unit | None) -> AsyncIterator[Unit]:
        """`within`, a write already open, else a new `write(guild_id)`."""
        if within is not None:
            yield within
            return
        async with self.write(guild_id) as unit:
            yield unit

    def in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` (a cache fill) without waiting for it; `close` waits for it."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def cache_filled(self) -> None:
        """Wait for the cache fills started by earlier reads."""
        while self._background:
            await asyncio.gather(*self._background)

    async def close(self) -> None:
        await self.cache_filled()
        await self.db.close()

    async def settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings; the defaults until its first write."""
        return await self.db.read.guild_settings(guild_id) or self.defaults

    async def member(self, guild_id: int, user_id: int) -> Member:
        member = await self.db.read.member(guild_id, user_id)
        if member is None:
            raise UserError(
                N_("{member} has no ladder record in this server yet"), member=f"<@{user_id}>"
            )
        return member

    @staticmethod
    async def load(tx: WriteTransaction, guild_id: int, match_id: int) -> Match:
        match = await tx.match(guild_id, match_id)
        if match is None:
            raise not_found(match_id)
        return match
