"""Start-up of `ladderbot` (issue 29): a command imports only what it needs. Each probe is a
fresh `python -c` (an import made earlier by the test process would hide one)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.cli.program import COMMANDS
from bot.ratings.variants import VARIANTS
from tests.test_cli import REPOSITORY

HEAVY = ("discord", "numpy", "aiosqlite", "asyncpg", "matplotlib", "aiohttp", "jinja2")
"""Third-party modules that cost start-up time."""
LAYERS = ("bot.services", "bot.storage", "bot.config", "bot.app", "bot.web")
"""The bot's layers below the command line, each a few dozen modules."""


def loaded_after(*commands: list[str]) -> dict[str, object]:
    """Runs each `ladderbot` command in one fresh interpreter; what it printed, its exit
    statuses, and which of HEAVY and LAYERS are imported at the end."""
    probe = f"""
import contextlib, io, json, sys
from bot.cli import build_parser, main
build_parser()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    statuses = [main(command) for command in {commands!r}]
loaded = [name for name in {HEAVY + LAYERS!r} if name in sys.modules]
print(json.dumps({{"statuses": statuses, "out": out.getvalue(), "loaded": loaded}}))
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


def test_the_command_list_has_a_command_for_every_variant() -> None:
    assert [name for name in COMMANDS if name[1:].isdigit()] == list(VARIANTS)
