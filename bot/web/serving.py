"""Serving the web application: alone (`ladderbot web`) or inside the bot process.

Hostile clients do not take the process down (SPEC 11.1):
- a request's headers must arrive within HEADER_SECONDS of its first byte (of the connection,
  for its first request), else the connection is closed; an idle connection is closed after
  IDLE_SECONDS (aiohttp's keep-alive timer, armed from the connection's start);
- at most `max_connections` connections are open at once; one past that is closed as soon as
  it is accepted, before anything is read from it;
- a malformed request gets aiohttp's 400 and at most one log line, never a traceback, and
  such lines at most one a second (with how many were not logged since);
- the web's thread work (asyncio.to_thread, run_in_executor(None)) runs on a pool of its own,
  WEB_THREADS threads (bot.web.executor), not on the bot's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, cast

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_server import Server

from bot.config import WebConfig
from bot.present.words import shorten
from bot.services import Services
from bot.web.app import create_app
from bot.web.executor import WEB_THREADS, route_thread_work

log = logging.getLogger(__name__)

HEADER_SECONDS: Final = 10.0
IDLE_SECONDS: Final = 75.0
REFUSAL_LOG_SECONDS: Final = 1.0
"""At most one line per this many seconds about malformed requests."""
OTHER_FILES: Final = 64
"""File descriptors the process needs beside its web connections (database, Discord, logs)."""
LONGEST_REASON: Final = 160
BACKLOG: Final = 1024
"""Connections the system may hold for the server to accept: a burst of new connections
waits there instead of retrying after a second (the default is 100)."""


class ConnectionGuard:
    """The open connections of one server, and its log of refused requests."""

    def __init__(self, limit: int, clock: Any = time.monotonic) -> None:
        self.limit = limit
        self.open = 0
        self.refused_unlogged = 0
        self._clock = clock
        self._next_line = 0.0

    def refused(self, remote: str | None, error: BaseException | None) -> None:
        """One line about a refused request, unless one was logged within the second."""
        now = self._clock()
        if now < self._next_line:
            self.refused_unlogged += 1
            return
        self._next_line = now + REFUSAL_LOG_SECONDS
        more = f" ({self.refused_unlogged} more not logged)" if self.refused_unlogged else ""
        self.refused_unlogged = 0
        log.warning("refused a malformed request from %s: %s%s", remote, _reason(error), more)


def _reason(error: BaseException | None) -> str:
    """An error as one short line of ASCII (a request's raw bytes may be in its text)."""
    if error is None:
        return "no reason given"
    text = error.message if isinstance(error, HttpProcessingError) else str(error)
    line = " ".join(text.split()) or type(error).__name__
    line = line.encode("ascii", "backslashreplace").decode("ascii")
    return shorten(line, LONGEST_REASON)


class GuardedRequestHandler(RequestHandler):
    """aiohttp's connection handler with a connection limit and a header deadline."""

    def __init__(self, manager: Server, guard: ConnectionGuard, **options: Any) -> None:
        super().__init__(manager, **options)
        self._guard = guard
        self._counted = False
        self._header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self._guard.open >= self._guard.limit:
            cast(asyncio.Transport, transport).abort()  # past the limit: closed, nothing read
            return
        self._guard.open += 1
        self._counted = True
        super().connection_made(transport)
        self._arm_header_deadline()

    def connection_lost(self, exc: BaseException | None) -> None:
        self._disarm_header_deadline()
        if not self._counted:
            return
        self._counted = False
        self._guard.open -= 1
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        requests = self._request_count
        super().data_received(data)
        if self._request_count != requests:
            self._disarm_header_deadline()
        elif data and self._header_deadline is None:
            self._arm_header_deadline()  # the first bytes of the next request

    def _arm_header_deadline(self) -> None:
        self._header_deadline = self._loop.call_later(
            HEADER_SECONDS, self._headers_late, self._request_count
        )

    def _disarm_header_deadline(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _headers_late(self, requests: int) -> None:
        self._header_deadline = None
        if self._request_count == requests:
            self.force_close()

    def log_exception(self, *args: Any, **kw: Any) -> None:
        """aiohttp's log of a request it refused (or of its own failure): one line, limited."""
        error = kw.get("exc_info")
        self._guard.refused(_remote(self), error if isinstance(error, BaseException) else None)


def _remote(handler: RequestHandler) -> str | None:
    peer = handler.peername
    return peer[0] if isinstance(peer, tuple) else peer


class WebServer:
    """The application on the configured host:port until stopped; `start` raises OSError when
    it cannot listen there (a port in use, a host that is not this machine's)."""

    def __init__(self, services: Services, config: WebConfig) -> None:
        self.host = config.host
        self.port = config.port
        self.guard = ConnectionGuard(config.max_connections)
        self._threads = ThreadPoolExecutor(WEB_THREADS, thread_name_prefix="web")
        app = create_app(
            services, frame_ancestors=config.frame_ancestors, thread_pool=self._threads
        )
        self._options: dict[str, Any] = {"keepalive_timeout": IDLE_SECONDS, "access_log": None}
        self._runner = web.AppRunner(app, **self._options)
        self._listener: asyncio.Server | None = None

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        route_thread_work(loop)
        _allow_open_files(self.guard.limit + OTHER_FILES)
        await self._runner.setup()
        server = self._runner.server
        assert server is not None  # set up just now

        def handler() -> GuardedRequestHandler:
            return GuardedRequestHandler(server, self.guard, loop=loop, **self._options)

        try:
            self._listener = await loop.create_server(
                handler, self.host, self.port, reuse_address=True, backlog=BACKLOG
            )
        except BaseException:
            await self._runner.cleanup()
            raise
        log.info("web pages on http://%s:%d", self.host, self.port)

    @property
    def bound_port(self) -> int:
        """The port listened on (the configured one, or the one chosen for port 0)."""
        assert self._listener is not None and self._listener.sockets
        port: int = self._listener.sockets[0].getsockname()[1]
        return port

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        await self._runner.cleanup()
        self._threads.shutdown(wait=False, cancel_futures=True)


def _allow_open_files(needed: int) -> None:
    """Raise the soft limit on open files towards `needed` (up to the hard limit), so the
    connection limit, not the system's, is what refuses connections; one line if it cannot."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    if soft < needed:
        log.warning(
            "the process may open %d files (ulimit -n); [web] max_connections needs about %d",
            soft,
            needed,
        )


async def until_stopped() -> None:
    """Wait for SIGINT or SIGTERM (Ctrl-C, a service manager's stop)."""
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal_number, stopped.set)
    await stopped.wait()
