"""The comparison points: a plain-Python ZoneStats replay, openskill, scipy's brentq.

openskill and scipy are the `bench` extra: they are imported only when a baseline runs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bench.data import MatchLog

OFFSET_TIE_TOLERANCE = 1e-9


class Settings(Protocol):
    """What the ZoneStats update reads from the guild's settings (SPEC 2.1)."""

    @property
    def t(self) -> float: ...
    @property
    def game_mult(self) -> float: ...
    @property
    def max_game_length(self) -> float: ...
    @property
    def initial_rating(self) -> float: ...


def plain_changes(
    ratings: Sequence[float],
    sides: Sequence[int],
    scores: Sequence[float],
    minutes: Sequence[float],
    settings: Settings,
) -> list[float]:
    """SPEC 2.3 steps 1-8 for one match, the obvious way: Python floats and nested loops."""
    t, mult, cap = settings.t, settings.game_mult, settings.max_game_length
    count = len(ratings)
    offsets = [0.0] * count
    for p in range(count):
        offset = 0.0
        for q in range(count):
            if sides[p] == sides[q]:
                continue
            expected = 1.0 / (1.0 + math.exp((ratings[q] - ratings[p]) / t))
            mine, theirs = scores[p] * minutes[q], scores[q] * minutes[p]
            result = 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5
            offset += (result - expected) * mult * min(cap, minutes[p], minutes[q])
        offsets[p] = offset
    largest = max(abs(offset) for offset in offsets)
    if largest == 0.0:
        return offsets
    h = min(
        (p for p in range(count) if abs(offsets[p]) >= largest - OFFSET_TIE_TOLERANCE),
        key=lambda p: (minutes[p], -abs(offsets[p])),
    )
    scale = min(1.0, min(minutes[h], cap) * mult / abs(offsets[h]))
    return [offset * scale for offset in offsets]


def replay_plain(log: MatchLog, settings: Settings) -> tuple[list[float], list[float], list[float]]:
    """Every match in order: (rating before per row, rating after per row, final ratings)."""
    ratings = [float(settings.initial_rating)] * log.member_count
    players, sides = log.player.tolist(), log.side.tolist()
    scores, minutes = log.score.tolist(), log.minutes.tolist()
    before: list[float] = []
    after: list[float] = []
    size = log.players_per_match
    for start in range(0, len(players), size):
        rows = slice(start, start + size)
        who = players[rows]
        current = [ratings[p] for p in who]
        changes = plain_changes(current, sides[rows], scores[rows], minutes[rows], settings)
        before.extend(current)
        for player, rating, change in zip(who, current, changes, strict=True):
            ratings[player] = rating + change
            after.append(rating + change)
    return before, after, ratings


def replay_openskill(log: MatchLog) -> list[Any]:
    """openskill's Plackett-Luce over the same stream: sides ranked by their summed score
    per hour (a free-for-all is eight one-player teams). Returns the final ratings."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(log.member_count)]
    players, sides = log.player.tolist(), log.side.tolist()
    rates = (log.score / log.minutes * 60.0).tolist()
    size = log.players_per_match
    for start in range(0, len(players), size):
        teams: dict[int, list[int]] = {}
        team_rates: dict[int, float] = {}
        for row in range(start, start + size):
            teams.setdefault(sides[row], []).append(players[row])
            team_rates[sides[row]] = team_rates.get(sides[row], 0.0) + rates[row]
        members = list(teams.values())
        rated = model.rate(
            [[ratings[p] for p in team] for team in members],
            scores=[team_rates[side] for side in teams],
        )
        for team, new_ratings in zip(members, rated, strict=True):
            for player, rating in zip(team, new_ratings, strict=True):
                ratings[player] = rating
    return ratings


def brentq_roots(
    problems: Sequence[tuple[Callable[[float], float], float, float]], xtol: float
) -> NDArray[np.float64]:
    """One scipy.optimize.brentq per (equation, low, high)."""
    from scipy.optimize import brentq  # type: ignore[import-untyped]

    return np.array([brentq(f, low, high, xtol=xtol) for f, low, high in problems])


Figures = dict[str, tuple[float, float, float, int]]
"""Per measure: mean log-loss, Brier score, accuracy and the number of ordered pairs."""


class _Totals:
    """Running sums of one measure's figures (SPEC 12.1), pair by pair."""

    def __init__(self) -> None:
        self.log_loss = self.brier = self.hits = 0.0
        self.pairs = 0

    def add(self, prediction: float, outcome: float) -> None:
        clipped = min(max(prediction, 1e-6), 1 - 1e-6)
        self.log_loss -= outcome * math.log(clipped) + (1 - outcome) * math.log(1 - clipped)
        self.brier += (prediction - outcome) ** 2
        if outcome == 0.5 or prediction == 0.5:
            self.hits += 0.5
        elif (prediction > 0.5) == (outcome == 1.0):
            self.hits += 1.0
        self.pairs += 1

    def figures(self) -> tuple[float, float, float, int]:
        return (
            self.log_loss / self.pairs,
            self.brier / self.pairs,
            self.hits / self.pairs,
            self.pairs,
        )


