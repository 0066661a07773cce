"""A real browser for the page tests: Debian's chromium, headless, driven over the Chrome
DevTools Protocol through an aiohttp websocket (no other dependency).

`LADDERBOT_CHROMIUM` names the executable (default: `chromium` on the PATH). Without one the
tests are skipped with the reason, unless CI=true, where that is a failure (.ci/run installs
chromium with apt-get).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

LISTENING = re.compile(r"DevTools listening on (ws://\S+)")
START_SECONDS = 30.0
LOAD_SECONDS = 20.0


def chromium_executable() -> str:
    """The browser to use, else skipped (failed under CI=true) saying why."""
    named = os.environ.get("LADDERBOT_CHROMIUM", "chromium")
    found = shutil.which(named)
    if found is None:
        reason = (
            f"no browser: {named!r} is not an executable on the PATH "
            "(apt-get install chromium, or set LADDERBOT_CHROMIUM)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI needs chromium: {reason}")
        pytest.skip(reason)
    return found


@dataclass
class PageReport:
    """What loading one page showed: console and log errors, failed requests, and whether
    the page is wider than the window (a phone would scroll sideways)."""

    errors: list[str] = field(default_factory=list)
    scroll_width: int = 0
    width: int = 0


class Browser:
    """One headless chromium; `visit` loads a page in a fresh tab and screenshots it."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        session: aiohttp.ClientSession,
        socket: aiohttp.ClientWebSocketResponse,
    ) -> None:
        self.process = process
        self.session = session
        self.socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._events: dict[str, asyncio.Queue[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    @classmethod
    @contextlib.asynccontextmanager
    async def open(cls, executable: str, profile: Path) -> AsyncIterator[Browser]:
        process = await asyncio.create_subprocess_exec(
            executable,
            "--headless=new",
            "--no-sandbox",  # tests may run as root (CI containers)
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--hide-scrollbars",
            "--font-render-hinting=none",
            f"--user-data-dir={profile}",
            "--remote-debugging-port=0",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        draining: asyncio.Task[None] | None = None
        try:
            address = await asyncio.wait_for(_listening(process), START_SECONDS)
            assert process.stderr is not None
            draining = asyncio.create_task(_discard(process.stderr))  # a full pipe blocks it
            session = aiohttp.ClientSession()
            try:
                socket = await session.ws_connect(address, max_msg_size=0)
                browser = cls(process, session, socket)
                try:
                    yield browser
                finally:
                    await browser.close()
            finally:
                await session.close()
        finally:
            if process.returncode is None:
                process.kill()
            await process.wait()
            if draining is not None:
                draining.cancel()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send("Browser.close"), 5)
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader
        await self.socket.close()

    async def _read(self) -> None:
        async for message in self.socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = message.json()
            if "id" in data:
                future = self._waiting.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_result(data)
            else:
                queue = self._events.setdefault(data.get("sessionId", ""), asyncio.Queue())
                queue.put_nowait(data)

    async def send(self, method: str, session: str | None = None, **params: Any) -> Any:
        number = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        message: dict[str, Any] = {"id": number, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        await self.socket.send_json(message)
        answer = await asyncio.wait_for(future, LOAD_SECONDS)
        if "error" in answer:
            raise AssertionError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    async def visit(
        self, url: str, width: int, height: int, scheme: str, screenshot: Path
    ) -> PageReport:
        """Load `url` in a new tab of width x height pixels with the colour scheme, save a
        screenshot of the window, and report what went wrong on the way."""
        target = (await self.send("Target.createTarget", url="about:blank"))["targetId"]
        session = (await self.send("Target.attachToTarget", targetId=target, flatten=True))[
            "sessionId"
        ]
        events = self._events.setdefault(session, asyncio.Queue())
        report = PageReport(width=width)
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                await self.send(f"{domain}.enable", session)
            await self.send(
                "Emulation.setDeviceMetricsOverride",
                session,
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=width < 600,
            )
            await self.send(
                "Emulation.setEmulatedMedia",
                session,
                features=[{"name": "prefers-color-scheme", "value": scheme}],
            )
            await self.send("Page.navigate", session, url=url)
            await asyncio.wait_for(self._loaded(events, report), LOAD_SECONDS)
            await asyncio.sleep(0.2)  # late console messages (none expected)
            self._drain(events, report)
            found = await self.send(
                "Runtime.evaluate",
                session,
                expression="document.documentElement.scrollWidth",
                returnByValue=True,
            )
            report.scroll_width = int(found["result"]["value"])
            shot = await self.send("Page.captureScreenshot", session, format="png")
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        finally:
            await self.send("Target.closeTarget", targetId=target)
        return report

    async def _loaded(self, events: asyncio.Queue[dict[str, Any]], report: PageReport) -> None:
        while True:
            event = await events.get()
            if event["method"] == "Page.loadEventFired":
                return
            _note(event, report)

    @staticmethod
    def _drain(events: asyncio.Queue[dict[str, Any]], report: PageReport) -> None:
        while not events.empty():
            _note(events.get_nowait(), report)


def _note(event: dict[str, Any], report: PageReport) -> None:
    """Keep what counts as a console error: errors logged, uncaught exceptions, failed
    requests and HTTP errors of the page's resources."""
    method, params = event["method"], event.get("params", {})
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        texts = [str(arg.get("value", arg.get("description", ""))) for arg in params["args"]]
        report.errors.append("console: " + " ".join(texts))
    elif method == "Runtime.exceptionThrown":
        report.errors.append("exception: " + params["exceptionDetails"].get("text", ""))
    elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
        entry = params["entry"]
        report.errors.append(f"log: {entry.get('text', '')} {entry.get('url', '')}".strip())
    elif method == "Network.loadingFailed":
        report.errors.append(f"request failed: {params.get('errorText', '')}")
    elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
        response = params["response"]
        report.errors.append(f"HTTP {response['status']}: {response['url']}")


async def _listening(process: asyncio.subprocess.Process) -> str:
    assert process.stderr is not None
    seen: list[str] = []
    while True:
        line = (await process.stderr.readline()).decode(errors="replace")
        if not line:
            raise AssertionError("chromium exited before listening:\n" + "".join(seen[-20:]))
        seen.append(line)
        found = LISTENING.search(line)
        if found:
            return found.group(1)


async def _discard(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass
