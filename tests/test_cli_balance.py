"""`ladderbot balance` (SPEC 9.5 on the command line), run in-process through bot.cli.main."""

from __future__ import annotations

from pathlib import Path

from tests.test_cli import run
from tests.test_cli_db import db_args


def test_balance_prints_each_team_with_its_chance(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    for _ in range(3):
        assert run("report", *db_args(db), "<@1> 1 | <@2> 0")[0] == 0
    status, out, err = run("balance", *db_args(db), "<@1> <@2> <@3> guest_bob")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Team ") for line in lines)
    teams = [set(line.split(": ")[-1].split(", ")) for line in lines]
    assert {"1", "2"} in teams  # the strongest with the weakest, each named once
    assert [line.split("wins ")[1].split("%")[0] for line in lines] == ["50.0", "50.0"]

    status, out, _ = run(
        "balance", *db_args(db), " ".join(f"g{n}" for n in range(14)), "--teams", "3"
    )
    assert status == 0 and len(out.splitlines()) == 5 and "heuristic" in out


def test_balance_refusals_are_one_line_with_status_2(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    assert run("report", *db_args(db), "<@1> 1 | <@2> 0")[0] == 0
    for players, extra, message in [
        ("<@1> <@1>", [], "<@1> is listed twice"),
        ("<@1> <@2>", ["--teams", "5"], "teams 5 must be from 2 to 4"),
        ("solo", [], "player count 1 must be from 2 to 32"),
    ]:
        status, out, err = run("balance", *db_args(db), players, *extra)
        assert (status, out) == (2, "") and err.count("\n") == 1 and message in err
