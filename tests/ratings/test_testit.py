"""testit (SPEC 1.7): situations and their shell-quoted commands."""

from __future__ import annotations

from bot.ratings import testit as testit_module
from bot.ratings.testit import SITUATIONS, shell_words


def test_commands_quote_game_strings_and_leave_counts_bare() -> None:
    assert shell_words(("+1000", "20")) == "rep '+1000' 20"
    assert shell_words(("-2500", "1", "it's", "2")) == "rep '-2500' 1 'it'\\''s' 2"


def test_every_situation_is_listed_once_and_printed_in_order() -> None:
    assert len(set(SITUATIONS)) == len(SITUATIONS) == 46
    lines = list(testit_module.testit("p3"))  # imported by module: pytest collects test*
    assert [line.rsplit(maxsplit=1)[0].strip() for line in lines] == [
        shell_words(arguments) for arguments in SITUATIONS
    ]
    assert lines[SITUATIONS.index(("+1492", "20"))].endswith(" 2500")
