"""The import's bulk build (imported_columns) against a report's (check_lineup and
build_participants, match by match): the same stored participants and records, or the same
refusal of the same first match."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import UserError
from bot.services.lineup import LineupEntry, Player
from bot.services.matchcsv.building import imported_columns
from bot.services.matchcsv.parsed import CsvMatch, CsvMatches
from bot.services.matches import build_participants, check_lineup
from bot.storage import Member, NewMatchColumns, NewParticipant

SETTINGS = GuildSettings()
MEMBER_IDS = range(1, 9)


@st.composite
def members(draw: st.DrawFn) -> dict[int, Member]:
    """Members 1-8, some opted out, now and then a bot."""
    return {
        user_id: Member(
            1,
            user_id,
            str(user_id),
            draw(st.integers(0, 15)) == 0,
            draw(st.integers(0, 5)) > 0,
            None,
            0,
            0,
            0,
            0,
        )
        for user_id in MEMBER_IDS
    }


@st.composite
def matches(draw: st.DrawFn) -> list[CsvMatch]:
    """1-6 matches of 2-6 seats (members and guests, now and then one twice), sides drawn
    from a few labels, scores with ties."""
    made = []
    for number in range(draw(st.integers(1, 6))):
        seats = draw(st.integers(2, 6))
        players = draw(
            st.lists(
                st.one_of(
                    st.sampled_from(MEMBER_IDS).map(lambda user_id: Player(user_id=user_id)),
                    st.sampled_from(["bob", "eve"]).map(lambda name: Player(guest=name)),
                ),
                min_size=seats,
                max_size=seats,
            )
        )
        entries = tuple(
            LineupEntry(
                player,
                draw(st.sampled_from(["a", "b", "c"])),
                float(draw(st.integers(0, 3))),
                float(draw(st.sampled_from([5, 20]))),
            )
            for player in players
        )
        made.append(CsvMatch(f"m{number}", number + 2, 1e9 + number, entries))
    return made


def as_built(
    parsed: CsvMatches, known: dict[int, Member]
) -> list[tuple[NewParticipant, ...]] | str:
    """What a report builds of each match, or the first refusal as an import words it."""
    built = []
    for match in range(len(parsed)):
        entries = parsed.entries(match)
        try:
            check_lineup(entries, None)
            built.append(build_participants(entries, known, SETTINGS, None))
        except UserError as error:
            return f"line {parsed.lines[match]} (match {parsed.labels[match]!r}): {error}"
    return built


def participants_of(columns: NewMatchColumns) -> list[tuple[NewParticipant, ...]]:
    firsts = columns.firsts.tolist()
    return [
        tuple(
            NewParticipant(
                int(columns.user_ids[row]) or None,
                columns.guests[row],
                columns.sides[row],
                float(columns.scores[row]),
                float(columns.minutes[row]),
                bool(columns.enabled[row]),
                columns.outcomes[row],
            )
            for row in range(start, stop)
        )
        for start, stop in pairwise(firsts)
    ]


@settings(max_examples=300, deadline=None)
@given(known=members(), drawn=matches())
def test_imported_columns_build_what_a_report_builds(
    known: dict[int, Member], drawn: list[CsvMatch]
) -> None:
    parsed = CsvMatches.of(drawn)
    expected = as_built(parsed, known)
    try:
        columns = imported_columns(parsed, known, SETTINGS, 5.0, "batch")
    except UserError as refusal:
        assert str(refusal) == expected
        return
    assert participants_of(columns) == expected
    assert columns.request_ids == [f"import:batch:{label}" for label in parsed.labels]
    assert columns.import_keys == parsed.labels
