"""The bot under test: its config, its environment, its process; players for the tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.app.fakediscord import GUILD_ID, MANAGE_GUILD, FakeDiscord, Member

REPO = Path(__file__).resolve().parents[2]
FAKE_ENV = Path(__file__).resolve().parent / "fakeenv"
EDIT_SECONDS = 2.0
PAGE_SIZE = 3

MOD = Member(1001, "moderator", permissions=MANAGE_GUILD)
ROBOT = Member(1002, "otherbot", bot=True)
PLAYERS = [Member(2000 + number, f"player{number}") for number in range(1, 81)]


def write_config(directory: Path, sync: str = str(GUILD_ID), **leaderboard: float) -> Path:
    settings = {"edit_seconds": EDIT_SECONDS, "page_size": PAGE_SIZE, **leaderboard}
    lines = [
        "[discord]",
        'token_env = "LADDERBOT_TEST_TOKEN"',
        f'sync = "{sync}"',
        "[database]",
        f'path = "{directory / "ladder.sqlite3"}"',
        "[leaderboard]",
        *(f"{key} = {value}" for key, value in settings.items()),
    ]
    path = directory / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def bot_environment(fake: FakeDiscord | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FAKE_ENV), str(REPO)])
    env["LADDERBOT_TEST_TOKEN"] = "fake-token"
    if fake is not None:
        env["FAKE_DISCORD_URL"] = fake.url
    return env


class BotProcess:
    """The real bot in a subprocess, connected to the fake; its output goes to a log file."""

    def __init__(self, fake: FakeDiscord, config: Path) -> None:
        self.fake = fake
        self.config = config
        self.log = config.parent / "bot.log"
        self.database = config.parent / "ladder.sqlite3"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> None:
        mark = self.fake.mark()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "run", "--config", str(self.config)],
                cwd=self.config.parent,
                env=bot_environment(self.fake),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the bot exited early:\n{self.output()}")
            try:
                self.fake.wait_ready(timeout=0.2, after=mark)
                return
            except AssertionError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the bot never became ready:\n{self.output()}") from None

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def assert_alive(self) -> None:
        assert self.process is not None and self.process.poll() is None, self.output()

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-5000:]


class Players:
    """Hands out players never used before, so each test's ratings start fresh."""

    def __init__(self) -> None:
        self._unused = iter(PLAYERS)

    def take(self, count: int) -> list[Member]:
        return [next(self._unused) for _ in range(count)]
