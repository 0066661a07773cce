"""Start-up of `ladderbot` (issue 29): a command imports only what it needs. Each probe is a
fresh `python -c` (an import made earlier by the test process would hide one)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from bot.cli.program import COMMANDS
from bot.ratings.variants import VARIANTS
from tests.test_cli import REPOSITORY, run

HEAVY = ("discord", "numpy", "aiosqlite", "asyncpg", "matplotlib", "aiohttp", "jinja2")
"""Third-party modules that cost start-up time."""
LAYERS = ("bot.services", "bot.storage", "bot.config", "bot.app", "bot.web")
"""The bot's layers below the command line, each a few dozen modules."""
USE_CASES = tuple(
    f"bot.services.{concern}"
    for concern in (
        "community",
        "evaluation",
        "matches",
        "matchups",
        "members",
        "queues",
        "rooms",
        "seasons",
        "settings",
        "standings",
        "transfers",
        "webhooks",
    )
)
"""The services' use cases, each imported when a command first uses it (Services)."""
EVERY_DATABASE_COMMAND = ("bot.services.settings", "bot.services.webhooks")
"""What every database command loads: the check that the guild exists (settings) and the
writer of the webhooks' outbox, which the services' one write path calls."""
NOT_THEIRS = ("bot.ratings.evaluation", "bot.present.evaluation", "pyarrow", "tqdm")
"""The evaluation's math and words, the CSV reader and the progress line: no command below
uses them (a bulk command's stages show only on a terminal)."""


def loaded_after(
    *commands: list[str], watched: Sequence[str] = HEAVY + LAYERS
) -> dict[str, object]:
    """Runs each `ladderbot` command in one fresh interpreter; what it printed, its exit
    statuses, which of `watched` are imported at the end, and how many threads it has then
    (Linux's /proc), once its Python threads have ended: those no Python code started. A
    closed database's worker thread may still be finishing when the command returns, and an
    ended thread leaves /proc a moment after join() returns, so the count is taken when it
    comes down to one thread, or after 5 s."""
    probe = f"""
import contextlib, io, json, os, sys, threading, time
from bot.cli import build_parser, main
build_parser()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    statuses = [main(command) for command in {commands!r}]
for thread in threading.enumerate():
    if thread is not threading.main_thread():
        thread.join(10)
deadline = time.monotonic() + 5
while len(os.listdir("/proc/self/task")) > 1 and time.monotonic() < deadline:
    time.sleep(0.01)
loaded = [name for name in {tuple(watched)!r} if name in sys.modules]
found = {{"statuses": statuses, "out": out.getvalue(), "loaded": loaded}}
print(json.dumps({{**found, "threads": len(os.listdir("/proc/self/task"))}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=REPOSITORY,
        timeout=60,
        check=True,
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_version_help_and_the_parser_load_no_driver_numpy_discord_or_services() -> None:
    found = loaded_after(["--version"], ["--help"], ["season", "--help"])
    assert found["statuses"] == [0, 0, 0]
    out = str(found["out"])
    assert out.startswith("ladderbot ") and "testit" in out and "close the season" in out
    assert found["loaded"] == []


def test_a_database_command_loads_the_driver_and_not_discord_or_the_web(tmp_path: Path) -> None:
    database = str(tmp_path / "start.sqlite3")
    found = loaded_after(["settings", "--guild", "1", "--db", database, "t=120"])
    assert found["statuses"] == [0]
    assert "changed t = 120" in str(found["out"])
    assert found["loaded"] == ["numpy", "aiosqlite", "bot.services", "bot.storage", "bot.config"]
    assert found["threads"] == 1  # no pool of OpenBLAS threads spinning while it ran


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A guild with one match."""
    database = str(tmp_path_factory.mktemp("start-up") / "start.sqlite3")
    assert run("report", "--guild", "1", "--db", database, "<@1> 1 | <@2> 0")[0] == 0
    return database


@pytest.mark.parametrize(
    ("words", "arguments", "uses"),
    [
        (["settings"], ["t=120"], ()),
        (["season", "list"], [], ("seasons",)),
        (["rating"], ["1"], ("members", "standings")),
        (["leaderboard"], [], ("standings",)),
        (["report"], ["<@2> 1 | <@1> 0"], ("matches",)),
        (["recompute"], [], ()),
        (["export"], [], ("transfers", "matches")),
    ],
)
def test_a_database_command_loads_only_the_use_cases_it_calls(
    database: str, words: list[str], arguments: list[str], uses: tuple[str, ...]
) -> None:
    """Each use case's module is imported by its first call (bot.services.Services), so a
    command loads the ones it calls and none of the others (an export's module holds the
    import too, which checks lineups as a report does: bot.services.matches)."""
    where = ["--guild", "1", "--db", database]
    found = loaded_after([*words, *where, *arguments], watched=USE_CASES + NOT_THEIRS)
    assert found["statuses"] == [0]
    expected = {*EVERY_DATABASE_COMMAND, *(f"bot.services.{concern}" for concern in uses)}
    assert found["loaded"] == [name for name in USE_CASES if name in expected]


def test_the_command_list_has_a_command_for_every_variant() -> None:
    assert [name for name in COMMANDS if name[1:].isdigit()] == list(VARIANTS)
