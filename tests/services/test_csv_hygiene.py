"""CSV hygiene (SPEC 5 and 7): what an import accepts, what it refuses (naming the line, in
one line, changing nothing), and an export that no spreadsheet runs and that imports back to
the same ratings."""

from __future__ import annotations

import asyncio
import csv
import io
import math
import shutil
import sqlite3
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, UserError, parse_lineup
from bot.services.errors import quoted
from bot.services.matchcsv.export import export_matches
from bot.services.matchcsv.format import format_time, neutralised, unmarked
from bot.storage import Database, Match, Participant
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth

Result = TypeVar("Result")

GUILD = 5
COPY = 6
MOD = Actor(999, is_moderator=True)
HEADER = "match,played_at,side,player,score,minutes"


def csv_bytes(*rows: str, header: str = HEADER, end: str = "\n") -> bytes:
    return end.join((header, *rows, "")).encode()


def dump(path: Path) -> list[str]:
    """Every table of the database file (schema and rows; the performance cache too)."""
    with sqlite3.connect(path) as connection:
        return list(connection.iterdump())


async def ratings(services: Services, guild_id: int) -> dict[int, float | None]:
    return {m.user_id: m.rating for m in await services.context.db.read.members(guild_id)}


async def refused(services: Services, path: Path, data: bytes | str) -> str:
    """The refusal of importing `data`: one line, and the database unchanged."""
    before = dump(path)
    with pytest.raises(UserError) as refusal:
        await services.transfers.import_csv(GUILD, MOD, data)
    assert "\n" not in str(refusal.value)
    assert dump(path) == before
    return str(refusal.value)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "ladder.sqlite3"


# --- regressions (issue 8) -------------------------------------------------------------------


