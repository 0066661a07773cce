"""What the web pages and the read API show (SPEC 11), read through the services (this
module never opens the database).

Each read returns the API's JSON object (the fields of the command line's `--json`
outputs, bot.present.objects and bot.services.shapes); the pages render the same objects, so
a page never shows what the API does not. Nothing here writes.

Decisions the spec leaves open:
- A leaderboard page holds PAGE_SIZE rows (the Discord page size is for embeds).
- The match list pages by id: `before` is a match id, and a page holds the newest matches
  below it (ids follow creation, so new reports never shift a page already read).
- Ids are JSON integers, as in the command line's `--json` (int64; a JavaScript client must
  read them as big integers).
- The pages of one leaderboard share one read: the whole board is read once per guild stamp
  (the newest stamp read, the one the request's ETag was made from or a later one) and kept,
  and each page is cut from it; the list of seasons likewise. A kept read is always made after
  the stamp it is kept under was read, so it is never older than that stamp says.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import astuple, dataclass
from typing import Any, Final, TypeVar

from bot.config import GuildSettings
from bot.present.language import N_, public_language
from bot.present.objects import card_object, leaderboard_object
from bot.services import Services, UserError, WebStamp
from bot.services.card import RatingPoint
from bot.services.matchcsv.format import format_time
from bot.services.shapes import match_object, season_object
from bot.services.standings import LeaderboardPage
from bot.web.kept import Kept

PAGE_SIZE: Final = 50
MAX_PAGE: Final = 1_000_000
MATCHES_LIMIT: Final = 20
MAX_MATCHES_LIMIT: Final = 100
INACTIVITY_SECONDS: Final = 60
"""With inactivity on, the standings change as time passes (SPEC 9.3): a guild's stamp then
also changes every this many seconds."""
KEPT: Final = 16
"""Reads kept by their guild's stamp (whole leaderboards by guild, measure and season; season
lists by guild), the newest KEPT (bot.web.kept)."""
Found = TypeVar("Found")


class GuildHiddenError(Exception):
    """An unknown guild, or one whose setting `web` is off: both answer the same 404."""


class NotFoundError(UserError):
    """A member or match the (shown) guild does not have: a refusal, so a page says it in
    the guild's language (the API in English, its str())."""


JsonObject = dict[str, Any]


def json_safe(value: JsonObject) -> JsonObject:
    """The object with every non-finite float as None (JSON has no NaN or infinity)."""
    safe: JsonObject = _safe(value)
    return safe


def _safe(value: Any) -> Any:
    """The value with every non-finite float as None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_safe(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class PlayerView:
    card: JsonObject
    start: float | None
    """The rating before the member's first match (None without matches)."""
    history: tuple[RatingPoint, ...]


