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

Parties (SPEC 10.5): `groups` labels the players, and players of one label always share a
team. The exact split keeps only the partitions that do so. Beyond, the heuristic moves
whole units (a party, or a player alone): it starts from feasible packings (the parties,
largest first, each into the team with the most room; then the players alone by a snake
draft of ratings, and RESTARTS - 1 seeded shuffles of that) and trades a bundle of one or
two units of a team for a bundle of equal size of another - every candidate scored at once -
by the same steepest descent and stopping rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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


def balance_teams(
    ratings: npt.ArrayLike, teams: int, groups: Sequence[int] | None = None
) -> Balance:
    """The most even split of the players (Elo ratings) into `teams` teams; players with the
    same `groups` label (a party) on one team; see the module. ValueError when the parties
    cannot be packed into the teams."""
    values = _checked(ratings, teams)
    units = _units(groups, len(values))
    if units is not None and pack([len(u) for u in units], team_sizes(len(values), teams)) is None:
        raise ValueError("the parties do not fit into the teams")
    if len(values) <= EXACT_MAX_PLAYERS:
        labels, evaluated = _exact(values, teams, units)
    elif units is None:
        labels, evaluated = _heuristic(values, teams)
    else:
        labels, evaluated = _unit_heuristic(values, teams, units)
    return _result(values, labels, teams, len(values) <= EXACT_MAX_PLAYERS, evaluated)


def _units(groups: Sequence[int] | None, players: int) -> list[list[int]] | None:
    """The players of each label in order of first appearance (None: no party of two)."""
    if groups is None:
        return None
    if len(groups) != players:
        raise ValueError(f"groups has {len(groups)} labels for {players} players")
    found: dict[int, list[int]] = {}
    for player, label in enumerate(groups):
        found.setdefault(label, []).append(player)
    units = list(found.values())
    return units if any(len(unit) > 1 for unit in units) else None


def pack(sizes: Sequence[int], capacities: Sequence[int]) -> list[int] | None:
    """A team for each unit of `sizes` so that no team holds more than its capacity (None:
    impossible). Largest units first, each tried in the team with the most room first; the
    players alone (size 1) always fit once the rest do."""
    order = sorted(range(len(sizes)), key=lambda unit: -sizes[unit])
    room = list(capacities)
    if sum(sizes) > sum(room):
        return None
    placed = [0] * len(sizes)

    def place(step: int) -> bool:
        if step == len(order) or sizes[order[step]] == 1:
            for unit in order[step:]:
                team = max(range(len(room)), key=lambda t: room[t])
                placed[unit] = team
                room[team] -= 1
            return True
        unit = order[step]
        tried: set[int] = set()
        for team in sorted(range(len(room)), key=lambda t: -room[t]):
            if room[team] < sizes[unit] or room[team] in tried:
                continue
            tried.add(room[team])  # teams with equal room are interchangeable here
            room[team] -= sizes[unit]
            placed[unit] = team
            if place(step + 1):
                return True
            room[team] += sizes[unit]
        return False

    return placed if place(0) else None


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


def _exact(
    ratings: FloatArray, teams: int, units: list[list[int]] | None = None
) -> tuple[IntArray, int]:
    table = partitions(len(ratings), teams)
    evaluated = len(table)
    for unit in units or ():
        if len(unit) > 1:
            table = table[(table[:, unit] == table[:, unit[:1]]).all(axis=1)]
    spreads, _ = _objective(_team_averages(ratings, table, teams))
    return table[int(np.argmin(spreads))], evaluated


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


