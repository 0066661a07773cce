"""End to end (issue 8): every reply fits Discord's limits, and a reply that fails after a
write says what was stored. The fake Discord refuses what Discord refuses (HTTP 400, 50035),
so a reply that breaks a limit shows up here as a rejected request."""

from __future__ import annotations

import re

from tests.app.discord_rules import message_problems
from tests.app.fakediscord import FakeDiscord, Reply
from tests.app.harness import MOD, ROBOT, BotProcess, Players

FFA_SIZE = 32  # the most participants a match may have (SPEC 4)


def fits(reply: Reply) -> Reply:
    """The reply as Discord took it; any problem would have been a 400 instead."""
    assert message_problems({"content": reply.content, "embeds": reply.embeds}) == []
    return reply


def match_id(reply: Reply) -> int:
    found = re.fullmatch(r"Match #(\d+)", reply.embeds[0]["title"])
    assert found, reply.embeds[0]["title"]
    return int(found.group(1))


def shown_lines(reply: Reply) -> list[str]:
    return [
        line
        for field in reply.embeds[0]["fields"]
        if field["name"].startswith("Team")
        for line in field["value"].split("\n")
    ]


def test_a_32_player_free_for_all_is_reported_shown_confirmed_and_voided(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    group = players.take(FFA_SIZE)
    reporter, opponent = group[0], group[1]
    lineup = ", ".join(f"<@{p.id}> {1000 - 10 * place} 20" for place, p in enumerate(group))
    mark = fake.mark()

    reported = fits(fake.slash(reporter, "report scores", lineup=lineup).reply(timeout=20))
    assert not reported.ephemeral and "pending" in reported.embeds[0]["description"]
    number = match_id(reported)
    letters = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "AB", "AC", "AD", "AE", "AF"]
    places = [f"**{letter}** · <@{p.id}>" for letter, p in zip(letters, group, strict=True)]
    assert [line.split(" — ")[0] for line in shown_lines(reported)] == places
    assert all(f"<@{p.id}>" in (reported.content or "") for p in group[1:])
    assert reported.custom_ids() == [
        f"ladderbot:{action}:{number}" for action in ("confirm", "dispute", "cancel")
    ]

    shown = fits(fake.slash(group[5], "match show", id=number).reply())
    assert "pending" in shown.embeds[0]["description"]
    assert shown_lines(shown) == shown_lines(reported)

    confirmed = fits(fake.slash(opponent, "match confirm", id=number).reply(timeout=20))
    assert "applied" in confirmed.embeds[0]["description"]
    rated = shown_lines(confirmed)
    assert len(rated) == FFA_SIZE and all("→" in line for line in rated)
    edited = fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == reported.message_id, 10, mark
    )
    assert "applied" in edited.payload["embeds"][0]["description"]  # the report followed

    voided = fits(fake.slash(MOD, "admin void", id=number, reason="a test").reply(timeout=20))
    assert voided.content == f"Match #{number} is void; 0 later matches were replayed."
    assert voided.embeds[0]["description"].startswith("Status: void")
    again = fake.slash(MOD, "admin void", id=number).reply()
    assert again.ephemeral and f"match #{number} is void; only" in (again.content or "")
    assert fake.rejected(mark) == []


def test_a_3000_character_bad_lineup_is_refused_with_a_reply_that_fits(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    (player,) = players.take(1)
    lineup = f"<@{player.id}> 10, {'x' * 3000} 5"  # the bad player is quoted twice
    mark = fake.mark()
    refused = fits(fake.slash(player, "report scores", lineup=lineup).reply())
    assert refused.ephemeral and "…" in (refused.content or "")
    assert "is not a player" in (refused.content or "")
    assert fake.rejected(mark) == []


def test_a_reply_that_fails_after_the_match_is_stored_says_what_was_stored(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    winner, loser = players.take(2)
    fake.fail_next("respond")  # Discord refuses the report's public answer
    reply = fake.slash(winner, "report duel", winner=winner, loser=loser).reply()
    assert reply.ephemeral
    content = reply.content or ""
    assert "nothing was changed" not in content
    found = re.search(r"Match #(\d+) is recorded: pending", content)
    assert found, content
    shown = fake.slash(loser, "match show", id=int(found.group(1))).reply()
    assert "pending" in shown.embeds[0]["description"]  # it was stored, as the reply said

    fake.fail_next("edit_original")  # a deferred answer fails: the void's result
    voided = fake.slash(MOD, "admin void", id=int(found.group(1))).reply()
    assert voided.kind == "followup" and voided.ephemeral
    assert f"Match #{found.group(1)} is recorded: void" in (voided.content or "")
    assert "nothing was changed" not in (voided.content or "")


def test_a_page_past_the_end_and_predictions_of_oneself_or_a_bot_are_refused(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    winner, loser = players.take(2)
    fake.slash(MOD, "report duel", winner=winner, loser=loser).reply()
    page = fake.slash(winner, "leaderboard", page=1_000_000_000).reply()
    assert page.ephemeral
    assert re.search(r"page 1000000000 must be from 1 to \d+", page.content or "")
    same = fake.slash(winner, "predict", a=winner, b=winner).reply()
    assert same.ephemeral and "two different members" in (same.content or "")
    robot = fake.slash(winner, "predict", a=winner, b=ROBOT).reply()
    assert robot.ephemeral and "is a bot" in (robot.content or "")
