"""The web leaderboard and read API (SPEC 11): aiohttp, read only, over the services."""

from bot.web.app import create_app
from bot.web.serving import WebServer, until_stopped

__all__ = ["WebServer", "create_app", "until_stopped"]
