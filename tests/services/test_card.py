"""The player card (SPEC 9.5) against a plain recomputation from the log, and name learning."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.present.words import rating_move
from bot.services import Actor, LineupEntry, MemberInfo, Player, ServiceContext, Services, UserError
from bot.services.card import ordinal
from bot.storage import Database, Match
from tests.services.conftest import Clock
from tests.storage.reads import applied_matches

GUILD = 4
MOD = Actor(999, is_moderator=True)
USERS = st.integers(1, 6)
LETTER = {"win": "W", "draw": "D", "loss": "L"}
PLACES = ["1st", "2nd", "3rd", "4th", "5th", "6th"]


@st.composite
def lineups(draw: st.DrawFn) -> tuple[LineupEntry, ...]:
    users = draw(st.lists(USERS, min_size=2, max_size=6, unique=True))
    sides = draw(st.sampled_from(["duel", "teams", "ffa"]))
    users = users[:2] if sides == "duel" else users
    return tuple(
        LineupEntry(
            Player(user_id=user),
            str(i if sides != "teams" else i % draw(st.integers(2, 3))),
            float(draw(st.integers(0, 4))),
            None,
        )
        for i, user in enumerate(users)
    )


def _rated(match: Match, user_id: int) -> bool:
    return any(p.user_id == user_id and p.rating_after is not None for p in match.participants)


def _expected_result(match: Match, user_id: int) -> str:
    """W/D/L of the record with two sides; else the side's place by total score."""
    totals: dict[str, float] = {}
    for p in match.participants:
        totals[p.side] = totals.get(p.side, 0.0) + p.score
    own = next(p for p in match.participants if p.user_id == user_id)
    if len(totals) == 2:
        assert own.outcome is not None
        return LETTER[own.outcome]
    ranking = sorted(totals.values(), reverse=True)
    return f"{PLACES[ranking.index(totals[own.side])]}/{len(totals)}"


async def _scenario(
    path: Path, matches: list[tuple[LineupEntry, ...]], voids: list[int], provisional: int
) -> None:
    db = await Database.open(path)
    services = Services.build(
        ServiceContext(db, GuildSettings(provisional_games=provisional), clock=Clock())
    )
    try:
        for number, lineup in enumerate(matches):
            await services.matches.report(GUILD, MOD, lineup, request_id=f"r{number}")
        for match_id in voids:
            with contextlib.suppress(UserError):
                await services.matches.void(GUILD, MOD, match_id)
        log = await applied_matches(db.read, GUILD)
        board = {
            row.user_id: row
            for row in (await services.standings.leaderboard(GUILD, page_size=0)).rows
        }
        for user_id in {p.user_id for m in matches for p in (e.player for e in m)}:
            assert user_id is not None
            card = await services.standings.rating_card(GUILD, user_id)
            played = [m for m in log if _rated(m, user_id)]
            own = [next(p for p in m.participants if p.user_id == user_id) for m in played]
            assert card.stats.games == len(played) == card.games
            assert card.provisional == (len(played) < provisional)
            if user_id in board:
                assert board[user_id].provisional == card.provisional
            if not played:
                assert card.stats.peak is None and card.stats.streak is None
                assert card.stats.form == () and card.stats.win_rate is None
                continue
            befores = [p.rating_before for p in own]
            afters = [p.rating_after for p in own]
            assert None not in [befores[0], *afters]
            assert card.stats.peak == max(r for r in [befores[0], *afters] if r is not None)
            assert card.stats.history[-1].rating == card.rating
            letters = [LETTER[p.outcome] for p in own if p.outcome is not None]
            last, run = next(
                (letter, len(list(group))) for letter, group in itertools.groupby(reversed(letters))
            )
            assert card.stats.streak == f"{last}{run}"
            assert card.stats.win_rate == letters.count("W") / len(letters)
            recent = list(reversed(played))[:5]
            assert [e.match_id for e in card.stats.form] == [m.id for m in recent]
            assert [e.result for e in card.stats.form] == [
                _expected_result(m, user_id) for m in recent
            ]
            for entry, p in zip(card.stats.form, reversed(own), strict=False):
                assert (entry.rating_before, entry.rating_after) == (
                    p.rating_before,
                    p.rating_after,
                )
    finally:
        await db.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(lineups(), min_size=1, max_size=12),
    st.lists(st.integers(1, 12), max_size=3),
    st.integers(0, 8),
)
def test_card_equals_a_plain_recomputation_from_the_log(
    matches: list[tuple[LineupEntry, ...]], voids: list[int], provisional: int
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(_scenario(Path(directory) / "card.sqlite3", matches, voids, provisional))


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 32)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "32nd"
    ]  # fmt: skip


@given(st.floats(-1e4, 1e4), st.floats(-1e4, 1e4))
def test_rating_move_adds_up_as_shown(before: float, after: float) -> None:
    shown = rating_move(before, after)
    left, rest = shown.split(" → ")
    right, change = rest.split(" (")
    assert round(float(right) - float(left), 1) == float(change.rstrip(")"))
    assert shown.startswith(f"{before:.1f} → {after:.1f} (")


async def test_imported_members_take_the_names_discord_shows(services: Services) -> None:
    csv = "match,played_at,side,player,score,minutes\n1,2023-01-01T00:00:00Z,a,5135,1,10\n"
    csv += "1,2023-01-01T00:00:00Z,b,5136,0,10\n"
    await services.transfers.import_csv(GUILD, MOD, csv)
    assert [row.name for row in (await services.standings.leaderboard(GUILD)).rows] == [
        "5135",
        "5136",
    ]
    seen = [MemberInfo(5135, "Alice"), MemberInfo(77, "stranger")]
    assert await services.members.learn_names(GUILD, seen) == 1
    assert await services.members.learn_names(GUILD, seen) == 0  # nothing changed: nothing written
    assert [row.name for row in (await services.standings.leaderboard(GUILD)).rows] == [
        "Alice",
        "5136",
    ]
    assert await services.context.db.read.member(GUILD, 77) is None  # seen, never played: not added
    (match,) = await services.matches.list_matches(GUILD)
    assert sorted(p.name for p in match.participants) == ["5136", "Alice"]


async def test_provisional_games_is_a_setting_from_0_to_1000(services: Services) -> None:
    for bad in (-1, 1001, 2.5, "many"):
        with pytest.raises(UserError, match=r"provisional_games: must be a whole number from 0"):
            await services.settings.change(GUILD, MOD, {"provisional_games": bad})
    assert (await services.settings.current(GUILD)).provisional_games == 5
    for good in (0, 1000):
        result = await services.settings.change(GUILD, MOD, {"provisional_games": good})
        assert result.settings.provisional_games == good and result.replayed is None
