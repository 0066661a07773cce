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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, get_args

from bot.ratings.ladder import MINUTES_RULE, SCORE_RULE, valid_minutes, valid_scores
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
        """played_at, ties by the match label (numerically when it is ASCII digits)."""
        if self.label.isascii() and self.label.isdigit():
            digits = self.label.lstrip("0")
            return (self.played_at, (0, len(digits), digits))
        return (self.played_at, (1, 0, self.label))


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


def parse_matches(data: bytes | str, now: float) -> list[CsvMatch]:
    """The matches of a CSV file (parse_csv), its season starts ignored."""
    return parse_csv(data, now)[0]


def parse_csv(data: bytes | str, now: float) -> tuple[list[CsvMatch], list[CsvSeason]]:
    """Matches and season starts of a CSV file, in file order; rows whose `status` column (if
    present) is not `applied` are skipped, so an export imports back to the same ratings.
    The rows of one match must agree on its played_at and status."""
    rows = _rows(decoded(data))
    _, header = next(rows, (1, []))
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
