"""The column-wise CSV read (read_csv) against the row-wise one (parse_csv): the same matches
and season starts, or the same refusal; a clean file never goes row by row."""

from __future__ import annotations

import csv
import io
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.services import UserError
from bot.services.matchcsv import columns
from bot.services.matchcsv.columns import read_csv
from bot.services.matchcsv.format import format_time
from bot.services.matchcsv.parsed import CsvMatches, CsvSeason
from bot.services.matchcsv.rows import parse_csv
from tests.services.conftest import Clock
from tests.services.test_csv_hygiene import HEADER, hostile_csv, valid_rows

NOW = Clock().now


Read = TypeVar("Read")


def outcome(read: Callable[[], Read]) -> Read | str:
    """What `read` returns, or its refusal."""
    try:
        return read()
    except UserError as refusal:
        return str(refusal)


def assert_same(columns: CsvMatches, rows: CsvMatches) -> None:
    for name in CsvMatches.__dataclass_fields__:
        mine, theirs = getattr(columns, name), getattr(rows, name)
        if isinstance(mine, list):
            assert mine == theirs, name
        else:
            assert np.array_equal(mine, theirs), name


def assert_reads_alike(data: bytes | str) -> None:
    by_columns = outcome(lambda: read_csv(data, NOW))
    by_rows = outcome(lambda: parse_csv(data, NOW))
    if isinstance(by_rows, str):
        assert by_columns == by_rows
        return
    assert not isinstance(by_columns, str)
    matches, starts = by_rows
    assert_same(by_columns[0], CsvMatches.of(matches))
    assert by_columns[1] == starts


@st.composite
def export_like(draw: st.DrawFn) -> str:
    """Plausible rows with a status column (some matches not applied), season starts,
    marked and padded cells, a blank row, quotes: what sends a file row by row or not."""
    rows = draw(valid_rows())
    statuses = {row[0]: draw(st.sampled_from(["applied", "applied", "void"])) for row in rows}
    table = [[*row, statuses[row[0]]] for row in rows]
    for name in draw(st.lists(st.sampled_from(["s1", "s2"]), max_size=2)):
        table.insert(
            draw(st.integers(0, len(table))),
            [f"season:{name}", "2020-01-01", "", "", "0.5", "", "applied"],
        )
    for row in table:
        if draw(st.integers(0, 9)) == 0:
            column = draw(st.integers(0, 6))
            row[column] = draw(
                st.sampled_from([f" {row[column]} ", f"'{row[column]}", '"x"', "-1"])
            )
    if draw(st.booleans()):
        table.insert(draw(st.integers(0, len(table))), [""] * 7)
    out = io.StringIO()
    csv.writer(out, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(
        [[*HEADER.split(","), "status"], *table]
    )
    return out.getvalue()


@st.composite
def plain_looking(draw: st.DrawFn) -> str:
    """Rows whose match labels are digits (up to one too many) and whose times are written
    as plain UTC times with any two digits per field: real dates or not (30 February, hour
    24, second 60), before 1970 or past tomorrow; what the reader reads at C speed."""
    rows = draw(valid_rows())
    labels: dict[str, str] = {}
    times: dict[str, str] = {}
    for row in rows:
        match = row[0]
        row[0] = labels.setdefault(
            match, draw(st.one_of(st.from_regex(r"[0-9]{1,3}", fullmatch=True), st.just("9" * 65)))
        )
        if match not in times:
            year = draw(st.sampled_from(["1969", "1970", "2000", "2024", "2100", "0000"]))
            month, day, hour, minute, second = (
                f"{draw(st.integers(0, top)):02d}" for top in (13, 32, 24, 60, 60)
            )
            times[match] = draw(
                st.sampled_from([row[1], f"{year}-{month}-{day}T{hour}:{minute}:{second}Z"])
            )
        row[1] = times[match]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([HEADER.split(","), *rows])
    return out.getvalue()


@settings(max_examples=300, deadline=None)
@given(text=plain_looking())
def test_plain_times_and_numbered_labels_read_alike_by_columns_and_by_rows(text: str) -> None:
    assert_reads_alike(text)


def test_one_long_time_among_many_is_refused_without_an_array_of_its_length() -> None:
    """2,000 distinct times and one of 100,000 characters: an array as wide as the longest
    for every cell would take 800 MB."""
    rows = [f"{match},{format_time(1.7e9 + match)},a,1,1,20" for match in range(2_000)]
    text = "\n".join([HEADER, *rows, f"x,{'2' * 100_000},a,1,1,20"]) + "\n"
    tracemalloc.start()
    try:
        assert_reads_alike(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 100e6


@settings(max_examples=200, deadline=None)
@given(data=hostile_csv())
def test_hostile_files_read_alike_by_columns_and_by_rows(data: bytes) -> None:
    assert_reads_alike(data)


@settings(max_examples=200, deadline=None)
@given(text=export_like())
def test_exports_read_alike_by_columns_and_by_rows(text: str) -> None:
    assert_reads_alike(text)


@pytest.mark.parametrize("quote", [False, True])
def test_a_clean_file_with_blank_lines_is_read_without_going_row_by_row(
    monkeypatch: pytest.MonkeyPatch, quote: bool
) -> None:
    rows = [
        "1,2023-01-01T10:00:00Z,a,1,3,20,applied",
        ('"10"' if quote else "10") + ",2023-01-01,b,~bob,1,20,applied",
        "10,2023-01-01T00:00:00Z,a,2,2.5,20,applied",
        " , ,",
        "1,2023-01-01T10:00:00Z,b,3,1,20,applied",
        "2,2023-01-01T10:00:00Z,b,3,1,20,void",
        "season:next,2023-06-01,,,0.5,,applied",
    ]
    text = "\n".join([HEADER + ",status", *rows]) + "\n\n"
    expected = parse_csv(text, NOW)

    def refused(*_: object) -> None:
        raise AssertionError("read row by row")

    monkeypatch.setattr(columns, "parse_csv", refused)
    matches, starts = read_csv(text, NOW)
    assert_same(matches, CsvMatches.of(expected[0]))
    assert matches.labels == ["10", "1"]  # log order: played_at, then the label
    assert matches.lines == [3, 2]
    assert starts == [CsvSeason("next", 8, expected[1][0].starts_at, 0.5)]


def test_a_file_without_quotes_is_read_by_arrow_with_its_line_numbers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [
        "2,2023-01-01T10:00:00Z,a,1,3,20",
        "",
        "2,2023-01-01T10:00:00Z,b,~bob,1,20",
        " , , ,,,",
        "1,2023-01-01,a,2,2.5,20",
        "1,2023-01-01,b,3,1,20",
    ]
    text = "\r\n".join([HEADER, *rows])
    expected = parse_csv(text, NOW)

    def refused(*_: object) -> None:
        raise AssertionError("not read by arrow")

    monkeypatch.setattr(columns, "parse_csv", refused)
    monkeypatch.setattr(columns, "_reader_columns", refused)
    matches, _ = read_csv(text, NOW)
    assert_same(matches, CsvMatches.of(expected[0]))
    assert matches.lines == [6, 2]
