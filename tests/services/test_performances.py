"""A guild's measures computed together (bot.services.performances.measured: blocks of
members in threads) against each member's own game list by the literal model."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.ratings.performance import rating_accuracy, stability
from bot.services import performances
from bot.storage import PlayedColumns
from tests.ratings.reference_games import MatchRecord
from tests.ratings.test_games import BRIDGE, USER_IDS, applied_matches, reference_game_lists


def played_columns(matches: list[MatchRecord]) -> PlayedColumns:
    entries = [(match, p) for match in matches for p in match.participants]
    sides: dict[tuple[int, object], int] = {}
    return PlayedColumns(
        np.array([match.match_id for match, _ in entries], dtype=np.int64),
        np.array([match.played_at.timestamp() for match, _ in entries], dtype=np.float64),
        np.array([p.user_id for _, p in entries], dtype=np.int64),
        np.array(
            [sides.setdefault((match.match_id, p.side), len(sides)) for match, p in entries],
            dtype=np.int64,
        ),
        np.array([p.score for _, p in entries], dtype=np.float64),
        np.array([p.minutes for _, p in entries], dtype=np.float64),
        np.array([p.rating_before for _, p in entries], dtype=np.float64),
    )


@settings(max_examples=60, deadline=None)
@given(applied_matches(), st.integers(1, 40))
def test_measured_in_blocks_equals_each_members_own_list(
    matches: list[MatchRecord], pairs: int
) -> None:
    """Blocks of a few candidate pairs (most members alone in theirs, computed two at a
    time) give every member (some without a match) what their own game list gives."""
    members = list(USER_IDS)
    with mock.patch.object(performances, "BLOCK_PAIRS", pairs):
        found = performances.measured(played_columns(matches), members, ["p8", "ra"], BRIDGE)
    for member, games in zip(members, reference_game_lists(matches, members), strict=True):
        alone = stability(games, "p8")
        expected = (
            float(BRIDGE.from_elo(alone.rating)),
            alone.up * BRIDGE.points_per_elo,
            alone.down * BRIDGE.points_per_elo,
        )
        p8 = found[member, "p8"]
        assert (p8.value, p8.up, p8.down) == pytest.approx(expected, abs=1e-6)
        assert found[member, "ra"].value == pytest.approx(rating_accuracy(games))


@settings(max_examples=40, deadline=None)
@given(applied_matches(), st.integers(1, 40), st.sampled_from(["p1", "p5", "p8", "ra"]))
def test_a_boards_ranking_values_are_the_measures_bit_for_bit(
    matches: list[MatchRecord], pairs: int, measure: str
) -> None:
    """What a leaderboard ranks by (the values without their stability) is exactly the
    value the cache fill stores after it."""
    members = list(USER_IDS)
    played = played_columns(matches)
    with mock.patch.object(performances, "BLOCK_PAIRS", pairs):
        values = performances.ranking_values(played, members, measure, BRIDGE)
        found = performances.measured(played, members, [measure], BRIDGE)
    assert np.array_equal(
        values, [found[member, measure].value for member in sorted(members)], equal_nan=True
    )
