"""Moderation from the command line (SPEC 5, 9.4; issue 17 item 10): matches, match, void,
confirm, edit, settings and season, through bot.cli.main on both engines."""

from __future__ import annotations

import asyncio
import inspect
import json
from dataclasses import fields
from typing import Any

import pytest

from bot.app.cogs.admin import Admin
from bot.config import Config, GuildSettings
from bot.services import Actor, Services, parse_lineup
from bot.services.settings import SETTING_NAMES
from tests.test_cli import run

GUILD = 7


def cli(database: str, command: str, *rest: str) -> tuple[int, str, str]:
    """`ladderbot COMMAND ... --guild GUILD --db DATABASE` (sub-actions before the options)."""
    words = command.split()
    return run(*words, *rest, "--guild", str(GUILD), "--db", database)


def ok(database: str, command: str, *rest: str) -> str:
    status, out, err = cli(database, command, *rest)
    assert (status, err) == (0, ""), err
    return out


def refused(database: str, command: str, *rest: str) -> str:
    """The refusal: exit 2, nothing on stdout, one line on stderr; the guild's export (every
    match with its ratings) unchanged."""
    before = ok(database, "export")
    status, out, err = cli(database, command, *rest)
    assert (status, out) == (2, "") and err.count("\n") == 1, err
    assert ok(database, "export") == before
    return err


def as_json(database: str, command: str, *rest: str) -> Any:
    return json.loads(ok(database, command, *rest, "--json"))


def ratings(database: str) -> dict[int, float]:
    return {row["user_id"]: row["rating"] for row in as_json(database, "leaderboard")}


def report_by_a_player(database: str, reporter: int, lineup: str) -> int:
    """A report by a participant who is no moderator: pending until an opponent confirms."""

    async def report() -> int:
        async with await Services.open(database, Config()) as services:
            result = await services.matches.report(
                GUILD, Actor(reporter), parse_lineup(lineup), request_id=lineup
            )
            assert result.match.status == "pending"
            return result.match.id

    return asyncio.run(report())


def test_a_mistyped_report_is_voided_from_the_command_line(database_url: str) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    ok(database_url, "report", "<@2> 30 | <@1> 1")  # the typo: 30 for 3
    ok(database_url, "report", "<@1> 2 | <@3> 1")
    out = ok(database_url, "void", "2", "--reason", "typo: 30 for 3")
    assert out.splitlines()[0] == "match #2 is void; 1 later match was replayed"
    shown = as_json(database_url, "match", "2")
    assert (shown["status"], shown["void_reason"]) == ("void", "typo: 30 for 3")
    voided = ratings(database_url)
    assert ok(database_url, "recompute") == "replayed 2 matches; nothing stored changed\n"
    assert ratings(database_url) == voided
    err = refused(database_url, "void", "2")
    assert "match #2 is void; only a pending, disputed or applied match can be voided" in err


def test_matches_lists_the_guild_s_matches_newest_first_with_state(database_url: str) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    ok(database_url, "report", "<@2> 3 | <@3> 1, bob 2")
    pending = report_by_a_player(database_url, 3, "<@3> 1 | <@1> 0")
    ok(database_url, "void", "1")
    lines = ok(database_url, "matches").splitlines()
    assert [line.split()[:2] for line in lines] == [
        [f"#{pending}", "pending"],
        ["#2", "applied"],
        ["#1", "void"],
    ]
    assert lines[1].endswith("  <@2> 3 20 | <@3> 1 20, bob 2 20")
    assert [m["id"] for m in as_json(database_url, "matches", "--member", "1")] == [pending, 1]
    assert [m["id"] for m in as_json(database_url, "matches", "--limit", "1")] == [pending]
    listed = as_json(database_url, "matches")[1]
    assert listed["lineup"] == "<@2> 3 20 | <@3> 1 20, bob 2 20"
    assert [(p["user_id"], p["guest"], p["rated"]) for p in listed["participants"]] == [
        (2, None, True),
        (3, None, True),
        (None, "bob", False),
    ]


def test_match_shows_one_match_with_its_earlier_lineups(database_url: str) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    out = ok(database_url, "edit", "1", "<@1> 3 | <@3> 1")
    assert out.splitlines()[0] == (
        "match #1 is edited (it was: <@1> 3 20 | <@2> 1 20); 1 later match was replayed"
    )
    lines = ok(database_url, "match", "1").splitlines()
    assert lines[0].startswith("match #1 applied, played ")
    assert lines[0].endswith(", reported by the command line")
    assert lines[1] == "  Team A: 1, score 3, 20 minutes, 500.0 → 520.0 (+20.0)"
    assert lines[2] == "  Team B: 3, score 1, 20 minutes, 500.0 → 480.0 (-20.0)"
    assert lines[3].startswith("before an edit at ")
    assert lines[3].endswith(" by the command line: <@1> 3 20 | <@2> 1 20")
    shown = as_json(database_url, "match", "1")
    assert shown["lineup"] == "<@1> 3 20 | <@3> 1 20"
    assert [edit["old_lineup"] for edit in shown["edits"]] == ["<@1> 3 20 | <@2> 1 20"]
    member_2 = as_json(database_url, "rating", "2")  # out of the match: back to the start
    assert (member_2["rating"], member_2["games"]) == (500.0, 0)


