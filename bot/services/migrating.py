"""migrate-db (SPEC 8.1): a whole database copied into an empty one on another engine, and
checked: every guild's stored ratings equal a replay of its copied log."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from bot.services.errors import N_, Counted, UserError
from bot.services.replaying import boundaries, ladder_settings, replay_log
from bot.storage import LOG_START, Database, Queries
from bot.storage.database import is_postgres, sqlite_path
from bot.storage.logchunks import same_entries
from bot.storage.migrate import Progress, TargetNotEmpty, copy_database

TOLERANCE = 1e-9
"""Stored ratings came from incremental updates, the replay from one pass: the same
arithmetic, so they agree to rounding."""


def _same(stored: float | None, replayed: float | None) -> bool:
    if stored is None or replayed is None:
        return stored is replayed
    return math.isclose(stored, replayed, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


async def replay_disagreements(queries: Queries) -> list[str]:
    """Where the stored ratings differ from a replay of each guild's log, or the log's
    columnar copy from its rows (empty: none)."""
    found = []
    for guild_id in await queries.guild_ids():
        settings = await queries.guild_settings(guild_id)
        assert settings is not None
        entries = await queries.log_entries(guild_id)
        if not same_entries(entries, await queries.log_rows(guild_id)):
            found.append(f"guild {guild_id}: the columnar copy of the log")
        log = entries.log()
        crossed = await queries.seasons_from(guild_id, LOG_START)
        replay = replay_log(log, {}, ladder_settings(settings), boundaries(log, crossed))
        stored = np.nan_to_num(log.rating_before, nan=np.inf)
        for index in np.flatnonzero(
            ~np.isclose(stored, replay.before, rtol=TOLERANCE, atol=TOLERANCE)
        ).tolist():
            found.append(
                f"guild {guild_id} match {log.match_id[index]} position {log.position[index]}"
            )
        for member in await queries.members(guild_id):
            if not _same(member.rating, replay.final.get(member.user_id)):
                found.append(f"guild {guild_id} member {member.user_id}")
    return found


async def _check(queries: Queries) -> None:
    found = await replay_disagreements(queries)
    if found:
        raise UserError(
            N_(
                "the copy's stored ratings differ from a replay of its log ({places}, first: "
                "{first}); the target was left unchanged"
            ),
            places=Counted("{count} place", "{count} places", len(found)),
            first=found[0],
        )


async def migrate_database(
    source: str | Path, target: str | Path, progress: Progress | None = None
) -> dict[str, int]:
    """Copy the database at `source` into the empty one at `target` (created if missing),
    all or nothing, checked against a replay; returns the rows copied per table."""
    if not is_postgres(str(source)) and not Path(sqlite_path(source)).is_file():
        raise UserError(
            N_("--from {source} must be an existing database file or URL"), source=repr(str(source))
        )
    source_db = await Database.open(source, create=False)
    try:
        target_db = await Database.open(target)
        try:
            return await copy_database(source_db, target_db, _check, progress)
        except TargetNotEmpty as error:
            raise UserError(
                N_("the target database must be empty; it has rows in {tables}"),
                tables=", ".join(error.tables),
            ) from None
        finally:
            await target_db.close()
    finally:
        await source_db.close()
