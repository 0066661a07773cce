"""`ladderbot queue list --guild ID [--json]` (SPEC 10.4): the queues with their waiting
members, and the open lobbies."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from bot.cli.common import on_the_database, print_json, print_lines, with_services
from bot.cli.parsing import Parser
from bot.services import Services
from bot.services.errors import wait_text
from bot.services.matchcsv.format import format_time
from bot.services.queues import Queue
from bot.services.shapes import lobby_object


async def queue_view(services: Services, guild_id: int) -> dict[str, Any]:
    """The queues and open lobbies as plain data (the --json output)."""
    board = await services.queues.board(guild_id)
    return {
        "queues": [_queue(queue, board.names, board.read_at) for queue in board.queues],
        "lobbies": [lobby_object(lobby, board.names) for lobby in board.lobbies],
    }


def _queue(queue: Queue, names: Mapping[int, str], now: float) -> dict[str, Any]:
    spec = queue.settings
    return {
        "id": queue.queue_id,
        "name": spec.name,
        "channel_id": spec.channel_id,
        "message_id": queue.message_id,
        "size": spec.size,
        "format": spec.format,
        "teams": spec.teams,
        "mode": spec.mode,
        "ready_seconds": spec.ready_seconds,
        "expire_minutes": spec.expire_minutes,
        "maps": list(spec.maps),
        "pick_order": spec.pick_order,
        "range": spec.rating_range,
        "widen": spec.widen,
        "party_max": spec.party_max,
        "map_pick": spec.map_pick,
        "waiting": [
            {
                "place": place,
                "user_id": w.user_id,
                "name": names.get(w.user_id, str(w.user_id)),
                "joined_at": format_time(w.joined_at),
                "waited_seconds": round(max(0.0, now - w.joined_at), 1),
            }
            for place, w in enumerate(queue.waiting, 1)
        ],
    }


def queue_lines(view: dict[str, Any]) -> list[str]:
    """The view as text, a line per queue, waiting member, lobby."""
    lines: list[str] = []
    for q in view["queues"]:
        maps = f", maps {', '.join(q['maps'])}" if q["maps"] else ""
        kind = "ffa" if q["format"] == "ffa" else f"{q['teams']} teams, {q['mode']}"
        lines.append(
            f"queue {q['id']} {q['name']}: {len(q['waiting'])}/{q['size']} waiting "
            f"({kind}, ready {q['ready_seconds']} s, expire {q['expire_minutes']} min{maps})"
        )
        lines += [
            f"  {w['place']}. {w['name']} ({w['user_id']}) waited {wait_text(w['waited_seconds'])}"
            for w in q["waiting"]
        ]
    if not view["queues"]:
        lines.append("no queues")
    for lobby in view["lobbies"]:
        players = ", ".join(
            f"{p['name']}{'' if p['team'] is None else ' ' + p['team']}"
            f"{' (ready)' if lobby['state'] == 'ready' and p['ready'] else ''}"
            for p in lobby["players"]
        )
        where = f", map {lobby['map']}" if lobby["map"] else ""
        lines.append(
            f"lobby #{lobby['id']} of {lobby['queue']}: {lobby['state']}{where}: {players}"
        )
    if not view["lobbies"]:
        lines.append("no open lobbies")
    return lines


def run_queue_list(arguments: argparse.Namespace, streams: Any) -> int:
    view = with_services(arguments, lambda services: queue_view(services, arguments.guild))
    if arguments.json:
        return print_json(view, streams)
    return print_lines(queue_lines(view), streams)


def define_queue_list(command: Parser) -> None:
    on_the_database(command, run_queue_list)
    command.add_argument("--json", action="store_true", help="one JSON object")
