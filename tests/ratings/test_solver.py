"""The segment solver on its own: many equations at once, infinities, empty segments."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.solver import expected_score, solve_segments
from bot.ratings.variants import FictitiousGame

DRAW_WITH_ZERO = (FictitiousGame(0.1, 0.5, 0.0),)


def test_expected_score_is_the_elo_curve() -> None:
    assert expected_score(np.array([0.0, 400.0, -400.0])).tolist() == pytest.approx(
        [0.5, 1 / 11, 10 / 11]
    )
    assert expected_score(np.array([1e6, -1e6])).tolist() == [0.0, 1.0]


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
        (np.array(column, dtype=np.float64) for column in zip(*flat, strict=True))
        if flat
        else (np.zeros(0),) * 3
    )
    offsets = np.cumsum([0, *(len(games) for games in segments)])
    together = solve_segments(results, ratings, weights, offsets, DRAW_WITH_ZERO)
    for games, root in zip(segments, together.tolist(), strict=True):
        columns = [list(column) for column in zip(*games, strict=True)] or [[], [], []]
        alone = solve_segments(
            *(np.array(column) for column in columns), np.array([0, len(games)]), DRAW_WITH_ZERO
        )[0]
        assert root == pytest.approx(alone, abs=1e-6)
        assert spec_value(*columns, root - 1e-6) > -1e-12
        assert spec_value(*columns, root + 1e-6) < 1e-12
