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


@dataclass(frozen=True, slots=True)
class Played:
    """The member's part of one applied match in which they were rated."""

    at: float
    match_id: int
    outcome: Outcome
    rating_before: float
    rating_after: float


def recent_ids(played: Sequence[Played], recent: int) -> list[int]:
    """The matches the form shows, newest first (their lineups give the placements)."""
    return [entry.match_id for entry in played[::-1][:recent]]


def card_stats(played: Sequence[Played], recent: Sequence[Match], user_id: int) -> CardStats:
    """Peak, streak, win rate, form and history of a member from their part of the log (in
    log order) and the full matches of `recent_ids` (newest first)."""
    outcomes = [entry.outcome for entry in played]
    start = played[0].rating_before if played else None
    return CardStats(
        games=len(played),
        start=start,
        peak=max([start, *(entry.rating_after for entry in played)]) if start is not None else None,
        streak=_streak(outcomes),
        win_rate=outcomes.count("win") / len(outcomes) if outcomes else None,
        form=tuple(
            FormEntry(
                entry.match_id,
                entry.at,
                match_result(match, user_id),
                entry.rating_before,
                entry.rating_after,
            )
            for entry, match in zip(played[::-1], recent, strict=False)
        ),
        history=tuple(
            RatingPoint(entry.at, entry.rating_after, entry.match_id) for entry in played
        ),
    )
