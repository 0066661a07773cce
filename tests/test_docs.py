"""The documentation stays true to the code (issue 23 finding 12, as datasette checks its
docs): docs/commands.md has one row per slash command of the tree the bot syncs, with its
options; a row per setting the code knows, with its default; docs/command-line.md a row per
`ladderbot` command of `--help`; every "SPEC n.n" the code cites is a section of docs/;
every relative link of the README and docs/ names a file that exists; and the README's first
command makes a virtual environment before it installs anything (finding 6)."""

from __future__ import annotations

import argparse
import asyncio
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from bot.app.bot import LadderBot
from bot.app.invite import invite_permissions
from bot.cli import build_parser
from bot.config import GUILD_SETTING_RULES, SECTION_RULES, Config, GuildSettings, SettingError
from bot.services import Services

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SUBCOMMAND, GROUP = 1, 2
CODE_CELL = re.compile(r"^\| `([^`]+)`")


def _read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _first_cells(text: str) -> list[str]:
    """The code span that opens each table row (`| `/report duel …` | … |`)."""
    return [found.group(1) for line in text.splitlines() if (found := CODE_CELL.match(line))]


def _leaves(path: str, options: Sequence[Mapping[str, Any]]) -> Iterator[str]:
    """Each command Discord shows, as its row names it: the path, then the options in
    order, optional ones in brackets."""
    nested = [option for option in options if option["type"] in (SUBCOMMAND, GROUP)]
    if not nested:
        shown = [o["name"] if o.get("required") else f"[{o['name']}]" for o in options]
        yield " ".join([path, *shown])
        return
    for option in nested:
        yield from _leaves(f"{path} {option['name']}", option.get("options", []))


def _synced_commands(tmp_path: Path) -> list[str]:
    """The command tree as the bot builds it at start (LadderBot.load_commands), without
    connecting to Discord."""

    async def build() -> list[str]:
        services = await Services.open(str(tmp_path / "docs.sqlite3"), Config())
        bot = LadderBot(Config(), services)
        try:
            await bot.load_commands()
            return [
                leaf
                for command in bot.tree.get_commands()
                for leaf in _leaves(
                    f"/{command.name}", command.to_dict(bot.tree).get("options", [])
                )
            ]
        finally:
            await bot.close()
            await services.close()

    return asyncio.run(build())


def _differences(documented: Sequence[str], actual: Sequence[str], where: str) -> str:
    """What to fix, one line a row: rows the code has and the docs miss, and the reverse."""
    missing = [f"{where} has no row for `{row}`" for row in actual if row not in documented]
    extra = [
        f"{where} has a row for `{row}`, which the code does not have"
        for row in documented
        if row not in actual
    ]
    return "\n".join(missing + extra)


def test_docs_command_table_is_the_synced_command_tree(tmp_path: Path) -> None:
    documented = _first_cells((DOCS / "commands.md").read_text(encoding="utf-8"))
    slash = [cell for cell in documented if cell.startswith("/")]
    problems = _differences(slash, _synced_commands(tmp_path), "docs/commands.md")
    assert not problems, problems


SETTING_ROW = re.compile(r"^\| `([a-z_]+)` \| ([^|]+) \|", re.MULTILINE)


def test_docs_settings_table_is_the_settings_the_code_knows() -> None:
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    table = text[text.index("## Settings") :]
    rows = {name: default.strip() for name, default in SETTING_ROW.findall(table)}
    known = [setting.name for setting in fields(GuildSettings)]
    problems = _differences(list(rows), known, "docs/commands.md's settings table")
    assert not problems, problems
    assert sorted(known) == sorted(GUILD_SETTING_RULES)
    defaults = GuildSettings()
    for name, shown in rows.items():
        default = getattr(defaults, name)
        if default is None:
            continue
        try:
            read = GUILD_SETTING_RULES[name](shown)
        except SettingError as error:
            raise AssertionError(f"`{name}`: its default {shown!r} is refused: {error}") from None
        assert read == default, f"`{name}`: docs say the default is {shown}, the code {default}"


def _cli_commands(parser: argparse.ArgumentParser, path: str) -> Iterator[str]:
    """`ladderbot report`, `ladderbot season start`, …: every command of `--help`."""
    choices = [
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    ]
    if not choices:
        yield path
        return
    for name, command in choices[0].items():
        yield from _cli_commands(command, f"{path} {name}")


