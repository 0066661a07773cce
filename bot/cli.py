"""The `ladderbot` command (also `python -m bot`), SPEC section 5.

Each subcommand is a handler `(arguments, streams) -> exit status` registered in
`build_parser()`. Bad input raises one of `USER_ERRORS`; `main` turns it into one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO, TypeVar

from bot.config import Config, ConfigError, load_config
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.ratings.gamelist import GameListError, parse_games
from bot.ratings.performance import format_rating, format_stability, rating_accuracy, stability
from bot.ratings.rep import RepError, rep
from bot.ratings.testit import testit
from bot.ratings.variants import VARIANTS, Variant, variant_named
from bot.services import Actor, Ladder, UserError, parse_lineup
from bot.services.card import rating_move
from bot.services.lineup import parse_id
from bot.services.matchups import Matchups, TeamBalance, parse_players
from bot.services.standings import MEASURES
from bot.storage import DatabaseBusy, DatabaseUnavailable, redacted

PROGRAM = "ladderbot"
DEFAULT_CONFIG = "config.toml"
EXIT_OK = 0
EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """The command line itself is wrong (unknown command, missing or bad argument)."""


USER_ERRORS: tuple[type[Exception], ...] = (
    UsageError,
    GameListError,
    RepError,
    UserError,
    ConfigError,
    DatabaseBusy,
)
"""Errors that are the user's input, reported as one line; anything else is a bug."""


@dataclass(frozen=True)
class Streams:
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO

    @classmethod
    def standard(cls) -> Streams:
        return cls(sys.stdin, sys.stdout, sys.stderr)


Handler = Callable[[argparse.Namespace, Streams], int]


class _Parser(argparse.ArgumentParser):
    """Raises UsageError instead of printing the usage and exiting; when an argument that
    starts with '-' (a lineup such as '-abc 1 | <@2> 3') was taken for an option, the error
    says to put `--` before it."""

    _arguments: Sequence[str] = ()

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._arguments = list(args or ())
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        if "--" not in self._arguments:
            dashed = [
                argument
                for argument in self._arguments
                if argument.startswith("-")
                and argument.split("=")[0] not in self._option_string_actions
            ]
            if dashed:
                message += (
                    f"; {dashed[0]!r} was read as an option: to give it as an argument,"
                    f" put -- before it ({self.prog} ... -- {dashed[0]!r})"
                )
        raise UsageError(message)


def _variant_argument(name: str) -> Variant:
    try:
        return variant_named(name)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


# --- the p-family tools (SPEC 1) -------------------------------------------------------------


def run_variant(arguments: argparse.Namespace, streams: Streams) -> int:
    """`p1`…`p8`: `RP +UP -DOWN` of the game list on stdin (`ra` adds ` RA=…`)."""
    games = parse_games(streams.stdin)
    line = format_stability(stability(games, arguments.variant))
    if arguments.with_accuracy:
        line += f" RA={rating_accuracy(games):.2f}"
    print(line, file=streams.stdout)
    return EXIT_OK


