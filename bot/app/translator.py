"""Command texts in every shipped language (SPEC 13): discord.py asks this translator for
each command, group, option and choice name and description when it builds the tree it
syncs, and sends what it answers as `name_localizations` / `description_localizations`."""

from __future__ import annotations

from typing import Final

import discord
from discord import app_commands

from bot.present.language import SOURCE, shipped, words

NAME_CONTEXT: Final = "command name"
"""The catalogs' context of command, group and option names: lowercase, no spaces, at most
32 characters (SPEC 4.1), unlike the same word in a sentence."""
NAMES: Final = frozenset(
    {
        app_commands.TranslationContextLocation.command_name,
        app_commands.TranslationContextLocation.group_name,
        app_commands.TranslationContextLocation.parameter_name,
    }
)


def command_text(message: str, language: str, is_name: bool) -> str:
    """A command text in a shipped language (the source text where the catalog has none)."""
    found = words(language)
    return found.pgettext(NAME_CONTEXT, message) if is_name else found.gettext(message)


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = shipped(locale.value)
        if language == SOURCE:
            return None  # English clients, and languages not shipped, see the source
        return command_text(string.message, language, context.location in NAMES)
