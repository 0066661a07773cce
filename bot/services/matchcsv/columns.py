"""The fast CSV reader: a file without a fault read column by column, each distinct cell
checked once and the numbers as arrays (an import reads 100,000s of rows). A file with any
fault, or an unusual row, is read by the reference reader (rows.py), which names the first
bad line: both readers always give the same matches, or the same refusal."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from bot.ratings.ladder import valid_minutes, valid_scores
from bot.services.errors import UserError
from bot.services.lineup import side_label
from bot.services.matchcsv.format import (
    IMPORTED_STATUS,
    LABEL_LENGTH,
    LATEST_AHEAD,
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


@dataclass(frozen=True, slots=True)
class _Column:
    """One column's cells: each distinct cell once, and the code of every row's cell among
    them (a column repeats its values - players, times - across 100,000s of rows)."""

    cells: Sequence[str]
    codes: IntArray

    @classmethod
    def of(cls, cells: Sequence[str]) -> _Column:
        where = {cell: code for code, cell in enumerate(dict.fromkeys(cells))}
        return cls(list(where), np.fromiter(map(where.__getitem__, cells), np.int64, len(cells)))

    def picked(self, rows: IntArray) -> _Column:
        """The cells at `rows`."""
        return _Column(self.cells, self.codes[rows])

    def cell(self, row: int) -> str:
        return self.cells[int(self.codes[row])]

    def held(self) -> list[bool]:
        """Whether a row holds each distinct cell (by code)."""
        held: list[bool] = np.bincount(self.codes, minlength=len(self.cells)).astype(bool).tolist()
        return held

    def table(self, parse: Callable[[str], Any]) -> list[Any]:
        """`parse` of each distinct cell that a row holds, as the row-wise read cleans it
        (stripped, unmarked), by code (None for a cell no row holds); _UncleanError when
        one is refused."""
        try:
            return [
                parse(unmarked(cell.strip())) if used else None
                for cell, used in zip(self.cells, self.held(), strict=True)
            ]
        except UserError:
            raise _UncleanError() from None

    def values(self, table: Sequence[Any], dtype: type[Any]) -> npt.NDArray[Any]:
        """Each row's value in `table` (by code), as an array."""
        values = np.empty(len(table), dtype)
        values[:] = table
        return values[self.codes]


Columns = tuple[list[_Column], Sequence[int], dict[str, int]]
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


def _numbers(column: _Column, valid: Callable[[FloatArray], BoolArray]) -> FloatArray:
    values = column.values(column.table(parse_number), np.float64)
    if not valid(values).all():
        raise _UncleanError()
    return values


def _label(text: str) -> str:
    """A season start's label as it is (its row is read apart), else a valid match label."""
    return text if text.startswith(SEASON_LABEL) else match_label(text)


def _labels(column: _Column) -> list[str | None]:
    """column.table(_label); at C speed when every cell is 1 to LABEL_LENGTH ASCII digits
    (a label as it is, as an export of imported numbered matches writes them)."""
    cells = column.cells
    digits = "".join(cells)
    if not (
        digits.isascii()
        and digits.isdigit()
        and min(map(len, cells)) >= 1
        and max(map(len, cells)) <= LABEL_LENGTH
    ):
        return column.table(_label)
    return [cell if used else None for cell, used in zip(cells, column.held(), strict=True)]


_PLAIN_TIME: Final = "0000-00-00T00:00:00Z"
"""The cells `_times` reads at C speed: where this has a 0, a digit; elsewhere this
character."""


