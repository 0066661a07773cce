"""The use cases of the bot: report, confirm, void, ratings, leaderboards, import/export.

`Ladder` is what the Discord front end and the command line call: the use cases of each
concern (bot.services.matches, .replays, .standings, .members) over their shared base
(bot.services.core). Each write use case runs as one database transaction (bot.storage), so
a refusal (UserError) or a crash changes nothing, and concurrent calls run one after
another in the order they were made.

Decisions the spec leaves open:
- Log order: applied matches sort by (applied_at, id). A confirm stamps applied_at just after
  the newest applied match (so it appends and replays nothing); an import stamps played_at,
  merging by time, and replays from the earliest imported match.
- Record: a rated participant's match is a win when its mean result (SPEC 2.3 step 4)
  against the rated opponents on other sides is above 0.5, a loss below, else a draw.
- Leaving the ladder: later matches record the member as not rated; past matches stay.
  Members are opted in until they leave. Left members and bots are not on leaderboards.
- A participant's "enabled" flag is fixed when the match is reported.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from bot.config import Config
from bot.services.changes import ChangeListener
from bot.services.core import Actor, elo_bridge, ladder_rating, ladder_settings
from bot.services.matches import (
    ConfirmResult,
    EditResult,
    MatchUseCases,
    ReportResult,
    VoidResult,
    build_participants,
    check_lineup,
)
from bot.services.members import MemberUseCases
from bot.services.performances import measured
from bot.services.replays import ImportResult, ReplayUseCases, SettingsResult
from bot.services.standings import (
    MEASURES,
    LeaderboardPage,
    LeaderboardRow,
    Prediction,
    RatingCard,
    StandingsUseCases,
)
from bot.storage import Database

__all__ = [
    "MEASURES",
    "Actor",
    "ConfirmResult",
    "EditResult",
    "ImportResult",
    "Ladder",
    "LeaderboardPage",
    "LeaderboardRow",
    "Prediction",
    "RatingCard",
    "ReportResult",
    "SettingsResult",
    "VoidResult",
    "build_participants",
    "check_lineup",
    "elo_bridge",
    "ladder_rating",
    "ladder_settings",
    "measured",
    "open_ladder",
]


class Ladder(MatchUseCases, ReplayUseCases, StandingsUseCases, MemberUseCases):
    """The bot's use cases over one database; `defaults` start every new guild. Each write
    use case reports what it changed to `on_change` once committed (bot.services.changes)."""

    @classmethod
    async def open(
        cls,
        path: str | Path,
        config: Config,
        *,
        clock: Callable[[], float] = time.time,
        fill_cache: bool = False,
        on_change: ChangeListener | None = None,
        create: bool = True,
    ) -> Ladder:
        """`create`: a new database may be made (see Database.open)."""
        db = await Database.open(path, create=create)
        return cls(
            db,
            config.defaults,
            clock=clock,
            page_size=config.leaderboard.page_size,
            edit_seconds=config.leaderboard.edit_seconds,
            fill_cache=fill_cache,
            on_change=on_change,
        )


@asynccontextmanager
async def open_ladder(
    path: str | Path,
    config: Config,
    *,
    clock: Callable[[], float] = time.time,
    fill_cache: bool = False,
    on_change: ChangeListener | None = None,
) -> AsyncIterator[Ladder]:
    ladder = await Ladder.open(
        path, config, clock=clock, fill_cache=fill_cache, on_change=on_change
    )
    try:
        yield ladder
    finally:
        await ladder.close()
