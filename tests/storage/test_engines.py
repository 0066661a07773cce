"""Engines: old files migrate forward, a locked database refuses writes with one line and
still answers reads, the database is named by a path or a URL, and PostgreSQL's match id
sequence starts past the ids already stored."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from bot.config import ConfigError, DatabaseConfig, GuildSettings
from bot.services import Actor, ServiceContext, Services, parse_lineup
from bot.services.migrating import migrate_database
from bot.storage import BUSY_MESSAGE, Database, DatabaseBusy, redacted
from bot.storage import postgres as postgres_engine
from bot.storage import sqlite as sqlite_engine
from bot.storage.engine import made_each
from bot.storage.schema import MIGRATIONS, migration_statements
from tests.storage.engines import _empty
from tests.test_cli import run

GUILD = 1
MOD = Actor(0, is_moderator=True)

FIRST_SCHEMA = """
CREATE TABLE guilds (guild_id INTEGER PRIMARY KEY, t REAL NOT NULL, game_mult REAL NOT NULL,
    max_game_length REAL NOT NULL, initial_rating REAL NOT NULL, variant TEXT NOT NULL,
    confirm TEXT NOT NULL, auto_confirm_hours REAL NOT NULL, min_games INTEGER NOT NULL,
    live_channel_id INTEGER, live_message_id INTEGER, live_edited_at REAL, changed_at REAL);
CREATE TABLE members (guild_id INTEGER NOT NULL REFERENCES guilds (guild_id),
    user_id INTEGER NOT NULL, name TEXT NOT NULL, is_bot INTEGER NOT NULL DEFAULT 0,
    enabled INTEGER NOT NULL DEFAULT 1, rating REAL, games INTEGER NOT NULL DEFAULT 0,
    wins INTEGER NOT NULL DEFAULT 0, draws INTEGER NOT NULL DEFAULT 0,
    losses INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (guild_id, user_id));
CREATE TABLE matches (id INTEGER PRIMARY KEY,
    guild_id INTEGER NOT NULL REFERENCES guilds (guild_id),
    status TEXT NOT NULL CHECK (status IN ('pending', 'disputed', 'applied', 'void')),
    reporter_id INTEGER, created_at REAL NOT NULL, played_at REAL NOT NULL, applied_at REAL,
    request_id TEXT NOT NULL, channel_id INTEGER, message_id INTEGER, void_reason TEXT,
    disputed_by INTEGER, UNIQUE (guild_id, request_id),
    CHECK ((status = 'applied') <= (applied_at IS NOT NULL)));
CREATE INDEX matches_log ON matches (guild_id, status, applied_at, id);
CREATE TABLE participants (match_id INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    position INTEGER NOT NULL, user_id INTEGER, guest TEXT, side TEXT NOT NULL,
    score REAL NOT NULL CHECK (score >= 0),
    minutes REAL NOT NULL CHECK (minutes > 0 AND minutes <= 1440), enabled INTEGER NOT NULL,
    outcome TEXT CHECK (outcome IN ('win', 'draw', 'loss')), rating_before REAL,
    rating_after REAL, PRIMARY KEY (match_id, position),
    CHECK ((user_id IS NULL) <> (guest IS NULL)), CHECK (enabled = (outcome IS NOT NULL))
) WITHOUT ROWID;
CREATE INDEX participants_user ON participants (user_id, match_id);
INSERT INTO guilds VALUES (1, 400, 3, 90, 1500, 'p8', 'opponent', 24, 1, 5, 6, 10, 20);
INSERT INTO members VALUES (1, 7, 'ann', 0, 1, 1510, 1, 1, 0, 0),
    (1, 8, 'bo', 0, 1, 1490, 1, 0, 0, 1);
INSERT INTO matches VALUES (1, 1, 'applied', 7, 100, 100, 100, 'r1', NULL, NULL, NULL, NULL);
INSERT INTO participants VALUES (1, 0, 7, NULL, '1', 1, 20, 1, 'win', 1500, 1510),
    (1, 1, 8, NULL, '2', 0, 20, 1, 'loss', 1500, 1490);
