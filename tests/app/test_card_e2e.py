"""/rating's player card and name learning through the fake Discord (SPEC 9.5)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.app.fakediscord import GUILD_ID, FakeDiscord, Reply
from tests.app.harness import MOD, BotProcess, Players, bot_environment

CLI = [sys.executable, "-m", "bot"]
FORM_LINE = re.compile(
    r"#\d+ <t:\d+:d> \*\*(W|D|L|\d(st|nd|rd|th)/\d)\*\* "
    r"(\d+\.\d) → (\d+\.\d) \(([+-]\d+\.\d)\)"
)


def _fields(reply: Reply) -> dict[str, str]:
    return {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}


def assert_within_discord_limits(reply: Reply) -> None:
    for embed in reply.embeds:
        fields = embed.get("fields", [])
        assert len(fields) <= 25
        assert len(embed.get("title", "")) <= 256 and len(embed.get("description", "")) <= 4096
        assert all(len(f["name"]) <= 256 and 0 < len(f["value"]) <= 1024 for f in fields)
        total = len(embed.get("title", "")) + len(embed.get("description", ""))
        total += sum(len(f["name"]) + len(f["value"]) for f in fields)
        total += len(embed.get("footer", {}).get("text", ""))
        assert total <= 6000


def test_rating_card_shows_peak_streak_form_win_rate_and_provisional(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    a, b, c, d = players.take(4)
    fake.slash(MOD, "report duel", winner=a, loser=b).reply()
    fake.slash(MOD, "report duel", winner=a, loser=b).reply()
    fake.slash(MOD, "report ffa", first=c, second=a, third=b, fourth=d).reply()
    reply = fake.slash(b, "rating", member=a).reply()
    assert_within_discord_limits(reply)
    fields = _fields(reply)
    assert reply.embeds[0]["description"].startswith("Provisional")  # 3 matches < 5
    assert fields["Streak"] == "W3"  # the record counts 2nd of four as a win
    assert fields["Win rate"] == "100% of 3 games (all seasons)"
    lines = fields["Recent form"].splitlines()
    matches = [FORM_LINE.fullmatch(line) for line in lines]
    assert all(matches), lines
    assert [m.group(1) for m in matches if m] == ["2nd/4", "W", "W"]
    for m in matches:
        assert m is not None
        assert round(float(m.group(4)) - float(m.group(3)), 1) == float(m.group(5))
    newest_after = max(float(m.group(4)) for m in matches if m)
    assert float(fields["Peak"]) == newest_after
    chart = reply.files[0]
    assert int.from_bytes(chart.data[16:20]) >= 1000 and int.from_bytes(chart.data[20:24]) >= 500
    board = fake.slash(MOD, "leaderboard").reply()
    assert "provisional" in board.embeds[0]["description"]


def _database(bot: BotProcess) -> list[str]:
    return ["--guild", str(GUILD_ID), "--db", str(bot.database)]


def _stored_name(bot: BotProcess, user_id: int) -> str:
    found = subprocess.run(
        [*CLI, "rating", str(user_id), "--json", *_database(bot)],
        capture_output=True,
        text=True,
        env=bot_environment(None),
        timeout=30,
        check=True,
    )
    return str(json.loads(found.stdout)["name"])


def _eventually_named(bot: BotProcess, user_id: int, name: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while (stored := _stored_name(bot, user_id)) != name:
        assert time.monotonic() < deadline, f"{user_id} is still named {stored!r}"
        time.sleep(0.3)


def test_imported_members_show_by_name_once_seen(
    fake: FakeDiscord, bot: BotProcess, players: Players, tmp_path: Path
) -> None:
    seen, other = players.take(2)
    csv = tmp_path / "import.csv"
    csv.write_text(
        "match,played_at,side,player,score,minutes\n"
        f"1,2026-01-01T00:00:00Z,a,{seen.id},1,10\n1,2026-01-01T00:00:00Z,b,{other.id},0,10\n",
        encoding="utf-8",
    )
    subprocess.run(
        [*CLI, "import", str(csv), *_database(bot)],
        env=bot_environment(None),
        timeout=30,
        check=True,
        capture_output=True,
    )
    assert _stored_name(bot, seen.id) == str(seen.id)
    fake.slash(seen, "leaderboard").reply()  # the caller is seen
    _eventually_named(bot, seen.id, seen.name)
    assert _stored_name(bot, other.id) == str(other.id)
    bot.restart()  # on ready: every member of the guild (chunked) is seen
    _eventually_named(bot, other.id, other.name)
    listed = fake.slash(MOD, "match list", member=other).reply()
    assert other.name in listed.embeds[0]["description"]
