"""Community use cases (SPEC 9.2, 9.4): rank roles and the mod log channel.

Who should hold which rank role comes from the members' stored ratings and the guild's
thresholds (bot.ratings.ranks); which role a member holds now is Discord's to say, so the
front end passes it in (member.roles) and gets back the role calls that fix the difference.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np

from bot.ratings.ranks import rank_ladder, sync_roles
from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.core import Actor, must_moderate
from bot.services.errors import N_, UserError

MIN_RATING_LIMIT: Final = 1e6
"""|min_rating| <= 1e6, the bound of initial_rating (SPEC 7): any rating a member can have."""


@dataclass(frozen=True, slots=True)
class RoleCall:
    """One Discord call: give (add) or take away a rank role."""

    user_id: int
    role_id: int
    add: bool


def _check_min_rating(min_rating: float) -> float:
    if isinstance(min_rating, bool) or not isinstance(min_rating, int | float):
        raise UserError(N_("min_rating {value} must be a number"), value=repr(min_rating))
    if not math.isfinite(min_rating) or abs(min_rating) > MIN_RATING_LIMIT:
        raise UserError(
            N_("min_rating {value} must be a finite number from -1e6 to 1e6"),
            value=repr(min_rating),
        )
    return float(min_rating)


@use_cases()
class Community:
    """Rank roles and the mod log channel."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def rank_roles(self, guild_id: int) -> dict[int, float]:
        """role id -> min_rating, lowest first."""
        return await self.context.db.read.rank_roles(guild_id)

    async def add_rank_role(
        self, guild_id: int, actor: Actor, role_id: int, min_rating: float
    ) -> dict[int, float]:
        """Make `role_id` a rank role from `min_rating` (or move its threshold)."""
        must_moderate(actor, N_("manage rank roles"))
        threshold = _check_min_rating(min_rating)
        async with self.context.write(guild_id) as unit:
            await unit.tx.ensure_guild(guild_id, self.context.defaults)
            roles = {**await unit.tx.rank_roles(guild_id), role_id: threshold}
            holder = next((r for r, at in roles.items() if at == threshold and r != role_id), None)
            if holder is not None:
                raise UserError(
                    N_(
                        "min_rating {value} of role {role} is already the threshold of role "
                        "{holder}; give each rank role its own min_rating"
                    ),
                    value=repr(threshold),
                    role=role_id,
                    holder=holder,
                )
            await unit.tx.set_rank_role(guild_id, role_id, threshold)
            unit.change = Change(guild_id, "rank_roles", everyone=True, actor_id=actor.user_id)
        return dict(sorted(roles.items(), key=lambda item: item[1]))

    async def sync_rank_roles(self, guild_id: int, actor: Actor) -> None:
        """Have every member's rank role checked (SPEC 9.2 `sync`): a change with nothing
        stored, so that the process owning the guild does it, whoever asked."""
        must_moderate(actor, N_("sync rank roles"))
        async with self.context.write(guild_id) as unit:
            if not await unit.tx.rank_roles(guild_id):
                raise UserError(N_("there are no rank roles yet; add one with /admin rank add"))
            unit.change = Change(guild_id, "rank_roles", everyone=True, actor_id=actor.user_id)

    async def remove_rank_role(self, guild_id: int, actor: Actor, role_id: int) -> None:
        must_moderate(actor, N_("manage rank roles"))
        async with self.context.write(guild_id) as unit:
            if role_id not in await unit.tx.rank_roles(guild_id):
                raise UserError(
                    N_("role {role} is not a rank role; see /admin rank list"), role=role_id
                )
            await unit.tx.remove_rank_role(guild_id, role_id)

    async def guilds_with_rank_roles(self) -> list[int]:
        return await self.context.db.read.guilds_with_rank_roles()

    async def role_calls(
        self,
        guild_id: int,
        held: Mapping[int, Iterable[int]],
        only: Collection[int] | None = None,
    ) -> list[RoleCall]:
        """The calls that give each member of `held` (user id -> every role they hold in
        Discord) the one rank role SPEC 9.2 says (hysteresis by the held role); `only`
        limits it to those members (the ones a change touched). Members the ladder does not
        know hold no rank role."""
        async with self.context.db.snapshot() as read:
            thresholds = await read.rank_roles(guild_id)
            if not thresholds:
                return []
            settings = await self.context.settings(guild_id)
            user_ids = [user_id for user_id in held if only is None or user_id in only]
            known = {m.user_id: m for m in await read.members_by_id(guild_id, user_ids)}
        ladder = rank_ladder(thresholds, settings.rank_margin)
        ratings = np.full(len(user_ids), np.nan)
        eligible = np.zeros(len(user_ids), dtype=np.bool_)
        held_member: list[int] = []
        held_role: list[int] = []
        for index, user_id in enumerate(user_ids):
            member = known.get(user_id)
            if member is not None and member.rating is not None:
                ratings[index] = member.rating
                eligible[index] = (
                    member.enabled and not member.is_bot and member.games >= settings.min_games
                )
            for role_id in held[user_id]:
                if role_id in thresholds:
                    held_member.append(index)
                    held_role.append(role_id)
        changes = sync_roles(ladder, ratings, eligible, held_member, held_role)
        removals = [
            RoleCall(user_ids[member], int(role), add=False)
            for member, role in zip(changes.remove_member, changes.remove_role, strict=True)
        ]
        additions = [
            RoleCall(user_ids[member], int(role), add=True)
            for member, role in zip(changes.add_member, changes.add_role, strict=True)
        ]
        return removals + additions

    async def modlog_channel(self, guild_id: int) -> int | None:
        return await self.context.db.read.modlog_channel(guild_id)

    async def set_modlog_channel(self, guild_id: int, actor: Actor, channel_id: int | None) -> None:
        must_moderate(actor, N_("set the mod log channel"))
        async with self.context.write(guild_id) as unit:
            await unit.tx.ensure_guild(guild_id, self.context.defaults)
            await unit.tx.set_modlog_channel(guild_id, channel_id)
