"""Issue 17 item 1 (SPEC 8.8): `ladderbot run` when Discord cannot be reached prints one line
per attempt and tries again after growing waits until it connects; a token Discord refuses
stops it with one line, exit status 2. Discord is a fake on 127.0.0.1 (first a port nothing
listens on, then the fake starts there); the waits are shortened for the test.

Issue 23 finding 15: under load the test once stopped the fake while the bot's reply was still
on its way. Every wait here now ends on what it waits for; WAIT_BOUND only ends a hung run,
and the bot has exited before the fake stops."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.app.fakediscord import FakeDiscord
from tests.app.harness import MOD, bot_environment, write_config

RETRY_LINE = re.compile(
    r"ladderbot run: cannot reach Discord \(attempt (\d+): .+\); trying again in ([\d.]+) s"
)
WAIT_BOUND = 180.0
"""Seconds before a wait gives up: a bound on a hung bot, far above what a loaded machine
takes (the waits end as soon as their condition holds)."""
SHORT_WAITS = (
    "import sys, bot.app.run as run; "
    "run.FIRST_RETRY_SECONDS, run.LONGEST_RETRY_SECONDS = 0.2, 0.8; "
    "sys.exit(run.run_bot(sys.argv[1]))"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _start_bot(config: Path, fake_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = bot_environment(None)
    env["FAKE_DISCORD_URL"] = fake_url
    with log.open("wb") as output:
        return subprocess.Popen(
            [sys.executable, "-c", SHORT_WAITS, str(config)],
            cwd=config.parent,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def _stop(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM, and the bot's exit status once it has closed (killed only if it hangs)."""
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout=WAIT_BOUND)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise


def _retries(text: str) -> list[tuple[int, float]]:
    return [(int(m.group(1)), float(m.group(2))) for m in RETRY_LINE.finditer(text)]


def test_run_retries_an_unreachable_discord_with_growing_waits_until_it_connects(
    tmp_path: Path,
) -> None:
    port = _free_port()
    log = tmp_path / "bot.log"
    process = _start_bot(write_config(tmp_path), f"http://127.0.0.1:{port}", log)
    fake = FakeDiscord([MOD], port=port)
    started = False
    try:
        deadline = time.monotonic() + WAIT_BOUND
        while len(_retries(log.read_text(encoding="utf-8", errors="replace"))) < 5:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        text = log.read_text(encoding="utf-8")  # one snapshot: the bot goes on retrying
        retries = _retries(text)
        assert [attempt for attempt, _ in retries[:5]] == [1, 2, 3, 4, 5]
        assert [wait for _, wait in retries[:5]] == [0.2, 0.4, 0.8, 0.8, 0.8]
        assert "Traceback" not in text
        assert text.count("cannot reach Discord") == len(retries)  # one line per attempt

        fake.start()  # Discord is back: the next attempt connects
        started = True
        fake.wait_ready(timeout=WAIT_BOUND)
        reply = fake.slash(MOD, "admin settings").reply(timeout=WAIT_BOUND)
        assert reply.ephemeral and reply.embeds
    finally:
        try:
            status = _stop(process)  # first the bot, so no request of it meets a stopped fake
        finally:
            if started:
                fake.stop()
    assert status == 0
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_run_with_a_token_discord_refuses_exits_2_with_one_line(tmp_path: Path) -> None:
    fake = FakeDiscord([MOD])
    fake.refuse_token = True
    fake.start()
    try:
        env = bot_environment(fake)
        finished = subprocess.run(
            [sys.executable, "-m", "bot", "run", "--config", str(write_config(tmp_path))],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        fake.stop()
    assert finished.returncode == 2
    errors = [line for line in finished.stderr.splitlines() if "error" in line.lower()]
    assert errors == [
        "ladderbot run: error: Discord refused the token in $LADDERBOT_TEST_TOKEN: check it"
    ]
    assert "Traceback" not in finished.stderr
