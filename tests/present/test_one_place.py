"""Issue 25: a word changed in bot.present shows in Discord, the web and the command line
alike, here the rating move and the actor's name (each front end calls the one function)."""

from __future__ import annotations

import pytest

from bot.app.embeds import add_edits, match_embed
from bot.present import words
from bot.present.lines import match_lines
from bot.services.changes import COMMAND_LINE_ID
from bot.services.shapes import match_object
from bot.storage import Match, MatchEdit, Participant
from bot.web.app import _move

MARK = "«the one move»"


def _match() -> Match:
    participants = tuple(
        Participant(seat, 10 + seat, None, f"p{seat}", str(seat + 1), float(1 - seat), 20.0,
                    True, "loss" if seat else "win", 500.0, 520.0 - 40 * seat)
        for seat in range(2)
    )  # fmt: skip
    return Match(7, 1, "applied", 10, 1.7e9, 1.7e9, 1.7e9, "r", None, None, None, None,
                 participants)  # fmt: skip


def _everywhere(match: Match, edits: list[MatchEdit]) -> tuple[str, str, str]:
    """What Discord (/match show), the command line (`match`) and the web (the match page's
    rating column) show of one match."""
    discord = str(add_edits(match_embed(match), edits).to_dict()["fields"])
    cli = "\n".join(match_lines(match, edits))
    web = "\n".join(_move(p, match.status) for p in match_object(match)["participants"])
    return discord, cli, web


def test_a_rating_move_changed_in_one_place_changes_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match = _match()
    before = _everywhere(match, [])
    assert all("500.0 → 520.0 (+20.0)" in shown for shown in before)
    monkeypatch.setattr(words, "rating_move", lambda _before, _after, _said=None: MARK)
    assert all(shown.count(MARK) == 2 for shown in _everywhere(match, []))


def test_the_actors_name_changed_in_one_place_changes_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match, edits = _match(), [MatchEdit(1.7e9, COMMAND_LINE_ID, "<@10> 1 | <@11> 0")]
    discord, cli, _ = _everywhere(match, edits)
    assert "by the command line" in discord and "by the command line" in cli
    monkeypatch.setitem(words.NAMED_ACTORS, COMMAND_LINE_ID, MARK)
    discord, cli, _ = _everywhere(match, edits)
    assert f"by {MARK}" in discord and f"by {MARK}" in cli
