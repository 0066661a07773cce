"""Storage: migrations, crash safety, and a void in a big guild replaying only successors."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

import asyncpg
import numpy as np
import pytest

from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, parse_lineup
from bot.services.matchcsv.format import format_time
from bot.storage import (
    LOG_START,
    ChangedEntries,
    Database,
    NewMatch,
    NewParticipant,
    Performance,
    engine,
    logchunks,
    postgres,
    schema,
    sqlite,
)
from bot.storage import database as database_module
from bot.storage import matches as matches_module
from bot.storage.schema import MIGRATIONS
from tests.services.invariants import assert_log_is_truth
from tests.storage.reads import applied_matches

GUILD = 1
MOD = Actor(0, is_moderator=True)
ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import asyncio, sys
from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, parse_lineup
from bot.storage import Database

async def main():
    db = await Database.open(sys.argv[1])
    services = Services.build(ServiceContext(db, GuildSettings(confirm="none")))
    for i in range(100000):
        a, b, c = i % 17 + 1, i % 5 + 30, i % 3 + 40
        lineup = parse_lineup(f"<@{a}> {i % 4} | <@{b}> {i % 3}, <@{c}> 1 | guest {i % 2}")
        await services.matches.report(1, Actor(a), lineup, request_id=str(i))
        if i == 20:
            print("writing", flush=True)

asyncio.run(main())
"""


async def test_migrations_set_the_user_version_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "x.sqlite3"
    db = await Database.open(path)
    await db.close()
    db = await Database.open(path)  # a second open applies nothing and keeps the data
    try:
        assert await db.read.integrity_check() == "ok"
        async with db.write(GUILD) as tx:
            assert (await tx.ensure_guild(7, GuildSettings(t=99))).t == 99
    finally:
        await db.close()
    with sqlite3.connect(path) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_checks_of_listed_values_are_comparisons_refusing_the_same_values(
    tmp_path: Path,
) -> None:
    """Migration 21: SQLite's CHECKs of a column against three values or more are
    comparisons (an IN list costs a lookup table per row checked). A match's status and a
    participant's outcome still take every listed value (an outcome also NULL) and refuse
    any other, on the connection that migrated as on a new one."""
    path = tmp_path / "x.sqlite3"
    db = await Database.open(path)
    plain = sqlite3.connect(path, isolation_level=None)
    match = "INSERT INTO matches (id, guild_id, status, created_at, played_at, applied_at, "
    match += "request_id) VALUES (:id, 1, :status, 0, 0, 0, :status)"
    player = "INSERT INTO participants (match_id, position, user_id, side, score, minutes, "
    player += "enabled, outcome) VALUES (1, ?, 5, 'a', 1, 10, ?, ?)"
    try:
        for table, column, values in schema.LISTED_CHECKS:
            (sql,) = plain.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,))
            assert f"{column} IN (" not in sql[0] and f"{column} = '{values[-1]}'" in sql[0]
        async with db.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings())
            with pytest.raises(sqlite3.IntegrityError, match="status = 'pending' OR"):
                await tx._session.one(match, {"id": 1, "status": "done"})
        statuses = ("pending", "disputed", "applied", "void")
        for number, status in enumerate(statuses, start=1):
            plain.execute(match, {"id": number, "status": status})
        outcomes = ("win", "draw", "loss", None)
        for position, outcome in enumerate(outcomes):
            plain.execute(player, (position, outcome is not None, outcome))
        for wrong in ("Applied", "done", ""):
            with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
                plain.execute(match, {"id": 9, "status": wrong})
            with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint failed"):
                plain.execute(player, (9, True, wrong))
        assert plain.execute("SELECT count(*) FROM participants").fetchone() == (4,)
    finally:
        plain.close()
        await db.close()


class _DefensiveSession:
    """What migration 21 sees of SQLite in defensive mode: `PRAGMA writable_schema = ON`
    leaves the schema read-only (Python 3.11 cannot set that mode on a connection)."""

    dialect = sqlite.DIALECT

    def __init__(self) -> None:
        self.statements: list[str] = []

    async def one(self, sql: str, parameters: object = None) -> tuple[int]:
        self.statements.append(sql)
        return (0,)

    async def run(self, sql: str, parameters: object = None) -> None:
        self.statements.append(sql)


