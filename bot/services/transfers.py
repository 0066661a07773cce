"""Imports and exports (SPEC 5, 8.3): a guild's matches and season starts to and from CSV
(bot.services.matchcsv); an import is merged into the log and replayed.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bot.services import season_rules
from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.core import Actor, must_moderate
from bot.services.errors import N_, Counted, Notice, UserError, quoted
from bot.services.lineup import Lineup
from bot.services.matchcsv.building import imported_columns, member_ids
from bot.services.matchcsv.columns import read_csv
from bot.services.matchcsv.export import export_matches
from bot.services.matchcsv.format import format_time, match_key, native_id
from bot.services.matchcsv.parsed import CsvMatches, CsvSeason
from bot.services.progress import stage
from bot.services.replaying import replay_guild
from bot.storage import KeyedMatch, Season, WriteTransaction


@dataclass(frozen=True, slots=True)
class ImportResult:
    matches: int
    replayed: int
    seasons: int = 0
    """Season starts imported."""
    skipped: int = 0
    """Matches and season starts of the file already in the guild (SPEC 8.3)."""


@use_cases("import_csv")
class Transfers:
    """A guild's matches and season starts exported to CSV, and imported from it."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def export_csv(self, guild_id: int) -> str:
        stage("reading the matches")
        async with self.context.db.snapshot() as read:
            matches, listed = await read.all_matches(guild_id), await read.seasons(guild_id)
        stage(f"writing the matches as CSV ({len(matches):,})")
        return export_matches(matches, listed)

    async def import_csv(self, guild_id: int, actor: Actor, data: bytes | str) -> ImportResult:
        """Import matches (a CSV file's bytes, or its text) as applied, merged into the log by
        played_at, and its season starts (then the whole guild is replayed: no closing
        standings are stored for a new start inside the log); all or nothing. Matches and
        season starts already in the guild (SPEC 8.3: a match under its label, a start under
        its name) are skipped; one there with other players, time or carry is refused."""
        must_moderate(actor, N_("import matches"))
        # Reading the file and building the matches is work per row: off the event loop,
        # and before the write transaction (which holds the guild's lock).
        stage("reading the CSV")
        parsed, parsed_starts = await asyncio.to_thread(read_csv, data, self.context.clock())
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.context.defaults)
            fresh = await self._not_imported(tx, guild_id, parsed)
            skipped = len(parsed) - len(fresh)
            user_ids = await asyncio.to_thread(member_ids, fresh.user_ids)
            known = (
                {m.user_id: m for m in await tx.add_members(guild_id, user_ids)} if user_ids else {}
            )
            now = self.context.clock()
            new = await asyncio.to_thread(
                imported_columns, fresh, known, settings, now, uuid.uuid4().hex
            )
            taken = list(await tx.seasons(guild_id))
            starts = _new_starts(parsed_starts, taken)
            skipped += len(parsed_starts) - len(starts)
            for start in sorted(starts, key=lambda season: season.starts_at):
                try:
                    name = season_rules.new_season_name(start.name, taken)
                except UserError as error:
                    raise UserError(
                        N_("line {line}: {problem}"), line=start.line, problem=error
                    ) from None
                taken.append(
                    await tx.add_season(
                        guild_id, name, start.carry, start.starts_at, now, actor.user_id
                    )
                )
            if not len(new) and not starts:
                return ImportResult(0, 0, 0, skipped)
            # New season starts, or a log that was empty: the whole guild is replayed.
            whole_guild = bool(starts) or await tx.newest_log_key(guild_id) is None
            ids: list[int] = []
            imported = None
            if len(new):
                stage(f"storing the matches ({len(new):,})")
                ids = await tx.new_match_ids(len(new))
                imported = await tx.insert_imported_matches(guild_id, new, ids)
            replayed = await replay_guild(
                tx,
                guild_id,
                settings,
                None if whole_guild else (float(new.played_at[0]), ids[0]),
                {},
                touched=await asyncio.to_thread(member_ids, new.user_ids[new.enabled]),
                unwritten=imported,
            )
            unit.change = Change(
                guild_id,
                "imported",
                replayed.member_ids,
                everyone=bool(starts),
                actor_id=actor.user_id,
                detail=_imported(len(new), len(starts), replayed.matches).stored(),
            )
        return ImportResult(len(new), replayed.matches, len(starts), skipped)

    @staticmethod
    async def _not_imported(tx: WriteTransaction, guild_id: int, parsed: CsvMatches) -> CsvMatches:
        """The parsed matches whose label is no match's key in the guild yet; UserError for
        one whose stored match has other players or another time."""
        labels = parsed.labels
        ids = [i for i in map(native_id, labels) if i is not None]
        stored = {
            match_key(found.id, found.import_key): found
            for found in await tx.keyed_matches(guild_id, labels, ids)
        }
        # A file imported again finds 100,000s of its matches: compared off the event loop.
        return await asyncio.to_thread(_unstored, parsed, stored) if stored else parsed


def _unstored(parsed: CsvMatches, stored: Mapping[str, KeyedMatch]) -> CsvMatches:
    """The parsed matches whose label `stored` lacks; UserError for one whose stored match
    has other players or another time."""
    fresh = np.ones(len(parsed), dtype=np.bool_)
    for match, label in enumerate(parsed.labels):
        found = stored.get(label)
        if found is None:
            continue
        fresh[match] = False
        if not _same_match(parsed.entries(match), float(parsed.played_at[match]), found):
            raise UserError(
                N_(
                    "line {line}: match {label} is already in the guild (match #{number}) with "
                    "other players or another time; give it another label or leave it out; "
                    "nothing was imported"
                ),
                line=parsed.lines[match],
                label=quoted(label),
                number=found.id,
            )
    return parsed.chosen(fresh)


def _same_match(entries: Lineup, played_at: float, stored: KeyedMatch) -> bool:
    """Whether a CSV match has the stored match's players and time (as a CSV writes it)."""
    players = Counter((e.player.user_id, e.player.guest) for e in entries)
    return players == Counter(stored.players) and format_time(played_at) == format_time(
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
                N_(
                    "line {line}: season {name} is already in the guild with another start or "
                    "carry; give it another name or leave it out; nothing was imported"
                ),
                line=start.line,
                name=quoted(start.name),
            )
    return fresh


def _imported(matches: int, seasons: int, replayed: int) -> Notice:
    """The mod log's detail of an import: the matches (and season starts) it brought and the
    matches replayed."""
    brought = Counted("{count} match imported", "{count} matches imported", matches)
    again = Counted("{count} replayed", "{count} replayed", replayed)
    if not seasons:
        return Notice(N_("{matches}, {replayed}"), matches=brought, replayed=again)
    starts = Counted("{count} season start", "{count} season starts", seasons)
    return Notice(
        N_("{matches}, {seasons}, {replayed}"), matches=brought, seasons=starts, replayed=again
    )
