"""How well do the ratings predict? (SPEC 12): walk-forward predictions of every measure.

The log is columnar as for bot.ratings.replay (one row per enabled participant, a match's
rows together, matches in log order). The last `last` matches are evaluated, everything
before them is history. For every evaluated match and every ordered pair (p, q) of its
participants on different sides, each measure predicts P(p beats q) from what was known
just before the match; the outcome is result_pq of SPEC 2.3 step 4.

How it is computed: one replay gives every row's ladder rating before its match (the ladder's
predictions, and the opponents' ratings of the performance measures' games). The evaluated
matches' members' games over the whole log are paired once (bot.ratings.games.Pairing),
grouped by member, newest match first. A member's history just before match k is then a
suffix of their games (those of matches before k), so the histories of all evaluated
participants are gathered block by block into segments and solved together by the segment
solver, each variant's weights computed once per block: no history is built or solved one
match at a time.

Decisions the spec leaves open:
- A history is ordered by the log (newest applied match first), the order in which the
  ratings were known; inside a match, opponents by player index (SPEC 3.3's user-id order
  when players are indexed by ascending user id, as bot.services.replaying does).
- p1 is ±inf over a history of wins only (losses only): W(±inf) is 0 or 1, so such a
  prediction is certain (clipped for the log-loss), and two members both at +inf (or both
  at -inf) predict ½, as nothing tells them apart. A member without a game is at 1500 (the
  spec), p1's undefined rating included.
- Accuracy: a pair scores 1 when the prediction is above ½ and p won (below ½ and p lost),
  ½ when the outcome is a draw or the prediction exactly ½, else 0.
- How far a difference of log-loss is from chance (not in the spec; for the verdicts): the
  standard error of the mean per-pair difference, clustered by match (a match's pairs share
  its players and outcome, so they are not independent).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bot.ratings.arrays import FloatArray, IntArray
from bot.ratings.elo import ELO_AVERAGE, EloBridge, elo_expected_score
from bot.ratings.games import Pairing, game_results
from bot.ratings.ladder import DEFAULT_SETTINGS, LadderSettings, ladder_expected_score
from bot.ratings.replay import MatchLog, Seasons, check_log, check_seasons, grid_replay, replay
from bot.ratings.solver import SharedPowers, solve_segments
from bot.ratings.variants import VARIANTS, GameArrays, WeightRule

LADDER: Final = "ladder"
BASELINE: Final = "baseline"
MEASURES: Final = (LADDER, *VARIANTS, BASELINE)
"""Every measure evaluated, in the order they are reported."""
CLIP: Final = 1e-6
"""Predictions are clipped to [CLIP, 1 - CLIP] for the log-loss (SPEC 12.1)."""
DEFAULT_LAST: Final = 5_000
"""Matches evaluated when the caller names no number."""
T_GRID: Final = (30.0, 45.0, 60.0, 90.0, 120.0, 180.0, 240.0, 360.0, 600.0)
"""The spreads t tried by tuning (SPEC 12.2), about half an octave apart."""
GAME_MULT_GRID: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""The game_mult values tried by tuning, an octave apart."""
EQUAL_LOG_LOSS: Final = 1e-12
"""Tuning points whose log-loss differs by less are equal: scaling t and game_mult together
rates alike from equal start ratings, and only rounding tells them apart."""
BLOCK_GAMES: Final = 1 << 20
"""Histories are gathered and solved about this many games at a time (bounds memory)."""


@dataclass(frozen=True, slots=True)
class MeasureScore:
    """One measure's figures over every evaluated ordered pair."""

    measure: str
    log_loss: float
    brier: float
    accuracy: float
    pairs: int


@dataclass(frozen=True, slots=True)
class TuningPoint:
    """The ladder's log-loss under one pair of constants."""

    t: float
    game_mult: float
    log_loss: float