class WebReads:
    """The reads of the pages over the services; `clock` stamps what was read when."""

    def __init__(self, services: Services, clock: Callable[[], float]) -> None:
        self.services = services
        self.clock = clock
        self._stamps: dict[int, tuple[tuple[object, ...], WebStamp]] = {}
        """The newest stamp read of each guild, with what it was made from."""
        self._kept_reads: Kept[Any] = Kept(KEPT)

    async def stamp(self, guild_id: int) -> tuple[object, ...]:
        """What the guild's pages depend on, for their ETags; GuildHiddenError for a guild that is
        unknown or not shown."""
        found = await self.services.settings.web_stamp(guild_id)
        if found is None:
            raise GuildHiddenError
        settings = found.settings
        moment = int(self.clock() // INACTIVITY_SECONDS) if settings.inactive_days else None
        stamp = (
            guild_id,
            found.changed_at,
            found.pending,
            found.disputed,
            found.newest_match,
            found.name,
            moment,
            *astuple(settings),
        )
        self._stamps[guild_id] = (stamp, found)
        return stamp

    def guild_name(self, guild_id: int) -> str:
        """The guild's name from its newest stamp read (Server <id> until the bot names it)."""
        known = self._stamps.get(guild_id)
        name = None if known is None else known[1].name
        return name or f"Server {guild_id}"

    def guild_language(self, guild_id: int) -> str:
        """The language of the guild's pages (SPEC 13): its `language` setting from its newest
        stamp read; `auto` (the web does not know the server's locale) and unknown: English."""
        known = self._stamps.get(guild_id)
        setting = "auto" if known is None else known[1].settings.language
        return public_language(setting, None)

    def _read_at(self) -> str:
        return format_time(self.clock())

    async def leaderboard(
        self, guild_id: int, by: str, page: int, season: str | None
    ) -> JsonObject:
        """One page of the leaderboard, or of a closed season's closing standings; a page
        past the end or an unknown season is NotFoundError, saying why."""
        try:
            whole, settings = await self._whole_board(guild_id, by, season)
        except UserError as error:
            raise NotFoundError(error.template, **error.params) from None
        pages = max(1, math.ceil(len(whole.rows) / PAGE_SIZE))
        if not 1 <= page <= pages:
            raise NotFoundError(
                N_("page {page} must be from 1 to {pages}: the leaderboard has {pages} page")
                if pages == 1
                else N_("page {page} must be from 1 to {pages}: the leaderboard has {pages} pages"),
                page=page,
                pages=pages,
            )
        rows = whole.rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        return json_safe(
            {
                "guild_id": guild_id,
                "by": whole.by,
                "season": whole.season,
                "page": page,
                "pages": pages,
                "page_size": PAGE_SIZE,
                "total": whole.total,
                "min_games": settings.min_games,
                "provisional_games": settings.provisional_games,
                "inactive_days": settings.inactive_days,
                "read_at": self._read_at(),
                "rows": [leaderboard_object(row) for row in rows],
            }
        )

    async def _whole_board(
        self, guild_id: int, by: str, season: str | None
    ) -> tuple[LeaderboardPage, GuildSettings]:
        """The whole board (every row ranked) and the settings it was ranked under, read in
        one snapshot once per stamp of the guild."""

        return await self._kept(
            ("board", guild_id, by, season),
            guild_id,
            lambda: self.services.standings.whole_board(guild_id, by, season),
        )

    async def _kept(
        self, key: tuple[object, ...], guild_id: int, read: Callable[[], Awaitable[Found]]
    ) -> Found:
        """What `read` gives, read once per stamp of the guild (the newest KEPT reads)."""
        known = self._stamps.get(guild_id)
        if known is None:  # no stamp read yet: nothing to keep it under
            return await read()
        found: Found = await self._kept_reads.get((key, known[0]), read)
        return found

    async def player(self, guild_id: int, user_id: int, variant: str | None) -> PlayerView:
        """The member's rating card (NotFoundError for one without a ladder record)."""
        try:
            card = await self.services.standings.member_card(guild_id, user_id, variant)
        except UserError as error:  # a bot: not rated
            raise NotFoundError(error.template, **error.params) from None
        if card is None:
            raise NotFoundError(
                N_("member {user} has no ladder record in this server"), user=user_id
            )
        shown = {"guild_id": guild_id, **card_object(card), "read_at": self._read_at()}
        return PlayerView(json_safe(shown), card.stats.start, card.stats.history)

    async def matches(self, guild_id: int, before: int | None, limit: int) -> JsonObject:
        """The newest `limit` matches with an id below `before` (None: the newest)."""
        found = await self.services.matches.before(guild_id, before, limit)
        return json_safe(
            {
                "guild_id": guild_id,
                "before": before,
                "limit": limit,
                "next_before": found.next_before,
                "read_at": self._read_at(),
                "matches": [match_object(match) for match in found.matches],
            }
        )

    async def match(self, guild_id: int, match_id: int) -> JsonObject:
        """One match with its earlier lineups (NotFoundError when the guild has no such match)."""
        try:
            found = await self.services.matches.shown(guild_id, match_id)
        except UserError:
            raise NotFoundError(
                N_("there is no match #{number} in this server"), number=match_id
            ) from None
        shown = {
            "guild_id": guild_id,
            **match_object(found.match, found.edits),
            "read_at": self._read_at(),
        }
        return json_safe(shown)

    async def seasons(self, guild_id: int) -> JsonObject:
        """Every season, oldest first; the last is under way."""
        found = await self._kept(
            ("seasons", guild_id), guild_id, lambda: self.services.seasons.season_list(guild_id)
        )
        return {
            "guild_id": guild_id,
            "read_at": self._read_at(),
            "seasons": [season_object(season) for season in found],
        }
