"""Serving the web application: alone (`ladderbot web`) or inside the bot process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from aiohttp import web

from bot.services import Services
from bot.web.app import create_app

log = logging.getLogger(__name__)


class WebServer:
    """The application on host:port until stopped; `start` raises OSError when it cannot
    listen there (a port in use, a host that is not this machine's)."""

    def __init__(self, services: Services, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._runner = web.AppRunner(create_app(services), access_log=None)

    async def start(self) -> None:
        await self._runner.setup()
        try:
            site = web.TCPSite(self._runner, self.host, self.port)
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            raise
        log.info("web pages on http://%s:%d", self.host, self.port)

    async def stop(self) -> None:
        await self._runner.cleanup()


async def until_stopped() -> None:
    """Wait for SIGINT or SIGTERM (Ctrl-C, a service manager's stop)."""
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signal_number, stopped.set)
    await stopped.wait()