@dataclass(frozen=True, slots=True)
class Tuning:
    """The ladder's log-loss over the grid (the current constants among its points), the
    best point and the current one. Of equal points (EQUAL_LOG_LOSS) the current one is
    the best, else the first in grid order."""

    grid: tuple[TuningPoint, ...]
    best: TuningPoint
    current: TuningPoint
    margin: float = math.nan
    """The standard error of the gain (clustered by match, see difference_error)."""

    @property
    def gain(self) -> float:
        """How much lower the best point's log-loss is than the current one's."""
        return self.current.log_loss - self.best.log_loss


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The figures of every measure (MEASURES order) over `matches` evaluated matches, and
    the tuning of the ladder's constants when asked for."""

    matches: int
    scores: tuple[MeasureScore, ...]
    tuning: Tuning | None = None
    errors: tuple[tuple[float, ...], ...] = ()
    """errors[i][j]: the standard error of measure i's log-loss minus measure j's (scores
    order; see difference_error). Empty when not known."""

    @property
    def best(self) -> MeasureScore:
        """The measure with the lowest log-loss (the first of equals, in MEASURES order)."""
        return min(self.scores, key=lambda score: score.log_loss)

    def score_of(self, measure: str) -> MeasureScore:
        return next(score for score in self.scores if score.measure == measure)

    def error_between(self, measure: str, other: str) -> float:
        """The standard error of `measure`'s log-loss minus `other`'s (nan: not known)."""
        names = [score.measure for score in self.scores]
        if not self.errors:
            return math.nan
        return self.errors[names.index(measure)][names.index(other)]


def prediction_scores(
    measure: str, predictions: FloatArray, outcomes: FloatArray, losses: FloatArray | None = None
) -> MeasureScore:
    """Mean log-loss (natural log, clipped), Brier score and accuracy of predictions of
    P(p beats q) against outcomes result_pq (1, ½ or 0). `losses`: their pair_log_losses,
    when the caller has them already."""
    pairs = len(outcomes)
    if not pairs:
        return MeasureScore(measure, math.nan, math.nan, math.nan, 0)
    brier = np.square(predictions - outcomes).mean()
    hit = np.where(
        (outcomes == 0.5) | (predictions == 0.5),
        0.5,
        (predictions > 0.5) == (outcomes > 0.5),
    )
    if losses is None:
        losses = pair_log_losses(predictions, outcomes)
    log_loss = float(losses.mean())
    return MeasureScore(measure, log_loss, float(brier), float(hit.mean()), pairs)


def pair_log_losses(predictions: FloatArray, outcomes: FloatArray) -> FloatArray:
    """Each pair's log-loss (natural log) of its prediction clipped to [CLIP, 1 - CLIP]."""
    clipped = np.clip(predictions, CLIP, 1.0 - CLIP)
    losses: FloatArray = -(outcomes * np.log(clipped) + (1.0 - outcomes) * np.log1p(-clipped))
    return losses


def difference_error(differences: FloatArray, match: NDArray[np.intp]) -> float:
    """The standard error of the mean of per-pair differences, clustered by match: the
    variance of the mean is Σ_k (S_k - n_k·mean)² / N² · K / (K - 1) over the K matches (S_k
    the sum of match k's N_k differences, N pairs in all). nan for fewer than 2 matches."""
    pairs = len(differences)
    if not pairs:
        return math.nan
    sums = np.bincount(match, weights=differences)
    counts = np.bincount(match)
    played = counts > 0
    clusters = int(np.count_nonzero(played))
    if clusters < 2:
        return math.nan
    mean = differences.mean()
    spread = np.square(sums[played] - counts[played] * mean).sum()
    return float(math.sqrt(spread * clusters / (clusters - 1)) / pairs)


