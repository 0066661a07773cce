"""The commands on a guild's whole match log (SPEC 5): export, import and recompute, each
showing its stages on a terminal."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot.cli.common import CLI_ACTOR, on_the_database, stages_on, with_services
from bot.cli.parsing import EXIT_OK, Parser, Streams, UsageError
from bot.present.words import imported_text, recompute_text


def run_export(arguments: argparse.Namespace, streams: Streams) -> int:
    """`export`: every match of the guild as CSV on stdout."""
    with stages_on(streams.stderr):
        text = with_services(
            arguments, lambda services: services.transfers.export_csv(arguments.guild)
        )
    streams.stdout.write(text)
    return EXIT_OK


def run_import(arguments: argparse.Namespace, streams: Streams) -> int:
    """`import FILE`: matches from CSV ('-': stdin), all or nothing. The bytes go to the
    import as they are (it decodes them and names the line of a bad one)."""
    try:
        if arguments.file != "-":
            data: bytes | str = Path(arguments.file).read_bytes()
        elif hasattr(streams.stdin, "buffer"):
            data = streams.stdin.buffer.read()
        else:  # an in-memory text stream
            data = streams.stdin.read()
    except OSError as error:
        raise UsageError(f"cannot read {arguments.file}: {error}") from None
    with stages_on(streams.stderr):
        result = with_services(
            arguments,
            lambda services: services.transfers.import_csv(arguments.guild, CLI_ACTOR, data),
            creates=True,
        )
    print(
        imported_text(result.matches, result.seasons, result.replayed, result.skipped),
        file=streams.stdout,
    )
    return EXIT_OK


def run_recompute(arguments: argparse.Namespace, streams: Streams) -> int:
    """`recompute`: replays the guild from its log."""
    with stages_on(streams.stderr):
        replayed = with_services(
            arguments, lambda services: services.settings.recompute(arguments.guild, CLI_ACTOR)
        )
    print(recompute_text(replayed), file=streams.stdout)
    return EXIT_OK


def define_export(command: Parser) -> None:
    on_the_database(command, run_export)


def define_import(command: Parser) -> None:
    on_the_database(command, run_import)
    command.add_argument("file", metavar="FILE", help="CSV file ('-' for stdin)")


def define_recompute(command: Parser) -> None:
    on_the_database(command, run_recompute)
