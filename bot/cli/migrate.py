"""`ladderbot migrate-db`: copy a whole database into an empty one (SQLite <-> PostgreSQL)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any, TextIO

from bot.cli.parsing import EXIT_OK, Parser, Streams, UsageError
from bot.services import (
    ConnectionLost,
    DatabaseUnavailable,
    redacted,
)


class _RowsBar:
    """migrate-db's progress on a terminal: rows copied of all, by table (tqdm, stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.bar: Any = None

    def __call__(self, table: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if self.bar is None:
            self.bar = tqdm(total=total, file=self.stream, unit=" rows")
        self.bar.set_description(table, refresh=False)
        self.bar.update(done - self.bar.n)
        if done == total:
            self.bar.close()


def run_migrate_db(arguments: argparse.Namespace, streams: Streams) -> int:
    """`migrate-db --from URL --to URL`: copy a whole database into an empty one."""
    from bot.services.migrating import migrate_database

    source, target = arguments.source, arguments.target
    progress = _RowsBar(streams.stderr) if streams.stderr.isatty() else None
    try:
        counts = asyncio.run(migrate_database(source, target, progress))
    except ConnectionLost:  # during the copy: the target is left as it was
        raise
    except DatabaseUnavailable as error:
        raise UsageError(f"cannot open a database: {error}") from None
    rows = ", ".join(f"{table} {count}" for table, count in counts.items())
    print(
        f"copied {redacted(source)} into {redacted(target)} ({rows}); "
        "stored ratings equal a replay of the log",
        file=streams.stdout,
    )
    return EXIT_OK


def define_migrate_db(command: Parser) -> None:
    command.add_argument("--from", dest="source", required=True, metavar="URL")
    command.add_argument("--to", dest="target", required=True, metavar="URL")
    command.set_defaults(handler=run_migrate_db)
