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
deterministic heuristic: a snake draft of the players by rating, then RESTARTS - 1 seeded
random splits, each improved by steepest-descent pairwise swaps between teams (every swap
evaluated at once; (spread, variance of the averages) must strictly fall, so it stops) until
no swap helps or MAX_ROUNDS passed; the best result wins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from bot.ratings.solver import expected_score

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

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
    """Partitions (exact) or candidate swaps (heuristic) looked at: the work done."""

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
    """Average rating of each team for every row of labels: shape (rows, teams)."""
    members = labels[..., None] == np.arange(teams)
    sums = np.einsum("...pt,p->...t", members, ratings)
    return np.asarray(sums / members.sum(axis=-2), dtype=np.float64)


def _exact(ratings: FloatArray, teams: int) -> tuple[IntArray, int]:
    table = partitions(len(ratings), teams)
    averages = _team_averages(ratings, table, teams)
    spreads = averages.max(axis=1) - averages.min(axis=1)
    return table[int(np.argmin(spreads))], len(table)


def _snake_draft(ratings: FloatArray, teams: int) -> IntArray:
    """Strongest first, picking teams 0..k-1, then k-1..0, and so on."""
    labels = np.empty(len(ratings), dtype=np.int64)
    rounds = np.arange(len(ratings)) // teams
    place = np.arange(len(ratings)) % teams
    labels[np.argsort(-ratings, kind="stable")] = np.where(
        rounds % 2 == 0, place, teams - 1 - place
    )
    return labels


def _objective(averages: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(spread, variance) of the team averages along the last axis."""
    spread = averages.max(axis=-1) - averages.min(axis=-1)
    return np.asarray(spread), np.asarray(averages.var(axis=-1))


def _improve(ratings: FloatArray, labels: IntArray, teams: int) -> tuple[IntArray, int]:
    """Steepest descent over pairwise swaps: swapping i and j changes the sums of their teams
    by ±(r_j - r_i); every swap is scored at once, the best one taken while it strictly
    lowers (spread, variance)."""
    labels = labels.copy()
    players = len(ratings)
    upper = np.triu(np.ones((players, players), dtype=bool), k=1)
    gain = ratings[None, :] - ratings[:, None]
    evaluated = 0
    for _ in range(MAX_ROUNDS):
        members = (labels[:, None] == np.arange(teams)).astype(np.float64)
        sizes = members.sum(axis=0)
        sums = ratings @ members
        spread, variance = _objective(sums / sizes)
        moved = members[:, None, :] - members[None, :, :]
        swapped = (sums + gain[..., None] * moved) / sizes
        candidates = upper & (labels[:, None] != labels[None, :])
        evaluated += int(candidates.sum())
        swap_spread, swap_variance = _objective(swapped)
        swap_spread = np.where(candidates, swap_spread, np.inf)
        lowest = swap_spread.min()
        tied = swap_spread <= lowest + _IMPROVEMENT
        best = int(np.argmin(np.where(tied, swap_variance, np.inf)))
        i, j = divmod(best, players)
        better_spread = lowest < spread - _IMPROVEMENT
        same_spread = lowest <= spread + _IMPROVEMENT
        if not (better_spread or (same_spread and swap_variance[i, j] < variance - _IMPROVEMENT)):
            break
        labels[i], labels[j] = labels[j], labels[i]
    return labels, evaluated


def _heuristic(ratings: FloatArray, teams: int) -> tuple[IntArray, int]:
    generator = np.random.default_rng(SEED)
    starts = [_snake_draft(ratings, teams)]
    starts += [generator.permutation(len(ratings)) % teams for _ in range(RESTARTS - 1)]
    best: IntArray | None = None
    best_score = (math.inf, math.inf)
    evaluated = 0
    for start in starts:
        labels, work = _improve(ratings, start.astype(np.int64), teams)
        evaluated += work
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
    pairwise = expected_score(averages[None, :] - averages[:, None])
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
