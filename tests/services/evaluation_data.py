"""A guild for the evaluation's service, command-line and Discord tests: the community of
known strengths of tests/ratings/test_evaluation.py as a CSV file to import."""

from __future__ import annotations

from bot.services.matchcsv.format import format_time
from tests.ratings.test_evaluation import known_community
from tests.ratings.test_replay import Columns

FIRST_PLAYED: float = 1_600_000_000.0
"""The first match's time; each later one a minute after the one before."""


def community(matches: int = 60, members: int = 12) -> Columns:
    """A small community of known strengths (player p is user p + 1 in the CSV)."""
    columns, _ = known_community(4, members, matches)
    return columns


def community_csv(columns: Columns, season: tuple[int, float] | None = None) -> str:
    """The matches as an import file (match m labelled `m<m>`, played m minutes after
    FIRST_PLAYED), and a season start (before match position, carry) when given."""
    lines = ["match,played_at,side,player,score,minutes"]
    for match, player, side, score, minutes in zip(*(c.tolist() for c in columns), strict=True):
        played = format_time(FIRST_PLAYED + 60.0 * match)
        lines.append(f"m{match},{played},{side},{player + 1},{score},{minutes}")
    if season is not None:
        position, carry = season
        lines.append(f"season:two,{format_time(FIRST_PLAYED + 60.0 * position - 30.0)},,,{carry},")
    return "\n".join(lines) + "\n"
