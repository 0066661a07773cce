"""The words and number formats shared by Discord, the web and the command line.

Decisions the spec leaves open:
- Every rating in text (ladder ratings, performance ratings in ladder units, team averages)
  has one decimal; JSON keeps the unrounded number. RA has two decimals (it is a ratio of
  spreads, not a rating).
- Sides of a match are teams, named "Team A", "Team B", …: a side labelled by a single
  letter is named by that letter, a side labelled by a number n by the n-th letter (a
  report's "a"/"b" and a lineup's 1st/2nd side are the same teams; a big free-for-all goes
  on with AA, AB, …); any other label (an imported one) is kept as it is.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from bot import PROGRAM
from bot.present.language import N_, NC_, Words
from bot.ratings.gamelist import Game, format_games
from bot.ratings.ladder import Outcome
from bot.services import Participant
from bot.services.changes import COMMAND_LINE_ID
from bot.services.errors import plural as plural  # the one plural, shared with the services
from bot.services.errors import quoted as quoted  # the one quote of user input
from bot.services.errors import shorten as shorten  # the one cut of long text
from bot.services.replaying import Replayed

if TYPE_CHECKING:
    from bot.present.evaluation import SettingsCommand

INFINITY_TEXT: Final = {True: "+inf", False: "-inf"}
"""A performance rating of ±∞ (only wins or only losses), in text and in JSON (SPEC 9.5)."""
UNDEFINED: Final = "undefined"
"""A performance rating of an empty game list."""
LETTERS: Final = string.ascii_uppercase
MAX_LETTERED: Final = 702
"""Side numbers up to this (ZZ) are named by letters."""


def rating_text(value: float) -> str:
    """A rating as people read it: one decimal, `+inf` / `-inf`, or `undefined`."""
    if math.isnan(value):
        return UNDEFINED
    if math.isinf(value):
        return INFINITY_TEXT[value > 0]
    return f"{value:.1f}"


def accuracy_text(value: float) -> str:
    """RA (SPEC 1.5): two decimals."""
    return UNDEFINED if math.isnan(value) else f"{value:.2f}"


def performance_text(value: float, up: float, down: float) -> str:
    """A performance rating with its stability, `RP +UP -DOWN`; just the rating (or +inf,
    -inf, undefined) when the stability is not known."""
    if not math.isfinite(value) or math.isnan(up) or math.isnan(down):
        return rating_text(value)
    return f"{rating_text(value)} +{rating_text(up)} -{rating_text(down)}"


def measure_text(by: str, value: float) -> str:
    """A leaderboard's value: a rating (ladder or performance), or RA."""
    return accuracy_text(value) if by == "ra" else rating_text(value)


