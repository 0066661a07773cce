"""Confusing output of the command line (issue 17, item 11), one regression test per finding,
and what every command says about itself (--version, --help, the game-list format)."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path

import pytest

from bot.cli import PROGRAM, build_parser
from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services
from bot.storage import Database
from tests.services.worked import GUILD
from tests.test_cli import REPOSITORY, ladderbot, run
from tests.test_cli_db import db_args


def seeded(path: Path) -> Path:
    assert run("report", *db_args(path), "<@1> 1 | <@2> 0")[0] == 0
    return path


def test_an_unknown_command_with_options_gets_no_double_dash_hint(tmp_path: Path) -> None:
    status, out, err = run("vod", "5", "--guild", "100")
    assert (status, out) == (2, "")
    assert "invalid choice: 'vod'" in err
    assert "read as an option" not in err and "put --" not in err


def test_an_unknown_season_action_gets_no_double_dash_hint() -> None:
    status, out, err = run("season", "begin", "x", "--guild", "100")
    assert (status, out) == (2, "")
    assert "invalid choice: 'begin'" in err and "read as an option" not in err


def test_version_prints_the_version_and_no_double_dash_hint() -> None:
    done = ladderbot("--version")
    assert done.returncode == 0 and done.stderr == ""
    assert re.fullmatch(rf"{PROGRAM} \d+\.\d+\.\d+\n", done.stdout)


def test_leaderboard_of_an_unknown_season_names_the_command_line_season_list(
    tmp_path: Path,
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, err = run("leaderboard", *db_args(db), "--season", "x")
    assert (status, out) == (2, "")
    assert "see ladderbot season list)" in err and "/season" not in err


def test_balance_of_three_teams_says_what_the_chances_mean_and_what_they_add_up_to(
    tmp_path: Path,
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, err = run("balance", *db_args(db), "<@1> <@2> ann bob cid dan", "--teams", "3")
    assert (status, err) == (0, "")
    *teams, note = out.splitlines()
    chances = [float(line.split("wins ")[1].split("%")[0]) for line in teams]
    assert all(" against one other team: " in line for line in teams)
    assert sum(chances) == pytest.approx(150, abs=0.2)
    assert note == (
        "(a team's chance to beat one other team, averaged over the other 2: "
        "the 3 chances add up to 150%, not 100%)"
    )


def test_balance_of_two_teams_shows_chances_that_add_up_to_100(tmp_path: Path) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, _ = run("balance", *db_args(db), "<@1> <@2> ann bob")
    assert status == 0 and len(out.splitlines()) == 2 and "other team" not in out
    assert sum(float(line.split("wins ")[1].split("%")[0]) for line in out.splitlines()) == 100


def test_balance_of_bare_numbers_is_refused_with_a_hint_to_write_mentions(
    tmp_path: Path,
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, err = run("balance", *db_args(db), "11 12 13 14")
    assert (status, out) == (2, "")
    assert err == (
        "ladderbot balance: error: player '11' is a bare number, which would be a guest of "
        "that name: write a member as <@11> (a guest's name needs a letter)\n"
    )
    status, out, _ = run("balance", *db_args(db), "<@11> <@12> ann bob7")
    assert status == 0 and "ann (guest)" in out and "bob7 (guest)" in out


def test_report_of_a_bare_number_is_refused_like_balance(tmp_path: Path) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, err = run("report", *db_args(db), "<@1> 1 | <@2> 0, 12 3")
    assert (status, out) == (2, "") and "write a member as <@12>" in err


async def start_season(path: Path, name: str) -> None:
    db = await Database.open(path)
    try:
        await Services.build(ServiceContext(db, GuildSettings())).seasons.start(
            GUILD, Actor(0, is_moderator=True), name
        )
    finally:
        await db.close()


def test_card_after_a_season_start_labels_the_season_record_and_the_all_seasons_win_rate(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cli.sqlite3"
    for lineup in ("<@1> 1 | <@2> 0", "<@1> 1 | <@2> 0"):
        assert run("report", *db_args(db), lineup)[0] == 0
    asyncio.run(start_season(db, "two"))
    assert run("report", *db_args(db), "<@1> 0 | <@2> 1")[0] == 0
    status, out, _ = run("rating", "1", *db_args(db))
    card, stats = out.splitlines()
    assert status == 0
    assert ", this season 1 game (0-0-1), " in card
    assert stats.startswith("all seasons 3 games: ") and "win rate 67%" in stats
    status, out, _ = run("rating", "1", *db_args(db), "--json")
    assert '"games": 1,' in out and '"games_all_seasons": 3,' in out


def test_gr_says_it_prints_elo_units_and_the_card_says_it_shows_ladder_units(
    tmp_path: Path,
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    assert "opponent ratings in Elo units" in ladderbot("gr", "--help").stdout
    status, out, _ = run("rating", "1", *db_args(db))
    assert status == 0 and " (ladder units), RA " in out


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    found = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    return dict(found.choices)


@pytest.mark.parametrize("name", sorted(commands()))
def test_every_command_s_help_opens_with_a_one_line_description(name: str) -> None:
    parser = commands()[name]
    assert parser.description and "\n" not in parser.description
    assert parser.description in " ".join(parser.format_help().split())


def test_the_docs_define_the_game_list_format_and_the_p_commands_point_to_it() -> None:
    rating_math = (REPOSITORY / "docs" / "rating-math.md").read_text()
    assert "### Game lists" in rating_math
    assert "<result><opponent rating> [<opponent name>] [<days ago>]" in rating_math
    for name in ("p1", "p8", "ra", "gr"):
        help_text = " ".join(commands()[name].format_help().split())
        assert "docs/rating-math.md: Game lists" in help_text


def test_finding_7_rating_json_carries_the_chart_ending_at_the_carried_rating(
    tmp_path: Path,
) -> None:
    """Issue 23 finding 7: `rating --json` carries the chart's series, whose last point is
    the season start that moved the rating (match_id null) at the card's rating."""
    db = tmp_path / "cli.sqlite3"
    for _ in range(2):
        assert run("report", *db_args(db), "<@1> 1 | <@2> 0")[0] == 0
    assert run("season", "start", "two", "--carry", "0.5", *db_args(db))[0] == 0
    status, out, _ = run("rating", "1", "--json", *db_args(db))
    card = json.loads(out)
    assert status == 0
    assert [point["match_id"] for point in card["chart"]] == [1, 2, None]
    assert card["chart"][-1]["rating"] == card["rating"] != card["chart"][-2]["rating"]
    assert all(point["at"].endswith("Z") for point in card["chart"])


