"""The match CSV of SPEC 5: `match,played_at,side,player,score,minutes` (+ export columns).

Pure functions: bytes (or text) in, text out. Parsing checks every row and names the line
of the first bad one; the ladder service then checks each match as a report (and names the
match's first line).

Import keys (SPEC 8.3): an imported match keeps its `match` label as its key in the guild,
and an export writes that key in the `match` column; a match that was not imported (reported
in Discord or on the command line) is exported as `#<its id>`, which an import into the same
guild reads as that match. So importing a file twice, or a guild's export back into it, finds
every match already there and skips it.

Hygiene (SPEC 7): an import reads UTF-8 with or without a BOM and any of `\\n`, `\\r\\n`,
`\\r`. An export puts a `'` before every text cell a spreadsheet would run as a formula; an
import drops one `'` that stands before such a start again, so an export imports back to the
same matches (and a cell re-saved by a spreadsheet, which drops the `'`, reads the same).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import repeat
from typing import Any, Final, get_args

import numpy as np
import numpy.typing as npt

from bot.ratings.ladder import (
    MINUTES_RULE,
    SCORE_RULE,
    valid_minutes,
    valid_scores,
)
from bot.services.errors import UserError, quoted
from bot.services.lineup import (
    GUEST_RULE,
    ID_RULE,
    NUMBER,
    LineupEntry,
    Player,
    guest_name,
    parse_id,
    side_label,
)
from bot.services.seasons import CARRY_RULE, season_name
from bot.storage import Match, MatchStatus, Season

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
ObjectArray = npt.NDArray[np.object_]

IMPORT_COLUMNS: Final = ("match", "played_at", "side", "player", "score", "minutes")
EXPORT_COLUMNS: Final = (*IMPORT_COLUMNS, "status", "rating_before", "rating_after")
IMPORTED_STATUS: Final = "applied"
"""Rows with a `status` column are imported only with this status (an export's other
matches are pending, disputed or void)."""
STATUSES: Final[tuple[str, ...]] = get_args(MatchStatus)

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
"""How a cell starts that a spreadsheet would run as a formula (SPEC 7)."""
FORMULA_MARK: Final = "'"

LATEST_AHEAD: Final = 86_400.0
"""How far past now a played_at may be: one day (clocks and time zones disagree)."""
PLAYED_AT_RULE: Final = (
    "an ISO-8601 time from 1970-01-01 to one day after now, such as 2024-05-01T18:30:00Z"
)
PLAYER_RULE: Final = f"a Discord user id ({ID_RULE}) or ~ and a guest name ({GUEST_RULE})"
SEASON_LABEL: Final = "season:"
"""A row whose match cell starts with this is a season start (SPEC 9.1): `season:<name>`,
played_at = where it stands in the log, score = its carry; side, player, minutes empty."""


@dataclass(frozen=True, slots=True)
class CsvMatch:
    """One imported match: its label, first line, time and lineup."""

    label: str
    line: int
    played_at: float
    entries: tuple[LineupEntry, ...]

    @property
    def order(self) -> tuple[float, tuple[int, int, str]]:
        return log_order(self.played_at, self.label)


def log_order(played_at: float, label: str) -> tuple[float, tuple[int, int, str]]:
    """Where an imported match goes in the log: played_at, ties by the match label
    (numerically when it is ASCII digits)."""
    if label.isascii() and label.isdigit():
        digits = label.lstrip("0")
        return (played_at, (0, len(digits), digits))
    return (played_at, (1, 0, label))


@dataclass(frozen=True, slots=True)
class CsvMatches:
    """A CSV file's matches as columns, in log order: per match its label, first line and
    played_at; per participant (match after match, each in file order) player, side and
    numbers. Columns, not objects per row: an import reads 100,000s of rows."""

    labels: list[str]
    lines: list[int]
    played_at: FloatArray
    firsts: IntArray
    """Each match's first participant, then the participant count: match i is
    firsts[i]:firsts[i + 1]."""
    user_ids: IntArray
    """0 for a guest (ids start at 1)."""
    guests: ObjectArray
    """The guest name, None for a member."""
    sides: ObjectArray
    scores: FloatArray
    minutes: FloatArray

    def __len__(self) -> int:
        return len(self.labels)

    def entries(self, match: int) -> tuple[LineupEntry, ...]:
        """One match's lineup (to compare it, or name what is wrong with it)."""
        rows = range(int(self.firsts[match]), int(self.firsts[match + 1]))
        return tuple(
            LineupEntry(
                Player(guest=self.guests[row])
                if self.guests[row] is not None
                else Player(user_id=int(self.user_ids[row])),
                self.sides[row],
                float(self.scores[row]),
                float(self.minutes[row]),
            )
            for row in rows
        )

    def match_of_rows(self) -> IntArray:
        """The match of each participant row."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.firsts))

    def chosen(self, keep: BoolArray) -> CsvMatches:
        """The matches where `keep` is true, in the same order."""
        rows = keep[self.match_of_rows()]
        counts = np.diff(self.firsts)[keep]
        return CsvMatches(
            [label for label, kept in zip(self.labels, keep.tolist(), strict=True) if kept],
            [line for line, kept in zip(self.lines, keep.tolist(), strict=True) if kept],
            self.played_at[keep],
            np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            self.user_ids[rows],
            self.guests[rows],
            self.sides[rows],
            self.scores[rows],
            self.minutes[rows],
        )

    @classmethod
    def of(cls, matches: Sequence[CsvMatch]) -> CsvMatches:
        """Parsed matches (CsvMatch) as columns, in log order."""
        ordered = sorted(matches, key=lambda match: match.order)
        entries = [entry for match in ordered for entry in match.entries]
        counts = [len(match.entries) for match in ordered]
        return cls(
            [match.label for match in ordered],
            [match.line for match in ordered],
            np.array([match.played_at for match in ordered], dtype=np.float64),
            np.concatenate(([0], np.cumsum(counts, dtype=np.int64))).astype(np.int64),
            np.array([e.player.user_id or 0 for e in entries], dtype=np.int64),
            _objects([e.player.guest for e in entries]),
            _objects([e.side for e in entries]),
            np.array([e.score for e in entries], dtype=np.float64),
            np.array([e.minutes for e in entries], dtype=np.float64),
        )


def _objects(values: Sequence[object]) -> ObjectArray:
    """A list as a 1-d object array (np.array would nest sequences)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