def test_docs_command_line_table_is_ladderbot_help() -> None:
    documented = [
        " ".join(re.findall(r"^ladderbot(?: [a-z0-9][a-z0-9-]*)*", cell)[0].split())
        for cell in _first_cells((DOCS / "command-line.md").read_text(encoding="utf-8"))
        if cell.startswith("ladderbot ")
    ]
    actual = list(_cli_commands(build_parser(), "ladderbot"))
    problems = _differences(documented, actual, "docs/command-line.md")
    assert not problems, problems


SPEC_CITATION = re.compile(
    r"SPEC\s+(\d+(?:\.\d+)?)((?:(?:,\s*|\s+and\s+|/)(?:1[0-4]|[1-9])(?:\.\d+)?\b)*)"
)
SPEC_HEADING = re.compile(r"^#+ .*\(SPEC ([0-9., ]+)\)\s*$", re.MULTILINE)


def _cited_sections() -> dict[str, str]:
    """Each section number the code and the tests cite, with one file that cites it."""
    cited: dict[str, str] = {}
    for folder in ("bot", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for found in SPEC_CITATION.finditer(path.read_text(encoding="utf-8")):
                numbers = [found.group(1), *re.findall(r"\d+(?:\.\d+)?", found.group(2))]
                for number in numbers:
                    cited.setdefault(number, str(path.relative_to(ROOT)))
    return cited


def test_every_spec_section_the_code_cites_is_a_section_of_the_docs() -> None:
    headed = {
        number.strip()
        for path in DOCS.glob("*.md")
        for heading in SPEC_HEADING.findall(path.read_text(encoding="utf-8"))
        for number in heading.split(",")
    }
    cited = _cited_sections()
    assert len(cited) >= 40  # the regex finds the citations at all
    missing = [f"SPEC {n} (cited in {where})" for n, where in cited.items() if n not in headed]
    assert not missing, "no docs/ heading ends with (SPEC n) for: " + ", ".join(missing)


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as '-'."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


@pytest.mark.parametrize(
    "document", ["README.md", *sorted(f"docs/{path.name}" for path in DOCS.glob("*.md"))]
)
def test_every_relative_link_names_a_file_and_heading_that_exist(document: str) -> None:
    source = ROOT / document
    for target, fragment in LINK.findall(source.read_text(encoding="utf-8")):
        if "://" in target:
            continue
        linked = (source.parent / target).resolve()
        assert linked.exists(), f"{document} links to {target}, which does not exist"
        if fragment and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.MULTILINE)
            anchors = {_anchor(heading) for heading in headings}
            assert fragment[1:] in anchors, f"{document} links to {target}{fragment}: no heading"


def _code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def test_finding_6_readme_first_command_makes_a_virtual_environment_before_installing() -> None:
    readme = _read("README.md")
    section = readme[readme.index("\n## Two commands\n") :]
    first, second = _code_blocks(section)[:2]
    lines = [line for line in first.splitlines() if line.strip() and not line.startswith("#")]
    assert "python3 -m venv .venv" in lines[0], lines
    installs = [line for line in lines if "pip install" in line]
    assert installs and all(".venv/bin/pip install" in line for line in installs), installs
    assert not re.search(r"(^|[;&|(]\s*)pip3? install", first, re.MULTILINE), first
    assert ".venv/bin/ladderbot run" in lines[-1], lines
    assert second.strip() == "bash .ci/run"
    assert "python3 -m venv .venv" in _read(".ci/run")


def test_readme_invite_link_asks_for_the_permissions_the_bot_needs() -> None:
    found = re.findall(r"permissions=(\d+)", _read("README.md"))
    assert found and {int(value) for value in found} == {invite_permissions().value}


def test_example_config_names_every_key_and_cites_no_spec_section() -> None:
    """config.example.toml is what a user copies: every key the loader knows is there (set
    or commented out), and its comments point into docs/, not into a spec the user lacks."""
    text = _read("config.example.toml")
    assert not re.search(r"SPEC|section \d", text), "config.example.toml cites the spec"
    assert "docs/configuration.md" in text
    written = set(re.findall(r"^#? ?([a-z_]+) = ", text, re.MULTILINE))
    for section, (_, rules) in SECTION_RULES.items():
        assert f"[{section}]" in text, f"config.example.toml has no [{section}]"
        unwritten = sorted(set(rules) - written - {"path"})  # `path`: the older form of url
        assert not unwritten, f"config.example.toml's [{section}] misses {unwritten}"
