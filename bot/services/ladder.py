"""The use cases of the bot: report, confirm, void, ratings, leaderboards, import/export.

`Ladder` is what the Discord front end and the command line call. Each write use case runs
as one database transaction (bot.storage), so a refusal (UserError) or a crash changes
nothing, and concurrent calls run one after another in the order they were made.

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

import asyncio
import contextlib
import logging
import math
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Final

import numpy as np

from bot.config import RATING_CONSTANTS, VARIANTS, Config, GuildSettings, KeyedSettingError
from bot.ratings.elo import EloBridge
from bot.ratings.gamelist import format_games
from bot.ratings.ladder import (
    MINUTES_RULE,
    SCORE_RULE,
    LadderSettings,
    expected_score,
    match_minutes,
    match_outcomes,
    rating_changes,
    valid_minutes,
    valid_scores,
)
from bot.ratings.performance import performance_arrays
from bot.ratings.solver import expected_score as elo_expected_score
from bot.services import seasons
from bot.services.card import CardStats, Played, card_stats, recent_ids
from bot.services.changes import Change, ChangeListener
from bot.services.csvio import (
    CsvMatch,
    CsvSeason,
    export_matches,
    format_time,
    match_key,
    native_id,
    parse_csv,
)
from bot.services.errors import UserError, quoted
from bot.services.lineup import MENTION, Lineup, lineup_text, parse_id
from bot.services.match_rules import check_cancel, check_state
from bot.services.performances import RATING_ACCURACY, game_arrays, game_list, performances
from bot.services.replaying import Record, ratings_at_start, records_by_season, replay_log
from bot.storage import (
    LOG_START,
    Database,
    DatabaseBusy,
    GameRows,
    KeyedMatch,
    LiveBoard,
    LogKey,
    Match,
    MatchEdit,
    Member,
    MemberInfo,
    NewMatch,
    NewParticipant,
    Participant,
    Performance,
    Season,
    WriteTransaction,
)

MAX_PARTICIPANTS: Final = 32
SECONDS_PER_DAY: Final = 86_400.0
NO_RECORD: Final = Record(0, 0, 0, 0)
NO_REPORTER: Final = 0
"""The reporter of an imported match: no user (ids start at 1), so only moderators cancel."""
MEASURES: Final = ("ladder", *VARIANTS, RATING_ACCURACY)
SETTING_NAMES: Final = tuple(field.name for field in fields(GuildSettings))
LISTING_SETTINGS: Final = ("min_games", "provisional_games")
"""Settings that change who is listed on leaderboards, or how, without a replay."""

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a Discord user, and whether they have Manage Server."""

    user_id: int
    is_moderator: bool = False


@dataclass(frozen=True, slots=True)
class ReportResult:
    match: Match
    applied: bool
    created: bool
    """False when the request id had already recorded this match."""


@dataclass(frozen=True, slots=True)
class ConfirmResult:
    match: Match
    applied_now: bool


@dataclass(frozen=True, slots=True)
class VoidResult:
    match: Match
    replayed: int
    """How many later matches were replayed."""


@dataclass(frozen=True, slots=True)
class EditResult:
    match: Match
    old_lineup: str
    replayed: int
    """Matches replayed (0 for a pending match: nothing was rated)."""


@dataclass(frozen=True, slots=True)
class SettingsResult:
    settings: GuildSettings
    replayed: int | None
    """Matches replayed; None when no rating constant changed value (no replay)."""


@dataclass(frozen=True, slots=True)
class ImportResult:
    matches: int
    replayed: int
    seasons: int = 0
    """Season starts imported."""
    skipped: int = 0
    """Matches and season starts of the file already in the guild (SPEC 8.3)."""


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


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
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


def ladder_settings(settings: GuildSettings) -> LadderSettings:
    return LadderSettings(
        settings.t, settings.game_mult, settings.max_game_length, settings.initial_rating
    )


def elo_bridge(settings: GuildSettings) -> EloBridge:
    return EloBridge(settings.t, settings.initial_rating)


def ladder_rating(member: Member, settings: GuildSettings) -> float:
    """The member's ladder rating; initial_rating before their first applied match."""
    return settings.initial_rating if member.rating is None else member.rating


def _on_leaderboard(member: Member, settings: GuildSettings) -> bool:
    """Left members, bots and members with fewer than min_games matches are not ranked."""
    return member.enabled and not member.is_bot and member.games >= settings.min_games


def _active_since(settings: GuildSettings, now: float) -> float | None:
    """The time from which a match keeps a member active; None when inactivity is off."""
    return now - settings.inactive_days * SECONDS_PER_DAY if settings.inactive_days else None


def _provisional(member: Member, settings: GuildSettings) -> bool:
    return member.games < settings.provisional_games


def _not_found(match_id: int) -> UserError:
    return UserError(f"there is no match #{match_id} in this server; see /match list for ids")


def _must_moderate(actor: Actor, what: str) -> None:
    if not actor.is_moderator:
        raise UserError(f"only moderators (Manage Server) can {what}")


def check_lineup(lineup: Lineup, minutes: float | None) -> None:
    """The refusals that need no database: size, duplicates, numbers out of range."""
    if minutes is not None and not valid_minutes(minutes):
        raise UserError(f"minutes {minutes!r} must be {MINUTES_RULE}")
    if len(lineup) > MAX_PARTICIPANTS:
        raise UserError(
            f"{len(lineup)} participants: a match has at most {MAX_PARTICIPANTS}; split it up"
        )
    seen: set[str] = set()
    for entry in lineup:
        label = entry.player.label
        if label in seen:
            raise UserError(f"{label} appears twice in the match; list every player once")
        seen.add(label)
        if not valid_scores(entry.score):
            raise UserError(f"{label}: score {entry.score!r} must be {SCORE_RULE}")
        if entry.minutes is not None and not valid_minutes(entry.minutes):
            raise UserError(f"{label}: minutes {entry.minutes!r} must be {MINUTES_RULE}")


