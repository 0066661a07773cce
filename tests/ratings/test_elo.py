"""The Elo-unit bridge of SPEC 3.1."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.elo import EloBridge

ratings = st.floats(-1e4, 1e4)
bridges = st.builds(EloBridge, t=st.floats(1.0, 1000.0), initial_rating=st.floats(-3000, 3000))


def elo_expected(difference: float) -> float:
    return 1 / (1 + 10 ** (difference / 400))


@settings(max_examples=100, deadline=None)
@given(bridge=bridges, rating=ratings)
def test_round_trip(bridge: EloBridge, rating: float) -> None:
    assert bridge.from_elo(bridge.to_elo(rating)) == pytest.approx(rating, abs=1e-7)
    assert bridge.to_elo(bridge.from_elo(rating)) == pytest.approx(rating, abs=1e-7)


@settings(max_examples=100, deadline=None)
@given(bridge=bridges, r_p=st.floats(-3000, 3000), gap_in_t=st.floats(-40, 40))
def test_elo_expectation_equals_the_ladder_probability(
    bridge: EloBridge, r_p: float, gap_in_t: float
) -> None:
    r_q = r_p + gap_in_t * bridge.t
    ladder = 1 / (1 + math.exp((r_q - r_p) / bridge.t))
    elo = elo_expected(bridge.to_elo(r_q) - bridge.to_elo(r_p))
    assert elo == pytest.approx(ladder, rel=1e-9)


def test_defaults_of_the_ladder() -> None:
    bridge = EloBridge(t=120.0, initial_rating=1200.0)
    assert bridge.to_elo(1200.0) == 1500.0
    assert bridge.points_per_elo == pytest.approx(120 * math.log(10) / 400)
    assert bridge.to_elo(1200.0 + bridge.points_per_elo * 400) == pytest.approx(1900.0)


def test_arrays_convert_elementwise() -> None:
    bridge = EloBridge(t=120.0, initial_rating=1000.0)
    values = np.array([900.0, 1000.0, 1100.0])
    converted = bridge.to_elo(values)
    assert isinstance(converted, np.ndarray)
    assert converted.tolist() == pytest.approx([bridge.to_elo(float(v)) for v in values])
    assert bridge.from_elo(converted).tolist() == pytest.approx(values.tolist())


@pytest.mark.parametrize(
    ("t", "initial_rating", "message"),
    [
        (0.0, 1000.0, "t must be a finite number > 0"),
        (-5.0, 1000.0, "t must be a finite number > 0"),
        (math.inf, 1000.0, "t must be a finite number > 0"),
        (math.nan, 1000.0, "t must be a finite number > 0"),
        ("120", 1000.0, "t must be a number"),
        (True, 1000.0, "t must be a number"),
        (120.0, math.nan, "initial_rating must be finite"),
        (120.0, "1000", "initial_rating must be a number"),
    ],
)
def test_bad_arguments_are_named(t: float, initial_rating: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        EloBridge(t=t, initial_rating=initial_rating)
