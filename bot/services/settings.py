"""Settings (SPEC 7): reading and changing a guild's settings, and recomputing its ratings;
a change of a rating constant replays the guild's log (bot.services.replaying.replay_guild).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Final

from bot.config import (
    CONFIRM_MODES,
    GUILD_SETTING_RULES,
    LANGUAGE_SETTINGS,
    RATING_CONSTANTS,
    SETTING_BOUNDS,
    VARIANTS,
    GuildSettings,
    KeyedSettingError,
    readable,
)
from bot.services.changes import Change
from bot.services.context import ServiceContext, use_cases
from bot.services.core import Actor, must_moderate
from bot.services.errors import N_, UserError
from bot.services.replaying import Replayed, replay_guild
from bot.storage import WebStamp

SETTING_NAMES: Final = tuple(field.name for field in fields(GuildSettings))
LISTING_SETTINGS: Final = ("min_games", "provisional_games", "language")
"""Settings that change who is listed on leaderboards, or how (in which language), without
a replay: the live boards are redrawn."""


_BOUND_REFUSALS: Final = {
    (True, True): N_("setting {key}: must be a whole number from {low} to {high}, got {value}"),
    (True, False): N_("setting {key}: must be a whole number > {low} and <= {high}, got {value}"),
    (False, True): N_("setting {key}: must be a number from {low} to {high}, got {value}"),
    (False, False): N_("setting {key}: must be a number > {low} and <= {high}, got {value}"),
}
"""By (whole, low included): the refusal of a number setting outside its Bound."""
_CHOICES: Final = {"variant": VARIANTS, "confirm": CONFIRM_MODES}


def setting_refusal(key: str, changes: Mapping[str, object]) -> UserError:
    """The refusal of a guild setting bot.config's rules refused (KeyedSettingError), as a
    template the front ends translate; its English is bot.config's (a test checks each)."""
    value = changes.get(key)
    bound = SETTING_BOUNDS.get(key)
    if key not in GUILD_SETTING_RULES:
        return UserError(
            N_("setting {key}: is not a known key (known: {known})"),
            key=key,
            known=", ".join(GUILD_SETTING_RULES),
        )
    if bound is not None:
        return UserError(
            _BOUND_REFUSALS[bound.whole, bound.low_included],
            key=key,
            low=readable(bound.low),
            high=readable(bound.high),
            value=repr(value),
        )
    if key in _CHOICES:
        return UserError(
            N_("setting {key}: must be one of {choices}, got {value}"),
            key=key,
            choices=", ".join(_CHOICES[key]),
            value=repr(value),
        )
    if key == "language":
        return UserError(
            N_("setting {key}: must be one of {choices}, not {given}, got {value}"),
            key=key,
            choices=", ".join(LANGUAGE_SETTINGS),
            given=repr(str(value)[:40]),
            value=repr(value),
        )
    return UserError(
        N_("setting {key}: must be true or false, got {value}"), key=key, value=repr(value)
    )


@dataclass(frozen=True, slots=True)
class SettingsResult:
    settings: GuildSettings
    replayed: int | None
    """Matches replayed; None when no rating constant changed value (no replay)."""


@use_cases()
class Settings:
    """A guild's settings, and the replays that follow a change of its rating constants."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def current(self, guild_id: int) -> GuildSettings:
        """The guild's settings; the defaults until its first write."""
        return await self.context.settings(guild_id)

    async def change(
        self, guild_id: int, actor: Actor, changes: Mapping[str, object]
    ) -> SettingsResult:
        must_moderate(actor, N_("change the settings"))
        async with self.context.write(guild_id) as unit:
            current = await unit.tx.ensure_guild(guild_id, self.context.defaults)
            try:
                changed = current.changed(changes)
            except KeyedSettingError as error:
                raise setting_refusal(error.key, changes) from None
            await unit.tx.save_settings(guild_id, changed)
            differ = {
                name for name in SETTING_NAMES if getattr(current, name) != getattr(changed, name)
            }
            if "language" in differ:  # the queue and lobby messages speak the new one
                await unit.tx.touch_queue_messages(guild_id)
            replayed = None
            if differ.intersection(RATING_CONSTANTS):
                # The measures are computed in the changed units, even for members whose
                # ratings come out of the replay unchanged (and so are not rewritten).
                await unit.tx.forget_performances(guild_id)
                replayed = (await replay_guild(unit.tx, guild_id, changed, None)).matches
            unit.change = Change(
                guild_id,
                "settings",
                everyone=replayed is not None or bool(differ.intersection(LISTING_SETTINGS)),
                actor_id=actor.user_id,
                detail=", ".join(f"{name} = {getattr(changed, name)}" for name in sorted(differ)),
            )
        return SettingsResult(changed, replayed)

    async def stored(self, guild_id: int) -> GuildSettings | None:
        """The guild's settings as stored; None for a guild not stored yet."""
        return await self.context.db.read.guild_settings(guild_id)

    async def web_stamp(self, guild_id: int) -> WebStamp | None:
        """What the guild's web pages depend on (their ETags); None for a guild that is
        unknown or not shown on the web."""
        return await self.context.db.read.web_stamp(guild_id)

    async def learn_guild_name(self, guild_id: int, name: str) -> bool:
        """Store the guild's name as Discord shows it (its web pages show it), writing only
        when it differs; False for a guild not stored yet (nothing is written for it)."""
        stored, known = await self.context.db.read.guild_name(guild_id)
        if not stored:
            return False
        if known != name:
            async with self.context.write(guild_id) as unit:
                await unit.tx.set_guild_name(guild_id, name)
        return True

    async def recompute(self, guild_id: int, actor: Actor) -> Replayed:
        """Replay the whole guild from its log: the matches replayed and the members whose
        stored standing differed from the replay (none when the log and the store agree)."""
        must_moderate(actor, N_("recompute the ladder"))
        async with self.context.write(guild_id) as unit:
            settings = await unit.tx.ensure_guild(guild_id, self.context.defaults)
            replayed = await replay_guild(unit.tx, guild_id, settings, None)
            # A log replayed to exactly what is stored (SPEC 2.5) reports an empty change.
            unit.change = Change(
                guild_id,
                "replayed",
                replayed.changed,
                everyone=bool(replayed.changed),
                actor_id=actor.user_id,
            )
        return replayed
