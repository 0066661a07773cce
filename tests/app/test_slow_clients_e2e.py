"""Issue 24 finding 1 (SPEC 11.1): slow clients never take the web or the bot down.

2,000 connections that send part of a request's headers and then nothing are held against
`ladderbot web` and, at the same time, against the bot with `[web] enabled`; meanwhile a
normal request to each is answered and a Discord command is answered; the partial
connections are closed by the servers once the header timeout has passed; the logs stay
short. Loopback only; both servers wait the one header timeout together.
"""

from __future__ import annotations

import os
import selectors
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.web.serving import HEADER_SECONDS
from tests.app.fakediscord import FakeDiscord, Member
from tests.app.harness import MOD, REPO, BotProcess, free_port, serving, write_config
from tests.test_cli import run

PARTIAL = 2_000
PARTIAL_HEADER = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
LIMIT = 2_500
"""max_connections of both servers: room for the partial connections and the normal ones."""
FIRST, SECOND = Member(6_100_001, "slow1"), Member(6_100_002, "slow2")
SHOWN_GUILD = "71"


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, FIRST, SECOND]))


def _hold_partial(port: int, count: int) -> list[socket.socket]:
    held = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        connection.sendall(PARTIAL_HEADER)
        held.append(connection)
    return held


def _wait_all_closed(held: list[socket.socket], deadline: float) -> int:
    """Wait until the server closed every held connection (EOF or reset); how many it did."""
    with selectors.DefaultSelector() as waiting:
        for connection in held:
            connection.setblocking(False)
            waiting.register(connection, selectors.EVENT_READ)
        closed = 0
        while closed < len(held) and time.monotonic() < deadline:
            for key, _ in waiting.select(timeout=1.0):
                ready = key.fileobj
                assert isinstance(ready, socket.socket)
                connection = ready
                try:
                    ended = connection.recv(1) == b""
                except ConnectionResetError:
                    ended = True
                assert ended, "a partial request got an answer instead of being closed"
                waiting.unregister(connection)
                closed += 1
    return closed


def _get(address: str) -> int:
    with urllib.request.urlopen(address, timeout=10) as answer:
        answer.read()
        status: int = answer.status
        return status


def test_slow_clients_are_closed_and_the_bot_and_web_still_answer(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    web_port, bot_port = free_port(), free_port()
    database = str(tmp_path / "web.sqlite3")
    run("report", "--guild", SHOWN_GUILD, "--db", database, "<@1> 3 | <@2> 1")
    run("settings", "--guild", SHOWN_GUILD, "--db", database, "web=true")
    web_config = tmp_path / "web.toml"
    web_config.write_text(
        f'[database]\npath = "{database}"\n[web]\nport = {web_port}\nmax_connections = {LIMIT}\n',
        encoding="utf-8",
    )
    web_log = tmp_path / "web.log"
    with web_log.open("wb") as log:
        web_server = subprocess.Popen(
            [sys.executable, "-m", "bot", "web", "--config", str(web_config)],
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    bot_config = write_config(tmp_path)
    with bot_config.open("a", encoding="utf-8") as text:
        text.write(f"[web]\nenabled = true\nport = {bot_port}\nmax_connections = {LIMIT}\n")
    bot = BotProcess(fake, bot_config)
    held: list[socket.socket] = []
    try:
        bot.start()
        while b"serving http://" not in web_log.read_bytes():
            assert web_server.poll() is None, web_log.read_text()
            time.sleep(0.05)
        bot_log_start = bot.log_size()
        opened = time.monotonic()
        held = _hold_partial(web_port, PARTIAL) + _hold_partial(bot_port, PARTIAL)

        board = f"http://127.0.0.1:{web_port}/api/v1/guilds/{SHOWN_GUILD}/leaderboard"
        assert _get(board) == 200
        assert _get(f"http://127.0.0.1:{bot_port}/") == 200
        reply = fake.slash(MOD, "report duel", winner=FIRST, loser=SECOND).reply()
        assert not reply.ephemeral and "applied" in reply.embeds[0]["description"]
        answered = time.monotonic()
        assert answered - opened < HEADER_SECONDS, "answered only after the partial ones closed"

        closed = _wait_all_closed(held, opened + HEADER_SECONDS + 20)
        assert closed == len(held)
        assert time.monotonic() - opened >= HEADER_SECONDS - 0.5
        bot.assert_alive()
        assert web_server.poll() is None
        assert _get(board) == 200
        bot_lines = bot.output_since(bot_log_start).splitlines()
        web_lines = web_log.read_text(encoding="utf-8").splitlines()
        assert len(bot_lines) < 100 and len(web_lines) < 100, (bot_lines[-5:], web_lines[-5:])
        assert not any("Traceback" in line for line in bot_lines + web_lines)
    finally:
        for connection in held:
            connection.close()
        bot.stop()
        web_server.terminate()
        web_server.wait(timeout=10)
