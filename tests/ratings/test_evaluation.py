"""Walk-forward evaluation (SPEC 12): the fast path equals a plain walk-forward written here
(loops and the spec's formulas: the ladder's steps 1-8, the variants' weights of the table of
SPEC 1.4, the equation of 1.3 solved by bisection), and on a community drawn from known
strengths the figures say what they should."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.evaluation import (
    BASELINE,
    LADDER,
    MEASURES,
    Evaluation,
    difference_error,
    evaluate,
    pair_log_losses,
    prediction_scores,
)
from bot.ratings.gamelist import Game
from bot.ratings.ladder import LadderSettings, zonestats_changes
from bot.ratings.replay import replay_waves
from tests.ratings.replays import replay_grid
from tests.ratings.strategies import SPEC_FICTITIOUS, VARIANT_NAMES, spec_weights
from tests.ratings.test_replay import Columns, random_log
from tests.ratings.test_replay_seasons import random_seasons

Figures = dict[str, tuple[float, float, float, int]]

SETTINGS = LadderSettings(t=90.0, game_mult=3.0, max_game_length=15.0, initial_rating=250.0)


def figures(evaluation: Evaluation) -> Figures:
    return {s.measure: (s.log_loss, s.brier, s.accuracy, s.pairs) for s in evaluation.scores}


def assert_figures_equal(found: Figures, expected: Figures) -> None:
    assert found.keys() == expected.keys()
    for name, values in expected.items():
        assert found[name][3] == values[3], name
        np.testing.assert_allclose(found[name][:3], values[:3], rtol=0, atol=1e-9, err_msg=name)


def run(
    columns: Columns, ladder: LadderSettings, last: int, **seasons: tuple[float, ...]
) -> Evaluation:
    match, player, side, score, minutes = columns
    return evaluate(
        match,
        player,
        side,
        score,
        minutes,
        int(player.max()) + 1,
        ladder,
        last,
        season_starts=seasons.get("season_starts", ()),
        season_carry=seasons.get("season_carry", ()),
    )


# --- the plain walk-forward (the reference) --------------------------------------------------


def spec_w(difference: float) -> float:
    """W(RD) = 1 / (1 + 10^(RD / 400)) of SPEC 1.3, 0 or 1 beyond what a float holds."""
    try:
        return 1.0 / (1.0 + float(10.0 ** (difference / 400.0)))
    except OverflowError:
        return 0.0


def plain_performance(games: list[Game], variant: str) -> float:
    """RP of SPEC 1.3/1.4: weights from the table, the fictitious games, the root of f by
    bisection to the last bit; +inf / -inf when every weighted game is a win / a loss, nan
    for p1 without a game."""
    terms = [
        (k, game.result, game.rating)
        for k, game in zip(spec_weights(games, variant), games, strict=True)
    ] + list(SPEC_FICTITIOUS[variant])
    if not terms:
        return math.nan
    weight = sum(k for k, _, _ in terms)
    won = sum(k * w for k, w, _ in terms)
    if won == weight:
        return math.inf
    if won == 0.0:
        return -math.inf

    def f(rating: float) -> float:
        return sum(k * (w - spec_w(r - rating)) for k, w, r in terms)

    low, high = -1000.0, 3000.0
    while f(low) <= 0.0:
        low -= 4000.0
    while f(high) >= 0.0:
        high += 4000.0
    while True:
        middle = (low + high) / 2.0
        if middle in (low, high):
            return middle
        if f(middle) > 0.0:
            low = middle
        else:
            high = middle


def plain_walk_forward(
    columns: Columns,
    ladder: LadderSettings,
    last: int,
    season_starts: Sequence[int] = (),
    season_carry: Sequence[float] = (),
) -> Figures:
    """SPEC 12.1 one match at a time: ladder ratings per member updated by the seed's steps
    (with each season's carry, SPEC 9), every member's games (newest match first, a match's
    opponents by member index, opponent ratings in Elo units of SPEC 3.1) kept as lists, and
    before each evaluated match every ordered pair on different sides predicted by each
    measure and scored (clipped log-loss, Brier, accuracy with half credit)."""
    match, player, side, score, minutes = (np.asarray(column).tolist() for column in columns)
    count = int(match[-1]) + 1
    first = count - min(last, count)
    rows_of: list[list[int]] = [[] for _ in range(count)]
    for row, index in enumerate(match):
        rows_of[index].append(row)
    ratings: dict[int, float] = {}
    histories: dict[int, list[Game]] = {}  # newest first
    scored: dict[str, list[tuple[float, float]]] = {name: [] for name in MEASURES}
    for index in range(count):
        for start, carry in zip(season_starts, season_carry, strict=True):
            if start == index:
                ratings = {
                    p: ladder.initial_rating + carry * (r - ladder.initial_rating)
                    for p, r in ratings.items()
                }
        rows = rows_of[index]
        before = {row: ratings.get(player[row], ladder.initial_rating) for row in rows}
        result = {
            (a, b): 1.0
            if score[a] * minutes[b] > score[b] * minutes[a]
            else 0.0
            if score[a] * minutes[b] < score[b] * minutes[a]
            else 0.5
            for a in rows
            for b in rows
        }
        if index >= first:
            rp = {
                (row, name): plain_performance(histories.get(player[row], []), name)
                for row in rows
                for name in VARIANT_NAMES
            }
            for a in rows:
                for b in rows:
                    if side[a] == side[b]:
                        continue
                    outcome = result[a, b]
                    ladder_p = 1.0 / (1.0 + math.exp((before[b] - before[a]) / ladder.t))
                    scored[LADDER].append((ladder_p, outcome))
                    scored[BASELINE].append((0.5, outcome))
                    for name in VARIANT_NAMES:
                        mine, theirs = (
                            1500.0 if math.isnan(value) else value
                            for value in (rp[a, name], rp[b, name])
                        )
                        if math.isinf(mine) and mine == theirs:
                            predicted = 0.5  # both certain alike
                        else:
                            predicted = spec_w(theirs - mine)
                        scored[name].append((predicted, outcome))
        elo_per_point = 400.0 / (ladder.t * math.log(10.0))
        for a in rows:
            newest = [
                Game(result[a, b], 1500.0 + (before[b] - ladder.initial_rating) * elo_per_point,
                     str(player[b]))
                for b in sorted(rows, key=lambda row: player[row])
                if side[b] != side[a]
            ]  # fmt: skip
            histories[player[a]] = newest + histories.get(player[a], [])
        changes = zonestats_changes(
            [before[row] for row in rows],
            [side[row] for row in rows],
            [score[row] for row in rows],
            [minutes[row] for row in rows],
            ladder,
        )
        for row, change in zip(rows, changes, strict=True):
            ratings[player[row]] = before[row] + change
    return {name: plain_scores(pairs) for name, pairs in scored.items()}


def plain_scores(pairs: list[tuple[float, float]]) -> tuple[float, float, float, int]:
    """Mean log-loss (natural log, predictions clipped to [1e-6, 1 - 1e-6]), Brier score and
    accuracy (1 for the right side of ½, ½ for a draw or a prediction of exactly ½)."""
    loss = brier = hits = 0.0
    for predicted, outcome in pairs:
        clipped = min(max(predicted, 1e-6), 1.0 - 1e-6)
        loss -= outcome * math.log(clipped) + (1.0 - outcome) * math.log(1.0 - clipped)
        brier += (predicted - outcome) ** 2
        if outcome == 0.5 or predicted == 0.5:
            hits += 0.5
        elif (predicted > 0.5) == (outcome == 1.0):
            hits += 1.0
    n = len(pairs)
    return loss / n, brier / n, hits / n, n


def test_plain_performance_reproduces_the_spec_table() -> None:
    """The reference's solver against rows of SPEC 1.6 (rounded ratings)."""
    wins = [Game(1.0, 1000.0, "unknown")] * 20
    alternating = [Game(1.0, 1000.0, "unknown"), Game(0.0, 1000.0, "unknown")] * 10
    assert [round(plain_performance(wins, name)) for name in VARIANT_NAMES[1:]] == [
        2040, 2008, 1746, 1746, 1775, 1775, 1742,
    ]  # fmt: skip
    assert [round(plain_performance(alternating, name)) for name in VARIANT_NAMES] == [
        1000, 998, 1001, 994, 994, 992, 996, 1018,
    ]  # fmt: skip
    assert plain_performance(wins, "p1") == math.inf
    assert math.isnan(plain_performance([], "p1"))


def test_fast_path_equals_plain_walk_forward() -> None:
    """Teams, free-for-alls, draws, unequal minutes and a season start: every figure of
    every measure equals the plain walk-forward (histories reach back before the window)."""
    columns = random_log(np.random.default_rng(5), 80, 10, 5)
    found = run(columns, SETTINGS, 50, season_starts=(30,), season_carry=(0.5,))
    assert found.matches == 50
    assert_figures_equal(figures(found), plain_walk_forward(columns, SETTINGS, 50, (30,), (0.5,)))


def test_p1_infinities_predict_with_certainty() -> None:
    """Member 0 beats 1 and 2, then 1 beats 2: p1 puts 0 at +inf and 1 and 2 at -inf once
    they have lost. 0's predictions are certain (clipped for the log-loss); 1 against 2,
    both at -inf, is ½; the reference agrees on every figure."""
    pairs = [(0, 1), (0, 2), (0, 1), (0, 2), (1, 2)]
    match = np.repeat(np.arange(len(pairs)), 2)
    player = np.array(pairs).ravel()
    side = np.tile([0, 1], len(pairs))
    score = np.tile([1.0, 0.0], len(pairs))
    minutes = np.full(len(player), 20.0)
    columns = (match, player, side, score, minutes)
    found = run(columns, SETTINGS, 4)
    p1 = found.score_of("p1")
    assert p1.accuracy == pytest.approx(7 / 8)
    assert p1.log_loss == pytest.approx((-6 * math.log(1 - 1e-6) + 2 * math.log(2)) / 8)
    assert_figures_equal(figures(found), plain_walk_forward(columns, SETTINGS, 4))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), last=st.integers(1, 40))
