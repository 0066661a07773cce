"""SPEC 8.6: the read commands take no write lock, and each read runs in one snapshot.

The five read commands that name members (/rating, /history, /predict, /match show and list,
/balance) are run as their cogs run them: the members' names as Discord shows them first
(`upsert_members`), then the read. Every write transaction goes through the engine's one
entry point (`Engine.transaction`), which the tests count; every statement outside a
snapshot or a transaction goes through the engine's reader, which they count too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.ratings.gamelist import format_games
from bot.services import Actor, MemberInfo, Services, parse_lineup
from bot.services.matchups import parse_players
from bot.storage import Database
from bot.storage.engine import Session

GUILD = 8
MOD = Actor(999, is_moderator=True)
NAMES = {1: "ann", 2: "bob", 3: "cat", 4: "dan"}


@dataclass
class Counted:
    writes: list[int | None] = field(default_factory=list)
    """The guild of each write transaction begun."""
    snapshots: int = 0
    loose_statements: int = 0
    """Statements on the reader outside any snapshot or transaction."""


def counting(database: Database, monkeypatch: pytest.MonkeyPatch) -> Counted:
    engine = database.engine
    counted = Counted()
    transaction = engine.transaction
    snapshot = engine.snapshot

    def counted_transaction(guild_id: int | None) -> AbstractAsyncContextManager[Session]:
        counted.writes.append(guild_id)
        return transaction(guild_id)

    @asynccontextmanager
    async def counted_snapshot() -> AsyncIterator[Session]:
        counted.snapshots += 1
        async with snapshot() as session:
            yield session

    def loose(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def run(*args: Any, **kwargs: Any) -> Any:
            counted.loose_statements += 1
            return await method(*args, **kwargs)

        return run

    monkeypatch.setattr(engine, "transaction", counted_transaction)
    monkeypatch.setattr(engine, "snapshot", counted_snapshot)
    for name in ("all", "columns"):
        monkeypatch.setattr(engine.reader, name, loose(getattr(engine.reader, name)))
    return counted


def infos(*user_ids: int, renamed: dict[int, str] | None = None) -> list[MemberInfo]:
    return [
        MemberInfo(user_id, (renamed or {}).get(user_id, NAMES[user_id])) for user_id in user_ids
    ]


async def played(services: Services) -> int:
    """A few matches with the members' names stored; the last one edited (so /match show
    has an earlier lineup). Returns the edited match's id."""
    members = infos(1, 2, 3, 4)
    for text in ["<@1> 1 | <@2> 0", "<@3> 2, <@1> 1, <@4> 0", "<@2> 1 | <@4> 1", "<@1> 0 | <@3> 1"]:
        result = await services.matches.report(
            GUILD, MOD, parse_lineup(text), request_id=text, members=members
        )
    await services.matches.edit(GUILD, MOD, result.match.id, parse_lineup("<@1> 1 | <@3> 1"))
    return result.match.id


READ_COMMANDS = ["rating", "history", "predict", "match show", "match list", "balance"]


async def run_command(
    services: Services, command: str, match_id: int, renamed: dict[int, str] | None = None
) -> int:
    """The command as its cog runs it; how many read use cases it called."""
    matchups = services.matchups
    if command == "rating":
        await services.members.upsert(GUILD, infos(1, renamed=renamed))
        await services.standings.rating_card(GUILD, 1)
    elif command == "history":
        await services.members.upsert(GUILD, infos(1, renamed=renamed))
        assert format_games(await services.standings.game_history(GUILD, 1))
    elif command == "predict":
        await services.members.upsert(GUILD, infos(1, 2, renamed=renamed))
        await services.standings.predict(GUILD, 1, 2)
    elif command == "match show":
        assert (await services.matches.shown(GUILD, match_id)).edits
    elif command == "match list":
        await services.members.upsert(GUILD, infos(1, renamed=renamed))
        await services.matches.page(GUILD, 1)
    else:
        await services.members.upsert(GUILD, infos(1, 2, 3, 4, renamed=renamed))
        await matchups.balance(GUILD, parse_players("<@1> <@2> <@3> <@4>"), 2)
    return 1


async def test_read_commands_take_no_write_lock_when_names_are_unchanged(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = await played(services)
    for command in READ_COMMANDS:  # the card's measures are cached by a write of their own
        await run_command(services, command, match_id)
    await services.context.cache_filled()
    before = await database.read.dump()
    counted = counting(database, monkeypatch)
    for command in READ_COMMANDS:
        snapshots = counted.snapshots
        reads = await run_command(services, command, match_id)
        await services.context.cache_filled()
        assert counted.writes == [], command
        assert counted.snapshots - snapshots == reads, command  # one snapshot per read
    monkeypatch.undo()
    assert await database.read.dump() == before


async def test_each_read_runs_every_query_in_its_snapshot(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Apart from the one statement that compares the names, no statement of a read command
    runs outside its snapshot."""
    match_id = await played(services)
    await services.context.cache_filled()
    counted = counting(database, monkeypatch)
    for command in READ_COMMANDS:
        loose = counted.loose_statements
        await run_command(services, command, match_id)
        names_read = 0 if command == "match show" else 1
        assert counted.loose_statements - loose == names_read, command


@pytest.mark.parametrize("command", ["rating", "history", "predict", "match list", "balance"])
async def test_a_changed_name_is_one_small_write_of_exactly_the_name(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    match_id = await played(services)
    await run_command(services, command, match_id)
    await services.context.cache_filled()
    before = await database.read.dump()
    counted = counting(database, monkeypatch)
    await run_command(services, command, match_id, renamed={1: "ann the second"})
    await services.context.cache_filled()
    assert counted.writes == [GUILD]
    monkeypatch.undo()
    after = await database.read.dump()
    changed = {
        table: (sorted(set(rows) - set(after[table])), sorted(set(after[table]) - set(rows)))
        for table, rows in before.items()
        if rows != after[table]
    }
    assert list(changed) == ["members"]
    (old,), (new,) = changed["members"]
    differs = [index for index, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert [old[index] for index in differs] == ["ann"]
    assert [new[index] for index in differs] == ["ann the second"]


async def test_a_member_not_yet_recorded_is_added_once(
    services: Services, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/rating of someone without a record still records them (as before), once."""
    await played(services)
    counted = counting(database, monkeypatch)
    newcomer = [MemberInfo(77, "newcomer")]
    await services.members.upsert(GUILD, newcomer)
    await services.members.upsert(GUILD, newcomer)
    assert counted.writes == [GUILD]
    card = await services.standings.rating_card(GUILD, 77)
    assert (card.member.name, card.games) == ("newcomer", 0)
