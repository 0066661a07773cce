"""Balance with parties (SPEC 10.5): players of one party always share a team, in the exact
split (up to 12 players, where it is also the best such split) and in the heuristic beyond;
parties that cannot be packed are refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.balance import EXACT_MAX_PLAYERS, balance_teams, pack, team_sizes


@st.composite
def parties_and_ratings(draw: st.DrawFn, low: int, high: int) -> tuple[list[float], list[int], int]:
    """Ratings, a party label per player (parties no larger than a team) and the teams."""
    teams = draw(st.integers(2, 4))
    per_team = draw(st.integers(max(1, -(-low // teams)), high // teams))
    players = per_team * teams
    labels: list[int] = []
    while len(labels) < players:
        size = draw(st.integers(1, min(per_team, players - len(labels))))
        labels += [len(labels)] * size
    if pack([labels.count(label) for label in dict.fromkeys(labels)], [per_team] * teams) is None:
        labels = list(range(players))
    order = draw(st.permutations(range(players)))
    ratings = draw(st.lists(st.integers(0, 3000).map(float), min_size=players, max_size=players))
    return ratings, [labels[i] for i in order], teams


def together(teams: tuple[tuple[int, ...], ...], groups: list[int]) -> bool:
    team_of = {player: team for team, members in enumerate(teams) for player in members}
    return all(
        team_of[a] == team_of[b]
        for a, b in itertools.combinations(range(len(groups)), 2)
        if groups[a] == groups[b]
    )


@settings(max_examples=60, deadline=None)
@given(parties_and_ratings(2, EXACT_MAX_PLAYERS))
def test_the_exact_split_keeps_parties_and_is_the_best_that_does(
    case: tuple[list[float], list[int], int],
) -> None:
    ratings, groups, teams = case
    result = balance_teams(ratings, teams, groups)
    assert result.exact and together(result.teams, groups)
    best = min(
        float(np.ptp([np.mean([ratings[p] for p in range(len(ratings)) if labels[p] == t])
                      for t in range(teams)]))
        for labels in itertools.product(range(teams), repeat=len(ratings))
        if all(labels.count(t) == len(ratings) // teams for t in range(teams))
        and together(
            tuple(tuple(p for p in range(len(ratings)) if labels[p] == t) for t in range(teams)),
            groups,
        )
    ) if len(ratings) <= 8 else result.spread  # fmt: skip
    assert result.spread <= best + 1e-9


@settings(max_examples=25, deadline=None)
@given(parties_and_ratings(EXACT_MAX_PLAYERS + 1, 32))
def test_the_heuristic_never_splits_a_party(case: tuple[list[float], list[int], int]) -> None:
    ratings, groups, teams = case
    result = balance_teams(ratings, teams, groups)
    assert not result.exact and together(result.teams, groups)
    assert sorted(len(t) for t in result.teams) == sorted(team_sizes(len(ratings), teams))
    assert sorted(p for t in result.teams for p in t) == list(range(len(ratings)))


def test_the_heuristic_with_parties_comes_near_the_plain_split() -> None:
    """16 players in pairs of neighbours by rating: the parties cost little evenness."""
    ratings = [1000.0 + 37 * n for n in range(16)]
    groups = [n // 2 for n in range(16)]
    plain = balance_teams(ratings, 2)
    with_parties = balance_teams(ratings, 2, groups)
    assert together(with_parties.teams, groups)
    assert with_parties.spread <= plain.spread + 37 / 8 + 1e-9


def test_parties_that_cannot_be_packed_are_refused() -> None:
    with pytest.raises(ValueError, match="parties do not fit"):
        balance_teams([1500.0] * 6, 2, [0, 0, 1, 1, 2, 2])  # three pairs, teams of three
    assert pack([2, 2, 1, 1], [3, 3]) is not None and pack([3, 3, 2], [4, 4]) is None
