"""SPEC 7 for `ladderbot report` and the member and guild ids of the database commands
(issue 8 items 1, 3, 11): a lineup is applied with finite ratings that equal a replay, or
refused in one line with the database byte for byte as it was."""

from __future__ import annotations

import asyncio
import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.config import Config
from bot.services import Services
from tests.services.invariants import assert_log_is_truth
from tests.test_cli import REPOSITORY, run

GUILD = 1
ID_RULE = "must be a decimal integer from 1 to 9223372036854775807 in the digits 0-9"


def db_args(path: Path) -> list[str]:
    return ["--guild", str(GUILD), "--db", str(path)]


def dump(path: Path) -> list[str]:
    """Every table as SQL, the performance cache included: equal dumps, equal databases."""
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def seeded(path: Path) -> Path:
    """A guild with two applied matches and a filled performance cache."""
    for lineup in ("<@1> 3 | <@2> 1", "<@2> 2 10, guest 1 | <@3> 1 5"):
        assert run("report", *db_args(path), lineup)[0] == 0
    assert run("leaderboard", *db_args(path), "--by", "p8")[0] == 0
    assert run("rating", *db_args(path), "2")[0] == 0
    return path


def refused_and_unchanged(path: Path, *argv: str, message: str) -> None:
    before = dump(path)
    status, out, err = run(*argv)
    assert (status, out) == (2, "")
    assert message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert dump(path) == before


def test_report_of_scores_1e308_is_refused_instead_of_storing_nan(tmp_path: Path) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    refused_and_unchanged(
        db,
        "report",
        *db_args(db),
        "<@1> 1e308 10 | <@2> 1e308 20",
        message="<@1>: score 1e+308 must be a finite number from 0 to 1e9",
    )


