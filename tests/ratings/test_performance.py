"""Performance ratings against SPEC 1.6, and the invariants the definitions imply."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.gamelist import Game, parse_games
from bot.ratings.performance import (
    format_rating,
    format_stability,
    performance,
    performance_many,
    rating_accuracy,
    rating_accuracy_arrays,
    round_rating,
    stability,
    stability_arrays,
)
from bot.ratings.rep import rep
from bot.ratings.variants import GameArrays
from tests.ratings.reference import REFERENCE_RATINGS, REFERENCE_STABILITY
from tests.ratings.strategies import (
    VARIANT_NAMES,
    game_lists,
    games_strategy,
    spec_equation,
)

PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


def games_of(*arguments: str) -> list[Game]:
    return parse_games(list(rep(arguments, ())))


@pytest.mark.parametrize(("arguments", "variant", "expected"), REFERENCE_RATINGS)
def test_reference_rating(arguments: tuple[str, ...], variant: str, expected: float) -> None:
    rating = performance(games_of(*arguments), variant)
    if math.isinf(expected):
        assert rating == expected
    else:
        assert round_rating(rating) == expected


@pytest.mark.parametrize(("arguments", "variant", "shown", "accuracy"), REFERENCE_STABILITY)
def test_reference_stability_and_accuracy(
    arguments: tuple[str, ...], variant: str, shown: str, accuracy: float
) -> None:
    games = games_of(*arguments)
    assert format_stability(stability(games, variant)) == shown
    assert f"{rating_accuracy(games):.2f}" == f"{accuracy:.2f}"


def test_spec_example_stability_from_unrounded_values() -> None:
    result = stability(games_of("+1492", "20"), "p3")
    assert format_stability(result) == "2500 +521 -268"
    assert result.up == pytest.approx(520.69, abs=0.01)


def test_p1_without_games_is_undefined_and_others_solve_their_fictitious_games() -> None:
    assert math.isnan(performance([], "p1"))
    assert format_stability(stability([], "p1")) == "undefined"
    for variant in ("p2", "p3", "p4", "p5", "p6", "p7"):
        assert performance([], variant) == pytest.approx(0.0, abs=1e-6)
    assert performance([], "p8") == pytest.approx(1500.0, abs=1e-6)


def test_p1_all_wins_and_all_losses_are_infinite_with_undefined_stability() -> None:
    assert performance(games_of("+1000 a*", "3"), "p1") == math.inf
    losses = stability(games_of("-1000", "3"), "p1")
    assert losses.rating == -math.inf
    assert not losses.defined and math.isnan(losses.up) and math.isnan(losses.down)
    assert format_stability(losses) == "-inf"


def test_draws_only_give_the_opponent_rating_for_p1() -> None:
    assert performance(games_of("=1234.5 a", "4"), "p1") == pytest.approx(1234.5, abs=1e-6)


def test_variant_may_be_given_by_name_or_object_and_unknown_names_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown variant 'p9': choose one of p1…p8"):
        performance([], "p9")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (2.5, "3"),
        (-2.5, "-3"),
        (1.4999, "1"),
        (-0.4, "0"),
        (math.inf, "+inf"),
        (-math.inf, "-inf"),
        (math.nan, "undefined"),
    ],
)
def test_ratings_round_half_away_from_zero(value: float, shown: str) -> None:
    assert format_rating(value) == shown


def test_rating_accuracy_sums_square_roots_per_opponent() -> None:
    games = games_of("+1000 a", "4", "-1000 b", "9", "=1000", "1")
    assert rating_accuracy(games) == pytest.approx(2 + 3 + 1)
    assert rating_accuracy([]) == 0


# --- invariants ------------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(games=game_lists, variant=st.sampled_from(VARIANT_NAMES))
def test_the_rating_is_a_root_of_the_spec_equation(games: list[Game], variant: str) -> None:
    rating = performance(games, variant)
    if not math.isfinite(rating):
        assert variant == "p1"
        return
    noise = 1e-12 * (len(games) + 1)  # rounding in sums of terms below 1 each
    assert spec_equation(games, variant, rating - 1e-6) > -noise
    assert spec_equation(games, variant, rating + 1e-6) < noise


@PROPERTY_SETTINGS
@given(games=game_lists)
def test_p1_is_infinite_exactly_when_no_game_is_lost_or_none_is_won(games: list[Game]) -> None:
    rating = performance(games, "p1")
    results = {game.result for game in games}
    if not games:
        assert math.isnan(rating)
    elif results == {1.0}:
        assert rating == math.inf
    elif results == {0.0}:
        assert rating == -math.inf
    else:
        assert math.isfinite(rating)


@PROPERTY_SETTINGS
@given(
    games=st.lists(games_strategy, max_size=30),
    variant=st.sampled_from(VARIANT_NAMES[1:]),
)
def test_every_variant_but_p1_is_finite(games: list[Game], variant: str) -> None:
    assert math.isfinite(performance(games, variant))


@PROPERTY_SETTINGS
@given(
    games=game_lists,
    variant=st.sampled_from(VARIANT_NAMES),
    margin=st.floats(0, 2000),
)
def test_a_win_against_a_stronger_newcomer_never_lowers_the_rating(
    games: list[Game], variant: str, margin: float
) -> None:
    """The newcomer is rated at or above RP (so W(RP - r) ≥ ½ outweighs the aging of the
    older games). Against a much weaker newcomer a win CAN lower p3…p8: every older game
    ages by one step while the fictitious draw does not."""
    rating = performance(games, variant)
    if not math.isfinite(rating):
        return
    win = Game(1.0, rating + margin, "newcomer")
    loss = Game(0.0, rating - margin, "newcomer")
    assert performance([win, *games], variant) >= rating - 1e-6
    assert performance([loss, *games], variant) <= rating + 1e-6


@PROPERTY_SETTINGS
@given(games=game_lists, added=games_strategy, variant=st.sampled_from(("p1", "p2")))
def test_without_aging_any_win_raises_and_any_loss_lowers(
    games: list[Game], added: Game, variant: str
) -> None:
    rating = performance(games, variant)
    after = performance([added, *games], variant)
    if math.isnan(rating) or math.isnan(after):
        return
    if added.result == 1.0:
        assert after >= rating - 1e-6
    if added.result == 0.0:
        assert after <= rating + 1e-6


def test_a_win_against_a_far_weaker_newcomer_lowers_p3() -> None:
    """The counterexample behind the restriction above, from the definitions."""
    games = games_of("+2000", "20")
    assert performance([Game(1.0, -2000.0, "newcomer"), *games], "p3") < performance(games, "p3")


@PROPERTY_SETTINGS
@given(
    results=st.lists(st.sampled_from((0.0, 0.5, 1.0)), max_size=40),
    ratings=st.lists(st.integers(-500, 3500), min_size=40, max_size=40),
)
def test_with_all_opponents_distinct_p4_and_p7_equal_p3(
    results: list[float], ratings: list[int]
) -> None:
    games = [
        Game(result, float(rating), f"x{i}")
        for i, (result, rating) in enumerate(zip(results, ratings, strict=False))
    ]
    p3 = performance(games, "p3")
    assert performance(games, "p4") == pytest.approx(p3, abs=1e-6)
    assert performance(games, "p7") == pytest.approx(p3, abs=1e-6)


@PROPERTY_SETTINGS
@given(count=st.integers(0, 300))
def test_rating_accuracy_of_distinct_opponents_is_their_number(count: int) -> None:
    assert rating_accuracy(games_of("+1000 x*", str(count)) if count else []) == pytest.approx(
        count
    )


@PROPERTY_SETTINGS
@given(lists=st.lists(game_lists, max_size=6), variant=st.sampled_from(VARIANT_NAMES))
def test_performance_many_equals_one_list_at_a_time(lists: list[list[Game]], variant: str) -> None:
    together = performance_many(lists, variant)
    assert len(together) == len(lists)
    for games, rating in zip(lists, together, strict=True):
        alone = performance(games, variant)
        if math.isfinite(alone):
            assert rating == pytest.approx(alone, abs=1e-6)
        else:
            assert math.isnan(rating) if math.isnan(alone) else rating == alone


@PROPERTY_SETTINGS
@given(games=game_lists, variant=st.sampled_from(VARIANT_NAMES))
def test_stability_replays_one_more_game_against_an_equal_newcomer(
    games: list[Game], variant: str
) -> None:
    result = stability(games, variant)
    if not result.defined:
        assert math.isnan(result.up) and math.isnan(result.down)
        return
    rating = performance(games, variant)
    name = "brand-new-opponent"
    assert all(game.opponent != name for game in games)
    with_win = performance([Game(1.0, rating, name), *games], variant)
    with_loss = performance([Game(0.0, rating, name), *games], variant)
    assert (result.rating, result.up, result.down) == pytest.approx(
        (rating, with_win - rating, rating - with_loss), abs=1e-6
    )
    assert result.up > 0 and result.down > 0


@PROPERTY_SETTINGS
@given(lists=st.lists(game_lists, max_size=5), variant=st.sampled_from(VARIANT_NAMES))
def test_stability_and_accuracy_of_many_lists_equal_one_list_at_a_time(
    lists: list[list[Game]], variant: str
) -> None:
    arrays = GameArrays.from_game_lists(lists)
    ratings, ups, downs = stability_arrays(arrays, variant)
    accuracies = rating_accuracy_arrays(arrays)
    for index, games in enumerate(lists):
        alone = stability(games, variant)
        assert accuracies[index] == pytest.approx(rating_accuracy(games))
        for together, single in ((ratings, alone.rating), (ups, alone.up), (downs, alone.down)):
            if math.isfinite(single):
                assert together[index] == pytest.approx(single, abs=1e-6)
            else:
                assert str(together[index]) == str(single)
