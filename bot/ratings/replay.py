"""Replaying a whole match log (SPEC 2.5): ratings are a function of the log.

The log is columnar: one row per enabled participant, the rows of a match contiguous and the
matches in log order, checked once into a MatchLog (check_log) with its Seasons
(check_seasons). Two replays give the same ratings, bit for bit:

- replay_sequential: one match after another through rating_changes, the reference;
- replay (replay_waves for unchecked columns), the one every stored rating comes from:
  matches with disjoint players do not affect each other, so each match goes into wave
  1 + the latest wave of any of its players, and a whole wave is rated at once (matches
  padded to a power-of-two number of seats, one row of seat pairs per match; a seat's
  sums add in one order whatever the batch, bot.ratings.ladder.seat_sums).

grid_replay rates one log under many settings at once; records counts every player's
record per season (no ratings needed).

Season starts (SPEC 9.1) are entries of the log too: a position (how many of the log's matches
come before it) and a carry. There every player's rating r becomes initial_rating + carry ·
(r - initial_rating) (carry_over) and records restart. No wave spans a season start, so the
wave replay applies each one between two batches, exactly where the sequential one does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bot.ratings.arrays import BoolArray, FloatArray, IndexArray, IntArray
from bot.ratings.ladder import (
    DEFAULT_SETTINGS,
    MINUTES_RULE,
    SCORE_RULE,
    LadderSettings,
    PairTerms,
    batch_rating_changes,
    grid_rating_changes,
    pair_terms,
    rate_order,
    rating_changes,
    valid_minutes,
    valid_scores,
)

CHUNK_PAIRS: Final = 1 << 15
"""Pair terms are prepared for about this many seat pairs at a time (bounds memory)."""
CHUNK_ROWS: Final = 1 << 18
"""Row-long passes go this many rows at a time (bounds memory)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """Per log row the rating before and after its match; per player the final rating;
    closing[s]: every player's rating at season start s, before its carry-over."""

    before: FloatArray
    after: FloatArray
    final: FloatArray
    closing: FloatArray  # [season starts, players]


@dataclass(frozen=True, slots=True)
class Seasons:
    """Checked season starts: position (matches of the log before it) and carry of each."""

    position: IntArray
    carry: FloatArray

    @property
    def count(self) -> int:
        return len(self.position)

    def segment_of(self, match_index: IndexArray) -> NDArray[np.intp]:
        """For each match index: how many season starts come before it (its season)."""
        return np.searchsorted(self.position, match_index, side="right")


def check_seasons(
    match_count: int, season_starts: ArrayLike, season_carry: ArrayLike | None
) -> Seasons:
    """Validate season starts against a log of match_count matches; ValueError names the
    argument and the entry. Positions run from 0 (before the first match) to match_count
    (after the last), in log order; several may share a position (their carries compose).
    season_carry None: carries do not matter (records), taken as 0."""
    position = np.asarray(season_starts)
    if position.ndim != 1:
        raise ValueError("season_starts must be a flat array of match positions")
    if position.size and not np.issubdtype(position.dtype, np.integer):
        raise ValueError(f"season_starts must hold integers, not {position.dtype}")
    position = position.astype(np.int64)
    try:
        carry = np.asarray(np.zeros(len(position)) if season_carry is None else season_carry, float)
    except (TypeError, ValueError):
        raise ValueError(
            f"season_carry must hold numbers from 0 to 1, not {season_carry!r}"
        ) from None
    if carry.shape != position.shape:
        raise ValueError(
            f"season_carry must hold one carry per season start ({len(position)}), not {carry.size}"
        )
    bad = _first_bad_row((position >= 0) & (position <= match_count))
    if bad is not None:
        raise ValueError(
            f"season_starts[{bad}] {position[bad].item()!r} must be a match position from 0 "
            f"to {match_count} (the matches of the log before it)"
        )
    bad = _first_bad_row(np.append(True, position[1:] >= position[:-1])[: len(position)])
    if bad is not None:
        raise ValueError(
            f"season_starts[{bad}] {position[bad].item()!r} must not come before "
            f"season_starts[{bad - 1}] {position[bad - 1].item()!r} (season starts in log order)"
        )
    bad = _first_bad_row(np.isfinite(carry) & (carry >= 0) & (carry <= 1))
    if bad is not None:
        raise ValueError(f"season_carry[{bad}] {carry[bad].item()!r} must be a number from 0 to 1")
    return Seasons(position, carry)