@pytest.mark.parametrize(
    ("lineup", "message"),
    [
        ("<@9223372036854775808> 1 | <@2> 0", f"user id '9223372036854775808' {ID_RULE}"),
        ("<@\u0661\u0662> 1 | <@2> 0", f"user id '\u0661\u0662' {ID_RULE}"),
        ("<@0> 1 | <@2> 0", f"user id '0' {ID_RULE}"),
        ("<@1> \u0661 | <@2> 0", "the score '\u0661' is not a number"),
        ("<@1> 1 0.001 | <@2> 0", "minutes 0.001 must be a finite number from 0.01 to 1440"),
        ("g\x07 1 | <@2> 0", "the lineup holds the control character U+0007; remove it"),
        ("g" * 33 + " 1 | <@2> 0", "is not a player"),
    ],
)
def test_report_refuses_ids_and_names_outside_spec_7(
    tmp_path: Path, lineup: str, message: str
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    refused_and_unchanged(db, "report", *db_args(db), lineup, message=message)


def test_unicode_digits_in_a_mention_are_not_read_as_user_12(tmp_path: Path) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    assert run("report", *db_args(db), "<@\u0661\u0662> 1 | <@2> 0")[0] == 2
    assert run("rating", *db_args(db), "12")[0] == 2  # no member 12 was created


@pytest.mark.parametrize(
    "member", ["\u00b2", "\u0661\u0662", "9223372036854775808", "<@99999999999999999999>"]
)
def test_member_arguments_refuse_ids_outside_spec_7(tmp_path: Path, member: str) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    for command in ("rating", "gr"):
        refused_and_unchanged(db, command, *db_args(db), member, message=ID_RULE)


@pytest.mark.parametrize("guild", ["99999999999999999999", "0", "\u0661", "-1", "1.0"])
def test_guild_ids_outside_spec_7_are_refused(tmp_path: Path, guild: str) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    refused_and_unchanged(
        db,
        "leaderboard",
        f"--guild={guild}",
        "--db",
        str(db),
        message=f"argument --guild: guild id {guild!r} {ID_RULE}",
    )


def test_non_utf8_bytes_in_a_guest_name_on_the_command_line_are_one_line(
    tmp_path: Path,
) -> None:
    db = seeded(tmp_path / "cli.sqlite3")
    before = dump(db)
    result = subprocess.run(
        [sys.executable, "-m", "bot", "report", *db_args(db), b"g\xff 1 | <@2> 0"],
        capture_output=True,
        cwd=REPOSITORY,
        timeout=60,
    )
    assert result.returncode == 2
    assert b"guest name 'g\\udcff' must be 1 to 32 printable characters" in result.stderr
    assert result.stderr.count(b"\n") == 1
    assert dump(db) == before


def test_double_dash_ends_the_options_before_a_lineup_that_starts_with_a_dash(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cli.sqlite3"
    status, out, err = run("report", *db_args(db), "--", "-x 1, <@1> 2 | <@2> 3")
    assert (status, err) == (0, "")
    assert out.startswith("match #1 applied\n-x: not rated\n")


def test_a_lineup_read_as_an_option_gets_told_to_put_double_dash_before_it(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cli.sqlite3"
    status, out, err = run("report", *db_args(db), "-abc")
    assert (status, out) == (2, "")
    assert "'-abc' was read as an option" in err
    assert "put -- before it (ladderbot report ... -- '-abc')" in err
    assert err.count("\n") == 1
    assert not db.exists() or dump(db) == []


# --- fuzz ------------------------------------------------------------------------------------

PLAYERS = st.one_of(
    st.sampled_from(
        ["<@1>", "<@2>", "<@!3>", "<@4>", "bob", "~x", "<@0>", "<@>", "<@\u0661\u0662>"]
    ),
    st.sampled_from(["<@9223372036854775807>", "<@9223372036854775808>", "<@" + "9" * 30 + ">"]),
    st.text(min_size=1, max_size=6),
)
NUMBERS = st.one_of(
    st.sampled_from(["0", "1e9", "1e308", "-1", "0.01", "0.009", "1440", "1441", "nan", "\u0663"]),
    st.floats(0, 2e9).map(repr),
    st.integers(0, 100).map(str),
)
ENTRIES = st.one_of(
    st.tuples(PLAYERS, NUMBERS, st.one_of(st.just(""), NUMBERS)).map(" ".join),
    st.text(max_size=8),
)

SCORES = st.one_of(
    st.sampled_from(["0", "1e9", "1000000000.0"]), st.floats(0, 1e9).map(repr), NUMBERS
)
MINUTES = st.one_of(st.sampled_from(["0.01", "1440", "1e1"]), st.floats(0.01, 1440).map(repr))


@st.composite
def well_formed_lineups(draw: st.DrawFn) -> str:
    """Two or three sides of distinct players, numbers in and around the bounds: these are
    often applied, so the accepted path is fuzzed too."""
    players = draw(st.permutations(["<@1>", "<@2>", "<@3>", "<@4>", "bob", "<@5>"]))
    sides = draw(st.lists(st.integers(1, 2), min_size=2, max_size=3))
    entries = iter(players)
    return " | ".join(
        ", ".join(
            " ".join([next(entries), draw(SCORES), *draw(st.lists(MINUTES, max_size=1))])
            for _ in range(size)
        )
        for size in sides
    )


LINEUPS = st.one_of(
    well_formed_lineups(),
    st.lists(st.lists(ENTRIES, min_size=1, max_size=3).map(", ".join), min_size=1, max_size=3).map(
        " | ".join
    ),
    st.text(max_size=30),
)


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One seeded database for all examples (hypothesis reruns a test, not its fixtures)."""
    return seeded(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3")


async def stored_ratings_are_a_replay(path: Path) -> None:
    services = await Services.open(path, Config())
    try:
        await assert_log_is_truth(services, GUILD)
        for member in await services.context.db.read.members(GUILD):
            assert member.rating is None or math.isfinite(member.rating)
    finally:
        await services.close()


@settings(max_examples=80, deadline=None)
@given(lineup=LINEUPS)
def test_fuzz_a_lineup_is_applied_as_a_replay_or_refused_changing_nothing(
    fuzz_db: Path, lineup: str
) -> None:
    before = dump(fuzz_db)
    status, out, err = run("report", *db_args(fuzz_db), "--", lineup)
    assert "Traceback" not in err
    if status == 0:
        event("applied")
        assert err == "" and out.startswith("match #")
        assert "nan" not in out and "inf" not in out
        asyncio.run(stored_ratings_are_a_replay(fuzz_db))
    else:
        assert (status, out) == (2, "")
        assert err.startswith("ladderbot report: error: ") and err.count("\n") == 1
        assert dump(fuzz_db) == before