async def _known_members(
    tx: WriteTransaction,
    guild_id: int,
    lineups: Iterable[Lineup],
    upserted: Iterable[Member] = (),
) -> dict[int, Member]:
    """The members playing in the lineups by user id: those just `upserted` from what the
    front end told us, the others created on first sight."""
    user_ids = {
        e.player.user_id for lineup in lineups for e in lineup if e.player.user_id is not None
    }
    known = {member.user_id: member for member in upserted}
    missing = user_ids - known.keys()
    if missing:
        known.update((member.user_id, member) for member in await tx.add_members(guild_id, missing))
    return {user_id: known[user_id] for user_id in user_ids}


def _parsed_in_order(data: bytes | str, now: float) -> tuple[list[CsvMatch], list[CsvSeason]]:
    """A CSV file's matches in log order and its season starts: Python work per row, run in
    a worker thread."""
    matches, starts = parse_csv(data, now)
    return sorted(matches, key=lambda match: match.order), starts


def _match_change(match: Match, actor_id: int | None) -> Change:
    """A match just recorded pending ("reported"), or applied: its rated members changed."""
    if match.status != "applied":
        return Change(match.guild_id, "reported", match_id=match.id, actor_id=actor_id)
    rated = frozenset(p.user_id for p in match.participants if p.enabled and p.user_id is not None)
    return Change(match.guild_id, "applied", rated, match_id=match.id, actor_id=actor_id)


class _Retried(Exception):  # noqa: N818 (control flow, not an error)
    """A request id seen before: its match is the answer, and the transaction rolls back
    what it stored meanwhile (a retried request changes nothing)."""

    def __init__(self, match: Match) -> None:
        super().__init__(match.id)
        self.match = match


def build_participants(
    lineup: Lineup,
    members: Mapping[int, Member],
    settings: GuildSettings,
    minutes: float | None,
) -> tuple[NewParticipant, ...]:
    """The lineup as stored participants: who is rated, their records. UserError if bots
    play or fewer than two sides have rated players."""
    for entry in lineup:
        user_id = entry.player.user_id
        if user_id is not None and members[user_id].is_bot:
            raise UserError(f"<@{user_id}> is a bot; bots cannot play in ladder matches")
    default_minutes = match_minutes(minutes, ladder_settings(settings))
    rows = [
        (
            entry,
            entry.minutes if entry.minutes is not None else default_minutes,
            entry.player.user_id is not None and members[entry.player.user_id].enabled,
        )
        for entry in lineup
    ]
    rated = [(entry, played) for entry, played, enabled in rows if enabled]
    if len({entry.side for entry, _ in rated}) < 2:
        raise UserError("a match needs rated players (members in the ladder) on at least two sides")
    records = iter(
        match_outcomes(
            [e.side for e, _ in rated], [e.score for e, _ in rated], [m for _, m in rated]
        )
    )
    return tuple(
        NewParticipant(
            entry.player.user_id,
            entry.player.guest,
            entry.side,
            float(entry.score),
            float(played),
            enabled,
            next(records) if enabled else None,
        )
        for entry, played, enabled in rows
    )


def measured(
    rows: GameRows, user_ids: Sequence[int], measures: Sequence[str], bridge: EloBridge
) -> dict[tuple[int, str], Performance]:
    """The measures of the members from their game rows by (user id, measure): numpy work
    over up to a whole guild, so callers run it in a worker thread (SPEC 8.5)."""
    games = game_arrays(rows, user_ids, bridge)
    return {
        (user_id, measure): performance
        for measure in measures
        for user_id, performance in zip(user_ids, performances(games, measure, bridge), strict=True)
    }


@dataclass(slots=True)
class _Unit:
    """One write use case: its transaction, and the Change it reports once committed."""

    tx: WriteTransaction
    change: Change | None = None
    stamped: bool = False
    """The use case's own statements already marked the guild changed (a report)."""


@dataclass(frozen=True, slots=True)
class _Replayed:
    matches: int
    member_ids: frozenset[int]
    """Members whose rating was rewritten."""


