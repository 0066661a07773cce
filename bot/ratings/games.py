"""From applied matches to members' games (SPEC 3.2 and 3.3), over columns.

The input is one entry per enabled participant of an applied match (`Pairing`). A member's
games pair each of their entries with every entry of the same match on another side, newest
match first (by when it was played, then by match id), opponents by user id: each pair is one
game, with the result of the score-per-hour comparison, the opponent's rating before the match
(here converted to Elo units, SPEC 3.1), the opponent's user id as name, and the whole days
since the match. Pairs are index arrays into the entries, so no per-game object is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from bot.ratings.arrays import FloatArray, IntArray
from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import Game
from bot.ratings.ladder import rate_order, result_of
from bot.ratings.variants import GameArrays

ONE_DAY = timedelta(days=1)


def as_utc(moment: datetime) -> datetime:
    """Naive datetimes are UTC (the log stores UTC), so naive and aware compare cleanly."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def whole_days_between(earlier: datetime, later: datetime) -> int:
    """Whole days from earlier to later; 0 if earlier is (by clock skew) in the future."""
    return max(0, (as_utc(later) - as_utc(earlier)) // ONE_DAY)


def _runs(values: IntArray) -> tuple[IntArray, IntArray]:
    """Where each run of equal values starts, and how long it is."""
    firsts = np.flatnonzero(np.diff(values, prepend=values[:1] - 1))
    return firsts, np.diff(np.append(firsts, len(values)))


def match_order(match_id: IntArray, played_at: FloatArray, user_id: IntArray) -> IntArray:
    """The entries in match order: a match's entries together, newest match first (by when
    it was played, then by id), each match's users ascending; as
    `np.lexsort((user_id, -match_id, -played_at))`, but sorting matches rather than entries
    (a tenth as many): the entries are grouped by match (the log's own order already is:
    a stable sort finds it sorted), the matches are sorted, then each match's few users
    side by side in a table, one row per match."""
    grouped = np.argsort(match_id, kind="stable")
    matches = match_id[grouped]
    count = len(matches)
    firsts, sizes = _runs(matches)
    newest_first = np.lexsort((-matches[firsts], -played_at[grouped[firsts]]))
    row_of_match = np.empty(len(firsts), dtype=np.int64)
    row_of_match[newest_first] = np.arange(len(firsts))
    table = np.full((len(firsts), int(sizes.max(initial=0))), np.iinfo(np.int64).max)
    table[np.repeat(row_of_match, sizes), np.arange(count) - np.repeat(firsts, sizes)] = user_id[
        grouped
    ]
    places = np.argsort(table, axis=1, kind="stable") + firsts[newest_first, None]
    filled = np.arange(table.shape[1]) < sizes[newest_first, None]
    ordered: IntArray = grouped[places[filled]]
    return ordered


class Pairing:
    """Enabled participants of applied matches (one entry each, in any order) sorted once so
    that any members' games are index pairs found without a sort per pair: the members'
    entries newest match first, each paired with its match's entries by user id."""

    def __init__(
        self, match_id: IntArray, played_at: FloatArray, user_id: IntArray, side: IntArray
    ) -> None:
        self._by_match = match_order(match_id, played_at, user_id)
        firsts, lengths = _runs(match_id[self._by_match])
        self._match_first = np.repeat(firsts, lengths)
        """By place in match order: the place of the match's first entry, and its size."""
        self._match_size = np.repeat(lengths, lengths)
        self._side: IntArray = side[self._by_match]
        # Member order: by user, each user's entries in match order (newest first), from
        # one stable sort of the user ids. On the AMD Zen 4 hosts here, numpy's default
        # sort runs AVX-512 code that is slow on them: a plain sort and a second sort of
        # (user code, place) keys took 139 ms for 800,000 entries, this 80 ms.
        users = user_id[self._by_match]
        self._member_places: IntArray = np.argsort(users, kind="stable")
        """Places in match order, by member."""
        self._member_users: IntArray = users[self._member_places]
        firsts_of_users = np.diff(self._member_users, prepend=self._member_users[:1] - 1) != 0
        codes = np.cumsum(firsts_of_users) - 1
        self._codes = np.empty(len(match_id), dtype=np.int64)
        """By place in match order: the entry's user as a code from 0 (equal users, equal
        codes): small opponent codes keep the sort of GameArrays' opponent groups short."""
        self._codes[self._member_places] = codes

    def in_match_order(self, values: FloatArray) -> FloatArray:
        """An entry column (in the entries' own order) in match order, as `game_arrays`
        takes it."""
        ordered: FloatArray = values[self._by_match]
        return ordered

    def _places(self, members: IntArray) -> tuple[IntArray, IntArray]:
        """The match-order places of the members' entries (members ascending), by member,
        and the user of each."""
        if not len(members):
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        span = slice(
            int(np.searchsorted(self._member_users, members[0], side="left")),
            int(np.searchsorted(self._member_users, members[-1], side="right")),
        )
        users = self._member_users[span]
        found = np.searchsorted(members, users)
        chosen = members[np.minimum(found, len(members) - 1)] == users
        places: IntArray = self._member_places[span][chosen]
        return places, users[chosen]

    def _opponents(self, mine: IntArray) -> tuple[IntArray, IntArray]:
        """The match-order places of the opponents of the entries at places `mine`, entry by
        entry (each entry's match in match order), and how many each entry has."""
        sizes = self._match_size[mine]
        starts = np.cumsum(sizes) - sizes
        candidates = np.repeat(self._match_first[mine] - starts, sizes)
        candidates += np.arange(len(candidates), dtype=np.int64)
        other_side = self._side[candidates] != np.repeat(self._side[mine], sizes)
        counts = (
            np.add.reduceat(other_side, starts, dtype=np.int64)
            if len(mine)
            else np.zeros(0, np.int64)
        )
        return candidates[other_side], counts

    def games(self, members: Sequence[int]) -> tuple[IntArray, IntArray]:
        """(member's entry, opponent's entry) of each game of the members (ascending ids), by
        member, newest match first, then opponent id: indices into the entries."""
        mine, _ = self._places(np.asarray(members, dtype=np.int64))
        opponents, counts = self._opponents(mine)
        return self._by_match[np.repeat(mine, counts)], self._by_match[opponents]

    def game_arrays(
        self, members: Sequence[int], score: FloatArray, minutes: FloatArray, ratings: FloatArray
    ) -> GameArrays:
        """One segment per member of `members` (ascending ids; one without entries: an empty
        segment), the games in the order of `games`: each game's result (SPEC 2.3 step 4),
        the opponent's rating and code (equal users, equal codes, from 0: short sorts of
        GameArrays' opponent groups). `score`, `minutes` and `ratings` (in Elo units) are
        every entry's in match order (`in_match_order`), so no column is gathered in the
        entries' own order."""
        wanted = np.asarray(members, dtype=np.int64)
        mine, users = self._places(wanted)
        opponents, counts = self._opponents(mine)
        order = rate_order(
            np.repeat(score[mine], counts),
            np.repeat(minutes[mine], counts),
            score[opponents],
            minutes[opponents],
        )
        ends = np.zeros(len(mine) + 1, dtype=np.int64)
        np.cumsum(counts, out=ends[1:])
        offsets = np.append(ends[np.searchsorted(users, wanted, side="left")], ends[-1])
        return GameArrays(result_of(order), ratings[opponents], self._codes[opponents], offsets)

    def blocks(self, members: Sequence[int], pairs: int) -> list[list[int]]:
        """The members (ascending ids) in consecutive blocks of about `pairs` candidate
        pairs each (a member's whole matches, so at most that many games): computing block
        by block bounds the memory of a whole guild's games."""
        wanted = np.asarray(members, dtype=np.int64)
        candidates = np.cumsum(np.r_[0, self._match_size[self._member_places]])
        reached = candidates[np.searchsorted(self._member_users, wanted, side="right")]
        block = reached // max(1, pairs)
        cuts = np.flatnonzero(np.diff(block)) + 1
        return [part.tolist() for part in np.split(wanted, cuts)] if len(wanted) else []


def game_results(
    score: FloatArray, opponent_score: FloatArray, minutes: FloatArray, opponent_minutes: FloatArray
) -> FloatArray:
    """Each game's result (SPEC 2.3 step 4): 1, 0.5 or 0 as the member's score per hour is
    above, equal to or below the opponent's (only the (member, opponent) pair, not a matrix)."""
    return result_of(rate_order(score, minutes, opponent_score, opponent_minutes))


def game_list(
    results: FloatArray,
    opponent_rating: FloatArray,
    opponent: IntArray,
    played_at: FloatArray,
    bridge: EloBridge,
    now: float,
) -> list[Game]:
    """The game list (SPEC 1.1) of one member's rows, in their order: opponent ratings in Elo
    units, opponents named by user id, ages in whole days from `played_at` to `now` (both
    POSIX timestamps)."""
    today = datetime.fromtimestamp(now, UTC)
    return [
        Game(
            float(result),
            float(rating),
            str(opponent_id),
            float(whole_days_between(datetime.fromtimestamp(moment, UTC), today)),
        )
        for result, rating, opponent_id, moment in zip(
            results.tolist(),
            bridge.to_elo(opponent_rating).tolist(),
            opponent.tolist(),
            played_at.tolist(),
            strict=True,
        )
    ]
