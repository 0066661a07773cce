"""Helpers of the rating tests that the bot itself does not use: the checked form of
grid_replay, the ratings before a stretch of the log, a ladder's largest move."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from bot.ratings.arrays import FloatArray
from bot.ratings.ladder import LadderSettings
from bot.ratings.replay import check_log, check_seasons, grid_replay


def max_change(ladder: LadderSettings) -> float:
    """The most points one participant can gain or lose in one match."""
    return ladder.game_mult * ladder.max_game_length


def replay_grid(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings,
    t: ArrayLike,
    game_mult: ArrayLike,
    first_row: int = 0,
    season_starts: ArrayLike = (),
    season_carry: ArrayLike = (),
) -> FloatArray:
    """grid_replay of the columns, checked (check_log, check_seasons)."""
    log = check_log(match, player, side, score, minutes, player_count, settings)
    seasons = check_seasons(log.match_count, season_starts, season_carry)
    return grid_replay(log, seasons, settings, t, game_mult, first_row)


def ratings_before(player: ArrayLike, rating_before: ArrayLike, current: ArrayLike) -> FloatArray:
    """Every player's rating just before a stretch of the log.

    A player in the stretch had the rating stored before its first row there; the others keep
    their current rating. To void or correct match k: take this over the rows of match k and
    its successors, then replay the successors from it (start_ratings). If season starts
    follow match k, take it over the rows up to the first of them only, with current = the
    closing ratings of that season start (a season start moves every player's rating).
    """
    players = np.asarray(player, dtype=np.int64)
    stored = np.asarray(rating_before, dtype=np.float64)
    ratings = np.array(current, dtype=np.float64)
    if players.shape != stored.shape:
        raise ValueError("player and rating_before must have one entry per row")
    present, first_row = np.unique(players, return_index=True)
    ratings[present] = stored[first_row]
    return ratings
