"""Option types shared by the cogs: bounds declared to Discord and checked again on arrival."""

from __future__ import annotations

from typing import Any, Final

import discord
from discord import app_commands

from bot.present.language import N_
from bot.services import UserError
from bot.services.errors import Phrase

MAX_OPTION_ID: Final = 2**53 - 1
"""The largest id an `id:<int>` option takes (SPEC 7): Discord's integers end there, and it
refuses a whole command registration that declares a bound beyond it."""


class IdOption(app_commands.Transformer):
    """A match or lobby number, 1 ≤ id ≤ 2^53 - 1. Declared as the option's bounds, so Discord
    refuses others; one that arrives anyway (from a client that ignores them) is refused here
    with the bounds named, before any query."""

    def __init__(self, noun: str) -> None:
        self.noun = noun
        """What the id numbers (N_-marked: the refusal translates it)."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return MAX_OPTION_ID

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> int:
        if not isinstance(value, int) or not 1 <= value <= MAX_OPTION_ID:
            raise UserError(
                N_("{noun} id {value} must be from 1 to 2^53 - 1 ({most})"),
                noun=Phrase(self.noun),
                value=value,
                most=MAX_OPTION_ID,
            )
        return value


MatchId = app_commands.Transform[int, IdOption(N_("match"))]
LobbyId = app_commands.Transform[int, IdOption(N_("lobby"))]


def choices(values: tuple[str, ...]) -> list[app_commands.Choice[str]]:
    """The choices of a string option that takes one of `values`, each named as itself."""
    return [app_commands.Choice(name=value, value=value) for value in values]