@dataclass(frozen=True, slots=True)
class WalkForward:
    """What every measure's predictions need that no rating changes (the ratings come from
    a replay: one for the evaluation, one of many settings for the tuning).

    pair_member/pair_opponent: log rows of every evaluated ordered pair; outcomes their
    result_pq. game_*: every game of the evaluated matches' members over the whole log, by
    member (ascending), newest match first.
    """

    log: MatchLog
    first_match: int
    first_row: int
    match_of_row: NDArray[np.intp]
    pair_member: IntArray
    pair_opponent: IntArray
    outcomes: FloatArray
    game_key: IntArray  # member · matches + (matches - 1 - match): ascending
    game_result: FloatArray
    game_opponent_row: IntArray

    @property
    def evaluated_matches(self) -> int:
        return self.log.match_count - self.first_match


def walk_forward(log: MatchLog, last: int) -> WalkForward:
    """Pair the games of the evaluated matches' members once (their histories), and pick
    the evaluated pairs (the last `last` matches')."""
    if last < 1:
        raise ValueError(f"last must be at least 1, not {last!r}")
    count = log.match_count
    if not count:
        raise ValueError("the log has no match to evaluate")
    first_match = max(0, count - last)
    first_row = int(log.starts[first_match])
    match_of_row = np.repeat(np.arange(count), log.sizes)
    player = log.player.astype(np.int64)
    paired = Pairing(
        match_of_row, match_of_row.astype(np.float64), player, log.side.astype(np.int64)
    )
    mine, theirs = paired.games(np.unique(player[first_row:]).tolist())
    results = game_results(
        log.score[mine], log.score[theirs], log.minutes[mine], log.minutes[theirs]
    )
    game_match = match_of_row[mine]
    evaluated = game_match >= first_match
    return WalkForward(
        log,
        first_match,
        first_row,
        match_of_row,
        mine[evaluated],
        theirs[evaluated],
        results[evaluated],
        player[mine] * count + (count - 1 - game_match),
        results,
        theirs,
    )


def _history_blocks(walk: WalkForward) -> Iterator[tuple[IntArray, IntArray]]:
    """Each evaluated row's history as a range of the game arrays (the member's games of
    matches before the row's): (starts, lengths) in blocks of about BLOCK_GAMES games."""
    count = walk.log.match_count
    rows = np.arange(walk.first_row, len(walk.log.player))
    player = walk.log.player[rows].astype(np.int64)
    newest_before = player * count + (count - walk.match_of_row[rows])
    starts = np.searchsorted(walk.game_key, newest_before)
    ends = np.searchsorted(walk.game_key, (player + 1) * count)
    lengths = ends - starts
    block = np.cumsum(lengths) // BLOCK_GAMES
    cuts = np.flatnonzero(np.diff(block)) + 1
    for chosen in np.split(np.arange(len(rows)), cuts):
        yield starts[chosen], lengths[chosen]


def performance_predictions(
    walk: WalkForward, before: FloatArray, bridge: EloBridge
) -> dict[str, FloatArray]:
    """Each variant's RP (Elo units) of every evaluated row from its member's history, then
    its prediction W(RP_q - RP_p) of every evaluated pair."""
    opponent_elo = np.asarray(bridge.to_elo(before[walk.game_opponent_row]), dtype=np.float64)
    opponent_code = walk.log.player[walk.game_opponent_row].astype(np.int64)
    ratings = {name: np.empty(len(walk.log.player) - walk.first_row) for name in VARIANTS}
    done = 0
    for starts, lengths in _history_blocks(walk):
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        taken = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
        games = GameArrays(
            walk.game_result[taken], opponent_elo[taken], opponent_code[taken], offsets
        )
        weights: dict[WeightRule, FloatArray] = {}
        shared = SharedPowers(games.ratings, offsets)  # every variant solves these games
        for name, variant in VARIANTS.items():
            if variant.weights not in weights:  # p7 and p8 weigh alike
                weights[variant.weights] = variant.weights(games)
            solved = solve_segments(
                games.results,
                games.ratings,
                weights[variant.weights],
                offsets,
                variant.fictitious,
                shared,
            )
            ratings[name][done : done + len(lengths)] = np.where(
                np.isnan(solved), ELO_AVERAGE, solved
            )
        done += len(lengths)
    member = walk.pair_member - walk.first_row
    opponent = walk.pair_opponent - walk.first_row
    predictions = {}
    for name, rating in ratings.items():
        with np.errstate(invalid="ignore"):  # inf - inf: both certain alike, predicted ½
            difference = rating[opponent] - rating[member]
        predictions[name] = np.where(np.isnan(difference), 0.5, elo_expected_score(difference))
    return predictions


