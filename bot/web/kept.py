"""The web's one single-flight LRU: the newest `size` results by key, each made once — who
asks for a result being made waits for that one — and a failure forgotten (the next ask
makes it again). The responses by ETag (bot.web.app) and the whole-board reads by guild
stamp (bot.web.reading) both keep theirs here."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

Value = TypeVar("Value")


class Kept(Generic[Value]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, asyncio.Future[Value]] = OrderedDict()

    async def get(self, key: Hashable, make: Callable[[], Awaitable[Value]]) -> Value:
        """The result kept under `key`, else what `make` gives (made in a task of its own,
        so a caller that gives up does not cancel it for the others)."""
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return await asyncio.shield(found)
        making = asyncio.ensure_future(make())
        self._entries[key] = making
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

        def forget_failure(done: asyncio.Future[Value]) -> None:
            failed = done.cancelled() or done.exception() is not None
            if failed and self._entries.get(key) is done:
                del self._entries[key]

        making.add_done_callback(forget_failure)
        return await asyncio.shield(making)
