"""Command texts and replies in every shipped language (SPEC 13) keep Discord's rules (SPEC
4.1, 7): every localised name is lowercase, 1-32 characters of letters, digits, - and _, unique
among its siblings; descriptions and choice names 1-100 characters; a command's texts, each
counted at its longest localisation, at most 8,000 characters. The replies the languages
reach fit Discord's limits at SPEC 7's largest inputs in the longest language."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.app.bot import LadderBot
from bot.app.buttons import match_view
from bot.app.embeds import (
    evaluation_embed,
    leaderboard_embed,
    match_embed,
    match_stored,
    rating_embed,
)
from bot.app.queue_views import lobby_content, lobby_embed, lobby_view, queue_embed, queue_view
from bot.config import Config
from bot.present.language import SHIPPED, SOURCE, Words, refusal_text, words
from bot.ratings.ladder import MINUTES_RULE, SCORE_RULE
from bot.services import Services, UserError, parse_lineup
from bot.services.card import CardStats, FormEntry, RatingPoint
from bot.services.context import not_found
from bot.services.matches import RULE_WORDS, check_lineup
from bot.services.standings import LeaderboardPage, LeaderboardRow, RatingCard
from bot.storage.models import Member
from tests.app.discord_rules import JsonDict
from tests.app.test_embeds import LAYOUTS, STATUSES, worst_match
from tests.app.test_evaluation_embed import LOSSES, found
from tests.app.test_queue_views import BIG_ID, BRIDGE, NAMES, NOW, check, lobby, queue

TRANSLATED = [language for language in SHIPPED if language != SOURCE]
COMMAND_TOTAL = 8000
MAX_ID = 2**53 - 1


def _name_problem(name: str) -> str | None:
    """SPEC 4.1: ^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$, lowercase."""
    if not 1 <= len(name) <= 32:
        return f"{name!r}: {len(name)} characters"
    for char in name:
        category = unicodedata.category(char)
        if char not in "-_" and category[0] not in "LN":
            return f"{name!r}: {char!r} is not a letter, digit, - or _"
    if name != name.lower():
        return f"{name!r} is not lowercase"
    return None


def _localised(field: str, node: Mapping[str, Any]) -> dict[str, str]:
    """The default text and each localisation of a field, by locale ('' the default)."""
    return {"": node[field], **(node.get(f"{field}_localizations") or {})}


def _problems(node: Mapping[str, Any], where: str) -> Iterator[str]:
    """Every rule a command (or option) and what it holds breaks, with where."""
    for locale, name in _localised("name", node).items():
        problem = _name_problem(name)
        if problem:
            yield f"{where} [{locale}]: {problem}"
    if "description" in node:
        for locale, text in _localised("description", node).items():
            if not 1 <= len(text) <= 100:
                yield f"{where} [{locale}]: description of {len(text)} characters"
    for choice in node.get("choices") or ():
        for locale, text in _localised("name", choice).items():
            if not 1 <= len(text) <= 100:
                yield f"{where} choice [{locale}]: {len(text)} characters"
    options: Sequence[Mapping[str, Any]] = node.get("options") or ()
    locales = {locale for option in options for locale in _localised("name", option)}
    for locale in locales:
        shown = [_localised("name", o).get(locale, o["name"]) for o in options]
        if len(set(shown)) != len(shown):
            yield f"{where} [{locale}]: two options named alike in {shown}"
    for option in options:
        yield from _problems(option, f"{where} {option['name']}")


def _longest_total(node: Mapping[str, Any]) -> int:
    """The characters Discord counts for a command: each name, description and choice at
    its longest localisation (the default included)."""
    total = max(len(text) for text in _localised("name", node).values())
    if "description" in node:
        total += max(len(text) for text in _localised("description", node).values())
    for choice in node.get("choices") or ():
        total += max(len(text) for text in _localised("name", choice).values())
        total += len(str(choice["value"]))
    return total + sum(_longest_total(option) for option in node.get("options") or ())


def _translated_commands(tmp_path: Path) -> list[JsonDict]:
    """The registration the bot sends (LadderBot.load_commands, through its translator)."""

    async def build() -> list[JsonDict]:
        services = await Services.open(str(tmp_path / "languages.sqlite3"), Config())
        bot = LadderBot(Config(), services)
        try:
            await bot.load_commands()
            translator = bot.tree.translator
            assert translator is not None
            return [
                await command.get_translated_payload(bot.tree, translator)
                for command in bot.tree.get_commands()
            ]
        finally:
            await bot.close()
            await services.close()

    return asyncio.run(build())


def test_every_localised_command_registration_keeps_discords_rules(tmp_path: Path) -> None:
    commands = _translated_commands(tmp_path)
    problems = [problem for command in commands for problem in _problems(command, command["name"])]
    assert not problems, "\n".join(problems)
    assert all(_longest_total(command) <= COMMAND_TOTAL for command in commands)
    # every shipped language is there, on every command (not only some)
    for command in commands:
        assert set(command["description_localizations"]) >= {
            str(locale) for locale in discord.Locale if locale.value in TRANSLATED
        }, command["name"]
    admin = next(command for command in commands if command["name"] == "admin")
    assert admin["name_localizations"]["ru"] == "админ"
    leaderboard = next(command for command in commands if command["name"] == "leaderboard")
    assert leaderboard["name_localizations"]["de"] == "bestenliste"
    assert leaderboard["name_localizations"]["es-419"] == "clasificación"  # Spanish too


def _card() -> RatingCard:
    """A card at the bounds: a 32-character name, ratings of a million, a long history."""
    member = Member(1, BIG_ID, "W" * 32, False, False, -999_999.9, 10**6, 10**6 - 2, 1, 1)
    form = tuple(
        FormEntry(MAX_ID - n, NOW - n, "32nd/32", -999_999.9, 999_999.9) for n in range(10)
    )
    history = tuple(RatingPoint(NOW - n, -999_999.9, MAX_ID - n) for n in range(3))
    stats = CardStats(10**6, 500.0, 999_999.9, "L999999", 0.0, form, history)
    return RatingCard(
        member, -999_999.9, None, 10**6, 10**6 - 2, 1, 1, "p8", float("inf"), float("nan"),
        float("nan"), float("nan"), True, True, stats,
    )  # fmt: skip


def _board(said: Words) -> discord.Embed:
    rows = tuple(
        LeaderboardRow(BIG_ID - n, BIG_ID + n, "W" * 32, -999_999.9, -999_999.9, 10**6,
                       10**6, 10**6, 10**6, True)
        for n in range(25)
    )  # fmt: skip
    page = LeaderboardPage("p8", 10**6, 10**6 + 1, 10**9, rows, season="S" * 32)
    return leaderboard_embed(
        page, "Live leaderboard", BIG_ID, "https://x.example/" + "p" * 200, said
    )


@pytest.mark.parametrize("language", SHIPPED)
def test_every_reply_fits_discords_limits_in_every_language(language: str) -> None:
    said = words(language)
    refusal = refusal_text(not_found(MAX_ID), said)
    assert said.language == SOURCE or refusal != str(not_found(MAX_ID))
    check(refusal, _board(said), None)
    check(None, rating_embed(_card(), "rating.png", "https://x.example/" + "p" * 200, said), None)
    for layout in LAYOUTS.values():
        for status in STATUSES:
            match = worst_match(layout, status)
            shown = match_embed(match, "https://x.example/" + "p" * 200, said)
            check(match_stored(match, said), shown, match_view(match, said))
            assert len(shown.fields) >= min(len(set(layout)), 2)
    for state in ("ready", "picking", "playing", "reported", "cancelled", "dissolved"):
        for format in ("teams", "ffa"):
            shown_lobby = lobby(state, format)
            check(
                lobby_content(shown_lobby, said),
                lobby_embed(shown_lobby, BRIDGE, said),
                lobby_view(shown_lobby, BRIDGE, NAMES, said),
            )
    for waiting in (0, 32):
        shown_queue = queue(waiting=waiting)
        check(None, queue_embed(shown_queue, said=said), queue_view(shown_queue, said))
        check(None, queue_embed(shown_queue, deleted=True, said=said), None)
    check(None, evaluation_embed(found(LOSSES, tuned=True), said), None)  # at its largest


def test_a_refusal_inside_a_refusal_and_its_phrases_are_translated() -> None:
    """A lineup entry's refusal names its part (score) and the entry format, each in the
    member's language; the command line's English (str) is unchanged."""
    with pytest.raises(UserError) as refused:
        parse_lineup("<@1> 12x 20")
    assert str(refused.value) == (
        "lineup entry '<@1> 12x 20': the score '12x' is not a number; "
        'write each entry as "<player> <score> [<minutes>]"'
    )
    assert refusal_text(refused.value, words("de")) == (
        "Eintrag '<@1> 12x 20': Punkte '12x' ist keine Zahl; "
        'schreib jeden Eintrag als "<Spieler> <Punkte> [<Minuten>]"'
    )
    with pytest.raises(UserError) as nested:
        parse_lineup("@ann 1")
    assert refusal_text(nested.value, words("ru")).startswith("запись '@ann 1': '@ann' — не игрок")


def test_the_score_and_minutes_rules_are_the_catalogs_phrases() -> None:
    """bot.ratings marks no message: the refusals give its rules as phrases, which the
    catalogs hold under the same text (RULE_WORDS), so a changed rule fails here."""
    assert (SCORE_RULE, MINUTES_RULE) == RULE_WORDS
    with pytest.raises(UserError) as refused:
        check_lineup(parse_lineup("<@1> 2e9, <@2> 0"), None)
    assert refusal_text(refused.value, words("fr")) == (
        "<@1> : le score 2000000000.0 doit être un nombre fini de 0 à 1e9"
    )
