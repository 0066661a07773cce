"""What players read, through the fake Discord (issue 23 finding 11): a bot has no card,
/predict says where each chance comes from, a settings change shows values as typed."""

from __future__ import annotations

from tests.app.fakediscord import FakeDiscord
from tests.app.harness import MOD, ROBOT, BotProcess, Players


def test_finding_11_rating_of_a_bot_is_refused(fake: FakeDiscord, bot: BotProcess) -> None:
    reply = fake.slash(MOD, "rating", member=ROBOT).reply()
    assert reply.ephemeral and not reply.embeds and not reply.files
    assert "is a bot; bots are not rated" in (reply.content or "")


def test_finding_11_predict_labels_the_ladder_and_the_servers_variant(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    a, b = players.take(2)
    fake.slash(MOD, "report duel", winner=a, loser=b).reply()
    (embed,) = fake.slash(a, "predict", a=a, b=b).reply().embeds
    names = [field["name"] for field in embed["fields"]]
    assert names == ["Ladder", "Performance (p8, this server's variant)"]
    assert "ladder ratings" in embed["description"] and "/admin evaluate" in embed["description"]


def test_finding_11_a_settings_change_shows_the_values_as_typed(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    (embed,) = fake.slash(MOD, "admin settings", auto_confirm_hours=24.0, web=False).reply().embeds
    assert embed["description"] == "Changed auto_confirm_hours = 24, web = off."
    assert {"name": "auto_confirm_hours", "value": "24", "inline": True} in embed["fields"]
