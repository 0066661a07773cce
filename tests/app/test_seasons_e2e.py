"""Seasons through the fake Discord (SPEC 9.1): /admin season start, /season list and
/leaderboard season:. The module's guild is shared by every e2e test: these tests start
seasons, so they only assert what concerns their own players and season names."""

from __future__ import annotations

import re
from typing import Any

from tests.app.fakediscord import FakeDiscord
from tests.app.harness import MOD, BotProcess, Players


def _standings(fake: FakeDiscord, **options: Any) -> dict[str, str]:
    """Name -> rating shown on every page of a /leaderboard."""
    found: dict[str, str] = {}
    page, pages = 1, 1
    while page <= pages:
        embed = fake.slash(MOD, "leaderboard", page=page, **options).reply().embeds[0]
        found.update(re.findall(r"\*\*\d+\.\*\* (\S+) — (\d+(?:\.\d)?)", embed["description"]))
        footer = re.search(r"page \d+ of (\d+)", embed["footer"]["text"])
        assert footer is not None
        pages = int(footer.group(1))
        page += 1
    return found


def test_a_season_start_closes_the_standings_and_resets_ratings(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    winner, loser = players.take(2)
    fake.slash(MOD, "report duel", winner=winner, loser=loser, minutes=20.0).reply()
    rated = _standings(fake)
    assert float(rated[winner.name]) > 500 > float(rated[loser.name])

    refused = fake.slash(winner, "admin season start", name="autumn").reply()
    assert refused.ephemeral and "moderator" in (refused.content or "").lower()

    started = fake.slash(MOD, "admin season start", name="e2e autumn", carry=0.5).reply()
    assert "e2e autumn" in (started.content or "")
    assert "50%" in (started.content or "")

    again = fake.slash(MOD, "admin season start", name="e2e autumn").reply()
    assert again.ephemeral and "is taken" in (again.content or "")

    listed = fake.slash(winner, "season list").reply()
    description = listed.embeds[0]["description"]
    assert description.splitlines()[0].startswith("**e2e autumn**")
    assert "current" in description.splitlines()[0]

    # Nobody has played in the new season: the current board does not list them...
    assert winner.name not in _standings(fake)
    # ...and the closed season keeps its closing standings.
    closed_name = re.findall(r"\*\*(.+?)\*\* — from", description)[1]
    closed = fake.slash(MOD, "leaderboard", season=closed_name).reply()
    assert "closing standings" in closed.embeds[0]["title"]
    closing = _standings(fake, season=closed_name)
    assert closing[winner.name] == rated[winner.name]
    assert closing[loser.name] == rated[loser.name]

    # The ratings carried half of their distance to 500 into the new season.
    rematch = fake.slash(MOD, "report duel", winner=loser, loser=winner, minutes=20.0).reply()
    text = str(rematch.embeds[0])
    kept_winner = 500 + 0.5 * (float(rated[winner.name]) - 500)
    assert f"{kept_winner:.1f}" in text

    unknown = fake.slash(MOD, "leaderboard", season="no such season").reply()
    assert unknown.ephemeral and "see /season list" in (unknown.content or "")
