"""Adapter from the stored log (bot.storage.LogColumns) to the ladder's replay
(bot.ratings.replay): no math here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from bot.ratings.evaluation import Evaluation, evaluate
from bot.ratings.ladder import LadderSettings
from bot.ratings.replay import replay_waves, season_records
from bot.storage import LogColumns
from bot.storage.models import FloatArray, IntArray


@dataclass(frozen=True, slots=True)
class SeasonStart:
    """A season start among the replayed rows (SPEC 9.1)."""

    before_row: int
    """It comes just before rows[before_row] (len(rows): after the last row)."""
    carry: float
    """In [0, 1]: the share of each rating's distance to initial_rating that is kept."""


class Record(NamedTuple):
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class ReplayResult:
    before: FloatArray
    after: FloatArray
    """Per entry of the log: the member's rating before and after that match."""
    final: dict[int, float]
    """Per member who appears or has a start rating: the rating at the end."""
    closing: list[dict[int, float]]
    """Per season start: the same members' ratings just before it (closing standings)."""


@dataclass(frozen=True, slots=True)
class _Indexed:
    """int32 indices: half the memory of int64 over a million matches' entries."""

    match: NDArray[np.int32]
    player: NDArray[np.int32]
    members: IntArray  # user id of each player index
    season_starts: list[int]  # match positions


def _indexed(
    log: LogColumns, seasons: Sequence[SeasonStart], extra_members: Sequence[int] = ()
) -> _Indexed:
    """Match and player indices of the log, and the season starts as match positions
    (ValueError if a season start falls inside a match or outside the log)."""
    firsts = log.match_firsts()
    is_first = np.zeros(len(log), bool)
    is_first[firsts] = True
    members = np.union1d(log.user_id, np.array(extra_members, np.int64))
    positions = []
    for number, season in enumerate(seasons):
        row = season.before_row
        if not 0 <= row <= len(log):
            raise ValueError(f"season start {number}: before_row {row!r} must be 0 to {len(log)}")
        if row < len(log) and not is_first[row]:
            raise ValueError(
                f"season start {number}: before_row {row!r} falls inside match "
                f"{log.match_id[row]}; it must be the first row of a match"
            )
        positions.append(int(np.searchsorted(firsts, row)))
    return _Indexed(
        np.cumsum(is_first, dtype=np.int32) - 1,
        np.searchsorted(members, log.user_id).astype(np.int32),
        members,
        positions,
    )


def replay_log(
    log: LogColumns,
    starts: Mapping[int, float],
    settings: LadderSettings,
    seasons: Sequence[SeasonStart] = (),
) -> ReplayResult:
    """Apply the matches of `log` in order, and the season starts among them; a member's
    rating at the start is starts[user] or initial_rating. With season starts, starts must
    hold every rated member (a season start changes members who do not play after it): see
    ratings_at_start."""
    indexed = _indexed(log, seasons, list(starts))
    members = indexed.members.tolist()
    start_ratings = np.array(
        [starts.get(user_id, settings.initial_rating) for user_id in members], np.float64
    )
    replay = replay_waves(
        indexed.match,
        indexed.player,
        log.side,
        log.score,
        log.minutes,
        len(members),
        settings,
        start_ratings,
        indexed.season_starts,
        [season.carry for season in seasons],
    )
    return ReplayResult(
        replay.before,
        replay.after,
        dict(zip(members, replay.final.tolist(), strict=True)),
        [dict(zip(members, c.tolist(), strict=True)) for c in replay.closing],
    )


def ratings_at_start(
    log: LogColumns,
    seasons: Sequence[SeasonStart],
    current: Mapping[int, float],
    first_closing: Mapping[int, float] | None,
) -> dict[int, float]:
    """Every rated member's rating where `log` begins, from stored data (the starts of a
    replay from a void, an edit or an import): the rating_before of their first entry with
    one before the first season start in the log; otherwise their closing rating at that
    season start (first_closing: its stored closing standings; required when seasons is
    not empty), or their current rating when no season start follows. A member found in
    none is unrated."""
    if seasons and first_closing is None:
        raise ValueError("first_closing (the closing standings of seasons[0]) is required")
    boundary = seasons[0].before_row if seasons else len(log)
    ratings = dict(first_closing if seasons and first_closing is not None else current)
    # Entries without a rating before (matches just imported) were never applied: the
    # member's first applied entry tells their rating.
    before = log.rating_before[:boundary]
    stored = ~np.isnan(before)
    users, first = np.unique(log.user_id[:boundary][stored], return_index=True)
    ratings.update(zip(users.tolist(), before[stored][first].tolist(), strict=True))
    return ratings


def records_by_season(
    log: LogColumns, seasons: Sequence[SeasonStart] = ()
) -> list[dict[int, Record]]:
    """Per season in the log (the one ending at each season start, then the current one):
    the record of every member who appears in it. Only the given entries count: for a log
    starting inside a season, add that season's record from before it."""
    indexed = _indexed(log, seasons)
    records = season_records(
        indexed.match,
        indexed.player,
        log.side,
        log.score,
        log.minutes,
        len(indexed.members),
        indexed.season_starts,
    )
    members = indexed.members.tolist()
    return [
        {
            user_id: Record(*(int(value) for value in record))
            for user_id, record in zip(members, season.tolist(), strict=True)
        }
        for season in records
    ]


def evaluate_log(
    log: LogColumns,
    seasons: Sequence[SeasonStart],
    settings: LadderSettings,
    last: int,
    tune: bool,
) -> Evaluation:
    """bot.ratings.evaluation.evaluate over a guild's whole log (with its season starts):
    players indexed by ascending user id, so a match's opponents go by user id (SPEC 3.3)."""
    indexed = _indexed(log, seasons)
    return evaluate(
        indexed.match,
        indexed.player,
        log.side,
        log.score,
        log.minutes,
        len(indexed.members),
        settings,
        last,
        indexed.season_starts,
        [season.carry for season in seasons],
        tune=tune,
    )
