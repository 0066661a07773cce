"""What may be done to a match in which state, and by whom (SPEC 9.4): small pure rules, so
that the buttons, the slash commands and the command line refuse alike, each refusal saying
the match's state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Literal, Protocol

from bot.services.errors import N_, UserError
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

_REFUSED: Final[Mapping[tuple[Action, MatchStatus], str]] = {
    ("confirm", "applied"): N_(
        "match #{number} is applied; only a pending or disputed match can be confirmed"
    ),
    ("confirm", "void"): N_(
        "match #{number} is void; only a pending or disputed match can be confirmed "
        "(report it again if it happened)"
    ),
    ("dispute", "disputed"): N_(
        "match #{number} is disputed; only a pending match can be disputed"
    ),
    ("dispute", "applied"): N_(
        "match #{number} is applied; only a pending match can be disputed "
        "(a moderator can void it with /admin void)"
    ),
    ("dispute", "void"): N_("match #{number} is void; only a pending match can be disputed"),
    ("cancel", "applied"): N_(
        "match #{number} is applied; only a pending or disputed match can be cancelled "
        "(a moderator can void it with /admin void)"
    ),
    ("cancel", "void"): N_(
        "match #{number} is void; only a pending or disputed match can be cancelled"
    ),
    ("void", "void"): N_(
        "match #{number} is void; only a pending, disputed or applied match can be voided"
    ),
    ("edit", "disputed"): N_(
        "match #{number} is disputed; only a pending or applied match can be edited "
        "(a moderator confirms or voids it first)"
    ),
    ("edit", "void"): N_(
        "match #{number} is void; only a pending or applied match can be edited "
        "(report it again if it happened)"
    ),
}
"""The refusal of each action in each state it does not apply to (ALLOWED_STATES), whole
sentences so that each language words them its own way."""


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


def state_refusal(action: Action, match_id: int, status: MatchStatus) -> UserError | None:
    """Why `action` cannot be done to a match in `status` (naming the state), or None."""
    if status in ALLOWED_STATES[action]:
        return None
    return UserError(_REFUSED[action, status], number=match_id)


def check_state(action: Action, match_id: int, status: MatchStatus) -> None:
    """Raise UserError (saying the match's state) unless `action` applies to `status`."""
    refusal = state_refusal(action, match_id, status)
    if refusal is not None:
        raise refusal


def check_cancel(asker: Asker, match_id: int, status: MatchStatus, reporter_id: int | None) -> None:
    """The Cancel button: the reporter or a moderator withdraws a pending or disputed report
    (it becomes void). UserError otherwise; the state is checked first. An imported match
    has no reporter (None): only a moderator cancels it, whatever the asker's id."""
    check_state("cancel", match_id, status)
    if asker.user_id != reporter_id and not asker.is_moderator:
        raise UserError(
            N_("only the reporter or a moderator can cancel match #{number}"), number=match_id
        )


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
