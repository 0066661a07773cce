"""From stored game rows (bot.storage.GameRows) to game lists and performances: no SQL here.

The vectorized path builds bot.ratings.variants.GameArrays straight from the columns, so a
whole guild's performances take one pass and no per-game Python object; `game_list` builds
Game objects for the one member whose list is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.games import whole_days_between
from bot.ratings.ladder import pair_results
from bot.ratings.performance import rating_accuracy_arrays, stability_arrays
from bot.ratings.variants import FloatArray, GameArrays
from bot.storage import GameRows, Performance

RATING_ACCURACY = "ra"


def _results(rows: GameRows) -> FloatArray:
    """Each game's result (SPEC 2.3 step 4: score per hour against the opponent's)."""
    scores = np.stack([rows.score, rows.opponent_score], axis=-1)
    minutes = np.stack([rows.minutes, rows.opponent_minutes], axis=-1)
    return pair_results(scores, minutes)[:, 0, 1]


def game_arrays(rows: GameRows, members: Sequence[int], bridge: EloBridge) -> GameArrays:
    """One segment per member of `members` (in that order; no games: an empty segment),
    opponent ratings in Elo units (SPEC 3.1)."""
    wanted = np.array(members, dtype=np.int64)
    firsts = np.searchsorted(rows.member, wanted, side="left")
    lengths = np.searchsorted(rows.member, wanted, side="right") - firsts
    offsets = np.zeros(len(wanted) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    taken = np.repeat(firsts - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    # Codes shared by all segments: equal within a segment means the same opponent.
    codes = np.unique(rows.opponent, return_inverse=True)[1].astype(np.int64).ravel()
    return GameArrays(
        results=_results(rows)[taken],
        ratings=np.asarray(bridge.to_elo(rows.opponent_rating[taken]), dtype=np.float64),
        opponents=codes[taken],
        offsets=offsets,
    )


def performances(games: GameArrays, measure: str, bridge: EloBridge) -> list[Performance]:
    """Each segment's measure in ladder units: a variant's RP with its stability, or RA."""
    if measure == RATING_ACCURACY:
        return [Performance(float(ra), math.nan, math.nan) for ra in rating_accuracy_arrays(games)]
    rating, up, down = stability_arrays(games, measure)
    ladder = bridge.from_elo(rating)
    scale = bridge.points_per_elo
    return [
        Performance(float(value), float(plus * scale), float(minus * scale))
        for value, plus, minus in zip(ladder, up, down, strict=True)
    ]


def game_list(rows: GameRows, bridge: EloBridge, now: float) -> list[Game]:
    """The game list (SPEC 1.1) of the one member in `rows`: opponent ratings in Elo units,
    opponents named by user id, ages in whole days before `now`."""
    today = datetime.fromtimestamp(now, UTC)
    return [
        Game(
            float(result),
            float(rating),
            str(opponent),
            float(whole_days_between(datetime.fromtimestamp(played_at, UTC), today)),
        )
        for result, rating, opponent, played_at in zip(
            _results(rows).tolist(),
            bridge.to_elo(rows.opponent_rating).tolist(),
            rows.opponent.tolist(),
            rows.played_at.tolist(),
            strict=True,
        )
    ]