def test_log_loss_ignores_the_order_within_a_match(seed: int, last: int) -> None:
    """Shuffling the rows of every match changes no figure (opponents go by player, not
    by row); the baseline's log-loss is ln 2 and its accuracy ½ for every pair."""
    rng = np.random.default_rng(seed)
    columns = random_log(rng, 30, 8, 5)
    order = np.lexsort((rng.random(len(columns[0])), columns[0]))
    match, player, side, score, minutes = columns
    shuffled = (match[order], player[order], side[order], score[order], minutes[order])
    first, second = run(columns, SETTINGS, last), run(shuffled, SETTINGS, last)
    assert_figures_equal(figures(second), figures(first))
    baseline = first.score_of(BASELINE)
    assert baseline.log_loss == pytest.approx(math.log(2), abs=1e-12)
    assert baseline.accuracy == 0.5


@settings(max_examples=25, deadline=None)
@given(outcomes=st.lists(st.sampled_from((0.0, 0.5, 1.0)), min_size=1, max_size=50))
def test_baseline_log_loss_is_ln_2_for_every_pair(outcomes: list[float]) -> None:
    """A prediction of ½ costs ln 2 whatever the outcome (win, draw or loss)."""
    losses = pair_log_losses(np.full(len(outcomes), 0.5), np.array(outcomes))
    np.testing.assert_allclose(losses, math.log(2), rtol=1e-15)