def _times(column: _Column, now: float) -> FloatArray:
    """Each row's played_at, as parse_time reads its cell; at C speed when every distinct
    cell is a plain UTC time (_PLAIN_TIME) of a real date from 1970 to a day after now
    (else cell by cell, which names any refused)."""
    if set(map(len, column.cells)) != {len(_PLAIN_TIME)}:  # before an array of the longest
        return _cell_times(column, now)
    plain = np.array(column.cells, dtype=f"U{len(_PLAIN_TIME)}")
    chars = plain.view(np.uint32).reshape(len(plain), len(_PLAIN_TIME)).astype(np.int64)
    pattern = np.array([ord(char) for char in _PLAIN_TIME])
    digit = pattern == ord("0")
    values = chars[:, digit] - ord("0")
    if not ((chars[:, ~digit] == pattern[~digit]).all() and ((values >= 0) & (values <= 9)).all()):
        return _cell_times(column, now)
    scaled = values * np.array([1000, 100, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1, 10, 1])
    year = scaled[:, :4].sum(axis=1)
    month, day, hour, minute, second = (
        scaled[:, at : at + 2].sum(axis=1) for at in range(4, 14, 2)
    )
    months = (year - 1970) * 12 + (month - 1)  # since January 1970
    month_starts = months.astype("M8[M]").astype("M8[D]").astype(np.int64)  # days since 1970
    month_days = (months + 1).astype("M8[M]").astype("M8[D]").astype(np.int64) - month_starts
    real = (
        (month >= 1)
        & (month <= 12)
        & (day >= 1)
        & (day <= month_days)
        & (hour <= 23)
        & (minute <= 59)
        & (second <= 59)
    )
    days = month_starts + day - 1
    moments: FloatArray = (days * 86_400 + hour * 3_600 + minute * 60 + second).astype(np.float64)
    if not (real.all() and (moments >= 0.0).all() and (moments <= now + LATEST_AHEAD).all()):
        return _cell_times(column, now)
    return moments[column.codes]


def _cell_times(column: _Column, now: float) -> FloatArray:
    return column.values(column.table(lambda cell: parse_time(cell, now)), np.float64)


def _by_columns(text: str, now: float) -> tuple[CsvMatches, list[CsvSeason]] | None:
    """The file read column by column (each distinct cell checked once, numbers as arrays);
    None when any row is faulty or unusual (a season start with a fault, an empty label)."""
    try:
        read = None if '"' in text or "\0" in text else _arrow_columns(text)
        columns, lines, index = read or _reader_columns(text)
        return _read_columns(columns, lines, index, now)
    except (csv.Error, UserError, _UncleanError):
        return None


def _arrow_columns(text: str) -> Columns | None:
    """A file without quotes is lines of cells between commas: read by pyarrow's CSV reader
    (in C++, each column's distinct cells found there too), blank rows left out; None when
    it refuses a row (another number of cells than the header: csv.reader reads the file
    then, which skips a blank one)."""
    import pyarrow as pa
    from pyarrow import compute
    from pyarrow import csv as arrow_csv

    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    header, _, body = text.partition("\n")
    if not header or not body:
        return None
    index = header_columns(header.split(","))[1]
    names = [str(column) for column in range(header.count(",") + 1)]
    try:
        table = arrow_csv.read_csv(
            pa.py_buffer(body.encode("utf-8")),
            read_options=arrow_csv.ReadOptions(column_names=names),
            parse_options=arrow_csv.ParseOptions(quote_char=False, ignore_empty_lines=False),
            convert_options=arrow_csv.ConvertOptions(
                # each column's distinct cells and a code per row, found as it is read
                column_types=dict.fromkeys(names, pa.dictionary(pa.int32(), pa.string()))
            ),
        ).unify_dictionaries()
    except pa.ArrowInvalid:
        return None
    if table.num_rows != body.count("\n") + (not body.endswith("\n")):
        return None  # every line a row, or the line numbers would be wrong
    columns = []
    for name in names:
        cells = table[name].combine_chunks()
        if compute.max(compute.utf8_length(cells.dictionary)).as_py() > csv.field_size_limit():
            raise _UncleanError()  # a cell csv.reader refuses
        columns.append(
            _Column(cells.dictionary.to_pylist(), cells.indices.to_numpy().astype(np.int64))
        )
    blank = np.ones(table.num_rows, dtype=np.bool_)
    for column in columns:
        blank &= np.array([not cell.strip() for cell in column.cells], np.bool_)[column.codes]
    if not blank.any():
        return columns, range(2, table.num_rows + 2), index
    kept = np.flatnonzero(~blank)  # blank rows are skipped, as parse_csv skips them
    return [column.picked(kept) for column in columns], (kept + 2).tolist(), index