@pytest.mark.parametrize("played_at", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"])
async def test_played_at_beyond_the_calendar_is_refused_with_its_line(
    services: Services, db_path: Path, played_at: str
) -> None:
    data = csv_bytes("m1,2023-01-01T00:00:00Z,a,1,3,20", f"m2,{played_at},a,1,3,20")
    message = await refused(services, db_path, data)
    assert message.startswith(f"line 3: played_at {quoted(played_at)}")


@pytest.mark.parametrize(
    ("played_at", "accepted"),
    [
        ("1969-12-31T23:59:59Z", False),
        ("1970-01-01T00:00:00Z", True),
        ("1970-01-01T01:00:00+01:00", True),
        (format_time(Clock().now + 86_400), True),
        (format_time(Clock().now + 86_401), False),
    ],
)
async def test_played_at_runs_from_1970_to_one_day_after_now(
    services: Services, db_path: Path, played_at: str, accepted: bool
) -> None:
    data = csv_bytes(f"m1,{played_at},a,1,3,20", f"m1,{played_at},b,2,1,20")
    if accepted:
        assert (await services.transfers.import_csv(GUILD, MOD, data)).matches == 1
    else:
        assert "must be an ISO-8601 time from 1970-01-01" in await refused(services, db_path, data)


async def test_played_at_with_a_zone_is_stored_in_utc(services: Services) -> None:
    data = csv_bytes(
        *(f"m1,2023-01-01T02:00:00+02:00,{s},{u},1,20" for s, u in (("a", 1), ("b", 2)))
    )
    await services.transfers.import_csv(GUILD, MOD, data)
    assert (await services.transfers.export_csv(GUILD)).splitlines()[1].split(",")[
        1
    ] == "2023-01-01T00:00:00Z"


@pytest.mark.parametrize(
    "moment", [253_402_343_999.0, -62_135_647_200.0, 1e300, -1e300, math.inf, math.nan]
)
def test_format_time_writes_a_moment_no_calendar_shows_as_its_number(moment: float) -> None:
    assert format_time(moment) == repr(moment)


@pytest.mark.parametrize("score", ["1e308", "nan", "inf", "-inf", "-1", "1e999", "0x10", ""])
async def test_score_out_of_bounds_is_refused_with_its_line(
    services: Services, db_path: Path, score: str
) -> None:
    data = csv_bytes("m1,2023-01-01,a,1,3,20", f"m1,2023-01-01,b,2,{score},20")
    message = await refused(services, db_path, data)
    assert message.startswith(f"line 3: score {quoted(score)} must be")


async def test_score_minus_zero_is_read_as_zero(services: Services) -> None:
    await services.transfers.import_csv(
        GUILD, MOD, csv_bytes("m1,2023-01-01,a,1,1,20", "m1,2023-01-01,b,2,-0,20")
    )
    assert [
        row.split(",")[4] for row in (await services.transfers.export_csv(GUILD)).splitlines()[1:]
    ] == [
        "1.0",
        "0.0",
    ]


@pytest.mark.parametrize(
    "player", ["9223372036854775808", "99999999999999999999", "0", "²", "١٢", "1" * 5000]
)
async def test_player_id_out_of_bounds_is_refused_with_its_line(
    services: Services, db_path: Path, player: str
) -> None:
    data = csv_bytes("m1,2023-01-01,a,1,3,20", f"m1,2023-01-01,b,{player},1,20")
    message = await refused(services, db_path, data)
    assert message.startswith(f"line 3: player {quoted(player)} must be")


async def test_largest_player_id_is_accepted(services: Services) -> None:
    top = 2**63 - 1
    await services.transfers.import_csv(
        GUILD, MOD, csv_bytes("m1,2023-01-01,a,1,3,20", f"m1,2023-01-01,b,{top},1,20")
    )
    assert set(await ratings(services, GUILD)) == {1, top}


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
async def test_utf8_with_or_without_bom_and_any_line_end_is_read(
    services: Services, end: str, bom: bytes
) -> None:
    data = bom + csv_bytes(
        "m1,2023-01-01,a,1,3,20",
        'm1,2023-01-01,"b,c",2,1,20',
        "m1,2023-01-01,a,~Zoë,2,20",
        "m2,2023-01-02,a,2,1,20",
        "m2,2023-01-02,b,1,0,20",
        end=end,
    )
    assert (await services.transfers.import_csv(GUILD, MOD, data)).matches == 2
    assert (await services.transfers.import_csv(COPY, MOD, data.decode("utf-8-sig"))).matches == 2
    assert await ratings(services, GUILD) == await ratings(services, COPY)
    assert '"b,c",2' in await services.transfers.export_csv(GUILD)
    assert ",a,~Zoë," in await services.transfers.export_csv(GUILD)


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
async def test_non_utf8_bytes_are_refused_with_their_line(
    services: Services, db_path: Path, end: str
) -> None:
    data = csv_bytes("m1,2023-01-01,a,1,3,20", "m1,2023-01-01,b\xff,2,1,20", end=end)
    data = data.replace("ÿ".encode(), b"\xff")
    message = await refused(services, db_path, data)
    assert message == "line 3: the bytes b'\\xff' are not UTF-8; save the file as UTF-8"


async def test_lone_surrogates_in_text_are_refused_as_not_utf8(
    services: Services, db_path: Path
) -> None:
    text = csv_bytes("m1,2023-01-01,a,1,3,20").decode() + "m1,2023-01-01,b\udcff,2,1,20\n"
    assert (await refused(services, db_path, text)).startswith("line 3: the bytes")


async def test_a_malformed_csv_line_is_refused_with_its_line(
    services: Services, db_path: Path
) -> None:
    huge = "x" * 200_000
    data = csv_bytes("m1,2023-01-01,a,1,3,20", f"m1,2023-01-01,{huge},2,1,20")
    assert (await refused(services, db_path, data)).startswith("line 3: field larger than")


async def test_rows_of_one_match_with_different_times_are_refused(
    services: Services, db_path: Path
) -> None:
    data = csv_bytes("m1,2023-01-01T00:00:00Z,a,1,3,20", "m1,2023-01-01T00:00:01Z,b,2,1,20")
    message = await refused(services, db_path, data)
    assert message.startswith("line 3: match 'm1' has played_at '2023-01-01T00:00:01Z'")
    assert "first row (line 2)" in message


async def test_rows_of_one_match_with_one_time_in_two_zones_are_one_match(
    services: Services,
) -> None:
    data = csv_bytes("m1,2023-01-01T00:00:00Z,a,1,3,20", "m1,2023-01-01T01:00:00+01:00,b,2,1,20")
    assert (await services.transfers.import_csv(GUILD, MOD, data)).matches == 1


async def test_one_player_twice_in_one_match_is_refused(services: Services, db_path: Path) -> None:
    data = csv_bytes("m1,2023-01-01,a,1,3,20", "m1,2023-01-01,b,2,1,20", "m1,2023-01-01,b,1,0,20")
    message = await refused(services, db_path, data)
    assert message == "line 2 (match 'm1'): <@1> appears twice in the match; list every player once"


async def test_rows_of_one_match_with_different_statuses_are_refused(
    services: Services, db_path: Path
) -> None:
    data = csv_bytes(
        "m1,2023-01-01,a,1,3,20,applied",
        "m1,2023-01-01,b,2,1,20,void",
        header=HEADER + ",status",
    )
    message = await refused(services, db_path, data)
    assert message.startswith("line 3: match 'm1' has status 'void'")


async def test_an_unknown_status_is_refused(services: Services, db_path: Path) -> None:
    data = csv_bytes("m1,2023-01-01,a,1,3,20,aplied", header=HEADER + ",status")
    assert (await refused(services, db_path, data)).startswith("line 2: status 'aplied' must be")


# --- control characters and the label's bound (issue 17) ------------------------------------


async def assert_refused_leaving_the_guild_as_it_was(services: Services, data: str) -> str:
    """The refusal of importing `data` (one line) on either engine, nothing stored."""
    before = await matches_of(services, GUILD), await ratings(services, GUILD)
    with pytest.raises(UserError) as refusal:
        await services.transfers.import_csv(GUILD, MOD, data)
    assert "\n" not in str(refusal.value)
    assert (await matches_of(services, GUILD), await ratings(services, GUILD)) == before
    return str(refusal.value)


def quoted_rows(*rows: list[str]) -> str:
    """Rows as CSV, every cell holding a CR or LF quoted (csv.writer quotes the characters
    of its line end only)."""
    text = io.StringIO()
    csv.writer(text, lineterminator="\r\n").writerows([HEADER.split(","), *rows])
    return text.getvalue()


@pytest.mark.parametrize("label", ["x\r=1+2", "x\n=1+2", "x\x00y", "a" * 2700, "a" * 65])
async def test_a_label_with_cr_lf_nul_or_over_64_characters_is_refused_with_its_line(
    services: Services, label: str
) -> None:
    data = quoted_rows(
        ["ok", "2023-01-01", "a", "1", "3", "20"],
        [label, "2023-01-02", "a", "1", "3", "20"],
        [label, "2023-01-02", "b", "2", "1", "20"],
    )
    message = await assert_refused_leaving_the_guild_as_it_was(services, data)
    assert message.startswith(f"line 3: match label {quoted(label)} must be 1 to 64 printable")


async def test_a_label_with_a_nul_is_refused_again_on_a_second_import(services: Services) -> None:
    data = quoted_rows(["m\x00", "2023-01-01", "a", "1", "3", "20"])
    first = await assert_refused_leaving_the_guild_as_it_was(services, data)
    assert await assert_refused_leaving_the_guild_as_it_was(services, data) == first


async def test_a_label_of_64_printable_characters_is_imported_and_exported_back(
    services: Services,
) -> None:
    label = "Zoë's final, game 1 " + "x" * 44
    data = quoted_rows(
        [label, "2023-01-01", "a", "1", "3", "20"], [label, "2023-01-01", "b", "2", "1", "20"]
    )
    assert (await services.transfers.import_csv(GUILD, MOD, data)).matches == 1
    exported = await services.transfers.export_csv(GUILD)
    assert [row["match"] for row in csv.DictReader(io.StringIO(exported))] == [label, label]
    assert (await services.transfers.import_csv(GUILD, MOD, exported)).skipped == 1


def stored_match(import_key: str) -> Match:
    """A match as an old database may hold it: imported before labels had bounds."""
    participants = tuple(
        Participant(n, n + 1, None, "", side, 1.0, 20.0, True, "win", 500.0, 501.0)
        for n, side in enumerate("ab")
    )
    return Match(
        1,
        GUILD,
        "applied",
        None,
        0.0,
        0.0,
        0.0,
        "r",
        None,
        None,
        None,
        None,
        participants,
        import_key,
    )


@pytest.mark.parametrize("label", ["x\r=1+2", "x\n=1+2", "x\r\n=1", "\r=1"])
def test_a_carriage_return_in_a_label_is_exported_quoted(label: str) -> None:
    """csv.reader, like a spreadsheet, ends a row at a bare CR outside quotes: the label
    stays one cell of one row (unquoted, `=1+2` started a row of its own)."""
    exported = export_matches([stored_match(label)])
    rows = list(csv.reader(io.StringIO(exported, newline="")))
    assert [len(row) for row in rows] == [9, 9, 9]
    assert [row[0] for row in rows[1:]] == [neutralised(label)] * 2


@pytest.mark.parametrize("control", ["\r", "\n", "\x00"])
async def test_cr_lf_or_nul_in_any_cell_is_refused_or_stored_without_it(
    services: Services, control: str
) -> None:
    """On both engines (PostgreSQL refuses NUL in text): every cell of a row in turn, at its
    start, middle and end, quoted."""
    row = ["m1", "2023-01-01T00:00:00Z", "b", "2", "1", "20"]
    for guild_id, (column, at) in enumerate(
        ((column, at) for column in range(len(row)) for at in (0, 1, -1)), start=100
    ):
        cell = row[column]
        hurt = [*row]
        hurt[column] = cell[:at] + control + cell[at:] if at != -1 else cell + control
        data = quoted_rows(["m1", "2023-01-01T00:00:00Z", "a", "1", "3", "20"], hurt)
        try:
            await services.transfers.import_csv(guild_id, MOD, data)
        except UserError as refusal:
            assert str(refusal).startswith("line ")
            assert "\n" not in str(refusal)
            assert await matches_of(services, guild_id) == []
            continue
        texts = [m.import_key for m in await services.context.db.read.all_matches(guild_id)]
        texts += [
            p.side
            for m in await services.context.db.read.all_matches(guild_id)
            for p in m.participants
        ]
        assert all(text is not None and text.isprintable() for text in texts)


# --- formulas ------------------------------------------------------------------------------

FORMULAS = ["=1+1", '=HYPERLINK("http://x","y")', "@SUM(1+1)", "+1", "-1", "\t=1", "'=1", "''@x"]


@pytest.mark.parametrize("cell", [*FORMULAS, "plain", "'quoted", "1-1", ""])
def test_unmarked_inverts_neutralised(cell: str) -> None:
    marked = neutralised(cell)
    assert unmarked(marked) == cell
    assert not marked.startswith(("=", "+", "-", "@", "\t", "\r"))


async def test_export_neutralises_formula_labels_and_imports_back_to_the_same_ratings(
    services: Services,
) -> None:
    rows = [
        [f"m{n}", f"2023-01-{n + 1:02d}", side, player, score, "20"]
        for n, formula in enumerate(FORMULAS)
        for side, player, score in (
            (formula, "1", "1"),
            (formula, f"~g{n}", "2"),
            ("b", str(n + 2), "0"),
        )
    ]
    for guild_id in (GUILD, COPY):  # ratings below 0, so that numbers start with "-"
        await services.settings.change(guild_id, MOD, {"initial_rating": 0})
    text = io.StringIO()
    csv.writer(text).writerows([HEADER.split(","), *rows])
    await services.transfers.import_csv(GUILD, MOD, text.getvalue())
    exported = await services.transfers.export_csv(GUILD)
    table = list(csv.DictReader(io.StringIO(exported)))
    sides = {row["side"] for row in table}
    assert {"'=1+1", "'@SUM(1+1)", "'+1", "'-1", "'=1", "''@x"} <= sides
    assert not any(
        cell.startswith(("=", "+", "-", "@", "\t", "\r"))
        for row in table
        for column, cell in row.items()
        if column not in ("rating_before", "rating_after")
    )
    assert any(float(row["rating_after"]) < 0 for row in table if row["rating_after"])
    await services.transfers.import_csv(COPY, MOD, exported)
    assert await ratings(services, COPY) == await ratings(services, GUILD)
    assert await matches_of(services, COPY) == await matches_of(services, GUILD)


async def matches_of(services: Services, guild_id: int) -> list[tuple[Any, ...]]:
    """The guild's matches as they would be imported: time, status and who played how."""
    return [
        (
            m.played_at,
            m.status,
            [(p.user_id, p.guest, p.side, p.score, p.minutes) for p in m.participants],
        )
        for m in await services.context.db.read.all_matches(guild_id)
    ]


# --- the fuzz test: hostile CSV bytes through the import ---------------------------------------

HOSTILE_NUMBERS = ["1e308", "nan", "inf", "1000000001", "1e999", "1440.5", "-0.0", "1e9", "0.01"]
HOSTILE_TIMES = [
    "9999-12-31T23:59:59-12:00",
    "0001-01-01T00:00:00+14:00",
    "1969-12-31T23:59:59Z",
    "1970-01-01T00:00:00Z",
    "2100-01-01",
]
HOSTILE_PLAYERS = [
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999",
    "0",
    "²",
    "١٢",
    "~" + "g" * 40,
    "~Zoë",
    "~=1+1",
]
HOSTILE_TEXTS = [
    "=1+1",
    "'=1+1",
    "@SUM(1+1)",
    '=HYPERLINK("http://x","y")',
    "+5",
    "-5",
    "\t=x",
    "a\rb",
    "a\nb",
    '"',
    "",
    "m1",
]
HOSTILE_BY_COLUMN = [
    HOSTILE_TEXTS,
    HOSTILE_TIMES,
    HOSTILE_TEXTS,
    HOSTILE_PLAYERS,
    HOSTILE_NUMBERS,
    HOSTILE_NUMBERS,
]
"""Hostile values for each column of HEADER (the scores are where ratings break)."""
HOSTILE = [*HOSTILE_NUMBERS, *HOSTILE_TIMES, *HOSTILE_PLAYERS, *HOSTILE_TEXTS]
CONTROLS = ["\r", "\n", "\r\n", "\x00"]
"""Put into any cell (the header's too), quoted or not: each breaks a row or a value."""


@st.composite
def hostile_cell(draw: st.DrawFn) -> tuple[int, str]:
    """A column (scores and minutes more often) and a value for it: mostly one meant to
    hurt that column, sometimes any hostile value or random text."""
    column = draw(st.sampled_from([0, 1, 2, 3, 4, 4, 4, 5]))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return column, draw(st.text(max_size=6))
    return column, draw(st.sampled_from(HOSTILE if kind == 1 else HOSTILE_BY_COLUMN[column]))


SEEDED_AT = 1_600_000_000
"""When the seeded matches were played; imported ones come before and after them."""


@st.composite
def valid_rows(draw: st.DrawFn) -> list[list[str]]:
    """Rows of 1-3 plausible matches (members 1-4, a guest or two, sides a and b)."""
    rows = []
    for match in range(draw(st.integers(1, 3))):
        played_at = format_time(draw(st.integers(SEEDED_AT - 10**8, int(Clock().now))))
        seats = draw(st.integers(2, 4))
        players = draw(st.permutations(["1", "2", "3", "4", "~bob", "~eve"]))[:seats]
        for seat, player in enumerate(players):
            score = draw(st.sampled_from(["0", "1", "2.5", "30"]))
            rows.append([f"m{match}", played_at, "ab"[seat % 2], player, score, "20"])
    return rows


@st.composite
def hostile_csv(draw: st.DrawFn) -> bytes:
    """A plausible CSV with hostile cells (one value in a whole match makes, say, a match
    whose scores are all 1e308), then hostile bytes: a BOM, another line end, bytes
    that are not UTF-8."""
    rows = draw(valid_rows())
    for _ in range(
        draw(st.sampled_from([0, 0, 1, 2]))
    ):  # a hostile value in one row or one whole match
        column, cell = draw(hostile_cell())
        chosen = draw(st.sampled_from(rows))
        whole_match = draw(st.booleans())
        for row in rows:
            if row is chosen or (whole_match and row[0] == chosen[0]):
                row[column] = cell
    table = [HEADER.split(","), *rows]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):  # a line break or NUL in any cell
        cells = draw(st.sampled_from(table))
        column = draw(st.integers(0, len(cells) - 1))
        at = draw(st.integers(0, len(cells[column])))
        control = draw(st.sampled_from(CONTROLS))
        cells[column] = cells[column][:at] + control + cells[column][at:]
    text = io.StringIO()
    csv.writer(
        text,
        lineterminator=draw(st.sampled_from(["\n", "\r\n", "\r"])),
        quoting=draw(st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL])),
    ).writerows(table)
    data = text.getvalue().encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    if draw(st.integers(0, 7)) == 0:
        at = draw(st.integers(0, len(data)))
        data = (
            data[:at]
            + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00"]))
            + data[at:]
        )
    return data


