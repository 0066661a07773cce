"""Issue 24 findings 1, 2 and 8 (SPEC 11.1) in one process: the connection limit, malformed
requests logged in one line a second, the web's thread work on a pool of its own, and a
bounded line of responses being made. (The 2,000 slow clients against real processes are
tests/app/test_slow_clients_e2e.py.)"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any, ParamSpec, TypeVar

import pytest

import bot.services.standings
from bot.config import WebConfig
from bot.services import Services
from bot.web.app import SITE, OverloadedError, Rendered, Turns
from bot.web.serving import WebServer
from tests.web.conftest import Client
from tests.web.data import GUILD

P = ParamSpec("P")
R = TypeVar("R")

MALFORMED = [
    b"GET /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n",  # a raw non-ASCII byte in the path
    b"GET / HTTP/1.1\r\nHost: x\r\nX-N\xe4me: a\r\n\r\n",  # and in a header's name
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Name: a\x00b\r\n\r\n",  # a NUL in a header
]


@pytest.fixture
async def server(services: Services) -> AsyncIterator[WebServer]:
    running = WebServer(services, replace(WebConfig(), port=0, max_connections=3))
    await running.start()
    yield running
    await running.stop()


async def _exchange(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


async def test_connections_past_max_connections_are_closed_at_once(server: WebServer) -> None:
    port = server.bound_port
    held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(3)]
    for _, writer in held:
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
    while server.guard.open < 3:
        await asyncio.sleep(0.01)
    refused, _ = await asyncio.open_connection("127.0.0.1", port)
    assert await asyncio.wait_for(refused.read(), 10) == b""  # closed without an answer
    assert server.guard.open == 3
    held[0][1].close()
    while server.guard.open > 2:
        await asyncio.sleep(0.01)
    answer = await _exchange(port, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200")
    for _, writer in held[1:]:
        writer.close()


async def test_malformed_requests_get_400_and_one_log_line_a_second(
    server: WebServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    started = time.monotonic()
    for request in MALFORMED * 10:
        status_line = (await _exchange(server.bound_port, request)).split(b"\r\n")[0]
        assert status_line.endswith(b" 400 Bad Request"), status_line
    seconds = time.monotonic() - started
    refusals = [r for r in caplog.records if r.levelno >= logging.INFO]
    assert 1 <= len(refusals) <= 1 + seconds, [r.getMessage() for r in refusals]
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in refusals)
    assert refusals[0].getMessage().startswith("refused a malformed request from 127.0.0.1: ")
    assert refusals[0].getMessage().isascii()


async def test_the_webs_thread_work_runs_on_its_own_pool(
    server: WebServer, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []

    def thread_recorded(function: Callable[P, R]) -> Callable[P, R]:
        def recorded(*args: P.args, **kwargs: P.kwargs) -> R:
            threads.append(threading.current_thread().name)
            return function(*args, **kwargs)

        return recorded

    ranked = bot.services.standings._best_first
    monkeypatch.setattr(bot.services.standings, "_best_first", thread_recorded(ranked))
    address = f"/api/v1/guilds/{GUILD}/leaderboard?by=p3"
    request = f"GET {address} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    assert (await _exchange(server.bound_port, request)).startswith(b"HTTP/1.1 200")
    await services.standings.leaderboard(GUILD, "p4")  # the bot's own, outside a request
    assert len(threads) == 2
    assert threads[0].startswith("web") and not threads[1].startswith("web"), threads


async def test_responses_past_the_line_are_refused_not_queued() -> None:
    turns = Turns(working=1, waiting=1)
    release = asyncio.Event()

    async def slow() -> Rendered:
        await release.wait()
        return Rendered(b"", "text/plain")

    first = asyncio.ensure_future(turns.run(slow))
    second = asyncio.ensure_future(turns.run(slow))
    await asyncio.sleep(0)
    assert turns.waiting == 1
    with pytest.raises(OverloadedError):
        await turns.run(slow)
    release.set()
    assert [r.status for r in await asyncio.gather(first, second)] == [200, 200]


async def test_requests_waiting_for_a_response_being_made_hold_no_handling_slot(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24 finding 2: the web handles HANDLING requests at once on the bot's loop, but
    one waiting for its board to be computed does not hold one of those."""
    release = asyncio.Event()
    reads = client.app[SITE].reads
    board = reads.leaderboard

    async def slow_board(*args: Any) -> Any:
        await release.wait()
        return await board(*args)

    monkeypatch.setattr(reads, "leaderboard", slow_board)
    waiting = [
        asyncio.ensure_future(client.get(f"/api/v1/guilds/{GUILD}/leaderboard?by={by}"))
        for by in ["p1", "p2", "p3", "ladder"]
    ]
    while client.app[SITE].turns.waiting < 2:
        await asyncio.sleep(0.01)
    index = await asyncio.wait_for(client.get("/"), 10)  # answered while four boards wait
    assert index.status == 200
    release.set()
    assert [(await answer).status for answer in waiting] == [200] * 4
