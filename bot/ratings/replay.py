"""Replaying a whole match log (SPEC 2.5): ratings are a function of the log.

The log is columnar: one row per enabled participant, the rows of a match contiguous and the
matches in log order. Two replays give the same ratings (to rounding):

- replay_sequential: one match after another through rating_changes, the reference;
- replay_waves: matches with disjoint players do not affect each other, so each match goes
  into wave 1 + the latest wave of any of its players, and a whole wave is rated at once
  (matches padded to a power-of-two number of seats, one row of seat pairs per match).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bot.ratings.ladder import (
    DEFAULT_SETTINGS,
    MINUTES_RULE,
    SCORE_RULE,
    FloatArray,
    LadderSettings,
    PairTerms,
    batch_rating_changes,
    pair_terms,
    rating_changes,
    valid_minutes,
    valid_scores,
)

IntArray = NDArray[np.integer[Any]]

CHUNK_PAIRS: Final = 1 << 15
"""Pair terms are prepared for about this many seat pairs at a time (bounds memory)."""
CHUNK_ROWS: Final = 1 << 18
"""Row-long passes go this many rows at a time (bounds memory)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """Per log row the rating before and after its match; per player the final rating."""

    before: FloatArray
    after: FloatArray
    final: FloatArray


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A checked columnar log plus where each match's rows are."""

    match: IntArray
    player: IntArray  # any integer type: compact columns are used as they are, not copied
    side: IntArray
    score: FloatArray
    minutes: FloatArray
    starts: NDArray[np.int32]  # first row of each match
    sizes: NDArray[np.int32]  # rows of each match
    start_ratings: FloatArray  # per player, before the log

    @property
    def match_count(self) -> int:
        return len(self.starts)

    def rows(self, match: int) -> slice:
        return slice(int(self.starts[match]), int(self.starts[match] + self.sizes[match]))


def _first_bad_row(valid: NDArray[np.bool_]) -> int | None:
    return None if valid.all() else int(np.flatnonzero(~valid)[0])


def check_log(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings = DEFAULT_SETTINGS,
    start_ratings: ArrayLike | None = None,
) -> MatchLog:
    """Validate the columns; a ValueError names the column and the first bad row.

    A player twice in one match is found with each row's next match (next_matches), which
    the wave replay needs anyway and the reference computes for the check alone.
    """
    columns = {
        "match": np.asarray(match),
        "player": np.asarray(player),
        "side": np.asarray(side),
        "score": np.asarray(score, dtype=np.float64),
        "minutes": np.asarray(minutes, dtype=np.float64),
    }
    row_count = len(columns["match"])
    if row_count >= 2**31:  # rows are int32 (and the low half of the keys of _rows_by_player)
        raise ValueError("a log of 2**31 rows or more is too long to replay at once")
    for name, column in columns.items():
        if column.ndim != 1 or len(column) != row_count:
            raise ValueError(f"{name} must be a flat array of {row_count} rows like match")
        if name in ("match", "player", "side") and not np.issubdtype(column.dtype, np.integer):
            if row_count:  # an empty list arrives as float64: nothing to misread
                raise ValueError(f"{name} must hold integers, not {column.dtype}")
            columns[name] = column.astype(np.int64)
    if player_count < 0:
        raise ValueError(f"player_count must be >= 0, not {player_count}")
    if start_ratings is None:
        ratings = np.full(player_count, settings.initial_rating, dtype=np.float64)
    else:
        ratings = np.array(start_ratings, dtype=np.float64)
        if ratings.shape != (player_count,):
            raise ValueError(f"start_ratings must hold one rating per player ({player_count})")
        bad = _first_bad_row(np.isfinite(ratings))
        if bad is not None:
            raise ValueError(
                f"start_ratings: player {bad} has {ratings[bad].item()!r}, not a number"
            )
    match_ = columns["match"]
    checks: tuple[tuple[str, Callable[[IntArray | FloatArray], NDArray[np.bool_]], str], ...] = (
        ("match", lambda _: np.append(True, match_[1:] >= match_[:-1]), "in log order"),
        ("player", lambda player: (player >= 0) & (player < player_count), "a player"),
        ("score", valid_scores, SCORE_RULE),
        ("minutes", valid_minutes, MINUTES_RULE),
    )
    for name, check, requirement in checks:  # one at a time: a row-long mask each
        bad = _first_bad_row(check(columns[name]))
        if bad is not None:
            value = columns[name][bad].item()
            raise ValueError(f"row {bad}: {name} {value!r} is not {requirement}")
    boundaries = np.append(True, match_[1:] != match_[:-1])[:row_count]
    starts = np.flatnonzero(boundaries).astype(np.int32)
    log = MatchLog(
        match_,
        columns["player"],
        columns["side"],
        columns["score"],
        columns["minutes"],
        starts,
        np.diff(starts, append=row_count),
        ratings,
    )
    if row_count:
        one_sided = np.maximum.reduceat(log.side, starts) == np.minimum.reduceat(log.side, starts)
        bad = _first_bad_row(~one_sided)
        if bad is not None:
            raise ValueError(
                f"match {match_[starts[bad]].item()!r}: every participant is on one side"
            )
    return log


