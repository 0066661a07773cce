"""`ladderbot evaluate` (SPEC 12): the table, the JSON of 12.1/12.2, and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

from bot.ratings.evaluation import MEASURES
from tests.services.evaluation_data import community, community_csv
from tests.test_cli import run

GUILD = "91"


def imported(tmp_path: Path, matches: int) -> list[str]:
    """A database holding `matches` matches of the small community; its --guild/--db."""
    arguments = ["--guild", GUILD, "--db", str(tmp_path / "evaluate.sqlite3")]
    status, _, err = run("import", *arguments, "-", stdin=community_csv(community(matches)))
    assert (status, err) == (0, "")
    return arguments


def test_table_and_json(tmp_path: Path) -> None:
    arguments = imported(tmp_path, 40)
    status, out, err = run("evaluate", *arguments, "--last", "30")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("evaluated the last 30 matches (")
    assert [line.split()[0] for line in lines[2 : 2 + len(MEASURES)]] == list(MEASURES)
    assert "predicts best (log-loss" in lines[-1]

    status, out, _ = run("evaluate", *arguments, "--last", "30", "--tune", "--json")
    found = json.loads(out)
    assert status == 0
    assert set(found) == {"matches", "measures", "best", "tuning"}
    assert found["matches"] == 30
    losses = {entry["measure"]: entry["log_loss"] for entry in found["measures"]}
    assert found["best"] == min(losses, key=losses.__getitem__)
    assert len(found["tuning"]["grid"]) >= 54
    assert found["tuning"]["current"]["log_loss"] == losses["ladder"]
    lowest = min(point["log_loss"] for point in found["tuning"]["grid"])
    assert lowest <= found["tuning"]["best"]["log_loss"] <= lowest + 1e-12

    status, out, _ = run("evaluate", *arguments, "--tune")
    assert status == 0
    lines = out.splitlines()
    assert "constants" in lines[-1]
    grid = lines[lines.index("ladder log-loss, t down, game_mult across:") + 1 : -1]
    assert grid[0].split() == ["t", "0.25", "0.5", "1", "2", "4", "8"]
    assert [row.split()[0] for row in grid[1:-1]] == [
        "30",
        "45",
        "60",
        "90",
        "120",
        "180",
        "240",
        "360",
        "600",
    ]
    assert grid[-1] == "* best   < current"
    assert out.startswith("evaluated the last 40 matches")  # fewer than the default 5,000


def test_refusals(tmp_path: Path) -> None:
    arguments = imported(tmp_path, 4)
    status, out, err = run("evaluate", *arguments)
    assert (status, out) == (2, "")
    assert err == (
        "ladderbot evaluate: error: an evaluation needs at least 10 applied matches; "
        "this server has 4: report 6 more first\n"
    )
    status, _, err = run("evaluate", *arguments, "--last", "many")
    assert status == 2
    assert "--last: must be a whole number from 1 to 1,000,000, not 'many'" in err
