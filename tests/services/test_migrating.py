"""migrate-db (SPEC 8.1): a SQLite database built by random use moves to PostgreSQL and back
with every table's content equal and ratings equal to a replay; a non-empty target is
refused and nothing changes on either side."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import ServiceContext, Services, UserError
from bot.services.migrating import migrate_database, replay_disagreements
from bot.storage import Database
from bot.storage.migrate import tables
from tests.services.conftest import Clock
from tests.services.invariants import assert_log_is_truth
from tests.services.test_log_invariant import GUILD, MOD, Operation, apply, operation
from tests.storage.engines import _empty

Dump = dict[str, list[tuple[Any, ...]]]


async def dump(url: str | Path) -> Dump:
    """Every row of every table of the schema (as migrate-db lists them), sorted."""
    db = await Database.open(url)
    try:
        reader = db.engine.reader
        return {
            table.name: [
                tuple(row)
                for row in await reader.all(
                    f"SELECT {', '.join(table.columns)} FROM {table.name} "
                    f"ORDER BY {', '.join(table.columns)}"
                )
            ]
            for table in await tables(reader)
        }
    finally:
        await db.close()


async def build(path: Path, steps: list[Operation], posted: bool) -> None:
    """Random use of a guild (test_log_invariant's operations), a live board, and
    performances cached by a read."""
    clock = Clock()
    services = Services.build(
        ServiceContext(await Database.open(path), GuildSettings(), clock=clock, fill_cache=True)
    )
    try:
        for step, op in enumerate(steps):
            with contextlib.suppress(UserError):
                await apply(services, clock, step, op)
        await services.standings.set_live_channel(
            GUILD, MOD, 77
        )  # the guild exists: the copy has rows
        if posted:
            await services.standings.mark_live_board_edited(GUILD, 78)
        await services.standings.leaderboard(GUILD, by="p8")
    finally:
        await services.close()


async def check_ratings(url: str | Path) -> None:
    db = await Database.open(url)
    try:
        assert await replay_disagreements(db.read) == []
        services = Services.build(ServiceContext(db, GuildSettings()))
        for guild in await db.read.guild_ids():
            await assert_log_is_truth(services, guild)
    finally:
        await db.close()


examples = itertools.count()


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(operation, max_size=10),
    st.booleans(),
)
def test_sqlite_to_postgresql_and_back_keeps_every_row(
    postgres_url: str, tmp_path: Path, steps: list[Operation], posted: bool
) -> None:
    asyncio.run(round_trip(postgres_url, tmp_path / f"example{next(examples)}", steps, posted))


async def round_trip(
    postgres_url: str, directory: Path, steps: list[Operation], posted: bool
) -> None:
    directory.mkdir()
    source, back = directory / "source.sqlite3", directory / "back.sqlite3"
    await build(source, steps, posted)
    await _empty(postgres_url)
    original = await dump(source)

    copied = await migrate_database(source, postgres_url)
    assert copied == {table: len(rows) for table, rows in original.items()}
    assert await dump(postgres_url) == original
    assert await dump(source) == original  # the source is never changed
    await check_ratings(postgres_url)

    await migrate_database(postgres_url, back)
    assert await dump(back) == original
    await check_ratings(back)

    for target, untouched in ((postgres_url, source), (back, postgres_url)):
        with pytest.raises(UserError, match="the target database must be empty"):
            await migrate_database(untouched, target)
        assert await dump(target) == original
        assert await dump(untouched) == original
