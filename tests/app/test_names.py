"""Names in embeds read literally (Markdown escaped) and ping nobody (SPEC 9.5)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app.embeds import leaderboard_embed, match_summary, prediction_embed
from bot.app.members import shown_name
from bot.services import Match, Member, Participant
from bot.services.standings import LeaderboardPage, LeaderboardRow, Prediction

NASTY = [
    "**bold**",
    "__under__",
    "~~strike~~",
    "`code`",
    "||spoiler||",
    "> quote",
    "@everyone",
    "@here",
    "<@123456789012345678>",
    "<@&42>",
    "[click](https://example.com)",
    "# heading",
    "back\\slash*",
    "[\\](0)",  # a backslash before `]`: escape_markdown left it to escape the bracket
]
MARKDOWN = "*_~`|"


def as_discord_reads(text: str) -> str:
    """What Discord shows: zero-width spaces invisible, a backslash escapes the next symbol."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text.replace("\u200b", ""))


def assert_literal(shown: str, name: str) -> None:
    assert as_discord_reads(shown) == name
    assert "@everyone" not in shown and "@here" not in shown and "<@" not in shown
    unescaped = re.sub(r"\\.", "", shown)
    assert not any(symbol in unescaped for symbol in MARKDOWN), shown


@pytest.mark.parametrize("name", NASTY)
def test_a_nasty_name_is_shown_literally(name: str) -> None:
    assert_literal(shown_name(name), name)


@given(st.text(alphabet=st.sampled_from(list("ab *_~`|>@<#[]()\\:everyonhr0123")), max_size=30))
def test_any_name_is_shown_literally(name: str) -> None:
    assert_literal(shown_name(name), name)


def _member(user_id: int, name: str) -> Member:
    return Member(1, user_id, name, False, True, 510.0, 1, 1, 0, 0)


def test_every_embed_escapes_names() -> None:
    name = "**Eve** @everyone"
    row = LeaderboardRow(1, 7, name, 510.0, 510.0, 1, 1, 0, 0, True)
    board = leaderboard_embed(LeaderboardPage("ladder", 1, 1, 1, (row,)))
    line = board.description or ""
    assert line.startswith("**1.** ") and "*provisional*" in line
    assert_literal(line.removeprefix("**1.** ").split(" — ")[0], name)
    guest = Participant(0, None, name, name, "1", 1.0, 10.0, False, None, None, None)
    match = Match(3, 1, "applied", None, 0.0, 0.0, 0.0, "r", None, None, None, None, (guest,))
    assert_literal(match_summary(match).removeprefix("#3 applied: "), name)
    prediction = prediction_embed(Prediction(_member(7, name), _member(8, "b"), 0.6, None, "p8"))
    assert_literal((prediction.title or "").removesuffix(" vs b"), name)
