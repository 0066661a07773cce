"""What the player card shows beyond the record, read from the member's part of the log.

Decisions the spec leaves open (SPEC 9.5):
- A match's result on the card: with two sides, the record's win/draw/loss (W/D/L); with
  more sides (a free-for-all, or several teams), the member's side's placement among the
  sides by total score, ties sharing the better place, shown "2nd/4".
- Streak and win rate follow the record (so a 2nd place of four that beats most opponents
  still counts as the win the record counts): the streak is the run of equal outcomes ending
  with the newest match ("W3", "D1", "L2"); the win rate is wins / matches.
- Peak: the highest ladder rating the member has held, their starting rating included.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from bot.storage import Match, Participant
from bot.storage.models import Outcome

OUTCOME_LETTER = {"win": "W", "draw": "D", "loss": "L"}


@dataclass(frozen=True, slots=True)
class RatingPoint:
    at: float
    """played_at of the match (Unix seconds)."""
    rating: float
    match_id: int


@dataclass(frozen=True, slots=True)
class FormEntry:
    """One recent match as the card shows it."""

    match_id: int
    played_at: float
    result: str
    """W, D or L (two sides), else the placement, e.g. "2nd/4"."""
    rating_before: float
    rating_after: float


@dataclass(frozen=True, slots=True)
class CardStats:
    games: int
    start: float | None
    """The rating before the member's first match; None without matches."""
    peak: float | None
    streak: str | None
    """e.g. "W3"; None without matches."""
    win_rate: float | None
    form: tuple[FormEntry, ...]
    """Newest first."""
    history: tuple[RatingPoint, ...]
    """The rating after each match, in log order."""


def rating_move(before: float, after: float) -> str:
    """`before → after (change)` to one decimal, the change taken from the rounded ratings
    so the three numbers on screen add up."""
    shown_before, shown_after = f"{before:.1f}", f"{after:.1f}"
    return f"{shown_before} → {shown_after} ({float(shown_after) - float(shown_before):+.1f})"


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st."""
    suffix = "th" if 11 <= place % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def _own(match: Match, user_id: int) -> Participant:
    return next(p for p in match.participants if p.user_id == user_id and p.enabled)


def match_result(match: Match, user_id: int) -> str:
    """The member's result in one applied match (see the module's decisions)."""
    own = _own(match, user_id)
    totals: dict[str, float] = defaultdict(float)
    for participant in match.participants:
        totals[participant.side] += participant.score
    if len(totals) <= 2:
        assert own.outcome is not None
        return OUTCOME_LETTER[own.outcome]
    place = 1 + sum(total > totals[own.side] for total in totals.values())
    return f"{ordinal(place)}/{len(totals)}"


def _streak(outcomes: Sequence[Outcome]) -> str | None:
    if not outcomes:
        return None
    newest = outcomes[-1]
    length = 0
    for outcome in reversed(outcomes):
        if outcome != newest:
            break
        length += 1
    return f"{OUTCOME_LETTER[newest]}{length}"


def _moved(participant: Participant) -> tuple[float, float]:
    """(rating before, rating after) of a rated participant of an applied match."""
    before, after = participant.rating_before, participant.rating_after
    assert before is not None and after is not None
    return before, after


def card_stats(matches: Sequence[Match], user_id: int, recent: int = 5) -> CardStats:
    """Peak, streak, win rate, form and history of a member from the applied matches in
    which they were rated, in log order."""
    own = [_own(match, user_id) for match in matches]
    moves = [_moved(p) for p in own]
    outcomes: list[Outcome] = [p.outcome for p in own if p.outcome is not None]
    newest_first = list(zip(matches, moves, strict=True))[::-1]
    return CardStats(
        games=len(matches),
        start=moves[0][0] if moves else None,
        peak=max([moves[0][0], *(after for _, after in moves)]) if moves else None,
        streak=_streak(outcomes),
        win_rate=outcomes.count("win") / len(outcomes) if outcomes else None,
        form=tuple(
            FormEntry(match.id, match.played_at, match_result(match, user_id), before, after)
            for match, (before, after) in newest_first[:recent]
        ),
        history=tuple(
            RatingPoint(match.played_at, after, match.id)
            for match, (_, after) in zip(matches, moves, strict=True)
        ),
    )
