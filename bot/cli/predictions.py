"""What the ratings predict, on the command line (SPEC 5 and 12): the most even teams
(balance) and how well each measure predicted the guild's matches (evaluate).
"""

from __future__ import annotations

import argparse
import json

from bot.cli.common import (
    no_numbered_guests,
    on_the_database,
    stages_on,
    whole_argument,
    with_services,
)
from bot.cli.parsing import EXIT_OK, Parser, Streams
from bot.present.evaluation import evaluation_table, tuning_table, tuning_verdict, verdict
from bot.present.language import ENGLISH
from bot.present.words import command_line_settings, member_text, rating_text, team_name
from bot.ratings.balance import EXACT_MAX_PLAYERS
from bot.ratings.evaluation import DEFAULT_LAST
from bot.services.evaluation import MAX_LAST, GuildEvaluation
from bot.services.matchups import TeamBalance, parse_players


def run_balance(arguments: argparse.Namespace, streams: Streams) -> int:
    """`balance 'PLAYERS' [--teams N]`: the most even teams, one line per team."""
    players = parse_players(arguments.players)
    no_numbered_guests(players)
    found: TeamBalance = with_services(
        arguments,
        lambda services: services.matchups.balance(arguments.guild, players, arguments.teams),
    )
    several = len(found.teams) > 2
    for number, team in enumerate(found.teams, start=1):
        names = ", ".join(
            f"{entry.name} (guest)"
            if entry.player.user_id is None
            else member_text(entry.name, entry.player.user_id)
            for entry in team.players
        )
        chance = f"wins {team.win_probability:.1%}" + (" against one other team" if several else "")
        print(
            f"{team_name(number)}: average {rating_text(team.average)}, {chance}: {names}",
            file=streams.stdout,
        )
    if several:
        print(
            f"(a team's chance to beat one other team, averaged over the other "
            f"{len(found.teams) - 1}: the {len(found.teams)} chances add up to "
            f"{len(found.teams) / 2:.0%}, not 100%)",
            file=streams.stdout,
        )
    if not found.exact:
        print(
            f"(more than {EXACT_MAX_PLAYERS} players: the best split a heuristic found)",
            file=streams.stdout,
        )
    return EXIT_OK


def run_evaluate(arguments: argparse.Namespace, streams: Streams) -> int:
    """`evaluate [--last N] [--tune] [--json]`: how well each measure predicted the guild's
    last N matches (SPEC 12), and with --tune the ladder's constants tried."""
    with stages_on(streams.stderr):
        found: GuildEvaluation = with_services(
            arguments,
            lambda services: services.evaluation.evaluate(
                arguments.guild, arguments.last, tune=arguments.tune
            ),
        )
    if arguments.json:
        print(json.dumps(found.as_json()), file=streams.stdout)
        return EXIT_OK
    pairs = found.evaluation.scores[0].pairs
    settings_command = command_line_settings(arguments.guild)
    lines = [
        f"evaluated the last {found.evaluation.matches:,} matches ({pairs:,} ordered pairs)",
        *evaluation_table(found, ENGLISH),
        verdict(found, settings_command, ENGLISH),
    ]
    tuning = tuning_verdict(found, settings_command, ENGLISH)
    if tuning is not None:
        lines += [
            "ladder log-loss, t down, game_mult across:",
            *tuning_table(found, ENGLISH),
            tuning,
        ]
    print("\n".join(lines), file=streams.stdout)
    return EXIT_OK


_last_matches = whole_argument(1, MAX_LAST, "a whole number")


_teams = whole_argument(0, 1_000_000, "a whole number")  # the service says 2 to 4


def define_balance(command: Parser) -> None:
    on_the_database(command, run_balance)
    command.add_argument("players", metavar="PLAYERS", help="'<@1> <@2> guest_bob <@3>'")
    command.add_argument("--teams", type=_teams, default=2, metavar="N", help="2 to 4 (default 2)")


def define_evaluate(command: Parser) -> None:
    on_the_database(command, run_evaluate)
    command.add_argument(
        "--last", type=_last_matches, default=DEFAULT_LAST, metavar="N", help="matches (5,000)"
    )
    command.add_argument("--tune", action="store_true", help="also try other ladder constants")
    command.add_argument("--json", action="store_true", help="one JSON object")
