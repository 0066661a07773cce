"""Standings: leaderboard, rating card, prediction and history, with the performance
cache they read through, and the live leaderboard.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Final, NamedTuple, overload

import numpy as np

from bot.config import VARIANTS, GuildSettings
from bot.ratings.arrays import BoolArray, FloatArray, IntArray
from bot.ratings.elo import EloBridge, elo_expected_score
from bot.ratings.gamelist import Game
from bot.ratings.ladder import ladder_expected_score
from bot.ratings.performance import performance_arrays
from bot.services import season_rules
from bot.services.card import CardStats, Played, SeasonMove, card_stats, recent_ids
from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.core import Actor, elo_bridge, ladder_rating, must_moderate
from bot.services.errors import N_, Counted, UserError, quoted
from bot.services.performances import (
    RATING_ACCURACY,
    game_arrays,
    game_list,
    game_rows,
    measured,
    pairing,
    ranking_values,
)
from bot.storage import (
    DatabaseBusy,
    LiveBoard,
    MeasuredColumns,
    Member,
    Performance,
    PlayedColumns,
    Roster,
    Season,
)

BoardEntry = tuple[int, str, float, float, int, int, int, int, bool]
"""A leaderboard row before its rank: user id, name, value, rating, games, wins, draws,
losses, provisional (see LeaderboardRow)."""
SECONDS_PER_DAY: Final = 86_400.0
MEASURES: Final = ("ladder", *VARIANTS, RATING_ACCURACY)
WHOLE_GUILD_MEMBERS: Final = 100
"""Computing (or showing) more members than this reads the participants (or the members) of
the whole guild: most of it anyway, read faster by a scan than by index."""


@dataclass(frozen=True, slots=True)
class RatingCard:
    member: Member
    rating: float
    rank: int | None
    """None when the member is not on the leaderboard (too few games, left, a bot)."""
    games: int
    wins: int
    draws: int
    losses: int
    variant: str
    performance: float
    """In ladder units; +inf/-inf when every game is a win/loss, nan when undefined."""
    up: float
    down: float
    ra: float
    provisional: bool
    """Fewer than provisional_games applied matches."""
    inactive: bool
    """No applied match in the last inactive_days (SPEC 9.3): off the leaderboards."""
    stats: CardStats
    """Peak, streak, win rate, recent form and the rating history."""


class LeaderboardRow(NamedTuple):
    """One row of a board: a named tuple, made 3x faster than a frozen dataclass (a whole
    board of 50,000 members makes 50,000)."""

    rank: int
    user_id: int
    name: str
    value: float
    """The chosen measure (ladder rating, performance in ladder units, or RA)."""
    rating: float
    games: int
    wins: int
    draws: int
    losses: int
    provisional: bool


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    by: str
    page: int
    pages: int
    total: int
    rows: tuple[LeaderboardRow, ...]
    season: str | None = None
    """A closed season's name: the rows are its closing standings (None: the standings now)."""


@dataclass(frozen=True, slots=True)
class Prediction:
    a: Member
    b: Member
    ladder: float
    """P(a beats b) from the ladder ratings (SPEC 2.3 step 3)."""
    performance: float | None
    """P(a beats b) from the guild variant's performance ratings (W in Elo units); None when
    either is not a finite number."""
    variant: str
    """The guild's variant, which `performance` was computed with."""


def _on_leaderboard(member: Member, settings: GuildSettings) -> bool:
    """Left members, bots and members with fewer than min_games matches are not ranked
    (`_on_board`: the same rule over a whole guild's columns)."""
    return member.enabled and not member.is_bot and member.games >= settings.min_games


def _active_since(settings: GuildSettings, now: float) -> float | None:
    """The time from which a match keeps a member active; None when inactivity is off."""
    return now - settings.inactive_days * SECONDS_PER_DAY if settings.inactive_days else None


