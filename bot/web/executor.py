"""The web's thread work on a pool of its own (SPEC 11.1).

The services and storage hand their heavy work to threads through asyncio's default executor
(asyncio.to_thread): in the bot process that pool is the bot's. While serving, the loop's
default executor is a RoutedExecutor: work submitted from a web request (the context variable
THREAD_POOL set by the application's middleware, inherited by the tasks the request starts)
goes to the web's own bounded pool, everything else to the default pool as before. A flood of
web requests then queues on the web's WEB_THREADS threads and never in front of a Discord
command's thread work.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextvars import ContextVar
from typing import Any, Final, TypeVar

WEB_THREADS: Final = 1
"""One thread: the web's computations take at most one core's worth of the interpreter's
lock, and queue behind each other, never behind or in front of the bot's."""
THREAD_POOL: ContextVar[Executor | None] = ContextVar("web_thread_pool", default=None)
"""The pool of the web request being served in this context (None: not a web request)."""

Result = TypeVar("Result")
_routed_loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()


class RoutedExecutor(ThreadPoolExecutor):
    """A default executor that sends a web request's work to the web's pool."""

    def submit(self, fn: Callable[..., Result], /, *args: Any, **kwargs: Any) -> Future[Result]:
        pool = THREAD_POOL.get()
        if pool is not None:
            return pool.submit(fn, *args, **kwargs)
        return super().submit(fn, *args, **kwargs)


def route_thread_work(loop: asyncio.AbstractEventLoop) -> None:
    """Make the loop's default executor a RoutedExecutor (once per loop)."""
    if loop not in _routed_loops:
        loop.set_default_executor(RoutedExecutor(thread_name_prefix="asyncio"))
        _routed_loops.add(loop)
