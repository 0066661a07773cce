"""The variants' weights against the table of SPEC 1.4, one segment and many."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.gamelist import Game
from bot.ratings.variants import VARIANTS, GameArrays, variant_named
from tests.ratings.strategies import SPEC_FICTITIOUS, VARIANT_NAMES, game_lists, spec_weights


def test_the_eight_variants_in_order() -> None:
    assert tuple(VARIANTS) == VARIANT_NAMES


@pytest.mark.parametrize("name", VARIANT_NAMES)
def test_fictitious_games_as_the_table_states(name: str) -> None:
    assert tuple(tuple(game) for game in variant_named(name).fictitious) == SPEC_FICTITIOUS[name]


@pytest.mark.parametrize("name", ["p9", "P3", "", "p0"])
def test_unknown_variant_names_the_choices(name: str) -> None:
    with pytest.raises(ValueError, match=f"unknown variant {name!r}: choose one of p1…p8"):
        variant_named(name)


def test_opponent_counts_on_a_small_list() -> None:
    names = ["a", "b", "a", "c", "b", "a"]
    arrays = GameArrays.from_game_lists([[Game(1.0, 0.0, name) for name in names]])
    assert arrays.opponent_game_count.tolist() == [3, 2, 3, 1, 2, 3]
    assert arrays.newer_against_opponent.tolist() == [0, 0, 1, 0, 1, 2]
    assert arrays.distinct_newer_opponents.tolist() == [0, 1, 2, 2, 3, 3]
    assert arrays.age.tolist() == [0, 1, 2, 3, 4, 5]


@settings(max_examples=60, deadline=None)
@given(lists=st.lists(game_lists, max_size=5), name=st.sampled_from(VARIANT_NAMES))
def test_weights_of_many_lists_equal_the_table_list_by_list(
    lists: list[list[Game]], name: str
) -> None:
    weights = variant_named(name).weights(GameArrays.from_game_lists(lists))
    expected = [k for games in lists for k in spec_weights(games, name)]
    assert weights.tolist() == pytest.approx(expected, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    codes=st.lists(st.lists(st.integers(0, 5), max_size=12), min_size=1, max_size=5),
    spread=st.sampled_from((1, 1_000, 2**59)),
)
def test_opponent_groups_depend_only_on_which_codes_are_equal(
    codes: list[list[int]], spread: int
) -> None:
    """Codes far apart (too far to pack with the segment and age into one int64) group the
    games exactly as small ones do."""
    lists = [[Game(1.0, 0.0, str(code)) for code in segment] for segment in codes]
    small = GameArrays.from_game_lists(lists)
    spread_out = GameArrays(
        small.results,
        small.ratings,
        np.array([code * spread - 2**40 for segment in codes for code in segment], dtype=np.int64),
        small.offsets,
    )
    assert spread_out.opponent_game_count.tolist() == small.opponent_game_count.tolist()
    assert spread_out.newer_against_opponent.tolist() == small.newer_against_opponent.tolist()
    assert spread_out.distinct_newer_opponents.tolist() == small.distinct_newer_opponents.tolist()


@settings(max_examples=60, deadline=None)
@given(codes=st.lists(st.lists(st.integers(0, 5), max_size=12), max_size=5))
def test_lists_with_a_newest_game_group_their_opponents_as_a_sort_would(
    codes: list[list[int]],
) -> None:
    """One more game per list against an opponent new to it (the lists stability solves):
    the opponent groups carried over from the lists' own equal those sorted afresh, so
    every variant weighs the longer lists alike, bit for bit."""
    lists = [[Game(0.5, 1500.0 + code, str(code)) for code in segment] for segment in codes]
    games = GameArrays.from_game_lists(lists)
    extended = games.with_newest(np.ones(len(lists)), np.full(len(lists), 1400.0))
    reference = GameArrays.from_game_lists([[Game(1.0, 1400.0, "new"), *g] for g in lists])
    assert extended.offsets.tolist() == reference.offsets.tolist()
    assert extended.results.tolist() == reference.results.tolist()
    assert extended.ratings.tolist() == reference.ratings.tolist()
    afresh = GameArrays(extended.results, extended.ratings, extended.opponents, extended.offsets)
    carried, fresh = extended.opponent_groups, afresh.opponent_groups
    for name in ("order", "group", "starts", "sizes"):
        assert getattr(carried, name).tolist() == getattr(fresh, name).tolist()
    for variant in VARIANTS.values():
        assert variant.weights(extended).tolist() == variant.weights(afresh).tolist()
