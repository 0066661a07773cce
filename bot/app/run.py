"""`ladderbot run`: config -> token -> the bot, with one clear line and status 2 on bad setup."""

from __future__ import annotations

import logging
import sys

import discord

from bot.app.bot import LadderBot
from bot.config import ConfigError, load_config


def run_bot(config_path: str) -> int:
    """Run until stopped; 2 for a missing/bad config or token (one line on stderr)."""
    try:
        config = load_config(config_path)
        token = config.token()
    except ConfigError as error:
        print(f"ladderbot run: error: {error}", file=sys.stderr)
        return 2
    bot = LadderBot(config)
    try:
        bot.run(token, log_level=logging.INFO, root_logger=True)
    except discord.LoginFailure:
        print(
            f"ladderbot run: error: Discord refused the token in "
            f"${config.discord.token_env}: check it",
            file=sys.stderr,
        )
        return 2
    except discord.PrivilegedIntentsRequired:
        print(
            "ladderbot run: error: enable the Server Members intent of this bot "
            "in the Discord Developer Portal",
            file=sys.stderr,
        )
        return 2
    return 0
