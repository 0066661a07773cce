"""What the player card shows beyond the record, read from the member's part of the log.

Decisions the spec leaves open (SPEC 9.5):
- A match's result on the card: with two sides, the record's win/draw/loss (W/D/L); with
  more sides (a free-for-all, or several teams), the member's side's placement among the
  sides by total score, ties sharing the better place, shown "2nd/4".
- Streak and win rate follow the record (so a 2nd place of four that beats most opponents
  still counts as the win the record counts): the streak is the run of equal outcomes ending
  with the newest match ("W3", "D1", "L2"); the win rate is wins / matches.
- Peak: the highest ladder rating the member has held, their starting rating and the
  ratings a season start gave them included.
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
    """A point of the rating chart (SPEC 9.5): the rating after a match, or after a season
    start that moved it (carry)."""

    at: float
    """played_at of the match, or the season start's time (Unix seconds)."""
    rating: float
    match_id: int | None
    """None: a season start."""


@dataclass(frozen=True, slots=True)
class SeasonMove:
    """A season start that moved the member's rating (its carry)."""

    at: float
    """The start's time: it sorts before the matches applied at or after it."""
    rating: float
    """The rating after the carry."""


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
    """The rating after each match and each season start that moved it, in log order: the
    last point is the current rating."""


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
    applied_at: float
    match_id: int
    outcome: Outcome
    rating_before: float
    rating_after: float


def recent_ids(played: Sequence[Played], recent: int) -> list[int]:
    """The matches the form shows, newest first (their lineups give the placements)."""
    return [entry.match_id for entry in played[::-1][:recent]]


def rating_history(
    played: Sequence[Played], moves: Sequence[SeasonMove]
) -> tuple[RatingPoint, ...]:
    """The member's ratings after each match and each season start, in log order (a start
    sorts before the matches applied at or after its time, bot.storage.seasons)."""
    keyed = [
        (
            (entry.applied_at, entry.match_id),
            RatingPoint(entry.at, entry.rating_after, entry.match_id),
        )
        for entry in played
    ] + [((move.at, 0), RatingPoint(move.at, move.rating, None)) for move in moves]
    keyed.sort(key=lambda pair: pair[0])
    return tuple(point for _, point in keyed)


def card_stats(
    played: Sequence[Played],
    recent: Sequence[Match],
    user_id: int,
    moves: Sequence[SeasonMove] = (),
) -> CardStats:
    """Peak, streak, win rate, form and history of a member from their part of the log (in
    log order), the full matches of `recent_ids` (newest first) and the season starts that
    moved their rating."""
    outcomes = [entry.outcome for entry in played]
    start = played[0].rating_before if played else None
    history = rating_history(played, moves) if played else ()
    return CardStats(
        games=len(played),
        start=start,
        peak=max([start, *(point.rating for point in history)]) if start is not None else None,
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
        history=history,
    )