@overload
def _provisional(games: int, settings: GuildSettings) -> bool: ...
@overload
def _provisional(games: IntArray, settings: GuildSettings) -> BoolArray: ...
def _provisional(games: int | IntArray, settings: GuildSettings) -> bool | BoolArray:
    """Whether a member with this many games (or each of many) is still provisional."""
    return games < settings.provisional_games


def _numbered(entries: Iterable[BoardEntry], first_rank: int) -> tuple[LeaderboardRow, ...]:
    """The entries as the rows of a board, ranked from `first_rank` on."""
    return tuple(
        LeaderboardRow(rank, *entry) for rank, entry in enumerate(entries, start=first_rank)
    )


@dataclass(frozen=True, slots=True)
class _Ranking:
    """Everyone on a leaderboard, best first, as columns: a page's rows are made from its
    slice and the members read for it."""

    user_id: IntArray
    value: FloatArray
    rating: FloatArray


def _roster_rows(
    ranking: _Ranking, shown: slice, roster: Roster, settings: GuildSettings
) -> tuple[LeaderboardRow, ...]:
    """The rows of the ranking's `shown` places, their names and records from the roster
    (read in the same snapshot, so it holds every ranked member). Worker-thread work."""
    user_id = ranking.user_id[shown]
    at = np.searchsorted(roster.user_id, user_id)
    games = roster.games[at]
    entries: Iterable[BoardEntry] = zip(
        user_id.tolist(),
        roster.name[at].tolist(),
        ranking.value[shown].tolist(),
        ranking.rating[shown].tolist(),
        games.tolist(),
        roster.wins[at].tolist(),
        roster.draws[at].tolist(),
        roster.losses[at].tolist(),
        _provisional(games, settings).tolist(),
        strict=True,
    )
    return _numbered(entries, (shown.start or 0) + 1)


def _on_board(
    columns: MeasuredColumns, settings: GuildSettings, active: Set[int] | None
) -> BoolArray:
    """Which members are on the leaderboard (`_on_leaderboard`, member by member), of those
    who played lately (`active`; None: all)."""
    chosen = columns.rankable & (columns.games >= settings.min_games)
    if active is not None:
        chosen &= np.isin(columns.user_id, np.fromiter(active, np.int64, len(active)))
    return chosen


def _best_first(
    columns: MeasuredColumns, on_board: BoolArray, values: FloatArray, ratings: FloatArray
) -> _Ranking:
    """The members on the board, best value first (undefined last), then more games, then
    lower user id."""
    user_id, games, value = columns.user_id[on_board], columns.games[on_board], values[on_board]
    undefined = np.isnan(value)
    order = np.lexsort((user_id, -games, np.where(undefined, 0.0, -value), undefined))
    return _Ranking(user_id[order], value[order], ratings[on_board][order])


def _versions(
    user_id: IntArray, rating: FloatArray, games: IntArray
) -> dict[int, tuple[float | None, int]]:
    """Members' (rating, games) as the cache fill checks them (nan: no rating, None)."""
    return {
        member: (None if math.isnan(value) else value, count)
        for member, value, count in zip(
            user_id.tolist(), rating.tolist(), games.tolist(), strict=True
        )
    }


def _season_moves(
    closings: Sequence[tuple[Season, float]], user_id: int, initial_rating: float
) -> list[SeasonMove]:
    """The season starts that moved the member's rating: each carries their closing rating
    as the start itself did (bot.services.season_rules.carried)."""
    moves = []
    for season, closing in closings:
        after = season_rules.carried({user_id: closing}, season.carry, initial_rating)[user_id]
        if after != closing:
            moves.append(SeasonMove(season.starts_at, after))
    return moves