PRAGMA user_version = 1;
"""
"""A file as the first ladderbot made it (schema version 1, written by sqlite3 itself)."""


async def test_a_file_of_the_first_schema_migrates_forward_without_loss(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as plain:
        plain.executescript(FIRST_SCHEMA)
    db = await Database.open(path)
    try:
        assert await db.read.guild_settings(GUILD) == GuildSettings(
            t=400, game_mult=3, max_game_length=90, initial_rating=1500
        )
        assert [(m.name, m.rating) for m in await db.read.members(GUILD)] == [
            ("ann", 1510),
            ("bo", 1490),
        ]
        (match,) = await db.read.all_matches(GUILD)
        assert [p.change for p in match.participants] == [10, -10]
        live = await db.read.live_board(GUILD)
        assert live is not None and (live.channel_id, live.message_id) == (5, 6)
        services = Services.build(ServiceContext(db, GuildSettings()))
        reported = await services.matches.report(
            GUILD, MOD, parse_lineup("<@7> 1 | <@8> 0"), request_id="n"
        )
        assert reported.match.id == 2 and reported.applied
    finally:
        await db.close()
    with contextlib.closing(sqlite3.connect(path)) as plain:
        assert plain.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


@contextlib.asynccontextmanager
async def locked(url: str) -> AsyncIterator[None]:
    """Another process's write in progress on the guild: SQLite's write lock, or the
    guild's advisory lock on PostgreSQL."""
    if url.startswith("postgresql://"):
        other = await asyncpg.connect(url)
        try:
            async with other.transaction():
                await other.execute("SELECT pg_advisory_xact_lock($1)", GUILD)
                yield
        finally:
            await other.close()
        return
    with contextlib.closing(sqlite3.connect(url, isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")


async def test_a_write_behind_another_process_waits_then_is_refused_with_one_line(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "WRITE_WAIT_SECONDS", 0.3)
    monkeypatch.setattr(postgres_engine, "WRITE_WAIT_SECONDS", 0.3)
    db = await Database.open(database_url)
    services = Services.build(ServiceContext(db, GuildSettings()))
    try:
        await services.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="first"
        )
        before = await db.read.dump()
        async with locked(database_url):
            with pytest.raises(DatabaseBusy, match=f"^{BUSY_MESSAGE}$"):
                await services.matches.report(
                    GUILD, MOD, parse_lineup("<@1> 0 | <@2> 1"), request_id="r"
                )
            # Reads never wait for writes, and never write.
            card = await services.standings.rating_card(GUILD, 1)
            board = await services.standings.leaderboard(GUILD, by="p8")
            assert card.games == 1 and board.total == 2
        assert await db.read.dump() == before
        # Once the other write is done, the same request goes through.
        again = await services.matches.report(
            GUILD, MOD, parse_lineup("<@1> 0 | <@2> 1"), request_id="r"
        )
        assert again.created and again.applied
    finally:
        await db.close()


def test_read_commands_answer_while_another_process_writes(database_url: str) -> None:
    where = ["--guild", str(GUILD), "--db", database_url]
    assert run(*["report", "<@1> 1 | <@2> 0", *where])[0] == 0

    async def reads() -> list[tuple[int, str, str]]:
        async with locked(database_url):
            return [
                await asyncio.to_thread(run, *argv)
                for argv in (
                    ["rating", "1", *where],
                    ["leaderboard", "--by", "p8", *where],
                    ["export", *where],
                    ["gr", "1", *where],
                )
            ]

    for status, out, err in asyncio.run(reads()):
        assert (status, err) == (0, "") and out


def test_a_busy_database_is_one_line_and_exit_2_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_engine, "WRITE_WAIT_SECONDS", 0.2)
    url = f"sqlite:///{tmp_path / 'busy.sqlite3'}"
    where = ["--guild", str(GUILD), "--db", url]
    assert run(*["report", "<@1> 1 | <@2> 0", *where])[0] == 0
    with contextlib.closing(sqlite3.connect(tmp_path / "busy.sqlite3")) as other:
        other.execute("BEGIN IMMEDIATE")
        status, out, err = run(*["report", "<@1> 0 | <@2> 1", *where])
        other.execute("ROLLBACK")
    assert (status, out) == (2, "")
    assert err == f"ladderbot report: error: {BUSY_MESSAGE}\n"


