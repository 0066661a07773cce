"""The game-list format of SPEC 1.1: one game per line, newest first."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

RESULTS = {"+": 1.0, "=": 0.5, "-": 0.0}
SIGNS = {value: sign for sign, value in RESULTS.items()}
DEFAULT_OPPONENT = "unknown"

_UNSIGNED = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_NUMBER = re.compile(r"[+-]?" + _UNSIGNED)
_DAYS = re.compile(_UNSIGNED)
_LINE_END = re.compile(r"\r\n|\r|\n")
_LAST_LINE_END = re.compile(r"(?:\r\n|\r|\n)\Z")

MAX_OPPONENT_RATING = 1e6
MAX_DAYS = 1e6
MAX_GAMES = 1_000_000
RATING_RULE = "a finite number from -1e6 to 1e6"
DAYS_RULE = "a finite number from 0 to 1e6"


class GameListError(ValueError):
    """A malformed line; the message names the line number and quotes the line."""

    def __init__(self, line_number: int, line: str, reason: str) -> None:
        super().__init__(f"line {line_number}: {reason}: {line.strip()!r}")
        self.line_number = line_number
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Game:
    """One game seen from the player: result w (1, 0.5, 0), opponent rating, name, age."""

    result: float
    rating: float
    opponent: str = DEFAULT_OPPONENT
    days: float = 0.0

    def __post_init__(self) -> None:
        if self.result not in SIGNS:
            raise ValueError(f"result must be 1, 0.5 or 0, not {self.result!r}")
        if not math.isfinite(self.rating):
            raise ValueError(f"rating must be a finite number, not {self.rating!r}")
        if not self.opponent or any(ch.isspace() for ch in self.opponent):
            raise ValueError(f"opponent must be a name without spaces, not {self.opponent!r}")
        if not (math.isfinite(self.days) and self.days >= 0):
            raise ValueError(f"days must be a non-negative number, not {self.days!r}")


def parse_line(line: str, line_number: int) -> Game | None:
    """One line to a Game; None for a blank line."""
    tokens = line.split()
    if not tokens:
        return None
    if len(tokens) > 3:
        raise GameListError(line_number, line, "too many fields (result+rating, name, days)")
    head = tokens[0]
    if head[0] not in RESULTS:
        raise GameListError(line_number, line, "the result must be '+', '=' or '-'")
    rating_text = head[1:]
    if not rating_text:
        raise GameListError(line_number, line, "the opponent rating is missing")
    if not _NUMBER.fullmatch(rating_text):
        raise GameListError(
            line_number, line, f"the opponent rating {rating_text!r} is not a number"
        )
    rating = float(rating_text)
    if not abs(rating) <= MAX_OPPONENT_RATING:
        raise GameListError(
            line_number, line, f"the opponent rating {rating_text!r} must be {RATING_RULE}"
        )
    opponent = tokens[1] if len(tokens) > 1 else DEFAULT_OPPONENT
    days = 0.0
    if len(tokens) > 2:
        days = float(tokens[2]) if _DAYS.fullmatch(tokens[2]) else math.nan
        if not days <= MAX_DAYS:
            raise GameListError(line_number, line, f"days {tokens[2]!r} must be {DAYS_RULE}")
    return Game(RESULTS[head[0]], rating, opponent, days)


def parse_games(text: str | Iterable[str]) -> list[Game]:
    """Parse a whole list (a string or lines); blank lines are skipped. Lines may end in
    \n, \r\n or \r; more than MAX_GAMES games are refused at the first one too many."""
    chunks = [text] if isinstance(text, str) else text
    lines = (line for chunk in chunks for line in _LINE_END.split(_LAST_LINE_END.sub("", chunk)))
    games: list[Game] = []
    for number, line in enumerate(lines, start=1):
        game = parse_line(line, number)
        if game is not None:
            if len(games) == MAX_GAMES:
                raise GameListError(number, line, f"a game list has at most {MAX_GAMES:,} games")
            games.append(game)
    return games


def format_number(value: float) -> str:
    """Integers without a decimal point, other values exactly (shortest round-trip), never
    in exponent notation, which the format does not accept."""
    if float(value).is_integer():
        return str(int(value))
    return format(Decimal(repr(float(value))), "f")


def format_game(game: Game) -> str:
    text = f"{SIGNS[game.result]}{format_number(game.rating)} {game.opponent}"
    return f"{text} {format_number(game.days)}" if game.days else text


def format_games(games: Iterable[Game]) -> str:
    return "".join(format_game(game) + "\n" for game in games)
