"""Rank roles by rating (SPEC 9.2): the rule, its hysteresis, and the whole-guild sync."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.ranks import NO_ROLE, RankLadder, rank_ladder, rank_role, sync_roles

# Bronze 1000, Silver 1200, Gold 1500 (role ids chosen out of min_rating order).
LADDER = rank_ladder({30: 1500.0, 10: 1000.0, 20: 1200.0}, margin=25.0)


@pytest.mark.parametrize(
    ("rating", "held", "expected"),
    [
        (999.0, None, None),  # below every threshold
        (1000.0, None, 10),  # a threshold is reached at equality
        (1499.9, None, 20),
        (5000.0, None, 30),
        (1190.0, 20, 20),  # within the margin below Silver: kept
        (1175.0, 20, 20),  # exactly min_rating - margin: still kept
        (1174.9, 20, 10),  # below it: the plain rule
        (1300.0, 30, 20),  # far below Gold
        (1500.0, 10, 30),  # qualifying higher moves up at once, past Silver
        (1210.0, 10, 20),
        (900.0, 10, None),  # below Bronze - margin with no lower role
    ],
)
def test_rank_role_keeps_a_held_role_within_the_margin(
    rating: float, held: int | None, expected: int | None
) -> None:
    assert rank_role(LADDER, rating, True, held) == expected


def test_ineligible_members_hold_no_rank_role() -> None:
    assert rank_role(LADDER, 2000.0, False, 30) is None
    assert rank_role(LADDER, None, False, None) is None


@pytest.mark.parametrize(
    ("thresholds", "margin", "message"),
    [
        (
            {1: 1000.0, 2: 1000.0},
            25.0,
            "min_rating 1000.0 of role 2 is already the threshold of role 1",
        ),
        ({1: 1000.0}, -1.0, "rank_margin -1.0 must be a finite number >= 0"),
        ({1: 1000.0}, float("inf"), "rank_margin inf must be a finite number >= 0"),
        ({1: float("nan")}, 0.0, "min_rating nan of role 1 must be finite"),
        ({-5: 1000.0}, 0.0, "role id -5 must be an integer >= 0"),
    ],
)
def test_bad_rank_ladders_are_refused(
    thresholds: dict[int, float], margin: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        rank_ladder(thresholds, margin)


def test_bad_member_input_is_refused() -> None:
    with pytest.raises(ValueError, match="role 99 is not a rank role"):
        rank_role(LADDER, 1000.0, True, 99)
    with pytest.raises(ValueError, match="rating None of an eligible member must be a finite"):
        rank_role(LADDER, None, True, None)
    with pytest.raises(ValueError, match="held_role 99 is not a rank role"):
        sync_roles(LADDER, [1000.0], [True], [0], [99])
    with pytest.raises(ValueError, match="held_member 3 is not a member index"):
        sync_roles(LADDER, [1000.0], [True], [3], [10])
    with pytest.raises(ValueError, match="rating nan of eligible member 0 must be finite"):
        sync_roles(LADDER, [np.nan], [True], [], [])


@st.composite
def ladders(draw: st.DrawFn) -> RankLadder:
    """Up to 5 roles whose thresholds lie more than 2 margins apart."""
    margin = draw(st.floats(0, 100))
    gaps = draw(st.lists(st.floats(2 * margin + 1, 1000), min_size=1, max_size=5))
    base = draw(st.floats(-500, 2000))
    thresholds = np.cumsum([base, *gaps[1:]]).tolist()
    role_ids = draw(
        st.lists(st.integers(0, 2**63 - 1), min_size=len(gaps), max_size=len(gaps), unique=True)
    )
    return rank_ladder(dict(zip(role_ids, thresholds, strict=True)), margin)


@settings(max_examples=200, deadline=None)
@given(ladder=ladders(), data=st.data())
def test_a_rating_hovering_at_a_threshold_flips_the_role_at_most_once(
    ladder: RankLadder, data: st.DataObject
) -> None:
    """Within ±margin of a threshold: the first assignment, then at most one move up (on
    reaching the threshold), never back down."""
    threshold = float(data.draw(st.sampled_from(ladder.min_ratings.tolist())))
    hover = st.floats(threshold - ladder.margin, threshold + ladder.margin)
    ratings = data.draw(st.lists(hover, min_size=2, max_size=30))
    held = rank_role(ladder, ratings[0], True, None)
    history = [held]
    for rating in ratings[1:]:
        held = rank_role(ladder, rating, True, held)
        history.append(held)
    flips = [(a, b) for a, b in pairwise(history) if a != b]
    assert len(flips) <= 1
    top = int(ladder.role_ids[ladder.min_ratings.tolist().index(threshold)])
    assert all(new == top for _, new in flips)


def min_rating_of(ladder: RankLadder, role: int | None) -> float:
    return -np.inf if role is None else float(ladder.min_ratings[ladder.index_of(role)])


@settings(max_examples=200, deadline=None)
@given(ladder=ladders(), low=st.floats(-2000, 6000), high=st.floats(-2000, 6000))
def test_a_higher_rating_never_gives_a_lower_role(
    ladder: RankLadder, low: float, high: float
) -> None:
    low, high = sorted((low, high))
    lower = rank_role(ladder, low, True, None)
    higher = rank_role(ladder, high, True, None)
    assert min_rating_of(ladder, higher) >= min_rating_of(ladder, lower)
    assert min_rating_of(ladder, higher) <= high  # never above the rating without a held role


@settings(max_examples=150, deadline=None)
@given(ladder=ladders(), data=st.data())
def test_sync_roles_equals_the_scalar_rule(ladder: RankLadder, data: st.DataObject) -> None:
    count = data.draw(st.integers(0, 30))
    span = st.floats(float(ladder.min_ratings[0]) - 200, float(ladder.min_ratings[-1]) + 200)
    ratings = np.array(data.draw(st.lists(span, min_size=count, max_size=count)), float)
    eligible = np.array(data.draw(st.lists(st.booleans(), min_size=count, max_size=count)), bool)
    ratings[~eligible & (np.arange(count) % 2 == 0)] = np.nan  # unrated members
    roles = ladder.role_ids.tolist()
    held = data.draw(
        st.lists(st.tuples(st.integers(0, max(count - 1, 0)), st.sampled_from(roles)), unique=True)
        if count
        else st.just([])
    )
    held_member = np.array([m for m, _ in held], dtype=np.int64)
    held_role = np.array([r for _, r in held], dtype=np.int64)
    changes = sync_roles(ladder, ratings, eligible, held_member, held_role)
    for member in range(count):
        mine = [r for m, r in held if m == member]
        highest = max(mine, key=lambda role: min_rating_of(ladder, role), default=None)
        rating = float(ratings[member]) if eligible[member] else None
        expected = rank_role(ladder, rating, bool(eligible[member]), highest)
        assert changes.target[member] == (NO_ROLE if expected is None else expected)
        # Applying the changes leaves exactly the target role.
        removed = set(changes.remove_role[changes.remove_member == member].tolist())
        added = set(changes.add_role[changes.add_member == member].tolist())
        assert removed <= set(mine) and not added & set(mine)
        assert (set(mine) - removed) | added == (set() if expected is None else {expected})


def test_sync_roles_removes_drifted_extra_roles() -> None:
    changes = sync_roles(
        LADDER,
        ratings=[1250.0, 1000.0, np.nan],
        eligible=[True, True, False],
        held_member=[0, 0, 1, 2],
        held_role=[10, 20, 10, 30],
    )
    assert changes.target.tolist() == [20, 10, NO_ROLE]
    assert list(zip(changes.remove_member.tolist(), changes.remove_role.tolist(), strict=True)) == [
        (0, 10),
        (2, 30),
    ]
    assert changes.add_member.size == 0


def test_a_guild_without_rank_roles_gives_none() -> None:
    empty = rank_ladder({}, 25.0)
    assert rank_role(empty, 1234.0, True, None) is None
    changes = sync_roles(empty, [1234.0, np.nan], [True, False], [], [])
    assert changes.target.tolist() == [NO_ROLE, NO_ROLE]
    assert changes.add_member.size == changes.remove_member.size == 0