@dataclass(frozen=True, slots=True)
class CsvSeason:
    """One imported season start: its name, line, place in the log (a time) and carry."""

    name: str
    line: int
    starts_at: float
    carry: float


def format_time(moment: float) -> str:
    """Unix seconds as ISO-8601 UTC with a Z (microseconds only when there are any). A moment
    no calendar can show (stored before played_at had bounds) is written as its number, so
    an export never fails and importing it back names the row."""
    try:
        stamp = datetime.fromtimestamp(moment, UTC)
    except (OverflowError, ValueError, OSError):
        return repr(moment)
    spec = "seconds" if stamp.microsecond == 0 else "microseconds"
    return stamp.isoformat(timespec=spec).replace("+00:00", "Z")


def parse_time(text: str, now: float) -> float:
    """ISO-8601 to Unix seconds (a time without zone is UTC), within PLAYED_AT_RULE."""
    try:
        stamp = datetime.fromisoformat(text.strip())
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        moment = stamp.timestamp()
    except (ValueError, OverflowError):
        moment = math.nan
    if not 0.0 <= moment <= now + LATEST_AHEAD:
        raise UserError(f"played_at {quoted(text)} must be {PLAYED_AT_RULE}")
    return moment


def neutralised(cell: str) -> str:
    """The cell with a `'` in front when a spreadsheet would run it as a formula (also in
    front of one that already starts with `'`s before such a start, so `unmarked` inverts
    this exactly)."""
    return FORMULA_MARK + cell if cell.lstrip(FORMULA_MARK).startswith(FORMULA_STARTS) else cell


def unmarked(cell: str) -> str:
    """The cell without the `'` that `neutralised` put in front of it."""
    if cell.startswith(FORMULA_MARK) and cell.lstrip(FORMULA_MARK).startswith(FORMULA_STARTS):
        return cell[len(FORMULA_MARK) :]
    return cell


def _number(text: str) -> float:
    """A decimal number (-0 read as 0), NaN when the text is none."""
    return float(text) + 0.0 if NUMBER.fullmatch(text) else math.nan


NATIVE_MARK: Final = "#"


def match_key(match_id: int, import_key: str | None) -> str:
    """The label an export gives a match: its import key, else `#<id>`."""
    return import_key if import_key is not None else f"{NATIVE_MARK}{match_id}"


def native_id(label: str) -> int | None:
    """The match id a `#<id>` label names (see match_key), else None."""
    digits = label.removeprefix(NATIVE_MARK).lstrip("0") or "0"
    if not (label.startswith(NATIVE_MARK) and digits.isascii() and digits.isdigit()):
        return None
    return int(digits) if len(digits) <= 19 and int(digits) < 2**63 else None