async def test_a_defensive_sqlite_keeps_its_listed_checks_instead_of_failing() -> None:
    """An SQLite build that refuses schema edits gets no UPDATE of its schema from migration
    21 (which would fail the database's open): its CHECKs stay IN lists."""
    session = _DefensiveSession()
    number = MIGRATIONS.index((schema.COMPARE_LISTED_CHECKS,)) + 1
    await schema.migrate(cast(engine.Session, session), number)
    assert session.statements[-1] == "PRAGMA writable_schema"
    assert not [sql for sql in session.statements if "sqlite_master" in sql]


_INDEXES_AND_KEYS = {
    "sqlite": "SELECT name, sql FROM sqlite_master WHERE tbl_name IN ('matches', 'participants') "
    "ORDER BY name",
    "postgresql": "SELECT indexname, indexdef FROM pg_indexes "
    "WHERE tablename IN ('matches', 'participants') UNION ALL "
    "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
    "WHERE conrelid IN ('matches'::regclass, 'participants'::regclass) ORDER BY 1, 2",
}


def _two_sided_csv(count: int) -> str:
    """A CSV of `count` two-player matches a minute apart, among a dozen members."""
    lines = ["match,played_at,side,player,score,minutes"]
    for n in range(count):
        when = format_time(1_600_000_000 + 60 * n)
        lines += [f"{n},{when},a,{n % 7 + 1},{n % 3},20", f"{n},{when},b,{n % 5 + 10},1,15"]
    return "\n".join(lines) + "\n"


