"""The `ladderbot` command line: the p-family tools (SPEC 5, 1.2, 1.7)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import Streams, main
from tests.ratings.reference import REFERENCE_RATINGS, SEED_P4_COLUMNS

REPOSITORY = Path(__file__).resolve().parents[1]


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(list(argv), Streams(io.StringIO(stdin), stdout, stderr))
    return status, stdout.getvalue(), stderr.getvalue()


def ladderbot(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        timeout=60,
    )


def test_spec_examples_through_a_real_pipe() -> None:
    games = ladderbot("rep", "+1492", "20")
    assert games.returncode == 0
    assert ladderbot("p3", stdin=games.stdout).stdout == "2500 +521 -268\n"
    games = ladderbot("rep", "+1000; -1000", "10")
    assert ladderbot("ra", "p4", stdin=games.stdout).stdout == "994 +76 -76 RA=4.47\n"


def test_bad_input_through_a_real_process_is_one_line_and_status_2() -> None:
    result = ladderbot("p3", stdin="+1000\n+abc\n")
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr
        == "ladderbot p3: error: line 2: the opponent rating 'abc' is not a number: '+abc'\n"
    )


def rep_output(*arguments: str) -> str:
    status, out, _ = run("rep", *arguments)
    assert status == 0
    return out


@pytest.mark.parametrize(
    ("arguments", "variant", "expected"),
    [REFERENCE_RATINGS[i] for i in (0, 20, 40, 60, 78, 80, 100, 120)],
)
def test_reference_ratings_through_the_command_line(
    arguments: tuple[str, ...], variant: str, expected: float
) -> None:
    status, out, err = run(variant, stdin=rep_output(*arguments))
    assert (status, err) == (0, "")
    shown = "+inf" if expected == float("inf") else str(int(expected))
    assert out.split(" ")[0].strip() == shown


def test_rep_passes_dashed_arguments_and_a_lone_dash_untouched() -> None:
    status, out, err = run("rep", "-2000 xyz", "1", "-", "-R", "2", "--", "1", stdin="=5 a\n")
    assert (status, err) == (0, "")
    assert out == "-2000 xyz\n=5 a\n-R\n-R\n--\n"


def test_p1_prints_infinities_and_undefined() -> None:
    assert run("p1", stdin="+1000\n+1200 b\n")[1] == "+inf\n"
    assert run("p1", stdin="-1000\n")[1] == "-inf\n"
    assert run("p1", stdin="")[1] == "undefined\n"
    assert run("ra", "p1", stdin="+1000 a\n+1000 b\n") == (0, "+inf RA=2.00\n", "")


def test_ra_reference_lines() -> None:
    assert run("ra", "p3", stdin=rep_output("+1000; -1000", "10"))[1] == "1001 +20 -20 RA=4.47\n"
    games = rep_output("+1500 a*; -1500 b*", "25")
    assert run("ra", "p7", stdin=games)[1] == "1502 +11 -11 RA=50.00\n"


def test_testit_p4_reprints_the_seed_p4_columns() -> None:
    status, out, err = run("testit", "p4")
    assert (status, err) == (0, "")
    printed: dict[str, str] = {}
    for line in out.splitlines():
        command, rating = line.rsplit(maxsplit=1)
        printed[command.strip()] = rating
    for arguments, seed_rating in SEED_P4_COLUMNS.items():
        words = " ".join(a if a.isdigit() else f"'{a}'" for a in arguments)
        assert printed[f"rep {words}"] == str(seed_rating)


def test_testit_p1_shows_infinity() -> None:
    out = run("testit", "p1")[1]
    assert out.splitlines()[0].split() == ["rep", "'+1000'", "1", "+inf"]


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["p3"], "*1000\n", "ladderbot p3: error: line 1: the result must be '+', '=' or '-'"),
        (["p3"], "+\n", "ladderbot p3: error: line 1: the opponent rating is missing"),
        (["p4"], "+abc\n", "ladderbot p4: error: line 1: the opponent rating 'abc' is not"),
        (["p5"], "+nan\n", "ladderbot p5: error: line 1: the opponent rating 'nan' is not"),
        (["ra", "p2"], "+1 a -3\n", "ladderbot ra: error: line 1: days '-3' must be a finite"),
        (["rep", "+1000", "0"], "", "ladderbot rep: error: argument 2: the COUNT for '+1000'"),
        (["rep", "+1000", "-1"], "", "ladderbot rep: error: argument 2: the COUNT for '+1000'"),
        (["rep", "+1000", "1.5"], "", "ladderbot rep: error: argument 2: the COUNT for"),
        (["rep", "+1000", "abc"], "", "ladderbot rep: error: argument 2: the COUNT for"),
        (["rep", "+1000", "2", "x"], "", "ladderbot rep: error: argument 3 'x' has no COUNT"),
        (["ra", "p9"], "", "ladderbot: error: argument VARIANT: unknown variant 'p9'"),
        (["testit", "p0"], "", "ladderbot: error: argument VARIANT: unknown variant 'p0'"),
        (["p9"], "", "ladderbot: error: argument COMMAND: invalid choice: 'p9'"),
        ([], "", "ladderbot: error: the following arguments are required: COMMAND"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_status_2(
    argv: list[str], stdin: str, message: str
) -> None:
    status, out, err = run(*argv, stdin=stdin)
    assert status == 2
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1 and err.endswith("\n")
    assert "Traceback" not in err


def test_help_exits_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "testit" in capsys.readouterr().out
