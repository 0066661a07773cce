"""The API against its OpenAPI document (SPEC 11.3), by schemathesis: generated requests of
every operation, on the seeded guild, a hidden one and any other; no answer is a 5xx, and
every answer conforms to the document (status, content type, headers, schema).

Bounded: a fixed number of examples per operation, derandomized, on SQLite (< 30 s)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from aiohttp import web
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.core.result import Err, Result

from bot.config import Config
from bot.services import Services
from bot.web import create_app
from bot.web.openapi import openapi_document
from tests.web.data import GUILD, HIDDEN, NAMES, seed

EXAMPLES = 120
SCHEMA = schemathesis.openapi.from_dict(openapi_document())
Operation = schemathesis.APIOperation[Any, Any, Any, Any]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The application over a seeded SQLite database, served by a thread of its own."""
    database = tmp_path_factory.mktemp("schemathesis") / "ladder.sqlite3"
    asyncio.run(_seeded(database))
    started = threading.Event()
    loop = asyncio.new_event_loop()
    address: list[str] = []
    stop = asyncio.Event()

    async def serve() -> None:
        services = await Services.open(database, Config(), create=False)
        runner = web.AppRunner(create_app(services))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.base_events.Server)
        port = server.sockets[0].getsockname()[1]
        address.append(f"http://127.0.0.1:{port}")
        started.set()
        await stop.wait()
        await runner.cleanup()
        await services.close()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert started.wait(30)
    yield address[0]
    loop.call_soon_threadsafe(stop.set)
    thread.join(30)


async def _seeded(database: Path) -> None:
    async with await Services.open(database, Config()) as services:
        await seed(services)


GUILDS = st.sampled_from([str(GUILD), str(GUILD), str(HIDDEN)])
MEMBERS = st.sampled_from([str(user_id) for user_id in NAMES])
MATCHES = st.integers(1, 16).map(str)


def _valid(result: Result[Operation, schemathesis.errors.InvalidSchema]) -> Operation:
    """The operation; the document's error if it describes this one wrongly."""
    if isinstance(result, Err):
        raise result.err()
    return result.ok()


@pytest.mark.parametrize(
    "operation",
    [_valid(result) for result in SCHEMA.get_all_operations()],
    ids=lambda operation: operation.label,
)
def test_every_answer_conforms_to_the_openapi_document(base_url: str, operation: Operation) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(),
        ours=st.booleans(),
        guild=GUILDS,
        member=MEMBERS,
        match=MATCHES,
    )
    def check(
        case: schemathesis.Case[Any], ours: bool, guild: str, member: str, match: str
    ) -> None:
        if ours:  # else the generated ids, mostly unknown guilds
            case.path_parameters = {
                **(case.path_parameters or {}),
                "guild_id": guild,
                **({"user_id": member} if "user_id" in (case.path_parameters or {}) else {}),
                **({"match_id": match} if "match_id" in (case.path_parameters or {}) else {}),
            }
        response = case.call_and_validate(base_url=base_url)
        assert response.status_code < 500

    check()
