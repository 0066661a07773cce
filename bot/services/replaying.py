"""Adapter from stored log rows (bot.storage.LogRow) to the ladder's replay
(bot.ratings.replay): no math here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from bot.ratings.ladder import LadderSettings
from bot.ratings.replay import replay_waves, season_records
from bot.storage import LogRow


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
    before: list[float]
    after: list[float]
    """Per row: the member's rating before and after that match."""
    final: dict[int, float]
    """Per member who appears or has a start rating: the rating at the end."""
    closing: list[dict[int, float]]
    """Per season start: the same members' ratings just before it (closing standings)."""


@dataclass(frozen=True, slots=True)
class _Columns:
    match: NDArray[np.int64]
    player: NDArray[np.int64]
    side: NDArray[np.int64]
    members: list[int]  # user id of each player index
    season_starts: list[int]  # match positions


def _columns(
    rows: Sequence[LogRow], seasons: Sequence[SeasonStart], extra_members: Sequence[int] = ()
) -> _Columns:
    """Integer columns of the rows and the season starts as match positions (ValueError if a
    season start falls inside a match or outside the rows)."""
    players: dict[int, int] = {}
    sides: dict[str, int] = {}
    first_of_match = [True, *(a.match_id != b.match_id for a, b in pairwise(rows))][: len(rows)]
    match_index = np.cumsum(first_of_match, dtype=np.int64) - 1
    player = np.array([players.setdefault(row.user_id, len(players)) for row in rows], np.int64)
    side = np.array([sides.setdefault(row.side, len(sides)) for row in rows], np.int64)
    for user_id in extra_members:
        players.setdefault(user_id, len(players))
    positions = []
    for number, season in enumerate(seasons):
        row = season.before_row
        if not 0 <= row <= len(rows):
            raise ValueError(f"season start {number}: before_row {row!r} must be 0 to {len(rows)}")
        if row == len(rows):
            positions.append(sum(first_of_match))
        elif not first_of_match[row]:
            raise ValueError(
                f"season start {number}: before_row {row!r} falls inside match "
                f"{rows[row].match_id}; it must be the first row of a match"
            )
        else:
            positions.append(int(match_index[row]))
    return _Columns(match_index, player, side, list(players), positions)


def replay_log(
    rows: Sequence[LogRow],
    starts: Mapping[int, float],
    settings: LadderSettings,
    seasons: Sequence[SeasonStart] = (),
) -> ReplayResult:
    """Apply the matches of `rows` (a match's rows consecutive, in log order) in order, and
    the season starts among them; a member's rating at the start is starts[user] or
    initial_rating. With season starts, starts must hold every rated member (a season
    start changes members who do not play after it): see ratings_at_start."""
    columns = _columns(rows, seasons, list(starts))
    start_ratings = np.array(
        [starts.get(user_id, settings.initial_rating) for user_id in columns.members], np.float64
    )
    replay = replay_waves(
        columns.match,
        columns.player,
        columns.side,
        [row.score for row in rows],
        [row.minutes for row in rows],
        len(columns.members),
        settings,
        start_ratings,
        columns.season_starts,
        [season.carry for season in seasons],
    )
    return ReplayResult(
        replay.before.tolist(),
        replay.after.tolist(),
        dict(zip(columns.members, replay.final.tolist(), strict=True)),
        [dict(zip(columns.members, c.tolist(), strict=True)) for c in replay.closing],
    )


def ratings_at_start(
    rows: Sequence[LogRow],
    seasons: Sequence[SeasonStart],
    current: Mapping[int, float],
    first_closing: Mapping[int, float] | None,
) -> dict[int, float]:
    """Every rated member's rating where `rows` begin, from stored data (the starts of a
    replay from a void, an edit or an import): the rating_before of their first row with one
    before the first season start among the rows; otherwise their closing rating at that
    season start (first_closing: its stored closing standings; required when seasons is
    not empty), or their current rating when no season start follows. A member found in
    none is unrated."""
    if seasons and first_closing is None:
        raise ValueError("first_closing (the closing standings of seasons[0]) is required")
    boundary = seasons[0].before_row if seasons else len(rows)
    ratings = dict(first_closing if seasons and first_closing is not None else current)
    seen: set[int] = set()
    for row in rows[:boundary]:
        # Rows without a rating before (matches just imported) were never applied: the
        # member's first applied row tells their rating.
        if row.user_id not in seen and row.rating_before is not None:
            seen.add(row.user_id)
            ratings[row.user_id] = row.rating_before
    return ratings


def records_by_season(
    rows: Sequence[LogRow], seasons: Sequence[SeasonStart] = ()
) -> list[dict[int, Record]]:
    """Per season among the rows (the one ending at each season start, then the current
    one): the record of every member who appears in the rows. Only the given rows count: for
    rows starting inside a season, add that season's record from before them."""
    columns = _columns(rows, seasons)
    records = season_records(
        columns.match,
        columns.player,
        columns.side,
        [row.score for row in rows],
        [row.minutes for row in rows],
        len(columns.members),
        columns.season_starts,
    )
    return [
        {
            user_id: Record(*(int(value) for value in record))
            for user_id, record in zip(columns.members, season.tolist(), strict=True)
        }
        for season in records
    ]
