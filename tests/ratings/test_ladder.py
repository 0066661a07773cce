"""The ZoneStats update of SPEC 2.3 and the score-less reports of SPEC 2.4."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ladder import (
    MAX_MINUTES,
    MAX_SCORE,
    MIN_MINUTES,
    OUTCOMES,
    LadderSettings,
    duel_changes,
    duel_scores,
    ladder_expected_score,
    match_minutes,
    match_outcomes,
    outcome_codes,
    placement_scores,
    rating_changes,
    team_scores,
    zonestats_changes,
)
from tests.ratings.replays import max_change

DEFAULTS = LadderSettings()


# --- the worked examples of SPEC 2.3 -------------------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "sides", "scores", "minutes", "expected"),
    [
        ([500, 500], ["a", "b"], [1, 0], [20, 20], [20.0, -20.0]),
        ([400, 650], ["a", "b"], [1, 0], [20, 20], [35.5709, -35.5709]),
        ([500] * 4, "abcd", [40, 30, 20, 10], [20] * 4, [40.0, 13.3333, -13.3333, -40.0]),
        ([520, 480], ["a", "b"], [3, 6], [5, 30], [4.1743, -4.1743]),
        (
            [600, 500, 450, 500],
            ["A", "A", "B", "B"],
            [10, 8, 9, 1],
            [20, 20, 15, 20],
            [-8.1170, 1.3909, 30.0, -23.2739],
        ),
    ],
    ids=["duel-equal", "duel-upset", "ffa", "score-per-hour", "teams"],
)
def test_worked_examples(
    ratings: list[float],
    sides: list[str],
    scores: list[float],
    minutes: list[float],
    expected: list[float],
) -> None:
    changes = rating_changes(ratings, sides, scores, minutes, DEFAULTS)
    assert np.round(changes, 4).tolist() == pytest.approx(expected, abs=1e-12)
    literal = zonestats_changes(ratings, sides, scores, minutes, DEFAULTS)
    assert np.round(literal, 4).tolist() == pytest.approx(expected, abs=1e-12)


def test_integer_side_labels_work_like_text_labels() -> None:
    by_text = rating_changes([600, 500, 450, 500], "AABB", [10, 8, 9, 1], [20, 20, 15, 20])
    by_int = rating_changes([600, 500, 450, 500], [7, 7, 3, 3], [10, 8, 9, 1], [20, 20, 15, 20])
    assert by_int.tolist() == by_text.tolist()


def test_equal_score_rates_are_a_tie() -> None:
    # 3 points in 10 minutes and 6 points in 20 minutes: the same rate, so nothing changes.
    assert rating_changes([500, 500], "ab", [3, 6], [10, 20]).tolist() == [0.0, 0.0]


def test_teammates_are_not_compared() -> None:
    # Alone on side A, a's change is its duel against b; c, b's teammate, scores nothing.
    with_mate = rating_changes([500, 500, 500], "ABB", [5, 3, 3], [20, 20, 20])
    assert with_mate[1] == pytest.approx(with_mate[2])
    assert with_mate.tolist() == pytest.approx([40.0, -20.0, -20.0])


def test_scale_uses_the_fewest_minutes_among_tied_offsets() -> None:
    # a (10 min) beats everyone, d (20 min) loses to everyone: |offset| 30 each, a tie.
    # h = a, the fewer minutes: cap 2 * 10 = 20, scale 2/3 (h = d would cap at 40, scale 1).
    changes = rating_changes([500] * 4, "abcd", [4, 3, 2, 1], [10, 10, 10, 20])
    assert changes.tolist() == pytest.approx([20.0, 20 / 3, -20 / 3, -20.0])


def test_settings_change_the_update() -> None:
    fast = LadderSettings(t=60.0, game_mult=3.0, max_game_length=10.0)
    changes = rating_changes([400, 650], "ab", [1, 0], [20, 20], fast)
    assert changes.tolist() == pytest.approx(
        zonestats_changes([400, 650], [0, 1], [1, 0], [20, 20], fast)
    )
    assert abs(changes[0]) <= max_change(fast)


def test_ladder_expected_score_is_the_logistic_of_step_3() -> None:
    for difference in (-300.0, -1.0, 0.0, 17.5, 1000.0):
        assert float(ladder_expected_score(difference, 0.0, 120.0)) == pytest.approx(
            1 / (1 + math.exp(-difference / 120.0)), abs=1e-15
        )
    assert float(ladder_expected_score(1e6, 0.0, 1.0)) == 1.0  # no overflow warning, no NaN


# --- invalid input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("t", 0.0, "t must be greater than 0"),
        ("t", math.inf, "t must be a finite number"),
        ("game_mult", -1.0, "game_mult must be greater than 0"),
        ("max_game_length", 0.0, "max_game_length must be greater than 0"),
        ("max_game_length", math.nan, "max_game_length must be a finite number"),
        ("initial_rating", math.inf, "initial_rating must be a finite number"),
        ("initial_rating", "500", "initial_rating must be a number"),
    ],
)
def test_settings_refuse_bad_values(field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LadderSettings(**{field: value})  # type: ignore[arg-type]


def test_settings_accept_a_negative_initial_rating() -> None:
    assert LadderSettings(initial_rating=-100.0).initial_rating == -100.0


@pytest.mark.parametrize(
    ("ratings", "sides", "scores", "minutes", "message"),
    [
        ([500, 500], "ab", [1, -1], [20, 20], "participant 1: score must be"),
        ([500, 500], "ab", [math.nan, 0], [20, 20], "participant 0: score must be"),
        ([500, 500], "ab", [1, 0], [0, 20], "participant 0: minutes must be"),
        ([500, 500], "ab", [1, 0], [20, 1441], "participant 1: minutes must be"),
        ([500, 500], "ab", [1, 0], [20, math.inf], "participant 1: minutes must be"),
        ([500, math.nan], "ab", [1, 0], [20, 20], "participant 1: rating must be"),
        ([500, 500], "aa", [1, 0], [20, 20], "at least two different sides"),
        ([500], "a", [1], [20], "at least two different sides"),
        ([500, 500], "ab", [1, 0, 2], [20, 20], "scores has 3 entries but ratings has 2"),
        ([500, 500], "abc", [1, 0], [20, 20], "sides has 3 entries"),
    ],
)
def test_bad_matches_are_refused_with_the_field_named(
    ratings: list[float], sides: str, scores: list[float], minutes: list[float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        rating_changes(ratings, list(sides), scores, minutes)


# --- properties of SPEC 2.3 ----------------------------------------------------------------

ratings_st = st.floats(min_value=-1000.0, max_value=3000.0)
minutes_st = st.floats(min_value=0.5, max_value=1440.0)
settings_st = st.builds(
    LadderSettings,
    t=st.floats(min_value=10.0, max_value=1000.0),
    game_mult=st.floats(min_value=0.1, max_value=10.0),
    max_game_length=st.floats(min_value=1.0, max_value=120.0),
)


@st.composite
def matches(draw: st.DrawFn) -> tuple[list[float], list[int], list[float], list[float]]:
    """A random match of 2-32 players: a free-for-all or 2+ teams."""
    n = draw(st.integers(min_value=2, max_value=32))
    if draw(st.booleans()):
        sides = list(range(n))
    else:
        team_count = draw(st.integers(min_value=2, max_value=n))
        sides = list(range(team_count)) + draw(
            st.lists(
                st.integers(0, team_count - 1), min_size=n - team_count, max_size=n - team_count
            )
        )
    ratings = draw(st.lists(ratings_st, min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 50).map(float), min_size=n, max_size=n))
    minutes = draw(
        st.lists(st.sampled_from([5.0, 20.0, 30.0]) | minutes_st, min_size=n, max_size=n)
    )
    return ratings, sides, scores, minutes


@settings(max_examples=200, deadline=None)
@given(match=matches(), ladder=settings_st)
def test_the_fast_path_is_the_steps_as_written_zero_sum_and_bounded(
    match: tuple[list[float], list[int], list[float], list[float]], ladder: LadderSettings
) -> None:
    changes = rating_changes(*match, ladder)
    assert abs(changes.sum()) < 1e-9
    assert np.abs(changes).max() <= max_change(ladder) + 1e-9
    assert changes.tolist() == pytest.approx(zonestats_changes(*match, ladder), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(match=matches(), data=st.data())
def test_participant_order_does_not_matter(
    match: tuple[list[float], list[int], list[float], list[float]], data: st.DataObject
) -> None:
    ratings, sides, scores, minutes = match
    order = data.draw(st.permutations(range(len(ratings))))
    changes = rating_changes(ratings, sides, scores, minutes)
    permuted = rating_changes(
        [ratings[i] for i in order],
        [sides[i] for i in order],
        [scores[i] for i in order],
        [minutes[i] for i in order],
    )
    np.testing.assert_allclose(permuted, changes[list(order)], rtol=0, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(2, 32),
    rating=ratings_st,
    rate=st.integers(0, 20),
    minutes=st.lists(st.integers(1, 1440), min_size=32, max_size=32),
    teams=st.booleans(),
)
def test_equal_ratings_and_a_tie_change_nothing(
    n: int, rating: float, rate: int, minutes: list[int], teams: bool
) -> None:
    # Score = the same whole rate per minute for everyone: equal score per hour, exactly.
    sides = [i % 2 for i in range(n)] if teams else list(range(n))
    played = minutes[:n]
    changes = rating_changes([rating] * n, sides, [rate * m for m in played], played)
    assert changes.tolist() == [0.0] * n


@settings(max_examples=200, deadline=None)
@given(
    winner=ratings_st,
    loser=ratings_st,
    scores=st.tuples(st.floats(0.0, 1000.0), st.floats(0.0, 1000.0)),
    minutes=st.tuples(minutes_st, minutes_st),
)
def test_a_duel_win_never_lowers_a_rating(
    winner: float,
    loser: float,
    scores: tuple[float, float],
    minutes: tuple[float, float],
) -> None:
    high, low = max(scores), min(scores)
    changes = rating_changes([winner, loser], "wl", [high, low], list(minutes))
    if high * minutes[1] > low * minutes[0]:
        assert changes[0] >= 0.0 >= changes[1]


@settings(max_examples=500, deadline=None)
@given(
    ratings=st.tuples(ratings_st, ratings_st) | ratings_st.map(lambda rating: (rating, rating)),
    scores=st.tuples(st.integers(0, 50).map(float), st.integers(0, 50).map(float))
    | st.tuples(st.floats(0.0, MAX_SCORE), st.floats(0.0, MAX_SCORE)),
    minutes=st.tuples(st.sampled_from([5.0, 20.0, 30.0]) | minutes_st, minutes_st)
    | st.sampled_from([(20.0, 20.0), (MIN_MINUTES, MAX_MINUTES), (3.0, 3.0)]),
    ladder=settings_st,
)
def test_a_duel_s_light_update_is_rating_changes_bit_for_bit(
    ratings: tuple[float, float],
    scores: tuple[float, float],
    minutes: tuple[float, float],
    ladder: LadderSettings,
) -> None:
    expected = rating_changes(list(ratings), ["a", "b"], list(scores), list(minutes), ladder)
    assert duel_changes(ratings, scores, minutes, ladder) == tuple(expected.tolist())


@pytest.mark.parametrize(
    ("ratings", "scores", "minutes"),
    [
        ((500.0, math.nan), (1.0, 0.0), (20.0, 20.0)),
        ((500.0, 500.0), (1.0, -1.0), (20.0, 20.0)),
        ((500.0, 500.0), (math.nan, 0.0), (20.0, 20.0)),
        ((500.0, 500.0), (MAX_SCORE * 2, 0.0), (20.0, 20.0)),
        ((500.0, 500.0), (1.0, 0.0), (0.0, 20.0)),
        ((500.0, 500.0), (1.0, 0.0), (20.0, math.inf)),
    ],
)
def test_a_duel_that_breaks_a_rule_gets_no_light_update(
    ratings: tuple[float, float], scores: tuple[float, float], minutes: tuple[float, float]
) -> None:
    assert duel_changes(ratings, scores, minutes) is None
    with pytest.raises(ValueError, match="must be"):
        rating_changes(list(ratings), ["a", "b"], list(scores), list(minutes))


# --- SPEC 2.4 ------------------------------------------------------------------------------


def test_duel_scores() -> None:
    assert duel_scores() == (1.0, 0.0)
    assert duel_scores(draw=True) == (0.0, 0.0)


def test_placement_scores_give_first_the_most() -> None:
    assert placement_scores(4) == (3.0, 2.0, 1.0, 0.0)
    assert placement_scores(2) == (1.0, 0.0)
    with pytest.raises(ValueError, match="player_count must be at least 2"):
        placement_scores(1)


def test_team_scores() -> None:
    assert team_scores(["a", "b", "a", "b"], "a") == (1.0, 0.0, 1.0, 0.0)
    assert team_scores(["a", "b", "a"], None) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="winner 'c' is not one of the sides"):
        team_scores(["a", "b"], "c")


def test_match_minutes_default_to_max_game_length() -> None:
    assert match_minutes(None, LadderSettings(max_game_length=15.0)) == 15.0
    assert match_minutes(7.5) == 7.5
    with pytest.raises(ValueError, match="minutes must be"):
        match_minutes(0.0)


def test_score_less_reports_rate_like_the_worked_examples() -> None:
    winner, loser = duel_scores()
    minutes = match_minutes(None)
    assert rating_changes([500, 500], "ab", [winner, loser], [minutes] * 2).tolist() == [
        20.0,
        -20.0,
    ]
    ffa = rating_changes([500] * 4, "abcd", placement_scores(4), [minutes] * 4)
    assert np.round(ffa, 4).tolist() == [40.0, 13.3333, -13.3333, -40.0]


def test_match_outcomes_are_the_mean_pairwise_result_against_other_sides() -> None:
    assert match_outcomes(["a", "b", "c", "d"], [40, 30, 20, 10], [20] * 4) == [
        "win",
        "win",
        "loss",
        "loss",
    ]
    # teammates are not compared; 10 points in 20 minutes equals 5 in 10 minutes
    assert match_outcomes(["x", "x", "y"], [10, 0, 5], [20, 20, 10]) == ["draw", "loss", "win"]


@settings(max_examples=200, deadline=None)
@given(
    scores=st.tuples(st.integers(0, 5).map(float), st.integers(0, 5).map(float))
    | st.tuples(st.floats(0.0, MAX_SCORE), st.floats(0.0, MAX_SCORE)),
    minutes=st.tuples(st.sampled_from([5.0, 10.0, 20.0]), st.sampled_from([5.0, 10.0, 20.0]))
    | st.tuples(minutes_st, minutes_st),
)
def test_a_duel_s_outcomes_are_those_of_every_match(
    scores: tuple[float, float], minutes: tuple[float, float]
) -> None:
    codes = outcome_codes(np.array([[0, 1]]), np.array([scores]), np.array([minutes]))
    assert match_outcomes(["a", "b"], scores, minutes) == [OUTCOMES[c] for c in codes[0].tolist()]
