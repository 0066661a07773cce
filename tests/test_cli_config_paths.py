"""Issue 23 finding 5 (SPEC 5, 6): the database a command opens is one somebody named. A
relative path in the config file is relative to the config file's folder, never to the
shell's; with no --db and no config file a database command is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import load_config
from tests.test_cli import run

LINEUP = "<@1> 1 | <@2> 0"
BOTH_WAYS = ("--db PATH|URL", "--config PATH")


@pytest.mark.parametrize(
    "database", ['path = "x.sqlite3"', 'url = "sqlite:///x.sqlite3"'], ids=["path", "url"]
)
def test_finding_5_config_paths_are_relative_to_the_config_folder_not_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, database: str
) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "config.toml").write_text(f"[database]\n{database}\n", encoding="utf-8")
    shell = tmp_path / "elsewhere"
    shell.mkdir()
    monkeypatch.chdir(shell)
    status, out, err = run("report", "--guild", "7", "--config", "../conf/config.toml", LINEUP)
    assert (status, err) == (0, ""), err
    assert "match #1 applied" in out
    assert list(shell.iterdir()) == []
    assert (tmp_path / "conf" / "x.sqlite3").is_file()
    monkeypatch.chdir(tmp_path)  # the same config read from its parent finds the same match
    status, out, err = run("matches", "--guild", "7", "--config", "conf/config.toml")
    assert (status, err) == (0, "") and "#1" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["report", LINEUP],
        ["import", "matches.csv"],
        ["settings", "t=100"],
        ["season", "start", "S2"],
        ["leaderboard"],
        ["rating", "1"],
        ["gr", "1"],
        ["matches"],
        ["queue", "list"],
        ["webhook", "add", "https://hooks.example.org/in"],
        ["webhook", "list"],
        ["evaluate"],
    ],
    ids=lambda argv: "-".join(argv[:2]) if argv[0] in ("season", "queue", "webhook") else argv[0],
)
def test_finding_5_no_config_and_no_db_is_refused_naming_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "matches.csv").write_text("match,played_at,side,player,score,minutes\n")
    for config in ([], ["--config", "missing.toml"]):
        status, out, err = run(*argv, "--guild", "7", *config)
        assert (status, out) == (2, ""), err
        assert err.count("\n") == 1 and all(way in err for way in BOTH_WAYS), err
    assert [path.name for path in tmp_path.iterdir()] == ["matches.csv"]


def test_finding_5_web_without_config_or_db_is_refused_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run("web", "--port", "1")
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and all(way in err for way in BOTH_WAYS), err
    assert list(tmp_path.iterdir()) == []


def test_finding_5_with_db_a_missing_default_config_is_not_needed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("report", "--guild", "7", "--db", "here.sqlite3", LINEUP)[0] == 0
    assert [path.name for path in tmp_path.iterdir()] == ["here.sqlite3"]


def test_finding_5_absolute_paths_and_other_engines_are_kept_as_written(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    absolute = tmp_path / "elsewhere" / "a.sqlite3"
    for database, location in [
        (f'path = "{absolute}"', str(absolute)),
        (f'url = "sqlite:///{absolute}"', f"sqlite:///{absolute}"),
        ('url = "postgresql://u@h:5432/d"', "postgresql://u@h:5432/d"),
        ('path = "sub/b.sqlite3"', str(tmp_path / "sub" / "b.sqlite3")),
    ]:
        config.write_text(f"[database]\n{database}\n", encoding="utf-8")
        assert load_config(config).database.location() == location
