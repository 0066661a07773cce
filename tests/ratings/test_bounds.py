"""SPEC 7 at the math's door: scores and minutes outside their bounds are refused, and every
match within the bounds (settings at their corners included) gives finite ratings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import SETTING_BOUNDS
from bot.ratings.ladder import (
    MAX_MINUTES,
    MAX_SCORE,
    MIN_MINUTES,
    LadderSettings,
    rating_changes,
    valid_minutes,
    valid_scores,
)
from bot.ratings.replay import replay_sequential, replay_waves
from tests.ratings.replays import max_change


def test_scores_of_1e308_are_refused_instead_of_giving_nan() -> None:
    with pytest.raises(ValueError, match="score must be a finite number from 0 to 1e9"):
        rating_changes([500.0, 500.0], [1, 2], [1e308, 1e308], [10.0, 20.0])


@pytest.mark.parametrize(
    ("scores", "valid"),
    [(0.0, True), (MAX_SCORE, True), (-1e-300, False), (np.nextafter(MAX_SCORE, np.inf), False)],
)
def test_score_bounds_are_inclusive(scores: float, valid: bool) -> None:
    assert bool(valid_scores(scores)) is valid


@pytest.mark.parametrize(
    ("minutes", "valid"),
    [
        (MIN_MINUTES, True),
        (MAX_MINUTES, True),
        (np.nextafter(MIN_MINUTES, 0.0), False),
        (5e-324, False),
        (np.nextafter(MAX_MINUTES, np.inf), False),
    ],
)
def test_minutes_bounds_are_inclusive(minutes: float, valid: bool) -> None:
    assert bool(valid_minutes(minutes)) is valid


def corners(name: str) -> st.SearchStrategy[float]:
    """A setting at either end of its bound or anywhere between."""
    bound = SETTING_BOUNDS[name]
    return st.one_of(
        st.sampled_from([bound.low, bound.high]),
        st.floats(bound.low, bound.high, allow_nan=False),
    )


ladder_settings = st.builds(
    LadderSettings,
    t=corners("t"),
    game_mult=corners("game_mult"),
    max_game_length=corners("max_game_length"),
    initial_rating=corners("initial_rating"),
)
scores = st.one_of(st.sampled_from([0.0, MAX_SCORE]), st.floats(0.0, MAX_SCORE))
minutes = st.one_of(st.sampled_from([MIN_MINUTES, MAX_MINUTES]), st.floats(MIN_MINUTES, 1440.0))


Log = tuple[list[int], list[int], list[int], list[float], list[float]]
"""match, player, side, score, minutes columns."""


@st.composite
def match_logs(draw: st.DrawFn) -> Log:
    """Up to 8 matches of 2-6 of 6 players, each on 2-3 sides, at the bounds."""
    log: Log = ([], [], [], [], [])
    for match in range(draw(st.integers(1, 8))):
        players = draw(st.lists(st.integers(0, 5), min_size=2, max_size=6, unique=True))
        extra = len(players) - 2
        sides = [0, 1, *draw(st.lists(st.integers(0, 2), min_size=extra, max_size=extra))]
        for player, side in zip(players, sides, strict=True):
            log[0].append(match)
            log[1].append(player)
            log[2].append(side)
            log[3].append(draw(scores))
            log[4].append(draw(minutes))
    return log


@settings(max_examples=40, deadline=None)
@given(ladder=ladder_settings, log=match_logs())
def test_every_match_within_the_bounds_gives_finite_ratings(
    ladder: LadderSettings, log: Log
) -> None:
    sequential = replay_sequential(*log, 6, ladder)
    waves = replay_waves(*log, 6, ladder)
    for replay in (sequential, waves):
        assert np.isfinite(replay.after).all()
        assert np.isfinite(replay.final).all()
    assert waves.after == pytest.approx(sequential.after, rel=1e-12, abs=1e-6)
    # No participant moves more than the most one match allows (step 7), up to the rounding
    # of ratings near 1e6.
    changes = np.abs(sequential.after - sequential.before)
    assert (changes <= max_change(ladder) + 1e-6).all()
