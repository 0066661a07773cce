"""Points discord.py at the fake Discord when FAKE_DISCORD_URL is set (tests only).

On PYTHONPATH for the bot's subprocess, so the test runs `python -m bot run` unmodified.
"""

import os
from typing import Any

_url = os.environ.get("FAKE_DISCORD_URL")
if _url:
    import discord.gateway
    import discord.http
    import discord.state
    import yarl

    discord.http.Route.BASE = f"{_url}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        _url.replace("http", "ws", 1) + "/gateway"
    )

    _original_init = discord.state.ConnectionState.__init__

    def _quick_ready_init(self: discord.state.ConnectionState, *args: Any, **kwargs: Any) -> None:
        """The fake sends its one guild at once: no need to wait 2 s for more."""
        _original_init(self, *args, **kwargs)
        self.guild_ready_timeout = 0.05

    discord.state.ConnectionState.__init__ = _quick_ready_init  # type: ignore[method-assign]

    async def _identify_at_once(
        self: discord.Client, shard_id: int | None, *, initial: bool = False
    ) -> None:
        """The fake has no IDENTIFY rate limit: no need to wait 5 s before each next shard."""

    discord.Client.before_identify_hook = _identify_at_once  # type: ignore[method-assign]

    _origin = os.environ.get("FAKE_DISCORD_ORIGIN")
    if _origin:
        import aiohttp

        _original_session_init = aiohttp.ClientSession.__init__

        def _tagged_session_init(self: aiohttp.ClientSession, *args: Any, **kwargs: Any) -> None:
            """Every request (REST, interaction callbacks, gateway) names this process."""
            kwargs["headers"] = {**(kwargs.get("headers") or {}), "X-Fake-Origin": _origin}
            _original_session_init(self, *args, **kwargs)

        aiohttp.ClientSession.__init__ = _tagged_session_init  # type: ignore[method-assign]

_pick_seconds = os.environ.get("LADDERBOT_TEST_PICK_SECONDS")
if _pick_seconds:
    import bot.services.services

    # the captains' pick timeout (60 s) made short, so a test need not wait a minute; set as
    # the default of Services.build, which took queue_rules.PICK_SECONDS when imported. The
    # map vote keeps its 30 s: its test restarts the bot in the middle of a vote (the
    # deadline itself is tested on the service, tests/services/test_queue_maps.py)
    _build = bot.services.services.Services.build.__func__  # type: ignore[attr-defined]
    _build.__kwdefaults__["pick_seconds"] = float(_pick_seconds)

_webhook_timing = os.environ.get("LADDERBOT_TEST_WEBHOOK_TIMING")
if _webhook_timing:
    import bot.services.delivery

    # the webhook delivery's timeout and retry waits (10 s; 1 s doubling to an hour) made short
    _timeout, _first, _most = (float(part) for part in _webhook_timing.split(","))
    bot.services.delivery.TIMING = bot.services.delivery.Timing(
        timeout=_timeout, first_wait=_first, max_wait=_most, poll_seconds=2.0
    )
