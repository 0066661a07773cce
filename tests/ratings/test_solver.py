"""The segment solver on its own: many equations at once, infinities, empty segments."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.elo import elo_expected_score
from bot.ratings.gamelist import Game, parse_games
from bot.ratings.performance import Stability, format_stability, stability
from bot.ratings.solver import SharedPowers, solve_segments
from bot.ratings.variants import VARIANTS, FictitiousGame

DRAW_WITH_ZERO = (FictitiousGame(0.1, 0.5, 0.0),)


def test_expected_score_is_the_elo_curve() -> None:
    assert elo_expected_score(np.array([0.0, 400.0, -400.0])).tolist() == pytest.approx(
        [0.5, 1 / 11, 10 / 11]
    )
    assert elo_expected_score(np.array([1e6, -1e6])).tolist() == [0.0, 1.0]


def test_one_win_and_one_loss_against_equals_is_their_rating() -> None:
    root = solve_segments(
        np.array([1.0, 0.0]), np.array([1700.0, 1700.0]), np.ones(2), np.array([0, 2])
    )
    assert root.tolist() == pytest.approx([1700.0], abs=1e-9)


def test_a_known_closed_form_root() -> None:
    """3 wins, 1 loss against 1000 with equal weights: W(1000 - RP) = 3/4."""
    root = solve_segments(
        np.array([1.0, 1.0, 1.0, 0.0]), np.full(4, 1000.0), np.ones(4), np.array([0, 4])
    )
    assert root[0] == pytest.approx(1000 + 400 * math.log10(3), abs=1e-7)


def test_segments_are_independent_and_may_be_empty_or_one_sided() -> None:
    results = np.array([1.0, 1.0, 0.0, 0.0, 0.5])
    ratings = np.array([1000.0, 1100.0, 1200.0, 1300.0, 1400.0])
    offsets = np.array([0, 2, 2, 4, 5, 5])
    roots = solve_segments(results, ratings, np.ones(5), offsets)
    assert roots[0] == math.inf and roots[2] == -math.inf
    assert math.isnan(roots[1]) and math.isnan(roots[4])
    assert roots[3] == pytest.approx(1400.0, abs=1e-9)


def test_fictitious_games_are_added_to_every_segment() -> None:
    roots = solve_segments(
        np.array([1.0]), np.array([1000.0]), np.ones(1), np.array([0, 0, 1]), DRAW_WITH_ZERO
    )
    assert roots[0] == pytest.approx(0.0, abs=1e-9)
    assert math.isfinite(roots[1]) and roots[1] > 1000


def test_a_long_list_with_vanishing_weights_still_converges() -> None:
    count = 100_000
    rng = np.random.default_rng(7)
    results = rng.choice([0.0, 0.5, 1.0], count)
    ratings = rng.normal(1500.0, 300.0, count)
    weights = 0.98 ** np.arange(count, dtype=np.float64)  # underflows to 0 for old games
    root = solve_segments(results, ratings, weights, np.array([0, count]), DRAW_WITH_ZERO)[0]
    expected = 1 / (1 + 10 ** ((ratings - root) / 400))
    value = np.sum(weights * (results - expected)) + 0.1 * (0.5 - 1 / (1 + 10 ** (-root / 400)))
    slope = np.log(10) / 400 * np.sum(weights * expected * (1 - expected))
    assert abs(value) / slope < 1e-6


def spec_value(
    results: list[float], ratings: list[float], weights: list[float], rp: float
) -> float:
    """f(RP) of SPEC 1.3 with the fictitious draw, one term at a time."""
    terms = [*zip(weights, results, ratings, strict=True), (0.1, 0.5, 0.0)]
    return sum(k * (w - 1 / (1 + 10 ** ((r - rp) / 400))) for k, w, r in terms)


segment_games = st.lists(
    st.tuples(
        st.sampled_from((0.0, 0.5, 1.0)),
        st.floats(-20_000, 20_000, allow_nan=False),
        st.floats(1e-3, 10.0),
    ),
    max_size=12,
)


@settings(max_examples=80, deadline=None)
@given(segments=st.lists(segment_games, min_size=1, max_size=8))
def test_every_segment_is_the_root_of_its_own_equation_solved_alone_or_together(
    segments: list[list[tuple[float, float, float]]],
) -> None:
    """Far-apart ratings make Newton falter (bisection takes over); segments that settle at
    different iterations make the solver continue on the pending ones alone."""
    flat = [game for games in segments for game in games]
    results, ratings, weights = (
        [np.array(column, dtype=np.float64) for column in zip(*flat, strict=True)]
        if flat
        else [np.zeros(0)] * 3
    )
    offsets = np.cumsum([0, *(len(games) for games in segments)])
    together = solve_segments(results, ratings, weights, offsets, DRAW_WITH_ZERO)
    for games, root in zip(segments, together.tolist(), strict=True):
        columns = [list(column) for column in zip(*games, strict=True)] or [[], [], []]
        results_of, ratings_of, weights_of = columns
        alone = solve_segments(
            np.array(results_of, dtype=np.float64),
            np.array(ratings_of, dtype=np.float64),
            np.array(weights_of, dtype=np.float64),
            np.array([0, len(games)]),
            DRAW_WITH_ZERO,
        )[0]
        assert root == pytest.approx(alone, abs=1e-6)
        assert spec_value(results_of, ratings_of, weights_of, root - 1e-6) > -1e-12
        assert spec_value(results_of, ratings_of, weights_of, root + 1e-6) < 1e-12


@settings(max_examples=80, deadline=None)
@given(
    segments=st.lists(segment_games, min_size=1, max_size=8),
    spread=st.sampled_from((1.0, 10.0, 2e3)),
)
def test_shared_powers_give_the_roots_of_every_variant(
    segments: list[list[tuple[float, float, float]]], spread: float
) -> None:
    """The powers shared by several solves of the same games (each variant's weights and
    fictitious games) give the roots solved without them, warning nothing; ratings too far
    apart to split (spread 2e3: up to 4e7 Elo) fall back to one exponential per game."""
    flat = [game for games in segments for game in games]
    results, ratings, weights = (
        [np.array(column, dtype=np.float64) for column in zip(*flat, strict=True)]
        if flat
        else [np.zeros(0)] * 3
    )
    ratings = ratings * spread / 10.0
    offsets = np.cumsum([0, *(len(games) for games in segments)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        shared = SharedPowers(ratings, offsets)
        for variant in VARIANTS.values():
            alone = solve_segments(results, ratings, weights, offsets, variant.fictitious)
            together = solve_segments(
                results, ratings, weights, offsets, variant.fictitious, shared
            )
            np.testing.assert_allclose(together, alone, rtol=1e-12, atol=1e-8)


def test_shared_powers_of_other_games_are_refused() -> None:
    shared = SharedPowers(np.array([1500.0, 1600.0]), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="shared powers of other game lists"):
        solve_segments(np.ones(2), np.ones(2), np.ones(2), np.array([0, 2]), (), shared)


def _stability_without_warnings(games: list[Game], variant: str) -> Stability:
    """stability() with every warning (numpy's RuntimeWarnings) raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return stability(games, variant)


def test_p8_of_one_draw_at_minus_211771_warns_nothing() -> None:
    """Issue 17 item 7: `echo '-211771.498' | ladderbot p8` printed a RuntimeWarning (the
    Newton step overflowed where f is flat, far from the fictitious games' 1500)."""
    (game,) = parse_games(io.StringIO("-211771.498\n"))
    assert format_stability(_stability_without_warnings([game], "p8")) == "1500 +417 -417"


@settings(max_examples=60, deadline=None)
@given(
    games=st.lists(
        st.builds(
            Game,
            result=st.sampled_from((0.0, 0.5, 1.0)),
            rating=st.floats(-1e6, 1e6),
            opponent=st.sampled_from(("a", "b")),
        ),
        min_size=1,
        max_size=6,
    ),
    variant=st.sampled_from(tuple(VARIANTS)),
)
def test_game_lists_within_the_bounds_raise_no_numpy_warning(
    games: list[Game], variant: str
) -> None:
    """Numpy's errors raised: the answer is found without one (and is the same)."""
    strict = _stability_without_warnings(games, variant)
    assert format_stability(strict) == format_stability(stability(games, variant))
