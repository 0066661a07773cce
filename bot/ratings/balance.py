"""Team balance (SPEC 9.5): split players into teams whose predicted outcome is most even.

Ratings are in Elo units (SPEC 3.1), where the ladder's P between two ratings is
W(d) = 1 / (1 + 10^(d / 400)) of their difference d. A team's strength is its average
rating A_t, so team s beats team t with P_st = W(A_t - A_s) = 1 / (1 + 10^((A_t - A_s)/400)).

Teams have equal sizes (±1: the n mod k larger teams get one player more). The objective is
the spread max_t A_t - min_t A_t: for two teams P of the stronger team is W(-spread), so the
smallest spread is exactly the most even game; for three or four teams it bounds every
pairwise P at once (no pair is further from ½ than the strongest against the weakest). Each
team's shown win probability is its mean P against the other teams (for two teams, P).

Exact for up to EXACT_MAX_PLAYERS players: every partition, each once (teams of one size are
interchangeable, so an empty team is only opened after the ones before it of its size), is
evaluated at once with numpy; ties go to the first partition in that order. Beyond, a
deterministic heuristic (local search with restarts): a snake draft of the players by
rating, then RESTARTS - 1 seeded random splits, each improved by steepest descent over
trades between two teams - the best one-for-one trade while one helps, else the best
two-for-two trade (two players of one team for two of another), every candidate scored at
once - until no trade strictly lowers (spread, variance of the averages) or MAX_ROUNDS
passed; the best result wins. Two-for-two trades get past the plateaus of equal ratings that
stop one-for-one swaps; bench/balance.py measures the time at 32 players and the gap to the
exact optimum at 14.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from bot.ratings.arrays import FloatArray, IntArray
from bot.ratings.elo import elo_expected_score

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 32
MIN_TEAMS: Final = 2
MAX_TEAMS: Final = 4
EXACT_MAX_PLAYERS: Final = 12
RESTARTS: Final = 8
MAX_ROUNDS: Final = 100
SEED: Final = 20260512
_IMPROVEMENT: Final = 1e-12
"""Smaller changes of the objective are rounding, not an improvement."""


@dataclass(frozen=True, slots=True)
class Balance:
    teams: tuple[tuple[int, ...], ...]
    """Player indices of each team, ascending; the strongest team first."""
    averages: FloatArray
    """Each team's average rating (Elo units), in the order of `teams`."""
    win_probability: FloatArray
    """Each team's mean P against the other teams."""
    exact: bool
    evaluated: int
    """Partitions (exact) or candidate trades (heuristic) looked at: the work done."""

    @property
    def spread(self) -> float:
        return float(self.averages.max() - self.averages.min())


def balance_teams(ratings: npt.ArrayLike, teams: int) -> Balance:
    """The most even split of the players (Elo ratings) into `teams` teams; see the module."""
    values = _checked(ratings, teams)
    if len(values) <= EXACT_MAX_PLAYERS:
        labels, evaluated = _exact(values, teams)
    else:
        labels, evaluated = _heuristic(values, teams)
    return _result(values, labels, teams, len(values) <= EXACT_MAX_PLAYERS, evaluated)


def _checked(ratings: npt.ArrayLike, teams: int) -> FloatArray:
    if isinstance(teams, bool) or not isinstance(teams, int | np.integer):
        raise ValueError(f"teams {teams!r} must be an integer from {MIN_TEAMS} to {MAX_TEAMS}")
    if not MIN_TEAMS <= teams <= MAX_TEAMS:
        raise ValueError(f"teams {teams!r} must be an integer from {MIN_TEAMS} to {MAX_TEAMS}")
    values = np.asarray(ratings, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"ratings must be a flat list, one per player, not shape {values.shape}")
    if not MIN_PLAYERS <= len(values) <= MAX_PLAYERS:
        raise ValueError(f"player count {len(values)} must be from {MIN_PLAYERS} to {MAX_PLAYERS}")
    if teams > len(values):
        raise ValueError(f"teams {teams} must be at most the number of players ({len(values)})")
    finite = np.isfinite(values)
    if not finite.all():
        bad = int(np.flatnonzero(~finite)[0])
        raise ValueError(f"rating {values[bad].item()!r} of player {bad} must be a finite number")
    return values


