"""The fast CSV reader: a file without a fault read column by column, each distinct cell
checked once and the numbers as arrays (an import reads 100,000s of rows). A file with any
fault, or an unusual row, is read by the reference reader (rows.py), which names the first
bad line: both readers always give the same matches, or the same refusal."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from bot.ratings.ladder import valid_minutes, valid_scores
from bot.services.errors import UserError
from bot.services.lineup import side_label
from bot.services.matchcsv.format import (
    IMPORTED_STATUS,
    SEASON_LABEL,
    STATUSES,
    decoded,
    match_label,
    parse_number,
    parse_player,
    parse_time,
    unmarked,
)
from bot.services.matchcsv.parsed import CsvMatches, CsvSeason, log_order
from bot.services.matchcsv.rows import header_columns, parse_csv, parse_season
from bot.storage.models import BoolArray, FloatArray, IntArray

Columns = tuple[list[Sequence[str]], Sequence[int], dict[str, int]]
"""The cells of each column of the header, the line of each row, where the columns the
import reads are."""


def read_csv(data: bytes | str, now: float) -> tuple[CsvMatches, list[CsvSeason]]:
    """parse_csv's matches as columns in log order, and its season starts. A file without
    a fault is read column by column; one with any (or an unusual row) goes row by row
    through parse_csv, which names the first bad line."""
    text = decoded(data)
    read = _by_columns(text, now)
    if read is not None:
        return read
    matches, starts = parse_csv(text, now)
    return CsvMatches.of(matches), starts


class _UncleanError(Exception):
    """A cell or row the column-wise read leaves to parse_csv (which names it)."""


def _cell_table(cells: Iterable[str], parse: Callable[[str], Any]) -> dict[str, Any]:
    """`parse` of each distinct cell as the row-wise read cleans it (stripped, unmarked): a
    column repeats its values (players, times) across 100,000s of rows. _UncleanError when
    a cell is refused."""
    values: dict[str, Any] = {}
    try:
        for cell in set(cells):
            values[cell] = parse(unmarked(cell.strip()))
    except UserError:
        raise _UncleanError() from None
    return values


def _mapped(cells: Sequence[str], table: Mapping[str, Any], dtype: type[Any]) -> npt.NDArray[Any]:
    """Each cell's value in `table`, as an array."""
    return np.fromiter(map(table.__getitem__, cells), dtype, len(cells))


def _numbers(cells: Sequence[str], valid: Callable[[FloatArray], BoolArray]) -> FloatArray:
    values = _mapped(cells, _cell_table(cells, parse_number), np.float64)
    if not valid(values).all():
        raise _UncleanError()
    return values


def _label(text: str) -> str:
    """A season start's label as it is (its row is read apart), else a valid match label."""
    return text if text.startswith(SEASON_LABEL) else match_label(text)


def _by_columns(text: str, now: float) -> tuple[CsvMatches, list[CsvSeason]] | None:
    """The file read column by column (each distinct cell checked once, numbers as arrays);
    None when any row is faulty or unusual (blank, a season start with a fault)."""
    try:
        quoted_cells = '"' in text or "\0" in text
        columns, lines, index = (_reader_columns if quoted_cells else _split_columns)(text)
        return _read_columns(columns, lines, index, now)
    except (csv.Error, UserError, _UncleanError):
        return None


def _split_columns(text: str) -> Columns:
    """A file without quotes is lines of cells between commas: split as a whole, each
    column a slice (what csv.reader reads from it, without a list per row)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if not lines or not lines[0]:
        raise _UncleanError()
    header = lines[0].split(",")
    width = len(header)
    body = lines[1:]
    numbers: Sequence[int] = range(2, len(body) + 2)
    commas = np.fromiter(map(str.count, body, repeat(",")), np.int64, len(body))
    odd = np.flatnonzero(commas != width - 1).tolist()
    if odd:  # blank lines are skipped (as parse_csv skips them); any other is a faulty row
        if any(body[line].replace(",", "").strip() for line in odd):
            raise _UncleanError()
        kept = np.delete(np.arange(len(body)), odd).tolist()
        body, numbers = [body[line] for line in kept], [line + 2 for line in kept]
    if max(map(len, body), default=0) > csv.field_size_limit():
        raise _UncleanError()  # a cell csv.reader refuses
    cells = ",".join(body).split(",") if body else []
    return [cells[column::width] for column in range(width)], numbers, header_columns(header)[1]


def _reader_columns(text: str) -> Columns:
    """The cells of a file with quotes through csv.reader, row by row."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header, index = header_columns(next(reader, []))
    width = len(header)
    rows: list[list[str]] = []
    lines: list[int] = []
    start = reader.line_num + 1
    for row in reader:
        if len(row) != width and any(cell.strip() for cell in row):
            raise _UncleanError()  # a faulty row
        if len(row) == width:  # else a blank line, skipped as parse_csv skips it
            rows.append(row)
            lines.append(start)  # the line the row starts on, as parse_csv names it
        start = reader.line_num + 1
    return [list(column) for column in zip(*rows, strict=True)] or [[]] * width, lines, index


