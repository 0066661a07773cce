"""From stored game rows (bot.storage.GameRows) to game lists and performances: no SQL and
no math here; the columns go to bot.ratings.games.

The vectorized path builds bot.ratings.variants.GameArrays straight from the columns, so a
whole guild's performances take one pass and no per-game Python object; `game_list` builds
Game objects for the one member whose list is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.ratings import games as column_games
from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.performance import rating_accuracy_arrays, stability_arrays
from bot.ratings.variants import FloatArray, GameArrays
from bot.storage import GameRows, Performance

RATING_ACCURACY = "ra"


def _results(rows: GameRows) -> FloatArray:
    """Each game's result (SPEC 2.3 step 4)."""
    return column_games.game_results(
        rows.score, rows.opponent_score, rows.minutes, rows.opponent_minutes
    )


def game_arrays(rows: GameRows, members: Sequence[int], bridge: EloBridge) -> GameArrays:
    """One segment per member of `members` (in that order; no games: an empty segment),
    opponent ratings in Elo units (SPEC 3.1)."""
    return column_games.game_arrays(
        rows.member, rows.opponent, _results(rows), rows.opponent_rating, members, bridge
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
    return column_games.game_list(
        _results(rows), rows.opponent_rating, rows.opponent, rows.played_at, bridge, now
    )
