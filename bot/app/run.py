"""`ladderbot run`: config -> token -> database -> the bot; bad setup is one line, status 2."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import signal
import sys
from collections.abc import Iterator

import aiohttp
import discord

from bot.app.bot import create_bot
from bot.config import Config, ConfigError, load_config
from bot.present.words import shorten
from bot.services import DatabaseBusy, DatabaseUnavailable, Services, redacted

EXIT_OK = 0
EXIT_BAD_SETUP = 2
FIRST_RETRY_SECONDS = 1.0
LONGEST_RETRY_SECONDS = 300.0
"""Waits between attempts to reach Discord: doubling from the first, at most 5 minutes."""
UNREACHABLE = (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError)
"""What a start raises when Discord cannot be reached: no network, a DNS failure, a refused
or dropped connection, Discord answering 5xx."""


class DatabaseFaultsInOneLine(logging.Filter):
    """A database fault (busy, or unavailable: an outage) that a background task or
    discord.py logs with its traceback becomes one warning line naming it (SPEC 8.8): it is
    the database's state, not a bug, and the work is tried again on its next turn."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, discord.app_commands.CommandInvokeError):
            error = error.original
        if isinstance(error, DatabaseBusy | DatabaseUnavailable):
            record.msg = f"{record.getMessage()}: {error}"
            record.args = None
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _fail(message: str) -> int:
    print(f"ladderbot run: error: {message}", file=sys.stderr)
    return EXIT_BAD_SETUP


def run_bot(config_path: str) -> int:
    """Run until stopped (Ctrl-C or SIGTERM close it cleanly); 2 for a bad config or token."""
    try:
        config = load_config(config_path)
        token = config.token()
    except ConfigError as error:
        return _fail(str(error))
    discord.utils.setup_logging(level=logging.INFO, root=True)
    for handler in logging.getLogger().handlers:
        handler.addFilter(DatabaseFaultsInOneLine())
    try:
        return asyncio.run(_serve(config, token))
    except KeyboardInterrupt:
        return EXIT_OK


async def _serve(config: Config, token: str) -> int:
    try:
        location = config.database.location()
        services = await Services.open(location, config, fill_cache=True)
    except ConfigError as error:
        return _fail(f"{config.source}: {error}")
    except DatabaseUnavailable as error:
        key = "path" if config.database.url is None else "url"
        return _fail(f"{config.source}: [database] {key} {redacted(location)!r}: {error}")
    try:
        web = None
        if config.web.enabled:  # SPEC 11.1: the pages from the bot process too
            from bot.web import WebServer

            web = WebServer(services, config.web)
            try:
                await web.start()
            except OSError as error:
                where = f"{config.web.host}:{config.web.port}"
                return _fail(f"{config.source}: [web] cannot listen on {where}: {error}")
        try:
            return await _run_until_stopped(config, services, token)
        finally:
            if web is not None:
                await web.stop()
    finally:
        await services.close()


async def _run_until_stopped(config: Config, services: Services, token: str) -> int:
    """Connect and run; while Discord cannot be reached, one line per attempt and a new
    attempt after a growing wait (a fresh bot each time: a failed start leaves a closed
    one). SIGTERM stops it, waiting or running."""
    stopped = asyncio.Event()
    current: list[discord.Client] = []
    closing: set[asyncio.Task[None]] = set()

    def stop() -> None:
        stopped.set()
        closing.update(asyncio.create_task(bot.close()) for bot in current)

    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop)
    waits = retry_waits()
    for attempt in itertools.count(1):
        bot = create_bot(config, services)
        current[:] = [bot]
        try:
            async with bot:
                await bot.start(token)
            return EXIT_OK
        except discord.LoginFailure:
            return _fail(f"Discord refused the token in ${config.discord.token_env}: check it")
        except discord.PrivilegedIntentsRequired:
            return _fail("enable the Server Members intent of this bot in the Developer Portal")
        except UNREACHABLE as error:
            if stopped.is_set():
                return EXIT_OK
            wait = next(waits)
            print(
                f"ladderbot run: cannot reach Discord (attempt {attempt}: {_reason(error)}); "
                f"trying again in {wait:g} s",
                file=sys.stderr,
                flush=True,
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopped.wait(), wait)
            if stopped.is_set():
                return EXIT_OK
    raise AssertionError("itertools.count never ends")


def retry_waits() -> Iterator[float]:
    wait = FIRST_RETRY_SECONDS
    while True:
        yield wait
        wait = min(2 * wait, LONGEST_RETRY_SECONDS)


def _reason(error: BaseException) -> str:
    """One line on why Discord could not be reached."""
    text = " ".join(str(error).split()) or type(error).__name__
    return shorten(text, 200)
