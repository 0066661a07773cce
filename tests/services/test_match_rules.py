"""The rules of SPEC 9.4 on match states and who may cancel: pure, no database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import pytest

from bot.services import Actor
from bot.services.errors import UserError
from bot.services.match_rules import (
    ALLOWED_STATES,
    Action,
    check_cancel,
    check_state,
    opponents_to_ask,
    state_refusal,
)
from bot.storage import MatchStatus

STATES: tuple[MatchStatus, ...] = get_args(MatchStatus)
ACTIONS: tuple[Action, ...] = get_args(Action)


@pytest.mark.parametrize(
    ("action", "allowed"),
    [
        ("confirm", {"pending", "disputed"}),
        ("dispute", {"pending"}),
        ("cancel", {"pending", "disputed"}),
        ("void", {"pending", "disputed", "applied"}),
        ("edit", {"pending", "applied"}),
    ],
)
def test_each_action_applies_to_its_states_only(action: Action, allowed: set[str]) -> None:
    for status in STATES:
        refusal = state_refusal(action, 7, status)
        assert (refusal is None) == (status in allowed)
        if refusal is not None:
            assert str(refusal).startswith(f"match #7 is {status}; only a ")
            with pytest.raises(UserError, match=f"match #7 is {status}"):
                check_state(action, 7, status)
        else:
            check_state(action, 7, status)


def test_every_action_has_its_states() -> None:
    assert set(ALLOWED_STATES) == set(ACTIONS)
    assert all(set(states) <= set(STATES) for states in ALLOWED_STATES.values())


@pytest.mark.parametrize(
    ("action", "status", "message"),
    [
        (
            "void",
            "void",
            "match #3 is void; only a pending, disputed or applied match can be voided",
        ),
        (
            "confirm",
            "void",
            "match #3 is void; only a pending or disputed match can be confirmed "
            "(report it again if it happened)",
        ),
        (
            "confirm",
            "applied",
            "match #3 is applied; only a pending or disputed match can be confirmed",
        ),
        (
            "cancel",
            "applied",
            "match #3 is applied; only a pending or disputed match can be cancelled "
            "(a moderator can void it with /admin void)",
        ),
        ("dispute", "disputed", "match #3 is disputed; only a pending match can be disputed"),
        (
            "edit",
            "disputed",
            "match #3 is disputed; only a pending or applied match can be edited "
            "(a moderator confirms or voids it first)",
        ),
    ],
)
def test_refusals_say_the_state(action: Action, status: MatchStatus, message: str) -> None:
    assert str(state_refusal(action, 3, status)) == message


@pytest.mark.parametrize("status", ["pending", "disputed"])
def test_the_reporter_or_a_moderator_may_cancel(status: MatchStatus) -> None:
    check_cancel(Actor(10), 4, status, reporter_id=10)
    check_cancel(Actor(99, is_moderator=True), 4, status, reporter_id=10)
    with pytest.raises(UserError, match="only the reporter or a moderator can cancel match #4"):
        check_cancel(Actor(11), 4, status, reporter_id=10)


@pytest.mark.parametrize("status", ["pending", "disputed"])
def test_a_match_without_reporter_is_cancelled_by_moderators_only(status: MatchStatus) -> None:
    """Issue 25 finding 5: "no reporter" is None, not 0, the command line's id."""
    check_cancel(Actor(0, is_moderator=True), 4, status, reporter_id=None)
    with pytest.raises(UserError, match="only the reporter or a moderator can cancel match #4"):
        check_cancel(Actor(0), 4, status, reporter_id=None)


@pytest.mark.parametrize("status", ["applied", "void"])
def test_nobody_cancels_a_decided_match(status: MatchStatus) -> None:
    for actor in (Actor(10), Actor(99, is_moderator=True)):
        with pytest.raises(UserError, match=f"match #4 is {status}"):
            check_cancel(actor, 4, status, reporter_id=10)


@dataclass(frozen=True)
class Seat:
    user_id: int | None
    side: str


def test_only_opponents_of_the_reporter_are_asked() -> None:
    seats = [Seat(1, "A"), Seat(2, "A"), Seat(3, "B"), Seat(None, "B"), Seat(4, "C"), Seat(3, "B")]
    assert opponents_to_ask(1, seats) == [3, 4]  # no teammate, no guest, nobody twice
    assert opponents_to_ask(3, seats) == [1, 2, 4]
    assert opponents_to_ask(50, seats) == [1, 2, 3, 4]  # a reporter who does not play
