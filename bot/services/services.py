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
from pathlib import Path

from bot.config import Config
from bot.services.changes import ChangeListener
from bot.services.community import Community
from bot.services.context import ServiceContext
from bot.services.evaluation import Evaluations
from bot.services.feed import ChangeFeed
from bot.services.matches import Matches
from bot.services.matchups import Matchups
from bot.services.members import Members
from bot.services.queue_rules import PICK_SECONDS
from bot.services.queues import Queues
from bot.services.rooms import Rooms
from bot.services.seasons import Seasons
from bot.services.settings import Settings
from bot.services.standings import Standings
from bot.services.transfers import Transfers
from bot.services.webhooks import Resolve, Webhooks, system_resolve
from bot.storage import Database


@dataclass(frozen=True, slots=True)
class Services:
    """Every service of the bot over one context (one database)."""

    context: ServiceContext
    matches: Matches
    standings: Standings
    members: Members
    settings: Settings
    seasons: Seasons
    transfers: Transfers
    matchups: Matchups
    community: Community
    queues: Queues
    evaluation: Evaluations
    webhooks: Webhooks
    rooms: Rooms

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
        """Each service once; `rng` and `pick_seconds`: the queues' (tests set them);
        `allow_private` and `resolve`: the webhooks' address check. The context's writes
        put their webhook events in the webhooks' outbox."""
        matches = Matches(context)
        standings = Standings(context)
        webhooks = Webhooks(context, allow_private=allow_private, resolve=resolve)
        context.outbox = webhooks.outbox
        return cls(
            context,
            matches,
            standings,
            Members(context),
            Settings(context),
            Seasons(context),
            Transfers(context),
            Matchups(context, standings),
            Community(context),
            Queues(context, matches, rng=rng, pick_seconds=pick_seconds),
            Evaluations(context),
            webhooks,
            Rooms(context),
        )

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