def _feasible_start(
    ratings: FloatArray, teams: int, units: list[list[int]], order: Sequence[int]
) -> IntArray:
    """Labels of a feasible split: parties packed (`pack`), then the players alone in
    `order` dealt in a snake over the teams that still have room."""
    capacities = team_sizes(len(ratings), teams)
    parties = [u for u in units if len(u) > 1]
    placed = pack([len(u) for u in parties], capacities)
    assert placed is not None  # checked by balance_teams
    labels = np.full(len(ratings), -1, dtype=np.int64)
    room = list(capacities)
    for unit, team in zip(parties, placed, strict=True):
        labels[unit] = team
        room[team] -= len(unit)
    turn = 0
    for player in order:
        if labels[player] >= 0:
            continue
        while True:
            lap, place = divmod(turn, teams)
            team = place if lap % 2 == 0 else teams - 1 - place
            turn += 1
            if room[team]:
                break
        labels[player] = team
        room[team] -= 1
    return labels


def _bundles(units: list[list[int]], labels: IntArray, ratings: FloatArray) -> tuple[
    IntArray, IntArray, FloatArray, list[tuple[int, ...]]
]:  # fmt: skip
    """Every bundle of one or two units of one team: its team, size, rating sum and units."""
    team_of = [int(labels[u[0]]) for u in units]
    size = [len(u) for u in units]
    total = [float(ratings[u].sum()) for u in units]
    bundles: list[tuple[int, ...]] = [(i,) for i in range(len(units))]
    bundles += [
        (i, j)
        for i in range(len(units))
        for j in range(i + 1, len(units))
        if team_of[i] == team_of[j]
    ]
    teams_of = np.array([team_of[b[0]] for b in bundles], dtype=np.int64)
    sizes = np.array([sum(size[u] for u in b) for b in bundles], dtype=np.int64)
    sums = np.array([sum(total[u] for u in b) for b in bundles], dtype=np.float64)
    return teams_of, sizes, sums, bundles


def _improve_units(
    ratings: FloatArray, teams: int, units: list[list[int]], labels: IntArray
) -> tuple[IntArray, int]:
    """Steepest descent over trades of a bundle of one team for a bundle of equal size of
    another, until none strictly lowers (spread, variance) or MAX_ROUNDS passed."""
    labels = labels.copy()
    sizes = np.bincount(labels, minlength=teams).astype(np.float64)
    evaluated = 0
    for _ in range(MAX_ROUNDS):
        sums = np.bincount(labels, weights=ratings, minlength=teams)
        spread, variance = _objective(sums / sizes)
        team_of, size, total, bundles = _bundles(units, labels, ratings)
        first, second = np.nonzero(
            (team_of[:, None] < team_of[None, :]) & (size[:, None] == size[None, :])
        )
        if len(first) == 0:
            break
        evaluated += len(first)
        gain = total[second] - total[first]  # the first bundle's team gains it
        moved = (np.arange(teams)[:, None] == team_of[first]).astype(np.float64)
        moved -= np.arange(teams)[:, None] == team_of[second]
        averages = (sums[:, None] + gain * moved) / sizes[:, None]
        trade_spread, trade_variance = _objective(averages)
        best = int(np.lexsort((trade_variance, trade_spread))[0])
        better = trade_spread[best] < spread - _IMPROVEMENT or (
            trade_spread[best] <= spread + _IMPROVEMENT
            and trade_variance[best] < variance - _IMPROVEMENT
        )
        if not better:
            break
        for unit in bundles[first[best]]:
            labels[units[unit]] = team_of[second[best]]
        for unit in bundles[second[best]]:
            labels[units[unit]] = team_of[first[best]]
    return labels, evaluated


def _unit_heuristic(
    ratings: FloatArray, teams: int, units: list[list[int]]
) -> tuple[IntArray, int]:
    generator = np.random.default_rng(SEED)
    orders = [np.argsort(-ratings, kind="stable")]
    orders += [generator.permutation(len(ratings)) for _ in range(RESTARTS - 1)]
    best: IntArray | None = None
    best_score = (math.inf, math.inf)
    evaluated = 0
    for order in orders:
        start = _feasible_start(ratings, teams, units, [int(p) for p in order])
        labels, work = _improve_units(ratings, teams, units, start)
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
