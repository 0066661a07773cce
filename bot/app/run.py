"""`ladderbot run`: config -> token -> database -> the bot; bad setup is one line, status 2."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import discord

from bot.app.bot import create_bot
from bot.config import Config, ConfigError, load_config
from bot.services import Ladder
from bot.storage import DatabaseUnavailable, redacted

EXIT_OK = 0
EXIT_BAD_SETUP = 2
AIOSQLITE_STOP_SECONDS = 0.2


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
    try:
        return asyncio.run(_serve(config, token))
    except KeyboardInterrupt:
        return EXIT_OK


async def _serve(config: Config, token: str) -> int:
    try:
        location = config.database.location()
        ladder = await Ladder.open(location, config, fill_cache=True)
    except ConfigError as error:
        return _fail(f"{config.source}: {error}")
    except DatabaseUnavailable as error:
        # aiosqlite stops its worker thread without waiting for it; let it finish before the
        # event loop closes, or it prints a traceback after our one line.
        await asyncio.sleep(AIOSQLITE_STOP_SECONDS)
        key = "path" if config.database.url is None else "url"
        return _fail(f"{config.source}: [database] {key} {redacted(location)!r}: {error}")
    bot = create_bot(config, ladder)
    stopping: set[asyncio.Task[None]] = set()
    asyncio.get_running_loop().add_signal_handler(
        signal.SIGTERM, lambda: stopping.add(asyncio.create_task(bot.close()))
    )
    try:
        async with bot:
            await bot.start(token)
    except discord.LoginFailure:
        return _fail(f"Discord refused the token in ${config.discord.token_env}: check it")
    except discord.PrivilegedIntentsRequired:
        return _fail("enable the Server Members intent of this bot in the Developer Portal")
    finally:
        await ladder.close()
    return EXIT_OK
