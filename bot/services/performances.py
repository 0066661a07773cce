"""From stored participants (bot.storage.PlayedColumns) to game lists and performances: no SQL
and no math here; the columns go to bot.ratings.games.

The vectorized path builds bot.ratings.variants.GameArrays straight from the columns, so a
whole guild's performances take one pass per block of members and no per-game Python object;
`game_list` builds Game objects for the one member whose list is shown.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final, TypeVar

import numpy as np

from bot.ratings import games as column_games
from bot.ratings.arrays import FloatArray, IntArray
from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.performance import (
    performance_arrays,
    rating_accuracy_arrays,
    stability_arrays,
)
from bot.ratings.variants import GameArrays
from bot.storage import Performance, PlayedColumns

RATING_ACCURACY = "ra"
BLOCK_PAIRS: Final = 50_000
"""Members' games are computed in blocks of about this many: a whole guild's games at once
would take gigabytes (SPEC 8.5), and performances are per member, so blocks change nothing.
Small blocks' arrays (a few MB) stay with the allocator for the next block: blocks of
200,000 went back to the system and were faulted in again, 300,000 page faults and 0.5-0.9 s
of system time for 50,000 members (0.1-0.2 s in these)."""
WORKERS: Final = min(2, os.cpu_count() or 1)
"""Threads computing blocks at once: two keep a second core busy (numpy's loops run without
the GIL) without holding more than two blocks' games in memory."""
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class GameRows:
    """Members' games as columns, one row per (member, match, rated opponent on another
    side), grouped by member (ascending id), each member's newest match first."""

    member: IntArray
    played_at: FloatArray
    opponent: IntArray
    score: FloatArray
    minutes: FloatArray
    """The member's score and minutes in the match."""
    opponent_score: FloatArray
    opponent_minutes: FloatArray
    opponent_rating: FloatArray
    """The opponent's ladder rating before the match."""


def pairing(played: PlayedColumns) -> column_games.Pairing:
    return column_games.Pairing(played.match_id, played.played_at, played.user_id, played.side)


def game_rows(
    played: PlayedColumns, members: Sequence[int], paired: column_games.Pairing | None = None
) -> GameRows:
    """The games of the members (any order) among the participants, paired by `paired` (made
    from `played`; made here when not given)."""
    paired = paired or pairing(played)
    mine, theirs = paired.games(sorted(set(members)))
    return GameRows(
        played.user_id[mine],
        played.played_at[mine],
        played.user_id[theirs],
        played.score[mine],
        played.minutes[mine],
        played.score[theirs],
        played.minutes[theirs],
        played.rating_before[theirs],
    )


def _results(rows: GameRows) -> FloatArray:
    """Each game's result (SPEC 2.3 step 4)."""
    return column_games.game_results(
        rows.score, rows.opponent_score, rows.minutes, rows.opponent_minutes
    )


def game_arrays(
    played: PlayedColumns, paired: column_games.Pairing, bridge: EloBridge
) -> Callable[[Sequence[int]], GameArrays]:
    """The game arrays of any members (ascending ids) among the participants, paired by
    `paired` (made from `played`): one segment per member, opponent ratings in Elo units
    (SPEC 3.1). The columns are put in match order once, for every block of members."""
    score, minutes = paired.in_match_order(played.score), paired.in_match_order(played.minutes)
    ratings = np.asarray(bridge.to_elo(paired.in_match_order(played.rating_before)))
    return lambda members: paired.game_arrays(members, score, minutes, ratings)


def performances(games: GameArrays, measure: str, bridge: EloBridge) -> list[Performance]:
    """Each segment's measure in ladder units: a variant's RP with its stability, or RA."""
    if measure == RATING_ACCURACY:
        return [
            Performance(ra, math.nan, math.nan) for ra in rating_accuracy_arrays(games).tolist()
        ]
    rating, up, down = stability_arrays(games, measure)
    scale = bridge.points_per_elo
    return [
        Performance(value, plus * scale, minus * scale)
        for value, plus, minus in zip(
            np.asarray(bridge.from_elo(rating)).tolist(), up.tolist(), down.tolist(), strict=True
        )
    ]


def _by_blocks(
    played: PlayedColumns,
    user_ids: Sequence[int],
    bridge: EloBridge,
    compute: Callable[[GameArrays, list[int]], T],
) -> list[T]:
    """`compute` over the members' games (ascending ids), block by block of BLOCK_PAIRS
    games in WORKERS threads (numpy lets go of the GIL while it computes): each block's
    result, in block order. Numpy work over up to a whole guild, so callers run it in a
    worker thread."""
    paired = pairing(played)
    games_of = game_arrays(played, paired, bridge)
    blocks = paired.blocks(sorted(set(user_ids)), BLOCK_PAIRS)

    def block_result(block: list[int]) -> T:
        return compute(games_of(block), block)

    if len(blocks) > 1:
        with ThreadPoolExecutor(WORKERS) as pool:
            return list(pool.map(block_result, blocks))
    # a card's or a small guild's: starting a thread would cost more (~0.4 ms)
    return [block_result(block) for block in blocks]


def measured(
    played: PlayedColumns, user_ids: Sequence[int], measures: Sequence[str], bridge: EloBridge
) -> dict[tuple[int, str], Performance]:
    """The measures of the members by (user id, measure), with the stability of each RP."""

    def block_measures(
        games: GameArrays, block: list[int]
    ) -> list[tuple[tuple[int, str], Performance]]:
        return [
            ((user_id, measure), performance)
            for measure in measures
            for user_id, performance in zip(
                block, performances(games, measure, bridge), strict=True
            )
        ]

    parts = _by_blocks(played, user_ids, bridge, block_measures)
    return {key: performance for part in parts for key, performance in part}


def ranking_values(
    played: PlayedColumns, user_ids: Sequence[int], measure: str, bridge: EloBridge
) -> FloatArray:
    """The members' `measure` alone, in ladder units, by ascending user id: what a
    leaderboard ranks by. Without the stability, whose extended lists would double the
    solving."""

    def block_values(games: GameArrays, _: list[int]) -> FloatArray:
        if measure == RATING_ACCURACY:
            return rating_accuracy_arrays(games)
        return np.asarray(bridge.from_elo(performance_arrays(games, measure)))

    parts = _by_blocks(played, user_ids, bridge, block_values)
    return np.concatenate(parts) if parts else np.zeros(0)


def game_list(rows: GameRows, bridge: EloBridge, now: float) -> list[Game]:
    """The game list (SPEC 1.1) of the one member in `rows`: opponent ratings in Elo units,
    opponents named by user id, ages in whole days before `now`."""
    return column_games.game_list(
        _results(rows), rows.opponent_rating, rows.opponent, rows.played_at, bridge, now
    )