def team_sizes(players: int, teams: int) -> list[int]:
    """Equal sizes ±1, the larger teams first."""
    size, larger = divmod(players, teams)
    return [size + 1] * larger + [size] * (teams - larger)


@lru_cache(maxsize=64)
def partitions(players: int, teams: int) -> IntArray:
    """Every split of `players` into teams of `team_sizes`, once each, as rows of team labels.

    Player by player: a team of a given size that is still empty may only be opened if no
    earlier team of that size is empty, so relabelling teams of one size never repeats a
    split. Depends only on the counts, hence cached (read-only)."""
    capacity = team_sizes(players, teams)
    counts = [0] * teams
    labels = [0] * players
    rows: list[list[int]] = []

    def place(player: int) -> None:
        if player == players:
            rows.append(labels.copy())
            return
        opened: set[int] = set()
        for team in range(teams):
            if counts[team] == capacity[team]:
                continue
            if counts[team] == 0:
                if capacity[team] in opened:
                    continue
                opened.add(capacity[team])
            labels[player] = team
            counts[team] += 1
            place(player + 1)
            counts[team] -= 1

    place(0)
    table = np.array(rows, dtype=np.int64)
    table.flags.writeable = False
    return table


def _team_averages(ratings: FloatArray, labels: IntArray, teams: int) -> FloatArray:
    """Average rating of each team for every row of labels, teams first: (teams, rows)."""
    sums = np.stack([(labels == team) @ ratings for team in range(teams)])
    sizes = np.stack([(labels == team).sum(axis=-1) for team in range(teams)])
    return np.asarray(sums / sizes, dtype=np.float64)


def _exact(ratings: FloatArray, teams: int) -> tuple[IntArray, int]:
    table = partitions(len(ratings), teams)
    spreads, _ = _objective(_team_averages(ratings, table, teams))
    return table[int(np.argmin(spreads))], len(table)


