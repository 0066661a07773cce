"""Matches: report, confirm, dispute, cancel, void, edit, and reading them back."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from bot.config import GuildSettings
from bot.ratings.ladder import (
    MINUTES_RULE,
    SCORE_RULE,
    match_minutes,
    match_outcomes,
    valid_score,
    valid_time,
)
from bot.services.changes import Change
from bot.services.context import ServiceContext, Unit, not_found, use_cases
from bot.services.core import (
    Actor,
    _known_members,
    ladder_rating,
    log_end_stamp,
    must_moderate,
)
from bot.services.errors import N_, Notice, Phrase, UserError, free_text
from bot.services.events import PendingEvent
from bot.services.lineup import Lineup, lineup_text
from bot.services.match_rules import check_cancel, check_state
from bot.services.replaying import NOTHING_REPLAYED, ladder_settings, replay_guild, replay_match
from bot.storage import (
    LogKey,
    Match,
    MatchEdit,
    Member,
    MemberInfo,
    NewMatch,
    NewParticipant,
    Participant,
    WriteTransaction,
)

MAX_PARTICIPANTS: Final = 32


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
class MatchShown:
    """A match with the lineups it had before each edit, read as of one moment."""

    match: Match
    edits: tuple[MatchEdit, ...]


@dataclass(frozen=True, slots=True)
class MatchPage:
    user_id: int | None
    """Whose matches (None: everyone's)."""
    name: str | None
    """Their display name as last seen."""
    page: int
    pages: int
    total: int
    matches: tuple[Match, ...]


@dataclass(frozen=True, slots=True)
class MatchesBefore:
    """The newest matches below an id, and the id the next (older) page starts below."""

    matches: tuple[Match, ...]
    next_before: int | None
    """None: these are the oldest."""


@dataclass(frozen=True, slots=True)
class EditResult:
    match: Match
    old_lineup: str
    replayed: int
    """Matches replayed (0 for a pending match: nothing was rated)."""


RULE_WORDS: Final = (N_("a finite number from 0 to 1e9"), N_("a finite number from 0.01 to 1440"))
"""SCORE_RULE and MINUTES_RULE (bot.ratings, which marks nothing) as the catalogs hold them:
a refusal gives the rule as a Phrase, translated by its text (a test keeps them equal)."""


def check_lineup(lineup: Lineup, minutes: float | None) -> None:
    """The refusals that need no database: size, duplicates, numbers out of range."""
    if minutes is not None and not valid_time(minutes):
        raise UserError(
            N_("minutes {value} must be {rule}"), value=repr(minutes), rule=Phrase(MINUTES_RULE)
        )
    if len(lineup) > MAX_PARTICIPANTS:
        raise UserError(
            N_("{count} participants: a match has at most {most}; split it up"),
            count=len(lineup),
            most=MAX_PARTICIPANTS,
        )
    seen: set[str] = set()
    for entry in lineup:
        label = entry.player.label
        if label in seen:
            raise UserError(
                N_("{player} appears twice in the match; list every player once"), player=label
            )
        seen.add(label)
        if not valid_score(entry.score):
            raise UserError(
                N_("{player}: score {value} must be {rule}"),
                player=label,
                value=repr(entry.score),
                rule=Phrase(SCORE_RULE),
            )
        if entry.minutes is not None and not valid_time(entry.minutes):
            raise UserError(
                N_("{player}: minutes {value} must be {rule}"),
                player=label,
                value=repr(entry.minutes),
                rule=Phrase(MINUTES_RULE),
            )


def _match_change(match: Match, actor_id: int | None) -> Change:
    """A match just recorded pending ("reported"), or applied: its rated members changed."""
    if match.status != "applied":
        return Change(match.guild_id, "reported", match_id=match.id, actor_id=actor_id)
    rated = frozenset(p.user_id for p in match.participants if p.enabled and p.user_id is not None)
    return Change(match.guild_id, "applied", rated, match_id=match.id, actor_id=actor_id)


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
            raise UserError(
                N_("{member} is a bot; bots cannot play in ladder matches"), member=f"<@{user_id}>"
            )
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
        raise UserError(
            N_("a match needs rated players (members in the ladder) on at least two sides")
        )
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


@use_cases("report")
class Matches:
    """Reporting a match and what follows it: confirm, dispute, cancel, void, edit."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def report(
        self,
        guild_id: int,
        actor: Actor,
        lineup: Lineup,
        *,
        request_id: str,
        minutes: float | None = None,
        members: Iterable[MemberInfo] = (),
        within: Unit | None = None,
    ) -> ReportResult:
        """Record a match: pending for a non-moderator when the guild asks the opponents to
        confirm, else applied at once. The same request id twice records one match: a retry
        answers with it and changes nothing (its slot leaves the guild's change stamp be).
        `within`: a write already open to record it in (a queue lobby's result records its
        match and closes the lobby in one transaction)."""
        check_lineup(lineup, minutes)
        async with self.context.write_in(guild_id, within) as unit:
            players = {entry.player.user_id for entry in lineup}
            tx = unit.tx
            slot = await tx.report_slot(
                guild_id,
                request_id,
                actor.is_moderator,
                self.context.clock(),
                self.context.defaults,
                members,
            )
            if slot.existing is not None:
                retried = await self.context.load(tx, guild_id, slot.existing)
                return ReportResult(retried, retried.status == "applied", created=False)
            unit.stamped = True
            settings, newest, match_id = slot.settings, slot.newest, slot.match_id
            if not actor.is_moderator and actor.user_id not in players:
                raise UserError(
                    N_("you can only report matches you played in (moderators can report any)")
                )
            known = await _known_members(tx, guild_id, [lineup], slot.members)
            participants = build_participants(lineup, known, settings, minutes)
            now = self.context.clock()
            new = NewMatch(actor.user_id, now, now, request_id, participants)
            names = {user_id: member.name for user_id, member in known.items()}
            if settings.confirm == "none" or actor.is_moderator:
                applied_at, ratings = self._ratings(settings, newest, participants, known)
                new = new.rated(ratings)
                await tx.add_applied_match(guild_id, new, slot, applied_at)
                match = new.stored(match_id, guild_id, "applied", applied_at, names)
            else:
                await tx.insert_matches(guild_id, [new], "pending", [match_id])
                match = new.stored(match_id, guild_id, "pending", None, names)
            if match.status == "applied":  # reported and applied at once: both events
                unit.events.append(PendingEvent("match.reported", match_id=match_id))
            unit.change = _match_change(match, actor.user_id)
            return ReportResult(match, match.status == "applied", created=True)

    def _ratings(
        self,
        settings: GuildSettings,
        newest: LogKey | None,
        participants: Sequence[NewParticipant | Participant],
        members: Mapping[int, Member],
    ) -> tuple[float, dict[int, tuple[float, float]]]:
        """Applying a match after `newest`, the end of the log (incremental: the replay of
        this one match, replay_match): its applied_at, and each rated member's rating before
        and after it."""
        rated = [(p, p.user_id) for p in participants if p.enabled and p.user_id is not None]
        before = [ladder_rating(members[user_id], settings) for _, user_id in rated]
        after = replay_match(
            before,
            [p.side for p, _ in rated],
            [p.score for p, _ in rated],
            [p.minutes for p, _ in rated],
            ladder_settings(settings),
        )
        applied_at = log_end_stamp(newest, self.context.clock())
        return applied_at, {
            user_id: (rating, changed)
            for (_, user_id), rating, changed in zip(rated, before, after, strict=True)
        }

    async def _apply(self, tx: WriteTransaction, settings: GuildSettings, match: Match) -> Match:
        """Apply a pending match at the end of the log."""
        rated_ids = [p.user_id for p in match.participants if p.enabled and p.user_id is not None]
        members = {m.user_id: m for m in await tx.members_by_id(match.guild_id, rated_ids)}
        newest = await tx.newest_log_key(match.guild_id)
        applied_at, ratings = self._ratings(settings, newest, match.participants, members)
        await tx.apply_match(match, applied_at, ratings)
        return match.applied(applied_at, ratings)

    async def set_match_message(
        self, guild_id: int, match_id: int, channel_id: int, message_id: int
    ) -> None:
        async with self.context.write(guild_id) as unit:
            if await unit.tx.match(guild_id, match_id) is None:
                raise not_found(match_id)
            await unit.tx.set_match_message(match_id, channel_id, message_id)

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
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.context.defaults)
            match = await self.context.load(tx, guild_id, match_id)
            if match.status == "applied":
                return ConfirmResult(match, applied_now=False)
            check_state("confirm", match_id, match.status)
            if match.status == "disputed" and not actor.is_moderator:
                raise UserError(
                    N_("match #{number} is disputed; a moderator has to decide it"), number=match_id
                )
            if not self._may_answer(actor, match):
                raise UserError(
                    N_(
                        "only an opponent of the reporter or a moderator can confirm "
                        "match #{number}"
                    ),
                    number=match_id,
                )
            applied = await self._apply(tx, settings, match)
            unit.change = _match_change(applied, actor.user_id)
        return ConfirmResult(applied, applied_now=True)

    async def dispute(self, guild_id: int, actor: Actor, match_id: int) -> Match:
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            match = await self.context.load(tx, guild_id, match_id)
            if match.status == "disputed":
                return match
            check_state("dispute", match_id, match.status)
            if not self._may_answer(actor, match):
                raise UserError(
                    N_(
                        "only an opponent of the reporter or a moderator can dispute "
                        "match #{number}"
                    ),
                    number=match_id,
                )
            await tx.set_status(match_id, "disputed", disputed_by=actor.user_id)
            unit.change = Change(guild_id, "disputed", match_id=match_id, actor_id=actor.user_id)
            return await self.context.load(tx, guild_id, match_id)

    async def cancel(self, guild_id: int, actor: Actor, match_id: int) -> Match:
        """The reporter (or a moderator) withdraws a pending or disputed report (SPEC 9.4):
        it becomes void; nothing was rated, so nothing is replayed."""
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            match = await self.context.load(tx, guild_id, match_id)
            check_cancel(actor, match_id, match.status, match.reporter_id)
            await tx.set_status(match_id, "void", void_reason="cancelled by its reporter")
            unit.change = Change(guild_id, "cancelled", match_id=match_id, actor_id=actor.user_id)
            return await self.context.load(tx, guild_id, match_id)

    async def void(
        self, guild_id: int, actor: Actor, match_id: int, reason: str | None = None
    ) -> VoidResult:
        must_moderate(actor, N_("void matches"))
        if reason is not None:
            free_text(reason, N_("the reason"))
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.context.defaults)
            match = await self.context.load(tx, guild_id, match_id)
            check_state("void", match_id, match.status)
            await tx.set_status(match_id, "void", void_reason=reason or "voided by a moderator")
            replayed = NOTHING_REPLAYED
            if match.status == "applied":
                assert match.log_key is not None
                seed = {
                    p.user_id: p.rating_before
                    for p in match.participants
                    if p.enabled and p.user_id is not None and p.rating_before is not None
                }
                replayed = await replay_guild(
                    tx, guild_id, settings, match.log_key, seed, touched=seed
                )
            unit.change = Change(
                guild_id,
                "voided",
                replayed.member_ids,
                match_id=match_id,
                actor_id=actor.user_id,
                detail=reason or "",
            )
            return VoidResult(await self.context.load(tx, guild_id, match_id), replayed.matches)

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
        must_moderate(actor, N_("edit matches"))
        check_lineup(lineup, minutes)
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.context.defaults)
            match = await self.context.load(tx, guild_id, match_id)
            check_state("edit", match_id, match.status)
            upserted = await tx.upsert_members(guild_id, members)
            known = await _known_members(tx, guild_id, [lineup], upserted)
            participants = build_participants(lineup, known, settings, minutes)
            old = lineup_text(match.participants)
            edit = MatchEdit(self.context.clock(), actor.user_id, old)
            await tx.replace_lineup(match_id, edit, participants)
            replayed = NOTHING_REPLAYED
            if match.status == "applied":
                touched = {
                    p.user_id
                    for lineup_of in (match.participants, participants)
                    for p in lineup_of
                    if p.enabled and p.user_id is not None
                }
                replayed = await replay_guild(tx, guild_id, settings, None, touched=touched)
            unit.change = Change(
                guild_id,
                "edited",
                replayed.member_ids,
                match_id=match_id,
                actor_id=actor.user_id,
                detail=Notice(N_("was {lineup}"), lineup=old).stored(),
            )
            edited = await self.context.load(tx, guild_id, match_id)
        return EditResult(edited, old, replayed.matches)

    async def edits(self, guild_id: int, match_id: int) -> list[MatchEdit]:
        """The lineups a match had before each edit (for /match show)."""
        async with self.context.db.snapshot() as read:
            await self.show(guild_id, match_id)
            return await read.match_edits(match_id)

    async def auto_confirm(
        self, owned: Callable[[int], bool] = lambda guild_id: True
    ) -> list[Match]:
        """Apply every pending match older than its guild's auto_confirm_hours, in the guilds
        `owned` accepts (a bot process: the guilds of its shards)."""
        applied = []
        for guild_id, match_id in await self.context.db.read.due_pending(self.context.clock()):
            if not owned(guild_id):
                continue
            async with self.context.write(guild_id) as unit:
                settings = await unit.tx.ensure_guild(guild_id, self.context.defaults)
                match = await self.context.load(unit.tx, guild_id, match_id)
                if match.status == "pending":
                    applied.append(await self._apply(unit.tx, settings, match))
                    unit.change = _match_change(applied[-1], None)
        return applied

    async def show(self, guild_id: int, match_id: int) -> Match:
        async with self.context.db.snapshot() as read:
            match = await read.match(guild_id, match_id)
        if match is None:
            raise not_found(match_id)
        return match

    async def shown(self, guild_id: int, match_id: int) -> MatchShown:
        """The match and its earlier lineups as of one moment (/match show, `ladderbot match`,
        the web's match page)."""
        async with self.context.db.snapshot():
            match = await self.show(guild_id, match_id)
            return MatchShown(match, tuple(await self.edits(guild_id, match_id)))

    async def page(self, guild_id: int, user_id: int | None, page: int = 1) -> MatchPage:
        """One page of the newest matches (of one member), the page size the Discord lists
        use; out-of-range pages are clamped so previous/next never fail."""
        size = self.context.page_size
        async with self.context.db.snapshot() as read:
            total = await read.match_count(guild_id, user_id)
            pages = max(1, math.ceil(total / size))
            page = min(max(1, page), pages)
            matches = await read.recent_matches(guild_id, user_id, size, (page - 1) * size)
            name = None
            if user_id is not None:
                member = await read.member(guild_id, user_id)
                name = member.name if member is not None else f"<@{user_id}>"
        return MatchPage(user_id, name, page, pages, total, tuple(matches))

    async def before(self, guild_id: int, before: int | None, limit: int) -> MatchesBefore:
        """The newest `limit` matches with an id below `before` (None: the newest), paged by
        id so new reports never shift a page already read (the web's list)."""
        found = await self.context.db.read.matches_before(guild_id, before, limit + 1)
        listed = tuple(found[:limit])
        return MatchesBefore(listed, listed[-1].id if len(found) > limit else None)

    async def list_matches(
        self, guild_id: int, user_id: int | None = None, limit: int | None = 10
    ) -> list[Match]:
        """The newest matches (of one member), `limit` of them, or every one for None."""
        async with self.context.db.snapshot() as read:
            if limit is None:
                limit = await read.match_count(guild_id, user_id)
            return await read.recent_matches(guild_id, user_id, limit) if limit else []