def carry_over(ratings: ArrayLike, carry: float, initial_rating: float) -> FloatArray:
    """Ratings at a season start (SPEC 9.1): initial_rating + carry · (rating - initial_rating).

    carry 0 gives exactly initial_rating (a full reset), carry 1 the ratings unchanged.
    """
    kept = np.array(ratings, dtype=np.float64)
    if carry != 1.0:
        kept -= initial_rating
        kept *= carry
        kept += initial_rating
    return kept


@dataclass(frozen=True, slots=True)
class MatchLog:
    """A checked columnar log plus where each match's rows are."""

    match: IndexArray
    player: IndexArray  # any integer type: compact columns are used as they are, not copied
    side: IndexArray
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


def _first_bad_row(valid: BoolArray) -> int | None:
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
    checks: tuple[tuple[str, Callable[[IndexArray | FloatArray], BoolArray], str], ...] = (
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


def _rows_by_player(player: IndexArray) -> IntArray:
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
    season_starts: ArrayLike = (),
    season_carry: ArrayLike = (),
) -> Replay:
    """One match after another through rating_changes (the reference for replay_waves).

    start_ratings: every player's rating at the start of this log (default initial_rating);
    season_starts/season_carry: see check_seasons and carry_over.
    """
    log = check_log(match, player, side, score, minutes, player_count, settings, start_ratings)
    seasons = check_seasons(log.match_count, season_starts, season_carry)
    next_matches(log)  # the check for repeated players
    return _one_at_a_time(log, seasons, settings)


def _one_at_a_time(log: MatchLog, seasons: Seasons, settings: LadderSettings) -> Replay:
    """replay_sequential of a checked log."""
    ratings = log.start_ratings.copy()
    before = np.empty(len(log.player))
    after = np.empty(len(log.player))
    closing = np.empty((seasons.count, len(ratings)))
    season = 0
    for index in range(log.match_count + 1):
        while season < seasons.count and seasons.position[season] == index:
            closing[season] = ratings
            ratings = carry_over(ratings, float(seasons.carry[season]), settings.initial_rating)
            season += 1
        if index == log.match_count:
            break
        rows = log.rows(index)
        players = log.player[rows]
        before[rows] = ratings[players]
        after[rows] = before[rows] + rating_changes(
            before[rows], log.side[rows].tolist(), log.score[rows], log.minutes[rows], settings
        )
        ratings[players] = after[rows]
    return Replay(before, after, ratings, closing)


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
    log: MatchLog, scratch: NDArray[np.int32] | None = None, cuts: Sequence[int] = ()
) -> tuple[NDArray[np.int32], list[int]]:
    """The matches wave by wave (in log order within a wave), and the size of every wave.

    A match's wave is 1 + the latest wave of any of its players (the longest chain of
    matches sharing a player that leads to it), found by peeling: a match is ready once the
    previous matches of all its players are done. A few small numpy calls a wave: the sorted
    next matches of a wave give each match once, with how many of its players it frees.
    The order is written into one array made first, so that no small array a wave outlives
    the large temporaries (their freed memory would stay resident below it). scratch: room
    for a row-long int32 array, so that the largest temporary costs no memory of its own.
    cuts: match positions (ascending, inside the log) no wave spans: a match at or after a
    cut is held back until every match before it is done.
    """
    count = log.match_count
    order = np.empty(count, dtype=np.int32)
    sizes: list[int] = []
    following = _next_match_table(log, scratch)
    waiting = np.bincount(following.ravel(), minlength=count + 1)
    waiting[count] = -1  # the "no next match" slot: never ready
    ready = np.flatnonzero(waiting == 0)
    limits = [*cuts, count]
    held: list[IndexArray] = []  # ready, but after the current limit
    done = 0
    while True:
        if limits[0] < count:
            later = ready >= limits[0]
            if later.any():
                held.append(ready[later])
                ready = ready[~later]
        if not ready.size:
            if not held:
                break
            limits.pop(0)  # every match before the cut is done: cross it
            ready = np.sort(np.concatenate(held))
            held = []
            continue
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
    season_batches: list[int]  # per season start: the batch it comes before (len: after all)