def json_number(value: float) -> float | str | None:
    """A measure for JSON: finite values as numbers, ±∞ as "+inf" / "-inf", undefined (NaN)
    as null (SPEC 9.5)."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return INFINITY_TEXT[value > 0]
    return value


def rating_move(before: float, after: float, said: Words | None = None) -> str:
    """`before → after (change)` to one decimal, the change taken from the rounded ratings
    so the three numbers on screen add up; in the digits of `said`'s language when given
    (Discord), else as typed (the command line and the web)."""
    change = round(after, 1) - round(before, 1)
    if said is not None:
        return f"{said.rating(before)} → {said.rating(after)} ({said.signed(change, 1)})"
    shown_before, shown_after = rating_text(before), rating_text(after)
    return f"{shown_before} → {shown_after} ({float(shown_after) - float(shown_before):+.1f})"


STATUS_WORDS: Final = {
    "pending": N_("pending"),
    "disputed": N_("disputed"),
    "applied": N_("applied"),
    "void": N_("void"),
}
"""A match's state in one word (the web's match pages)."""
OUTCOME_WORDS: Final[dict[Outcome, str]] = {
    "win": N_("won"),
    "draw": N_("drew"),
    "loss": N_("lost"),
}
"""What a side or a player did in a match."""
OUTCOME_LETTERS: Final = {
    "W": NC_("outcome", "W"),
    "D": NC_("outcome", "D"),
    "L": NC_("outcome", "L"),
}
"""The letters of a win, draw and loss (the card's form, streak and record say W/D/L)."""


def outcome_text(result: str, said: Words) -> str:
    """A result (`W`, `L3`, `2nd/5`) with the win/draw/loss letter in the language."""
    letter = OUTCOME_LETTERS.get(result[:1])
    return result if letter is None else said.pgettext("outcome", letter) + result[1:]


VOID_NOTE: Final = N_("void, not counted")
NOT_RATED: Final = N_("not rated")


def participant_move(
    participant: Participant, status: str, said: Words | None = None
) -> str | None:
    """A participant's rating change as shown beside them (`move_text`)."""
    return move_text(
        participant.rating_before, participant.rating_after, participant.enabled, status, said
    )


def move_text(
    before: float | None,
    after: float | None,
    rated: bool,
    status: str,
    said: Words | None = None,
) -> str | None:
    """A rating change as shown beside its player: the move (in a void match marked
    VOID_NOTE: the replay took it back), "not rated" for a player the match does not rate,
    None while nothing is rated (a pending match); in `said`'s language when given."""
    say = said.gettext if said is not None else str
    if before is not None and after is not None:
        move = rating_move(before, after, said)
        return f"{move}, {say(VOID_NOTE)}" if status == "void" else move
    return None if rated else say(NOT_RATED)


def score_text(score: float) -> str:
    """A score: `1 point`, `1.5 points`, `1200 points`."""
    return f"{score:g} {'point' if score == 1 else 'points'}"


NAMED_ACTORS: Final[dict[int | None, str]] = {
    COMMAND_LINE_ID: N_("the command line"),
    None: N_("the bot"),  # the bot itself: an automatic confirmation, say
}


def actor_text(actor_id: int | None) -> str:
    """Who did something: the command line and the bot by those names, a Discord user as a
    mention."""
    return NAMED_ACTORS.get(actor_id, f"<@{actor_id}>")


def side_name(label: str) -> str:
    """A side of a match as people call it: "Team A" (see the module's decisions)."""
    if len(label) == 1 and label.isascii() and label.isalpha():
        return f"Team {label.upper()}"
    if label.isdecimal() and label.isascii() and 1 <= int(label) <= MAX_LETTERED:
        return f"Team {_letters(int(label))}"
    return f"Team {label}"


def team_words(label: str, said: Words) -> str:
    """A side as people call it ("Team A"), in a language."""
    return said.gettext(N_("Team {team}"), team=side_name(label).removeprefix("Team "))


def _letters(number: int) -> str:
    """1: A, 26: Z, 27: AA, 28: AB (as spreadsheet columns)."""
    letters = ""
    while number:
        number, rest = divmod(number - 1, len(LETTERS))
        letters = LETTERS[rest] + letters
    return letters


def team_name(number: int) -> str:
    """The `number`th team (1: "Team A")."""
    return side_name(str(number))


def member_text(name: str, user_id: int | None) -> str:
    """A member for the command line: the name, and the id when it says something more
    (an imported member's name is its id until Discord tells the bot the real one)."""
    if user_id is None or name == str(user_id):
        return name
    return f"{name} ({user_id})"


def setting_text(value: object) -> str:
    """A setting's value as a moderator types it: 12 (not 12.0), on / off (not True)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return number_text(value)
    return str(value)


def settings_changed(
    changed: Mapping[str, object], replayed: int | None, said: Words | None = None
) -> str:
    """What a settings change did: the new values, and the replay it made; with `said` a
    sentence in its language (Discord), else a line (the command line)."""
    values = ", ".join(f"{name} = {setting_text(value)}" for name, value in changed.items())
    if said is not None:
        if replayed is None:
            return said.gettext(N_("Changed {values}."), values=values)
        return said.ngettext(
            "Changed {values}; the server was replayed ({count} match).",
            "Changed {values}; the server was replayed ({count} matches).",
            replayed,
            values=values,
        )
    if replayed is None:
        return f"changed {values}"
    return f"changed {values}; the guild was replayed ({plural(replayed, 'match', 'matches')})"


def replayed_text(count: int, said: Words | None = None) -> str:
    """What a void or an edit replayed: `1 later match was replayed`, `3 … were …`; in
    `said`'s language when given (Discord), else as the command line prints it."""
    if said is not None:
        return said.ngettext(
            "{count} later match was replayed", "{count} later matches were replayed", count
        )
    verb = "was" if count == 1 else "were"
    return f"{plural(count, 'later match', 'later matches')} {verb} replayed"


def recompute_text(replayed: Replayed, said: Words | None = None) -> str:
    """What a recompute tells its caller: how much it replayed and whether that changed
    anything stored (SPEC 2.5: a replay of an intact log changes nothing); with `said` a
    sentence in its language (Discord), else a line (the command line)."""
    changed = len(replayed.changed)
    if said is not None:
        matches = said.ngettext("{count} match", "{count} matches", replayed.matches)
        if not changed:
            return said.gettext(N_("Replayed {matches}; nothing stored changed."), matches=matches)
        return said.ngettext(
            "Replayed {matches}; {count} member's ratings or records changed.",
            "Replayed {matches}; {count} members' ratings or records changed.",
            changed,
            matches=matches,
        )
    matches = plural(replayed.matches, "match", "matches")
    if not changed:
        return f"replayed {matches}; nothing stored changed"
    members = "1 member's" if changed == 1 else f"{changed} members'"
    return f"replayed {matches}; {members} ratings or records changed"


def imported_text(matches: int, seasons: int, replayed: int, skipped: int) -> str:
    """What an import did."""
    starts = f", {plural(seasons, 'season start')}" if seasons else ""
    return (
        f"imported {plural(matches, 'match', 'matches')}{starts}, replayed {replayed}, "
        f"skipped {skipped} already in the guild"
    )


def number_text(value: float) -> str:
    """A number as typed: 12 (not 12.0), 0.5, 1000000 (not 1e+06)."""
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


GAME_LIST_WORDS: Final = N_(
    "one game a line, newest first: `+` a win, `=` a draw, `-` a loss, then the opponent's "
    "rating in Elo units (400 points: 10 to 1 odds), the opponent's user id and how many "
    "days ago it was played"
)
"""What a game list (SPEC 1.1) says, in a player's words."""


def shown_games(games: Iterable[Game]) -> str:
    """A game list as a player reads it: opponent ratings to one decimal (still a game list
    that the p-commands read; `ladderbot gr` gives the exact one)."""
    return format_games(replace(game, rating=round(game.rating, 1)) for game in games)


def discord_settings_command(changes: Mapping[str, str]) -> str:
    """A settings change as the Discord command spells it: `/admin settings variant:p3`."""
    return "/admin settings " + " ".join(f"{name}:{value}" for name, value in changes.items())


def command_line_settings(guild_id: int) -> SettingsCommand:
    """A settings change of the guild as the command line spells it:
    `ladderbot settings --guild 5 variant=p3`."""

    def command(changes: Mapping[str, str]) -> str:
        values = " ".join(f"{name}={value}" for name, value in changes.items())
        return f"{PROGRAM} settings --guild {guild_id} {values}"

    return command
