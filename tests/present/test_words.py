"""The words shared by Discord, the web and the command line (issue 23 findings 8 and 11;
issue 25: one place for each word)."""

from __future__ import annotations

import math

import pytest

from bot.cli import build_parser
from bot.present.words import (
    actor_text,
    command_line_settings,
    discord_settings_command,
    json_number,
    member_text,
    plural,
    rating_move,
    rating_text,
    score_text,
    setting_text,
    side_name,
)
from bot.services.changes import COMMAND_LINE_ID


def test_finding_8_infinities_are_plus_and_minus_inf_and_only_nan_is_undefined() -> None:
    assert [rating_text(v) for v in (math.inf, -math.inf, math.nan)] == [
        "+inf",
        "-inf",
        "undefined",
    ]
    assert [json_number(v) for v in (math.inf, -math.inf, math.nan, 512.25)] == [
        "+inf",
        "-inf",
        None,
        512.25,
    ]


def test_finding_11_one_decimal_for_every_rating_and_moves_that_add_up() -> None:
    assert rating_text(519.25) == "519.2" and rating_text(500.0) == "500.0"
    assert rating_move(499.96, 520.04) == "500.0 → 520.0 (+20.0)"


@pytest.mark.parametrize(
    ("count", "shown"), [(0, "0 games"), (1, "1 game"), (2, "2 games"), (1500, "1500 games")]
)
def test_finding_11_plurals(count: int, shown: str) -> None:
    assert plural(count, "game") == shown
    assert (
        plural(1, "match", "matches") == "1 match" and plural(3, "match", "matches") == "3 matches"
    )
    assert score_text(1.0) == "1 point" and score_text(1.5) == "1.5 points"


def test_finding_11_one_name_for_a_side_whatever_its_label() -> None:
    assert side_name("a") == side_name("A") == side_name("1") == "Team A"
    assert side_name("b") == side_name("2") == "Team B"
    assert side_name("27") == "Team AA" and side_name("red") == "Team red"


def test_finding_11_settings_as_typed_and_a_name_once_when_it_is_the_id() -> None:
    assert [setting_text(v) for v in (12.0, 0.5, 1e6, True, False, "p8", 3)] == [
        "12",
        "0.5",
        "1000000",
        "on",
        "off",
        "p8",
        "3",
    ]
    assert member_text("11", 11) == "11" and member_text("ann", 11) == "ann (11)"
    assert member_text("guest_bob", None) == "guest_bob"


def test_one_actor_name_for_the_command_line_the_bot_and_a_user() -> None:
    """issue 25: `actor_text` and the command line's `actor_name` disagreed on None."""
    assert actor_text(COMMAND_LINE_ID) == "the command line"
    assert actor_text(None) == "the bot"
    assert actor_text(42) == "<@42>"


def test_the_evaluation_s_advice_names_the_command_of_the_front_end_that_asked() -> None:
    """issue 25 finding 1: the services wrote "/admin settings variant:p3", which `ladderbot
    evaluate` printed; each front end now spells the settings change itself."""
    tuned = {"t": "600", "game_mult": "0.25"}
    assert discord_settings_command(tuned) == "/admin settings t:600 game_mult:0.25"
    assert command_line_settings(5)({"variant": "p3"}) == "ladderbot settings --guild 5 variant=p3"
    parsed = build_parser().parse_args(command_line_settings(5)(tuned).split()[1:])
    assert (parsed.guild, parsed.changes) == (5, ["t=600", "game_mult=0.25"])
