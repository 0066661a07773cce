"""Rank roles by ladder rating (SPEC 9.2): which one role a member should hold.

An eligible member (rated, at least min_games matches) holds the role with the highest
min_rating not above their rating. Hysteresis: a held role is kept until the rating falls
below its min_rating - rank_margin, so a rating hovering at a threshold does not flip the
role every match; qualifying for a higher role moves the member up at once. Ineligible
members hold none. One scalar rule (rank_role) and its vectorised form for a whole guild
(sync_roles), which share the thresholds of a RankLadder so both compare the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
from numpy.typing import ArrayLike

from bot.ratings.arrays import FloatArray, IntArray

NO_ROLE: Final = -1
"""Rank index of "no rank role" (below the lowest threshold, or not eligible)."""


@dataclass(frozen=True, slots=True)
class RankLadder:
    """The guild's rank roles, lowest min_rating first, and the rank_margin."""

    role_ids: IntArray
    min_ratings: FloatArray
    keep_above: FloatArray  # min_rating - margin: a held role is kept at or above this
    margin: float

    def index_of(self, role_id: int) -> int:
        """Position of a rank role (ValueError naming it if it is not one)."""
        found = np.flatnonzero(self.role_ids == role_id)
        if not found.size:
            raise ValueError(f"role {role_id!r} is not a rank role")
        return int(found[0])


def rank_ladder(thresholds: Mapping[int, float], margin: float) -> RankLadder:
    """Check role id -> min_rating and the margin; ValueError names what is wrong.

    Two roles with the same min_rating are refused: "the highest min_rating not above the
    rating" would not name one role.
    """
    if isinstance(margin, bool) or not isinstance(margin, int | float):
        raise ValueError(f"rank_margin {margin!r} must be a number")
    if not math.isfinite(margin) or margin < 0:
        raise ValueError(f"rank_margin {margin!r} must be a finite number >= 0")
    owner: dict[float, int] = {}
    for role_id, min_rating in thresholds.items():
        if isinstance(role_id, bool) or not isinstance(role_id, int) or role_id < 0:
            raise ValueError(f"role id {role_id!r} must be an integer >= 0")
        if isinstance(min_rating, bool) or not isinstance(min_rating, int | float):
            raise ValueError(f"min_rating {min_rating!r} of role {role_id} must be a number")
        if not math.isfinite(min_rating):
            raise ValueError(f"min_rating {min_rating!r} of role {role_id} must be finite")
        if float(min_rating) in owner:
            raise ValueError(
                f"min_rating {min_rating!r} of role {role_id} is already the threshold of "
                f"role {owner[float(min_rating)]}; give each rank role its own min_rating"
            )
        owner[float(min_rating)] = role_id
    order = sorted(owner)
    min_ratings = np.array(order, dtype=np.float64)
    return RankLadder(
        np.array([owner[value] for value in order], dtype=np.int64),
        min_ratings,
        min_ratings - float(margin),
        float(margin),
    )


def rank_role(
    ladder: RankLadder, rating: float | None, eligible: bool, held: int | None
) -> int | None:
    """The one rank role (id) a member should hold, or None.

    rating: their ladder rating (None: unrated); eligible: rated with at least min_games
    matches; held: the rank role they hold now (None if none).
    """
    held_index = NO_ROLE if held is None else ladder.index_of(held)
    if not eligible:
        return None
    if rating is None or not math.isfinite(rating):
        raise ValueError(f"rating {rating!r} of an eligible member must be a finite number")
    reached = int(np.searchsorted(ladder.min_ratings, rating, side="right")) - 1
    keep = held_index > reached and rating >= ladder.keep_above[held_index]
    chosen = held_index if keep else reached
    return None if chosen == NO_ROLE else int(ladder.role_ids[chosen])


@dataclass(frozen=True, slots=True)
class RoleChanges:
    """The role sync of a guild: per member the role to hold, and the calls that get there."""

    target: IntArray  # per member: the role id to hold, NO_ROLE for none
    remove_member: IntArray  # member index and role id of every rank role to take away
    remove_role: IntArray
    add_member: IntArray  # member index and role id of every rank role to give
    add_role: IntArray


def _indices(values: ArrayLike, name: str) -> IntArray:
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a flat array")
    if array.size and not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, not {array.dtype}")
    return array.astype(np.int64)


def sync_roles(
    ladder: RankLadder,
    ratings: ArrayLike,
    eligible: ArrayLike,
    held_member: ArrayLike,
    held_role: ArrayLike,
) -> RoleChanges:
    """rank_role for every member of a guild at once (after a season start, a replay or
    `/admin rank sync`).

    ratings and eligible: one entry per member (index 0..n-1; ratings of ineligible members
    are ignored, NaN is fine). held_member/held_role: every rank role a member holds now, one
    pair per role held; a member holding several (drift) is judged by the highest and loses
    the others.
    """
    rating = np.asarray(ratings, dtype=np.float64)
    allowed = np.asarray(eligible)
    if rating.ndim != 1 or allowed.shape != rating.shape or allowed.dtype != np.bool_:
        raise ValueError("ratings and eligible must be flat arrays, one entry per member")
    members = _indices(held_member, "held_member")
    roles = _indices(held_role, "held_role")
    if members.shape != roles.shape:
        raise ValueError("held_member and held_role must have one entry per held role")
    outside = np.flatnonzero((members < 0) | (members >= len(rating)))
    if outside.size:
        raise ValueError(f"held_member {members[outside[0]].item()!r} is not a member index")
    unrated = np.flatnonzero(allowed & ~np.isfinite(rating))
    if unrated.size:
        raise ValueError(
            f"rating {rating[unrated[0]].item()!r} of eligible member {unrated[0]} must be finite"
        )
    by_role = np.argsort(ladder.role_ids)
    position = np.searchsorted(ladder.role_ids[by_role], roles).clip(0, len(by_role) - 1)
    known = ladder.role_ids[by_role][position] == roles if len(by_role) else roles != roles
    if not known.all():
        raise ValueError(f"held_role {roles[~known][0].item()!r} is not a rank role")
    if not len(by_role):  # no rank roles (so none held): nothing to give
        nothing = np.zeros(0, dtype=np.int64)
        return RoleChanges(np.full(len(rating), NO_ROLE), nothing, nothing, nothing, nothing)
    held_index = by_role[position]
    highest = np.full(len(rating), NO_ROLE, dtype=np.int64)
    np.maximum.at(highest, members, held_index)
    safe_rating = np.where(allowed, rating, -np.inf)
    reached = np.searchsorted(ladder.min_ratings, safe_rating, side="right") - 1
    keep = (highest > reached) & (safe_rating >= ladder.keep_above[highest.clip(0)])
    chosen = np.where(allowed, np.where(keep, highest, reached), NO_ROLE)
    target = np.where(chosen == NO_ROLE, NO_ROLE, ladder.role_ids[chosen.clip(0)])
    wrong = target[members] != roles
    held_target = np.zeros(len(rating), dtype=np.bool_)
    held_target[members[~wrong]] = True
    adding = np.flatnonzero((target != NO_ROLE) & ~held_target)
    return RoleChanges(target, members[wrong], roles[wrong], adding, target[adding])
