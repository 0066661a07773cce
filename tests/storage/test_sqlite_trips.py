"""A report's trips to SQLite's worker thread (issue 29): each costs the event loop a thread
hop, about as much as the report's SQL. The statements whose rows nobody reads wait for the
next read or the commit, and the rows wanted later (who the webhook events go to, the end
of the log's chunks, the members as stored) go with the report's slot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, Player, ServiceContext, Services, duel_lineup
from bot.storage import Database

GUILD = 3
MODERATOR = Actor(1, is_moderator=True)


async def test_an_applied_report_takes_two_trips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = await Database.open(tmp_path / "trips.sqlite3")
    services = Services.build(ServiceContext(database, GuildSettings()))
    members = [MemberInfo(user_id, f"player{user_id}") for user_id in (11, 12)]
    lineup = duel_lineup(Player(11), Player(12))
    trips: list[Any] = []
    hop = aiosqlite.Connection._execute

    async def counted(connection: aiosqlite.Connection, function: Any, *args: Any) -> Any:
        trips.append(function)
        return await hop(connection, function, *args)  # type: ignore[no-untyped-call]

    try:
        for number in range(3):
            if number == 2:
                monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
            reported = await services.matches.report(
                GUILD, MODERATOR, lineup, request_id=f"trips{number}", members=members
            )
            assert reported.applied
    finally:
        monkeypatch.undo()
        await services.context.close()
    assert len(trips) == 2  # the slot, the members and the reads ahead; the rest and COMMIT
