"""The languages the bot speaks (SPEC 13): gettext catalogs, one `Words` per language.

The catalogs are the `.po` files under bot/present/locale/<language>/LC_MESSAGES/; they are
compiled in memory the first time a language is asked for, so a clean checkout, an editable
install and a wheel all work with no build step (`python -m bot.app.catalogs extract`
refreshes them from the code).

Messages are `str.format` templates with named placeholders (`{count}`, `{value}`): the
translation of a message keeps the source's placeholders, in any order, and a test checks it.
"""

from __future__ import annotations

import functools
import io
import math
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Final

from babel import Locale
from babel.dates import format_skeleton
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import (
    format_decimal,
    get_decimal_symbol,
    get_group_symbol,
    get_minus_sign_symbol,
)
from babel.support import NullTranslations, Translations

from bot.config import SHIPPED_LANGUAGES
from bot.services.errors import N_ as N_  # the one marker, shared with the services
from bot.services.errors import Counted, Duration, Notice, Phrase, UserError, wait_text

SOURCE: Final = "en-US"
"""The language the code is written in: its messages are the catalogs' ids."""
SHIPPED: Final = SHIPPED_LANGUAGES
AUTO: Final = "auto"
"""The guild setting `language` that follows the server's preferred locale (when shipped)."""
LOCALE_DIR: Final = Path(__file__).parent / "locale"
DOMAIN: Final = "ladderbot"


def catalog_path(language: str) -> Path:
    return LOCALE_DIR / babel_code(language) / "LC_MESSAGES" / f"{DOMAIN}.po"


def babel_code(language: str) -> str:
    """Discord's `pt-BR` is Babel's and gettext's `pt_BR`."""
    return language.replace("-", "_")


def shipped(locale: str | None) -> str:
    """The shipped language for a Discord locale: itself, the shipped one of the same
    language (`es-419` → `es-ES`, `en-GB` → `en-US`), else English (SPEC 13)."""
    if not locale:
        return SOURCE
    if locale in SHIPPED:
        return locale
    stem = locale.split("-")[0].lower()
    return next((code for code in SHIPPED if code.split("-")[0].lower() == stem), SOURCE)


def public_language(setting: str, guild_locale: str | None) -> str:
    """The language of what many see in a guild: its `language` setting, or with `auto` the
    server's preferred locale when shipped, else English."""
    return shipped(guild_locale) if setting == AUTO else shipped(setting)


