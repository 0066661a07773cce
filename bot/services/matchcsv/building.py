"""An import's matches as stored: check_lineup's and build_participants' refusals and
records, for 100,000s of matches at once, as columns (bot.storage.NewMatchColumns).

A match the bulk checks flag goes through check_lineup and build_participants themselves,
so a refusal names the same problem in the same words as a report would.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

import numpy as np

from bot.config import GuildSettings
from bot.ratings.ladder import outcome_codes, side_codes
from bot.services.errors import N_, UserError
from bot.services.matchcsv.parsed import CsvMatches
from bot.services.matches import MAX_PARTICIPANTS, build_participants, check_lineup
from bot.storage import Member, NewMatchColumns
from bot.storage.models import BoolArray, IntArray

OUTCOME_NAMES: Final = np.array(["draw", "win", "loss"], dtype=object)
"""The record of each outcome code (0, 1, -1) of bot.ratings.ladder.outcome_codes."""
CELLS_PER_STEP: Final = 1 << 20
"""Pair results computed at once (matches x rated participants^2), bounding the memory."""


def imported_columns(
    parsed: CsvMatches,
    members: Mapping[int, Member],
    settings: GuildSettings,
    created_at: float,
    batch: str,
) -> NewMatchColumns:
    """The parsed matches as stored, applied, with their records; the first faulty one (in
    log order) refused as `line N (match 'label'): ...`. numpy work over every row: run in
    a worker thread."""
    known = _distinct(parsed.user_ids)
    flags = np.array(
        [
            (members[user_id].enabled, members[user_id].is_bot) if user_id else (False, False)
            for user_id in known.tolist()
        ],
        dtype=np.bool_,
    ).reshape(-1, 2)[np.searchsorted(known, parsed.user_ids)]
    enabled, bots = flags[:, 0], flags[:, 1]
    sides = side_codes(parsed.sides)
    _refuse_first_faulty(parsed, members, settings, enabled, bots, sides)
    outcomes = np.full(len(enabled), None, dtype=object)
    outcomes[enabled] = OUTCOME_NAMES[_outcomes(parsed, enabled, sides)]
    return NewMatchColumns(
        created_at,
        parsed.played_at,
        [f"import:{batch}:{label}" for label in parsed.labels],
        parsed.labels,
        parsed.firsts,
        parsed.user_ids,
        parsed.guests,
        parsed.sides,
        parsed.scores,
        parsed.minutes,
        enabled,
        outcomes,
    )


def _refuse_first_faulty(
    parsed: CsvMatches,
    members: Mapping[int, Member],
    settings: GuildSettings,
    enabled: BoolArray,
    bots: BoolArray,
    sides: IntArray,
) -> None:
    """Flag the matches check_lineup or build_participants may refuse (too many players, a
    player twice, a bot, rated players on fewer than two sides; scores and minutes the CSV
    read checked), then refuse the first that they do refuse."""
    match_of_row = parsed.match_of_rows()
    count = len(parsed)
    flagged = np.diff(parsed.firsts) > MAX_PARTICIPANTS
    flagged[match_of_row[bots]] = True
    player = parsed.user_ids.copy()
    guests = np.flatnonzero(player == 0)
    player[guests] = -1 - side_codes(parsed.guests[guests])
    sizes = np.diff(parsed.firsts)
    for matches, seats in _seats_by_size(np.minimum(sizes, MAX_PARTICIPANTS), parsed.firsts[:-1]):
        # a match of more seats is flagged already; its first ones are checked here too
        seated = np.sort(player[seats], axis=1)
        flagged[matches[(seated[:, 1:] == seated[:, :-1]).any(axis=1)]] = True
    side_count = int(sides.max(initial=0)) + 1
    rated_sides = _distinct(match_of_row[enabled] * side_count + sides[enabled])
    side_counts = np.bincount(rated_sides // side_count, minlength=count)
    flagged |= side_counts < 2
    for match in np.flatnonzero(flagged).tolist():
        entries = parsed.entries(match)
        try:
            check_lineup(entries, None)
            build_participants(entries, members, settings, None)
        except UserError as error:
            raise UserError(
                N_("line {line} (match {label}): {problem}"),
                line=parsed.lines[match],
                label=repr(parsed.labels[match]),
                problem=error,
            ) from None


def _outcomes(parsed: CsvMatches, enabled: BoolArray, sides: IntArray) -> IntArray:
    """The outcome code of each enabled row (in row order): match_outcomes of its match's
    rated participants, the matches with as many rated participants computed together."""
    rated = np.flatnonzero(enabled)
    per_match = np.bincount(parsed.match_of_rows()[rated], minlength=len(parsed))
    first_rated = np.concatenate(([0], np.cumsum(per_match)[:-1]))
    codes = np.zeros(len(rated), dtype=np.int64)
    for _, seats in _seats_by_size(per_match, first_rated):
        rows = rated[seats]
        codes[seats] = outcome_codes(sides[rows], parsed.scores[rows], parsed.minutes[rows])
    return codes


def _seats_by_size(counts: IntArray, firsts: IntArray) -> Iterator[tuple[IntArray, IntArray]]:
    """The matches with as many seats (`counts`, seats from `firsts` on) together, a few at a
    time: (the matches, a table of their seats, one row per match). Work per pair of seats
    is done on each table at once, its size bounded by CELLS_PER_STEP."""
    for size in sorted(set(counts.tolist())):
        matches = np.flatnonzero(counts == size)
        step = max(1, CELLS_PER_STEP // max(1, size * size))
        for start in range(0, len(matches), step):
            chosen = matches[start : start + step]
            yield chosen, firsts[chosen, None] + np.arange(size)


def _distinct(values: IntArray) -> IntArray:
    """The distinct values, ascending (np.unique, without its hashing of 100,000s)."""
    ordered = np.sort(values)
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]] if len(ordered) else ordered


def member_ids(user_ids: IntArray) -> list[int]:
    """The distinct members among participants' user ids (0: a guest), ascending."""
    return [int(user_id) for user_id in _distinct(user_ids[user_ids > 0])]
