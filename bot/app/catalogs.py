"""`python -m bot.app.catalogs extract`: the catalogs (SPEC 13) brought up to date with the
code. It collects every message the code marks (`gettext`, `ngettext`, `pgettext`, `N_`, and
a refusal's template) and every command text of the tree the bot syncs, writes
bot/present/locale/ladderbot.pot, and merges it into each shipped language's .po file: new
messages come in untranslated (the catalog test then names them), removed ones go.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.app.translator import NAME_CONTEXT
from bot.config import Config
from bot.present.language import DOMAIN, LOCALE_DIR, SHIPPED, SOURCE, babel_code, catalog_path

ROOT: Final = Path(__file__).resolve().parents[2]
TEMPLATE: Final = LOCALE_DIR / f"{DOMAIN}.pot"
FIXED_DATE: Final = datetime(2026, 11, 26, tzinfo=UTC)
"""The catalogs' creation date, fixed: a new one at each extraction would change every file."""
KEYWORDS: Final = {**DEFAULT_KEYWORDS, "NC_": ((1, "c"), 2), "Counted": (1, 2)}
"""gettext's keywords (gettext, ngettext, pgettext, N_ for a refusal's template or a
constant, and the rest), NC_: N_ with a context, and Counted: a refusal's counted noun."""


def _command_dicts() -> list[dict[str, Any]]:
    """The command tree as the bot builds it at start (LadderBot.load_commands)."""
    from bot.app.bot import LadderBot  # the bot's modules import this one's neighbours
    from bot.services import Services

    async def build() -> list[dict[str, Any]]:
        with tempfile.TemporaryDirectory() as folder:
            services = await Services.open(str(Path(folder) / "texts.sqlite3"), Config())
            bot = LadderBot(Config(), services)
            try:
                await bot.load_commands()
                return [command.to_dict(bot.tree) for command in bot.tree.get_commands()]
            finally:
                await bot.close()
                await services.close()

    return asyncio.run(build())


def command_texts(commands: Sequence[Mapping[str, Any]]) -> Iterator[tuple[str, str | None]]:
    """(text, context) of every name, description and choice name in the synced commands;
    names carry NAME_CONTEXT."""
    for command in commands:
        yield command["name"], NAME_CONTEXT
        if command.get("description"):
            yield command["description"], None
        for choice in command.get("choices") or ():
            yield choice["name"], None
        yield from command_texts(command.get("options", ()))


def template() -> Catalog:
    """Every message of the code and of the command tree, with where it is used."""
    catalog = Catalog(project="ladderbot", domain=DOMAIN, fuzzy=False, creation_date=FIXED_DATE)
    found = extract_from_dir(
        str(ROOT / "bot"), [("**.py", "python")], keywords=KEYWORDS, comment_tags=("TRANSLATORS:",)
    )
    pages = extract_from_dir(
        str(ROOT / "bot" / "web" / "templates"),
        [("**.html", "jinja2.ext:babel_extract")],
        keywords=KEYWORDS,
    )
    for filename, line, message, comments, context in found:
        where = [(f"bot/{filename}", line)]
        catalog.add(message, locations=where, auto_comments=comments, context=context)
    for filename, line, message, comments, context in pages:
        where = [(f"bot/web/templates/{filename}", line)]
        catalog.add(message, locations=where, auto_comments=comments, context=context)
    for text, context in command_texts(_command_dicts()):
        catalog.add(text, locations=[("command tree", 0)], context=context)
    return catalog


def extract() -> None:
    source = template()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    with TEMPLATE.open("wb") as out:
        write_po(out, source, width=100, sort_output=True, include_lineno=False)
    for language in SHIPPED:
        if language == SOURCE:
            continue
        path = catalog_path(language)
        if path.exists():
            with path.open("rb") as po:
                catalog = read_po(po, locale=babel_code(language), domain=DOMAIN)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(
                locale=babel_code(language), project="ladderbot", domain=DOMAIN, fuzzy=False
            )
        catalog.update(source, no_fuzzy_matching=True)
        with path.open("wb") as out:
            write_po(
                out,
                catalog,
                width=100,
                ignore_obsolete=True,
                sort_output=True,
                include_lineno=False,
            )
        print(f"{path.relative_to(ROOT)}: {len(catalog)} messages")


def main(argv: Sequence[str]) -> int:
    if list(argv) != ["extract"]:
        print("usage: python -m bot.app.catalogs extract", file=sys.stderr)
        return 2
    extract()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
