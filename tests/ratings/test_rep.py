"""rep (SPEC 1.2)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.rep import RepError, rep


def lines(*arguments: str, stdin: str = "") -> list[str]:
    return list(rep(arguments, io.StringIO(stdin)))


def test_spec_examples() -> None:
    assert lines("+1500 abc", "2", "-2000 xyz", "1") == ["+1500 abc", "+1500 abc", "-2000 xyz"]
    assert lines("+1500 abc; -1500 xyz", "2") == ["+1500 abc", "-1500 xyz"] * 2
    assert lines("+1000 a*", "3") == ["+1000 a1", "+1000 a2", "+1000 a3"]


def test_games_are_trimmed_and_empty_pieces_dropped() -> None:
    assert lines("  +1 a ;-2 b;  ; ", "1") == ["+1 a", "-2 b"]


def test_every_star_takes_the_repetition_number() -> None:
    assert lines("+1* a*", "2") == ["+11 a1", "+12 a2"]


def test_a_lone_dash_copies_stdin_at_that_point() -> None:
    assert lines("+1", "1", "-", "-2", "1", stdin="=5 x\n=6 y\n") == ["+1", "=5 x", "=6 y", "-2"]


def test_no_arguments_print_nothing() -> None:
    assert lines() == []


@pytest.mark.parametrize("count", ["0", "-1", "1.5", "abc", "", "+2", " 3", "-"])
def test_a_count_that_is_not_a_positive_integer_is_named(count: str) -> None:
    with pytest.raises(RepError) as caught:
        rep(["+1000", count], io.StringIO())
    assert str(caught.value) == (
        f"argument 2: the COUNT for '+1000' must be a positive integer, not {count!r}"
    )


def test_a_string_without_count_is_named_and_nothing_is_printed() -> None:
    with pytest.raises(RepError, match="argument 3 '-2000 xyz' has no COUNT"):
        rep(["+1000", "1", "-2000 xyz"], io.StringIO())


@settings(max_examples=50, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from(["+1000", "-1 a*", "=3 x; +4 y*"]), st.integers(1, 20)),
        max_size=5,
    )
)
def test_line_count_is_the_sum_of_games_times_counts(pairs: list[tuple[str, int]]) -> None:
    arguments = [text for game, count in pairs for text in (game, str(count))]
    expected = sum(count * len(game.split(";")) for game, count in pairs)
    assert len(lines(*arguments)) == expected
