"""The pages in a real browser (SPEC 11.2): headless chromium loads the leaderboard, a player
page and a match page at 360x800 and 1280x800, in light and dark, with no console error and
nothing wider than the window. The screenshots are kept in artifacts/web/ (look at them)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, ServiceContext, Services, parse_lineup
from bot.storage import Database
from bot.web import create_app
from tests.services.conftest import Clock
from tests.web.browser import Browser, chromium_executable
from tests.web.data import MARKDOWN_NAME, SCRIPT_NAME

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "web"
GUILD = 424242
MOD = Actor(999, is_moderator=True)
NAMES = [
    "Ayla", "Borislav Petrov", "chen", "Dário", "Ebba_Lindqvist", "Farrukh", "Grace O'Malley",
    "Hiroshi", "Ines", "Jovana", "Kwame", "Liesel von Hohenberg-Sigmaringen", "Mateo", "Nia",
    "Oskar", "Priya", "Quentin", "Rúna", "Sven", "Tomasz", SCRIPT_NAME, MARKDOWN_NAME,
]  # fmt: skip
DAY = 86_400.0


async def _showcase(services: Services, clock: Clock) -> tuple[int, int]:
    """A guild of a few weeks: duels, free-for-alls and team games with a guest, a closed
    season; returns a busy player and a team match."""
    members = [MemberInfo(100 + i, name) for i, name in enumerate(NAMES)]
    skill = {m.user_id: random.Random(m.user_id).gauss(0, 1) for m in members}
    draw = random.Random(7)
    team_match = 0
    for number in range(200):
        clock.now += draw.uniform(0.05, 0.4) * DAY
        kind = draw.random()
        if kind < 0.7:
            a, b = draw.sample(members, 2)
            score_a = max(0, round(10 + 4 * skill[a.user_id] + draw.gauss(0, 4)))
            score_b = max(0, round(10 + 4 * skill[b.user_id] + draw.gauss(0, 4)))
            text = f"<@{a.user_id}> {score_a} | <@{b.user_id}> {score_b}"
        elif kind < 0.85:
            players = draw.sample(members, 4)
            text = " | ".join(
                f"<@{p.user_id}> {max(0, round(20 + 5 * skill[p.user_id] + draw.gauss(0, 5)))}"
                for p in players
            )
        else:
            a1, a2, b1 = draw.sample(members, 3)
            text = (
                f"<@{a1.user_id}> {draw.randint(3, 12)} 18, <@{a2.user_id}> {draw.randint(1, 9)} | "
                f"<@{b1.user_id}> {draw.randint(3, 12)}, guest_bob {draw.randint(0, 8)} 12"
            )
        result = await services.matches.report(
            GUILD, MOD, parse_lineup(text), request_id=f"show{number}", members=members
        )
        if "guest_bob" in text:
            team_match = result.match.id
        if number == 100:
            clock.now += DAY
            await services.seasons.start(GUILD, MOD, "Winter cup", 0.5)
    await services.settings.change(GUILD, MOD, {"web": True, "provisional_games": 12})
    await services.settings.learn_guild_name(GUILD, "Northern Ladder League")  # as Discord shows it
    return 100, team_match


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[tuple[str, int, int]]:
    """On SQLite: the pages are the same on both engines (tests/web/test_api_vs_cli.py)."""
    db = await Database.open(tmp_path / "web.sqlite3")
    clock = Clock(1_760_000_000.0)
    services = Services.build(ServiceContext(db, GuildSettings(), clock=clock))
    try:
        player, match = await _showcase(services, clock)
        async with TestServer(create_app(services, clock=clock), host="127.0.0.1") as server:
            yield str(server.make_url("")).rstrip("/"), player, match
    finally:
        await db.close()


@pytest.fixture
def chromium() -> str:
    return chromium_executable()


async def test_pages_in_a_real_browser(
    chromium: str, site: tuple[str, int, int], tmp_path: Path
) -> None:
    base, player, match = site
    pages = {
        "leaderboard": f"/g/{GUILD}",
        "player": f"/g/{GUILD}/players/{player}",
        "match": f"/g/{GUILD}/matches/{match}",
        "matches": f"/g/{GUILD}/matches",
        "season": f"/g/{GUILD}?season=first",
    }
    problems: list[str] = []
    async with Browser.open(chromium, tmp_path / "profile") as browser:
        for name, path in pages.items():
            for width, height in ((360, 800), (1280, 800)):
                for scheme in ("light", "dark"):
                    if name in ("matches", "season") and (width, scheme) != (360, "light"):
                        continue
                    shot = ARTIFACTS / f"{name}-{width}x{height}-{scheme}.png"
                    report = await browser.visit(base + path, width, height, scheme, shot)
                    assert shot.stat().st_size > 10_000, shot
                    problems.extend(f"{name} {width} {scheme}: {e}" for e in report.errors)
                    if report.scroll_width > width:
                        problems.append(
                            f"{name} {width} {scheme}: {report.scroll_width} px wide, wider "
                            "than the window"
                        )
    assert problems == []
