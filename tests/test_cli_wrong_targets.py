"""Issue 17 item 5 (SPEC 5 and 7): no silent wrong target. A command that only reads never
creates a database or a guild; a location no engine should open is refused with one line
before anything is opened; fuzzed locations give one line or a working open, never a
traceback."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage import Database, DatabaseUnavailable
from tests.test_cli import run

LINEUP = "<@1> 1 | <@2> 0"
READS = [["gr", "1"], ["rating", "1"], ["leaderboard"], ["export"], ["recompute"]]
WRONG_LOCATIONS = {
    "": "no database named",
    " ": "no database named",
    "sqlite://": "a SQLite URL is sqlite:///PATH",
    "sqlite:": "a SQLite URL is sqlite:///PATH",
    "sqlite:///": "a SQLite URL is sqlite:///PATH",
    "-": "'-' is no database file",
    ":memory:": "an in-memory database would keep nothing",
    "sqlite:///:memory:": "an in-memory database would keep nothing",
    "postgresql://": "names no database",
    "postgres://": "names no database",
    "postgresql://postgres@127.0.0.1:5432": "names no database",
    "postgresql://postgres@127.0.0.1:5432/": "names no database",
    "postgresql://postgres@[::1:5432/x": "a malformed PostgreSQL URL (Invalid IPv6 URL)",
    "postgresql://postgres:secret@[::1:5432/x": "postgres:***@",
    "postgresql://postgres@127.0.0.1:99999/x": "Port out of range",
    "postgresql://postgres@127.0.0.1:0/x": "port 0 is no port",
    "postgresql://postgres@127.0.0.1:port/x": "a malformed PostgreSQL URL",
    "mysql://root@127.0.0.1/x": "not a kind of database ladderbot knows",
}


def _one_line(argv: list[str], location: str, message: str) -> None:
    status, out, err = run(argv[0], "--guild", "7", "--db", location, *argv[1:])
    assert (status, out) == (2, ""), err
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("argv", READS, ids=lambda argv: argv[0])
def test_read_command_on_a_missing_sqlite_file_is_refused_and_creates_nothing(
    tmp_path: Path, argv: list[str]
) -> None:
    typo = tmp_path / "trail.sqlite3"
    _one_line(argv, str(typo), "no such database file (a command that only reads creates none)")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", READS, ids=lambda argv: argv[0])
def test_read_command_on_a_guild_never_seen_is_refused_and_changes_nothing(
    tmp_path: Path, argv: list[str]
) -> None:
    database = tmp_path / "ladder.sqlite3"
    assert run("report", "--guild", "1", "--db", str(database), LINEUP)[0] == 0
    before = database.read_bytes()
    _one_line(argv, str(database), "has no guild 7 (a command that only reads creates none)")
    assert database.read_bytes() == before


def test_report_and_import_create_a_database(tmp_path: Path) -> None:
    assert run("report", "--guild", "7", "--db", str(tmp_path / "a.sqlite3"), LINEUP)[0] == 0
    empty = tmp_path / "empty.csv"
    empty.write_text("match,played_at,side,player,score,minutes\n", encoding="utf-8")
    created = tmp_path / "b.sqlite3"
    assert run("import", "--guild", "7", "--db", str(created), str(empty))[0] == 0
    assert run("leaderboard", "--guild", "7", "--db", str(created))[0] == 0


@pytest.mark.parametrize(("location", "message"), WRONG_LOCATIONS.items())
def test_wrong_database_locations_are_refused_before_anything_is_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, location: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    for argv in (["report", LINEUP], ["leaderboard"]):
        _one_line(argv, location, message)
    assert list(tmp_path.iterdir()) == []


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


CLOSED_PORT = _closed_port()
_words = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
_sqlite_locations = st.one_of(
    _words,
    st.builds(
        "".join,
        st.tuples(
            st.sampled_from(["", "sqlite:", "sqlite://", "sqlite:///", "file:", "./", "/", "x/"]),
            st.sampled_from(["", ":memory:", "-", ".", "..", "a.db", "a/b.db", "\0", " "]),
            _words,
        ),
    ),
)
_postgres_locations = st.builds(
    "{}{}{}{}{}".format,
    st.sampled_from(["postgresql://", "postgres://"]),
    st.sampled_from(["", "postgres@", "u:p@", "@", "a@b@", ":@"]),
    st.sampled_from(["127.0.0.1", "[::1]", "[::1", "::1]", "", "[127.0.0.1]", "[]"]),
    # No port that a server may listen on: a closed one, or none that exists.
    st.sampled_from(
        [f":{CLOSED_PORT}", ":0", ":65536", ":99999", ":-1", ":x", ":", f"::{CLOSED_PORT}"]
    ),
    st.builds("/{}".format, _words) | st.just(""),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(location=st.one_of(_sqlite_locations, _postgres_locations), create=st.booleans())
def test_fuzzed_database_locations_open_or_are_refused_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, location: str, create: bool
) -> None:
    monkeypatch.chdir(tmp_path)

    async def attempt() -> None:
        try:
            database = await asyncio.wait_for(Database.open(location, create=create), 30)
        except DatabaseUnavailable as error:
            message = str(error)
            assert message and "\n" not in message
            return
        await database.close()

    asyncio.run(attempt())
