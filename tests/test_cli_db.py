"""The database commands of `ladderbot` (SPEC 5), run in-process through bot.cli.main."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from bot.ratings.elo import EloBridge
from tests.services.worked import EXAMPLES, GUILD, set_up
from tests.test_cli import run


def db_args(path: Path, guild: int = GUILD) -> list[str]:
    return ["--guild", str(guild), "--db", str(path)]


def exported(path: Path, guild: int = GUILD) -> list[dict[str, str]]:
    status, out, _ = run("export", *db_args(path, guild))
    assert status == 0
    return list(csv.DictReader(io.StringIO(out)))


@pytest.mark.parametrize(("before", "lineup", "changes"), EXAMPLES)
def test_worked_example_through_cli(
    tmp_path: Path, before: dict[int, float], lineup: str, changes: dict[int, float]
) -> None:
    db = tmp_path / "cli.sqlite3"
    for user, target in before.items():
        for text in set_up(user, target):
            assert run("report", *db_args(db), text)[0] == 0
    status, out, err = run("report", *db_args(db), lineup)
    assert (status, err) == (0, "")
    rows = exported(db)
    last = rows[-1]["match"]
    got = {
        int(row["player"]): float(row["rating_after"]) - float(row["rating_before"])
        for row in rows
        if row["match"] == last
    }
    assert got == pytest.approx(changes, abs=1e-4)
    assert out.startswith(f"match {last} applied")  # an export labels it #<id>


def test_rating_leaderboard_gr_and_json(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    assert run("report", *db_args(db), "<@1> 40, <@2> 30, <@3> 20, <@4> 10")[0] == 0
    assert run("report", *db_args(db), "<@2> 1 | <@1> 0")[0] == 0
    status, out, _ = run("leaderboard", *db_args(db), "--json")
    board = json.loads(out)
    assert status == 0
    assert [row["rank"] for row in board] == [1, 2, 3, 4]
    assert {"rank", "user_id", "name", "rating", "games", "wins", "draws", "losses"} <= set(
        board[0]
    )
    ratings = [row["rating"] for row in board]
    assert ratings == sorted(ratings, reverse=True)
    assert sum(ratings) == pytest.approx(4 * 500.0)  # zero-sum from 500 each
    first = next(row for row in board if row["user_id"] == 1)
    assert (first["games"], first["wins"], first["losses"]) == (2, 1, 1)

    status, out, _ = run("rating", "1", *db_args(db), "--json", "--variant", "p3")
    card = json.loads(out)
    assert {
        "user_id",
        "rating",
        "rank",
        "games",
        "performance",
        "up",
        "down",
        "ra",
        "variant",
    } <= set(card)
    assert card["variant"] == "p3"
    assert card["rating"] == first["rating"]
    # Member 1 met 2 twice, 3 and 4 once: RA = √2 + 1 + 1.
    assert card["ra"] == pytest.approx(2**0.5 + 2)

    status, out, _ = run("gr", "1", *db_args(db))
    lines = out.splitlines()
    assert status == 0
    assert lines[0].startswith("-") and lines[0].split()[1] == "2"  # newest first: lost to 2
    assert len(lines) == 4

    # gr speaks Elo units: piped into p3 it gives the card's performance, converted.
    status, out, _ = run("p3", stdin="\n".join(lines))
    assert status == 0
    assert int(out.split()[0]) == round(EloBridge(120.0, 500.0).to_elo(card["performance"]))


def test_import_export_round_trip_and_recompute(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    run("report", *db_args(db), "<@1> 5 10 | <@2> 3 12, guest 4")
    run("report", *db_args(db), "<@2> 1 | <@3> 1")
    csv_file = tmp_path / "matches.csv"
    csv_file.write_text(run("export", *db_args(db))[1])
    status, out, _ = run("import", *db_args(db, 9), str(csv_file))
    assert (status, out.strip()) == (
        0,
        "imported 2 matches, replayed 2, skipped 0 already in the guild",
    )
    original = {(r["player"], r["rating_after"]) for r in exported(db)}
    copied = {(r["player"], r["rating_after"]) for r in exported(db, 9)}
    assert copied == original
    assert (
        run("recompute", *db_args(db, 9))[1].strip() == "replayed 2 matches; nothing stored changed"
    )
    assert {(r["player"], r["rating_after"]) for r in exported(db, 9)} == original


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "<@1> nan | <@2> 1"], "'nan' is not a number"),
        (["report", "<@1> 1 | <@1> 0"], "appears twice"),
        (["gr", "404"], "no member with id 404"),
        (["rating", "nobody"], "no member named 'nobody'"),
        (["leaderboard", "--by", "p9"], "invalid choice"),
        (["import", "/nonexistent/file.csv"], "cannot read"),
    ],
)
def test_errors_are_one_line_and_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    db = tmp_path / "cli.sqlite3"
    assert run("report", *db_args(db), "<@1> 1 | <@2> 0")[0] == 0
    command, *rest = argv
    status, out, err = run(command, *db_args(db), *rest)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err


def test_bad_config_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[defaults]\nt = 'abc'\n")
    status, _, err = run("recompute", "--guild", "1", "--config", str(config))
    assert status == 2
    assert "[defaults] t must be a number from 1 to 10,000, got 'abc'" in err


def test_config_gives_database_path(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    db = tmp_path / "from-config.sqlite3"
    config.write_text(f'[database]\npath = "{db}"\n')
    status, _, _ = run("report", "--guild", "1", "--config", str(config), "<@1> 1 | <@2> 0")
    assert status == 0 and db.exists()


def test_leaderboard_of_a_closed_season_and_its_refusals(tmp_path: Path) -> None:
    """Season starts come in through a CSV (SPEC 9.1); --season shows closing standings."""
    db = tmp_path / "cli.sqlite3"
    csv_file = tmp_path / "seasons.csv"
    csv_file.write_text(
        "match,played_at,side,player,score,minutes\n"
        "m1,2024-01-01T10:00:00Z,a,1,1,10\nm1,2024-01-01T10:00:00Z,b,2,0,10\n"
        "season:winter,2024-02-01T00:00:00Z,,,0,\n"
        "m2,2024-02-02T10:00:00Z,a,3,1,10\nm2,2024-02-02T10:00:00Z,b,1,0,10\n"
    )
    status, out, _ = run("import", *db_args(db), str(csv_file))
    assert (status, out.strip()) == (
        0,
        "imported 2 matches, 1 season start, replayed 2, skipped 0 already in the guild",
    )
    closed = json.loads(run("leaderboard", *db_args(db), "--season", "first", "--json")[1])
    assert [(row["user_id"], row["games"], row["wins"]) for row in closed] == [(1, 1, 1), (2, 1, 0)]
    current = json.loads(run("leaderboard", *db_args(db), "--season", "winter", "--json")[1])
    assert (current[0]["user_id"], current[0]["rating"]) == (3, closed[0]["rating"])
    for argv, message in [
        (["--season", "spring"], "season 'spring' must be one of this server's seasons"),
        (["--season", "first", "--by", "p8"], "rank by ladder only"),
    ]:
        status, out, err = run("leaderboard", *db_args(db), *argv)
        assert (status, out) == (2, "") and err.count("\n") == 1 and message in err
