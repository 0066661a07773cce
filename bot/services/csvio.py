"""The match CSV of SPEC 5: `match,played_at,side,player,score,minutes` (+ export columns).

Pure text in and out. Parsing checks every row and names the line of the first bad one;
the ladder service then checks each match as a report (and names the match's first line).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from bot.ratings.ladder import MINUTES_RULE, SCORE_RULE, valid_minutes, valid_scores
from bot.services.errors import UserError
from bot.services.lineup import GUEST, NUMBER, LineupEntry, Player
from bot.storage import Match

IMPORT_COLUMNS: Final = ("match", "played_at", "side", "player", "score", "minutes")
EXPORT_COLUMNS: Final = (*IMPORT_COLUMNS, "status", "rating_before", "rating_after")


@dataclass(frozen=True, slots=True)
class CsvMatch:
    """One imported match: its label, first line, time and lineup."""

    label: str
    line: int
    played_at: float
    entries: tuple[LineupEntry, ...]

    @property
    def order(self) -> tuple[float, tuple[int, int | str]]:
        """played_at, ties by the match label (numerically when it is a number)."""
        label = (0, int(self.label)) if self.label.isdigit() else (1, self.label)
        return (self.played_at, label)


def format_time(moment: float) -> str:
    """Unix seconds as ISO-8601 UTC with a Z (microseconds only when there are any)."""
    stamp = datetime.fromtimestamp(moment, UTC)
    spec = "seconds" if stamp.microsecond == 0 else "microseconds"
    return stamp.isoformat(timespec=spec).replace("+00:00", "Z")


def parse_time(text: str) -> float:
    """ISO-8601 to Unix seconds; a time without zone is UTC."""
    stamp = datetime.fromisoformat(text.strip())
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()


def _number(text: str) -> float:
    return float(text) if NUMBER.fullmatch(text.strip()) else math.nan


def export_matches(matches: Iterable[Match]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for match in matches:
        for p in match.participants:
            player = str(p.user_id) if p.user_id is not None else f"~{p.guest}"
            writer.writerow(
                [
                    match.id,
                    format_time(match.played_at),
                    p.side,
                    player,
                    repr(p.score),
                    repr(p.minutes),
                    match.status,
                    "" if p.rating_before is None else repr(p.rating_before),
                    "" if p.rating_after is None else repr(p.rating_after),
                ]
            )
    return out.getvalue()


def parse_matches(text: str) -> list[CsvMatch]:
    """Matches of a CSV file, in file order; rows whose `status` column (if present) is not
    `applied` are skipped, so an export imports back to the same ratings."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if header is None:
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
    matches: dict[str, tuple[int, float, list[LineupEntry]]] = {}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            raise UserError(f"line {line}: {len(row)} fields, the header has {len(columns)}")
        cells: dict[str, str] = {name: row[position].strip() for name, position in index.items()}
        if "status" in cells and cells["status"] != "applied":
            continue
        label, entry, played_at = _parse_row(cells, line)
        first_line, when, entries = matches.setdefault(label, (line, played_at, []))
        if when != played_at:
            raise UserError(
                f"line {line}: match {label!r} has played_at {cells['played_at']!r}, but its "
                f"first row (line {first_line}) has another time; one match, one time"
            )
        entries.append(entry)
    return [
        CsvMatch(label, line, when, tuple(entries))
        for label, (line, when, entries) in matches.items()
    ]


def _parse_row(cells: Mapping[str, str], line: int) -> tuple[str, LineupEntry, float]:
    label = cells["match"]
    if not label:
        raise UserError(f"line {line}: the match column is empty; give every match a label")
    try:
        played_at = parse_time(cells["played_at"])
    except ValueError:
        raise UserError(
            f"line {line}: played_at {cells['played_at']!r} is not an ISO-8601 time "
            "such as 2024-05-01T18:30:00Z"
        ) from None
    side = cells["side"]
    if not side:
        raise UserError(f"line {line}: the side is empty; give every row a side label")
    player_text = cells["player"]
    if player_text.isdigit():
        player = Player(user_id=int(player_text))
    elif player_text.startswith("~") and GUEST.fullmatch(player_text[1:]):
        player = Player(guest=player_text[1:])
    else:
        raise UserError(
            f"line {line}: player {player_text!r} must be a Discord user id or ~guest_name"
        )
    score, minutes = _number(cells["score"]), _number(cells["minutes"])
    if not valid_scores(score):
        raise UserError(f"line {line}: score {cells['score']!r} must be {SCORE_RULE}")
    if not valid_minutes(minutes):
        raise UserError(f"line {line}: minutes {cells['minutes']!r} must be {MINUTES_RULE}")
    return label, LineupEntry(player, side, score, minutes), played_at
