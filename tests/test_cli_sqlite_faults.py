"""Issue 17 items 3 and 4 (SPEC 8.8): a full disk, a read-only file or folder, a file that is
not a database and a newer schema are each refused with one line, the file unchanged; a
failed open leaves no aiosqlite thread behind (its late "Event loop is closed" traceback).

The disk and read-only cases mount a small tmpfs (or bind a file read-only), which needs
root: elsewhere they are skipped, saying so."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.storage.schema import MIGRATIONS
from tests.test_cli import REPOSITORY, run
from tests.test_cli_db import db_args

LINEUP = "<@1> 1 | <@2> 0"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mount(*arguments: str) -> None:
    subprocess.run(["mount", *arguments], check=True, capture_output=True, timeout=10)


def _unmount(target: Path) -> None:
    subprocess.run(["umount", str(target)], check=True, capture_output=True, timeout=10)


@pytest.fixture
def can_mount() -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs or a read-only bind needs root")


@pytest.fixture
def small_disk(tmp_path: Path, can_mount: None) -> Iterator[Path]:
    """A 1 MB tmpfs, unmounted at the end."""
    disk = tmp_path / "disk"
    disk.mkdir()
    _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk))
    try:
        yield disk
    finally:
        _unmount(disk)


def _ladder(path: Path) -> Path:
    assert run("report", *db_args(path), LINEUP)[0] == 0
    return path


def _one_line(argv: list[str], path: Path, message: str) -> None:
    status, out, err = run(*argv[:1], *db_args(path), *argv[1:])
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1 and message in err, err


def _csv(matches: int) -> str:
    out = io.StringIO()
    rows = csv.writer(out)
    rows.writerow(["match", "played_at", "side", "player", "score", "minutes"])
    for number in range(matches):
        for side, player, score in (("a", 3 + number % 50, 1), ("b", 60 + number % 40, 0)):
            rows.writerow([f"m{number}", "2024-01-01T00:00:00Z", side, player, score, 10])
    return out.getvalue()


def test_sqlite_disk_full_is_refused_with_one_line_and_the_file_unchanged(
    small_disk: Path, tmp_path: Path
) -> None:
    database = _ladder(small_disk / "ladder.sqlite3")
    (small_disk / "filler").write_bytes(bytes(700_000))  # leaves ~200 KB
    before = _digest(database)
    imported = tmp_path / "big.csv"
    imported.write_text(_csv(3000), encoding="utf-8")
    _one_line(["import", str(imported)], database, "the disk holding the database is full")
    assert _digest(database) == before
    for _ in range(3):
        assert run("report", *db_args(database), LINEUP)[0] == 0  # room for small writes
    try:  # every last byte
        with (small_disk / "rest").open("wb") as filler:
            while True:
                filler.write(bytes(4096))
                filler.flush()
    except OSError:
        pass
    before = _digest(database)
    for argv in (["report", LINEUP], ["recompute"], ["import", str(imported)]):
        status, out, err = run(*argv[:1], *db_args(database), *argv[1:])
        assert (status, out) == (2, "") and err.count("\n") == 1, err
        assert "full" in err and "Traceback" not in err, err
    assert _digest(database) == before


def test_sqlite_read_only_file_is_refused_with_one_line_and_the_file_unchanged(
    tmp_path: Path, can_mount: None
) -> None:
    database = _ladder(tmp_path / "ladder.sqlite3")
    _mount("--bind", str(database), str(database))
    try:
        _mount("-o", "remount,bind,ro", str(database))
        before = _digest(database)
        for argv in (["report", LINEUP], ["recompute"]):
            _one_line(argv, database, "the database file or its folder is read-only")
        status, out, _ = run("leaderboard", *db_args(database))  # reading still works
        assert status == 0 and "1 game (1-0-0)" in out
        assert _digest(database) == before
    finally:
        _unmount(database)


def test_sqlite_read_only_folder_is_refused_with_one_line_and_the_file_unchanged(
    small_disk: Path,
) -> None:
    database = _ladder(small_disk / "ladder.sqlite3")
    before = _digest(database)
    _mount("-o", "remount,ro", str(small_disk))
    refusal = "cannot open the database file (its folder is missing, read-only"
    for argv in (["report", LINEUP], ["leaderboard"], ["recompute"]):
        _one_line(argv, database, refusal)
    _one_line(["report", LINEUP], small_disk / "new.sqlite3", refusal)
    assert _digest(database) == before


def test_sqlite_file_that_is_not_a_database_is_refused_with_one_line_and_unchanged(
    tmp_path: Path,
) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(os.urandom(8192))
    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    before = {path: _digest(path) for path in (junk, other)}
    for command in (["report", LINEUP], ["leaderboard"]):
        _one_line(command, junk, "the file is not a SQLite database")
        _one_line(command, other, "the file holds tables that are not ladderbot's")
    assert {path: _digest(path) for path in (junk, other)} == before


def test_sqlite_newer_schema_is_refused_naming_both_versions_and_unchanged(
    tmp_path: Path,
) -> None:
    database = _ladder(tmp_path / "ladder.sqlite3")
    newer = len(MIGRATIONS) + 1
    with sqlite3.connect(database) as connection:
        connection.execute(f"PRAGMA user_version = {newer}")
    before = _digest(database)
    for command in (["report", LINEUP], ["leaderboard"], ["recompute"]):
        _one_line(
            command,
            database,
            f"at schema version {newer}, newer than this ladderbot ({len(MIGRATIONS)})",
        )
    assert _digest(database) == before


def test_failed_sqlite_open_leaves_no_thread_running(small_disk: Path) -> None:
    """Issue 17 item 4: aiosqlite's worker of a connection that failed to open used to end
    after the event loop had closed, printing "Event loop is closed" in 3-4 of 10 runs."""
    database = _ladder(small_disk / "ladder.sqlite3")
    _mount("-o", "remount,ro", str(small_disk))
    threads = set(threading.enumerate())
    for _ in range(5):
        assert run("leaderboard", *db_args(database))[0] == 2
    # A worker told to stop may still be returning from its last call: give it 5 s to end.
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) != threads and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(threading.enumerate()) == threads
    for _ in range(3):
        finished = subprocess.run(
            [sys.executable, "-m", "bot", "leaderboard", *db_args(database)],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert finished.returncode == 2 and finished.stderr.count("\n") == 1, finished.stderr
