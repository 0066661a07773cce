"""Issue 24 finding 10 (SPEC 7): every number option of the command line, and every number
a setting is given as text, takes the ASCII digits 0-9 only: `evaluate --last` with the
Arabic-Indic digits for 10 was read as 10. The options are refused before any database is
opened (none exists here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import SettingError, ascii_whole, finite_number
from tests.test_cli import run

NOT_ASCII_WHOLE = ["\u0661\u0660", "\uff11\uff10", " 10", "10 ", "+10", "1_0", "\u0661"]
"""Arabic-Indic and fullwidth digits, spaces, a sign, an underscore: int() reads each."""


@pytest.mark.parametrize("text", NOT_ASCII_WHOLE)
def test_finding_10_the_one_whole_number_parser_takes_ascii_digits_only(text: str) -> None:
    assert int(text) > 0  # what the command line used to accept
    assert ascii_whole(text, 1, 1_000_000) is None
    assert ascii_whole("0010", 1, 1_000_000) == 10
    assert ascii_whole("9" * 5000, 1, 1_000_000) is None  # refused by length, not converted


@pytest.mark.parametrize(
    "option",
    [
        ["evaluate", "--guild", "1", "--last"],
        ["matches", "--guild", "1", "--limit"],
        ["balance", "--guild", "1", "<@1> <@2>", "--teams"],
        ["web", "--port"],
        ["match", "--guild", "1"],
        ["leaderboard", "--guild"],
    ],
    ids=lambda option: " ".join(option[:1] + option[-1:]),
)
def test_finding_10_every_number_option_refuses_non_ascii_digits(
    option: list[str], tmp_path: Path
) -> None:
    database = tmp_path / "none.sqlite3"
    command, rest = option[0], option[1:]
    status, out, err = run(command, "--db", str(database), *rest, "\u0661\u0660")
    assert (status, out) == (2, "")
    assert "'\u0661\u0660'" in err and "Traceback" not in err
    assert not database.exists()


@pytest.mark.parametrize("text", ["\u0661\u0660", "1_0", " 1", "inf"])
def test_finding_10_a_setting_given_as_text_takes_ascii_digits_only(text: str) -> None:
    with pytest.raises(SettingError, match="must be a number"):
        finite_number(text)
    assert finite_number("-2.5e1") == -25.0
