"""A fast writer for the snapshot tests: `python -m tests.storage.fast_writer URL UNTIL`
reports matches into guild 1 one after another, as fast as the database takes them (duels and
three-player free-for-alls among MEMBERS members), until the Unix time UNTIL, and prints how
many it reported."""

from __future__ import annotations

import asyncio
import sys
import time

from bot.config import Config
from bot.services import Actor, Services, parse_lineup

GUILD = 1
MEMBERS = 10
WRITER = Actor(0, is_moderator=True)


def lineup_text(turn: int) -> str:
    """The turn's match: a duel, or every third turn a free-for-all of three."""
    a, b, c = (1 + (turn * step + offset) % MEMBERS for step, offset in ((1, 0), (3, 1), (7, 2)))
    if b == a:
        b = 1 + a % MEMBERS
    if turn % 3 == 2 and c not in (a, b):
        return f"<@{a}> {turn % 4}, <@{b}> {turn % 5}, <@{c}> 2"
    return f"<@{a}> {turn % 2} | <@{b}> {(turn + 1) % 3 // 2}"


async def write(url: str, until: float) -> int:
    services = await Services.open(url, Config())
    turn = 0
    try:
        while time.time() < until:
            await services.matches.report(
                GUILD,
                WRITER,
                parse_lineup(lineup_text(turn)),
                request_id=f"fast-writer-{turn}",
            )
            turn += 1
    finally:
        await services.close()
    return turn


if __name__ == "__main__":
    print(asyncio.run(write(sys.argv[1], float(sys.argv[2]))))