def run_rep(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rep ARG…`: game lines from STRING COUNT pairs (SPEC 1.2)."""
    for line in rep(arguments.arguments, streams.stdin):
        print(line, file=streams.stdout)
    return EXIT_OK


def run_testit(arguments: argparse.Namespace, streams: Streams) -> int:
    """`testit VARIANT`: the variant over the seed's situations (SPEC 1.7)."""
    for line in testit(arguments.variant):
        print(line, file=streams.stdout)
    return EXIT_OK


def _add_performance_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    for name, variant in VARIANTS.items():
        command = commands.add_parser(
            name, help=f"{variant.summary}: rating of the game list on stdin, as RP +UP -DOWN"
        )
        command.set_defaults(handler=run_variant, variant=variant, with_accuracy=False)
    ra = commands.add_parser("ra", help="as the variant, then the rating accuracy RA")
    ra.add_argument("variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8")
    ra.set_defaults(handler=run_variant, with_accuracy=True)
    rep_command = commands.add_parser(
        "rep", help="print STRING COUNT times for each pair; a lone '-' copies stdin"
    )
    rep_command.add_argument("arguments", nargs=argparse.REMAINDER, metavar="ARG")
    rep_command.set_defaults(handler=run_rep)
    testit_command = commands.add_parser("testit", help="the variant over the seed's situations")
    testit_command.add_argument(
        "variant", type=_variant_argument, metavar="VARIANT", help="p1 … p8"
    )
    testit_command.set_defaults(handler=run_testit)


# --- the Discord bot (SPEC 4) -----------------------------------------------------------------


def run_discord_bot(arguments: argparse.Namespace, streams: Streams) -> int:
    """`run [--config PATH]`: the bot until stopped; a bad config or token exits 2."""
    from bot.app.run import run_bot  # discord.py loads only for this command

    return run_bot(arguments.config)


def _add_bot_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    run_command = commands.add_parser("run", help="run the Discord bot")
    run_command.add_argument(
        "--config", default=DEFAULT_CONFIG, metavar="PATH", help=f"config file ({DEFAULT_CONFIG})"
    )
    run_command.set_defaults(handler=run_discord_bot)


# --- the database commands (SPEC 5) ---------------------------------------------------------

CLI_ACTOR = Actor(user_id=0, is_moderator=True)
"""The command line acts as a moderator (whoever can open the database file can edit it)."""
Result = TypeVar("Result")


def _config(arguments: argparse.Namespace) -> Config:
    """The config file; without one at the default place, the built-in defaults."""
    if arguments.config is None and not Path(DEFAULT_CONFIG).exists():
        return Config()
    return load_config(arguments.config or DEFAULT_CONFIG)


def _with_ladder(
    arguments: argparse.Namespace, use: Callable[[Ladder], Awaitable[Result]]
) -> Result:
    """Open the database (--db, else the config's path), run `use`, always close it."""
    config = _config(arguments)
    location = arguments.db or config.database.location()

    async def session() -> Result:
        try:
            ladder = await Ladder.open(location, config)
        except DatabaseUnavailable as error:
            raise UsageError(f"cannot open the database {redacted(location)}: {error}") from None
        try:
            return await use(ladder)
        finally:
            await ladder.close()

    return asyncio.run(session())


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


def run_gr(arguments: argparse.Namespace, streams: Streams) -> int:
    """`gr MEMBER`: the member's games in the game-list format, newest first (SPEC 1.8)."""

    async def history(ladder: Ladder) -> str:
        member = await ladder.find_member(arguments.guild, arguments.member)
        return await ladder.history_text(arguments.guild, member.user_id)

    streams.stdout.write(_with_ladder(arguments, history))
    return EXIT_OK


def run_report(arguments: argparse.Namespace, streams: Streams) -> int:
    """`report 'LINEUP'`: records and applies one match at once."""
    lineup = parse_lineup(arguments.lineup)

    async def report(ladder: Ladder) -> list[str]:
        result = await ladder.report(
            arguments.guild, CLI_ACTOR, lineup, request_id=f"cli:{uuid.uuid4().hex}"
        )
        lines = [f"match #{result.match.id} {result.match.status}"]
        for p in result.match.participants:
            who = p.name if p.user_id is None else f"{p.name} ({p.user_id})"
            if p.rating_before is None or p.rating_after is None:
                lines.append(f"{who}: not rated")
            else:
                change = p.rating_after - p.rating_before
                lines.append(
                    f"{who}: {p.rating_before:.4f} -> {p.rating_after:.4f} ({change:+.4f})"
                )
        return lines

    print("\n".join(_with_ladder(arguments, report)), file=streams.stdout)
    return EXIT_OK


def run_rating(arguments: argparse.Namespace, streams: Streams) -> int:
    """`rating MEMBER`: the rating card of /rating (text or --json)."""

    async def card(ladder: Ladder) -> dict[str, Any]:
        member = await ladder.find_member(arguments.guild, arguments.member)
        found = await ladder.rating_card(arguments.guild, member.user_id, arguments.variant)
        return {
            "user_id": member.user_id,
            "name": member.name,
            "rating": found.rating,
            "rank": found.rank,
            "games": found.games,
            "wins": found.wins,
            "draws": found.draws,
            "losses": found.losses,
            "variant": found.variant,
            "performance": _finite_or_none(found.performance),
            "performance_text": format_rating(found.performance),
            "up": _finite_or_none(found.up),
            "down": _finite_or_none(found.down),
            "ra": found.ra,
            "provisional": found.provisional,
            "inactive": found.inactive,
            "peak": found.stats.peak,
            "streak": found.stats.streak,
            "win_rate": found.stats.win_rate,
            "form": [
                {
                    "match_id": entry.match_id,
                    "played_at": entry.played_at,
                    "result": entry.result,
                    "rating_before": entry.rating_before,
                    "rating_after": entry.rating_after,
                    "shown": rating_move(entry.rating_before, entry.rating_after),
                }
                for entry in found.stats.form
            ],
        }

    found = _with_ladder(arguments, card)
    if arguments.json:
        print(json.dumps(found), file=streams.stdout)
        return EXIT_OK
    rank = "unranked" if found["rank"] is None else f"rank {found['rank']}"
    performance = found["performance_text"]
    if found["up"] is not None:
        performance += f" +{format_rating(found['up'])} -{format_rating(found['down'])}"
    print(
        f"{found['name']} ({found['user_id']}): ladder {found['rating']:.1f}, {rank}, "
        f"{found['games']} games ({found['wins']}-{found['draws']}-{found['losses']}), "
        f"{found['variant']} {performance}, RA {found['ra']:.2f}"
        + (", provisional" if found["provisional"] else "")
        + (", inactive" if found["inactive"] else ""),
        file=streams.stdout,
    )
    if found["form"]:
        print(
            f"peak {found['peak']:.1f}, streak {found['streak']}, "
            f"win rate {found['win_rate']:.0%}; recent: "
            + "; ".join(f"#{e['match_id']} {e['result']} {e['shown']}" for e in found["form"]),
            file=streams.stdout,
        )
    return EXIT_OK


def run_leaderboard(arguments: argparse.Namespace, streams: Streams) -> int:
    """`leaderboard [--by MEASURE] [--season NAME]`: every ranked member, or a closed
    season's closing standings (text or --json)."""

    async def board(ladder: Ladder) -> list[dict[str, Any]]:
        page = await ladder.leaderboard(
            arguments.guild, arguments.by, page_size=0, season=arguments.season
        )
        return [
            {
                "rank": row.rank,
                "user_id": row.user_id,
                "name": row.name,
                "rating": row.rating,
                "value": _finite_or_none(row.value),
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "provisional": row.provisional,
            }
            for row in page.rows
        ]

    rows = _with_ladder(arguments, board)
    if arguments.json:
        print(json.dumps(rows), file=streams.stdout)
        return EXIT_OK
    for row in rows:
        value = "undefined" if row["value"] is None else f"{row['value']:.2f}"
        print(
            f"{row['rank']:>4}. {row['name']} ({row['user_id']}) {arguments.by} {value} "
            f"{row['games']} games ({row['wins']}-{row['draws']}-{row['losses']})"
            + (" provisional" if row["provisional"] else ""),
            file=streams.stdout,
        )
    return EXIT_OK


def run_export(arguments: argparse.Namespace, streams: Streams) -> int:
    """`export`: every match of the guild as CSV on stdout."""
    streams.stdout.write(_with_ladder(arguments, lambda ladder: ladder.export_csv(arguments.guild)))
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
    result = _with_ladder(
        arguments, lambda ladder: ladder.import_csv(arguments.guild, CLI_ACTOR, data)
    )
    seasons = f", {result.seasons} season starts" if result.seasons else ""
    print(
        f"imported {result.matches} matches{seasons}, replayed {result.replayed}, "
        f"skipped {result.skipped} already in the guild",
        file=streams.stdout,
    )
    return EXIT_OK


def run_recompute(arguments: argparse.Namespace, streams: Streams) -> int:
    """`recompute`: replays the guild from its log."""
    replayed = _with_ladder(arguments, lambda ladder: ladder.recompute(arguments.guild, CLI_ACTOR))
    print(f"replayed {replayed} matches", file=streams.stdout)
    return EXIT_OK


def run_balance(arguments: argparse.Namespace, streams: Streams) -> int:
    """`balance 'PLAYERS' [--teams N]`: the most even teams, one line per team."""
    players = parse_players(arguments.players)
    found: TeamBalance = _with_ladder(
        arguments,
        lambda ladder: Matchups(ladder).balance(arguments.guild, players, arguments.teams),
    )
    for number, team in enumerate(found.teams, start=1):
        names = ", ".join(
            entry.name if entry.player.user_id is None else f"{entry.name} ({entry.player.user_id})"
            for entry in team.players
        )
        print(
            f"team {number}: average {team.average:.1f}, wins {team.win_probability:.1%}: {names}",
            file=streams.stdout,
        )
    if not found.exact:
        print(
            f"(more than {EXACT_MAX_PLAYERS} players: the best split a heuristic found)",
            file=streams.stdout,
        )
    return EXIT_OK


def _guild_id(text: str) -> int:
    try:
        return parse_id(text, "guild id")
    except UserError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _add_database_commands(commands: argparse._SubParsersAction[_Parser]) -> None:
    def database_command(name: str, handler: Handler, help_text: str) -> _Parser:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--guild", type=_guild_id, required=True, metavar="ID")
        command.add_argument(
            "--db", metavar="PATH|URL", help="database file or URL (default: the config's)"
        )
        command.add_argument(
            "--config", metavar="PATH", help=f"config file ({DEFAULT_CONFIG}, if present)"
        )
        command.set_defaults(handler=handler)
        return command

    gr = database_command("gr", run_gr, "a member's games in the game-list format")
    gr.add_argument("member", metavar="MEMBER", help="user id or display name")
    report = database_command("report", run_report, "record and apply a match")
    report.add_argument("lineup", metavar="LINEUP", help="'<@1> 1200 18, <@2> 900 | <@3> 1500'")
    rating = database_command("rating", run_rating, "a member's rating card")
    rating.add_argument("member", metavar="MEMBER", help="user id or display name")
    rating.add_argument("--variant", choices=list(VARIANTS), help="p1 … p8 (guild default)")
    rating.add_argument("--json", action="store_true", help="one JSON object")
    board = database_command("leaderboard", run_leaderboard, "the whole leaderboard")
    board.add_argument("--by", choices=list(MEASURES), default="ladder", metavar="MEASURE")
    board.add_argument("--season", metavar="NAME", help="a closed season's closing standings")
    board.add_argument("--json", action="store_true", help="a JSON list")
    database_command("export", run_export, "every match as CSV")
    imported = database_command("import", run_import, "matches from a CSV file, all or nothing")
    imported.add_argument("file", metavar="FILE", help="CSV file ('-' for stdin)")
    database_command("recompute", run_recompute, "replay the guild from its log")
    balance = database_command("balance", run_balance, "split players into even teams")
    balance.add_argument("players", metavar="PLAYERS", help="'<@1> <@2> guest_bob <@3>'")
    balance.add_argument("--teams", type=int, default=2, metavar="N", help="2 to 4 (default 2)")


class _ProgressBar:
    """migrate-db's progress on a terminal: one line redrawn in place on stderr."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def __call__(self, table: str, done: int, total: int) -> None:
        filled = self.WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} rows ({table})\x1b[K")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def run_migrate_db(arguments: argparse.Namespace, streams: Streams) -> int:
    """`migrate-db --from URL --to URL`: copy a whole database into an empty one."""
    from bot.services.migrating import migrate_database

    source, target = arguments.source, arguments.target
    progress = _ProgressBar(streams.stderr) if streams.stderr.isatty() else None
    try:
        counts = asyncio.run(migrate_database(source, target, progress))
    except DatabaseUnavailable as error:
        raise UsageError(f"cannot open a database: {error}") from None
    rows = ", ".join(f"{table} {count}" for table, count in counts.items())
    print(
        f"copied {redacted(source)} into {redacted(target)} ({rows}); "
        "stored ratings equal a replay of the log",
        file=streams.stdout,
    )
    return EXIT_OK


def _add_migrate_command(commands: argparse._SubParsersAction[_Parser]) -> None:
    command = commands.add_parser(
        "migrate-db", help="copy a whole database into an empty one (SQLite <-> PostgreSQL)"
    )
    command.add_argument("--from", dest="source", required=True, metavar="URL")
    command.add_argument("--to", dest="target", required=True, metavar="URL")
    command.set_defaults(handler=run_migrate_db)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROGRAM, description="Ranked matches: ladder and performance ratings.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_performance_commands(commands)
    _add_bot_command(commands)
    _add_database_commands(commands)
    _add_migrate_command(commands)
    return parser


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = build_parser()
    if argv[:1] == ["rep"] and list(argv[1:]) not in (["-h"], ["--help"]):
        # rep's arguments are game text such as '-R playerX' or '-': never options.
        return argparse.Namespace(command="rep", handler=run_rep, arguments=list(argv[1:]))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, streams: Streams | None = None) -> int:
    """Run one `ladderbot` command; returns the exit status."""
    streams = streams or Streams.standard()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = PROGRAM
    try:
        arguments = parse_arguments(argv)
        command = f"{PROGRAM} {arguments.command}"
        handler: Handler = arguments.handler
        return handler(arguments, streams)
    except USER_ERRORS as error:
        print(f"{command}: error: {error}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except (UnicodeDecodeError, UnicodeEncodeError) as error:  # bytes that are not UTF-8
        print(f"{command}: error: the text is not valid UTF-8: {error.reason}", file=streams.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exit_request:  # --help
        return exit_request.code if isinstance(exit_request.code, int) else EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`ladderbot rep ... | head`): stop quietly.
        if streams.stdout is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