def _result(mine: float, theirs: float) -> float:
    """result_pq of SPEC 2.3 step 4 from score_p·minutes_q and score_q·minutes_p."""
    return 1.0 if mine > theirs else 0.0 if mine < theirs else 0.5


def elo_prediction(rating: float, opponent: float) -> float:
    """W(RP_q - RP_p) of SPEC 1.3 for p rated `rating`, q `opponent`; equal infinities ½."""
    if math.isinf(rating) and rating == opponent:
        return 0.5
    difference = opponent - rating
    if math.isinf(difference):
        return 0.0 if difference > 0 else 1.0
    if difference > 0:  # 10^(-d/400) never overflows here
        odds = math.pow(10.0, -difference / 400.0)
        return odds / (1.0 + odds)
    return 1.0 / (1.0 + math.pow(10.0, difference / 400.0))


def plain_evaluation(
    columns: Sequence[ArrayLike],
    settings: Settings,
    last: int,
    season_starts: Sequence[int] = (),
    season_carry: Sequence[float] = (),
    timings: dict[str, float] | None = None,
) -> Figures:
    """SPEC 12.1 one match at a time, the obvious way: ladder ratings kept per member and
    updated by plain_changes (with the season starts' carry-over), every evaluated member's
    game list kept as Game objects and solved per variant (bot.ratings.performance) before
    each of their evaluated matches, every ordered pair predicted and scored in Python.
    columns: match (0, 1, ... in log order), player, side, score, minutes per row.
    timings: filled with the seconds spent predicting the evaluated matches ("predictions")
    and in all ("total"), for estimates over other numbers of evaluated matches."""
    started = time.perf_counter()
    predicting = 0.0
    from bot.ratings.gamelist import Game
    from bot.ratings.performance import performance
    from bot.ratings.variants import VARIANTS

    match, player, side, score, minutes = (np.asarray(column).tolist() for column in columns)
    count = int(match[-1]) + 1
    first = max(0, count - last)
    starts = [row for row in range(len(match)) if row == 0 or match[row] != match[row - 1]]
    bounds = [*starts, len(match)]
    evaluated = {player[row] for row in range(bounds[first], len(match))}
    ratings: dict[float, float] = {}
    histories: dict[float, list[tuple[float, float, str]]] = {p: [] for p in evaluated}
    totals = {name: _Totals() for name in ("ladder", *VARIANTS, "baseline")}
    points_per_elo = settings.t * math.log(10) / 400.0
    for index in range(count):
        for position, carry in zip(season_starts, season_carry, strict=True):
            if position == index:
                ratings = {
                    p: settings.initial_rating + carry * (r - settings.initial_rating)
                    for p, r in ratings.items()
                }
        rows = range(bounds[index], bounds[index + 1])
        before = [ratings.get(player[row], settings.initial_rating) for row in rows]
        results = [
            [_result(score[a] * minutes[b], score[b] * minutes[a]) for b in rows] for a in rows
        ]
        if index >= first:
            predicting -= time.perf_counter()
            performances = {
                (player[row], name): performance(
                    [Game(w, r, o) for w, r, o in reversed(histories[player[row]])], name
                )
                for row in rows
                for name in VARIANTS
            }
            for i, a in enumerate(rows):
                for j, b in enumerate(rows):
                    if side[a] == side[b]:
                        continue
                    outcome = results[i][j]
                    services = 1.0 / (1.0 + math.exp((before[j] - before[i]) / settings.t))
                    totals["ladder"].add(services, outcome)
                    totals["baseline"].add(0.5, outcome)
                    for name in VARIANTS:
                        mine, theirs = (
                            1500.0 if math.isnan(rp) else rp
                            for rp in (performances[player[a], name], performances[player[b], name])
                        )
                        totals[name].add(elo_prediction(mine, theirs), outcome)
            predicting += time.perf_counter()
        for i, a in enumerate(rows):
            if player[a] not in histories:
                continue
            # Appended oldest first, so a match's opponents go in descending id order: the
            # list read backwards (newest first) has them by ascending id (SPEC 3.3).
            opponents = sorted(
                ((player[b], j) for j, b in enumerate(rows) if side[b] != side[a]), reverse=True
            )
            histories[player[a]] += [
                (
                    results[i][j],
                    1500.0 + (before[j] - settings.initial_rating) / points_per_elo,
                    str(opponent),
                )
                for opponent, j in opponents
            ]
        changes = plain_changes(
            before,
            [int(side[row]) for row in rows],
            [score[row] for row in rows],
            [minutes[row] for row in rows],
            settings,
        )
        for row, rating, change in zip(rows, before, changes, strict=True):
            ratings[player[row]] = rating + change
    if timings is not None:
        timings.update(predictions=predicting, total=time.perf_counter() - started)
    return {name: total.figures() for name, total in totals.items()}
