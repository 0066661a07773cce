"""The replay in one place (SPEC 2.5): from the stored log's columns (bot.storage.LogColumns)
to ratings, records and season closings through bot.ratings.replay, for every use case that
rates: the incremental apply of one match (replay_match), and the replay of a guild or of
its tail after a void, an edit, a settings change, an import or a recompute (replay_guild),
which also decides what to rewrite and which cached performances go (storage only writes).
No math here: one replay function rates, so what is stored is, bit for bit, a replay.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray

from bot.config import GuildSettings
from bot.ratings.ladder import LadderSettings, duel_changes, rating_changes
from bot.ratings.replay import MatchLog, Seasons, check_log, check_seasons, replay
from bot.ratings.replay import records as season_records
from bot.services.progress import stage
from bot.storage import (
    LOG_START,
    ChangedEntries,
    ImportedMatches,
    LogColumns,
    LogKey,
    MemberColumns,
    Season,
    WriteTransaction,
)
from bot.storage.database import NO_RECORD
from bot.storage.models import FloatArray, IntArray


def ladder_settings(settings: GuildSettings) -> LadderSettings:
    return LadderSettings(
        settings.t, settings.game_mult, settings.max_game_length, settings.initial_rating
    )


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
    records: list[dict[int, Record]] | None = None
    """If asked for: records_by_season of the log."""


@dataclass(frozen=True, slots=True)
class LogIndices:
    """int32 indices: half the memory of int64 over a million matches' entries."""

    match: NDArray[np.int32]
    player: NDArray[np.int32]
    members: IntArray  # user id of each player index
    season_starts: list[int]  # match positions


def log_indices(
    log: LogColumns, seasons: Sequence[SeasonStart], extra_members: Sequence[int] = ()
) -> LogIndices:
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
    return LogIndices(
        np.cumsum(is_first, dtype=np.int32) - 1,
        np.searchsorted(members, log.user_id).astype(np.int32),
        members,
        positions,
    )


def _checked(
    log: LogColumns,
    seasons: Sequence[SeasonStart],
    settings: LadderSettings,
    starts: Mapping[int, float] | None = None,
) -> tuple[MatchLog, Seasons, list[int]]:
    """The log checked once for bot.ratings.replay (players indexed by ascending user id,
    from starts[user] or initial_rating; with starts, its members too), its season starts,
    and the user id of each player index."""
    indexed = log_indices(log, seasons, list(starts or {}))
    members = indexed.members.tolist()
    start_ratings = (
        None
        if starts is None
        else [starts.get(user_id, settings.initial_rating) for user_id in members]
    )
    checked = check_log(
        indexed.match,
        indexed.player,
        log.side,
        log.score,
        log.minutes,
        len(members),
        settings,
        start_ratings,
    )
    carries = [season.carry for season in seasons]
    return checked, check_seasons(checked.match_count, indexed.season_starts, carries), members


def _by_member(counted: IntArray, members: Sequence[int]) -> list[dict[int, Record]]:
    return [
        {
            user_id: Record(*(int(value) for value in record))
            for user_id, record in zip(members, season.tolist(), strict=True)
        }
        for season in counted
    ]


def replay_log(
    log: LogColumns,
    starts: Mapping[int, float],
    settings: LadderSettings,
    seasons: Sequence[SeasonStart] = (),
    *,
    records: bool = False,
) -> ReplayResult:
    """The replay: apply the matches of `log` in order, and the season starts among them; a
    member's rating at the start is starts[user] or initial_rating. With season starts,
    starts must hold every rated member (a season start changes members who do not play
    after it): see ratings_at_start. records: also count the record per season of every
    member of the replay (as records_by_season), first, while the replay's results take
    no memory yet."""
    checked, season_starts, members = _checked(log, seasons, settings, starts)
    counted = _by_member(season_records(checked, season_starts), members) if records else None
    replayed = replay(checked, season_starts, settings)
    return ReplayResult(
        replayed.before,
        replayed.after,
        dict(zip(members, replayed.final.tolist(), strict=True)),
        [dict(zip(members, c.tolist(), strict=True)) for c in replayed.closing],
        counted,
    )