def export_matches(matches: Iterable[Match], seasons: Iterable[Season] = ()) -> str:
    """Every match, then every season start, as CSV; numbers plain, text cells neutralised."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for match in matches:
        for p in match.participants:
            player = str(p.user_id) if p.user_id is not None else f"~{p.guest}"
            writer.writerow(
                [
                    neutralised(match_key(match.id, match.import_key)),
                    neutralised(format_time(match.played_at)),
                    neutralised(p.side),
                    neutralised(player),
                    repr(p.score),
                    repr(p.minutes),
                    neutralised(match.status),
                    "" if p.rating_before is None else repr(p.rating_before),
                    "" if p.rating_after is None else repr(p.rating_after),
                ]
            )
    for season in seasons:
        writer.writerow(
            [
                neutralised(SEASON_LABEL + season.name),
                neutralised(format_time(season.starts_at)),
                "",
                "",
                repr(season.carry),
                "",
                IMPORTED_STATUS,
                "",
                "",
            ]
        )
    return out.getvalue()


def decoded(data: bytes | str) -> str:
    """UTF-8 (a BOM is dropped); a str is checked the same way, so undecodable bytes that
    reached it as lone surrogates are refused too. UserError names the line."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        before = raw[: error.start]
        line = before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1
        raise UserError(
            f"line {line}: the bytes {raw[error.start : error.end]!r} are not UTF-8; "
            "save the file as UTF-8"
        ) from None


@dataclass(slots=True)
class _Group:
    """The rows of one match label so far."""

    line: int
    status: str
    played_at: float | None = None
    entries: list[LineupEntry] = field(default_factory=list)


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """The CSV rows with their line numbers; a malformed one is a UserError naming its line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as error:
        raise UserError(f"line {reader.line_num}: {error}") from None


def _header(header: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    """The header's column names, and where each column the import reads is."""
    if not header:
        raise UserError("line 1: the CSV file is empty; its header is " + ",".join(IMPORT_COLUMNS))
    columns = [name.strip().lower() for name in header]
    missing = [name for name in IMPORT_COLUMNS if name not in columns]
    if missing:
        raise UserError(
            f"line 1: the header lacks {', '.join(missing)}; it needs {','.join(IMPORT_COLUMNS)}"
        )
    index: dict[str, int] = {
        name: columns.index(name) for name in (*IMPORT_COLUMNS, "status") if name in columns
    }
    return columns, index


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
    values = _mapped(cells, _cell_table(cells, _number), np.float64)
    if not valid(values).all():
        raise _UncleanError()
    return values


def _by_columns(text: str, now: float) -> tuple[CsvMatches, list[CsvSeason]] | None:
    """The file read column by column (each distinct cell checked once, numbers as arrays);
    None when any row is faulty or unusual (blank, a season start with a fault)."""
    try:
        quoted_cells = '"' in text or "\0" in text
        columns, lines, index = (_reader_columns if quoted_cells else _split_columns)(text)
        return _read_columns(columns, lines, index, now)
    except (csv.Error, UserError, _UncleanError):
        return None


Columns = tuple[list[Sequence[str]], Sequence[int], dict[str, int]]
"""The cells of each column of the header, the line of each row, where the columns the
import reads are."""


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
    return [cells[column::width] for column in range(width)], numbers, _header(header)[1]


def _reader_columns(text: str) -> Columns:
    """The cells of a file with quotes through csv.reader, row by row."""
    reader = csv.reader(io.StringIO(text, newline=""))
    header, index = _header(next(reader, []))
    width = len(header)
    rows: list[list[str]] = []
    lines: list[int] = []
    for row in reader:
        if len(row) != width and any(cell.strip() for cell in row):
            raise _UncleanError()  # a faulty row
        if len(row) != width:
            continue  # a blank line, skipped as parse_csv skips it
        rows.append(row)
        lines.append(reader.line_num)
    return [list(column) for column in zip(*rows, strict=True)] or [[]] * width, lines, index


def _picked(column: Sequence[str], rows: IntArray) -> Sequence[str]:
    """The cells of a column at `rows` (the column itself when that is every row)."""
    return column if len(rows) == len(column) else [column[row] for row in rows.tolist()]


