"""Setting up the web pages (SPEC 11.1): the [web] config section, the guild setting `web`
from the command line, and `ladderbot web` refusing what it cannot serve."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from bot.config import ConfigError, WebConfig, load_config, parse_config
from tests.test_cli import REPOSITORY, run

GUILD = "7"


def test_the_example_config_has_the_web_section_of_the_spec() -> None:
    config = load_config(REPOSITORY / "config.example.toml")
    assert config.web == WebConfig(enabled=False, host="127.0.0.1", port=8080, public_url=None)
    assert config.defaults.web is False


def test_a_web_section_is_read_and_checked() -> None:
    config = parse_config(
        '[web]\nenabled = true\nport = 9000\npublic_url = "https://ladder.example.org/"\n'
    )
    assert config.web.enabled and config.web.port == 9000
    assert config.web.guild_address(12) == "https://ladder.example.org/g/12"
    embedding = parse_config('[web]\nframe_ancestors = ["https://*.Example.org", "http://b:81"]')
    assert embedding.web.frame_ancestors == ("https://*.example.org", "http://b:81")
    assert embedding.web.max_connections == 1000
    for text, words in [
        ("[web]\nport = 0", "[web] port must be a whole number from 1 to 65,535, got 0"),
        ("[web]\nenabled = 'maybe'", "[web] enabled must be true or false, got 'maybe'"),
        ('[web]\npublic_url = "ftp://x"', "[web] public_url must be an http:// or https://"),
        ("[web]\nwho = 1", "[web] who is not a known key"),
        ("[web]\nmax_connections = 0", "[web] max_connections must be a whole number from 1"),
        ("[web]\nframe_ancestors = 'x'", "[web] frame_ancestors must be a list of at most 32"),
        (
            '[web]\nframe_ancestors = ["https://a.org/page"]',
            "'https://a.org/page' is not one",
        ),
    ]:
        with pytest.raises(ConfigError) as refused:
            parse_config(text)
        assert words in str(refused.value)


def test_the_setting_web_from_the_command_line(tmp_path: Path) -> None:
    database = str(tmp_path / "ladder.sqlite3")
    assert run("report", "--guild", GUILD, "--db", database, "<@1> 3 | <@2> 1")[0] == 0
    status, out, err = run("settings", "--guild", GUILD, "--db", database)
    assert "web = off" in out.splitlines()  # as a moderator types it (issue 23 finding 11)
    for value, shown in [("true", "on"), ("off", "off"), ("yes", "on")]:
        status, out, err = run("settings", "--guild", GUILD, "--db", database, f"web={value}")
        assert status == 0 and out.startswith(f"changed web = {shown}\n"), err
    status, out, err = run("settings", "--guild", GUILD, "--db", database, "web=perhaps")
    assert status == 2 and "setting web: must be true or false, got 'perhaps'" in err


def test_ladderbot_web_refuses_a_database_that_does_not_exist(tmp_path: Path) -> None:
    status, out, err = run("web", "--db", str(tmp_path / "none.sqlite3"), "--port", "1")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "cannot open the database" in err
    assert not (tmp_path / "none.sqlite3").exists()
    status, out, err = run("web", "--port", "70000")
    assert status == 2 and "must be a port number from 1 to 65,535" in err


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_ladderbot_web_serves_until_stopped(tmp_path: Path) -> None:
    database = str(tmp_path / "ladder.sqlite3")
    run("report", "--guild", GUILD, "--db", database, "<@1> 3 | <@2> 1")
    run("settings", "--guild", GUILD, "--db", database, "web=true")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "bot", "web", "--db", database, "--port", str(port)],
        cwd=REPOSITORY,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert server.stderr is not None
        assert server.stderr.readline() == f"serving http://127.0.0.1:{port} (Ctrl-C stops)\n"
        address = f"http://127.0.0.1:{port}/api/v1/guilds/{GUILD}/leaderboard"
        with urllib.request.urlopen(address, timeout=10) as answer:
            assert answer.status == 200 and b'"user_id": 1' in answer.read()
        with pytest.raises(urllib.error.HTTPError) as hidden:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/g/99", timeout=10)
        assert hidden.value.code == 404
        busy = run("web", "--db", database, "--port", str(port))
        assert busy[0] == 2 and f"cannot listen on 127.0.0.1:{port}" in busy[2]
    finally:
        server.send_signal(signal.SIGINT)
        started = time.monotonic()
        assert server.wait(timeout=20) == 0
        assert time.monotonic() - started < 20
