"""The reference CSV reader: row by row, every cell checked, the first bad row named by
its line. columns.py reads a clean file faster and leaves every fault to this reader."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from bot.ratings.ladder import MINUTES_RULE, SCORE_RULE, valid_minutes, valid_scores
from bot.services.errors import N_, Counted, Phrase, UserError, quoted
from bot.services.lineup import LineupEntry, side_label
from bot.services.matchcsv.format import (
    IMPORT_COLUMNS,
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
from bot.services.matchcsv.parsed import CsvMatch, CsvSeason
from bot.services.season_rules import CARRY_RULE, season_name


@dataclass(slots=True)
class _Group:
    """The rows of one match label so far."""

    line: int
    status: str
    played_at: float | None = None
    entries: list[LineupEntry] = field(default_factory=list)


def parse_csv(data: bytes | str, now: float) -> tuple[list[CsvMatch], list[CsvSeason]]:
    """Matches and season starts of a CSV file, in file order; rows whose `status` column (if
    present) is not `applied` are skipped, so an export imports back to the same ratings.
    The rows of one match must agree on its played_at and status."""
    rows = _rows(decoded(data))
    columns, index = header_columns(next(rows, (1, []))[1])
    groups: dict[str, _Group] = {}
    seasons: dict[str, CsvSeason] = {}
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            raise UserError(
                N_("line {line}: {fields}, the header has {columns}"),
                line=line,
                fields=Counted("{count} field", "{count} fields", len(row)),
                columns=len(columns),
            )
        cells = {name: unmarked(row[position].strip()) for name, position in index.items()}
        label, status = cells["match"], cells.get("status", IMPORTED_STATUS)
        if not label:
            raise UserError(
                N_("line {line}: the match column is empty; give every match a label"), line=line
            )
        if label.startswith(SEASON_LABEL):
            season = parse_season(cells, line, now)
            if season.name in seasons:
                raise UserError(
                    N_(
                        "line {line}: season {name} is also on line {other}; one row per season "
                        "start"
                    ),
                    line=line,
                    name=quoted(season.name),
                    other=seasons[season.name].line,
                )
            seasons[season.name] = season
            continue
        try:
            match_label(label)
        except UserError as error:
            raise UserError(N_("line {line}: {problem}"), line=line, problem=error) from None
        if status not in STATUSES:
            raise UserError(
                N_("line {line}: status {value} must be one of {choices}"),
                line=line,
                value=quoted(status),
                choices=", ".join(STATUSES),
            )
        group = groups.setdefault(label, _Group(line, status))
        if status != group.status:
            raise UserError(
                N_(
                    "line {line}: match {label} has status {status}, but its first row (line "
                    "{first}) has {first_status}; one match, one status"
                ),
                line=line,
                label=quoted(label),
                status=quoted(status),
                first=group.line,
                first_status=quoted(group.status),
            )
        if status != IMPORTED_STATUS:
            continue
        try:
            entry, played_at = _parse_row(cells, now)
        except UserError as error:
            raise UserError(N_("line {line}: {problem}"), line=line, problem=error) from None
        if group.played_at is None:
            group.played_at = played_at
        elif group.played_at != played_at:
            raise UserError(
                N_(
                    "line {line}: match {label} has played_at {value}, but its first row (line "
                    "{first}) has another time; one match, one time"
                ),
                line=line,
                label=quoted(label),
                value=quoted(cells["played_at"]),
                first=group.line,
            )
        group.entries.append(entry)
    matches = [
        CsvMatch(label, group.line, group.played_at, tuple(group.entries))
        for label, group in groups.items()
        if group.played_at is not None
    ]
    return matches, list(seasons.values())


def header_columns(header: Sequence[str]) -> tuple[list[str], dict[str, int]]:
    """The header's column names, and where each column the import reads is."""
    if not header:
        raise UserError(
            N_("line 1: the CSV file is empty; its header is {header}"),
            header=",".join(IMPORT_COLUMNS),
        )
    columns = [name.strip().lower() for name in header]
    missing = [name for name in IMPORT_COLUMNS if name not in columns]
    if missing:
        raise UserError(
            N_("line 1: the header lacks {missing}; it needs {header}"),
            missing=", ".join(missing),
            header=",".join(IMPORT_COLUMNS),
        )
    index: dict[str, int] = {
        name: columns.index(name) for name in (*IMPORT_COLUMNS, "status") if name in columns
    }
    return columns, index


def parse_season(cells: Mapping[str, str], line: int, now: float) -> CsvSeason:
    """A season start row; UserError naming the line and the bad cell."""
    try:
        name = season_name(cells["match"][len(SEASON_LABEL) :])
        starts_at = parse_time(cells["played_at"], now)
        carry = parse_number(cells["score"])
        if not 0 <= carry <= 1:
            raise UserError(
                N_("carry (score) {value} must be {rule}"),
                value=quoted(cells["score"]),
                rule=CARRY_RULE,
            )
        for column in ("side", "player", "minutes"):
            if cells[column]:
                raise UserError(
                    N_("{column} {value} must be empty on a season start row"),
                    column=column,
                    value=quoted(cells[column]),
                )
    except UserError as error:
        raise UserError(N_("line {line}: {problem}"), line=line, problem=error) from None
    return CsvSeason(name, line, starts_at, carry)


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """The CSV rows, each with the line it starts on (a quoted line break makes a row span
    lines); a malformed one is a UserError naming its line."""
    reader = csv.reader(io.StringIO(text, newline=""))
    start = 1
    try:
        for row in reader:
            yield start, row
            start = reader.line_num + 1
    except csv.Error as error:
        raise UserError(
            N_("line {line}: {problem}"), line=reader.line_num, problem=str(error)
        ) from None


def _parse_row(cells: Mapping[str, str], now: float) -> tuple[LineupEntry, float]:
    """One applied row's participant and played_at; UserError naming the bad cell."""
    played_at = parse_time(cells["played_at"], now)
    side = side_label(cells["side"])
    player = parse_player(cells["player"])
    score, minutes = parse_number(cells["score"]), parse_number(cells["minutes"])
    if not valid_scores(score):
        raise UserError(
            N_("score {value} must be {rule}"),
            value=quoted(cells["score"]),
            rule=Phrase(SCORE_RULE),
        )
    if not valid_minutes(minutes):
        raise UserError(
            N_("minutes {value} must be {rule}"),
            value=quoted(cells["minutes"]),
            rule=Phrase(MINUTES_RULE),
        )
    return LineupEntry(player, side, score, minutes), played_at