def test_the_config_names_the_database_by_url_with_the_password_from_the_environment() -> None:
    config = DatabaseConfig(url="postgresql://bot@db.example:5433/ladder", password_env="PW")
    assert config.location({"PW": "s3cr/t"}) == "postgresql://bot:s3cr%2Ft@db.example:5433/ladder"
    assert (
        redacted(config.location({"PW": "s3cr/t"})) == "postgresql://bot:***@db.example:5433/ladder"
    )
    with pytest.raises(ConfigError, match="PW, which is not set"):
        config.location({})
    assert DatabaseConfig(path="x.sqlite3").location() == "x.sqlite3"
    assert DatabaseConfig(url="sqlite:///x.sqlite3").location() == "sqlite:///x.sqlite3"


def test_an_unreachable_server_is_one_line_and_exit_2() -> None:
    status, _, err = run(
        *["leaderboard", "--guild", "1", "--db", "postgresql://nobody@127.0.0.1:1/x"]
    )
    assert status == 2 and err.count("\n") == 1
    assert err.startswith("ladderbot leaderboard: error: cannot open the database postgresql://")


async def test_reads_store_nothing_and_the_bot_fills_the_cache_after_answering(
    database: Database,
) -> None:
    quiet = Services.build(ServiceContext(database, GuildSettings()))  # the command line
    for request, lineup in enumerate(("<@1> 1 | <@2> 0", "<@2> 1 | <@3> 0", "<@1> 2 | <@3> 2")):
        await quiet.matches.report(GUILD, MOD, parse_lineup(lineup), request_id=str(request))
    cold = await quiet.standings.leaderboard(GUILD, by="p8")
    cards = [await quiet.standings.rating_card(GUILD, user_id) for user_id in (1, 2, 3)]
    assert await database.read.performances(GUILD, [1, 2, 3], ["p8", "ra"]) == {}
    bot = Services.build(ServiceContext(database, GuildSettings(), fill_cache=True))
    assert await bot.standings.leaderboard(GUILD, by="p8") == cold
    await bot.context.cache_filled()
    cached = await database.read.performances(GUILD, [1, 2, 3], ["p8"])
    assert [cached[row.user_id, "p8"].value for row in cold.rows] == [
        row.value for row in cold.rows
    ]
    # The board ranks by the values alone; the fill after it stores each one's stability too.
    assert [
        (cached[card.member.user_id, "p8"].up, cached[card.member.user_id, "p8"].down)
        for card in cards
    ] == [(card.up, card.down) for card in cards]
    assert await bot.standings.leaderboard(GUILD, by="p8") == cold  # now from the cache


async def test_matches_imported_before_import_keys_get_their_label_once(tmp_path: Path) -> None:
    """Migration 6 (SPEC 8.3): an imported match's key comes from its request id
    `import:<32 hex>:<label>`; of a label imported twice only the first match keeps it."""
    path = tmp_path / "old.sqlite3"
    imported = "".join(
        f"INSERT INTO matches VALUES ({match_id}, 1, 'applied', 7, 100, {match_id}00, "
        f"{match_id}00, 'import:{batch * 32}:{label}', NULL, NULL, NULL, NULL);\n"
        f"INSERT INTO participants VALUES ({match_id}, 0, 7, NULL, '1', 1, 20, 0, NULL, NULL, "
        f"NULL), ({match_id}, 1, 8, NULL, '2', 0, 20, 0, NULL, NULL, NULL);\n"
        for match_id, batch, label in ((2, "a", "x"), (3, "b", "x"), (4, "b", "y:z"))
    )
    with contextlib.closing(sqlite3.connect(path)) as plain:
        plain.executescript(
            FIRST_SCHEMA.replace("PRAGMA user_version", imported + "PRAGMA user_version")
        )
    db = await Database.open(path)
    try:
        keys = {match.id: match.import_key for match in await db.read.all_matches(GUILD)}
        assert keys == {1: None, 2: "x", 3: None, 4: "y:z"}
    finally:
        await db.close()