def replay_match(
    before: Sequence[float],
    sides: Sequence[object],
    scores: Sequence[float],
    minutes: Sequence[float],
    settings: LadderSettings,
) -> list[float]:
    """The incremental apply: the ratings after one match at the end of the log, from its
    rated participants' ratings before it, through the reference update of one match
    (rating_changes: 5x lighter than the wave replay of a one-match log). A replay of the
    whole log stores exactly these floats again: the replay's per-seat sums add in one
    order whatever the matches rated beside them (tests/services/test_replaying.py checks
    the two bit for bit on random matches, the log invariant tests after random use); a
    duel through duel_changes, the same update without numpy's cost per call."""
    if len(before) == 2 and sides[0] != sides[1]:
        light = duel_changes(before, scores, minutes, settings)
        if light is not None:
            return [float(before[0]) + light[0], float(before[1]) + light[1]]
    start = np.asarray(before, np.float64)
    changes = rating_changes(start, sides, scores, minutes, settings)
    return [float(rating) for rating in (start + changes).tolist()]


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
    checked, season_starts, members = _checked(log, seasons, LadderSettings())
    return _by_member(season_records(checked, season_starts), members)


def replay_season_start(
    ratings: Mapping[int, float], carry: float, settings: LadderSettings
) -> dict[int, float]:
    """The incremental season start at the end of the log (SPEC 9.1): the rated members'
    ratings after it, from theirs before it (its closing standings). It is the replay of a
    log of that one season start, so a later replay stores exactly these floats again."""
    empty = np.zeros(0, np.int64)
    nothing = np.zeros(0, np.float64)
    log = LogColumns(empty, empty, empty, empty, nothing, nothing, nothing, nothing)
    return replay_log(log, ratings, settings, [SeasonStart(0, carry)]).final


# --- a guild's log: replayed from a point, and stored --------------------------------------


def boundaries(log: LogColumns, crossed: Sequence[tuple[Season, int]]) -> list[SeasonStart]:
    """The season starts in `log` for replay_log: each at the first entry of the match that
    follows it (matches_before: applied matches between the replay's start and it)."""
    if not crossed:
        return []
    firsts = log.match_firsts().tolist()
    return [
        SeasonStart(firsts[before] if before < len(firsts) else len(log), season.carry)
        for season, before in crossed
    ]


async def starts_across(
    tx: WriteTransaction,
    guild_id: int,
    log: LogColumns,
    crossed: Sequence[tuple[Season, int]],
    seed: Mapping[int, float],
) -> dict[int, float]:
    """The ratings where a replay from inside the log begins, when it crosses season starts:
    the stored closing standings at the first one it crosses, the ratings before the
    entries before that, and `seed` (the players of a voided match) above all."""
    first_closing = await tx.closing_ratings(guild_id, crossed[0][0].number)
    starts = ratings_at_start(log, boundaries(log, crossed), {}, first_closing)
    starts.update(seed)
    return starts


async def store_closings(
    tx: WriteTransaction,
    guild_id: int,
    crossed: Sequence[tuple[Season, int]],
    replayed: ReplayResult,
) -> None:
    """Rewrite the closing standings of the seasons a replay crossed from its closings."""
    if not crossed:
        return
    previous = {later.number: earlier for earlier, later in pairwise(await tx.seasons(guild_id))}
    for (season, _), closing in zip(crossed, replayed.closing, strict=True):
        await tx.store_closing(season, previous.get(season.number), closing)


@dataclass(frozen=True, slots=True)
class Replayed:
    """What replay_guild did."""

    matches: int
    member_ids: frozenset[int]
    """Members whose rating was rewritten (every member for a whole-guild replay)."""
    changed: frozenset[int] = frozenset()
    """Members whose stored rating, record or games (their own or an opponent's rating in a
    match) differed from the replay: empty when the replay changed nothing."""


NOTHING_REPLAYED: Final = Replayed(0, frozenset())


