"""The rules of seasons (SPEC 9.1): names, carries and summaries. The boundaries a replay
honours and the closing standings a replay rewrites are bot.services.replaying's.

A season start is an entry of the match log (bot.storage.seasons: its log key, how it orders
against matches). At a start every rated member's ladder rating r becomes initial_rating +
carry · (r - initial_rating) and records restart at 0; performance ratings and RA keep every
game. The season a start closes keeps its closing standings: each rated member's rating just
before the start and their record in the season, rewritten by any replay that crosses it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from bot.ratings.ladder import LadderSettings
from bot.services.errors import N_, Phrase, UserError, free_text, quoted
from bot.services.replaying import replay_season_start
from bot.storage import Season

NAME_LENGTH: Final = 32
NAME_RULE: Final = Phrase(N_("1 to 32 printable characters"))
"""NAME_LENGTH written out (a test checks they agree)."""
CARRY_RULE: Final = Phrase(N_("a number from 0 to 1"))
FIRST_SEASON: Final = "first"
"""The name of the season before the first season start (it began with the log)."""


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    """A season for /season list: its name, when it began and ended (None: under way), the
    carry it started with and how many members it closed with."""

    name: str
    started_at: float | None
    """None: the first season, which began with the log."""
    ended_at: float | None
    carry: float
    members: int


def season_name(text: str) -> str:
    """A season name as stored: trimmed, NAME_RULE (UserError otherwise)."""
    name = free_text(text, N_("season name"), quote=True).strip()
    if not 1 <= len(name) <= NAME_LENGTH or not name.isprintable():
        raise UserError(N_("season name {name} must be {rule}"), name=quoted(text), rule=NAME_RULE)
    return name


def new_season_name(text: str, taken: Sequence[Season]) -> str:
    """The name of a new season: season_name, not FIRST_SEASON nor a name in use."""
    name = season_name(text)
    if name == FIRST_SEASON:
        raise UserError(
            N_("season name {name} names the season before the first start; choose another"),
            name=quoted(name),
        )
    if any(season.name == name for season in taken):
        raise UserError(
            N_("season name {name} is taken in this server; choose another"), name=quoted(name)
        )
    return name


def season_carry(carry: float) -> float:
    if not (isinstance(carry, int | float) and math.isfinite(carry) and 0 <= carry <= 1):
        raise UserError(N_("carry {value} must be {rule}"), value=repr(carry), rule=CARRY_RULE)
    return float(carry) + 0.0


def carried(ratings: Mapping[int, float], carry: float, initial_rating: float) -> dict[int, float]:
    """Ratings after a season start, exactly as a replay computes them (it is the replay of
    that season start, bot.services.replaying.replay_season_start)."""
    return replay_season_start(ratings, carry, LadderSettings(initial_rating=initial_rating))


def summaries(seasons: Sequence[Season], sizes: Mapping[int, int]) -> list[SeasonSummary]:
    """Every season of the guild, oldest first, ending with the current one; `sizes`: how
    many members each closing standings hold, by the number of the start that closed it."""
    names = [FIRST_SEASON, *(season.name for season in seasons)]
    starts: list[float | None] = [None, *(season.starts_at for season in seasons)]
    ends: list[float | None] = [*(season.starts_at for season in seasons), None]
    carries = [0.0, *(season.carry for season in seasons)]
    closers = [*(sizes.get(season.number, 0) for season in seasons), 0]
    return [
        SeasonSummary(*entry) for entry in zip(names, starts, ends, carries, closers, strict=True)
    ]
