"""What a read CSV file holds: its matches (as columns, in log order) and season starts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bot.services.lineup import LineupEntry, Player
from bot.storage.models import BoolArray, FloatArray, IntArray, ObjectArray


@dataclass(frozen=True, slots=True)
class CsvMatch:
    """One match as the row-wise read finds it: its label, first line, time and lineup."""

    label: str
    line: int
    played_at: float
    entries: tuple[LineupEntry, ...]

    @property
    def order(self) -> tuple[float, tuple[int, int, str]]:
        return log_order(self.played_at, self.label)


def log_order(played_at: float, label: str) -> tuple[float, tuple[int, int, str]]:
    """Where an imported match goes in the log: played_at, ties by the match label
    (numerically when it is ASCII digits)."""
    if label.isascii() and label.isdigit():
        digits = label.lstrip("0")
        return (played_at, (0, len(digits), digits))
    return (played_at, (1, 0, label))


@dataclass(frozen=True, slots=True)
class CsvSeason:
    """One imported season start: its name, line, place in the log (a time) and carry."""

    name: str
    line: int
    starts_at: float
    carry: float


@dataclass(frozen=True, slots=True)
class CsvMatches:
    """A CSV file's matches as columns, in log order: per match its label, first line and
    played_at; per participant (match after match, each in file order) player, side and
    numbers. Columns, not objects per row: an import reads 100,000s of rows."""

    labels: list[str]
    lines: list[int]
    played_at: FloatArray
    firsts: IntArray
    """Each match's first participant, then the participant count: match i is
    firsts[i]:firsts[i + 1]."""
    user_ids: IntArray
    """0 for a guest (ids start at 1)."""
    guests: ObjectArray
    """The guest name, None for a member."""
    sides: ObjectArray
    scores: FloatArray
    minutes: FloatArray

    def __len__(self) -> int:
        return len(self.labels)

    def entries(self, match: int) -> tuple[LineupEntry, ...]:
        """One match's lineup (to compare it, or name what is wrong with it)."""
        rows = range(int(self.firsts[match]), int(self.firsts[match + 1]))
        return tuple(
            LineupEntry(
                Player(guest=self.guests[row])
                if self.guests[row] is not None
                else Player(user_id=int(self.user_ids[row])),
                self.sides[row],
                float(self.scores[row]),
                float(self.minutes[row]),
            )
            for row in rows
        )

    def match_of_rows(self) -> IntArray:
        """The match of each participant row."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.firsts))

    def chosen(self, keep: BoolArray) -> CsvMatches:
        """The matches where `keep` is true, in the same order."""
        rows = keep[self.match_of_rows()]
        counts = np.diff(self.firsts)[keep]
        return CsvMatches(
            [label for label, kept in zip(self.labels, keep.tolist(), strict=True) if kept],
            [line for line, kept in zip(self.lines, keep.tolist(), strict=True) if kept],
            self.played_at[keep],
            np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
            self.user_ids[rows],
            self.guests[rows],
            self.sides[rows],
            self.scores[rows],
            self.minutes[rows],
        )

    @classmethod
    def of(cls, matches: Sequence[CsvMatch]) -> CsvMatches:
        """Matches read row by row (CsvMatch) as columns, in log order."""
        ordered = sorted(matches, key=lambda match: match.order)
        entries = [entry for match in ordered for entry in match.entries]
        counts = [len(match.entries) for match in ordered]
        return cls(
            [match.label for match in ordered],
            [match.line for match in ordered],
            np.array([match.played_at for match in ordered], dtype=np.float64),
            np.concatenate(([0], np.cumsum(counts, dtype=np.int64))).astype(np.int64),
            np.array([e.player.user_id or 0 for e in entries], dtype=np.int64),
            _objects([e.player.guest for e in entries]),
            _objects([e.side for e in entries]),
            np.array([e.score for e in entries], dtype=np.float64),
            np.array([e.minutes for e in entries], dtype=np.float64),
        )


def _objects(values: Sequence[object]) -> ObjectArray:
    """A list as a 1-d object array (np.array would nest sequences)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array