async def replay_guild(
    tx: WriteTransaction,
    guild_id: int,
    settings: GuildSettings,
    start: LogKey | None,
    seed: Mapping[int, float] | None = None,
    touched: Collection[int] = (),
    unwritten: ImportedMatches | None = None,
) -> Replayed:
    """Replay the applied matches from `start` (None: the whole guild) and store what
    differs. A member's start rating: `seed`, else the rating_before of their first match in
    the replayed part, else their current rating (or initial_rating). `touched`: the members
    whose matches were added, voided or edited; their cached measures go, and a partial
    replay recounts their records (a whole-guild one counts everyone's). `unwritten`:
    matches just imported, read from memory, whose participants and log entries the
    replay's write inserts with their ratings (each written once, nothing read back)."""
    stage("reading the log")
    log = await tx.log_columns(guild_id, LOG_START if start is None else start, unwritten)
    crossed = await tx.seasons_from(guild_id, LOG_START if start is None else start)
    members = await tx.member_columns(guild_id)
    seasons = boundaries(log, crossed)
    if start is None:
        starts: dict[int, float] = {}
    elif crossed:  # season starts change everyone rated: start from their closings
        starts = await starts_across(tx, guild_id, log, crossed, seed or {})
    else:
        starts = await asyncio.to_thread(_starts, log, members, seed or {})
    # numpy work, off the event loop (SPEC 8.5)
    stage(f"replaying the matches ({len(log.match_firsts()):,})")
    result = await asyncio.to_thread(
        replay_log, log, starts, ladder_settings(settings), seasons, records=start is None
    )
    final: dict[int, float | None] = {**(seed or {}), **result.final}
    records = None if result.records is None else result.records[-1]
    writes = await asyncio.to_thread(_differences, log, result, members, final, records)
    stage(f"writing the ratings that changed ({len(writes.rows):,})")
    replayed = (LOG_START if start is None else start, result.before, result.after)
    await tx.write_replay(
        guild_id, replayed, writes.rows, writes.ratings, writes.records, unwritten
    )
    await store_closings(tx, guild_id, crossed, result)
    if start is not None and touched:
        await tx.recount_records(guild_id, list(touched))
    stale = writes.stale.union(touched)
    if stale:
        await tx.forget_performances(guild_id, sorted(stale))
    rewritten = members.user_id.tolist() if start is None else [*final, *touched]
    changed = writes.stale.union(writes.ratings, writes.records)
    return Replayed(len(log.match_firsts()), frozenset(rewritten), frozenset(changed))


def _starts(log: LogColumns, members: MemberColumns, seed: Mapping[int, float]) -> dict[int, float]:
    """The ratings where a replay from inside the log (crossing no season start) begins:
    `seed`, else each member's first stored rating before, else (matches imported after
    the member's last applied one) their current rating."""
    starts = {**ratings_at_start(log, (), {}, None), **seed}
    # A member with a stored rating before any entry has a start already: only the members
    # of entries without one can lack it (none after a void: no sort of the whole log).
    unrated = log.user_id[np.isnan(log.rating_before)]
    unseeded = np.setdiff1d(unrated, np.array(list(starts), np.int64))
    if not len(unseeded) or not len(members.user_id):
        return starts
    at = np.searchsorted(members.user_id, unseeded).clip(max=len(members.user_id) - 1)
    rating = members.rating[at]
    usable = (members.user_id[at] == unseeded) & ~np.isnan(rating)
    starts.update(zip(unseeded[usable].tolist(), rating[usable].tolist(), strict=True))
    return starts


@dataclass(frozen=True, slots=True)
class _Writes:
    """What a replay changes in storage."""

    rows: ChangedEntries
    """The log entries whose ratings differ."""
    ratings: dict[int, float | None]
    records: dict[int, tuple[int, int, int, int]]
    stale: set[int]
    """Members whose cached performances no longer hold: every player of a match with a
    changed rating (their opponents' ratings are their games)."""


def _differences(
    log: LogColumns,
    result: ReplayResult,
    members: MemberColumns,
    ratings: Mapping[int, float | None],
    records: Mapping[int, Record] | None,
) -> _Writes:
    """The replay's values that differ from the stored ones (compared with !=, so a replay
    of an unchanged log writes nothing), the final rating per member of `ratings` (None: no
    rated match left) and, with `records` (a whole-guild replay), every member's record (a
    member left out of either has no rating and no record). Worker-thread work: loops over
    up to every member."""
    changed = (result.before != log.rating_before) | (result.after != log.rating_after)
    firsts = log.match_firsts()
    # a match's entries are consecutive: whether any changed, per match, then per entry
    match_changed = np.logical_or.reduceat(changed, firsts) if len(firsts) else changed
    in_changed = np.repeat(match_changed, np.diff(np.append(firsts, len(log))))
    stale = set(np.unique(log.user_id[in_changed]).tolist())
    rows = ChangedEntries(
        log.match_id, log.position, result.before, result.after, np.flatnonzero(changed)
    )
    everyone = records is not None
    new_ratings: dict[int, float | None] = {}
    new_records: dict[int, tuple[int, int, int, int]] = {}
    stored = zip(
        members.user_id.tolist(),
        members.rating.tolist(),
        zip(
            *(
                column.tolist()
                for column in (members.games, members.wins, members.draws, members.losses)
            ),
            strict=True,
        ),
        strict=True,
    )
    for user_id, rating, record in stored:
        if everyone or user_id in ratings:
            new = ratings.get(user_id)
            if (None if math.isnan(rating) else rating) != new:
                new_ratings[user_id] = new
        if records is not None:
            games, wins, draws, losses = records.get(user_id, NO_RECORD)
            if (games, wins, draws, losses) != record:
                new_records[user_id] = (games, wins, draws, losses)
    return _Writes(rows, new_ratings, new_records, stale)