def evaluate(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings = DEFAULT_SETTINGS,
    last: int = DEFAULT_LAST,
    season_starts: ArrayLike = (),
    season_carry: ArrayLike = (),
    tune: bool = False,
    t_grid: Sequence[float] = T_GRID,
    game_mult_grid: Sequence[float] = GAME_MULT_GRID,
) -> Evaluation:
    """Every measure's figures over the last `last` matches of the log (SPEC 12.1), and
    with `tune` the ladder's log-loss over t_grid by game_mult_grid plus the current pair
    (SPEC 12.2).

    The log is replayed from initial ratings under `settings` (with its season starts,
    see bot.ratings.replay), so the ladder's ratings are what the guild stores.
    """
    log = check_log(match, player, side, score, minutes, player_count, settings)
    seasons = check_seasons(log.match_count, season_starts, season_carry)
    walk = walk_forward(log, last)
    replayed = replay(log, seasons, settings)
    bridge = EloBridge(settings.t, settings.initial_rating)
    predictions = {
        LADDER: ladder_expected_score(
            replayed.before[walk.pair_member], replayed.before[walk.pair_opponent], settings.t
        ),
        **performance_predictions(walk, replayed.before, bridge),
        BASELINE: np.full(len(walk.outcomes), 0.5),
    }
    losses = [pair_log_losses(predictions[name], walk.outcomes) for name in MEASURES]
    scores = tuple(
        prediction_scores(name, predictions[name], walk.outcomes, loss)
        for name, loss in zip(MEASURES, losses, strict=True)
    )
    pair_match = walk.match_of_row[walk.pair_member]
    errors = [[0.0] * len(MEASURES) for _ in MEASURES]
    for i in range(len(MEASURES)):
        for j in range(i):  # the error of a difference is the error of its negation
            errors[i][j] = errors[j][i] = difference_error(losses[i] - losses[j], pair_match)
    return Evaluation(
        walk.evaluated_matches,
        scores,
        tune_ladder(walk, settings, t_grid, game_mult_grid, seasons) if tune else None,
        tuple(tuple(row) for row in errors),
    )


def tune_ladder(
    walk: WalkForward,
    settings: LadderSettings,
    t_grid: Sequence[float],
    game_mult_grid: Sequence[float],
    seasons: Seasons,
) -> Tuning:
    """The ladder's log-loss under every point of the grid (and the current constants,
    last when they are not a point of it), from one replay of all of them at once."""
    points = [(float(t), float(g)) for t in t_grid for g in game_mult_grid]
    current = (settings.t, settings.game_mult)
    if current not in points:
        points.append(current)
    spreads, multipliers = (np.array(column) for column in zip(*points, strict=True))
    before = grid_replay(walk.log, seasons, settings, spreads, multipliers, walk.first_row)
    member, opponent = walk.pair_member - walk.first_row, walk.pair_opponent - walk.first_row

    def losses(index: int) -> FloatArray:
        t = points[index][0]
        ratings = before[index]
        return pair_log_losses(
            ladder_expected_score(ratings[member], ratings[opponent], t), walk.outcomes
        )

    grid = tuple(
        TuningPoint(t, g, float(losses(index).mean())) for index, (t, g) in enumerate(points)
    )
    now = grid[points.index(current)]
    lowest = min(point.log_loss for point in grid) + EQUAL_LOG_LOSS
    best = now if now.log_loss <= lowest else next(p for p in grid if p.log_loss <= lowest)
    margin = difference_error(
        losses(points.index(current)) - losses(grid.index(best)),
        walk.match_of_row[walk.pair_member],
    )
    return Tuning(grid, best, now, margin)
