"""The one change feed (SPEC 8.7): every committed change, whichever process made it, told to
the listeners of the process that runs the feed.

- A change this process makes goes to the listeners directly (`publish`, the services'
  `on_change`), once its transaction has committed.
- Every change is also written to the change log (bot.storage.changes, `record_change`) in
  the transaction of the write that made it (bot.services.context), naming the process
  that made it: a change is logged exactly when its write commits. The feed reads
  the rows of other processes (other bot processes, the command line): on PostgreSQL when a
  NOTIFY says a guild was written (within milliseconds of the commit), on SQLite (and on
  PostgreSQL if the listening connection is lost) every `poll_seconds`.

The feed tells every change to its listener; which guilds a process acts on (its shards,
SPEC 8.4) is for the listeners to decide.

Rows are numbered when they are written, before their transaction commits, so on PostgreSQL
(where writes to different guilds run in parallel) a higher number may become visible before
a lower one: a number skipped over is remembered as a gap and looked for again for
`GAP_SECONDS` (a rolled-back write leaves a gap for good). On SQLite writes commit one at a
time, in number order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Final, cast

from bot.services.changes import Change, ChangeKind, ChangeListener
from bot.storage import Database, WriteTransaction
from bot.storage.changes import StoredChange

log = logging.getLogger(__name__)

POLL_SECONDS: Final = 2.0
"""How often the change log is read without notifications (SQLite; SPEC 8.7 allows 30 s):
one indexed statement that finds nothing new, most of the time."""
NOTIFIED_POLL_SECONDS: Final = 10.0
"""How often it is read anyway with PostgreSQL's notifications (in case one is lost)."""
GAP_SECONDS: Final = 5.0
"""How long a skipped change number is looked for again (a write committing late)."""
BATCH: Final = 1000
MAX_GAPS: Final = 10_000
MAX_MEMBERS: Final = 1000
"""A change naming more members is logged as one of everyone's (an import of a big guild)."""


async def record_change(tx: WriteTransaction, origin: str, change: Change, now: float) -> None:
    """Write `change` to the change log in the transaction that made it."""
    many = len(change.member_ids) > MAX_MEMBERS
    await tx.record_change(
        change.guild_id,
        origin,
        change.kind,
        match_id=change.match_id,
        actor_id=change.actor_id,
        everyone=change.everyone or many,
        member_ids=() if many else change.member_ids,
        detail=change.detail,
        now=now,
    )


def change_of(stored: StoredChange) -> Change:
    return Change(
        stored.guild_id,
        cast(ChangeKind, stored.kind),
        frozenset(stored.member_ids),
        everyone=stored.everyone,
        match_id=stored.match_id,
        actor_id=stored.actor_id,
        detail=stored.detail,
    )


class ChangeFeed:
    """Tells `listener` every change: this process's at once (`publish`), other processes'
    from the change log once `start`ed."""

    def __init__(
        self,
        db: Database,
        listener: ChangeListener,
        *,
        poll_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.listener = listener
        self.poll_seconds = poll_seconds
        """None: POLL_SECONDS, or NOTIFIED_POLL_SECONDS once notifications are on."""
        self.clock = clock
        self._cursor = 0
        self._gaps: dict[int, float] = {}  # change number -> when it was found missing
        self._wake = asyncio.Event()
        self._reading = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.notified = False
        """PostgreSQL tells this process of other processes' writes (else: polling only)."""

    def publish(self, change: Change) -> None:
        """A change this process committed (the services' on_change)."""
        self._tell(change)

    def _tell(self, change: Change) -> None:
        try:
            self.listener(change)
        except Exception:  # one listener's failure never stops the feed
            log.exception("a change listener failed on %r", change)

    async def start(self) -> None:
        """Read other processes' changes from now on."""
        self._cursor = await self.db.read.latest_change()
        try:
            self.notified = await self._watch()
        except Exception:
            log.exception("could not listen for changes; polling instead")
        if self.poll_seconds is None:
            self.poll_seconds = NOTIFIED_POLL_SECONDS if self.notified else POLL_SECONDS
        if not self.notified:
            log.info("changes of other processes: polling every %s s", self.poll_seconds)
        self._task = asyncio.create_task(self._run())

    async def _watch(self) -> bool:
        return await self.db.watch_changes(lambda _guild_id: self._wake.set())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_seconds or POLL_SECONDS)
            self._wake.clear()
            try:
                await self.catch_up()
            except Exception:
                log.exception("could not read the change log; trying again")
            if self.notified and not self.db.watching:
                try:  # the listening connection was lost (a restart of PostgreSQL, say)
                    await self._watch()
                    log.info("listening for changes again")
                except Exception as error:
                    log.warning("could not listen for changes again (%s); polling", error)

    async def catch_up(self) -> int:
        """Tell the listener the changes other processes committed since the last call;
        how many."""
        async with self._reading:
            return await self._read()

    async def _read(self) -> int:
        told = 0
        low = min(self._gaps, default=self._cursor + 1)
        while True:
            rows = await self.db.read.changes_from(low, BATCH)
            now = self.clock()
            advanced = False
            for row in rows:
                if row.seq in self._gaps:
                    del self._gaps[row.seq]
                elif row.seq > self._cursor:
                    if row.seq - self._cursor <= MAX_GAPS:
                        self._gaps.update(dict.fromkeys(range(self._cursor + 1, row.seq), now))
                    self._cursor = row.seq
                    advanced = True
                else:
                    continue  # told before
                if row.origin != self.db.origin:
                    self._tell(change_of(row))
                    told += 1
            if len(rows) < BATCH or not advanced:
                break
            low = self._cursor + 1
        for seq, since in list(self._gaps.items()):
            if now - since > GAP_SECONDS:
                del self._gaps[seq]
        return told
