"""/admin evaluate through the fake Discord (SPEC 12): refused with how many matches are
needed, then a table embed within Discord's limits naming the best measure against the
server's variant, and with tune:True the best ladder constants. A guild of its own (the
refusal needs a guild without matches), filled by `ladderbot import` beside the bot."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from bot.ratings.evaluation import MEASURES
from tests.app.discord_rules import message_problems
from tests.app.fakediscord import FakeDiscord, Member, Reply
from tests.app.harness import (
    MOD,
    BotProcess,
    ladderbot,
    running,
    serving,
    write_config,
)
from tests.services.evaluation_data import community, community_csv

PLAYER = Member(6_000_001, "evaluated")


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, PLAYER]))


@pytest.fixture(scope="module")
def bot(fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    yield from running(BotProcess(fake, write_config(tmp_path_factory.mktemp("evaluate"))))


def fits(reply: Reply) -> Reply:
    """The reply as Discord took it; any problem would have been a 400 instead."""
    assert message_problems({"content": reply.content, "embeds": reply.embeds}) == []
    return reply


def test_refused_then_a_table_and_the_best_constants(fake: FakeDiscord, bot: BotProcess) -> None:
    refused = fake.slash(MOD, "admin evaluate").reply()
    assert refused.ephemeral
    assert "needs at least 10 applied matches; this server has 0" in (refused.content or "")
    not_moderator = fake.slash(PLAYER, "admin evaluate").reply()
    assert not_moderator.ephemeral and "Manage Server" in (not_moderator.content or "")

    ladderbot(bot.database, "import", "-", stdin=community_csv(community(120, 14)))
    expected = json.loads(ladderbot(bot.database, "evaluate", "--last", "80", "--json"))

    shown = fits(fake.slash(MOD, "admin evaluate", last=80).reply(timeout=20))
    embed = shown.embeds[0]
    assert shown.ephemeral
    assert embed["title"] == "How well the ratings predict"
    table = embed["description"].split("```")[1].strip().splitlines()
    assert [line.split()[0] for line in table[1:]] == list(MEASURES)
    for line, measure in zip(table[1:], expected["measures"], strict=True):
        assert line.split()[1] == f"{measure['log_loss']:.4f}"
    best = embed["fields"][0]
    assert best["name"] == "Best measure"
    assert best["value"].startswith(expected["best"])
    assert "p8" in best["value"]  # the server's variant
    assert len(embed["fields"]) == 1

    tuned = fits(fake.slash(MOD, "admin evaluate", last=80, tune=True).reply(timeout=30))
    constants = tuned.embeds[0]["fields"][1]
    assert constants["name"] == "Ladder constants"
    assert "54" in constants["value"] and "t " in constants["value"]
    bot.assert_alive()