def _rows_by_player(player: IntArray) -> NDArray[np.int64]:
    """Keys player << 32 | row, sorted: the rows grouped by player, in row order.

    One in-place sort of distinct int64 keys (so any sort is stable): faster than an argsort,
    and no 8-byte index array beside it.
    """
    keys = np.left_shift(player, 32, dtype=np.int64)
    for start in range(0, len(keys), CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, len(keys))
        keys[start:stop] |= np.arange(start, stop)
    keys.sort()
    return keys


def next_matches(log: MatchLog, out: NDArray[np.int32] | None = None) -> NDArray[np.int32]:
    """For every row, the match of the same player's next row (match_count if none).

    Raises ValueError if a player appears twice in one match (the next row in the same match).
    Built in place (in out if given) from the rows' own matches, a chunk of player-sorted rows
    at a time: each row's match is read (as the next row of the row before) before it is
    overwritten.
    """
    count = log.match_count
    keys = _rows_by_player(log.player)
    following = np.empty(len(keys), dtype=np.int32) if out is None else out
    following[:] = 0
    following[log.starts[1:]] = 1
    np.cumsum(following, out=following)  # the match of every row
    repeated: list[int] = []
    for start in range(0, len(keys), CHUNK_ROWS):
        chunk = keys[start : start + CHUNK_ROWS + 1]  # and the next row after it
        rows = (chunk & 0xFFFFFFFF).astype(np.intp)
        own, next_match = following[rows[:-1]], following[rows[1:]]
        same_player = (chunk[1:] >> 32) == (chunk[:-1] >> 32)
        repeated += rows[:-1][same_player & (next_match == own)].tolist()
        following[rows[:-1]] = np.where(same_player, next_match, count)
    if len(keys):
        following[keys[-1] & 0xFFFFFFFF] = count  # the last row of the last player
    if repeated:
        bad = min(repeated)
        raise ValueError(
            f"match {log.match[bad].item()!r}: player {log.player[bad].item()!r} appears twice"
        )
    return following


# --- the reference -------------------------------------------------------------------------


def replay_sequential(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings = DEFAULT_SETTINGS,
    start_ratings: ArrayLike | None = None,
) -> Replay:
    """One match after another through rating_changes (the reference for replay_waves)."""
    log = check_log(match, player, side, score, minutes, player_count, settings, start_ratings)
    next_matches(log)  # the check for repeated players
    ratings = log.start_ratings.copy()
    before = np.empty(len(log.player))
    after = np.empty(len(log.player))
    for index in range(log.match_count):
        rows = log.rows(index)
        players = log.player[rows]
        before[rows] = ratings[players]
        after[rows] = before[rows] + rating_changes(
            before[rows], log.side[rows].tolist(), log.score[rows], log.minutes[rows], settings
        )
        ratings[players] = after[rows]
    return Replay(before, after, ratings)


# --- the fast one --------------------------------------------------------------------------


