"""Seasons (SPEC 9.1): starting one and listing them (bot.services.season_rules holds what a
replay and a start share).
"""

from __future__ import annotations

from bot.services import season_rules
from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.core import Actor, log_end_stamp, must_moderate
from bot.services.errors import N_, Notice, quoted
from bot.storage import Season


@use_cases()
class Seasons:
    """Starting a season and listing the guild's seasons."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def start(self, guild_id: int, actor: Actor, name: str, carry: float = 0.0) -> Season:
        """Close the current season (its closing standings are stored) and start `name` at
        the end of the log: ratings carry over, records restart at 0."""
        must_moderate(actor, N_("start a season"))
        kept = season_rules.season_carry(carry)
        async with self.context.write(guild_id) as unit:
            tx = unit.tx
            settings = await tx.ensure_guild(guild_id, self.context.defaults)
            taken = await tx.seasons(guild_id)
            chosen = season_rules.new_season_name(name, taken)
            newest = await tx.newest_log_key(guild_id)
            now = self.context.clock()
            starts_at = log_end_stamp(newest, now)
            season = await tx.add_season(guild_id, chosen, kept, starts_at, now, actor.user_id)
            closing = {
                member.user_id: member.rating
                for member in await tx.members(guild_id)
                if member.rating is not None
            }
            await tx.store_closing(season, taken[-1] if taken else None, closing)
            await tx.set_ratings(
                guild_id, season_rules.carried(closing, kept, settings.initial_rating)
            )
            await tx.restart_records(guild_id)
            unit.change = Change(
                guild_id,
                "season_started",
                everyone=True,
                actor_id=actor.user_id,
                detail=Notice(
                    N_("season {name} started (carry {carry})"),
                    name=quoted(chosen),
                    carry=f"{kept:g}",
                ).stored(),
            )
        return season

    async def season_list(self, guild_id: int) -> list[season_rules.SeasonSummary]:
        """Every season, oldest first; the last is the current one."""
        async with self.context.db.snapshot() as read:
            listed, sizes = await read.seasons(guild_id), await read.standings_sizes(guild_id)
        return season_rules.summaries(listed, sizes)