@use_cases()
class Standings:
    """Reading the standings: leaderboards (now or a closed season's), rating cards,
    predictions, game histories, and the live leaderboard message."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context
        self._boards_filling: set[tuple[int, str]] = set()
        """(guild, measure) of the boards whose cache fill is running: a board read meanwhile
        starts no second one (the members it would add, the next read after it adds)."""

    async def _closing_entries(
        self, guild_id: int, settings: GuildSettings, name: str, by: str
    ) -> list[BoardEntry] | None:
        """The closing standings of the closed season `name`, best first, as leaderboard
        entries (those with min_games matches in it, at least one); None when `name` is the
        current season. UserError for an unknown name or a measure other than ladder."""
        listed = await self.context.db.read.seasons(guild_id)
        names = [season_rules.FIRST_SEASON, *(season.name for season in listed)]
        wanted = season_rules.season_name(name)
        if wanted not in names:
            raise UserError(
                N_(
                    "season {name} must be one of this server's seasons: {names} (see /season list)"
                ),
                name=quoted(wanted),
                names=quoted(", ".join(names)),
            )
        index = names.index(wanted)
        if index == len(listed):
            return None
        if by != "ladder":
            raise UserError(
                N_("season {name} is closed: its standings rank by ladder only, not {by}"),
                name=quoted(wanted),
                by=repr(by),
            )
        standings = [
            standing
            for standing in await self.context.db.read.closing_standings(
                guild_id, listed[index].number
            )
            if standing.games >= max(1, settings.min_games)
        ]
        standings.sort(key=lambda s: (-s.rating, -s.games, s.user_id))
        return [
            (s.user_id, s.name, s.rating, s.rating, s.games, s.wins, s.draws, s.losses, False)
            for s in standings
        ]

    # --- reading -------------------------------------------------------------------------

    async def _performances(
        self, guild_id: int, members: Sequence[Member], measures: Sequence[str]
    ) -> dict[tuple[int, str], Performance]:
        """The measures ("p1".."p8", "ra") of the members by (user id, measure), from the
        cache; the members it lacks are computed (`_compute_performances`)."""
        found = await self.context.db.read.performances(
            guild_id, [member.user_id for member in members], measures
        )
        missing = [m for m in members if any((m.user_id, x) not in found for x in measures)]
        if missing:
            found.update(await self._compute_performances(guild_id, missing, measures))
        return found

    async def _played(self, guild_id: int, user_ids: Sequence[int]) -> PlayedColumns:
        """The participants of the members' matches: of the whole guild for many members,
        whose matches are most of the log anyway and read faster by a scan than by index."""
        many = len(user_ids) > WHOLE_GUILD_MEMBERS
        return await self.context.db.read.played_columns(guild_id, None if many else user_ids)

    async def _compute_performances(
        self, guild_id: int, members: Sequence[Member], measures: Sequence[str]
    ) -> dict[tuple[int, str], Performance]:
        """The measures of the members computed in one vectorized pass, in memory: a read
        never writes (SPEC 8.2). With fill_cache, they are stored afterwards by a write of
        their own that the read does not wait for (`_fill_cache`), for the members still as
        they were when read (their versions)."""
        bridge = elo_bridge(await self.context.settings(guild_id))
        user_ids = [member.user_id for member in members]
        played = await self._played(guild_id, user_ids)
        computed = await asyncio.to_thread(measured, played, user_ids, measures, bridge)
        if self.context.fill_cache and computed:
            versions = {member.user_id: (member.rating, member.games) for member in members}
            self.context.in_background(self._fill_cache(guild_id, computed, versions))
        return computed

    async def _ranking_values(
        self, guild_id: int, columns: MeasuredColumns, chosen: BoolArray, by: str
    ) -> FloatArray:
        """The chosen members' `by` values alone, by ascending user id, for a leaderboard to
        rank by: without their stability, which the cache fill computes afterwards, off the
        read's path."""
        bridge = elo_bridge(await self.context.settings(guild_id))
        user_ids = columns.user_id[chosen].tolist()
        played = await self._played(guild_id, user_ids)
        values = await asyncio.to_thread(ranking_values, played, user_ids, by, bridge)
        if self.context.fill_cache and (guild_id, by) not in self._boards_filling:
            self._boards_filling.add((guild_id, by))
            self.context.in_background(
                self._measure_and_fill(guild_id, columns, chosen, played, by, bridge)
            )
        return values

    async def _measure_and_fill(
        self,
        guild_id: int,
        columns: MeasuredColumns,
        chosen: BoolArray,
        played: PlayedColumns,
        by: str,
        bridge: EloBridge,
    ) -> None:
        """Compute the chosen members' `by` with its stability from the participants a
        leaderboard read, and cache it for the members as that read saw them."""
        try:
            user_ids = columns.user_id[chosen].tolist()
            computed = await asyncio.to_thread(measured, played, user_ids, [by], bridge)
            versions = await asyncio.to_thread(
                _versions, columns.user_id[chosen], columns.rating[chosen], columns.games[chosen]
            )
            await self._fill_cache(guild_id, computed, versions)
        finally:
            self._boards_filling.discard((guild_id, by))

    async def _fill_cache(
        self,
        guild_id: int,
        computed: Mapping[tuple[int, str], Performance],
        versions: Mapping[int, tuple[float | None, int]],
    ) -> None:
        """Cache what a read computed, off its path, for the members as the read saw them
        (`versions`): those whose rating or record changed since are skipped (their games
        changed), and a busy database just skips it all."""
        with contextlib.suppress(DatabaseBusy):
            async with self.context.write(guild_id) as unit:
                await unit.tx.store_performances(guild_id, computed, versions)

    async def game_history(self, guild_id: int, user_id: int) -> list[Game]:
        """The member's games as a game list (SPEC 1.1: newest first, opponent ratings in Elo
        units, ages in whole days)."""
        async with self.context.db.snapshot():
            settings = await self.context.settings(guild_id)
            await self.context.member(guild_id, user_id)
            rows = game_rows(await self._played(guild_id, [user_id]), [user_id])
        return game_list(rows, elo_bridge(settings), self.context.clock())

    async def _ranked(self, guild_id: int, settings: GuildSettings, by: str) -> _Ranking:
        """Everyone on the leaderboard, best first: up to a whole guild's members, filtered
        and sorted off the event loop (SPEC 8.5)."""
        if by not in MEASURES:
            raise UserError(
                N_("cannot rank by {by}; choose one of {choices}"),
                by=repr(by),
                choices=", ".join(MEASURES),
            )
        since = _active_since(settings, self.context.clock())
        active = None if since is None else await self.context.db.read.played_since(guild_id, since)
        columns = await self.context.db.read.measured_columns(guild_id, by)
        on_board = _on_board(columns, settings, active)
        ratings = np.where(np.isnan(columns.rating), settings.initial_rating, columns.rating)
        values = ratings if by == "ladder" else columns.value.copy()
        missing = on_board & ~columns.cached
        if by != "ladder" and missing.any():
            values[missing] = await self._ranking_values(guild_id, columns, missing, by)
        return await asyncio.to_thread(_best_first, columns, on_board, values, ratings)

    async def _rows(
        self, guild_id: int, settings: GuildSettings, ranking: _Ranking, first: int, stop: int
    ) -> tuple[LeaderboardRow, ...]:
        """The board's rows from `first` to `stop`, with the names and records of those
        members: a page's read alone; for many, the whole guild's roster, the rows made off
        the event loop (50,000 of them held it for about 0.2 s)."""
        shown = slice(first, stop)
        if len(ranking.user_id[shown]) > WHOLE_GUILD_MEMBERS:
            roster = await self.context.db.read.roster(guild_id)
            return await asyncio.to_thread(_roster_rows, ranking, shown, roster, settings)
        wanted = ranking.user_id[shown].tolist()
        read = await self.context.db.read.members_by_id(guild_id, wanted)
        by_id = {member.user_id: member for member in read}
        return _numbered(
            (
                (
                    member.user_id,
                    member.name,
                    value,
                    rating,
                    member.games,
                    member.wins,
                    member.draws,
                    member.losses,
                    _provisional(member.games, settings),
                )
                for member, value, rating in zip(
                    (by_id[user_id] for user_id in wanted),
                    ranking.value[shown].tolist(),
                    ranking.rating[shown].tolist(),
                    strict=True,
                )
            ),
            first + 1,
        )

    async def leaderboard(
        self,
        guild_id: int,
        by: str = "ladder",
        page: int = 1,
        page_size: int | None = None,
        season: str | None = None,
    ) -> LeaderboardPage:
        """One page of the leaderboard (page_size 0: everything), or of a closed `season`'s
        closing standings. A page past the end is refused, naming how many pages there are
        (a command's page, or a stale button after the board shrank); an empty board has one
        empty page. One snapshot (SPEC 8.6)."""
        async with self.context.db.snapshot():
            settings = await self.context.settings(guild_id)
            closed = (
                None
                if season is None
                else await self._closing_entries(guild_id, settings, season, by)
            )
            if closed is not None:
                return await self._page(guild_id, settings, by, closed, page, page_size, season)
            ranking = await self._ranked(guild_id, settings, by)
            return await self._page(guild_id, settings, by, ranking, page, page_size)

    async def _page(
        self,
        guild_id: int,
        settings: GuildSettings,
        by: str,
        board: _Ranking | list[BoardEntry],
        page: int,
        page_size: int | None,
        season: str | None = None,
    ) -> LeaderboardPage:
        """Page `page` (`page_size` rows; None: the server's page size, 0: every row) of a
        ranking, or of the closed `season`'s closing entries; refused past the end."""
        total = len(board.user_id) if isinstance(board, _Ranking) else len(board)
        size = self.context.page_size if page_size is None else page_size
        size = size or max(1, total)
        pages = max(1, math.ceil(total / size))
        if not 1 <= page <= pages:
            raise UserError(
                N_("page {value} must be from 1 to {last}: the leaderboard has {pages}"),
                value=repr(page),
                last=pages,
                pages=Counted("{count} page", "{count} pages", pages),
            )
        first = (page - 1) * size
        rows = (
            await self._rows(guild_id, settings, board, first, first + size)
            if isinstance(board, _Ranking)
            else _numbered(board[first : first + size], first + 1)
        )
        closed = None if isinstance(board, _Ranking) else season
        return LeaderboardPage(by, page, pages, total, rows, closed)

    async def whole_board(
        self, guild_id: int, by: str, season: str | None
    ) -> tuple[LeaderboardPage, GuildSettings]:
        """Every row of the leaderboard (or of a closed season's closing standings) and the
        settings it was ranked under, read in one snapshot (the web cuts its pages from it)."""
        async with self.context.db.snapshot():
            board = await self.leaderboard(guild_id, by, 1, 0, season)
            return board, await self.context.settings(guild_id)

    async def page_of(self, guild_id: int, by: str, user_id: int) -> LeaderboardPage | None:
        """The leaderboard page the member is on, or None if they are not ranked: found in
        the ranking's columns (no row made for everyone), ranked once."""
        async with self.context.db.snapshot():
            settings = await self.context.settings(guild_id)
            ranking = await self._ranked(guild_id, settings, by)
            place = np.flatnonzero(ranking.user_id == user_id)
            if not len(place):
                return None
            page = int(place[0]) // self.context.page_size + 1
            return await self._page(guild_id, settings, by, ranking, page, None)

    async def member_card(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> RatingCard | None:
        """The member's card; None for one without a ladder record (read in one snapshot)."""
        async with self.context.db.snapshot() as read:
            if await read.member(guild_id, user_id) is None:
                return None
            return await self.rating_card(guild_id, user_id, variant)

    async def rating_card(
        self, guild_id: int, user_id: int, variant: str | None = None, recent: int = 5
    ) -> RatingCard:
        """The member's card, read in one snapshot (SPEC 8.6)."""
        async with self.context.db.snapshot():
            return await self._rating_card(guild_id, user_id, variant, recent)

    async def _rating_card(
        self, guild_id: int, user_id: int, variant: str | None, recent: int
    ) -> RatingCard:
        settings = await self.context.settings(guild_id)
        chosen = variant or settings.variant
        if chosen not in VARIANTS:
            raise UserError(
                N_("unknown variant {value}; choose one of {choices}"),
                value=repr(chosen),
                choices=", ".join(VARIANTS),
            )
        member = await self.context.member(guild_id, user_id)
        if member.is_bot:
            raise UserError(
                N_("{member} is a bot; bots are not rated, so they have no card"),
                member=f"<@{user_id}>",
            )
        found = await self._performances(guild_id, [member], [chosen, RATING_ACCURACY])
        result = found[user_id, chosen]
        since = _active_since(settings, self.context.clock())
        inactive = since is not None and user_id not in await self.context.db.read.played_since(
            guild_id, since
        )
        rank = (
            await self.context.db.read.ladder_rank(
                member, settings.min_games, settings.initial_rating, since
            )
            if _on_leaderboard(member, settings) and not inactive
            else None
        )
        played = [
            Played(*row) for row in await self.context.db.read.rated_results(guild_id, user_id)
        ]
        shown = recent_ids(played, recent)
        by_id = {m.id: m for m in await self.context.db.read.matches_by_id(guild_id, shown)}
        closings = await self.context.db.read.member_closings(guild_id, user_id)
        moves = _season_moves(closings, user_id, settings.initial_rating)
        stats = card_stats(played, [by_id[match_id] for match_id in shown], user_id, moves)
        return RatingCard(
            member=member,
            rating=ladder_rating(member, settings),
            rank=rank,
            games=member.games,
            wins=member.wins,
            draws=member.draws,
            losses=member.losses,
            variant=chosen,
            performance=result.value,
            up=result.up,
            down=result.down,
            ra=found[user_id, RATING_ACCURACY].value,
            provisional=_provisional(member.games, settings),
            inactive=inactive,
            stats=stats,
        )

    async def predict(self, guild_id: int, a: int, b: int) -> Prediction:
        """The chance that a beats b; refused for one member against themself or a bot."""
        if a == b:
            raise UserError(
                N_("a and b are both {member}; predict a match of two different members"),
                member=f"<@{a}>",
            )
        async with self.context.db.snapshot():
            settings = await self.context.settings(guild_id)
            first, second = (
                await self.context.member(guild_id, a),
                await self.context.member(guild_id, b),
            )
            for member in (first, second):
                if member.is_bot:
                    raise UserError(
                        N_("{member} is a bot; bots play no ladder matches"),
                        member=f"<@{member.user_id}>",
                    )
            played = await self._played(guild_id, [a, b])
        ratings = [ladder_rating(m, settings) for m in (first, second)]
        ladder = float(ladder_expected_score(ratings[0], ratings[1], settings.t))
        members = sorted((a, b))
        games = game_arrays(played, pairing(played), elo_bridge(settings))(members)
        rp = performance_arrays(games, settings.variant)[[members.index(a), members.index(b)]]
        performance = (
            float(elo_expected_score(np.array([rp[1] - rp[0]]))[0])
            if np.isfinite(rp).all()
            else None
        )
        return Prediction(first, second, ladder, performance, settings.variant)

    # --- live leaderboard ----------------------------------------------------------------

    async def set_live_channel(self, guild_id: int, actor: Actor, channel_id: int | None) -> None:
        must_moderate(actor, N_("set the leaderboard channel"))
        async with self.context.write(guild_id) as unit:
            await unit.tx.ensure_guild(guild_id, self.context.defaults)
            await unit.tx.set_live_board(guild_id, channel_id)
            unit.change = Change(guild_id, "live_board", actor_id=actor.user_id)

    async def live_board(self, guild_id: int) -> LiveBoard | None:
        return await self.context.db.read.live_board(guild_id)

    async def live_boards_due(self) -> list[LiveBoard]:
        return await self.context.db.read.live_boards_due(
            self.context.clock(), self.context.edit_seconds
        )

    async def mark_live_board_edited(self, guild_id: int, message_id: int) -> None:
        async with self.context.write(guild_id) as unit:
            await unit.tx.mark_live_board_edited(guild_id, message_id, self.context.clock())
