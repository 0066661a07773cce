"""`ladderbot import` / `export` with hostile CSV bytes (SPEC 5 and 7): from a file, from
stdin (through a real pipe, too), accepted soundly or refused with one stderr line, exit
status 2 and nothing changed; never a traceback."""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from bot.cli import Streams, main
from tests.services.test_csv_hygiene import (
    GUILD,
    HEADER,
    accepted_soundly_or_refused_cleanly,
    csv_bytes,
    dump,
    fresh_copy,
    hostile_csv,
    seeded_database,
)
from tests.test_cli import REPOSITORY

__all__ = ["seeded_database"]  # the module-scoped fixture, shared with the service tests


def database_args(path: Path, guild: int = GUILD) -> list[str]:
    return ["--guild", str(guild), "--db", str(path)]


def run_with_bytes(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """`main` in-process with standard input as bytes, read as Python reads a real stdin."""
    stdout, stderr = io.StringIO(), io.StringIO()
    text = io.TextIOWrapper(
        io.BytesIO(stdin), encoding="utf-8", errors="surrogateescape", newline="\n"
    )
    status = main(list(argv), Streams(text, stdout, stderr))
    return status, stdout.getvalue(), stderr.getvalue()


def ladderbot(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        input=stdin,
        capture_output=True,
        cwd=REPOSITORY,
        timeout=60,
    )


def refusal_line(status: int, stderr: str) -> str | None:
    """None for an import that succeeded; else its one stderr line (exit status 2)."""
    if status == 0:
        return None
    assert status == 2
    assert stderr.startswith("ladderbot import: error: line ")
    assert stderr.endswith("\n") and stderr.count("\n") == 1
    return stderr.rstrip("\n")


ROWS = ("m1,2024-01-01T00:00:00Z,=1+1,1,3,20", "m1,2024-01-01T00:00:00Z,b,2,1,20")


def test_bom_and_cr_line_ends_on_a_real_stdin_are_read(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.sqlite3")
    data = b"\xef\xbb\xbf" + csv_bytes(*ROWS, end="\r")
    imported = ladderbot("import", "--guild", "1", "--db", db, "-", stdin=data)
    assert (imported.returncode, imported.stderr) == (0, b"")
    assert imported.stdout == b"imported 1 match, replayed 1, skipped 0 already in the guild\n"
    exported = ladderbot("export", "--guild", "1", "--db", db)
    assert exported.returncode == 0
    assert b",'=1+1,1,3.0,20.0,applied,500.0," in exported.stdout


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (b"m1,2024-01-01,b\xff,2,1,20", "line 3: the bytes b'\\xff' are not UTF-8"),
        (b"m1,9999-12-31T23:59:59-12:00,b,2,1,20", "line 3: played_at '9999-12-31T23:59:59-12:00'"),
        (b"m1,2024-01-01,b,9223372036854775808,1,20", "line 3: player '9223372036854775808'"),
    ],
)
def test_bad_bytes_on_a_real_stdin_are_one_line_and_exit_2(
    tmp_path: Path, row: bytes, message: str
) -> None:
    db = str(tmp_path / "cli.sqlite3")
    data = csv_bytes(ROWS[0]).replace(b"\n", b"\r") + row + b"\r"
    refused = ladderbot("import", "--guild", "1", "--db", db, "-", stdin=data)
    assert refused.returncode == 2
    assert refused.stdout == b""
    assert b"Traceback" not in refused.stderr
    assert refused.stderr.decode().startswith(f"ladderbot import: error: {message}")
    assert refused.stderr.count(b"\n") == 1


def test_a_file_with_a_bom_and_crlf_is_imported_and_exports_back(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    source = tmp_path / "matches.csv"
    source.write_bytes(b"\xef\xbb\xbf" + csv_bytes(*ROWS, end="\r\n"))
    assert run_with_bytes("import", *database_args(db), str(source))[0] == 0
    status, exported, _ = run_with_bytes("export", *database_args(db))
    assert status == 0
    copy = tmp_path / "export.csv"
    copy.write_text(exported)
    assert run_with_bytes("import", *database_args(db, GUILD + 1), str(copy))[0] == 0
    status, again, _ = run_with_bytes("export", *database_args(db, GUILD + 1))
    assert [row.split(",")[1:] for row in again.splitlines()] == [
        row.split(",")[1:] for row in exported.splitlines()
    ]


def test_a_non_utf8_file_is_refused_with_its_line_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "cli.sqlite3"
    assert run_with_bytes("import", *database_args(db), "-", stdin=csv_bytes(*ROWS))[0] == 0
    source = tmp_path / "latin1.csv"
    source.write_bytes((HEADER + "\nm2,2024-01-02,Müller,1,1,20\n").encode("latin-1"))
    before = dump(db)
    status, out, err = run_with_bytes("import", *database_args(db), str(source))
    assert refusal_line(status, err) == (
        "ladderbot import: error: line 2: the bytes b'\\xfc' are not UTF-8; save the file as UTF-8"
    )
    assert out == ""
    assert dump(db) == before


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=hostile_csv())
def test_hostile_csv_through_the_command_line_is_accepted_soundly_or_refused_cleanly(
    seeded_database: Path, data: bytes
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = fresh_copy(seeded_database, folder)
        accepted_soundly_or_refused_cleanly(path, lambda: import_refusal(path, data))


def import_refusal(path: Path, data: bytes) -> str | None:
    """`ladderbot import -` of `data` into the database at `path`: None, or its refusal."""
    status, _, stderr = run_with_bytes("import", *database_args(path), "-", stdin=data)
    return refusal_line(status, stderr)
