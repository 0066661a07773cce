"""Starting the Discord bot (SPEC 4) and the web server (SPEC 11) from the command line."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace

from bot.cli.common import (
    DEFAULT_CONFIG,
    config_of,
    location_of,
    open_services,
    whole_argument,
)
from bot.cli.parsing import EXIT_OK, Parser, Streams, UsageError


def run_discord_bot(arguments: argparse.Namespace, streams: Streams) -> int:
    """`run [--config PATH]`: the bot until stopped; a bad config or token exits 2."""
    from bot.app.run import run_bot  # discord.py loads only for this command

    return run_bot(arguments.config)


def run_web(arguments: argparse.Namespace, streams: Streams) -> int:
    """`web [--host H] [--port P]`: the web pages and read API until stopped (SPEC 11)."""
    from bot.web import WebServer, until_stopped  # loaded only for this command

    config = config_of(arguments)
    location = location_of(arguments, config)
    host = arguments.host or config.web.host
    port = config.web.port if arguments.port is None else arguments.port

    async def session() -> None:
        services = await open_services(location, config, create=False)
        try:
            server = WebServer(services, replace(config.web, host=host, port=port))
            try:
                await server.start()
            except OSError as error:
                reason = error.strerror or str(error)
                raise UsageError(f"cannot listen on {host}:{port}: {reason}") from None
            print(f"serving http://{host}:{port} (Ctrl-C stops)", file=streams.stderr, flush=True)
            try:
                await until_stopped()
            finally:
                await server.stop()
        finally:
            await services.close()

    asyncio.run(session())
    return EXIT_OK


_port = whole_argument(1, 65_535, "a port number")


def define_run(command: Parser) -> None:
    command.add_argument(
        "--config", default=DEFAULT_CONFIG, metavar="PATH", help=f"config file ({DEFAULT_CONFIG})"
    )
    command.set_defaults(handler=run_discord_bot)


def define_web(command: Parser) -> None:
    command.add_argument("--host", metavar="H", help="address to listen on ([web] host)")
    command.add_argument("--port", type=_port, metavar="P", help="port ([web] port)")
    command.add_argument(
        "--db", metavar="PATH|URL", help="database file or URL (default: the config's)"
    )
    command.add_argument(
        "--config", metavar="PATH", help=f"config file ({DEFAULT_CONFIG}, if present)"
    )
    command.set_defaults(handler=run_web)