def _objective(averages: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(spread, variance) of team averages laid out along the first axis (teams first:
    reductions over a short last axis are several times slower in numpy)."""
    spread = np.max(averages, axis=0) - np.min(averages, axis=0)
    centred = averages - averages.mean(axis=0)
    return np.asarray(spread), np.asarray((centred * centred).mean(axis=0))


def _snake_order(ratings: FloatArray, teams: int) -> IntArray:
    """A snake draft as seats: strongest first, picking teams 0..k-1, then k-1..0, and so
    on; returned as the players in seat order (larger teams first, as `Seats`)."""
    picks = np.arange(len(ratings))
    place = picks % teams
    labels = np.empty(len(ratings), dtype=np.int64)
    labels[np.argsort(-ratings, kind="stable")] = np.where(
        (picks // teams) % 2 == 0, place, teams - 1 - place
    )
    larger_first = np.argsort(-np.bincount(labels, minlength=teams), kind="stable")
    relabel = np.empty(teams, dtype=np.int64)
    relabel[larger_first] = np.arange(teams)
    return np.argsort(relabel[labels], kind="stable")


@dataclass(frozen=True, slots=True)
class Seats:
    """The heuristic's fixed frame: seat s belongs to team `team[s]` (sizes of
    `team_sizes`), and the candidate moves are trades of the players in seats out1 (+out2)
    for those in seats in1 (+in2) of another team. One player for one, or two of a team for
    two of another; a single trade has out2 == out1 and in2 == in1. Only players move, so the
    frame depends on the counts alone (cached)."""

    team: IntArray
    out1: IntArray
    out2: IntArray
    in1: IntArray
    in2: IntArray
    pair: FloatArray
    """1.0 for two-for-two trades, else 0.0."""
    singles: int
    """The one-for-one trades come first: this many."""
    moved: FloatArray
    """(teams, trades): +1 for the team of `out` (it gains in - out), -1 for the other."""


@lru_cache(maxsize=64)
def seats(players: int, teams: int) -> Seats:
    team = np.repeat(np.arange(teams), team_sizes(players, teams))
    first, second = np.triu_indices(players, k=1)
    apart = team[first] != team[second]
    singles = (first[apart], first[apart], second[apart], second[apart])
    together = team[first] == team[second]
    one, two = first[together], second[together]
    left, right = np.triu_indices(len(one), k=1)
    across = team[one[left]] != team[one[right]]
    left, right = left[across], right[across]
    pairs = (one[left], two[left], one[right], two[right])
    out1, out2, in1, in2 = (np.concatenate(parts) for parts in zip(singles, pairs, strict=True))
    moved = (np.arange(teams)[:, None] == team[out1]).astype(np.float64)
    moved -= np.arange(teams)[:, None] == team[in1]
    pair = np.concatenate([np.zeros(len(singles[0])), np.ones(len(pairs[0]))])
    return Seats(team, out1, out2, in1, in2, pair, len(singles[0]), moved)


def _best_trade(seated: FloatArray, frame: Seats, count: int) -> int | None:
    """The first `count` trades of the frame scored at once (a trade changes two team sums
    by ±(in - out)): the one with the lowest (spread, variance) if that is strictly lower
    than now, else None."""
    teams = len(frame.moved)
    sizes = np.bincount(frame.team, minlength=teams).astype(np.float64)
    sums = np.bincount(frame.team, weights=seated, minlength=teams)
    spread, variance = _objective(sums / sizes)
    gain = seated[frame.in1[:count]] - seated[frame.out1[:count]]
    gain += frame.pair[:count] * (seated[frame.in2[:count]] - seated[frame.out2[:count]])
    averages = (sums[:, None] + gain * frame.moved[:, :count]) / sizes[:, None]
    trade_spread = np.max(averages, axis=0) - np.min(averages, axis=0)
    lowest = trade_spread.min()
    if lowest > spread + _IMPROVEMENT:
        return None
    tied = np.flatnonzero(trade_spread <= lowest + _IMPROVEMENT)
    _, tied_variance = _objective(averages[:, tied])
    best = int(tied[np.argmin(tied_variance)])
    if lowest < spread - _IMPROVEMENT or tied_variance.min() < variance - _IMPROVEMENT:
        return best
    return None


def _improve(ratings: FloatArray, order: IntArray, frame: Seats) -> tuple[IntArray, int]:
    """Steepest descent: the best one-for-one trade while one helps, else the best trade of
    all (two-for-two too), until none strictly lowers (spread, variance). `order` is the
    player in each seat."""
    order = order.copy()
    evaluated = 0
    for _ in range(MAX_ROUNDS):
        for count in (frame.singles, len(frame.out1)):
            evaluated += count
            best = _best_trade(ratings[order], frame, count)
            if best is not None:
                out = [frame.out1[best], frame.out2[best]]
                into = [frame.in1[best], frame.in2[best]]
                order[out], order[into] = order[into], order[out]
                break
        else:
            break
    return order, evaluated


def _heuristic(ratings: FloatArray, teams: int) -> tuple[IntArray, int]:
    frame = seats(len(ratings), teams)
    generator = np.random.default_rng(SEED)
    starts = [_snake_order(ratings, teams)]
    starts += [generator.permutation(len(ratings)) for _ in range(RESTARTS - 1)]
    best: IntArray | None = None
    best_score = (math.inf, math.inf)
    evaluated = 0
    for start in starts:
        order, work = _improve(ratings, start, frame)
        evaluated += work
        labels = np.empty(len(ratings), dtype=np.int64)
        labels[order] = frame.team
        spread, variance = _objective(_team_averages(ratings, labels, teams))
        score = (float(spread), float(variance))
        if score[0] < best_score[0] - _IMPROVEMENT or (
            score[0] <= best_score[0] + _IMPROVEMENT and score[1] < best_score[1] - _IMPROVEMENT
        ):
            best, best_score = labels, score
    assert best is not None
    return best, evaluated


def win_probabilities(averages: FloatArray) -> FloatArray:
    """Each team's mean P = W(A_other - A_team) against the other teams."""
    pairwise = elo_expected_score(averages[None, :] - averages[:, None])
    teams = len(averages)
    return np.asarray((pairwise.sum(axis=1) - 0.5) / (teams - 1), dtype=np.float64)


def _result(
    ratings: FloatArray, labels: IntArray, teams: int, exact: bool, evaluated: int
) -> Balance:
    averages = _team_averages(ratings, labels, teams)
    members = [tuple(int(p) for p in np.flatnonzero(labels == team)) for team in range(teams)]
    order = sorted(range(teams), key=lambda team: (-averages[team], members[team]))
    ordered = np.asarray(averages[order], dtype=np.float64)
    return Balance(
        tuple(members[team] for team in order),
        ordered,
        win_probabilities(ordered),
        exact,
        evaluated,
    )
