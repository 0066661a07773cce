"""SPEC 7 on the command line: the p-family tools and rep (issue 8 items 1, 3, 4, 5, 11).

Every refusal is one stderr line and exit status 2, never a traceback; the fuzz tests throw
arbitrary game lists and rep arguments at the in-process runner of tests/test_cli.py.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ratings import gamelist
from bot.ratings.rep import MAX_LINES
from tests.test_cli import REPOSITORY, run

VARIANT_COMMANDS = [[f"p{number}"] for number in range(1, 9)] + [["ra", "p4"], ["ra", "p8"]]
PERFORMANCE_LINE = re.compile(r"-?[0-9]+ \+[0-9]+ -[0-9]+( RA=[0-9]+\.[0-9]{2})?\n")
"""A defined performance: every number finite (what p2-p8 must always print)."""
P1_EXTRA = re.compile(r"(\+inf|-inf|undefined)( RA=[0-9]+\.[0-9]{2})?\n")


def assert_refused(status: int, out: str, err: str, message: str) -> None:
    """One stderr line that starts with `message`, exit status 2, nothing on stdout."""
    assert (status, out) == (2, "")
    assert err.startswith(message), err
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "Traceback" not in err


def test_p1_refuses_a_draw_at_1e308_instead_of_failing_on_nan() -> None:
    assert_refused(
        *run("p1", stdin="=1" + "0" * 308 + "\n"),
        "ladderbot p1: error: line 1: the opponent rating '1000",
    )


def test_p6_refuses_an_opponent_rating_of_minus_1e70_on_line_2() -> None:
    status, out, err = run("p6", stdin="+971\n-1" + "0" * 70 + "\n")
    assert_refused(status, out, err, "ladderbot p6: error: line 2: the opponent rating '1000")
    assert "must be a finite number from -1e6 to 1e6" in err


def test_p2_refuses_1e308_instead_of_printing_undefined() -> None:
    status, out, err = run("p2", stdin="+1" + "0" * 308 + "\n")
    assert_refused(status, out, err, "ladderbot p2: error: line 1: the opponent rating")
    assert "undefined" not in out


def test_opponent_ratings_and_days_at_their_bounds_are_accepted() -> None:
    status, out, err = run("ra", "p2", stdin="+1000000 a 1000000\n-1000000 b 0\n=0.5 c\n")
    assert (status, err) == (0, "")
    assert PERFORMANCE_LINE.fullmatch(out)


def test_days_above_1e6_are_refused_naming_the_bound() -> None:
    assert_refused(
        *run("p3", stdin="+1000 a 1\n+1000 a 1000000.5\n"),
        "ladderbot p3: error: line 2: days '1000000.5' must be a finite number from 0 to 1e6",
    )


@pytest.mark.parametrize("line_end", ["\r\n", "\r"])
def test_game_lists_with_crlf_or_cr_line_ends_are_read(line_end: str) -> None:
    games = line_end.join(["+1500 a", "-1500 b", "=1400 c 3", ""])
    assert run("ra", "p4", stdin=games) == run("ra", "p4", stdin=games.replace(line_end, "\n"))
    assert_refused(
        *run("p4", stdin=line_end.join(["+1500 a", "+x"])),
        "ladderbot p4: error: line 2: the opponent rating 'x' is not a number",
    )


def test_a_game_list_of_more_than_the_most_games_is_refused_at_the_first_too_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gamelist, "MAX_GAMES", 3)  # the real 1,000,000 takes too long here
    assert run("p4", stdin="+1\n\n+2\n+3\n")[0] == 0
    assert_refused(
        *run("p4", stdin="+1\n\n+2\n+3\n\n+4\n"),
        "ladderbot p4: error: line 6: a game list has at most 3 games",
    )


def test_rep_refuses_an_empty_string_instead_of_spinning() -> None:
    for empty in ("", " ", " ; ;"):
        assert_refused(
            *run("rep", empty, "1000000000000"),
            f"ladderbot rep: error: argument 1: STRING {empty!r} must hold at least one game",
        )


def test_rep_refuses_more_than_a_million_lines_before_printing_any() -> None:
    assert_refused(
        *run("rep", "+1", "1", "+1; -1", str(MAX_LINES // 2)),
        "ladderbot rep: error: argument 4: COUNT '500000' makes more than 1,000,000 lines",
    )
    assert_refused(
        *run("rep", "+1", str(MAX_LINES - 1), "-", stdin="+2\n+3\n"),
        "ladderbot rep: error: standard input and the other arguments make more than 1,000,000",
    )
    assert_refused(*run("rep", "+1", "9" * 5000), "ladderbot rep: error: argument 2: COUNT '9999")


def test_rep_prints_exactly_a_million_lines() -> None:
    status, out, err = run("rep", "+1; -1", str(MAX_LINES // 2 - 1), "-", stdin="=1\n=2\n")
    assert (status, err) == (0, "")
    assert out.count("\n") == MAX_LINES


def test_non_utf8_bytes_on_stdin_are_one_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot", "p4"],
        input=b"+1000 \xff\xfe\n",
        capture_output=True,
        cwd=REPOSITORY,
        env={"PYTHONIOENCODING": "utf-8:strict", "PATH": ""},
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(b"ladderbot p4: error: the text is not valid UTF-8")
    assert result.stderr.count(b"\n") == 1


# --- fuzz ------------------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(-(10**7), 10**7).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda x: f"{x:f}"),
    st.sampled_from(["1" + "0" * 308, "1" + "0" * 70, "1000000", "1000000.0001", "١٢", "1e3"]),
    st.text("0123456789.-+", max_size=12),
)
GAME_LINES = st.one_of(
    st.tuples(
        st.sampled_from("+=-*"),
        NUMBERS,
        st.sampled_from(["", " a", " b", " \x00", " é"]),
        st.one_of(st.just(""), NUMBERS.map(lambda days: f" {days}")),
    ).map("".join),
    st.text(max_size=20),
)
LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(GAME_LINES, max_size=8),
    line_end=LINE_ENDS,
    command=st.sampled_from(VARIANT_COMMANDS),
)
def test_fuzz_game_lists_are_rated_or_refused_in_one_line(
    lines: list[str], line_end: str, command: list[str]
) -> None:
    status, out, err = run(*command, stdin=line_end.join(lines))
    assert "Traceback" not in err
    if status == 0:
        assert err == ""
        shown = PERFORMANCE_LINE.fullmatch(out) or (command[-1] == "p1" and P1_EXTRA.fullmatch(out))
        assert shown, out
    else:
        assert_refused(status, out, err, f"ladderbot {command[0]}: error: line ")


REP_STRINGS = st.one_of(
    st.sampled_from(["", " ", ";", "+1000 a*", "-1 x; =2 y*", "-", "-R", "--"]),
    st.text(max_size=12),
)
REP_COUNTS = st.one_of(
    st.integers(0, 400).map(str),
    st.sampled_from(["1000000000000", "9" * 5000, "0" * 5000 + "3", "٣", "-1", "1.5", ""]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=st.lists(st.one_of(REP_STRINGS, REP_COUNTS), max_size=6), stdin=st.text())
def test_fuzz_rep_arguments_print_lines_or_are_refused_before_any(
    arguments: list[str], stdin: str
) -> None:
    status, out, err = run("rep", *arguments, stdin=stdin)
    assert "Traceback" not in err
    if status == 0:
        assert err == ""
        assert out.count("\n") <= MAX_LINES
    else:
        assert_refused(status, out, err, "ladderbot rep: error: ")