def test_refusals() -> None:
    """A log without matches, or `last` below 1, is a ValueError saying so."""
    empty = np.zeros(0, dtype=np.int64)
    with pytest.raises(ValueError, match="no match to evaluate"):
        evaluate(empty, empty, empty, np.zeros(0), np.zeros(0), 0)
    match, player, side, score, minutes = random_log(np.random.default_rng(2), 5, 4, 3)
    with pytest.raises(ValueError, match="last must be at least 1, not 0"):
        evaluate(match, player, side, score, minutes, 4, last=0)


def test_scores_of_predictions() -> None:
    """Clipping, Brier and half credit for draws and for predictions of exactly ½."""
    score = prediction_scores(
        "x", np.array([1.0, 0.8, 0.5, 0.3, 0.9]), np.array([1.0, 0.0, 1.0, 0.0, 0.5])
    )
    assert score.pairs == 5
    expected_loss = (
        -(
            math.log(1 - 1e-6)
            + math.log(0.2)
            + math.log(0.5)
            + math.log(0.7)
            + 0.5 * math.log(0.9)
            + 0.5 * math.log(0.1)
        )
        / 5
    )
    assert score.log_loss == pytest.approx(expected_loss, rel=1e-12)
    assert score.brier == pytest.approx((0 + 0.64 + 0.25 + 0.09 + 0.16) / 5)
    assert score.accuracy == pytest.approx((1 + 0 + 0.5 + 1 + 0.5) / 5)


