"""Issue 24 finding 6 (SPEC 7) on both engines: a display name with U+0000 is stored without
it (PostgreSQL refused it: /report, /rating failed with tracebacks); free text a user types
(a reason, a queue, map or season name, a lineup, a name to look up) with a control
character is refused naming it, nothing changed; migrate-db copies a SQLite database that
already holds a NUL into PostgreSQL without it."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, ServiceContext, Services, UserError, parse_lineup
from bot.services.migrating import migrate_database
from bot.services.queues import parse_maps
from bot.storage import Database
from bot.storage.queues import QueueSettings
from tests.storage.engines import _empty

GUILD = 5
MOD = Actor(1, is_moderator=True)


async def test_finding_6_a_display_name_with_nul_is_stored_without_it(services: Services) -> None:
    members = [MemberInfo(2, "an\x00n"), MemberInfo(3, "\x00bo")]
    reported = await services.matches.report(
        GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="r", members=members
    )
    assert [p.name for p in reported.match.participants] == ["ann", "bo"]
    assert (await services.context.member(GUILD, 2)).name == "ann"
    assert (await services.members.find(GUILD, "ann")).user_id == 2
    card = await services.standings.rating_card(GUILD, 2, "p8")
    assert card is not None
    assert await services.members.learn_names(GUILD, members) == 0  # nothing new to write


Refused = Callable[[Services], Awaitable[object]]
REFUSED: list[tuple[str, Refused, str]] = [
    (
        "void reason",
        lambda s: s.matches.void(GUILD, MOD, 1, "cheat\x00ed"),
        "the reason holds the control character U\\+0000",
    ),
    (
        "queue name",
        lambda s: s.queues.create_queue(
            GUILD, MOD, QueueSettings("q\x07", 9, 2), pick_order_given=False
        ),
        r"queue name 'q\\x07' holds the control character U\+0007",
    ),
    (
        "map name",
        lambda s: s.queues.create_queue(
            GUILD,
            MOD,
            QueueSettings("q", 9, 2, maps=parse_maps("a, du\x7fst")),
            pick_order_given=False,
        ),
        "holds the control character U\\+007F",
    ),
    (
        "season name",
        lambda s: s.seasons.start(GUILD, MOD, "spring\x1f"),
        "holds the control character U\\+001F",
    ),
    (
        "lineup",
        lambda s: s.matches.report(GUILD, MOD, parse_lineup("<@2> 1 |\x00 <@3> 0"), request_id="x"),
        "the lineup holds the control character U\\+0000",
    ),
    (
        "member lookup",
        lambda s: s.members.find(GUILD, "an\x00n"),
        "the member holds the control character U\\+0000",
    ),
]


async def test_finding_6_free_text_with_a_control_character_is_refused_naming_it(
    services: Services,
) -> None:
    await services.matches.report(GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="r")
    before = await services.context.db.read.dump()
    for what, call, message in REFUSED:
        with pytest.raises(UserError, match=message):
            await call(services)
        assert await services.context.db.read.dump() == before, what


def test_finding_6_migrate_db_strips_a_nul_a_sqlite_database_holds(
    postgres_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "old.sqlite3"

    async def build() -> None:
        db = await Database.open(source)
        try:
            services = Services.build(ServiceContext(db, GuildSettings()))
            await services.matches.report(
                GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="r"
            )
        finally:
            await db.close()

    asyncio.run(build())
    with sqlite3.connect(source) as plain:  # as an earlier version stored a Discord name
        plain.execute("UPDATE members SET name = 'an' || char(0) || 'n' WHERE user_id = 2")
    asyncio.run(_empty(postgres_url))
    copied = asyncio.run(migrate_database(source, postgres_url))
    assert copied["members"] == 2

    async def name_in_postgres() -> str:
        db = await Database.open(postgres_url)
        try:
            member = await db.read.member(GUILD, 2)
            assert member is not None
            return member.name
        finally:
            await db.close()

    assert asyncio.run(name_in_postgres()) == "ann"
