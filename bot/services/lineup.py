"""Who played a match and how it went, before it is stored: the lineup (SPEC 4).

Pure functions. The lineup text of `/report scores` and `ladderbot report`, the team texts of
`/report team`, and the score-less reports of SPEC 2.4 (their scores come from
bot.ratings.ladder) all end up as one Lineup. Errors quote the offending entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from bot.config import DECIMAL, ascii_whole
from bot.ratings.ladder import duel_scores, placement_scores, team_scores
from bot.services.errors import N_, Phrase, UserError, free_text, quoted

MENTION: Final = re.compile(r"<@!?([^<>@\s]*)>")
"""A Discord mention; what is between `<@` and `>` must then be an id (parse_id)."""
GUEST: Final = re.compile(r"[^\s<>@|,~`]{1,32}")
"""The shape of a guest name; guest_name adds the printable-characters rule."""
NUMBER: Final = DECIMAL
"""A score or minutes as written (ASCII digits only)."""
ENTRY_FORMAT: Final = Phrase(N_('write each entry as "<player> <score> [<minutes>]"'))
MAX_ID: Final = 2**63 - 1
ID_RULE: Final = Phrase(N_("a decimal integer from 1 to 9223372036854775807 in the digits 0-9"))
"""The rule of an id, MAX_ID written out (a test checks they agree)."""
GUEST_RULE: Final = Phrase(
    N_("1 to 32 printable characters without spaces or any of < > @ | , ~ `")
)
SIDE_RULE: Final = Phrase(N_("1 to 32 printable characters without spaces"))
MAX_NAME_LENGTH: Final = 32


def parse_id(text: str, what: str = N_("user id")) -> int:
    """A Discord user or guild id (SPEC 7): ASCII digits, 1 <= id < 2^63; `what` (N_-marked)
    names it in the UserError ("user id", "guild id")."""
    number = ascii_whole(text, 1, MAX_ID)
    if number is None:
        raise UserError(
            N_("{what} {text} must be {rule}"), what=Phrase(what), text=quoted(text), rule=ID_RULE
        )
    return number


def _printable_word(text: str) -> bool:
    """1-32 characters, each printable and none a space (SPEC 7)."""
    return (
        1 <= len(text) <= MAX_NAME_LENGTH
        and text.isprintable()
        and not any(character.isspace() for character in text)
    )


def guest_name(text: str) -> str:
    """`text` if it is a valid guest name (SPEC 7, GUEST_RULE), else UserError quoting it."""
    if not (_printable_word(text) and GUEST.fullmatch(text)):
        raise UserError(N_("guest name {name} must be {rule}"), name=quoted(text), rule=GUEST_RULE)
    return text


def side_label(text: str) -> str:
    """`text` if it is a valid side label (SPEC 7, SIDE_RULE), else UserError quoting it."""
    if not _printable_word(text):
        raise UserError(N_("side label {label} must be {rule}"), label=quoted(text), rule=SIDE_RULE)
    return text


@dataclass(frozen=True, slots=True)
class Player:
    """A member (Discord user id) or a guest (a name without a Discord account)."""

    user_id: int | None = None
    guest: str | None = None

    def __post_init__(self) -> None:
        if (self.user_id is None) == (self.guest is None):
            raise ValueError("a player is either a user id or a guest name")

    @property
    def label(self) -> str:
        return f"<@{self.user_id}>" if self.user_id is not None else str(self.guest)


@dataclass(frozen=True, slots=True)
class LineupEntry:
    player: Player
    side: str
    score: float
    minutes: float | None
    """None: the report's minutes, else the guild's max_game_length."""


Lineup = tuple[LineupEntry, ...]


def parse_player(text: str) -> Player:
    """`<@id>`, `<@!id>` or a guest name; UserError quoting the text otherwise."""
    mention = MENTION.fullmatch(text)
    if mention:
        return Player(user_id=parse_id(mention.group(1)))
    if GUEST.fullmatch(text):
        return Player(guest=guest_name(text))
    raise UserError(
        N_("{text} is not a player: mention a member (<@id>) or write a guest name ({rule})"),
        text=quoted(text),
        rule=GUEST_RULE,
    )


def _number(entry: str, what: str, text: str) -> float:
    if not NUMBER.fullmatch(text):
        raise UserError(
            N_("lineup entry {entry}: the {what} {text} is not a number; {format}"),
            entry=quoted(entry),
            what=Phrase(what),
            text=quoted(text),
            format=ENTRY_FORMAT,
        )
    return float(text)


def parse_entry(text: str, side: str) -> LineupEntry:
    entry = text.strip()
    tokens = entry.split()
    if not 2 <= len(tokens) <= 3:
        raise UserError(
            N_("lineup entry {entry}: {problem}"), entry=quoted(entry), problem=ENTRY_FORMAT
        )
    try:
        player = parse_player(tokens[0])
    except UserError as error:
        raise UserError(
            N_("lineup entry {entry}: {problem}"), entry=quoted(entry), problem=error
        ) from None
    score = _number(entry, N_("score"), tokens[1])
    minutes = _number(entry, N_("minutes"), tokens[2]) if len(tokens) == 3 else None
    return LineupEntry(player, side, score, minutes)


def parse_lineup(text: str) -> Lineup:
    """`<@1> 1200 18, <@2> 900 | <@3> 1500, guest_bob 300 12`: sides split by `|`, entries
    by `,`. Without `|` every entry is a side of its own (a free-for-all). Sides are labelled
    1, 2, ... in order."""
    free_text(text, N_("the lineup"))
    if not text.strip():
        raise UserError(
            N_("the lineup is empty; {format}, sides separated by |"), format=ENTRY_FORMAT
        )
    if "|" in text:
        groups = [side.split(",") for side in text.split("|")]
    else:
        groups = [[entry] for entry in text.split(",")]
    entries: list[LineupEntry] = []
    for number, group in enumerate(groups, start=1):
        if not "".join(group).strip():
            raise UserError(
                N_("side {number} of the lineup is empty; put players between the |"), number=number
            )
        entries.extend(parse_entry(entry, str(number)) for entry in group)
    return tuple(entries)


def parse_team(text: str) -> tuple[Player, ...]:
    """A team text of `/report team`: mentions and guest names, split by spaces or commas."""
    free_text(text, N_("the team"))
    tokens = re.findall(r"<@[^>]*>|[^\s,]+", text)
    if not tokens:
        raise UserError(N_("a team is empty: mention its members or write guest names"))
    return tuple(parse_player(token) for token in tokens)


def duel_lineup(
    winner: Player, loser: Player, *, draw: bool = False, minutes: float | None = None
) -> Lineup:
    winner_score, loser_score = duel_scores(draw=draw)
    return (
        LineupEntry(winner, "1", winner_score, minutes),
        LineupEntry(loser, "2", loser_score, minutes),
    )


def ffa_lineup(players: Sequence[Player], *, minutes: float | None = None) -> Lineup:
    """A free-for-all by placement: players listed first to last."""
    if len(players) < 2:
        raise UserError(N_("a free-for-all needs at least two players"))
    scores = placement_scores(len(players))
    return tuple(
        LineupEntry(player, str(place), score, minutes)
        for place, (player, score) in enumerate(zip(players, scores, strict=True), start=1)
    )


def team_lineup(
    team_a: Sequence[Player],
    team_b: Sequence[Player],
    winner: Literal["a", "b", "draw"],
    *,
    minutes: float | None = None,
) -> Lineup:
    if winner not in ("a", "b", "draw"):
        raise UserError(N_("winner must be a, b or draw, not {winner}"), winner=quoted(winner))
    players = [*team_a, *team_b]
    sides = ["a"] * len(team_a) + ["b"] * len(team_b)
    scores = team_scores(sides, None if winner == "draw" else winner)
    return tuple(
        LineupEntry(player, side, score, minutes)
        for player, side, score in zip(players, sides, scores, strict=True)
    )


class Seat(Protocol):
    """A stored participant as far as its lineup text goes (bot.storage.Participant fits)."""

    @property
    def user_id(self) -> int | None: ...

    @property
    def guest(self) -> str | None: ...

    @property
    def side(self) -> str: ...

    @property
    def score(self) -> float: ...

    @property
    def minutes(self) -> float: ...


def lineup_text(seats: Iterable[Seat]) -> str:
    """Participants as the lineup text of SPEC 4 (parse_lineup reads it back): sides in
    order of first appearance, each entry `player score minutes`."""
    sides: dict[str, list[str]] = {}
    for seat in seats:
        player = f"<@{seat.user_id}>" if seat.user_id is not None else str(seat.guest)
        sides.setdefault(seat.side, []).append(f"{player} {seat.score:g} {seat.minutes:g}")
    return " | ".join(", ".join(entries) for entries in sides.values())
