"""Issue 17 item 8: every `id:<int>` option declares 1 ≤ id ≤ 2^53 - 1 to Discord (SPEC 7;
issue 23 finding 1: Discord refuses a registration declaring 2^53), and
an id outside it that arrives anyway (only a fake Discord sends one) gets a clear reply."""

from __future__ import annotations

from collections.abc import Iterator

from tests.app.discord_rules import JsonDict
from tests.app.fakediscord import FakeDiscord
from tests.app.harness import MOD, ROBOT, BotProcess

MAX_ID = 2**53 - 1
INTEGER = 4
ID_COMMANDS = {
    "match show": "match",
    "match confirm": "match",
    "admin void": "match",
    "admin edit": "match",
    "admin lobby sub": "lobby",
    "admin lobby cancel": "lobby",
    "admin webhook remove": "webhook",
    "admin webhook test": "webhook",
}
EXTRA_OPTIONS: dict[str, JsonDict] = {
    "admin edit": {"lineup": f"<@{MOD.id}> 1, <@{MOD.id + 1}> 0"},
    "admin lobby sub": {"out": MOD, "in": ROBOT},
}

SUBCOMMAND_TYPES = (1, 2)


def _leaf_options(options: list[JsonDict], path: str) -> Iterator[tuple[str, JsonDict]]:
    """(command path, option) of every option below `path` that is no subcommand."""
    for option in options:
        if option["type"] in SUBCOMMAND_TYPES:
            yield from _leaf_options(option.get("options", []), f"{path} {option['name']}")
        else:
            yield path, option


def test_finding_1_every_id_option_declares_the_bounds_1_to_2_53_minus_1(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    ids = {
        path: option
        for command in fake.synced_commands()
        for path, option in _leaf_options(command.get("options", []), command["name"])
        if option["name"] == "id"
    }
    assert sorted(ids) == sorted(ID_COMMANDS)
    for path, option in ids.items():
        assert option["type"] == INTEGER, path
        assert (option.get("min_value"), option.get("max_value")) == (1, MAX_ID), path


def test_an_id_beyond_2_53_minus_1_from_a_fake_discord_is_refused_naming_the_bound(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    mark = fake.mark()
    logged = bot.log_size()
    for value in (2**63, MAX_ID + 1, 0):
        for command, noun in ID_COMMANDS.items():
            options: JsonDict = {"id": value, **EXTRA_OPTIONS.get(command, {})}
            reply = fake.slash(MOD, command, **options).reply()
            assert reply.ephemeral, (command, reply.content)
            assert reply.content == f"{noun} id {value} must be from 1 to 2^53 - 1 ({MAX_ID})"
    assert fake.rejected(mark) == []
    assert "Traceback" not in bot.output_since(logged)