# --- a community drawn from known strengths (SPEC 12.3) -------------------------------------


def known_community(
    seed: int, members: int = 40, matches: int = 1500
) -> tuple[Columns, np.ndarray]:
    """Duels and free-for-alls of 3-4 whose every pair p, q finishes in p's favour with
    probability W(s_q - s_p) of the true skills s: each player's performance is its skill
    (in natural units) plus standard Gumbel noise, and the difference of two Gumbels is
    logistic. Scores by placement (SPEC 2.4), 20 minutes each."""
    rng = np.random.default_rng(seed)
    skills = rng.normal(1500.0, 350.0, size=members)
    rows: list[tuple[int, int, int, float]] = []
    for index in range(matches):
        size = int(rng.choice([2, 2, 3, 4]))
        players = rng.choice(members, size=size, replace=False)
        performance_ = skills[players] * math.log(10) / 400.0 + rng.gumbel(size=size)
        places = np.argsort(np.argsort(-performance_))
        rows += [
            (index, int(p), seat, float(size - 1 - place))
            for seat, (p, place) in enumerate(zip(players, places, strict=True))
        ]
    table = np.array(rows, dtype=np.float64)
    ints = table[:, :3].astype(np.int64)
    return (ints[:, 0], ints[:, 1], ints[:, 2], table[:, 3], np.full(len(table), 20.0)), skills


def oracle_log_loss(columns: Columns, skills: np.ndarray, last: int) -> float:
    """The log-loss of predicting every evaluated pair from the true skills."""
    match, player, side, score, _minutes = columns
    first = int(match.max()) + 1 - last
    predictions, outcomes = [], []
    for index in range(first, int(match.max()) + 1):
        rows = np.flatnonzero(match == index)
        for a in rows:
            for b in rows:
                if side[a] != side[b]:
                    predictions.append(spec_w(skills[player[b]] - skills[player[a]]))
                    outcomes.append(float(score[a] > score[b]))
    return prediction_scores("oracle", np.array(predictions), np.array(outcomes)).log_loss


def test_known_truth() -> None:
    """The oracle beats every measure; the ladder and p8 beat the baseline."""
    columns, skills = known_community(11)
    ladder = LadderSettings(t=120.0, game_mult=2.0)
    found = run(columns, ladder, 500)
    oracle = oracle_log_loss(columns, skills, 500)
    losses = {score.measure: score.log_loss for score in found.scores}
    assert all(oracle < loss for loss in losses.values()), (oracle, losses)
    assert losses[LADDER] < losses[BASELINE]
    assert losses["p8"] < losses[BASELINE]
    assert found.score_of(LADDER).pairs == found.score_of(BASELINE).pairs > 1000


