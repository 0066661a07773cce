"""The catalogs (SPEC 13): every message of the code and of the command tree is in the
template and translated in every shipped language, none empty or fuzzy, each translation with
exactly the source's placeholders and as many plural forms as its language has."""

from __future__ import annotations

import string
from collections.abc import Iterable

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from bot.app.catalogs import TEMPLATE, template
from bot.present.language import DOMAIN, SHIPPED, SOURCE, babel_code, catalog_path, words

TRANSLATED = [language for language in SHIPPED if language != SOURCE]


@pytest.fixture(scope="module")
def source() -> Catalog:
    return template()


def _read(path: str) -> Catalog:
    with open(path, "rb") as po:
        return read_po(po, domain=DOMAIN)


def _key(message: Message) -> tuple[str | None, str]:
    ids = message.id
    return message.context, ids if isinstance(ids, str) else ids[0]


def _fields(texts: Iterable[str]) -> set[str]:
    return {name for text in texts for _, name, _, _ in string.Formatter().parse(text) if name}


def test_the_template_holds_every_message_of_the_code(source: Catalog) -> None:
    """A message added to the code without `python -m bot.app.catalogs extract` fails here."""
    shipped = {_key(m) for m in _read(str(TEMPLATE)) if m.id}
    current = {_key(m) for m in source if m.id}
    assert not current - shipped, f"run python -m bot.app.catalogs extract: {current - shipped}"
    assert not shipped - current, f"run python -m bot.app.catalogs extract: {shipped - current}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_with_the_sources_placeholders(
    language: str, source: Catalog
) -> None:
    catalog = _read(str(catalog_path(language)))
    assert str(catalog.locale) == babel_code(language)
    problems = []
    for message in source:
        if not message.id:
            continue
        found = catalog.get(message.id, context=message.context)
        if found is None:
            problems.append(f"missing: {message.id!r}")
            continue
        forms = [found.string] if isinstance(found.string, str) else list(found.string or ())
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        if found.fuzzy or not all(forms):
            problems.append(f"untranslated or fuzzy: {message.id!r}")
        if not isinstance(message.id, str) and len(forms) != catalog.num_plurals:
            problems.append(f"{len(forms)} plural forms, {language} has {catalog.num_plurals}")
        for form in forms:
            if _fields([form]) != _fields(ids):
                problems.append(f"placeholders differ: {message.id!r} -> {form!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("language", "counts"),
    [
        ("de", {1: "1 Spieler", 2: "2 Spieler"}),
        ("fr", {0: "0 joueur", 1: "1 joueur", 2: "2 joueurs", 1_000_000: "1 000 000 de joueurs"}),
        (
            "ru",
            {1: "1 игрок", 3: "3 игрока", 5: "5 игроков", 21: "21 игрок", 1000: "1 000 игроков"},
        ),
        ("pt-BR", {1: "1 jogador", 2: "2 jogadores", 2000: "2.000 jogadores"}),
        ("es-ES", {1: "1 jugador", 7: "7 jugadores"}),
    ],
)
def test_counts_take_the_plural_form_and_digits_of_the_language(
    language: str, counts: dict[int, str]
) -> None:
    said = words(language)
    for count, expected in counts.items():
        shown = said.ngettext("{count} player", "{count} players", count)
        assert shown.replace("\u202f", " ").replace("\xa0", " ") == expected


def test_unshipped_locales_fall_back_to_their_language_or_english() -> None:
    assert words("es-419").language == "es-ES"
    assert words("en-GB").language == "en-US"
    assert words("it").language == "en-US"
    assert words(None).gettext("Leaderboard") == "Leaderboard"
