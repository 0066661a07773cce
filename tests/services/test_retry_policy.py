"""Issue 24 finding 9 (SPEC 8.8), on both engines: one retry policy after a lost connection,
in the services, for the bot and the command line. The command line used to run every
command once more: when the COMMIT of `ladderbot void 5` was lost, the second run answered
"match #5 is void" with exit 2 although the void was stored. Now a write runs once more only
when the loss came before its commit, or when it is idempotent (a report by its request id,
an import by its keys); otherwise the answer says the change may or may not be stored.

The faults are simulated in the engine's write transaction (either engine): a COMMIT that
is stored but whose answer is lost, or a connection lost before the COMMIT (rolled back)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any, Literal

import pytest

from bot.services import Actor, Services, parse_lineup
from bot.storage import ConnectionLost
from bot.storage import postgres as postgres_engine
from bot.storage import sqlite as sqlite_engine
from bot.storage.engine import UNKNOWN_COMMIT, Session
from tests.test_cli import run

GUILD = 9
MOD = Actor(1, is_moderator=True)
Fault = Literal["after_commit", "before_commit"]


class Faults:
    """The next write transactions of GUILD fail as queued; `tries` counts them all."""

    def __init__(self) -> None:
        self.queued: list[Fault] = []
        self.tries = 0

    def arm(self, *faults: Fault) -> None:
        self.queued = list(faults)
        self.tries = 0


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[Faults]:
    armed = Faults()
    for engine in (sqlite_engine.SqliteEngine, postgres_engine.PostgresEngine):
        original = engine.transaction

        def losing(original: Any) -> Any:
            @asynccontextmanager
            async def transaction(self: Any, guild_id: int | None) -> AsyncIterator[Session]:
                fault = armed.queued.pop(0) if guild_id == GUILD and armed.queued else None
                armed.tries += guild_id == GUILD
                async with original(self, guild_id) as session:
                    yield session
                    if fault == "before_commit":  # rolled back
                        raise ConnectionLost("the connection to the database was lost")
                if fault == "after_commit":  # stored, but its answer never came
                    raise ConnectionLost(UNKNOWN_COMMIT, committing=True)

            return transaction

        monkeypatch.setattr(engine, "transaction", losing(original))
    yield armed


async def _reported(services: Services) -> int:
    lineup = parse_lineup("<@2> 1 | <@3> 0")
    return (await services.matches.report(GUILD, MOD, lineup, request_id="first")).match.id


async def test_finding_9_a_void_whose_commit_is_lost_says_it_may_or_may_not_be_stored(
    services: Services, faults: Faults
) -> None:
    match_id = await _reported(services)
    faults.arm("after_commit")
    with pytest.raises(ConnectionLost) as lost:
        await services.matches.void(GUILD, MOD, match_id, "cheating")
    assert str(lost.value) == UNKNOWN_COMMIT and "may or may not be stored" in str(lost.value)
    assert faults.tries == 1  # not run again: a second void would answer "is void"
    assert (await services.matches.show(GUILD, match_id)).status == "void"  # it was stored


async def test_finding_9_a_write_lost_before_its_commit_runs_once_more(
    services: Services, faults: Faults
) -> None:
    match_id = await _reported(services)
    faults.arm("before_commit")
    result = await services.matches.void(GUILD, MOD, match_id, "cheating")
    assert result.match.status == "void" and faults.tries == 2
    assert (await services.matches.show(GUILD, match_id)).void_reason == "cheating"


async def test_finding_9_a_report_whose_commit_is_lost_is_retried_and_stored_once(
    services: Services, faults: Faults
) -> None:
    faults.arm("after_commit")
    lineup = parse_lineup("<@2> 1 | <@3> 0")
    result = await services.matches.report(GUILD, MOD, lineup, request_id="r1")
    assert faults.tries == 2 and not result.created and result.match.status == "applied"
    assert len(await services.context.db.read.all_matches(GUILD)) == 1


async def test_finding_9_a_second_loss_after_a_lost_commit_never_says_nothing_changed(
    services: Services, faults: Faults
) -> None:
    faults.arm("after_commit", "before_commit")
    with pytest.raises(ConnectionLost, match="may or may not be stored"):
        await services.matches.report(GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="r")
    assert faults.tries == 2


def test_finding_9_ladderbot_void_whose_commit_is_lost(database_url: str, faults: Faults) -> None:
    db = ["--guild", str(GUILD), "--db", database_url]
    assert run("report", *db, "<@2> 1 | <@3> 0")[0] == 0
    faults.arm("after_commit")
    status, out, err = run("void", *db, "1")
    assert (status, out) == (2, "")
    assert "may or may not be stored" in err and "is void" not in err and faults.tries == 1
    status, out, _ = run("match", *db, "1")
    assert status == 0 and "void" in out