@functools.cache
def _translations(language: str) -> NullTranslations:
    if language == SOURCE:
        return NullTranslations()
    with catalog_path(language).open("rb") as po:
        catalog = read_po(po, locale=babel_code(language), domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy messages are left out, as msgfmt does
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


class Words:
    """The words of one language: `gettext` / `ngettext` take the source template and its
    placeholders; numbers and times in the language's conventions."""

    def __init__(self, language: str) -> None:
        self.language = shipped(language)
        self.locale = Locale.parse(babel_code(self.language))
        self._catalog = _translations(self.language)
        self._symbols = str.maketrans(
            {
                ",": get_group_symbol(self.locale),
                ".": get_decimal_symbol(self.locale),
                "-": get_minus_sign_symbol(self.locale),
            }
        )

    def gettext(self, message: str, /, **params: object) -> str:
        text = self._catalog.gettext(message)
        return text.format(**params) if params else text

    def pgettext(self, context: str, message: str, /) -> str:
        """A message whose translation depends on where it is used (a command's name)."""
        return str(self._catalog.pgettext(context, message))

    def ngettext(self, singular: str, plural: str, count: int, /, **params: object) -> str:
        """A counted message; `{count}` in it is the count as the language writes numbers
        (or as params gives it: a score of 1.5 counts as a plural)."""
        text = self._catalog.ngettext(singular, plural, count)
        return text.format(**{"count": self.integer(count), **params})

    def integer(self, value: int) -> str:
        return format_decimal(value, locale=self.locale)

    def decimal(self, value: float, places: int) -> str:
        """`value` with exactly `places` decimals: 1,234.5 / 1.234,5 / 1 234,5."""
        return self._fixed(value, places, signed=False)

    def number(self, value: float) -> str:
        """A number as typed, in the language's digits: 12, 0,5, 1.500 (up to 3 decimals)."""
        return format_decimal(value, locale=self.locale)

    def signed(self, value: float, places: int) -> str:
        """A change: `+12.5`, `-3,0`, always with its sign."""
        return self._fixed(value, places, signed=True)

    def _fixed(self, value: float, places: int, signed: bool) -> str:
        """What Babel's format_decimal writes with the pattern `#,##0.0…` (`+…;-…` when
        signed). A finite value is written by Python from the same digits (`str`, which
        numpy's scalars give too; rounded half to even, grouped by 3) in the language's
        symbols, at a sixth of Babel's cost: a cold leaderboard page writes 100s of
        numbers."""
        if not math.isfinite(value):
            pattern = "#,##0" + ("." + "0" * places if places else "")
            shown = f"+{pattern};-{pattern}" if signed else pattern
            return format_decimal(value, format=shown, locale=self.locale)
        spec = f"{'+' if signed else ''},.{places}f"
        return format(Decimal(str(value)), spec).translate(self._symbols)

    def rating(self, value: float) -> str:
        """A rating to one decimal (bot.present.words.rating_text in this language)."""
        return self._measure(value, 1)

    def accuracy(self, value: float) -> str:
        """RA to two decimals."""
        return self._measure(value, 2)

    def performance(self, value: float, up: float, down: float) -> str:
        """`RP +UP -DOWN`, or the rating alone when its stability is not known."""
        if not math.isfinite(value) or math.isnan(up) or math.isnan(down):
            return self.rating(value)
        return f"{self.rating(value)} +{self.rating(up)} -{self.rating(down)}"

    def _measure(self, value: float, places: int) -> str:
        if math.isnan(value):
            return self.gettext(N_("undefined"))
        if math.isinf(value):
            return "+inf" if value > 0 else "-inf"
        return self.decimal(value, places)

    def duration(self, seconds: float) -> str:
        """A wait in the language's short units: 12 min, 3 Std., 5 Min."""
        return wait_text(seconds, babel_code(self.language))

    def time(self, moment: datetime) -> str:
        """A moment in UTC as the language writes a date and a 24-hour time, saying UTC:
        `Dec 6, 2025, 06:21 UTC`, `6 déc. 2025, 06:21 UTC`."""
        date = format_skeleton("yMMMd", moment, tzinfo=UTC, locale=self.locale)
        time = format_skeleton("Hm", moment, tzinfo=UTC, locale=self.locale)
        return f"{self.locale.datetime_formats['medium'].format(time, date)} UTC"


def refusal_text(error: UserError | Notice, said: Words) -> str:
    """A refusal (or a notice of a queue or lobby) in a language: its template's translation
    with its params, those that are phrases of the code, counts, waits or refusals themselves
    translated too."""
    return said.gettext(error.template, **{n: _param(v, said) for n, v in error.params.items()})


def _param(value: object, said: Words) -> object:
    if isinstance(value, UserError | Notice):
        return refusal_text(value, said)
    if isinstance(value, Phrase):
        return said.gettext(value)
    if isinstance(value, Counted):
        return said.ngettext(value.singular, value.plural, value.count)
    if isinstance(value, Duration):
        return said.duration(value.seconds)
    return value


def NC_(context: str, message: str) -> str:  # noqa: N802 (gettext's naming)
    """N_ for a message with a context (Words.pgettext(context, message) translates it)."""
    del context
    return message


@functools.cache
def words(language: str | None) -> Words:
    """The Words of a language code or Discord locale (unshipped ones: English)."""
    return Words(shipped(language))


ENGLISH: Final = words(SOURCE)