def _reader_columns(text: str) -> Columns:
    """The cells of a file through csv.reader, row by row (quotes, rows of another length)."""
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
    cells = [list(column) for column in zip(*rows, strict=True)] or [[]] * width
    return [_Column.of(column) for column in cells], lines, index


def _read_columns(
    columns: list[_Column], lines: Sequence[int], index: Mapping[str, int], now: float
) -> tuple[CsvMatches, list[CsvSeason]]:
    """_by_columns past the header; _UncleanError for anything parse_csv must name (a blank
    row or an empty label among them)."""
    named = {name: columns[where] for name, where in index.items()}
    label_of = _labels(named["match"])
    seasons = _seasons(named, lines, label_of, now)
    match_rows = np.arange(len(lines), dtype=np.int64)
    if seasons:
        starts = [label is not None and label.startswith(SEASON_LABEL) for label in label_of]
        match_rows = np.flatnonzero(~named["match"].values(starts, np.bool_))
    group_of: dict[str, int] = {}
    group_of_code = [
        -1 if label is None else group_of.setdefault(label, len(group_of)) for label in label_of
    ]
    label_cells = named["match"].picked(match_rows)
    groups = label_cells.values(group_of_code, np.int64)
    applied = match_rows
    if "status" in named:
        status_cells = named["status"].picked(match_rows)
        status_of = status_cells.table(str)
        if not {status for status in status_of if status is not None} <= set(STATUSES):
            raise _UncleanError()
        codes = status_cells.values(
            [-1 if status is None else STATUSES.index(status) for status in status_of], np.int64
        )
        present, firsts = np.unique(groups, return_index=True)
        first_of_group = np.zeros(len(group_of), dtype=np.int64)
        first_of_group[present] = firsts
        if (codes != codes[first_of_group[groups]]).any():
            raise _UncleanError()  # one match, two statuses
        keep = codes == STATUSES.index(IMPORTED_STATUS)
        applied, groups = match_rows[keep], groups[keep]
    played_at = _times(named["played_at"].picked(applied), now)
    player_cells = named["player"].picked(applied)
    player_of = player_cells.table(parse_player)
    side_cells = named["side"].picked(applied)
    scores = _numbers(named["score"].picked(applied), valid_scores)
    minutes = _numbers(named["minutes"].picked(applied), valid_minutes)
    _, first_rows, match_of_row = np.unique(groups, return_index=True, return_inverse=True)
    if (played_at != played_at[first_rows][match_of_row]).any():
        raise _UncleanError()  # one match, two times
    labels = [label_of[code] for code in named["match"].codes[applied[first_rows]].tolist()]
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
            player_cells.values([(p and p.user_id) or 0 for p in player_of], np.int64)[row_order],
            player_cells.values([p and p.guest for p in player_of], object)[row_order],
            side_cells.values(side_cells.table(side_label), object)[row_order],
            scores[row_order],
            minutes[row_order],
        ),
        seasons,
    )


def _seasons(
    named: Mapping[str, _Column], lines: Sequence[int], label_of: Sequence[str | None], now: float
) -> list[CsvSeason]:
    """The season start rows (rare: each read as parse_csv reads it)."""
    starts = [label is not None and label.startswith(SEASON_LABEL) for label in label_of]
    if not any(starts):
        return []
    seasons: dict[str, CsvSeason] = {}
    for row in np.flatnonzero(named["match"].values(starts, np.bool_)).tolist():
        try:
            season = parse_season(
                {name: unmarked(cells.cell(row).strip()) for name, cells in named.items()},
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
