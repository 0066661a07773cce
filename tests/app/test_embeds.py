"""Match embeds fit Discord's limits whatever the match (no bot process: the embeds alone,
checked by the same rules the fake Discord applies)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.app.embeds import leaderboard_footer, match_embed, side_order
from bot.services.standings import LeaderboardPage
from bot.storage.models import Match, MatchStatus, Participant
from tests.app.discord_rules import message_problems

LONGEST_ID = 2**63 - 1  # SPEC 7: user ids are below 2^63
STATUSES: tuple[MatchStatus, ...] = ("pending", "disputed", "applied", "void")


def participant(position: int, side: str, guest: bool, rated: bool) -> Participant:
    """A participant with the longest texts the bounds allow."""
    guest_name = f"{position:02d}" + "g" * 30
    return Participant(
        position=position,
        user_id=None if guest else LONGEST_ID - position,
        guest=guest_name if guest else None,
        name=guest_name if guest else "n" * 32,
        side=side,
        score=123456789.5,
        minutes=1439.99,
        enabled=rated,
        outcome=None,
        rating_before=-999_999.9 if rated else None,
        rating_after=999_999.9 if rated else None,
    )


def worst_match(sides: list[str], status: MatchStatus) -> Match:
    rated = status == "applied" or status == "void"
    players = tuple(
        participant(position, side, guest=position % 3 == 0, rated=rated)
        for position, side in enumerate(sides)
    )
    return Match(
        id=LONGEST_ID,
        guild_id=LONGEST_ID,
        status=status,
        reporter_id=LONGEST_ID,
        created_at=1.7e9,
        played_at=1.7e9,
        applied_at=1.7e9 if rated else None,
        request_id="r",
        channel_id=None,
        message_id=None,
        void_reason="why " * 1000 if status == "void" else None,
        disputed_by=None,
        participants=players,
    )


LAYOUTS = {
    "32-player free-for-all": [str(n) for n in range(1, 33)],
    "16 against 16": ["a"] * 16 + ["b"] * 16,
    "8 sides of 4": [str(n // 4 + 1) for n in range(32)],
    "9 sides (packed)": [str(n % 9 + 1) for n in range(32)],
    "duel": ["1", "2"],
}


@pytest.mark.parametrize("status", STATUSES)
@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
def test_a_match_embed_fits_discord_and_shows_every_participant(
    layout: str, status: MatchStatus
) -> None:
    match = worst_match(LAYOUTS[layout], status)
    embed = match_embed(match).to_dict()
    assert message_problems({"embeds": [embed]}) == []
    shown = "\n".join(field["value"] for field in embed["fields"])
    for player in match.participants:
        who = f"<@{player.user_id}>" if player.user_id is not None else player.name
        assert shown.count(who) == 1, who


def test_sides_are_shown_in_natural_order() -> None:
    match = worst_match([str(n) for n in (10, 2, 1, 3)], "pending")
    names = [field["name"] for field in match_embed(match).to_dict()["fields"]]
    assert names == ["Team A", "Team B", "Team C", "Team J"]
    labels = ["b10", "b2", "a", "10", "9", "B"]
    assert sorted(labels, key=side_order) == ["9", "10", "B", "a", "b2", "b10"]


def test_a_big_free_for_all_lists_places_in_order_packed_into_few_fields() -> None:
    match = worst_match([str(n) for n in range(1, 33)], "applied")
    fields = match_embed(match).to_dict()["fields"]
    assert len(fields) <= 5
    lines = [line for field in fields for line in field["value"].split("\n")]
    letters = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "AB", "AC", "AD", "AE", "AF"]
    assert [line.split(" · ")[0] for line in lines] == [f"**{letter}**" for letter in letters]
    assert fields[0]["name"].startswith("Team A to Team ")


def test_a_guest_name_stored_before_the_name_bound_is_cut_to_fit() -> None:
    match = worst_match([str(n) for n in range(1, 33)], "applied")
    long_names = tuple(
        replace(p, name="g" * 5000) if p.guest is not None else p for p in match.participants
    )
    embed = match_embed(replace(match, participants=long_names)).to_dict()
    assert message_problems({"embeds": [embed]}) == []
    assert "g" * 31 + "…" in embed["fields"][0]["value"]


def test_finding_11_a_void_match_says_its_rating_changes_do_not_count() -> None:
    embed = match_embed(worst_match(["a", "b"], "void")).to_dict()
    moves = [
        line for field in embed["fields"] for line in field["value"].split("\n") if "→" in line
    ]
    assert moves and all(line.endswith("void, not counted") for line in moves)
    applied = match_embed(worst_match(["a", "b"], "applied")).to_dict()
    assert "not counted" not in str(applied["fields"])


def test_finding_11_the_leaderboard_footer_says_where_the_next_page_is() -> None:
    page = LeaderboardPage("ladder", 1, 2, 30, ())
    assert "next: /leaderboard page:2" in leaderboard_footer(page)
    assert "30 players" in leaderboard_footer(page)
    last = LeaderboardPage("ladder", 2, 2, 30, (), season="spring")
    assert "next" not in leaderboard_footer(last)
    assert "page:2 season:spring" in leaderboard_footer(replace(last, page=1))
    assert "1 player ·" in leaderboard_footer(LeaderboardPage("ladder", 1, 1, 1, ()))
    assert "page:2 or the title's web page" in leaderboard_footer(page, on_the_web=True)
