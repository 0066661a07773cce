"""The CSV's columns and cells: times, numbers, players and match labels as read and
written, match keys, and the formula neutralising of SPEC 7.

Hygiene (SPEC 7): an import reads UTF-8 with or without a BOM and any of `\\n`, `\\r\\n`,
`\\r`. An export puts a `'` before every text cell a spreadsheet would run as a formula; an
import drops one `'` that stands before such a start again, so an export imports back to the
same matches (and a cell re-saved by a spreadsheet, which drops the `'`, reads the same).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Final, get_args

from bot.services.errors import N_, Phrase, UserError, quoted
from bot.services.lineup import GUEST_RULE, ID_RULE, NUMBER, Player, guest_name, parse_id
from bot.storage import MatchStatus

IMPORT_COLUMNS: Final = ("match", "played_at", "side", "player", "score", "minutes")
EXPORT_COLUMNS: Final = (*IMPORT_COLUMNS, "status", "rating_before", "rating_after")
IMPORTED_STATUS: Final = "applied"
"""Rows with a `status` column are imported only with this status (an export's other
matches are pending, disputed or void)."""
STATUSES: Final[tuple[str, ...]] = get_args(MatchStatus)
SEASON_LABEL: Final = "season:"
"""A row whose match cell starts with this is a season start (SPEC 9.1): `season:<name>`,
played_at = where it stands in the log, score = its carry; side, player, minutes empty."""

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")
"""How a cell starts that a spreadsheet would run as a formula (SPEC 7)."""
FORMULA_MARK: Final = "'"

LATEST_AHEAD: Final = 86_400.0
"""How far past now a played_at may be: one day (clocks and time zones disagree)."""
PLAYED_AT_RULE: Final = Phrase(
    N_("an ISO-8601 time from 1970-01-01 to one day after now, such as 2024-05-01T18:30:00Z")
)
LABEL_LENGTH: Final = 64
LABEL_RULE: Final = Phrase(
    N_("1 to 64 printable characters, without control characters (no CR, LF, NUL)")
)
"""SPEC 7's bound on the `match` label, the import key: stored, indexed, exported again
(LABEL_LENGTH written out; a test checks they agree)."""
NATIVE_MARK: Final = "#"


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
        raise UserError(
            N_("played_at {value} must be {rule}"), value=quoted(text), rule=PLAYED_AT_RULE
        )
    return moment


def parse_number(text: str) -> float:
    """A decimal number (-0 read as 0), NaN when the text is none."""
    return float(text) + 0.0 if NUMBER.fullmatch(text) else math.nan


def parse_player(text: str) -> Player:
    """A user id (lineup.parse_id) or `~` and a guest name (lineup.guest_name)."""
    if text.startswith("~"):
        return Player(guest=guest_name(text[1:]))
    if text.isascii() and text.isdigit():
        return Player(user_id=parse_id(text, N_("player")))
    raise UserError(
        N_(
            "player {value} must be a Discord user id ({id_rule}) or ~ and a guest name "
            "({guest_rule})"
        ),
        value=quoted(text),
        id_rule=ID_RULE,
        guest_rule=GUEST_RULE,
    )


def match_label(text: str) -> str:
    """`text` if it is a valid match label (SPEC 7, LABEL_RULE), else UserError quoting it."""
    if not (1 <= len(text) <= LABEL_LENGTH and text.isprintable()):
        raise UserError(
            N_("match label {value} must be {rule}"), value=quoted(text), rule=LABEL_RULE
        )
    return text


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


def match_key(match_id: int, import_key: str | None) -> str:
    """The label an export gives a match: its import key, else `#<id>`."""
    return import_key if import_key is not None else f"{NATIVE_MARK}{match_id}"


def native_id(label: str) -> int | None:
    """The match id a `#<id>` label names (see match_key), else None."""
    digits = label.removeprefix(NATIVE_MARK).lstrip("0") or "0"
    if not (label.startswith(NATIVE_MARK) and digits.isascii() and digits.isdigit()):
        return None
    return int(digits) if len(digits) <= 19 and int(digits) < 2**63 else None


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
            N_("line {line}: the bytes {bytes} are not UTF-8; save the file as UTF-8"),
            line=line,
            bytes=repr(raw[error.start : error.end]),
        ) from None
