"""From applied matches to members' games (SPEC 3.2 and 3.3), over columns.

The input is one row per (member, match, enabled participant of that match on another side):
the member's and the opponent's score and minutes, the opponent's user id and ladder rating
before the match, and when the match was played. Each row is one game: the result of the
score-per-hour comparison, the opponent's rating (here converted to Elo units, SPEC 3.1), the
opponent's user id as name, and the whole days since the match. Choosing and ordering the
rows (newest match first, opponents by user id) is the caller's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.ladder import rate_order, result_of
from bot.ratings.variants import FloatArray, GameArrays, IntArray

ONE_DAY = timedelta(days=1)


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are UTC (the log stores UTC), so naive and aware compare cleanly."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def whole_days_between(earlier: datetime, later: datetime) -> int:
    """Whole days from earlier to later; 0 if earlier is (by clock skew) in the future."""
    return max(0, (as_utc(later) - as_utc(earlier)) // ONE_DAY)


def game_results(
    score: FloatArray, opponent_score: FloatArray, minutes: FloatArray, opponent_minutes: FloatArray
) -> FloatArray:
    """Each game's result (SPEC 2.3 step 4): 1, 0.5 or 0 as the member's score per hour is
    above, equal to or below the opponent's (only the (member, opponent) pair, not a matrix)."""
    return result_of(rate_order(score, minutes, opponent_score, opponent_minutes))


def game_arrays(
    member: IntArray,
    opponent: IntArray,
    results: FloatArray,
    opponent_rating: FloatArray,
    members: Sequence[int],
    bridge: EloBridge,
) -> GameArrays:
    """One segment per member of `members` (in that order; no games: an empty segment) from
    rows grouped by `member` in ascending order; opponent ratings in Elo units (SPEC 3.1)."""
    wanted = np.array(members, dtype=np.int64)
    firsts = np.searchsorted(member, wanted, side="left")
    lengths = np.searchsorted(member, wanted, side="right") - firsts
    offsets = np.zeros(len(wanted) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    taken = np.repeat(firsts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    # Codes shared by all segments: equal within a segment means the same opponent.
    codes = np.unique(opponent, return_inverse=True)[1].astype(np.int64).ravel()
    return GameArrays(
        results=results[taken],
        ratings=np.asarray(bridge.to_elo(opponent_rating[taken]), dtype=np.float64),
        opponents=codes[taken],
        offsets=offsets,
    )


def game_list(
    results: FloatArray,
    opponent_rating: FloatArray,
    opponent: IntArray,
    played_at: FloatArray,
    bridge: EloBridge,
    now: float,
) -> list[Game]:
    """The game list (SPEC 1.1) of one member's rows, in their order: opponent ratings in Elo
    units, opponents named by user id, ages in whole days from `played_at` to `now` (both
    POSIX timestamps)."""
    today = datetime.fromtimestamp(now, UTC)
    return [
        Game(
            float(result),
            float(rating),
            str(opponent_id),
            float(whole_days_between(datetime.fromtimestamp(moment, UTC), today)),
        )
        for result, rating, opponent_id, moment in zip(
            results.tolist(),
            bridge.to_elo(opponent_rating).tolist(),
            opponent.tolist(),
            played_at.tolist(),
            strict=True,
        )
    ]
