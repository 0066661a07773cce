"""Team balance against a brute force written out plainly here (itertools, no numpy)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.balance import (
    EXACT_MAX_PLAYERS,
    MAX_PLAYERS,
    MAX_ROUNDS,
    RESTARTS,
    balance_teams,
    partitions,
    seats,
)

elo_ratings = st.floats(500.0, 2500.0, allow_nan=False, allow_infinity=False)


def splits(players: Sequence[int], sizes: Sequence[int]) -> Iterator[list[tuple[int, ...]]]:
    """Every ordered split of the players into teams of the given sizes."""
    if not sizes:
        yield []
        return
    for team in itertools.combinations(players, sizes[0]):
        rest = [p for p in players if p not in team]
        for others in splits(rest, sizes[1:]):
            yield [team, *others]


def sizes_of(players: int, teams: int) -> list[int]:
    return [players // teams + (1 if t < players % teams else 0) for t in range(teams)]


def spread_of(ratings: Sequence[float], split: Sequence[Sequence[int]]) -> float:
    averages = [sum(ratings[p] for p in team) / len(team) for team in split]
    return max(averages) - min(averages)


def brute_force_spread(ratings: Sequence[float], teams: int) -> float:
    return min(
        spread_of(ratings, split)
        for split in splits(range(len(ratings)), sizes_of(len(ratings), teams))
    )


def favourite_chance(spread: float) -> float:
    """P of the strongest team against the weakest: W(-spread) in Elo units."""
    return float(1.0 / (1.0 + 10.0 ** (-spread / 400.0)))


def check_split(ratings: Sequence[float], teams: int) -> float:
    """The split is a partition into teams of equal size ±1, its reported averages and
    probabilities agree with the split; returns its spread."""
    result = balance_teams(ratings, teams)
    members = sorted(p for team in result.teams for p in team)
    assert members == list(range(len(ratings)))
    assert sorted(len(team) for team in result.teams) == sorted(sizes_of(len(ratings), teams))
    for team, average in zip(result.teams, result.averages, strict=True):
        assert average == pytest.approx(sum(ratings[p] for p in team) / len(team))
    assert list(result.averages) == sorted(result.averages, reverse=True)
    assert sum(result.win_probability) == pytest.approx(teams / 2)
    assert result.spread == pytest.approx(spread_of(ratings, result.teams), abs=1e-9)
    return result.spread


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_exact_up_to_12_players_matches_brute_force(data: st.DataObject) -> None:
    teams = data.draw(st.integers(2, 4))
    most = 12 if teams < 4 else 10  # four teams of 12: the plain brute force takes seconds
    ratings = data.draw(st.lists(elo_ratings, min_size=teams, max_size=most))
    result = balance_teams(ratings, teams)
    assert result.exact
    assert check_split(ratings, teams) == pytest.approx(
        brute_force_spread(ratings, teams), abs=1e-9
    )


def test_exact_with_four_teams_of_12_players() -> None:
    ratings = np.random.default_rng(12).uniform(500.0, 2500.0, 12).tolist()
    assert check_split(ratings, 4) == pytest.approx(brute_force_spread(ratings, 4), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(elo_ratings, min_size=14, max_size=14))
def test_heuristic_within_one_percent_of_brute_force_at_14_players(ratings: list[float]) -> None:
    """Two teams of 7: the favourite's chance at most one percentage point above the best."""
    result = balance_teams(ratings, 2)
    assert not result.exact
    best = favourite_chance(brute_force_spread(ratings, 2))
    assert favourite_chance(check_split(ratings, 2)) - best <= 0.01


def test_trades_are_one_for_one_and_two_for_two_across_teams() -> None:
    """10 players in 3 teams (4, 3, 3): 33 one-for-one trades, C(4,2)·C(3,2)·2 + 3·3 = 45
    two-for-two trades; every trade moves players between two different teams."""
    frame = seats(10, 3)
    assert frame.team.tolist() == [0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert frame.singles == 4 * 3 * 2 + 3 * 3
    assert len(frame.out1) - frame.singles == 6 * 3 * 2 + 3 * 3
    single = slice(0, frame.singles)
    assert (frame.out1[single] == frame.out2[single]).all()
    assert (frame.team[frame.out1] != frame.team[frame.in1]).all()
    assert (frame.team[frame.out1] == frame.team[frame.out2]).all()
    assert (frame.team[frame.in1] == frame.team[frame.in2]).all()
    assert (frame.out1[frame.singles :] != frame.out2[frame.singles :]).all()


def test_partitions_are_each_split_once() -> None:
    """Counts: 12 into 2x6 = C(12,6)/2, into 4x3 = 12!/(3!^4 4!), 11 into 4+4+3."""
    assert len(partitions(12, 2)) == math.comb(12, 6) // 2
    assert len(partitions(12, 4)) == math.factorial(12) // (6**4 * 24)
    assert len(partitions(11, 3)) == math.comb(11, 3) * math.comb(8, 4) // 2
    canonical = {
        frozenset(frozenset(np.flatnonzero(row == t).tolist()) for t in range(4))
        for row in partitions(10, 4)
    }
    assert len(canonical) == len(partitions(10, 4))


def test_heuristic_is_deterministic_and_its_work_bounded() -> None:
    """32 players: the same teams every time, and a few hundred thousand trades looked at,
    under 0.2 % of the 300 million splits into two teams of 16."""
    ratings = np.random.default_rng(7).normal(1500, 300, MAX_PLAYERS)
    for teams in (2, 3, 4):
        first, again = balance_teams(ratings, teams), balance_teams(ratings, teams)
        assert first.teams == again.teams and not first.exact
        trades = len(seats(MAX_PLAYERS, teams).out1)
        assert first.evaluated <= RESTARTS * MAX_ROUNDS * trades
        assert first.evaluated < math.comb(32, 16) // 2 // 500
        check_split(list(ratings), teams)


def test_even_strengths_give_even_chances() -> None:
    result = balance_teams([1000, 2000, 1000, 2000], 2)
    assert result.spread == 0 and list(result.win_probability) == [0.5, 0.5]
    assert result.evaluated == 3 and result.exact
    assert balance_teams([1500.0] * (EXACT_MAX_PLAYERS + 1), 3).spread == 0


def test_uneven_strengths_name_the_favourite() -> None:
    """Three players in two teams: the strongest pairs with a weak one (1500 against 1000
    beats 2000 against 1000), and that pair is the favourite."""
    result = balance_teams([1000, 2000, 1000], 2)
    assert result.teams == ((0, 1), (2,))
    assert result.spread == 500
    assert result.win_probability[0] == pytest.approx(favourite_chance(500))


@pytest.mark.parametrize(
    ("ratings", "teams", "message"),
    [
        ([1500.0], 2, "player count 1 must be from 2 to 32"),
        ([1500.0] * 33, 2, "player count 33 must be from 2 to 32"),
        ([1500.0] * 4, 5, "teams 5 must be an integer from 2 to 4"),
        ([1500.0] * 4, 1, "teams 1 must be an integer from 2 to 4"),
        ([1500.0] * 4, True, "teams True must be an integer from 2 to 4"),
        ([1500.0] * 3, 4, "teams 4 must be at most the number of players (3)"),
        ([1500.0, math.nan], 2, "rating nan of player 1 must be a finite number"),
        ([[1500.0, 1.0]], 2, "ratings must be a flat list"),
    ],
)
def test_bad_arguments_are_named(ratings: object, teams: int, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        balance_teams(ratings, teams)  # type: ignore[arg-type]