async def test_a_first_import_leaves_the_indexes_and_keys_it_built_again(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first import (more rows than the table holds) drops the indexes of matches and
    participants (a unique one too), and on PostgreSQL their keys but matches' primary key
    and the key to guilds, and makes them again before it commits; one that fails leaves
    them as they were. Either way they are the same as before, and a match under a label
    taken and a participant of no match are still refused."""
    monkeypatch.setattr(engine, "BULK_INSERT_ROWS", 10)
    session = database.engine.reader
    catalog = _INDEXES_AND_KEYS[session.dialect.name]
    before = [tuple(row) for row in await session.all(catalog)]
    dropped: list[str] = []
    rebuilt_around = engine.Session.rebuilt_around

    async def recorded(self: engine.Session, table: str, count: int) -> list[tuple[str, str]]:
        found = await rebuilt_around(self, table, count)
        dropped.extend(drop for drop, _ in found)
        return found

    monkeypatch.setattr(engine.Session, "rebuilt_around", recorded)
    services = Services.build(ServiceContext(database, GuildSettings()))
    csv = _two_sided_csv(20)

    async def failed(*_: object) -> None:
        raise RuntimeError("the disk went away")

    with monkeypatch.context() as failing:
        failing.setattr(logchunks, "merge", failed)
        with pytest.raises(RuntimeError):
            await services.transfers.import_csv(GUILD, MOD, csv)
    assert [tuple(row) for row in await session.all(catalog)] == before
    assert await applied_matches(database.read, GUILD) == []
    assert (await services.transfers.import_csv(GUILD, MOD, csv)).matches == 20
    # guilds, which every command reads, is never locked by dropping the key to it, nor
    # matches' primary key, which participants' key needs
    keys = (
        ["participants_match_id_fkey", "participants_pkey", "matches_guild_id_request_id_key"]
        if session.dialect.name == "postgresql"
        else []
    )
    assert sorted(drop.split()[-1] for drop in dropped) == sorted(
        ["matches_guild", "matches_log", "matches_import_key", "participants_user", *keys] * 2
    )
    assert [tuple(row) for row in await session.all(catalog)] == before
    taken = r"UNIQUE constraint failed: matches.guild_id, matches.import_key|matches_import_key"
    with pytest.raises((sqlite3.IntegrityError, asyncpg.UniqueViolationError), match=taken):
        async with database.write(GUILD) as tx:
            await tx._session.run(
                "INSERT INTO matches (id, guild_id, status, created_at, played_at, applied_at, "
                "request_id, import_key) SELECT id + 1000, guild_id, status, created_at, "
                "played_at, applied_at, request_id || '+', import_key FROM matches "
                "WHERE import_key = '7'"
            )
    with pytest.raises((sqlite3.IntegrityError, asyncpg.ForeignKeyViolationError)):
        async with database.write(GUILD) as tx:
            await tx._session.run(
                "INSERT INTO participants (match_id, position, user_id, side, score, minutes, "
                "enabled, outcome) VALUES (999, 0, 5, 'a', 1, 10, 1 = 1, 'win')"
            )


async def test_killed_writer_leaves_a_consistent_database(database_url: str) -> None:
    path = database_url
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, path],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == b"writing"
    time.sleep(0.3)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    db = await Database.open(path)
    try:
        assert await db.read.integrity_check() == "ok"
        matches = await db.read.all_matches(GUILD)
        assert len(matches) > 20
        for match in matches:
            assert match.status == "applied"
            assert len(match.participants) == 4
            rated = [p for p in match.participants if p.enabled]
            assert len(rated) == 3
            assert all(p.rating_before is not None and p.rating_after is not None for p in rated)
        await assert_log_is_truth(Services.build(ServiceContext(db, GuildSettings())), GUILD)
    finally:
        await db.close()


async def test_an_import_whose_entries_fail_while_its_rows_go_in_stores_nothing(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The imported matches' log entries are built in a worker thread while their rows are
    inserted: when the build fails (say, out of memory), the insert finishes before the
    failure reaches the transaction, which rolls back alone; nothing is stored and the
    next import goes in."""
    services = Services.build(ServiceContext(database, GuildSettings()))
    csv = _two_sided_csv(400)

    def failed(*_: object) -> None:
        raise MemoryError("no room for the entries")

    inserted: list[str] = []

    def slowed(insert: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        async def insert_slowly(session: object, table: str, *rest: object) -> None:
            await insert(session, table, *rest)
            await asyncio.sleep(0.2)  # the build has failed by now
            inserted.append(table)

        return insert_slowly

    with monkeypatch.context() as failing:
        failing.setattr(matches_module, "_imported_entries", failed)
        for session_type in (sqlite.SqliteSession, postgres._Connected):
            failing.setattr(session_type, "insert_columns", slowed(session_type.insert_columns))
        with pytest.raises(MemoryError, match="no room for the entries"):
            await services.transfers.import_csv(GUILD, MOD, csv)
        assert inserted == ["matches"]  # done before the failure went on
    assert await applied_matches(database.read, GUILD) == []
    assert (await services.transfers.import_csv(GUILD, MOD, csv)).matches == 400
    await assert_log_is_truth(services, GUILD)


async def test_void_in_a_guild_of_100000_matches_replays_only_successors(
    database: Database,
) -> None:
    db = database
    services = Services.build(ServiceContext(db, GuildSettings()))
    lines = ["match,played_at,side,player,score,minutes"]
    for i in range(100_000):
        when = format_time(1_600_000_000 + 60 * i)
        lines.append(f"{i},{when},a,{i % 199 + 1},{i % 5},20")
        lines.append(f"{i},{when},b,{(i * 7) % 199 + 200},{i % 3},20")
    imported = await services.transfers.import_csv(GUILD, MOD, "\n".join(lines))
    assert (imported.matches, imported.replayed) == (100_000, 100_000)
    log = await applied_matches(db.read, GUILD)
    newest, fourth_from_end = log[-1], log[-5]
    assert (await services.matches.void(GUILD, MOD, newest.id)).replayed == 0
    assert (await services.matches.void(GUILD, MOD, fourth_from_end.id)).replayed == 3
    for p in newest.participants:
        assert p.user_id is not None  # the import's players are all members
        member = await db.read.member(GUILD, p.user_id)
        assert member is not None and member.rating == p.rating_before


async def test_the_log_reads_and_writes_as_columns_in_bulk(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past PostgreSQL's COPY threshold (BULK_ROWS), and in blocks and chunks that split
    rows and matches (SQLite's fetches and updates, PostgreSQL's COPY in and out): what
    write_replay stores is what log_columns reads, sides keep their equal labels equal
    within a match, and an entry without stored ratings reads nan; played_columns reads
    the entries of a member's matches."""
    monkeypatch.setattr(database_module, "REWRITE_BLOCK_ENTRIES", 500)
    monkeypatch.setattr(sqlite, "CHUNK_ROWS", 7)
    monkeypatch.setattr(logchunks, "CHUNK_ENTRIES", 37)
    monkeypatch.setattr(postgres, "COPY_BUFFER_BYTES", 1000)
    monkeypatch.setattr(postgres, "COPY_CHUNK_ROWS", 100)
    db = database
    count = 400  # matches of 4: 1,600 entries
    lineup = ("red", "blue", "red", "green")
    async with db.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        await tx.add_members(GUILD, range(1, 9))
        new = [
            NewMatch(
                None,
                float(i),
                float(i),
                f"r{i}",
                tuple(
                    NewParticipant(1 + (i + k) % 8, None, side, float(k), 20.0, True, "draw")
                    for k, side in enumerate(lineup)
                ),
            )
            for i in range(count)
        ]
        ids = await tx.insert_matches(
            GUILD, new, "applied", await tx.new_match_ids(count), [m.played_at for m in new]
        )
        log = await tx.log_columns(GUILD)
        assert log.match_id.tolist() == [i for i in ids for _ in lineup]
        assert np.isnan(log.rating_before).all() and np.isnan(log.rating_after).all()
        side = log.side.reshape(count, 4)
        assert (side[:, 0] == side[:, 2]).all() and len(set(side[0].tolist())) == 3
        before = np.arange(len(log), dtype=np.float64) / 7
        members = await tx.member_columns(GUILD)
        assert members.user_id.tolist() == list(range(1, 9)) and np.isnan(members.rating).all()
        await tx.write_replay(
            GUILD,
            (LOG_START, before, before + 0.5),
            ChangedEntries(log.match_id, log.position, before, before + 0.5, np.arange(len(log))),
            {1: 1510.25},
            {},
        )
    stored = await db.read.log_columns(GUILD)
    rows = (await db.read.log_rows(GUILD)).log()
    for name in ("match_id", "position", "user_id", "side", "score", "minutes"):
        assert getattr(rows, name).tolist() == getattr(stored, name).tolist(), name
    assert rows.rating_before.tolist() == before.tolist()
    assert stored.rating_before.tolist() == before.tolist()
    assert stored.rating_after.tolist() == (before + 0.5).tolist()
    assert stored.user_id.tolist() == log.user_id.tolist()
    assert stored.score.tolist() == [0.0, 1.0, 2.0, 3.0] * count
    member = await db.read.member(GUILD, 1)
    assert member is not None and member.rating == 1510.25
    played = await db.read.played_columns(GUILD, [1])
    theirs = np.isin(stored.match_id, stored.match_id[stored.user_id == 1])
    assert sorted(zip(played.match_id.tolist(), played.user_id.tolist(), strict=True)) == sorted(
        zip(stored.match_id[theirs].tolist(), stored.user_id[theirs].tolist(), strict=True)
    )
    index = {match_id: i for i, match_id in enumerate(ids)}
    assert played.played_at.tolist() == [float(index[m]) for m in played.match_id.tolist()]


async def test_cached_performances_round_trip_and_go_with_the_members_rating(
    database: Database,
) -> None:
    db = database
    async with db.write(GUILD) as tx:
        await tx.ensure_guild(GUILD, GuildSettings())
        await tx.add_members(GUILD, [1, 2])
        await tx.store_performances(
            GUILD,
            {
                (1, "p8"): Performance(1600.5, 10.25, 12.0),
                (1, "p1"): Performance(math.inf, math.nan, math.nan),
                (2, "p1"): Performance(math.nan, math.nan, math.nan),
                (3, "p1"): Performance(1.0, 2.0, 3.0),  # no such member: not stored
            },
            {1: (None, 0), 2: (None, 0), 3: (None, 0)},
        )
        await tx.store_performances(  # member 2 has changed since: not stored
            GUILD, {(2, "p8"): Performance(1.0, 2.0, 3.0)}, {2: (1500.0, 1)}
        )
    found = await db.read.performances(GUILD, [1, 2], ["p1", "p8"])
    assert found[1, "p8"] == Performance(1600.5, 10.25, 12.0)
    assert found[1, "p1"].value == math.inf and math.isnan(found[1, "p1"].up)
    assert math.isnan(found[2, "p1"].value) and math.isnan(found[2, "p1"].down)
    assert list(await db.read.performances(GUILD, [2], ["p8"])) == []
    async with db.write(GUILD) as tx:  # a replay rewrites member 1's rating
        await tx.set_ratings(GUILD, {1: 1510.0})
    assert sorted(await db.read.performances(GUILD, [1, 2], ["p1", "p8"])) == [(2, "p1")]


async def test_many_members_ratings_and_records_are_set_in_bulk(database: Database) -> None:
    """A replay sets 10,000s of members at once (PostgreSQL: one COPY and one UPDATE from
    1,000 on): each member gets its own values, no rating is stored as NULL, another
    guild's same user ids keep theirs, and a new member is named by its id."""
    db, other = database, GUILD + 1
    users = list(range(1, 1_501))
    async with db.write(GUILD) as tx:
        for guild_id in (GUILD, other):
            await tx.ensure_guild(guild_id, GuildSettings())
        await tx.add_members(other, users[:10])
        await tx.set_ratings(other, dict.fromkeys(users[:10], 999.0))
        added = await tx.add_members(GUILD, users)
        assert [(m.user_id, m.name) for m in added] == [(u, str(u)) for u in users]
        await tx.set_ratings(GUILD, {u: None if u % 7 == 0 else 1000.0 + u / 3 for u in users})
        await tx.set_records(GUILD, {u: (u, u % 5, u % 3, u - u % 5 - u % 3) for u in users})
    stored = {m.user_id: m for m in await db.read.members(GUILD)}
    for u in users:
        member = stored[u]
        assert member.rating == (None if u % 7 == 0 else 1000.0 + u / 3)
        assert (member.games, member.wins, member.draws, member.losses) == (
            u, u % 5, u % 3, u - u % 5 - u % 3,
        )  # fmt: skip
    assert {m.rating for m in await db.read.members(other)} == {999.0}
    assert {m.games for m in await db.read.members(other)} == {0}


async def test_settings_seen_in_a_rolled_back_transaction_are_forgotten(
    database: Database,
) -> None:
    db = database
    with contextlib.suppress(KeyError):
        async with db.write(GUILD) as tx:
            await tx.ensure_guild(GUILD, GuildSettings(t=99))
            raise KeyError("refused")
    async with db.write(GUILD) as tx:  # the guild was rolled back: created again, with t=77
        assert (await tx.ensure_guild(GUILD, GuildSettings(t=77))).t == 77
    with contextlib.suppress(KeyError):
        async with db.write(GUILD) as tx:
            await tx.save_settings(GUILD, GuildSettings(t=55))
            assert (await tx.ensure_guild(GUILD, GuildSettings())).t == 55
            raise KeyError("refused")
    async with db.write(GUILD) as tx:
        assert (await tx.ensure_guild(GUILD, GuildSettings())).t == 77
    assert await db.read.guild_settings(GUILD) == GuildSettings(t=77)


KILLED_BULK = """
import asyncio, sys
from bot.config import GuildSettings
from bot.services import Actor, ServiceContext, Services, parse_lineup
from bot.services.matchcsv.format import format_time
from bot.storage import Database

async def main():
    db = await Database.open(sys.argv[1])
    services = Services.build(ServiceContext(db, GuildSettings()))
    mod = Actor(0, is_moderator=True)
    for batch in range(int(sys.argv[2]), 1000):
        lines = ["match,played_at,side,player,score,minutes"]
        for n in range(120):
            when = format_time(1_600_000_000 + 60 * ((batch * 7919 + n * 31) % 50_000))
            for side, player in (("a", 1 + n % 13), ("a", 20 + n % 7), ("b", 40 + n % 11)):
                lines.append(f"b{batch}m{n},{when},{side},{player},{n % 5},20")
        await services.transfers.import_csv(1, mod, "\\n".join(lines) + "\\n")
        print("imported", flush=True)
        (oldest,) = await db.read.keyed_matches(1, [f"b{batch}m{batch % 120}"], [])
        await services.matches.void(1, mod, oldest.id)

asyncio.run(main())
"""


async def test_imports_and_voids_killed_at_random_moments_leave_the_columns_equal_to_the_rows(
    database_url: str,
) -> None:
    """Issue 29: the log's columnar copy is written in the transaction of the rows, so a
    process killed (SIGKILL) in the middle of an import or a void leaves both as they
    were, or both changed. Each round kills a process of imports (merged into the log by
    time) and voids of an old match at a random moment after its first import."""
    chance = random.Random(29)
    for round_ in range(2):
        worker = subprocess.Popen(
            [sys.executable, "-c", KILLED_BULK, database_url, str(round_ * 100)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == b"imported"
        time.sleep(chance.uniform(0, 0.6))
        worker.send_signal(signal.SIGKILL)
        worker.wait()
        db = await Database.open(database_url)
        try:
            services = Services.build(ServiceContext(db, GuildSettings()))
            assert len(await db.read.log_rows(GUILD)) >= 3 * 119 * (round_ + 1)
            await assert_log_is_truth(services, GUILD)
        finally:
            await db.close()


async def test_an_older_database_gets_the_log_columns_on_its_first_open(
    own_database_url: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a database from before the columnar log (schema 11) gets it from its rows
    when first opened, saying so on standard error; replays from it equal the rows'."""
    db = await Database.open(own_database_url)
    services = Services.build(ServiceContext(db, GuildSettings()))
    lines = ["match,played_at,side,player,score,minutes"]
    for n in range(50):
        when = format_time(1_600_000_000 + 3600 * n)
        lines += [f"m{n},{when},a,{1 + n % 7},{n % 3},20", f"m{n},{when},b,{10 + n % 5},1,15"]
    await services.transfers.import_csv(GUILD, MOD, "\n".join(lines) + "\n")
    before = await db.read.log_rows(GUILD)
    version = MIGRATIONS.index(next(m for m in MIGRATIONS if "@fill_log_chunks" in m))
    async with db.write(None) as tx:
        await tx._session.run("DROP TABLE log_chunks")
        await tx._session.run("ALTER TABLE guilds DROP COLUMN name")  # migration 16's, undone
        if own_database_url.startswith("postgresql"):
            await tx._session.run(f"UPDATE schema_version SET version = {version}")
        else:
            await tx._session.run(f"PRAGMA user_version = {version}")
    await db.close()
    capfd.readouterr()
    later = len(MIGRATIONS) - version - 1  # already in place: nothing to do at the open
    monkeypatch.setattr(schema, "MIGRATIONS", MIGRATIONS[: version + 1] + ((),) * later)
    db = await Database.open(own_database_url)
    try:
        assert "columnar copy of the match log of 1 server" in capfd.readouterr().err
        assert len(await db.read.log_entries(GUILD)) == len(before) == 100
        await assert_log_is_truth(Services.build(ServiceContext(db, GuildSettings())), GUILD)
    finally:
        await db.close()


async def test_reports_leave_few_log_chunks(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: each report appends a chunk of its own, and every run of MERGED_AT_ONCE
    chunks of one size class at the end of the log is merged into one, so 42 duels (84
    entries) in runs of 4 leave 2·32 + 2·8 + 2·2 entries (42 = 222 in base 4): six chunks,
    not 42."""
    monkeypatch.setattr(logchunks, "MERGED_AT_ONCE", 4)
    services = Services.build(ServiceContext(database, GuildSettings(confirm="none")))
    for number in range(42):
        lineup = parse_lineup(f"<@{1 + number % 7}> 1 | <@{10 + number % 5}> 0")
        await services.matches.report(GUILD, MOD, lineup, request_id=str(number))
    rows = await database.read._session.all(
        "SELECT entries FROM log_chunks WHERE guild_id = :guild_id ORDER BY first_at, first_id",
        {"guild_id": GUILD},
    )
    assert [row["entries"] for row in rows] == [32, 32, 8, 8, 2, 2]
    assert len(await database.read.log_entries(GUILD)) == 84