def _seat_count(sizes: IndexArray) -> IntArray:
    """Seats of each match: its size rounded up to a power of two (few shapes, little waste)."""
    return np.asarray(1 << np.ceil(np.log2(np.maximum(sizes, 2))).astype(np.int64), np.int64)


def schedule(log: MatchLog, seasons: Seasons, scratch: NDArray[np.int32] | None = None) -> Schedule:
    """Waves (see wave_order, cut at the season starts), each split by seat count, grouped
    into chunks of pair terms."""
    cuts = sorted({k for k in seasons.position.tolist() if 0 < k < len(log.starts)})
    ordered, wave_sizes = wave_order(log, scratch, cuts)
    wave_of = np.repeat(np.arange(len(wave_sizes), dtype=np.int32), wave_sizes)
    seats = _seat_count(log.sizes[ordered])
    if (seats != seats[0]).any():  # mixed sizes: group each wave's matches by seat count
        key = wave_of.astype(np.int64) * (int(seats.max()) + 1) + seats
        regroup = np.argsort(key, kind="stable")
        ordered, seats, wave_of = ordered[regroup], seats[regroup], wave_of[regroup]
    batch_starts = np.flatnonzero(np.diff(wave_of, prepend=-1) | np.diff(seats, prepend=-1))
    batch_pairs = np.add.reduceat(seats * (seats - 1) // 2, batch_starts)
    chunk_of_batch = (np.cumsum(batch_pairs) - batch_pairs) // CHUNK_PAIRS
    # A batch lies wholly on one side of every cut: those before position k start below k.
    batch_first = ordered[batch_starts]
    return Schedule(
        ordered,
        [*batch_starts.tolist(), len(ordered)],
        seats[batch_starts].tolist(),
        np.flatnonzero(np.diff(chunk_of_batch, prepend=-1)).tolist(),
        [int(np.count_nonzero(batch_first < k)) for k in seasons.position.tolist()],
    )


@dataclass(frozen=True, slots=True)
class SeatGroup:
    """The matches of one chunk padded to c seats: pair terms and room for their ratings."""

    rows: IntArray  # [K, c] log row per seat (empty seats repeat the match's first row)
    players: IndexArray  # [K, c]; empty seats sit the spare player (past the last one)
    seated: BoolArray  # [K, c]
    terms: PairTerms
    before: FloatArray  # [..., K, c], filled wave by wave
    after: FloatArray


def _seat_group(
    log: MatchLog,
    matches: NDArray[np.int32],
    seats: int,
    settings: LadderSettings,
    lead: tuple[int, ...] = (),
) -> SeatGroup:
    starts = log.starts[matches][:, None]
    seat = np.arange(seats)
    seated = seat < log.sizes[matches][:, None]
    rows = np.where(seated, starts + seat, starts)
    players = log.player[rows]
    players[~seated] = len(log.start_ratings)
    terms = pair_terms(log.side[rows], log.score[rows], log.minutes[rows], seated, settings)
    shape = (*lead, *rows.shape)  # lead: the settings axis of a grid replay
    return SeatGroup(rows, players, seated, terms, np.empty(shape), np.empty(shape))


def replay_waves(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    settings: LadderSettings = DEFAULT_SETTINGS,
    start_ratings: ArrayLike | None = None,
    season_starts: ArrayLike = (),
    season_carry: ArrayLike = (),
) -> Replay:
    """replay of the columns, checked (check_log, check_seasons): the same replay as
    replay_sequential, a wave of independent matches at a time."""
    log = check_log(match, player, side, score, minutes, player_count, settings, start_ratings)
    return replay(log, check_seasons(log.match_count, season_starts, season_carry), settings)


def replay(log: MatchLog, seasons: Seasons, settings: LadderSettings) -> Replay:
    """The replay every rating comes from: the checked log (from its start ratings) and its
    season starts, a wave of independent matches at a time.

    Everything rating-free (waves, pair terms) is prepared in large numpy passes, a chunk of
    waves at a time (bounded memory); per wave only gather, rate, scatter remain. Season
    starts fall between batches (no wave spans one) and are applied there.
    """
    if not log.match_count:  # nothing to schedule: only season starts
        return _one_at_a_time(log, seasons, settings)
    before = np.empty(len(log.player))
    after = np.empty(len(log.player))
    # Scheduling lends after's memory (rated over later): its largest temporary, 4 bytes a
    # row, would otherwise come on top of the outputs' 16 and stay resident once freed.
    plan = schedule(log, seasons, scratch=after.view(np.int32)[: len(log.player)])
    ratings = np.append(log.start_ratings, 0.0)  # + the spare player of empty seats
    closing = _rate_waves(
        log,
        seasons,
        plan,
        settings,
        ratings,
        lambda current, terms: batch_rating_changes(current, terms, settings),
        (before, after),
        0,
    )
    return Replay(before, after, ratings[:-1], closing)


RateBatch = Callable[[FloatArray, PairTerms], FloatArray]
"""The changes of a batch's ratings [..., K, c] given its pair terms."""


def _rate_waves(
    log: MatchLog,
    seasons: Seasons,
    plan: Schedule,
    settings: LadderSettings,
    ratings: FloatArray,
    rate: RateBatch,
    outputs: tuple[FloatArray] | tuple[FloatArray, FloatArray],
    first_row: int,
) -> FloatArray:
    """Rate the planned batches in order, updating `ratings` [..., players + 1] (the last:
    the spare player of empty seats) in place, with the season starts between batches.
    outputs: before (and after, when wanted) [..., rows - first_row], filled for the rows
    from first_row.
    Returns the closing ratings [season starts, ..., players]."""
    lead = ratings.shape[:-1]
    closing = np.empty((seasons.count, *lead, ratings.shape[-1] - 1))
    resets: dict[int, list[int]] = {}  # batch -> the season starts just before it
    for season, batch in enumerate(plan.season_batches):
        resets.setdefault(batch, []).append(season)

    def start_seasons(batch: int) -> None:
        for season in resets.pop(batch, ()):
            closing[season] = ratings[..., :-1]
            ratings[..., :-1] = carry_over(
                ratings[..., :-1], float(seasons.carry[season]), settings.initial_rating
            )

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
            groups[count] = _seat_group(log, chunk[mine], count, settings, lead)
            positions[count] = (np.cumsum(mine) - mine).tolist()  # index within the group
        for b in range(first_batch, end_batch):
            if resets:
                start_seasons(b)
            count = plan.seats[b]
            group = groups[count]
            k0 = positions[count][bounds[b] - first]
            k1 = k0 + bounds[b + 1] - bounds[b]
            players = group.players[k0:k1]
            current = np.take(ratings, players, axis=-1, out=group.before[..., k0:k1, :])
            updated = group.after[..., k0:k1, :]
            np.add(current, rate(current, group.terms[k0:k1]), updated)
            ratings[..., players] = updated
        for group in groups.values():
            kept = group.seated & (group.rows >= first_row) if first_row else group.seated
            for output, rated in zip(outputs, (group.before, group.after), strict=False):
                output[..., group.rows[kept] - first_row] = rated[..., kept]
    start_seasons(len(bounds) - 1)  # the season starts after the last match
    return closing


def grid_replay(
    log: MatchLog,
    seasons: Seasons,
    settings: LadderSettings,
    t: ArrayLike,
    game_mult: ArrayLike,
    first_row: int = 0,
) -> FloatArray:
    """replay of a checked log from initial ratings under S settings at once: `settings`
    with t[s] and game_mult[s] for s < S. Returns the ratings before their match
    [S, rows - first_row] of the rows from first_row on.

    The waves and the pair terms do not depend on t or game_mult (the terms' points scale
    with game_mult), so they are prepared once; each batch is rated for every setting in
    the same numpy calls (bot.ratings.ladder.grid_rating_changes).
    """
    spreads = np.asarray(t, dtype=np.float64).ravel()
    multipliers = np.asarray(game_mult, dtype=np.float64).ravel()
    if spreads.shape != multipliers.shape:
        raise ValueError("t and game_mult must hold one value per setting")
    for values in zip(spreads.tolist(), multipliers.tolist(), strict=True):
        LadderSettings(*values, settings.max_game_length)  # ValueError naming a bad one
    if not 0 <= first_row <= len(log.player):
        raise ValueError(f"first_row must be 0 to {len(log.player)}, not {first_row!r}")
    before = np.empty((len(spreads), len(log.player) - first_row))
    if not log.match_count:
        return before
    ratings = np.tile(np.append(log.start_ratings, 0.0), (len(spreads), 1))
    points = multipliers / settings.game_mult
    _rate_waves(
        log,
        seasons,
        schedule(log, seasons),
        settings,
        ratings,
        lambda current, terms: grid_rating_changes(current, terms, spreads, points),
        (before,),  # the ratings after their match are not asked for
        first_row,
    )
    return before


RECORD_FIELDS: Final = ("games", "wins", "draws", "losses")
"""The columns of season_records."""


def row_outcomes(log: MatchLog) -> NDArray[np.int8]:
    """Per row +1 (win), 0 (draw) or -1 (loss): ladder.match_outcomes for every match at once,
    as the sign of the summed rate_order against the rows on other sides (the mean result
    is above 1/2 exactly when that sum is positive)."""
    outcome = np.empty(len(log.player), dtype=np.int8)
    for size in np.unique(log.sizes).tolist():
        matches = np.flatnonzero(log.sizes == size)
        step = max(1, CHUNK_ROWS // (size * size))  # [matches, size, size] at a time
        for first in range(0, len(matches), step):
            rows = log.starts[matches[first : first + step]][:, None] + np.arange(size)
            scores, minutes, sides = log.score[rows], log.minutes[rows], log.side[rows]
            order = rate_order(
                scores[:, :, None], minutes[:, :, None], scores[:, None, :], minutes[:, None, :]
            )
            order *= sides[:, :, None] != sides[:, None, :]
            outcome[rows] = np.sign(order.sum(axis=2))
    return outcome


def season_records(
    match: ArrayLike,
    player: ArrayLike,
    side: ArrayLike,
    score: ArrayLike,
    minutes: ArrayLike,
    player_count: int,
    season_starts: ArrayLike = (),
) -> IntArray:
    """records of the columns, checked (check_log, check_seasons)."""
    log = check_log(match, player, side, score, minutes, player_count)
    return records(log, check_seasons(log.match_count, season_starts, None))


def records(log: MatchLog, seasons: Seasons) -> IntArray:
    """[season starts + 1, players, 4]: every player's games, wins, draws and losses
    (RECORD_FIELDS) in each season of the checked log. Season s < seasons.count closes at
    season start s (its closing records); the last is the season still running. Ratings
    play no part, so records need no replay (nor start ratings for a partial log: add the
    records from before it)."""
    player_count = len(log.start_ratings)
    match_of_row = np.repeat(np.arange(log.match_count), log.sizes)
    key = seasons.segment_of(match_of_row) * player_count + log.player
    outcome = row_outcomes(log)
    size = (seasons.count + 1) * player_count
    counts = [
        np.bincount(key[chosen], minlength=size)
        for chosen in (slice(None), outcome == 1, outcome == 0, outcome == -1)
    ]
    return np.stack(counts, axis=1).reshape(seasons.count + 1, player_count, len(RECORD_FIELDS))
