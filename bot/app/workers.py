"""One coalescing worker per guild: what the live boards, the rank roles and the queue
messages share (each follows the change feed and brings Discord in line with the database).

`touch(guild)` marks the guild; its one task (started when none runs) calls `work(guild)`
while the guild stays marked, so a burst of changes costs one run, plus one more for the
changes that came while it ran. `work` returns how long to wait before running again (a
rate limit, a retry), or None when it is done; a failure is logged and run again after
`retry_seconds` (None: only when touched again). `turn(guild)`, when given, is awaited before
each run (a rate limit kept elsewhere); changes that come while it waits join that run.

At shutdown `close` cancels the tasks that wait and lets the runs under way finish (a message
posted is then always recorded, so a restart never posts it twice); past `timeout`, it
cancels them too. What is left is done at the next start (each user catches up then).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Work = Callable[[int], Awaitable[float | None]]


class GuildWorkers:
    def __init__(
        self,
        what: str,
        work: Work,
        *,
        retry_seconds: float | None = None,
        turn: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.what = what
        """What the work is, for the log ("the live leaderboard")."""
        self._work = work
        self._turn = turn
        self.retry_seconds = retry_seconds
        self._dirty: set[int] = set()
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._running: set[int] = set()
        self._closing = False

    def touch(self, guild_id: int) -> None:
        """The guild needs the work (again); nothing once closing."""
        if self._closing:
            return
        self._dirty.add(guild_id)
        if guild_id not in self._tasks:
            self._tasks[guild_id] = asyncio.create_task(self._run(guild_id))

    async def idle(self) -> None:
        """Wait until no guild needs the work (tests)."""
        while self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def close(self, timeout: float = 3.0) -> None:
        """Stop: the waiting tasks at once, the runs under way after at most `timeout`."""
        self._closing = True
        for guild_id, task in self._tasks.items():
            if guild_id not in self._running:  # waiting for its turn: nothing half done
                task.cancel()
        tasks = list(self._tasks.values())
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout)
            for task in late:
                task.cancel()

    async def _run(self, guild_id: int) -> None:
        try:
            while guild_id in self._dirty and not self._closing:
                if self._turn is not None:
                    try:
                        await self._turn(guild_id)
                    except Exception:  # the work itself then says what is wrong
                        log.exception("could not wait for %s of guild %s", self.what, guild_id)
                self._dirty.discard(guild_id)
                self._running.add(guild_id)
                try:
                    wait = await self._work(guild_id)
                except Exception:
                    log.exception("could not update %s of guild %s", self.what, guild_id)
                    wait = self.retry_seconds
                finally:
                    self._running.discard(guild_id)
                if wait is not None and not self._closing:
                    self._dirty.add(guild_id)
                    await asyncio.sleep(wait)
        finally:
            del self._tasks[guild_id]
