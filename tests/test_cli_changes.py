"""The command line's changes reach a running bot's change feed (SPEC 5, 8.7; issue 17): each
command that changes something (report, confirm, void, edit, settings, season start, import,
recompute) leaves exactly its change in the change log, made by the command line, and a feed
started beforehand (as a bot process runs it) hears each once; the reading commands leave
nothing. On both engines, through bot.cli.main."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bot.services import Change
from bot.services.changes import COMMAND_LINE_ID
from bot.services.feed import ChangeFeed
from bot.storage import Database
from tests.test_cli_moderation import GUILD, ok, report_by_a_player


def test_every_moderating_command_is_heard_once_as_the_command_line(
    database_url: str, tmp_path: Path
) -> None:
    ok(database_url, "report", "<@1> 3 | <@2> 1")  # the guild exists before the feed starts
    pending = report_by_a_player(database_url, 3, "<@3> 1 | <@1> 0")
    csv = tmp_path / "one.csv"
    csv.write_text(
        "match,played_at,side,player,score,minutes\n"
        "k1,2024-01-01T00:00:00Z,a,4,1,10\nk1,2024-01-01T00:00:00Z,b,5,0,10\n",
        encoding="utf-8",
    )

    async def run() -> list[Change]:
        heard: list[Change] = []
        db = await Database.open(database_url)
        feed = ChangeFeed(db, heard.append)
        try:
            await feed.start()
            for command, *rest in (
                ("report", "<@1> 2 | <@2> 1"),
                ("confirm", str(pending)),
                ("void", "1", "--reason", "typo"),
                ("edit", "2", "<@2> 3 | <@1> 1"),
                ("settings", "min_games=2"),
                ("season start", "spring"),
                ("import", str(csv)),
                ("recompute",),
                ("leaderboard",),
                ("matches",),
                ("match", "2"),
                ("rating", "1"),
                ("season list",),
            ):
                await asyncio.to_thread(ok, database_url, command, *rest)
            await feed.catch_up()
            return heard
        finally:
            await feed.stop()
            await db.close()

    heard = asyncio.run(run())
    assert [(c.guild_id, c.kind, c.actor_id) for c in heard] == [
        (GUILD, kind, COMMAND_LINE_ID)
        for kind in (
            "applied",
            "applied",
            "voided",
            "edited",
            "settings",
            "season_started",
            "imported",
            "replayed",
        )
    ]
    assert heard[1].match_id == pending and heard[2].detail.endswith("typo")
    assert "min_games" in heard[4].detail
