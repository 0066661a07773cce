"""The lineup text of SPEC 4 and the score-less reports of SPEC 2.4."""

from __future__ import annotations

from bot.services import (
    LineupEntry,
    Player,
    duel_lineup,
    ffa_lineup,
    parse_lineup,
    parse_team,
    team_lineup,
)


def test_spec_example_lineup() -> None:
    assert parse_lineup("<@1> 1200 18, <@2> 900 | <@3> 1500, guest_bob 300 12") == (
        LineupEntry(Player(user_id=1), "1", 1200.0, 18.0),
        LineupEntry(Player(user_id=2), "1", 900.0, None),
        LineupEntry(Player(user_id=3), "2", 1500.0, None),
        LineupEntry(Player(guest="guest_bob"), "2", 300.0, 12.0),
    )


def test_without_bars_everyone_is_a_side() -> None:
    lineup = parse_lineup("<@!1> 3, <@2> 2, bob 1")
    assert [e.side for e in lineup] == ["1", "2", "3"]
    assert lineup[0].player == Player(user_id=1)


def test_score_less_reports() -> None:
    a, b, c = Player(user_id=1), Player(user_id=2), Player(guest="g")
    assert [(e.score, e.side) for e in duel_lineup(a, b)] == [(1.0, "1"), (0.0, "2")]
    assert [e.score for e in duel_lineup(a, b, draw=True)] == [0.0, 0.0]
    assert [e.score for e in ffa_lineup([a, b, c], minutes=7)] == [2.0, 1.0, 0.0]
    assert {e.minutes for e in ffa_lineup([a, b], minutes=7)} == {7}
    team = team_lineup([a, c], [b], "b")
    assert [(e.side, e.score) for e in team] == [("a", 0.0), ("a", 0.0), ("b", 1.0)]
    assert [e.score for e in team_lineup([a], [b], "draw")] == [0.0, 0.0]


def test_team_text() -> None:
    assert parse_team("<@1><@!2>, bob  carol") == (
        Player(user_id=1),
        Player(user_id=2),
        Player(guest="bob"),
        Player(guest="carol"),
    )