def test_known_truth_equals_plain_walk_forward() -> None:
    """SPEC 12.3: on a (smaller) community drawn from known strengths too, the evaluation's
    figures equal the plain walk-forward's."""
    columns, _skills = known_community(12, members=16, matches=200)
    ladder = LadderSettings(t=120.0, game_mult=2.0)
    assert_figures_equal(figures(run(columns, ladder, 60)), plain_walk_forward(columns, ladder, 60))


def test_tuning_equals_evaluations_with_those_settings() -> None:
    """Every point of the grid (one replay of all of them) has the ladder log-loss of an
    evaluation run with its constants; the current pair joins the grid when it is not a
    point of it; the best point is the lowest."""
    columns = random_log(np.random.default_rng(8), 120, 12, 5)
    match, player, side, score, minutes = columns
    found = evaluate(
        match,
        player,
        side,
        score,
        minutes,
        12,
        SETTINGS,
        70,
        season_starts=(40,),
        season_carry=(0.25,),
        tune=True,
        t_grid=(30.0, 200.0, 600.0),
        game_mult_grid=(0.25, 8.0),
    )
    assert found.tuning is not None
    grid = found.tuning.grid
    assert [(p.t, p.game_mult) for p in grid] == [
        (30.0, 0.25), (30.0, 8.0), (200.0, 0.25), (200.0, 8.0), (600.0, 0.25), (600.0, 8.0),
        (SETTINGS.t, SETTINGS.game_mult),
    ]  # fmt: skip
    assert found.tuning.current == grid[-1]
    assert found.tuning.current.log_loss == pytest.approx(
        found.score_of(LADDER).log_loss, abs=1e-12
    )
    for point in grid:
        changed = LadderSettings(point.t, point.game_mult, 15.0, 250.0)
        alone = run(columns, changed, 70, season_starts=(40,), season_carry=(0.25,))
        assert point.log_loss == pytest.approx(alone.score_of(LADDER).log_loss, abs=1e-9)
    assert found.tuning.best.log_loss <= min(point.log_loss for point in grid) + 1e-12
    assert found.tuning.gain == found.tuning.current.log_loss - found.tuning.best.log_loss


def test_equal_constants_keep_the_current_ones() -> None:
    """t and game_mult scaled together (30 and 0.5 against 120 and 2) rate alike: the
    current constants stay the best, with no gain, whatever rounding says."""
    match, player, side, score, minutes = random_log(np.random.default_rng(4), 60, 9, 4)
    found = evaluate(
        match, player, side, score, minutes, 9, last=30, tune=True,
        t_grid=(30.0,), game_mult_grid=(0.5,),
    )  # fmt: skip
    assert found.tuning is not None
    first, current = found.tuning.grid
    assert first.log_loss == pytest.approx(current.log_loss, abs=1e-12)
    assert found.tuning.best == current
    assert found.tuning.gain == 0.0


def test_default_grid_holds_the_default_settings() -> None:
    """The spec's grid: at least 8 t from 30 to 600 and 6 game_mult from 0.25 to 8; the
    defaults are a point of it (so no point is added)."""
    columns = random_log(np.random.default_rng(3), 40, 8, 4)
    match, player, side, score, minutes = columns
    tuning = evaluate(match, player, side, score, minutes, 8, last=20, tune=True).tuning
    assert tuning is not None
    assert len(tuning.grid) >= 54
    spreads = sorted({p.t for p in tuning.grid})
    multipliers = sorted({p.game_mult for p in tuning.grid})
    assert len(spreads) >= 8 and spreads[0] == 30.0 and spreads[-1] == 600.0
    assert len(multipliers) >= 6 and multipliers[0] == 0.25 and multipliers[-1] == 8.0
    assert (tuning.current.t, tuning.current.game_mult) == (120.0, 2.0)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), first=st.integers(0, 30))