def _picked(column: Sequence[str], rows: IntArray) -> Sequence[str]:
    """The cells of a column at `rows` (the column itself when that is every row)."""
    return column if len(rows) == len(column) else [column[row] for row in rows.tolist()]


def _read_columns(
    columns: list[Sequence[str]], lines: Sequence[int], index: Mapping[str, int], now: float
) -> tuple[CsvMatches, list[CsvSeason]]:
    """_by_columns past the header; _UncleanError for anything parse_csv must name (a blank
    row or an empty label among them)."""
    named = {name: columns[where] for name, where in index.items()}
    label_of = _cell_table(named["match"], _label)
    seasons = _seasons(named, lines, label_of, now)
    match_rows = np.arange(len(lines), dtype=np.int64)
    if seasons:
        season_cells = {cell: label.startswith(SEASON_LABEL) for cell, label in label_of.items()}
        match_rows = np.flatnonzero(~_mapped(named["match"], season_cells, np.bool_))
    group_of: dict[str, int] = {}
    group_of_cell = {
        cell: group_of.setdefault(label, len(group_of)) for cell, label in label_of.items()
    }
    label_cells = _picked(named["match"], match_rows)
    groups = _mapped(label_cells, group_of_cell, np.int64)
    applied = match_rows
    if "status" in named:
        status_cells = _picked(named["status"], match_rows)
        status_of = _cell_table(status_cells, str)
        if not set(status_of.values()) <= set(STATUSES):
            raise _UncleanError()
        codes = _mapped(
            status_cells, {cell: STATUSES.index(s) for cell, s in status_of.items()}, np.int64
        )
        present, firsts = np.unique(groups, return_index=True)
        first_of_group = np.zeros(len(group_of), dtype=np.int64)
        first_of_group[present] = firsts
        if (codes != codes[first_of_group[groups]]).any():
            raise _UncleanError()  # one match, two statuses
        keep = codes == STATUSES.index(IMPORTED_STATUS)
        applied, groups = match_rows[keep], groups[keep]
    time_cells = _picked(named["played_at"], applied)
    played_at = _mapped(
        time_cells, _cell_table(time_cells, lambda cell: parse_time(cell, now)), np.float64
    )
    player_cells = _picked(named["player"], applied)
    player_of = _cell_table(player_cells, parse_player)
    side_cells = _picked(named["side"], applied)
    scores = _numbers(_picked(named["score"], applied), valid_scores)
    minutes = _numbers(_picked(named["minutes"], applied), valid_minutes)
    _, first_rows, match_of_row = np.unique(groups, return_index=True, return_inverse=True)
    if (played_at != played_at[first_rows][match_of_row]).any():
        raise _UncleanError()  # one match, two times
    labels = [label_of[named["match"][row]] for row in applied[first_rows].tolist()]
    order = _log_order(played_at[first_rows], labels, first_rows)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    row_order = np.argsort(rank[match_of_row], kind="stable")
    counts = np.bincount(rank[match_of_row], minlength=len(order))
    return (
        CsvMatches(
            [labels[match] for match in order.tolist()],
            [lines[row] for row in applied[first_rows][order].tolist()],
            played_at[first_rows][order],
            np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            _mapped(player_cells, {c: p.user_id or 0 for c, p in player_of.items()}, np.int64)[
                row_order
            ],
            _mapped(player_cells, {c: p.guest for c, p in player_of.items()}, object)[row_order],
            _mapped(side_cells, _cell_table(side_cells, side_label), object)[row_order],
            scores[row_order],
            minutes[row_order],
        ),
        seasons,
    )


def _seasons(
    named: Mapping[str, Sequence[str]],
    lines: Sequence[int],
    label_of: Mapping[str, str],
    now: float,
) -> list[CsvSeason]:
    """The season start rows (rare: each read as parse_csv reads it)."""
    if not any(label.startswith(SEASON_LABEL) for label in label_of.values()):
        return []
    seasons: dict[str, CsvSeason] = {}
    for row, cell in enumerate(named["match"]):
        if label_of[cell].startswith(SEASON_LABEL):
            try:
                season = parse_season(
                    {name: unmarked(cells[row].strip()) for name, cells in named.items()},
                    lines[row],
                    now,
                )
            except UserError:
                raise _UncleanError() from None
            if season.name in seasons:
                raise _UncleanError()
            seasons[season.name] = season
    return list(seasons.values())


def _log_order(played_at: FloatArray, labels: Sequence[str], first_rows: IntArray) -> IntArray:
    """The matches (played_at and label each; ties as they first appear in the file) in log
    order (log_order): one lexsort when every label is a number."""
    appearance = np.argsort(first_rows, kind="stable")
    if all(label.isascii() and label.isdigit() and len(label) <= 18 for label in labels):
        numbers = np.fromiter(map(int, labels), np.int64, len(labels))
        return appearance[np.lexsort((numbers[appearance], played_at[appearance]))]
    return np.array(
        sorted(
            appearance.tolist(),
            key=lambda match: log_order(float(played_at[match]), labels[match]),
        ),
        dtype=np.int64,
    )
