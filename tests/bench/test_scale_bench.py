"""Smoke test of the scale benchmark on a tiny guild: every command-line process exits 0,
the stored ratings after import, recompute and void equal replay_waves of the stream, and
the storage-built guild is recomputed and ranked. Nothing here asserts a speed."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from bench import floor
from bench.data import match_log
from bench.scale import AGREEMENT, big_recompute, cold_board, command_line, ladderbot
from bench.service import import_text

MATCHES = 30
MEMBERS = 20


def test_the_command_line_agrees_with_a_replay_after_each_step() -> None:
    found = command_line("sqlite", match_log(MATCHES, MEMBERS))
    assert found.imported.output.startswith(f"imported {MATCHES} matches")
    assert found.recomputed.output == f"replayed {MATCHES} matches; nothing stored changed\n"
    assert found.voided.output.startswith(  # every match after the oldest
        f"match #1 is void; {MATCHES - 1} later matches were replayed\n"
    )
    assert list(found.disagreements) == ["import", "recompute", "void"]
    assert all(delta <= AGREEMENT for delta in found.disagreements.values())
    assert all(p.peak_bytes > 0 for p in (found.imported, found.recomputed, found.voided))
    assert found.floors is not None and list(found.floors) == ["import", "recompute", "void"]
    assert found.floors["recompute"].output == "0 entries differ\n"  # the same replay


def test_a_guild_built_through_storage_is_recomputed_whole() -> None:
    big = big_recompute("sqlite", MATCHES)
    assert big.filling.output.startswith(f"replayed {MATCHES} matches; ")
    assert big.again.output == f"replayed {MATCHES} matches; nothing stored changed\n"


def test_the_cold_board_ranks_everyone_who_played() -> None:
    board = cold_board("sqlite", MATCHES, MEMBERS)
    played = len(set(match_log(MATCHES, MEMBERS).player.tolist()))
    assert board["ranked"] == played
    assert board["seconds"] > 0 and board["traced"] > 0 and board["stall"] >= 0


SAME_WORK = {
    "participants": "SELECT match_id, position, user_id, guest, side, score, minutes, "
    "enabled, rating_before, rating_after FROM participants ORDER BY match_id, position",
    "outcome words": "SELECT count(*) FROM participants WHERE outcome IS NULL",
    "log chunks": "SELECT * FROM log_chunks ORDER BY first_at, first_id",
    "members": "SELECT user_id, rating FROM members ORDER BY user_id",
    "matches": "SELECT id, status, played_at, applied_at, import_key FROM matches ORDER BY id",
    "schema": "SELECT type, name, sql FROM sqlite_master ORDER BY name",
    "foreign keys": "PRAGMA foreign_key_check",
}


def test_the_import_floor_writes_what_the_command_writes(tmp_path: Path) -> None:
    """The import's floor stores the command's rows, ratings and log columns (to the bit)
    and schema: its time is that of the same work."""
    csv = tmp_path / "matches.csv"
    csv.write_text(import_text(match_log(MATCHES, MEMBERS)), encoding="utf-8")
    command, plain = str(tmp_path / "command.sqlite3"), str(tmp_path / "floor.sqlite3")
    ladderbot("import", command, str(csv))
    floor.import_csv(plain, str(csv), command)
    found = []
    for path in (command, plain):
        with contextlib.closing(sqlite3.connect(path)) as connection:
            found.append(
                {name: connection.execute(sql).fetchall() for name, sql in SAME_WORK.items()}
            )
    assert len(found[0]["participants"]) == 8 * MATCHES
    assert found[1] == found[0]