def test_grid_replay_equals_one_replay_per_setting(seed: int, first: int) -> None:
    """replay_grid's ratings before each row, from any first row on, equal replay_waves'
    under each setting, season starts included."""
    rng = np.random.default_rng(seed)
    columns = random_log(rng, 25, 7, 5)
    starts, carry = random_seasons(rng, 25, 2)
    spreads, multipliers = rng.uniform(20, 700, size=3), rng.uniform(0.2, 9, size=3)
    first_row = min(first, len(columns[0]))
    grid = replay_grid(*columns, 7, SETTINGS, spreads, multipliers, first_row, starts, carry)
    for row, (t, g) in enumerate(zip(spreads, multipliers, strict=True)):
        alone = replay_waves(
            *columns, 7, LadderSettings(t, g, 15.0, 250.0), season_starts=starts, season_carry=carry
        )
        np.testing.assert_allclose(grid[row], alone.before[first_row:], rtol=0, atol=1e-9)


def test_difference_error_is_clustered_by_match() -> None:
    """Match 0's pairs differ by 1 and 1, match 1's by 0: mean 2/3, cluster deviations ±2/3,
    variance of the mean (8/9)·2/9 (K/(K-1) = 2), error 4/9. With one pair per match it is
    the sample standard deviation over √N."""
    match = np.array([0, 0, 1])
    assert difference_error(np.array([1.0, 1.0, 0.0]), match) == pytest.approx(4 / 9)
    values = np.random.default_rng(3).normal(size=50)
    assert difference_error(values, np.arange(50)) == pytest.approx(
        values.std(ddof=1) / math.sqrt(50)
    )
    assert math.isnan(difference_error(np.array([1.0, 2.0]), np.array([4, 4])))
    assert math.isnan(difference_error(np.zeros(0), np.zeros(0, dtype=np.intp)))


def test_errors_of_every_difference_and_of_the_tuning_gain() -> None:
    """The evaluation's errors are those of its measures' per-pair differences (symmetric, 0
    on the diagonal), and the tuning's margin that of the current minus the best point."""
    columns = random_log(np.random.default_rng(6), 60, 9, 5)
    found = evaluate(*columns, 9, SETTINGS, 40, tune=True, t_grid=(30.0,), game_mult_grid=(8.0,))
    errors = np.array(found.errors)
    assert errors.shape == (len(MEASURES), len(MEASURES))
    np.testing.assert_array_equal(errors, errors.T)
    assert not np.diag(errors).any()
    assert found.error_between("p8", BASELINE) > 0
    # the ladder against the baseline, from the ladder's own predictions
    match, player, side, score, minutes = columns
    first_row = int(np.flatnonzero(match == match.max() - 39)[0])
    rows = np.arange(first_row, len(match))
    replayed = replay_waves(match, player, side, score, minutes, 9, SETTINGS).before
    pairs = [(a, b) for a in rows for b in rows if match[a] == match[b] and side[a] != side[b]]
    a, b = (np.array(column) for column in zip(*pairs, strict=True))
    mine, theirs = score[a] * minutes[b], score[b] * minutes[a]
    outcomes = np.where(mine > theirs, 1.0, np.where(mine < theirs, 0.0, 0.5))
    ladder = pair_log_losses(1 / (1 + np.exp((replayed[b] - replayed[a]) / SETTINGS.t)), outcomes)
    expected = difference_error(ladder - math.log(2), match[a])
    assert found.error_between(LADDER, BASELINE) == pytest.approx(expected, rel=1e-9)
    assert found.tuning is not None
    if found.tuning.best != found.tuning.current:
        assert found.tuning.margin > 0
    else:
        assert found.tuning.margin == 0.0