def test_confirm_applies_a_pending_or_disputed_match_as_a_moderator(database_url: str) -> None:
    pending = report_by_a_player(database_url, 1, "<@1> 3 | <@2> 1")
    assert ratings(database_url) == {}
    out = ok(database_url, "confirm", str(pending))
    assert out.splitlines()[0] == f"match #{pending} is applied"
    assert ratings(database_url) == {1: 520.0, 2: 480.0}
    assert ok(database_url, "confirm", str(pending)).startswith(
        f"match #{pending} was already applied\n"
    )
    disputed = report_by_a_player(database_url, 2, "<@2> 3 | <@1> 1")

    async def dispute() -> None:
        async with await Services.open(database_url, Config()) as services:
            await services.matches.dispute(GUILD, Actor(1), disputed)

    asyncio.run(dispute())
    assert as_json(database_url, "match", str(disputed))["status"] == "disputed"
    ok(database_url, "confirm", str(disputed))
    assert as_json(database_url, "match", str(disputed))["status"] == "applied"
    ok(database_url, "void", str(pending))
    err = refused(database_url, "confirm", str(pending))
    assert f"match #{pending} is void; only a pending or disputed match can be confirmed" in err


@pytest.mark.parametrize(
    ("command", "rest", "message"),
    [
        ("match", ["9"], "there is no match #9 in this server; see ladderbot matches for ids"),
        ("void", ["9"], "there is no match #9"),
        ("confirm", ["0"], "match id '0' must be a decimal integer from 1"),
        ("edit", ["1", "<@1> 1 | <@1> 2"], "appears twice"),
        ("edit", ["1", "<@1> 1 | 12 2"], "write a member as <@12>"),
        ("match", ["99999999999999999999"], "match id '99999999999999999999' must be"),
        ("matches", ["--member", "nobody"], "no member named 'nobody'"),
    ],
)
def test_moderation_refusals_are_one_line_and_change_nothing(
    database_url: str, command: str, rest: list[str], message: str
) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    assert message in refused(database_url, command, *rest)


def test_settings_shows_every_key_and_changes_them(database_url: str) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    shown = ok(database_url, "settings").splitlines()
    assert [line.split(" = ")[0] for line in shown] == [f.name for f in fields(GuildSettings)]
    # issue 23 finding 11: values as a moderator types them, not 120.0 or False
    assert {"t = 120", "game_mult = 2", "web = off", "initial_rating = 500"} <= set(shown)
    out = ok(database_url, "settings", "t=100", "variant=P3", "min_games=2")
    assert out.splitlines()[0] == (
        "changed t = 100, variant = p3, min_games = 2; the guild was replayed (1 match)"
    )
    assert "t = 100" in ok(database_url, "settings").splitlines()
    assert ratings(database_url) == {}  # min_games 2: nobody listed yet
    out = ok(database_url, "settings", "min_games=1")
    assert out.splitlines()[0] == "changed min_games = 1"  # no rating constant: no replay
    assert set(ratings(database_url)) == {1, 2}
    out = ok(database_url, "settings", "no_show_minutes=1440", "lobby_hours=168")  # SPEC 10
    assert out.splitlines()[0] == "changed no_show_minutes = 1440, lobby_hours = 168"
    assert {"no_show_minutes = 1440", "lobby_hours = 168"} <= set(
        ok(database_url, "settings").splitlines()
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (["t=0"], "setting t: must be a number from 1 to 10,000"),
        (["t=nan"], "setting t: must be a number from 1 to 10,000"),
        (["variant=p9"], "setting variant: must be one of p1"),
        (["bogus=1"], "setting 'bogus' must be one of t, game_mult,"),
        (["t"], "'t' must be NAME=VALUE, such as t=120"),
        (["t=100", "t=110"], "setting 't' is given twice"),
        (
            ["no_show_minutes=1441"],
            "setting no_show_minutes: must be a whole number from 0 to 1,440",
        ),
        (
            ["no_show_minutes=1.5"],
            "setting no_show_minutes: must be a whole number from 0 to 1,440",
        ),
        (["lobby_hours=0.5"], "setting lobby_hours: must be a number from 1 to 168"),
        (["lobby_hours=169"], "setting lobby_hours: must be a number from 1 to 168"),
    ],
)
def test_settings_refusals_are_one_line_and_change_nothing(
    database_url: str, changes: list[str], message: str
) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    before = ok(database_url, "settings")
    assert message in refused(database_url, "settings", *changes)
    assert ok(database_url, "settings") == before


def test_settings_take_every_key_of_admin_settings() -> None:
    """One table: the keys of `ladderbot settings` are GuildSettings' fields, and /admin
    settings offers exactly those."""
    parameters = set(inspect.signature(Admin.settings.callback).parameters) - {
        "self",
        "interaction",
    }
    assert set(SETTING_NAMES) == parameters == {f.name for f in fields(GuildSettings)}


def test_season_start_and_list_from_the_command_line(database_url: str) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    out = ok(database_url, "season start", "spring", "--carry", "0.5")
    assert out == (
        "season 'spring' started: ratings keep 50% of their distance to the initial rating, "
        "records restart at 0\n"
    )
    assert ratings(database_url) == {}  # records restart: nobody has min_games 1 yet
    assert [row["rating"] for row in as_json(database_url, "leaderboard", "--season", "first")] == [
        520.0,
        480.0,
    ]
    lines = ok(database_url, "season list").splitlines()
    assert lines[0].startswith("first: from the first match; closed ")
    assert lines[0].endswith(", 2 players")
    assert lines[1].startswith("spring: from ") and lines[1].endswith(", carry 0.5; current")
    ok(database_url, "report", "<@1> 3 | <@2> 1")
    assert 510 < ratings(database_url)[1] < 530  # from 510: half its distance to 500 kept
    assert "season name 'spring' is" in refused(database_url, "season start", "spring")
    assert "carry 2.0 must be a number from 0 to 1" in refused(
        database_url, "season start", "summer", "--carry", "2"
    )
