"""The lineup text of SPEC 4 and the score-less reports of SPEC 2.4."""

from __future__ import annotations

import re

import pytest

from bot.services import (
    LineupEntry,
    Player,
    UserError,
    duel_lineup,
    ffa_lineup,
    parse_lineup,
    parse_team,
    team_lineup,
)
from bot.services.errors import quoted
from bot.services.lineup import ID_RULE, guest_name, parse_id, parse_player, side_label


def test_spec_example_lineup() -> None:
    assert parse_lineup("<@1> 1200 18, <@2> 900 | <@3> 1500, guest_bob 300 12") == (
        LineupEntry(Player(user_id=1), "1", 1200.0, 18.0),
        LineupEntry(Player(user_id=2), "1", 900.0, None),
        LineupEntry(Player(user_id=3), "2", 1500.0, None),
        LineupEntry(Player(guest="guest_bob"), "2", 300.0, 12.0),
    )


def test_without_bars_everyone_is_a_side() -> None:
    lineup = parse_lineup("<@!1> 3, <@2> 2, bob 1")
    assert [e.side for e in lineup] == ["1", "2", "3"]
    assert lineup[0].player == Player(user_id=1)


def test_score_less_reports() -> None:
    a, b, c = Player(user_id=1), Player(user_id=2), Player(guest="g")
    assert [(e.score, e.side) for e in duel_lineup(a, b)] == [(1.0, "1"), (0.0, "2")]
    assert [e.score for e in duel_lineup(a, b, draw=True)] == [0.0, 0.0]
    assert [e.score for e in ffa_lineup([a, b, c], minutes=7)] == [2.0, 1.0, 0.0]
    assert {e.minutes for e in ffa_lineup([a, b], minutes=7)} == {7}
    team = team_lineup([a, c], [b], "b")
    assert [(e.side, e.score) for e in team] == [("a", 0.0), ("a", 0.0), ("b", 1.0)]
    assert [e.score for e in team_lineup([a], [b], "draw")] == [0.0, 0.0]


def test_team_text() -> None:
    assert parse_team("<@1><@!2>, bob  carol") == (
        Player(user_id=1),
        Player(user_id=2),
        Player(guest="bob"),
        Player(guest="carol"),
    )


@pytest.mark.parametrize(
    ("text", "number"), [("1", 1), ("007", 7), ("9223372036854775807", 2**63 - 1)]
)
def test_ids_are_ascii_decimal_integers_from_1_below_2_to_the_63(text: str, number: int) -> None:
    assert parse_id(text) == number


@pytest.mark.parametrize(
    "text",
    [
        *("0", "9223372036854775808", "9" * 5000, "0" * 5000, "", "-1", "+1", "1.0", " 1"),
        *("\u00b2", "\u0661\u0662", "\uff11"),  # superscript two, Arabic 12, fullwidth 1
    ],
)
def test_ids_outside_spec_7_are_refused_naming_the_rule(text: str) -> None:
    with pytest.raises(UserError) as refused:
        parse_id(text, "guild id")
    assert str(refused.value) == f"guild id {quoted(text)} must be {ID_RULE}"


def test_a_mention_in_unicode_digits_is_refused_not_read_as_user_12() -> None:
    with pytest.raises(UserError, match="user id '\u0661\u0662' must be"):
        parse_lineup("<@\u0661\u0662> 1 | <@2> 0")
    with pytest.raises(UserError, match="the score '\u0663' is not a number"):
        parse_lineup("<@1> \u0663 | <@2> 0")


@pytest.mark.parametrize("name", ["a", "x" * 32, "Zoë", "-x", "=1+1"])
def test_guest_names_of_1_to_32_printable_characters_are_accepted(name: str) -> None:
    assert guest_name(name) == name
    assert side_label(name) == name
    assert parse_player(name) == Player(guest=name)


@pytest.mark.parametrize(
    "name", ["", "x" * 33, "a b", "a\tb", "a\x00", "a\x7f", "a\u200b", "g\udcff"]
)
def test_guest_names_and_side_labels_outside_spec_7_are_refused(name: str) -> None:
    with pytest.raises(UserError, match=f"^guest name {re.escape(repr(name))} must be 1 to 32"):
        guest_name(name)
    with pytest.raises(UserError, match=f"^side label {re.escape(repr(name))} must be 1 to 32"):
        side_label(name)


@pytest.mark.parametrize("name", ["a<b", "a@b", "a~b", "a`b"])
def test_guest_names_refuse_the_lineup_syntax_characters_that_side_labels_allow(
    name: str,
) -> None:
    with pytest.raises(UserError, match="guest name"):
        guest_name(name)
    assert side_label(name) == name