def _next_match_table(log: MatchLog, scratch: NDArray[np.int32] | None) -> NDArray[np.int32]:
    """[matches, largest size]: the next match of each seat's player; match_count if none."""
    count = log.match_count
    following = next_matches(log, scratch)
    width = int(log.sizes.max())
    if (log.sizes == width).all():
        return following.reshape(count, width)
    table = np.full((count, width), count, dtype=np.int32)
    for size in np.unique(log.sizes).tolist():
        matches = np.flatnonzero(log.sizes == size)
        rows = log.starts[matches].astype(np.int32)[:, None] + np.arange(size, dtype=np.int32)
        table[matches, :size] = following[rows]
    return table


def wave_order(
    log: MatchLog, scratch: NDArray[np.int32] | None = None
) -> tuple[NDArray[np.int32], list[int]]:
    """The matches wave by wave (in log order within a wave), and the size of every wave.

    A match's wave is 1 + the latest wave of any of its players (the longest chain of
    matches sharing a player that leads to it), found by peeling: a match is ready once the
    previous matches of all its players are done. A few small numpy calls a wave: the sorted
    next matches of a wave give each match once, with how many of its players it frees.
    The order is written into one array made first, so that no small array a wave outlives
    the large temporaries (their freed memory would stay resident below it). scratch: room
    for a row-long int32 array, so that the largest temporary costs no memory of its own.
    """
    count = log.match_count
    order = np.empty(count, dtype=np.int32)
    sizes: list[int] = []
    following = _next_match_table(log, scratch)
    waiting = np.bincount(following.ravel(), minlength=count + 1)
    waiting[count] = -1  # the "no next match" slot: never ready
    ready = np.flatnonzero(waiting == 0)
    done = 0
    while ready.size:
        order[done : done + ready.size] = ready
        done += ready.size
        sizes.append(ready.size)
        freed = np.sort(following[ready], axis=None)
        ends = np.flatnonzero(np.append(freed[1:] != freed[:-1], True))  # of runs of equal
        freed = freed[ends]
        waiting[freed] -= np.diff(ends, prepend=-1)
        ready = freed[waiting[freed] == 0]
    return order, sizes


@dataclass(frozen=True, slots=True)
class Schedule:
    """The order of rating: wave by wave, each wave's matches grouped by seat count."""

    ordered: NDArray[np.int32]  # match indices
    bounds: list[int]  # batch b is ordered[bounds[b]:bounds[b + 1]]
    seats: list[int]  # of the matches of batch b
    chunk_starts: list[int]  # the first batch of every chunk of pair terms


def _seat_count(sizes: NDArray[np.integer[Any]]) -> NDArray[np.int64]:
    """Seats of each match: its size rounded up to a power of two (few shapes, little waste)."""
    return np.asarray(1 << np.ceil(np.log2(np.maximum(sizes, 2))).astype(np.int64), np.int64)


