"""`ladderbot migrate-db` (SPEC 8.1) on the command line: one line on success, one line and
exit 2 on a refusal, a progress bar only on a terminal. (Moving between engines with random
content: tests/services/test_migrating.py.)"""

from __future__ import annotations

import io
from pathlib import Path

from bot.cli import Streams, main
from tests.test_cli import run


def _reported(path: Path) -> None:
    for lineup in ("<@1> 10 | <@2> 5", "<@2> 3 | <@3> 1, <@4> 0"):
        assert run("report", "--guild", "7", "--db", str(path), lineup)[0] == 0


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_copies_into_an_empty_database_and_refuses_a_filled_one(tmp_path: Path) -> None:
    source, target = tmp_path / "source.sqlite3", tmp_path / "target.sqlite3"
    _reported(source)
    status, out, err = run("migrate-db", "--from", str(source), "--to", str(target))
    assert (status, err) == (0, "")
    assert "matches 2" in out and "participants 5" in out and "equal a replay" in out
    before = run("export", "--guild", "7", "--db", str(target))[1]
    assert before == run("export", "--guild", "7", "--db", str(source))[1]

    status, out, err = run("migrate-db", "--from", str(source), "--to", str(target))
    assert (status, out) == (2, "")
    assert err == (
        "ladderbot migrate-db: error: the target database must be empty; it has rows in "
        "guilds, log_chunks, matches, members, participants\n"
    )
    assert run("export", "--guild", "7", "--db", str(target))[1] == before


def test_a_missing_source_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite3"
    status, out, err = run("migrate-db", "--from", str(missing), "--to", str(tmp_path / "t"))
    assert (status, out) == (2, "")
    assert err == (
        f"ladderbot migrate-db: error: --from {str(missing)!r} must be an existing database "
        "file or URL\n"
    )
    assert not missing.exists()


def test_the_progress_bar_is_drawn_on_a_terminal_only(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite3"
    _reported(source)
    terminal = Terminal()
    status = main(
        ["migrate-db", "--from", str(source), "--to", str(tmp_path / "a.sqlite3")],
        Streams(io.StringIO(), io.StringIO(), terminal),
    )
    assert status == 0
    drawn = terminal.getvalue()
    assert drawn.startswith("\r") and "participants: 100%" in drawn
    assert drawn.endswith("\n") and "| 14/14 [" in drawn
    status, _, err = run("migrate-db", "--from", str(source), "--to", str(tmp_path / "b"))
    assert (status, err) == (0, "")


def test_an_import_and_a_recompute_show_their_stages_on_a_terminal_only(tmp_path: Path) -> None:
    """Issue 29: a bulk command names each stage as it starts, with the time taken so far,
    on one line of stderr redrawn in place (tqdm); off a terminal, stderr stays empty."""
    database = tmp_path / "ladder.sqlite3"
    csv = tmp_path / "matches.csv"
    csv.write_text(
        "match,played_at,side,player,score,minutes\n"
        "m1,2024-01-01T00:00:00Z,a,1,1,20\nm1,2024-01-01T00:00:00Z,b,2,0,20\n",
        encoding="utf-8",
    )
    terminal = Terminal()
    arguments = ["import", "--guild", "7", "--db", str(database), str(csv)]
    assert main(arguments, Streams(io.StringIO(), io.StringIO(), terminal)) == 0
    drawn = terminal.getvalue()
    stages = ["reading the CSV", "storing the matches (1)", "replaying the matches (1)"]
    assert all(f"\r{stage}:  [00:0" in drawn for stage in stages), drawn
    assert drawn.endswith("]\n")
    status, out, err = run("recompute", "--guild", "7", "--db", str(database))
    assert (status, err) == (0, "") and "replayed 1 match" in out
