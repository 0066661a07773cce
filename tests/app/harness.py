"""The bot under test: its config, its environment, its process; players for the tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.app.fakediscord import GUILD_ID, MANAGE_GUILD, FakeDiscord, Member

REPO = Path(__file__).resolve().parents[2]
FAKE_ENV = Path(__file__).resolve().parent / "fakeenv"
EDIT_SECONDS = 2.0
PAGE_SIZE = 3

MOD = Member(1001, "moderator", permissions=MANAGE_GUILD)
ROBOT = Member(1002, "otherbot", bot=True)
PLAYERS = [Member(2000 + number, f"player{number}") for number in range(1, 141)]


def write_config(
    directory: Path,
    sync: str = str(GUILD_ID),
    database: str | None = None,
    shards: tuple[int, Sequence[int]] | None = None,
    **leaderboard: float,
) -> Path:
    """config.toml in directory: the database is its own SQLite file unless given (a path or
    a postgresql:// URL); shards is (shard_count, shard_ids), or None to run unsharded."""
    settings = {"edit_seconds": EDIT_SECONDS, "page_size": PAGE_SIZE, **leaderboard}
    shard_lines = (
        [] if shards is None else [f"shard_count = {shards[0]}", f"shard_ids = {list(shards[1])}"]
    )
    lines = [
        "[discord]",
        'token_env = "LADDERBOT_TEST_TOKEN"',
        f'sync = "{sync}"',
        *shard_lines,
        "[database]",
        f"{'url' if str(database).startswith('postgresql://') else 'path'} = "
        f'"{database or directory / "ladder.sqlite3"}"',
        "[leaderboard]",
        *(f"{key} = {value}" for key, value in settings.items()),
    ]
    path = directory / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def free_port() -> int:
    """A loopback port nothing listens on (for a server the test starts)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def bot_environment(fake: FakeDiscord | None, origin: str = "bot") -> dict[str, str]:
    """The environment of a bot or command-line process; origin names it to the fake."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FAKE_ENV), str(REPO)])
    env["LADDERBOT_TEST_TOKEN"] = "fake-token"
    if fake is not None:
        env["FAKE_DISCORD_URL"] = fake.url
        env["FAKE_DISCORD_ORIGIN"] = origin
    return env


class BotProcess:
    """The real bot in a subprocess, connected to the fake; its output goes to a log file.
    It is ready once it has the members of each of `guilds` (those of its shards)."""

    def __init__(
        self,
        fake: FakeDiscord,
        config: Path,
        origin: str = "bot",
        guilds: Sequence[int] = (GUILD_ID,),
    ) -> None:
        self.fake = fake
        self.config = config
        self.origin = origin
        self.guilds = guilds
        self.log = config.parent / "bot.log"
        self.database = config.parent / "ladder.sqlite3"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout: float = 90.0) -> None:
        mark = self.fake.mark()
        self.starts += 1
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot", "run", "--config", str(self.config)],
                cwd=self.config.parent,
                env=bot_environment(self.fake, self.origin),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"the bot exited early:\n{self.output()}")
            try:
                self.fake.wait_ready(0.2, mark, self.guilds, self.origin)
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

    def log_size(self) -> int:
        return self.log.stat().st_size

    def output_since(self, size: int) -> str:
        """What the bot logged after `log_size()` returned `size`: one test's share of a
        bot shared by the session."""
        with self.log.open("rb") as log:
            log.seek(size)
            return log.read().decode("utf-8", errors="replace")


def ladderbot(database: str | Path, *args: str, stdin: str = "") -> str:
    """`ladderbot ARGS --guild GUILD_ID --db DATABASE` beside the bot, as a moderator would
    run it: its standard output; a non-zero exit fails the test with what it said."""
    done = subprocess.run(
        [sys.executable, "-m", "bot", *args, "--guild", str(GUILD_ID), "--db", str(database)],
        cwd=REPO,
        env=bot_environment(None),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


class Players:
    """Hands out players never used before, so each test's ratings start fresh."""

    def __init__(self) -> None:
        self._unused = iter(PLAYERS)

    def take(self, count: int) -> list[Member]:
        return [next(self._unused) for _ in range(count)]


def serving(server: FakeDiscord) -> Iterator[FakeDiscord]:
    """A fixture's body: the fake Discord started, yielded, stopped."""
    server.start()
    yield server
    server.stop()


def running(process: BotProcess) -> Iterator[BotProcess]:
    """A fixture's body: the bot process started, yielded, stopped (also when its start
    fails)."""
    try:
        process.start()
        yield process
    finally:
        process.stop()