class Ladder:
    """The bot's use cases over one database; `defaults` start every new guild. Each write
    use case reports what it changed to `on_change` once committed (bot.services.changes)."""

    def __init__(
        self,
        db: Database,
        defaults: GuildSettings,
        *,
        clock: Callable[[], float] = time.time,
        page_size: int = 10,
        edit_seconds: float = 60.0,
        fill_cache: bool = False,
        on_change: ChangeListener | None = None,
    ) -> None:
        self.db = db
        self.defaults = defaults
        self.clock = clock
        self.page_size = page_size
        self.edit_seconds = edit_seconds
        self.fill_cache = fill_cache
        """Store the performances reads compute, after the read has answered (the bot);
        off, reads write nothing at all (the command line)."""
        self._filling: set[asyncio.Task[None]] = set()
        self.on_change = on_change
        """Told every committed change; the bot sets it once it exists."""

    @classmethod
    async def open(
        cls,
        path: str | Path,
        config: Config,
        *,
        clock: Callable[[], float] = time.time,
        fill_cache: bool = False,
        on_change: ChangeListener | None = None,
    ) -> Ladder:
        db = await Database.open(path)
        return cls(
            db,
            config.defaults,
            clock=clock,
            page_size=config.leaderboard.page_size,
            edit_seconds=config.leaderboard.edit_seconds,
            fill_cache=fill_cache,
            on_change=on_change,
        )

    async def close(self) -> None:
        await self.cache_filled()
        await self.db.close()

    async def cache_filled(self) -> None:
        """Wait for the cache fills started by earlier reads."""
        while self._filling:
            await asyncio.gather(*self._filling)

    @asynccontextmanager
    async def _write(self, guild_id: int) -> AsyncIterator[_Unit]:
        """The one change path: a write use case's transaction. When the Change it sets
        changes the standings, the guild is marked changed in the same transaction (other
        processes' live boards follow); once committed, the Change goes to `on_change`. A
        refusal or a rollback reports nothing."""
        async with self.db.write(guild_id) as tx:
            unit = _Unit(tx)
            yield unit
            if unit.change is not None and unit.change.changes_standings and not unit.stamped:
                await tx.mark_changed(guild_id, self.clock())
        if unit.change is not None and self.on_change is not None:
            try:
                self.on_change(unit.change)
            except Exception:  # the write stands whatever a listener does
                log.exception("a change listener failed on %r", unit.change)

    # --- members -------------------------------------------------------------------------

    async def upsert_members(self, guild_id: int, members: Iterable[MemberInfo]) -> None:
        async with self.db.write(guild_id) as tx:
            await tx.ensure_guild(guild_id, self.defaults)
            await tx.upsert_members(guild_id, members)

    async def learn_names(self, guild_id: int, seen: Iterable[MemberInfo]) -> int:
        """Bring the stored names and bot flags of the members the ladder knows (players,
        imported members) up to date with what Discord shows; others are not added (being
        seen is no reason to be listed). Writes only what changed; returns how many."""
        infos = {info.user_id: info for info in seen}
        known = await self.db.read.members_by_id(guild_id, infos)
        changed = [
            infos[member.user_id]
            for member in known
            if (member.name, member.is_bot)
            != (infos[member.user_id].name, infos[member.user_id].is_bot)
        ]
        if changed:
            async with self.db.write(guild_id) as tx:
                await tx.upsert_members(guild_id, changed)
        return len(changed)

    async def join(self, guild_id: int, member: MemberInfo) -> Member:
        return await self._set_enabled(guild_id, member, True)

    async def leave(self, guild_id: int, member: MemberInfo) -> Member:
        return await self._set_enabled(guild_id, member, False)

    async def _set_enabled(self, guild_id: int, info: MemberInfo, enabled: bool) -> Member:
        if info.is_bot:
            raise UserError("bots cannot join the ladder")
        async with self._write(guild_id) as unit:
            await unit.tx.ensure_guild(guild_id, self.defaults)
            (stored,) = await unit.tx.upsert_members(guild_id, [info])
            if stored.enabled == enabled:
                return stored
            await unit.tx.set_enabled(guild_id, info.user_id, enabled)
            unit.change = Change(
                guild_id,
                "membership",
                frozenset({info.user_id}),
                actor_id=info.user_id,
                detail="joined the ladder" if enabled else "left the ladder",
            )
        return replace(stored, enabled=enabled)

    async def find_member(self, guild_id: int, text: str) -> Member:
        """A member by user id, mention or display name (UserError if none or several)."""
        wanted = text.strip()
        mention = MENTION.fullmatch(wanted)
        if mention or wanted.isdigit():  # any digits, so '²' is refused as an id, not a name
            user_id = parse_id(mention.group(1) if mention else wanted)
            member = await self.db.read.member(guild_id, user_id)
            if member is None:
                raise UserError(f"no member with id {user_id} in this server's ladder")
            return member
        named = await self.db.read.members_named(guild_id, wanted)
        if not named:
            raise UserError(
                f"no member named {quoted(wanted)} in this server's ladder; try the user id"
            )
        if len(named) > 1:
            ids = ", ".join(str(member.user_id) for member in named)
            raise UserError(
                f"several members are named {quoted(wanted)} (ids {ids}); give the user id"
            )
        return named[0]

    async def _member(self, guild_id: int, user_id: int) -> Member:
        member = await self.db.read.member(guild_id, user_id)
        if member is None:
            raise UserError(f"<@{user_id}> has no ladder record in this server yet")
        return member

    # --- matches -------------------------------------------------------------------------

    async def report(
        self,
        guild_id: int,
        actor: Actor,
        lineup: Lineup,
        *,
        request_id: str,
        minutes: float | None = None,
        members: Iterable[MemberInfo] = (),
    ) -> ReportResult:
        """Record a match: pending for a non-moderator when the guild asks the opponents to
        confirm, else applied at once. The same request id twice records one match."""
        check_lineup(lineup, minutes)
        players = {entry.player.user_id for entry in lineup}
        try:
            async with self._write(guild_id) as unit:
                tx = unit.tx
                slot = await tx.report_slot(guild_id, request_id, actor.is_moderator, self.clock())
                if slot is None:  # the guild's first write
                    await tx.ensure_guild(guild_id, self.defaults)
                    slot = await tx.report_slot(
                        guild_id, request_id, actor.is_moderator, self.clock()
                    )
                    assert slot is not None
                unit.stamped = True
                settings, newest, match_id = slot.settings, slot.newest, slot.match_id
                upserted = await tx.upsert_members(guild_id, members)
                if slot.existing is not None:
                    raise _Retried(await self._load(tx, guild_id, slot.existing))
                if not actor.is_moderator and actor.user_id not in players:
                    raise UserError(
                        "you can only report matches you played in (moderators can report any)"
                    )
                known = await _known_members(tx, guild_id, [lineup], upserted)
                participants = build_participants(lineup, known, settings, minutes)
                now = self.clock()
                new = NewMatch(actor.user_id, now, now, request_id, participants)
                names = {user_id: member.name for user_id, member in known.items()}
                if settings.confirm == "none" or actor.is_moderator:
                    applied_at, ratings = self._ratings(settings, newest, participants, known)
                    new = new.rated(ratings)
                    await tx.add_applied_match(guild_id, new, match_id, applied_at)
                    match = new.stored(match_id, guild_id, "applied", applied_at, names)
                else:
                    await tx.insert_matches(guild_id, [new], "pending", [match_id])
                    match = new.stored(match_id, guild_id, "pending", None, names)
                unit.change = _match_change(match, actor.user_id)
        except _Retried as retried:
            return ReportResult(retried.match, retried.match.status == "applied", created=False)
        return ReportResult(match, match.status == "applied", created=True)

    def _ratings(
        self,
        settings: GuildSettings,
        newest: LogKey | None,
        participants: Sequence[NewParticipant | Participant],
        members: Mapping[int, Member],
    ) -> tuple[float, dict[int, tuple[float, float]]]:
        """Applying a match after `newest`, the end of the log (incremental: nothing is
        replayed): its applied_at, and each rated member's rating before and after it."""
        rated = [(p, p.user_id) for p in participants if p.enabled and p.user_id is not None]
        before = [ladder_rating(members[user_id], settings) for _, user_id in rated]
        changes = rating_changes(
            before,
            [p.side for p, _ in rated],
            [p.score for p, _ in rated],
            [p.minutes for p, _ in rated],
            ladder_settings(settings),
        )
        now = self.clock()
        applied_at = (
            now if newest is None or now > newest[0] else math.nextafter(newest[0], math.inf)
        )
        return applied_at, {
            user_id: (rating, rating + float(change))
            for (_, user_id), rating, change in zip(rated, before, changes, strict=True)
        }

    async def _apply(self, tx: WriteTransaction, settings: GuildSettings, match: Match) -> Match:
        """Apply a pending match at the end of the log."""
        rated_ids = [p.user_id for p in match.participants if p.enabled and p.user_id is not None]
        members = {m.user_id: m for m in await tx.members_by_id(match.guild_id, rated_ids)}
        newest = await tx.newest_log_key(match.guild_id)
        applied_at, ratings = self._ratings(settings, newest, match.participants, members)
        await tx.apply_match(match, applied_at, ratings)
        return match.applied(applied_at, ratings)

    async def _replay(
        self,
        tx: WriteTransaction,
        guild_id: int,
        settings: GuildSettings,
        start: LogKey | None,
        seed: Mapping[int, float] | None = None,
        recount: Collection[int] = (),
    ) -> _Replayed:
        """Replay the applied matches from `start` (None: the whole guild) and store the
        ratings. A member's start rating: `seed`, else the rating_before of their first
        match in the replayed part, else their current rating (or initial_rating). Records:
        a whole-guild replay counts everyone's; a partial one recounts the members of
        `recount` (those whose matches were added or voided)."""
        log = await tx.log_columns(guild_id, LOG_START if start is None else start)
        crossed = await tx.seasons_from(guild_id, LOG_START if start is None else start)
        boundaries = seasons.boundaries(log, crossed)
        starts: dict[int, float] = {}
        final: dict[int, float | None]
        members: list[Member] = []
        if start is None:  # everyone's rating is rewritten (None: no rated match left)
            members = await tx.members(guild_id)
            final = dict.fromkeys(member.user_id for member in members)
        elif crossed:  # season starts change everyone rated: start from their closings
            starts = await seasons.starts_across(tx, guild_id, log, crossed, seed or {})
            final = dict(seed or {})
        else:
            starts = ratings_at_start(log, (), {}, None)
            starts.update(seed or {})
            # Only members with no rating before in the replayed part (imported matches)
            # start from their current rating: read just those.
            unseeded = set(np.unique(log.user_id).tolist()) - starts.keys()
            if unseeded:
                for member in await tx.members_by_id(guild_id, unseeded):
                    if member.rating is not None:
                        starts[member.user_id] = member.rating
            final = dict(seed or {})
        # numpy work, off the event loop (SPEC 8.5)
        result = await asyncio.to_thread(
            replay_log, log, starts, ladder_settings(settings), boundaries
        )
        final.update(result.final)
        await tx.write_replay(guild_id, log, result.before, result.after, final)
        await seasons.store_closings(tx, guild_id, crossed, result)
        if start is None:
            current = (await asyncio.to_thread(records_by_season, log, boundaries))[-1]
            await tx.set_records(
                guild_id,
                {
                    member.user_id: record
                    for member in members
                    if (record := current.get(member.user_id, NO_RECORD))
                    != (member.games, member.wins, member.draws, member.losses)
                },
            )
        elif recount:
            await tx.recount_records(guild_id, list(recount))
        return _Replayed(len(log.match_firsts()), frozenset(final))

    async def set_match_message(
        self, guild_id: int, match_id: int, channel_id: int, message_id: int
    ) -> None:
        async with self.db.write(guild_id) as tx:
            if await tx.match(guild_id, match_id) is None:
                raise _not_found(match_id)
            await tx.set_match_message(match_id, channel_id, message_id)

    async def _load(self, tx: WriteTransaction, guild_id: int, match_id: int) -> Match:
        match = await tx.match(guild_id, match_id)
        if match is None:
            raise _not_found(match_id)
        return match

    @staticmethod
    def _may_answer(actor: Actor, match: Match) -> bool:
        """A moderator, or a participant on another side than the reporter's."""
        if actor.is_moderator:
            return True
        reporter_sides = {p.side for p in match.participants if p.user_id == match.reporter_id}
        return any(
            p.user_id == actor.user_id and p.side not in reporter_sides for p in match.participants
        )

    async def confirm(self, guild_id: int, actor: Actor, match_id: int) -> ConfirmResult:
        async with self._write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.defaults)
            match = await self._load(tx, guild_id, match_id)
            if match.status == "applied":
                return ConfirmResult(match, applied_now=False)
            check_state("confirm", match_id, match.status)
            if match.status == "disputed" and not actor.is_moderator:
                raise UserError(f"match #{match_id} is disputed; a moderator has to decide it")
            if not self._may_answer(actor, match):
                raise UserError(
                    f"only an opponent of the reporter or a moderator can confirm match #{match_id}"
                )
            applied = await self._apply(tx, settings, match)
            unit.change = _match_change(applied, actor.user_id)
        return ConfirmResult(applied, applied_now=True)

    async def dispute(self, guild_id: int, actor: Actor, match_id: int) -> Match:
        async with self._write(guild_id) as unit:
            tx = unit.tx
            match = await self._load(tx, guild_id, match_id)
            if match.status == "disputed":
                return match
            check_state("dispute", match_id, match.status)
            if not self._may_answer(actor, match):
                raise UserError(
                    f"only an opponent of the reporter or a moderator can dispute match #{match_id}"
                )
            await tx.set_status(match_id, "disputed", disputed_by=actor.user_id)
            unit.change = Change(guild_id, "disputed", match_id=match_id, actor_id=actor.user_id)
            return await self._load(tx, guild_id, match_id)

    async def cancel(self, guild_id: int, actor: Actor, match_id: int) -> Match:
        """The reporter (or a moderator) withdraws a pending or disputed report (SPEC 9.4):
        it becomes void; nothing was rated, so nothing is replayed."""
        async with self._write(guild_id) as unit:
            tx = unit.tx
            match = await self._load(tx, guild_id, match_id)
            reporter = NO_REPORTER if match.reporter_id is None else match.reporter_id
            check_cancel(actor, match_id, match.status, reporter)
            await tx.set_status(match_id, "void", void_reason="cancelled by its reporter")
            unit.change = Change(guild_id, "cancelled", match_id=match_id, actor_id=actor.user_id)
            return await self._load(tx, guild_id, match_id)

    async def void(
        self, guild_id: int, actor: Actor, match_id: int, reason: str | None = None
    ) -> VoidResult:
        _must_moderate(actor, "void matches")
        async with self._write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.defaults)
            match = await self._load(tx, guild_id, match_id)
            check_state("void", match_id, match.status)
            await tx.set_status(match_id, "void", void_reason=reason or "voided by a moderator")
            replayed = _Replayed(0, frozenset())
            if match.status == "applied":
                assert match.log_key is not None
                seed = {
                    p.user_id: p.rating_before
                    for p in match.participants
                    if p.enabled and p.user_id is not None and p.rating_before is not None
                }
                replayed = await self._replay(
                    tx, guild_id, settings, match.log_key, seed, recount=seed
                )
            unit.change = Change(
                guild_id,
                "voided",
                replayed.member_ids,
                match_id=match_id,
                actor_id=actor.user_id,
                detail=reason or "",
            )
            return VoidResult(await self._load(tx, guild_id, match_id), replayed.matches)

    async def edit(
        self,
        guild_id: int,
        actor: Actor,
        match_id: int,
        lineup: Lineup,
        *,
        minutes: float | None = None,
        members: Iterable[MemberInfo] = (),
    ) -> EditResult:
        """Replace the participants of a pending or applied match (SPEC 9.4), keeping the old
        lineup in its history. An applied match's guild is replayed from its log: the new
        participants' ratings at that point are not stored anywhere else, and the stored
        ratings must equal a replay."""
        _must_moderate(actor, "edit matches")
        check_lineup(lineup, minutes)
        async with self._write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.defaults)
            match = await self._load(tx, guild_id, match_id)
            check_state("edit", match_id, match.status)
            upserted = await tx.upsert_members(guild_id, members)
            known = await _known_members(tx, guild_id, [lineup], upserted)
            participants = build_participants(lineup, known, settings, minutes)
            old = lineup_text(match.participants)
            await tx.clear_lineup(match_id, MatchEdit(self.clock(), actor.user_id, old))
            await tx.insert_participants([(match_id, participants)])
            replayed = _Replayed(0, frozenset())
            if match.status == "applied":
                replayed = await self._replay(tx, guild_id, settings, None)
            unit.change = Change(
                guild_id,
                "edited",
                replayed.member_ids,
                match_id=match_id,
                actor_id=actor.user_id,
                detail=f"was {old}",
            )
            edited = await self._load(tx, guild_id, match_id)
        return EditResult(edited, old, replayed.matches)

    async def match_edits(self, guild_id: int, match_id: int) -> list[MatchEdit]:
        """The lineups a match had before each edit (for /match show)."""
        await self.show_match(guild_id, match_id)
        return await self.db.read.match_edits(match_id)

    async def auto_confirm(
        self, owned: Callable[[int], bool] = lambda guild_id: True
    ) -> list[Match]:
        """Apply every pending match older than its guild's auto_confirm_hours, in the guilds
        `owned` accepts (a bot process: the guilds of its shards)."""
        applied = []
        for guild_id, match_id in await self.db.read.due_pending(self.clock()):
            if not owned(guild_id):
                continue
            async with self._write(guild_id) as unit:
                settings = await unit.tx.ensure_guild(guild_id, self.defaults)
                match = await self._load(unit.tx, guild_id, match_id)
                if match.status == "pending":
                    applied.append(await self._apply(unit.tx, settings, match))
                    unit.change = _match_change(applied[-1], None)
        return applied

    async def show_match(self, guild_id: int, match_id: int) -> Match:
        match = await self.db.read.match(guild_id, match_id)
        if match is None:
            raise _not_found(match_id)
        return match

    async def list_matches(
        self, guild_id: int, user_id: int | None = None, limit: int = 10
    ) -> list[Match]:
        return await self.db.read.recent_matches(guild_id, user_id, limit)

    # --- settings ------------------------------------------------------------------------

    async def settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings; the defaults until its first write."""
        return await self.db.read.guild_settings(guild_id) or self.defaults

    async def change_settings(
        self, guild_id: int, actor: Actor, changes: Mapping[str, object]
    ) -> SettingsResult:
        _must_moderate(actor, "change the settings")
        async with self._write(guild_id) as unit:
            current = await unit.tx.ensure_guild(guild_id, self.defaults)
            try:
                changed = current.changed(changes)
            except KeyedSettingError as error:
                raise UserError(f"setting {error.key}: {error}") from None
            await unit.tx.save_settings(guild_id, changed)
            differ = {
                name for name in SETTING_NAMES if getattr(current, name) != getattr(changed, name)
            }
            replayed = None
            if differ.intersection(RATING_CONSTANTS):
                replayed = (await self._replay(unit.tx, guild_id, changed, None)).matches
            unit.change = Change(
                guild_id,
                "settings",
                everyone=replayed is not None or bool(differ.intersection(LISTING_SETTINGS)),
                actor_id=actor.user_id,
                detail=", ".join(f"{name} = {getattr(changed, name)}" for name in sorted(differ)),
            )
        return SettingsResult(changed, replayed)

    async def recompute(self, guild_id: int, actor: Actor) -> int:
        """Replay the whole guild from its log; returns the number of matches replayed."""
        _must_moderate(actor, "recompute the ladder")
        async with self._write(guild_id) as unit:
            settings = await unit.tx.ensure_guild(guild_id, self.defaults)
            replayed = await self._replay(unit.tx, guild_id, settings, None)
            unit.change = Change(guild_id, "replayed", everyone=True, actor_id=actor.user_id)
        return replayed.matches

    # --- seasons (SPEC 9.1; bot.services.seasons) ---------------------------------------

    async def start_season(
        self, guild_id: int, actor: Actor, name: str, carry: float = 0.0
    ) -> Season:
        """Close the current season (its closing standings are stored) and start `name` at
        the end of the log: ratings carry over, records restart at 0."""
        _must_moderate(actor, "start a season")
        kept = seasons.season_carry(carry)
        async with self._write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.defaults)
            taken = await tx.seasons(guild_id)
            chosen = seasons.new_season_name(name, taken)
            newest = await tx.newest_log_key(guild_id)
            now = self.clock()
            starts_at = (
                now if newest is None or now > newest[0] else math.nextafter(newest[0], math.inf)
            )
            season = await tx.add_season(guild_id, chosen, kept, starts_at, now, actor.user_id)
            closing = {
                member.user_id: member.rating
                for member in await tx.members(guild_id)
                if member.rating is not None
            }
            await tx.store_closing(season, taken[-1] if taken else None, closing)
            await tx.set_ratings(guild_id, seasons.carried(closing, kept, settings.initial_rating))
            await tx.restart_records(guild_id)
            unit.change = Change(
                guild_id,
                "season_started",
                everyone=True,
                actor_id=actor.user_id,
                detail=f"season {quoted(chosen)} started (carry {kept:g})",
            )
        return season

    async def season_list(self, guild_id: int) -> list[seasons.SeasonSummary]:
        """Every season, oldest first; the last is the current one."""
        return seasons.summaries(
            await self.db.read.seasons(guild_id), await self.db.read.standings_sizes(guild_id)
        )

    async def _closing_entries(
        self, guild_id: int, settings: GuildSettings, name: str, by: str
    ) -> list[tuple[int, str, float, float, int, int, int, int, bool]] | None:
        """The closing standings of the closed season `name`, best first, as leaderboard
        entries (those with min_games matches in it, at least one); None when `name` is the
        current season. UserError for an unknown name or a measure other than ladder."""
        listed = await self.db.read.seasons(guild_id)
        names = [seasons.FIRST_SEASON, *(season.name for season in listed)]
        wanted = seasons.season_name(name)
        if wanted not in names:
            raise UserError(
                f"season {quoted(wanted)} must be one of this server's seasons: "
                + quoted(", ".join(names))
                + " (see /season list)"
            )
        index = names.index(wanted)
        if index == len(listed):
            return None
        if by != "ladder":
            raise UserError(
                f"season {quoted(wanted)} is closed: its standings rank by ladder only, not {by!r}"
            )
        standings = [
            standing
            for standing in await self.db.read.closing_standings(guild_id, listed[index].number)
            if standing.games >= max(1, settings.min_games)
        ]
        standings.sort(key=lambda s: (-s.rating, -s.games, s.user_id))
        return [
            (s.user_id, s.name, s.rating, s.rating, s.games, s.wins, s.draws, s.losses, False)
            for s in standings
        ]

    # --- reading -------------------------------------------------------------------------

    async def _performances(
        self, guild_id: int, user_ids: Sequence[int], measures: Sequence[str]
    ) -> dict[tuple[int, str], Performance]:
        """The measures ("p1".."p8", "ra") of the members by (user id, measure), from the
        cache; the members it lacks are computed (`_compute_performances`)."""
        found = await self.db.read.performances(guild_id, user_ids, measures)
        missing = sorted({u for u in user_ids for m in measures if (u, m) not in found})
        if missing:
            found.update(await self._compute_performances(guild_id, missing, measures))
        return found

    async def _compute_performances(
        self, guild_id: int, user_ids: Sequence[int], measures: Sequence[str]
    ) -> dict[tuple[int, str], Performance]:
        """The measures of the members (ascending ids) computed in one vectorized pass, in
        memory: a read never writes (SPEC 8.2). With fill_cache, they are stored afterwards
        by a write of their own that the read does not wait for (`_fill_cache`)."""
        bridge = elo_bridge(await self.settings(guild_id))
        versions = {
            member.user_id: (member.rating, member.games)
            for member in await self.db.read.members_by_id(guild_id, user_ids)
        }
        rows = await self.db.read.member_games(guild_id, user_ids)
        computed = await asyncio.to_thread(measured, rows, user_ids, measures, bridge)
        if self.fill_cache and computed:
            task = asyncio.create_task(self._fill_cache(guild_id, computed, versions))
            self._filling.add(task)
            task.add_done_callback(self._filling.discard)
        return computed

    async def _fill_cache(
        self,
        guild_id: int,
        computed: Mapping[tuple[int, str], Performance],
        versions: Mapping[int, tuple[float | None, int]],
    ) -> None:
        """Cache what a read computed, off its path; members whose rating or record changed
        since are skipped (their games changed), and a busy database just skips it all."""
        with contextlib.suppress(DatabaseBusy):
            async with self.db.write(guild_id) as tx:
                await tx.store_performances(guild_id, computed, versions)

    async def history_text(self, guild_id: int, user_id: int) -> str:
        """The member's games in the format of SPEC 1.1 (opponent ratings in Elo units)."""
        settings = await self.settings(guild_id)
        await self._member(guild_id, user_id)
        rows = await self.db.read.member_games(guild_id, [user_id])
        return format_games(game_list(rows, elo_bridge(settings), self.clock()))

    async def _ranked(
        self, guild_id: int, settings: GuildSettings, by: str
    ) -> list[tuple[Member, float, float]]:
        """(member, value of `by`, ladder rating) of everyone on the leaderboard, best first."""
        if by not in MEASURES:
            raise UserError(f"cannot rank by {by!r}; choose one of {', '.join(MEASURES)}")
        since = _active_since(settings, self.clock())
        active = None if since is None else await self.db.read.played_since(guild_id, since)
        measured = [
            (member, cached)
            for member, cached in await self.db.read.members_measured(guild_id, by)
            if _on_leaderboard(member, settings) and (active is None or member.user_id in active)
        ]
        ratings = [ladder_rating(member, settings) for member, _ in measured]
        if by == "ladder":
            values = ratings
        else:
            missing = [member.user_id for member, cached in measured if cached is None]
            computed = await self._compute_performances(guild_id, missing, [by]) if missing else {}
            values = [(cached or computed[member.user_id, by]).value for member, cached in measured]
        ranked = [
            (member, value, rating)
            for (member, _), value, rating in zip(measured, values, ratings, strict=True)
        ]
        ranked.sort(
            key=lambda entry: (
                math.isnan(entry[1]),
                -entry[1] if not math.isnan(entry[1]) else 0.0,
                -entry[0].games,
                entry[0].user_id,
            )
        )
        return ranked

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
        empty page."""
        settings = await self.settings(guild_id)
        closed = (
            None if season is None else await self._closing_entries(guild_id, settings, season, by)
        )
        ranked = (
            [
                (
                    member.user_id,
                    member.name,
                    value,
                    rating,
                    member.games,
                    member.wins,
                    member.draws,
                    member.losses,
                    _provisional(member, settings),
                )
                for member, value, rating in await self._ranked(guild_id, settings, by)
            ]
            if closed is None
            else closed
        )
        size = self.page_size if page_size is None else page_size
        size = size or max(1, len(ranked))
        pages = max(1, math.ceil(len(ranked) / size))
        if not 1 <= page <= pages:
            noun = "page" if pages == 1 else "pages"
            raise UserError(
                f"page {page!r} must be from 1 to {pages}: the leaderboard has {pages} {noun}"
            )
        first = (page - 1) * size
        rows = tuple(
            LeaderboardRow(rank, *entry)
            for rank, entry in enumerate(ranked[first : first + size], start=first + 1)
        )
        return LeaderboardPage(
            by, page, pages, len(ranked), rows, None if closed is None else season
        )

    async def rating_card(
        self, guild_id: int, user_id: int, variant: str | None = None, recent: int = 5
    ) -> RatingCard:
        settings = await self.settings(guild_id)
        chosen = variant or settings.variant
        if chosen not in VARIANTS:
            raise UserError(f"unknown variant {chosen!r}; choose one of {', '.join(VARIANTS)}")
        member = await self._member(guild_id, user_id)
        found = await self._performances(guild_id, [user_id], [chosen, RATING_ACCURACY])
        result = found[user_id, chosen]
        since = _active_since(settings, self.clock())
        inactive = since is not None and user_id not in await self.db.read.played_since(
            guild_id, since
        )
        rank = (
            await self.db.read.ladder_rank(
                member, settings.min_games, settings.initial_rating, since
            )
            if _on_leaderboard(member, settings) and not inactive
            else None
        )
        played = [Played(*row) for row in await self.db.read.rated_results(guild_id, user_id)]
        shown = recent_ids(played, recent)
        by_id = {m.id: m for m in await self.db.read.matches_by_id(guild_id, shown)}
        stats = card_stats(played, [by_id[match_id] for match_id in shown], user_id)
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
            provisional=_provisional(member, settings),
            inactive=inactive,
            stats=stats,
        )

    async def predict(self, guild_id: int, a: int, b: int) -> Prediction:
        """The chance that a beats b; refused for one member against themself or a bot."""
        if a == b:
            raise UserError(f"a and b are both <@{a}>; predict a match of two different members")
        settings = await self.settings(guild_id)
        first, second = await self._member(guild_id, a), await self._member(guild_id, b)
        for member in (first, second):
            if member.is_bot:
                raise UserError(f"<@{member.user_id}> is a bot; bots play no ladder matches")
        ratings = [ladder_rating(m, settings) for m in (first, second)]
        ladder = float(expected_score(ratings[0], ratings[1], settings.t))
        games = game_arrays(
            await self.db.read.member_games(guild_id, [a, b]), [a, b], elo_bridge(settings)
        )
        rp = performance_arrays(games, settings.variant)
        performance = (
            float(elo_expected_score(np.array([rp[1] - rp[0]]))[0])
            if np.isfinite(rp).all()
            else None
        )
        return Prediction(first, second, ladder, performance)

    # --- live leaderboard ----------------------------------------------------------------

    async def set_live_channel(self, guild_id: int, actor: Actor, channel_id: int | None) -> None:
        _must_moderate(actor, "set the leaderboard channel")
        async with self.db.write(guild_id) as tx:
            await tx.ensure_guild(guild_id, self.defaults)
            await tx.set_live_board(guild_id, channel_id)

    async def live_board(self, guild_id: int) -> LiveBoard | None:
        return await self.db.read.live_board(guild_id)

    async def live_boards_due(self) -> list[LiveBoard]:
        return await self.db.read.live_boards_due(self.clock(), self.edit_seconds)

    async def mark_live_board_edited(self, guild_id: int, message_id: int) -> None:
        async with self.db.write(guild_id) as tx:
            await tx.mark_live_board_edited(guild_id, message_id, self.clock())

    # --- import / export -----------------------------------------------------------------

    async def export_csv(self, guild_id: int) -> str:
        return export_matches(
            await self.db.read.all_matches(guild_id), await self.db.read.seasons(guild_id)
        )

    async def import_csv(self, guild_id: int, actor: Actor, data: bytes | str) -> ImportResult:
        """Import matches (a CSV file's bytes, or its text) as applied, merged into the log by
        played_at, and its season starts (then the whole guild is replayed: no closing
        standings are stored for a new start inside the log); all or nothing. Matches and
        season starts already in the guild (SPEC 8.3: a match under its label, a start under
        its name) are skipped; one there with other players, time or carry is refused."""
        _must_moderate(actor, "import matches")
        # Parsing and building the matches is Python work per row: off the event loop.
        parsed, parsed_starts = await asyncio.to_thread(_parsed_in_order, data, self.clock())
        async with self._write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.defaults)
            fresh = await self._not_imported(tx, guild_id, parsed)
            skipped = len(parsed) - len(fresh)
            batch = uuid.uuid4().hex
            known = await _known_members(tx, guild_id, [m.entries for m in fresh])
            now = self.clock()
            new = await asyncio.to_thread(
                lambda: [self._imported(m, known, settings, now, batch) for m in fresh]
            )
            taken = list(await tx.seasons(guild_id))
            starts = _new_starts(parsed_starts, taken)
            skipped += len(parsed_starts) - len(starts)
            for start in sorted(starts, key=lambda season: season.starts_at):
                try:
                    name = seasons.new_season_name(start.name, taken)
                except UserError as error:
                    raise UserError(f"line {start.line}: {error}") from None
                taken.append(
                    await tx.add_season(
                        guild_id, name, start.carry, start.starts_at, now, actor.user_id
                    )
                )
            if not new and not starts:
                return ImportResult(0, 0, 0, skipped)
            ids = (
                await tx.insert_matches(
                    guild_id,
                    new,
                    "applied",
                    await tx.new_match_ids(len(new)),
                    [m.played_at for m in new],
                )
                if new
                else []
            )
            replayed = await self._replay(
                tx,
                guild_id,
                settings,
                min(zip((m.played_at for m in new), ids, strict=True)) if not starts else None,
                {},
                recount={p.user_id for m in new for p in m.participants if p.enabled and p.user_id},
            )
            unit.change = Change(
                guild_id,
                "imported",
                replayed.member_ids,
                everyone=bool(starts),
                actor_id=actor.user_id,
                detail=f"{len(new)} matches imported"
                + (f", {len(starts)} season starts" if starts else "")
                + f", {replayed.matches} replayed",
            )
        return ImportResult(len(new), replayed.matches, len(starts), skipped)

    @staticmethod
    async def _not_imported(
        tx: WriteTransaction, guild_id: int, parsed: Sequence[CsvMatch]
    ) -> list[CsvMatch]:
        """The parsed matches whose label is no match's key in the guild yet; UserError for
        one whose stored match has other players or another time."""
        labels = [m.label for m in parsed]
        ids = [i for i in map(native_id, labels) if i is not None]
        stored = {
            match_key(found.id, found.import_key): found
            for found in await tx.keyed_matches(guild_id, labels, ids)
        }
        fresh = []
        for match in parsed:
            found = stored.get(match.label)
            if found is None:
                fresh.append(match)
            elif not _same_match(match, found):
                raise UserError(
                    f"line {match.line}: match {quoted(match.label)} is already in the guild "
                    f"(match #{found.id}) with other players or another time; give it another "
                    "label or leave it out; nothing was imported"
                )
        return fresh

    @staticmethod
    def _imported(
        match: CsvMatch,
        members: Mapping[int, Member],
        settings: GuildSettings,
        now: float,
        batch: str,
    ) -> NewMatch:
        try:
            check_lineup(match.entries, None)
            participants = build_participants(match.entries, members, settings, None)
        except UserError as error:
            raise UserError(f"line {match.line} (match {match.label!r}): {error}") from None
        return NewMatch(
            None, now, match.played_at, f"import:{batch}:{match.label}", participants, match.label
        )


def _same_match(match: CsvMatch, stored: KeyedMatch) -> bool:
    """Whether a CSV match has the stored match's players and time (as a CSV writes it)."""
    players = Counter((e.player.user_id, e.player.guest) for e in match.entries)
    return players == Counter(stored.players) and format_time(match.played_at) == format_time(
        stored.played_at
    )


def _new_starts(starts: Sequence[CsvSeason], taken: Sequence[Season]) -> list[CsvSeason]:
    """The season starts whose name no season of the guild has yet (SPEC 8.3, as matches'
    labels); UserError for one whose stored season starts at another time or carries
    another share."""
    stored = {season.name: season for season in taken}
    fresh = []
    for start in starts:
        found = stored.get(start.name)
        if found is None:
            fresh.append(start)
        elif (format_time(start.starts_at), start.carry) != (
            format_time(found.starts_at),
            found.carry,
        ):
            raise UserError(
                f"line {start.line}: season {quoted(start.name)} is already in the guild "
                "with another start or carry; give it another name or leave it out; nothing "
                "was imported"
            )
    return fresh


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
