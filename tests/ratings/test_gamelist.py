"""The game-list format (SPEC 1.1)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.gamelist import Game, GameListError, format_games, parse_games


def test_fields_and_defaults() -> None:
    games = parse_games("+1500 abc\n\n-1750 xyz 3\n=-20.5\n")
    assert games == [
        Game(1.0, 1500.0, "abc", 0.0),
        Game(0.0, 1750.0, "xyz", 3.0),
        Game(0.5, -20.5, "unknown", 0.0),
    ]


def test_lines_from_a_stream_keep_their_numbers() -> None:
    with pytest.raises(GameListError, match="line 3: "):
        parse_games(iter(["+1\n", "\n", "x1\n"]))


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("x1500", "the result must be '\\+', '=' or '-'"),
        ("+", "the opponent rating is missing"),
        ("+ abc", "the opponent rating is missing"),
        ("+abc", "the opponent rating 'abc' is not a number"),
        ("+nan", "the opponent rating 'nan' is not a number"),
        ("+inf", "the opponent rating 'inf' is not a number"),
        ("+1e3", "the opponent rating '1e3' is not a number"),
        ("+1" + "0" * 400, r"the opponent rating '10+' must be a finite number from -1e6 to 1e6"),
        ("-1" + "0" * 70, r"the opponent rating '10+' must be a finite number from -1e6 to 1e6"),
        ("=1000000.5", r"the opponent rating '1000000\.5' must be a finite number from -1e6"),
        ("+١٢", "the opponent rating '١٢' is not a number"),
        ("+1500 abc -1", r"days '-1' must be a finite number from 0 to 1e6"),
        ("+1500 abc x", r"days 'x' must be a finite number from 0 to 1e6"),
        ("+1500 abc 1000001", r"days '1000001' must be a finite number from 0 to 1e6"),
        ("+1500 abc 1" + "0" * 400, r"days '10+' must be a finite number from 0 to 1e6"),
        ("+1500 abc 1 extra", "too many fields"),
    ],
)
def test_malformed_lines_name_the_line_and_the_reason(line: str, reason: str) -> None:
    with pytest.raises(GameListError, match=f"^line 2: {reason}") as caught:
        parse_games(["+1", line])
    assert caught.value.line_number == 2
    assert caught.value.line == line


games = st.builds(
    Game,
    result=st.sampled_from((0.0, 0.5, 1.0)),
    rating=st.floats(-1e6, 1e6, allow_nan=False),
    opponent=st.text(st.characters(categories=("L", "N")), min_size=1, max_size=8),
    days=st.floats(0, 1e4),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(games, max_size=10))
def test_format_then_parse_round_trips(game_list: list[Game]) -> None:
    assert parse_games(format_games(game_list)) == game_list


def test_game_rejects_impossible_values() -> None:
    with pytest.raises(ValueError, match="result must be"):
        Game(0.3, 1000.0)
    with pytest.raises(ValueError, match="rating must be a finite number"):
        Game(1.0, math.inf)


@pytest.mark.parametrize("line_end", ["\n", "\r\n", "\r"])
def test_line_ends_of_every_kind_split_lines_and_keep_their_numbers(line_end: str) -> None:
    text = line_end.join(["+1 a", "", "-2 b 3", ""])
    assert parse_games(text) == parse_games(["+1 a\n", "\n", "-2 b 3\n"])
    assert parse_games([text]) == parse_games(text)
    with pytest.raises(GameListError, match=r"^line 3: "):
        parse_games(line_end.join(["+1", "", "+x"]))
