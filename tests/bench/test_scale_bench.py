"""Smoke test of the scale benchmark on a tiny guild: every command-line process exits 0,
the stored ratings after import, recompute and void equal replay_waves of the stream, and
the storage-built guild is recomputed and ranked. Nothing here asserts a speed."""

from __future__ import annotations

from bench.data import match_log
from bench.scale import AGREEMENT, big_recompute, cold_board, command_line

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
