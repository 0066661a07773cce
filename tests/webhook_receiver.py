"""A real HTTP receiver of webhook deliveries on 127.0.0.1 (aiohttp, in a thread of its own,
so plain and async tests alike use it): it records every request and answers as planned."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web


@dataclass(frozen=True, slots=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int | str
    """The status answered, or the planned answer's name ("slow", "redirect", "pause")."""

    @property
    def json(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.body)
        return found

    def signed_by(self, secret: str) -> bool:
        signed = self.headers["X-Ladderbot-Timestamp"].encode() + b"." + self.body
        expected = "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers["X-Ladderbot-Signature"])


class Receiver:
    """Answers each POST with the next answer planned for its path (an HTTP status, "slow":
    sleep past any client's timeout, "redirect": a 302 to /elsewhere, "pause": 200 after
    50 ms), else 200."""

    def __init__(self, slow_seconds: float = 3.0) -> None:
        self.slow_seconds = slow_seconds
        self.received: list[Received] = []
        self.plans: dict[str, list[int | str]] = {}
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None
        self.port = 0

    def url(self, path: str = "/in") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> Receiver:
        if not self._thread.is_alive():
            self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def stop(self) -> None:
        """Stop listening (the port stays this receiver's: `start` again listens on it)."""
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)

    def close(self) -> None:
        self.stop()
        asyncio.run_coroutine_threadsafe(self._cancel_the_rest(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)

    @staticmethod
    async def _cancel_the_rest() -> None:
        """End the answers still under way (a "slow" one) before the loop stops."""
        rest = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in rest:
            task.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route("POST", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.2)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
        await site.start()
        if not self.port:
            server = site._server
            assert isinstance(server, asyncio.base_events.Server)
            self.port = server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        plan = self.plans.get(request.path)
        answer: int | str = plan.pop(0) if plan else 200
        with self._cond:
            self.received.append(Received(request.path, dict(request.headers), body, answer))
            self._cond.notify_all()
        if answer == "slow":
            await asyncio.sleep(self.slow_seconds)
            return web.Response(status=200)
        if answer == "pause":
            await asyncio.sleep(0.05)
            return web.Response(status=200)
        if answer == "redirect":
            raise web.HTTPFound(location=self.url("/elsewhere"))
        assert isinstance(answer, int)
        return web.Response(status=answer)

    def wait_for(
        self, done: Callable[[list[Received]], bool], timeout: float = 60.0
    ) -> list[Received]:
        """What was received once `done` says it is enough (AssertionError after `timeout`,
        long enough for a loaded machine: the wait ends as soon as `done`)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done(self.received):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"only received {self.events()}")
                self._cond.wait(left)
            return list(self.received)

    async def wait_async(
        self, done: Callable[[list[Received]], bool], timeout: float = 60.0
    ) -> list[Received]:
        return await asyncio.to_thread(self.wait_for, done, timeout)

    def events(self, path: str | None = None) -> list[str]:
        with self._cond:
            return [r.json["event"] for r in self.received if path is None or r.path == path]

    def delivered(self, path: str | None = None) -> list[Received]:
        """Requests answered 2xx, in order."""
        with self._cond:
            return [
                r
                for r in self.received
                if isinstance(r.answered, int)
                and 200 <= r.answered < 300
                and (path is None or r.path == path)
            ]