@pytest.fixture(scope="module")
def seeded_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with history (applied matches, a cached performance) to copy per example.
    Its matches are applied when played, so the log's order is played_at's, as an export
    keeps it."""
    path = tmp_path_factory.mktemp("seed") / "seed.sqlite3"

    async def seed() -> None:
        db = await Database.open(path)
        clock = Clock(SEEDED_AT)
        services = Services.build(ServiceContext(db, GuildSettings(), clock=clock))
        try:
            await services.matches.report(
                GUILD, MOD, parse_lineup("<@1> 3 | <@2> 1"), request_id="a"
            )
            clock.now += 3600
            await services.matches.report(
                GUILD, MOD, parse_lineup("<@2> 2 | <@3> 0, bob 1"), request_id="b"
            )
            await services.standings.leaderboard(GUILD, by="p8")
        finally:
            await db.close()

    asyncio.run(seed())
    return path


async def assert_finite_and_a_replay(services: Services, guild_id: int) -> None:
    await assert_log_is_truth(services, guild_id)
    assert all(
        rating is None or math.isfinite(rating)
        for rating in (await ratings(services, guild_id)).values()
    )


async def with_ladder_at(path: Path, use: Callable[[Services], Awaitable[Result]]) -> Result:
    db = await Database.open(path)
    try:
        return await use(Services.build(ServiceContext(db, GuildSettings(), clock=Clock())))
    finally:
        await db.close()


async def assert_sound(services: Services) -> None:
    """After an accepted import: the ratings are finite and a replay, and the guild's export
    imports into an empty guild with the same ratings."""
    await assert_finite_and_a_replay(services, GUILD)
    await services.transfers.import_csv(COPY, MOD, await services.transfers.export_csv(GUILD))
    await assert_finite_and_a_replay(services, COPY)
    assert await ratings(services, COPY) == await ratings(services, GUILD)


def accepted_soundly_or_refused_cleanly(path: Path, importing: Callable[[], str | None]) -> None:
    """Run `importing` (its refusal, or None when it imported) on the database at `path`:
    accepted, and then sound, or refused in one line with the database unchanged."""
    before = dump(path)
    refusal = importing()
    if refusal is None:
        asyncio.run(with_ladder_at(path, assert_sound))
    else:
        assert "\n" not in refusal
        assert dump(path) == before
    event("refused" if refusal else "accepted")


async def refusal_of_import(services: Services, data: bytes) -> str | None:
    try:
        await services.transfers.import_csv(GUILD, MOD, data)
    except UserError as refusal:
        return str(refusal)
    return None


def fresh_copy(seed: Path, folder: str) -> Path:
    path = Path(folder) / "ladder.sqlite3"
    shutil.copyfile(seed, path)
    return path


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=hostile_csv())
def test_hostile_csv_through_the_import_is_accepted_soundly_or_refused_cleanly(
    seeded_database: Path, data: bytes
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = fresh_copy(seeded_database, folder)
        accepted_soundly_or_refused_cleanly(
            path,
            lambda: asyncio.run(
                with_ladder_at(path, lambda services: refusal_of_import(services, data))
            ),
        )
