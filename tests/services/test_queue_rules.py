"""The queue rules that need no database: settings, teams, captains' picks, maps (SPEC 10)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.services.errors import UserError
from bot.services.queue_rules import (
    PICK_SECONDS,
    balanced,
    chances,
    checked_settings,
    draw_map,
    parse_maps,
    pick,
    picking_team,
    random_split,
    result_lineup,
    snake,
    with_captains,
)
from bot.storage.queues import LobbyPlayer, QueueSettings


def players(ratings: list[float]) -> list[LobbyPlayer]:
    return [LobbyPlayer(100 + index, index, rating) for index, rating in enumerate(ratings)]


def test_default_pick_order_is_the_snake_of_the_teams() -> None:
    assert checked_settings(QueueSettings("q", 1, 4), False).pick_order == "abba"
    assert checked_settings(QueueSettings("q", 1, 6, teams=3), False).pick_order == "abccba"
    assert snake(4) == "abcddcba"
    assert checked_settings(QueueSettings("q", 1, 4, pick_order="AB"), True).pick_order == "ab"
    assert PICK_SECONDS == 60


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (QueueSettings("", 1, 4), "queue name '' must be 1 to 32"),
        (QueueSettings("x" * 33, 1, 4), "must be 1 to 32 printable"),
        (QueueSettings("q", 1, 1), "size 1 must be from 2 to 32"),
        (QueueSettings("q", 1, 33), "size 33 must be from 2 to 32"),
        (QueueSettings("q", 1, 5), "size 5 must be a multiple of teams (2)"),
        (QueueSettings("q", 1, 4, teams=5), "teams 5 must be from 2 to 4"),
        (QueueSettings("q", 1, 4, ready_seconds=601), "ready_seconds 601 must be from 0 to 600"),
        (QueueSettings("q", 1, 4, expire_minutes=0), "expire_minutes 0 must be from 1 to 1440"),
        (QueueSettings("q", 1, 4, pick_order="aab"), None),
        (QueueSettings("q", 1, 4, pick_order="aaa"), "pick_order 'aaa' must be"),
        (QueueSettings("q", 1, 4, pick_order="abc"), "naming every team (a, b)"),
    ],
)
def test_settings_refused_with_what_is_wrong(settings: QueueSettings, message: str | None) -> None:
    if message is None:
        assert checked_settings(settings, True).pick_order == "aab"
        return
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        checked_settings(settings, True)


def test_ffa_size_need_not_divide_by_teams() -> None:
    assert checked_settings(QueueSettings("q", 1, 5, format="ffa"), False).size == 5


def test_maps_parsed_and_bounded() -> None:
    assert parse_maps(" dust, nuke ,inferno") == ("dust", "nuke", "inferno")
    assert parse_maps("  ") == ()
    with pytest.raises(UserError, match="26 maps: a queue has at most 25"):
        parse_maps(",".join(f"m{i}" for i in range(26)))
    with pytest.raises(UserError, match="listed twice"):
        parse_maps("a,A")
    with pytest.raises(UserError, match="map '' must be"):
        parse_maps("a,,b")


def test_map_never_repeats_with_two_or_more() -> None:
    rng = random.Random(1)
    drawn = Counter(draw_map(["a", "b", "c"], "a", rng) for _ in range(600))
    assert set(drawn) == {"b", "c"} and min(drawn.values()) > 240
    assert draw_map(["a"], "a", rng) == "a"
    assert draw_map([], None, rng) is None


def test_balance_makes_the_most_even_teams_with_chances() -> None:
    teamed = balanced(players([1800, 1700, 1500, 1400]), 2)
    teams = {p.user_id: p.team for p in teamed}
    assert teams[100] == teams[103] and teams[101] == teams[102] and teams[100] != teams[101]
    a, b = chances(teamed, 2)
    assert a == pytest.approx(0.5) and a + b == pytest.approx(1.0)


@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 2), (6, 3), (8, 4), (32, 2)]))
def test_random_split_is_equal_and_repeatable(seed: int, shape: tuple[int, int]) -> None:
    count, teams = shape
    lobby = players([1500.0] * count)
    split = random_split(lobby, teams, seed)
    assert Counter(p.team for p in split) == dict.fromkeys(range(teams), count // teams)
    assert split == random_split(lobby, teams, seed)


def test_random_split_is_uniform_enough() -> None:
    """Every player lands on team A about half the time over many seeds."""
    on_a = Counter(
        p.user_id
        for seed in range(2000)
        for p in random_split(players([0.0] * 4), 2, seed)
        if p.team == 0
    )
    assert all(900 < on_a[100 + index] < 1100 for index in range(4))


def test_captains_pick_in_snake_order_and_the_last_is_placed() -> None:
    lobby = with_captains(players([1500, 1900, 1600, 1800, 1400, 1700, 1300, 1200]), 2)
    captains = {p.user_id: p.team for p in lobby if p.captain}
    assert captains == {101: 0, 103: 1}  # the two highest: A is the highest
    turns = []
    while (team := picking_team(lobby, 2, "abba")) is not None:
        turns.append(team)
        lobby = pick(lobby, 2, "abba", None)  # auto-pick: the highest-rated left
    assert turns == [0, 1, 1, 0, 0]  # a b b a a, then the last one is placed
    teams = {p.user_id: p.team for p in lobby}
    assert teams[105] == 0 and teams[102] == 1 and teams[100] == 1 and teams[104] == 0
    assert Counter(teams.values()) == {0: 4, 1: 4}
    assert sorted(p.pick for p in lobby if p.pick is not None) == [0, 1, 2, 3, 4]


def test_a_full_team_passes_its_turn() -> None:
    lobby = with_captains(players([1600, 1500, 1400, 1300, 1200, 1100]), 3)
    order = "aabc"
    lobby = pick(lobby, 3, order, 103)  # a
    assert picking_team(lobby, 3, order) == 1  # a is full: the turn passes to b
    lobby = pick(lobby, 3, order, 105)
    assert picking_team(lobby, 3, order) is None  # the last one went to c unpicked
    assert {p.user_id: p.team for p in lobby}[104] == 2


def test_result_lineup_scores_by_spec_2_4() -> None:
    teamed = [replace(p, team=p.position % 2) for p in players([0, 0, 0, 0])]
    lineup = result_lineup(teamed, 1)
    assert [(e.player.user_id, e.side, e.score) for e in lineup] == [
        (100, "A", 0.0), (101, "B", 1.0), (102, "A", 0.0), (103, "B", 1.0)
    ]  # fmt: skip
    assert {e.score for e in result_lineup(teamed, None)} == {0.0}
    ffa = result_lineup(players([0, 0, 0]), None, [102, 100, 101])
    assert [(e.player.user_id, e.side, e.score) for e in ffa] == [
        (102, "1", 2.0), (100, "2", 1.0), (101, "3", 0.0)
    ]  # fmt: skip
