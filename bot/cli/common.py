"""Shared by the command line's commands once one is chosen: the errors that are the user's,
the arguments' types, opening the database for one command, and printing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO, TypeVar

from bot.cli.parsing import EXIT_OK, Handler, Parser, Streams, UsageError
from bot.config import (
    Config,
    ConfigError,
    ascii_whole,
    load_config,
    with_environment,
)
from bot.ratings.gamelist import GameListError
from bot.ratings.rep import RepError
from bot.services import (
    Actor,
    DatabaseBusy,
    DatabaseUnavailable,
    Services,
    UserError,
    redacted,
)
from bot.services.changes import COMMAND_LINE_ID
from bot.services.lineup import Player, parse_id
from bot.services.progress import shown_by

DEFAULT_CONFIG = "config.toml"


USER_ERRORS: tuple[type[Exception], ...] = (
    UsageError,
    GameListError,
    RepError,
    UserError,
    ConfigError,
    DatabaseBusy,
    DatabaseUnavailable,
)
"""Errors that are the user's input, reported as one line; anything else is a bug."""


def whole_argument(low: int, high: int, what: str) -> Callable[[str], int]:
    """An option's whole number from `low` to `high`, in ASCII digits only (SPEC 7)."""

    def parse(text: str) -> int:
        number = ascii_whole(text, low, high)
        if number is None:
            raise argparse.ArgumentTypeError(
                f"must be {what} from {low:,} to {high:,}, not {text!r}"
            )
        return number

    return parse


CLI_ACTOR = Actor(user_id=COMMAND_LINE_ID, is_moderator=True)
"""The command line acts as a moderator (whoever can open the database file can edit it)."""


Result = TypeVar("Result")


def config_of(arguments: argparse.Namespace) -> Config:
    """The config file (--config, else ./config.toml). Given --db, a missing default file
    means the built-in defaults; without --db the config names the database, so a missing
    one is refused: no command falls back to a database nobody named (SPEC 5)."""
    path = Path(arguments.config or DEFAULT_CONFIG)
    if arguments.db is None and not path.exists():
        raise UsageError(
            f"no database named: give --db PATH|URL, or --config PATH of a config file "
            f"whose [database] names it ({path} does not exist)"
        )
    if arguments.config is None and not path.exists():
        return with_environment(Config())
    return load_config(path)


def location_of(arguments: argparse.Namespace, config: Config) -> str:
    """The database a command works on: --db, else the config's."""
    return config.database.location() if arguments.db is None else str(arguments.db)


async def open_services(location: str, config: Config, *, create: bool) -> Services:
    """The services over the database at `location`; one that cannot be opened is a
    UsageError naming it (its password redacted)."""
    try:
        return await Services.open(location, config, create=create)
    except DatabaseUnavailable as error:
        raise UsageError(f"cannot open the database {redacted(location)}: {error}") from None


def with_services(
    arguments: argparse.Namespace,
    use: Callable[[Services], Awaitable[Result]],
    *,
    creates: bool = False,
) -> Result:
    """Open the database (--db, else the config's path), run `use`, always close it.
    Unless the command `creates` (SPEC 5: report, import, settings, season start), a
    database or guild that does not exist yet is refused: a read never creates one."""
    config = config_of(arguments)
    location = location_of(arguments, config)

    async def session() -> Result:
        services = await open_services(location, config, create=creates)
        try:
            if not creates and await services.settings.stored(arguments.guild) is None:
                raise UsageError(
                    f"the database {redacted(location)} has no guild {arguments.guild} "
                    "(a command that only reads creates none)"
                )
            return await use(services)
        finally:
            await services.close()

    return asyncio.run(session())


def no_numbered_guests(players: Iterable[Player]) -> None:
    """A bare number among players would be a guest of that name: on the command line a
    member is `<@id>`, so a number is refused rather than silently made a guest."""
    for player in players:
        if player.guest is not None and player.guest.isascii() and player.guest.isdigit():
            raise UsageError(
                f"player {player.guest!r} is a bare number, which would be a guest of that "
                f"name: write a member as <@{player.guest}> (a guest's name needs a letter)"
            )


def id_argument(what: str) -> Callable[[str], int]:
    """An argument's Discord or match id (`what`: "guild id", "match id", ...), as the
    services parse ids (bot.services.lineup.parse_id)."""

    def parse(text: str) -> int:
        try:
            return parse_id(text, what)
        except UserError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def on_the_database(command: Parser, handler: Handler) -> None:
    """A command that works on one guild of the database: --guild, --db, --config."""
    command.add_argument("--guild", type=id_argument("guild id"), required=True, metavar="ID")
    command.add_argument(
        "--db", metavar="PATH|URL", help="database file or URL (default: the config's)"
    )
    command.add_argument(
        "--config", metavar="PATH", help=f"config file ({DEFAULT_CONFIG}, if present)"
    )
    command.set_defaults(handler=handler)


def print_lines(lines: Iterable[str], streams: Streams) -> int:
    print("\n".join(lines), file=streams.stdout)
    return EXIT_OK


def print_json(found: object, streams: Streams) -> int:
    print(json.dumps(found), file=streams.stdout)
    return EXIT_OK


@contextlib.contextmanager
def stages_on(stream: TextIO) -> Iterator[None]:
    """A bulk command's stages (bot.services.progress) on a terminal, one line on stderr
    redrawn as each starts, with the time it has taken so far (tqdm); nothing when stderr
    is not a terminal."""
    if not stream.isatty():
        yield
        return
    from tqdm import tqdm

    line = tqdm(
        total=None, file=stream, desc="opening the database", bar_format="{desc} [{elapsed}]"
    )
    try:
        with shown_by(lambda name: line.set_description(name)):
            yield
    finally:
        line.close()