def _read_columns(
    columns: list[Sequence[str]], lines: Sequence[int], index: Mapping[str, int], now: float
) -> tuple[CsvMatches, list[CsvSeason]]:
    """_by_columns past the header; _UncleanError for anything parse_csv must name."""
    named = {name: columns[where] for name, where in index.items()}
    label_of = _cell_table(named["match"], str)
    seasons = _seasons(named, lines, label_of, now)
    match_rows = np.arange(len(lines), dtype=np.int64)
    if seasons:
        season_cells = {cell: label.startswith(SEASON_LABEL) for cell, label in label_of.items()}
        match_rows = np.flatnonzero(~_mapped(named["match"], season_cells, np.bool_))
    if "" in label_of.values():
        raise _UncleanError()  # a blank row, or a row without a label
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
    player_of = _cell_table(player_cells, _player)
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
                season = _parse_season(
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


def parse_matches(data: bytes | str, now: float) -> list[CsvMatch]:
    """The matches of a CSV file (parse_csv), its season starts ignored."""
    return parse_csv(data, now)[0]


def parse_csv(data: bytes | str, now: float) -> tuple[list[CsvMatch], list[CsvSeason]]:
    """Matches and season starts of a CSV file, in file order; rows whose `status` column (if
    present) is not `applied` are skipped, so an export imports back to the same ratings.
    The rows of one match must agree on its played_at and status."""
    rows = _rows(decoded(data))
    columns, index = _header(next(rows, (1, []))[1])
    groups: dict[str, _Group] = {}
    seasons: dict[str, CsvSeason] = {}
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            raise UserError(f"line {line}: {len(row)} fields, the header has {len(columns)}")
        cells = {name: unmarked(row[position].strip()) for name, position in index.items()}
        label, status = cells["match"], cells.get("status", IMPORTED_STATUS)
        if not label:
            raise UserError(f"line {line}: the match column is empty; give every match a label")
        if label.startswith(SEASON_LABEL):
            season = _parse_season(cells, line, now)
            if season.name in seasons:
                raise UserError(
                    f"line {line}: season {quoted(season.name)} is also on line "
                    f"{seasons[season.name].line}; one row per season start"
                )
            seasons[season.name] = season
            continue
        if status not in STATUSES:
            raise UserError(
                f"line {line}: status {quoted(status)} must be one of {', '.join(STATUSES)}"
            )
        group = groups.setdefault(label, _Group(line, status))
        if status != group.status:
            raise UserError(
                f"line {line}: match {quoted(label)} has status {quoted(status)}, but its "
                f"first row (line {group.line}) has {quoted(group.status)}; one match, one status"
            )
        if status != IMPORTED_STATUS:
            continue
        try:
            entry, played_at = _parse_row(cells, now)
        except UserError as error:
            raise UserError(f"line {line}: {error}") from None
        if group.played_at is None:
            group.played_at = played_at
        elif group.played_at != played_at:
            raise UserError(
                f"line {line}: match {quoted(label)} has played_at "
                f"{quoted(cells['played_at'])}, but its first row (line {group.line}) has "
                "another time; one match, one time"
            )
        group.entries.append(entry)
    matches = [
        CsvMatch(label, group.line, group.played_at, tuple(group.entries))
        for label, group in groups.items()
        if group.played_at is not None
    ]
    return matches, list(seasons.values())


def _parse_season(cells: Mapping[str, str], line: int, now: float) -> CsvSeason:
    """A season start row; UserError naming the line and the bad cell."""
    try:
        name = season_name(cells["match"][len(SEASON_LABEL) :])
        starts_at = parse_time(cells["played_at"], now)
        carry = _number(cells["score"])
        if not 0 <= carry <= 1:
            raise UserError(f"carry (score) {quoted(cells['score'])} must be {CARRY_RULE}")
        for column in ("side", "player", "minutes"):
            if cells[column]:
                raise UserError(
                    f"{column} {quoted(cells[column])} must be empty on a season start row"
                )
    except UserError as error:
        raise UserError(f"line {line}: {error}") from None
    return CsvSeason(name, line, starts_at, carry)


def _player(text: str) -> Player:
    """A user id (lineup.parse_id) or `~` and a guest name (lineup.guest_name)."""
    if text.startswith("~"):
        return Player(guest=guest_name(text[1:]))
    if text.isascii() and text.isdigit():
        return Player(user_id=parse_id(text, "player"))
    raise UserError(f"player {quoted(text)} must be {PLAYER_RULE}")


def _parse_row(cells: Mapping[str, str], now: float) -> tuple[LineupEntry, float]:
    """One applied row's participant and played_at; UserError naming the bad cell."""
    played_at = parse_time(cells["played_at"], now)
    side = side_label(cells["side"])
    player = _player(cells["player"])
    score, minutes = _number(cells["score"]), _number(cells["minutes"])
    if not valid_scores(score):
        raise UserError(f"score {quoted(cells['score'])} must be {SCORE_RULE}")
    if not valid_minutes(minutes):
        raise UserError(f"minutes {quoted(cells['minutes'])} must be {MINUTES_RULE}")
    return LineupEntry(player, side, score, minutes), played_at