def schedule(log: MatchLog, scratch: NDArray[np.int32] | None = None) -> Schedule:
    """Waves (see wave_order), each split by seat count, grouped into chunks of pair terms."""
    ordered, wave_sizes = wave_order(log, scratch)
    wave_of = np.repeat(np.arange(len(wave_sizes), dtype=np.int32), wave_sizes)
    seats = _seat_count(log.sizes[ordered])
    if (seats != seats[0]).any():  # mixed sizes: group each wave's matches by seat count
        key = wave_of.astype(np.int64) * (int(seats.max()) + 1) + seats
        regroup = np.argsort(key, kind="stable")
        ordered, seats, wave_of = ordered[regroup], seats[regroup], wave_of[regroup]
    batch_starts = np.flatnonzero(np.diff(wave_of, prepend=-1) | np.diff(seats, prepend=-1))
    batch_pairs = np.add.reduceat(seats * (seats - 1) // 2, batch_starts)
    chunk_of_batch = (np.cumsum(batch_pairs) - batch_pairs) // CHUNK_PAIRS
    return Schedule(
        ordered,
        [*batch_starts.tolist(), len(ordered)],
        seats[batch_starts].tolist(),
        np.flatnonzero(np.diff(chunk_of_batch, prepend=-1)).tolist(),
    )


@dataclass(frozen=True, slots=True)
class SeatGroup:
    """The matches of one chunk padded to c seats: pair terms and room for their ratings."""

    rows: NDArray[np.int64]  # [K, c] log row per seat (empty seats repeat the match's first row)
    players: IntArray  # [K, c]; empty seats sit the spare player (past the last one)
    seated: NDArray[np.bool_]  # [K, c]
    terms: PairTerms
    before: FloatArray  # [K, c], filled wave by wave
    after: FloatArray


def _seat_group(
    log: MatchLog, matches: NDArray[np.int32], seats: int, settings: LadderSettings
) -> SeatGroup:
    starts = log.starts[matches][:, None]
    seat = np.arange(seats)
    seated = seat < log.sizes[matches][:, None]
    rows = np.where(seated, starts + seat, starts)
    players = log.player[rows]
    players[~seated] = len(log.start_ratings)
    terms = pair_terms(log.side[rows], log.score[rows], log.minutes[rows], seated, settings)
    return SeatGroup(rows, players, seated, terms, np.empty(rows.shape), np.empty(rows.shape))


def replay_waves(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings = DEFAULT_SETTINGS,
    start_ratings: ArrayLike | None = None,
) -> Replay:
    """The same replay as replay_sequential, a wave of independent matches at a time.

    Everything rating-free (waves, pair terms) is prepared in large numpy passes, a chunk of
    waves at a time (bounded memory); per wave only gather, rate, scatter remain.
    """
    log = check_log(match, player, side, score, minutes, player_count, settings, start_ratings)
    if not log.match_count:
        return Replay(np.empty(0), np.empty(0), log.start_ratings)
    before = np.empty(len(log.player))
    after = np.empty(len(log.player))
    # Scheduling lends after's memory (rated over later): its largest temporary, 4 bytes a
    # row, would otherwise come on top of the outputs' 16 and stay resident once freed.
    plan = schedule(log, scratch=after.view(np.int32)[: len(log.player)])
    ratings = np.append(log.start_ratings, 0.0)  # + the spare player of empty seats
    bounds = plan.bounds
    chunk_ends = [*plan.chunk_starts[1:], len(bounds) - 1]
    for first_batch, end_batch in zip(plan.chunk_starts, chunk_ends, strict=True):
        first, last = bounds[first_batch], bounds[end_batch]
        chunk = plan.ordered[first:last]
        chunk_seats = _seat_count(log.sizes[chunk])
        groups = {}
        positions = {}
        for count in np.unique(chunk_seats).tolist():
            mine = chunk_seats == count
            groups[count] = _seat_group(log, chunk[mine], count, settings)
            positions[count] = (np.cumsum(mine) - mine).tolist()  # index within the group
        for b in range(first_batch, end_batch):
            count = plan.seats[b]
            group = groups[count]
            k0 = positions[count][bounds[b] - first]
            k1 = k0 + bounds[b + 1] - bounds[b]
            players = group.players[k0:k1]
            current = np.take(ratings, players, out=group.before[k0:k1])
            updated = group.after[k0:k1]
            np.add(current, batch_rating_changes(current, group.terms[k0:k1], settings), updated)
            ratings[players] = updated
        for group in groups.values():
            seated = group.seated
            before[group.rows[seated]] = group.before[seated]
            after[group.rows[seated]] = group.after[seated]
    return Replay(before, after, ratings[:-1])


def ratings_before(player: ArrayLike, rating_before: ArrayLike, current: ArrayLike) -> FloatArray:
    """Every player's rating just before a stretch of the log.

    A player in the stretch had the rating stored before its first row there; the others keep
    their current rating. To void or correct match k: take this over the rows of match k and
    its successors, then replay the successors from it (start_ratings).
    """
    players = np.asarray(player, dtype=np.int64)
    stored = np.asarray(rating_before, dtype=np.float64)
    ratings = np.array(current, dtype=np.float64)
    if players.shape != stored.shape:
        raise ValueError("player and rating_before must have one entry per row")
    present, first_row = np.unique(players, return_index=True)
    ratings[present] = stored[first_row]
    return ratings