async def report_ids(url: str | Path, count: int, first_request: int) -> list[int]:
    """The ids of `count` new matches reported on the database at `url`."""
    db = await Database.open(url)
    try:
        services = Services.build(ServiceContext(db, GuildSettings()))
        return [
            (
                await services.matches.report(
                    GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id=str(first_request + i)
                )
            ).match.id
            for i in range(count)
        ]
    finally:
        await db.close()


async def test_match_ids_continue_past_rows_stored_before_the_sequence(postgres_url: str) -> None:
    await _empty(postgres_url)
    assert await report_ids(postgres_url, 3, 0) == [1, 2, 3]
    # A database from before the match id sequence: its migration starts past max(id).
    plain = await asyncpg.connect(postgres_url)
    try:
        async with plain.transaction():
            await plain.execute("DROP SEQUENCE match_ids")
            number = MIGRATIONS.index(("@match_ids_sequence",)) + 1
            for statement in migration_statements(number, postgres_engine.DIALECT):
                await plain.execute(statement)
    finally:
        await plain.close()
    assert await report_ids(postgres_url, 2, 3) == [4, 5]


async def test_match_ids_continue_past_rows_copied_by_migrate_db(
    postgres_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "source.sqlite3"
    await _empty(postgres_url)
    assert await report_ids(source, 4, 0) == [1, 2, 3, 4]
    await migrate_database(source, postgres_url)
    assert await report_ids(postgres_url, 2, 4) == [5, 6]


async def test_a_bulk_update_raises_the_join_memory_for_its_statement_only(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL's bulk update asks for the memory its join needs in one piece (50,000
    members: 96 bytes a row), never less than it had, and gives back what it had."""
    await _empty(postgres_url)
    db = await Database.open(postgres_url)
    try:
        async with db.write(GUILD) as tx:
            session = tx._session
            await tx.ensure_guild(GUILD, GuildSettings())
            await tx.add_members(GUILD, range(1, 50_001))
            seen: list[str] = []
            run = session.run

            async def watched(sql: str, parameters: object = None) -> None:
                if sql.startswith("UPDATE members"):
                    found = await session.one("SELECT current_setting('work_mem') AS memory")
                    assert found is not None
                    seen.append(found["memory"])
                await run(sql, parameters)  # type: ignore[arg-type]

            monkeypatch.setattr(session, "run", watched)
            for before, during in (("4MB", "4687kB"), ("64MB", "64MB")):
                await run(f"SET LOCAL work_mem = '{before}'")
                await tx.set_ratings(GUILD, dict.fromkeys(range(1, 50_001), 1500.0))
                found = await session.one("SELECT current_setting('work_mem') AS memory")
                assert found is not None and found["memory"] == before
                assert seen.pop() == during
        assert {m.rating for m in await db.read.members(GUILD)} == {1500.0}
    finally:
        await db.close()


async def test_a_whole_guilds_rows_are_made_off_the_event_loop() -> None:
    """A few rows are made on the loop; thousands (50,000 members held it 0.2 s) in a
    worker thread; in order either way."""
    loop_thread = threading.get_ident()

    def made(item: int) -> tuple[int, bool]:
        return item * 2, threading.get_ident() == loop_thread

    assert await made_each(made, range(10)) == [(item * 2, True) for item in range(10)]
    assert await made_each(made, range(5_000)) == [(item * 2, False) for item in range(5_000)]
