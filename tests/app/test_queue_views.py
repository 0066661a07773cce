"""The queue and lobby messages fit Discord's limits at their largest (SPEC 10.1, 7): 32
players with 32-character names, 25 queues, 25 maps, every lobby state."""

from __future__ import annotations

from dataclasses import replace

import discord
import pytest

from bot.app.queue_views import (
    lobby_content,
    lobby_embed,
    lobby_view,
    queue_embed,
    queue_list_text,
    queue_view,
)
from bot.ratings.elo import EloBridge
from bot.services.queue_rules import balanced, pick, with_captains
from bot.services.queues import Window
from bot.storage.queues import (
    Lobby,
    LobbyPlayer,
    LobbyState,
    MapPick,
    Queue,
    QueueFormat,
    QueueSettings,
    Waiting,
)
from tests.app.discord_rules import JsonDict, message_problems

BIG_ID = 2**62
NOW = 1_800_000_000.0
BRIDGE = EloBridge(120.0, 500.0)
NAMES = {BIG_ID + n: "W" * 32 for n in range(32)}


def queue(number: int = 1, waiting: int = 31) -> Queue:
    spec = QueueSettings(
        f"{'Q' * 30}{number:02d}", BIG_ID, 32, teams=4,
        maps=tuple(f"{'m' * 30}{n:02d}" for n in range(25)), pick_order="abcddcba",
        rating_range=2000, widen=500,
    )  # fmt: skip
    return Queue(
        1, number, spec, BIG_ID, None, "x" * 3000, 5, 4,
        tuple(Waiting(BIG_ID + n, NOW - 86_000 + n) for n in range(waiting)),
    )  # fmt: skip


def lobby(
    state: LobbyState, format: QueueFormat = "teams", players: list[LobbyPlayer] | None = None
) -> Lobby:
    found = players or [LobbyPlayer(BIG_ID + n, n, 1500.0 + 7 * n) for n in range(32)]
    return Lobby(
        1, BIG_ID, 1, "Q" * 32, BIG_ID, BIG_ID, state, format, 4, "captains", "abcddcba",
        NOW, NOW + 600, NOW + 60, NOW + 3 * 3600, "m" * 32, 2**32 - 1,
        BIG_ID if state == "reported" else None, NOW, "n" * 1000, 3, 2, tuple(found),
    )  # fmt: skip


def check(content: str | None, embed: discord.Embed, view: discord.ui.View | None) -> None:
    body: JsonDict = {"content": content, "embeds": [embed.to_dict()]}
    assert message_problems(body) == []
    if view is None:
        return
    rows = view.to_components()
    assert len(rows) <= 5
    for row in rows:
        parts = row["components"]
        assert len(parts) <= 5
        for part in parts:
            assert len(part["custom_id"]) <= 100
            assert len(part.get("label") or "") <= 80
            options = part.get("options", [])
            assert len(options) <= 25
            assert all(len(o["label"]) <= 100 and len(o["value"]) <= 100 for o in options)


def test_a_full_queue_message_fits() -> None:
    for waiting in (0, 31, 32):
        shown = queue(waiting=waiting)
        check(None, queue_embed(shown), queue_view(shown))
        check(None, queue_embed(shown, deleted=True), None)


def test_queue_list_of_25_queues_fits() -> None:
    """With each member's window in every queue (rating range), cut at whole lines."""
    queues = [queue(n) for n in range(25)]
    windows = {
        q.queue_id: [Window(w.user_id, -123456.7, 7654321.0) for w in q.waiting] for q in queues
    }
    text = queue_list_text(queues, BIG_ID + 3, windows)
    assert len(text) <= 2000 and text.endswith("\n…")
    assert f"<@{BIG_ID}> -123457: -7777778 to 7530864" in text
    short = queue_list_text(queues[:1], BIG_ID + 3, {})
    assert "windows" not in short and not short.endswith("…")


@pytest.mark.parametrize("state", ["ready", "picking", "playing", "reported", "cancelled"])
def test_a_32_player_lobby_fits_in_every_state(state: LobbyState) -> None:
    players = [LobbyPlayer(BIG_ID + n, n, 1500.0 + 7 * n, ready=n % 2 == 0) for n in range(32)]
    if state == "picking":
        players = with_captains(players, 4)
    elif state != "ready":
        players = balanced(players, 4)
    shown = lobby(state, players=players)
    check(lobby_content(shown), lobby_embed(shown, BRIDGE), lobby_view(shown, BRIDGE, NAMES))
    ffa = lobby(state, "ffa", [replace(p, team=p.position) for p in players])
    check(lobby_content(ffa), lobby_embed(ffa, BRIDGE), lobby_view(ffa, BRIDGE, NAMES))


def test_picking_menus_hold_every_player_left() -> None:
    players = with_captains([LobbyPlayer(BIG_ID + n, n, 1500.0 + n) for n in range(32)], 2)
    view = lobby_view(lobby("picking", players=players), BRIDGE, NAMES)
    assert view is not None
    offered = [o["value"] for row in view.to_components() for o in row["components"][0]["options"]]
    assert len(offered) == 30 and len(set(offered)) == 30
    players = pick(players, 2, "abba", None)
    shown = lobby("picking", players=players)
    embed = lobby_embed(shown, BRIDGE)
    assert [f["name"] for f in embed.to_dict()["fields"]][-1] == "Still to pick"


@pytest.mark.parametrize("pick", ["vote", "ban"])
def test_a_lobby_choosing_its_map_fits(pick: MapPick) -> None:
    """The ban menu of 25 maps of 32 characters, a vote of 3 such maps, and afterwards the
    map with its tally or its 24 bans."""
    maps = tuple(f"{'m' * 30}{n:02d}" for n in range(25 if pick == "ban" else 3))
    players = [
        LobbyPlayer(BIG_ID + n, n, 1500.0 + 7 * n, vote=maps[n % len(maps)]) for n in range(32)
    ]
    shown = replace(
        lobby("playing", players=balanced(players, 4)), teams=4, map=None, map_pick=pick,
        map_candidates=maps, map_deadline=NOW + 30,
    )  # fmt: skip
    if pick == "ban":
        shown = replace(shown, teams=2, players=tuple(balanced(players, 2)))
    check(lobby_content(shown), lobby_embed(shown, BRIDGE), lobby_view(shown, BRIDGE, NAMES))
    done = replace(shown, map=maps[0], map_deadline=None, map_banned=maps[1:])
    check(lobby_content(done), lobby_embed(done, BRIDGE), lobby_view(done, BRIDGE, NAMES))
    assert "Map: " in (lobby_embed(done, BRIDGE).description or "")
