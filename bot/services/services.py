"""The services of the bot, built once over one context and shared: what the Discord front
end, the command line and the web pages call (`services.matches.report(...)`).

One service per concern (bot.services.matches, .standings, .members, .settings,
.seasons, .transfers, .matchups, .community, .queues, .evaluation, .webhooks) over the shared
context (bot.services.context), whose write is the only write path: each write use case
runs as one database transaction (bot.storage), so a refusal (UserError) or a crash changes
nothing, concurrent calls run one after another in the order they were made, and one Change
is reported once it has committed.

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

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import Config
from bot.services.changes import ChangeListener
from bot.services.context import ServiceContext
from bot.services.feed import ChangeFeed
from bot.services.queue_rules import PICK_SECONDS
from bot.services.webhooks import EventOutbox, Resolve, system_resolve
from bot.storage import Database

if TYPE_CHECKING:
    from bot.services.community import Community
    from bot.services.evaluation import Evaluations
    from bot.services.matches import Matches
    from bot.services.matchups import Matchups
    from bot.services.members import Members
    from bot.services.queues import Queues
    from bot.services.rooms import Rooms
    from bot.services.seasons import Seasons
    from bot.services.settings import Settings
    from bot.services.standings import Standings
    from bot.services.transfers import Transfers
    from bot.services.webhooks import Webhooks


@dataclass(frozen=True)
class Services:
    """Every service of the bot over one context (one database). Each is made once, when
    first used, and its module imported then: a command of the command line loads only the
    use cases it calls (issue 29)."""

    context: ServiceContext
    rng: random.Random | None
    """The queues' (tests set it)."""
    pick_seconds: float
    """The queues' captains' time to pick (tests make it short)."""
    allow_private: bool
    """Webhooks may go to private addresses (the webhooks' address check)."""
    resolve: Resolve
    """Host names to addresses for the webhooks' address check (tests stub DNS)."""

    @classmethod
    def build(
        cls,
        context: ServiceContext,
        *,
        rng: random.Random | None = None,
        pick_seconds: float = PICK_SECONDS,
        allow_private: bool = False,
        resolve: Resolve = system_resolve,
    ) -> Services:
        """The services over `context`, whose writes put their webhook events in the
        webhooks' outbox."""
        context.outbox = EventOutbox()
        return cls(context, rng, pick_seconds, allow_private, resolve)

    @cached_property
    def matches(self) -> Matches:
        from bot.services.matches import Matches

        return Matches(self.context)

    @cached_property
    def standings(self) -> Standings:
        from bot.services.standings import Standings

        return Standings(self.context)

    @cached_property
    def members(self) -> Members:
        from bot.services.members import Members

        return Members(self.context)

    @cached_property
    def settings(self) -> Settings:
        from bot.services.settings import Settings

        return Settings(self.context)

    @cached_property
    def seasons(self) -> Seasons:
        from bot.services.seasons import Seasons

        return Seasons(self.context)

    @cached_property
    def transfers(self) -> Transfers:
        from bot.services.transfers import Transfers

        return Transfers(self.context)

    @cached_property
    def matchups(self) -> Matchups:
        from bot.services.matchups import Matchups

        return Matchups(self.context, self.standings)

    @cached_property
    def community(self) -> Community:
        from bot.services.community import Community

        return Community(self.context)

    @cached_property
    def queues(self) -> Queues:
        from bot.services.queues import Queues

        return Queues(self.context, self.matches, rng=self.rng, pick_seconds=self.pick_seconds)

    @cached_property
    def evaluation(self) -> Evaluations:
        from bot.services.evaluation import Evaluations

        return Evaluations(self.context)

    @cached_property
    def webhooks(self) -> Webhooks:
        from bot.services.webhooks import Webhooks

        return Webhooks(self.context, allow_private=self.allow_private, resolve=self.resolve)

    @cached_property
    def rooms(self) -> Rooms:
        from bot.services.rooms import Rooms

        return Rooms(self.context)

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
    ) -> Services:
        """The services over the database at `path` (`create`: a new database may be made,
        see Database.open); `close`, or leaving `async with`, closes it."""
        db = await Database.open(path, create=create)
        return cls.build(
            ServiceContext(
                db,
                config.defaults,
                clock=clock,
                page_size=config.leaderboard.page_size,
                edit_seconds=config.leaderboard.edit_seconds,
                fill_cache=fill_cache,
                on_change=on_change,
            ),
            allow_private=config.webhooks.allow_private,
        )

    def change_feed(self, listener: ChangeListener) -> ChangeFeed:
        """The change feed of the process that runs it (the bot): `listener` hears every
        committed change, this process's as it commits, the others' from the change log."""
        feed = ChangeFeed(self.context.db, listener)
        self.context.on_change = feed.publish
        return feed

    async def close(self) -> None:
        """Wait for the cache fills under way, then close the database."""
        await self.context.close()

    async def __aenter__(self) -> Services:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """`async with await Services.open(…) as services:` closes them at the end."""
        await self.close()