def test_finding_8_leaderboard_by_p1_prints_plus_and_minus_inf(tmp_path: Path) -> None:
    """Issue 23 finding 8: ±∞ is `+inf` / `-inf` in text and "+inf" / "-inf" in JSON."""
    db = seeded(tmp_path / "cli.sqlite3")
    status, out, _ = run("leaderboard", *db_args(db), "--by", "p1")
    assert status == 0
    assert [line.split()[3] for line in out.splitlines()] == ["+inf", "-inf"]
    assert "undefined" not in out
    rows = json.loads(run("leaderboard", *db_args(db), "--by", "p1", "--json")[1])
    assert [row["value"] for row in rows] == ["+inf", "-inf"]
    rows = json.loads(run("leaderboard", *db_args(db), "--json")[1])
    assert all(isinstance(row["value"], float) for row in rows)


def test_finding_11_report_rating_and_leaderboard_share_one_rating_format(
    tmp_path: Path,
) -> None:
    """Issue 23 finding 11: one decimal for ratings in `report`, `rating` and `leaderboard`
    (not 4, 1 and 2), a member whose name is its id named once, "1 game" not "1 games"."""
    db = tmp_path / "cli.sqlite3"
    status, out, _ = run("report", *db_args(db), "<@1> 1 | <@2> 0")
    assert status == 0
    assert out.splitlines()[1:] == ["1: 500.0 → 520.0 (+20.0)", "2: 500.0 → 480.0 (-20.0)"]
    card = run("rating", "1", *db_args(db))[1]
    assert card.startswith("1: ladder 520.0, rank 1, this season 1 game (1-0-0), ")
    board = run("leaderboard", *db_args(db))[1].splitlines()
    assert board == [
        "   1. 1 ladder 520.0 1 game (1-0-0) provisional",
        "   2. 2 ladder 480.0 1 game (0-0-1) provisional",
    ]
