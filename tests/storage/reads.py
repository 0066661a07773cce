"""Reads only the tests make (the bot has no use for them)."""

from __future__ import annotations

from bot.storage import Match, Queries


async def applied_matches(read: Queries, guild_id: int) -> list[Match]:
    """Every applied match of the guild, in log order ((applied_at, id))."""
    applied = [match for match in await read.all_matches(guild_id) if match.status == "applied"]
    return sorted(applied, key=lambda match: (match.applied_at or 0.0, match.id))
