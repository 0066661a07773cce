"""Points discord.py at the fake Discord when FAKE_DISCORD_URL is set (tests only).

On PYTHONPATH for the bot's subprocess, so the test runs `python -m bot run` unmodified.
"""

import os

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

    def _quick_ready_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """The fake sends its one guild at once: no need to wait 2 s for more."""
        _original_init(self, *args, **kwargs)
        self.guild_ready_timeout = 0.05

    discord.state.ConnectionState.__init__ = _quick_ready_init  # type: ignore[method-assign]
