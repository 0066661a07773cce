"""What may be done to a match in which state, and by whom (SPEC 9.4): small pure rules, so
that the buttons, the slash commands and the command line refuse alike, each refusal saying
the match's state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Literal, Protocol

from bot.services.errors import UserError
from bot.storage import MatchStatus

Action = Literal["confirm", "dispute", "cancel", "void", "edit"]

ALLOWED_STATES: Final[Mapping[Action, tuple[MatchStatus, ...]]] = {
    "confirm": ("pending", "disputed"),
    "dispute": ("pending",),
    "cancel": ("pending", "disputed"),
    "void": ("pending", "disputed", "applied"),
    "edit": ("pending", "applied"),
}
"""The states each action applies to; any other state is refused."""

_DONE: Final[Mapping[Action, str]] = {
    "confirm": "confirmed",
    "dispute": "disputed",
    "cancel": "cancelled",
    "void": "voided",
    "edit": "edited",
}
_HINTS: Final[Mapping[tuple[Action, MatchStatus], str]] = {
    ("cancel", "applied"): "a moderator can void it with /admin void",
    ("dispute", "applied"): "a moderator can void it with /admin void",
    ("confirm", "void"): "report it again if it happened",
    ("edit", "void"): "report it again if it happened",
    ("edit", "disputed"): "a moderator confirms or voids it first",
}


class Asker(Protocol):
    """Who asks (bot.services.Actor fits)."""

    @property
    def user_id(self) -> int: ...

    @property
    def is_moderator(self) -> bool: ...


class Seat(Protocol):
    """A participant as far as these rules care (bot.storage.Participant fits)."""

    @property
    def user_id(self) -> int | None: ...

    @property
    def side(self) -> str: ...


def _either(states: tuple[str, ...]) -> str:
    return states[0] if len(states) == 1 else f"{', '.join(states[:-1])} or {states[-1]}"


def state_refusal(action: Action, match_id: int, status: MatchStatus) -> str | None:
    """Why `action` cannot be done to a match in `status` (naming the state), or None."""
    allowed = ALLOWED_STATES[action]
    if status in allowed:
        return None
    hint = _HINTS.get((action, status))
    return (
        f"match #{match_id} is {status}; only a {_either(allowed)} match can be {_DONE[action]}"
        + (f" ({hint})" if hint else "")
    )


def check_state(action: Action, match_id: int, status: MatchStatus) -> None:
    """Raise UserError (saying the match's state) unless `action` applies to `status`."""
    refusal = state_refusal(action, match_id, status)
    if refusal is not None:
        raise UserError(refusal)


def check_cancel(asker: Asker, match_id: int, status: MatchStatus, reporter_id: int | None) -> None:
    """The Cancel button: the reporter or a moderator withdraws a pending or disputed report
    (it becomes void). UserError otherwise; the state is checked first. An imported match
    has no reporter (None): only a moderator cancels it, whatever the asker's id."""
    check_state("cancel", match_id, status)
    if asker.user_id != reporter_id and not asker.is_moderator:
        raise UserError(f"only the reporter or a moderator can cancel match #{match_id}")


def opponents_to_ask(reporter_id: int, seats: Iterable[Seat]) -> list[int]:
    """The members asked to confirm a report (and mentioned by its message): those on
    another side than every side the reporter plays on; once each, in lineup order. Guests
    are never asked; a reporter who does not play asks everyone."""
    listed = list(seats)
    reporter_sides = {seat.side for seat in listed if seat.user_id == reporter_id}
    asked = (
        seat.user_id
        for seat in listed
        if seat.user_id is not None and seat.side not in reporter_sides
    )
    return list(dict.fromkeys(asked))
