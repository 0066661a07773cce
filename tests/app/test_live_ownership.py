"""Live boards refresh only the guilds of this process's shards (SPEC 8.4): at start (the
boards due) and after changes from the change feed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.app.live import LiveBoards
from bot.config import parse_config
from bot.services.changes import Change
from bot.storage.models import LiveBoard

SHARD_0_GUILD = 4 << 22
SHARD_1_GUILD = (5 << 22) | 7


class DueBoards:
    """The standings as the poll sees them: both guilds' boards are due."""

    async def live_boards_due(self) -> list[LiveBoard]:
        return [LiveBoard(guild_id, 1, None, None) for guild_id in (SHARD_0_GUILD, SHARD_1_GUILD)]


@pytest.mark.parametrize(
    ("discord", "owned"),
    [
        ("", [SHARD_0_GUILD, SHARD_1_GUILD]),
        ("shard_count = 2\nshard_ids = [0, 1]", [SHARD_0_GUILD, SHARD_1_GUILD]),
        ("shard_count = 2\nshard_ids = [1]", [SHARD_1_GUILD]),
        ("shard_count = 2\nshard_ids = [0]", [SHARD_0_GUILD]),
    ],
)
async def test_catch_up_touches_the_owned_guilds_only(
    discord: str, owned: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    services = SimpleNamespace(standings=DueBoards())
    bot: Any = SimpleNamespace(services=services, config=parse_config(f"[discord]\n{discord}"))
    live = LiveBoards(bot, edit_seconds=60.0)
    touched: list[int] = []
    monkeypatch.setattr(live, "touch", touched.append)
    await live.catch_up()
    assert touched == owned


@pytest.mark.parametrize(("shard", "owned"), [(0, SHARD_0_GUILD), (1, SHARD_1_GUILD)])
async def test_changes_touch_the_owned_guilds_only(
    shard: int, owned: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The feed tells every process every guild's changes; the board of an owned guild
    follows, and only changes of the standings touch it."""
    config = parse_config(f"[discord]\nshard_count = 2\nshard_ids = [{shard}]")
    bot: Any = SimpleNamespace(config=config)
    live = LiveBoards(bot, edit_seconds=60.0)
    touched: list[int] = []
    monkeypatch.setattr(live, "touch", touched.append)
    for guild_id in (SHARD_0_GUILD, SHARD_1_GUILD, SHARD_0_GUILD):
        await live.on_ladder_change(Change(guild_id, "applied", frozenset({1})))
        await live.on_ladder_change(Change(guild_id, "reported", match_id=1))
    assert touched == [owned] * (2 if owned == SHARD_0_GUILD else 1)
