"""A guild's matches and season starts as CSV (SPEC 5): numbers plain, every text cell
neutralised (SPEC 7), every cell that holds a comma, a quote or a line break quoted."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from bot.services.matchcsv.format import (
    EXPORT_COLUMNS,
    IMPORTED_STATUS,
    SEASON_LABEL,
    format_time,
    match_key,
    neutralised,
)
from bot.storage import Match, Season

NEEDS_QUOTES: Final = re.compile('[,"\r\n]')
"""What makes a cell quoted. csv.writer with LF line ends leaves a lone CR unquoted, and a
spreadsheet then starts a new row there: a label `x<CR>=1+2` would become a live formula."""


def export_matches(matches: Iterable[Match], seasons: Iterable[Season] = ()) -> str:
    """Every match, then every season start, as CSV; numbers plain, text cells neutralised."""
    lines = [_csv_line(EXPORT_COLUMNS)]
    for match in matches:
        label = neutralised(match_key(match.id, match.import_key))
        played_at = neutralised(format_time(match.played_at))
        status = neutralised(match.status)
        for p in match.participants:
            player = str(p.user_id) if p.user_id is not None else f"~{p.guest}"
            lines.append(
                _csv_line(
                    (
                        label,
                        played_at,
                        neutralised(p.side),
                        neutralised(player),
                        repr(p.score),
                        repr(p.minutes),
                        status,
                        "" if p.rating_before is None else repr(p.rating_before),
                        "" if p.rating_after is None else repr(p.rating_after),
                    )
                )
            )
    for season in seasons:
        lines.append(
            _csv_line(
                (
                    neutralised(SEASON_LABEL + season.name),
                    neutralised(format_time(season.starts_at)),
                    "",
                    "",
                    repr(season.carry),
                    "",
                    IMPORTED_STATUS,
                    "",
                    "",
                )
            )
        )
    return "".join(lines)


def _csv_line(cells: Sequence[str]) -> str:
    """One CSV line ending in LF, a cell quoted (its quotes doubled) when NEEDS_QUOTES."""
    return ",".join(_csv_cell(cell) for cell in cells) + "\n"


def _csv_cell(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"' if NEEDS_QUOTES.search(cell) else cell
