"""End to end through the fake Discord (SPEC 10.2, 10.1): captains picking in their order
with the auto-pick (its 60 s made 4 s for the test), and the refusals."""

from __future__ import annotations

from tests.app.fakediscord import GENERAL, FakeDiscord
from tests.app.harness import MOD, ROBOT, BotProcess
from tests.app.queue_scenario import (  # noqa: F401 (queue_fake, queue_bot: fixtures)
    PICK_SECONDS,
    click,
    create,
    custom_ids,
    posted,
    queue_bot,
    queue_fake,
    take,
    title,
)


def test_captains_pick_in_order_with_the_auto_pick(fake: FakeDiscord, bot: BotProcess) -> None:
    players = take(4)
    queue_id, queue_message = create(fake, "caps", 4, mode="captains", ready_seconds=0)
    mark = fake.mark()
    for player in players:
        click(fake, player, queue_message, f"ladderbot:queue:join:{queue_id}")
    lobby_post = posted(fake, "Lobby #", mark, new=True)
    lobby_id = int(title(lobby_post).split("#")[1].split()[0])
    assert "captains are picking" in title(lobby_post)
    content = lobby_post.payload["content"]
    captain_a = next(p for p in players if content.startswith(f"<@{p.id}>, pick"))
    (select,) = custom_ids(lobby_post)
    options = lobby_post.payload["components"][0]["components"][0]["options"]
    choices = [int(option["value"]) for option in options]
    assert len(choices) == 2
    wrong = fake.select(players[3], int(lobby_post.message_id or 0), select, [str(choices[0])])
    if players[3] is not captain_a:
        assert "turn to pick" in (wrong.reply().content or "")
    picked = fake.select(captain_a, int(lobby_post.message_id or 0), select, [str(choices[0])])
    assert "for team A" in (picked.reply().content or "")
    # team B's captain does not pick: after PICK_SECONDS the last player is theirs, and the
    # lobby plays
    playing = posted(fake, f"Lobby #{lobby_id} · caps — playing", mark, timeout=15)
    fields = playing.payload["embeds"][0]["fields"]
    assert f"<@{choices[0]}>" in fields[0]["value"] and f"<@{choices[1]}>" in fields[1]["value"]


def test_refusals(fake: FakeDiscord, bot: BotProcess) -> None:
    first, second, third = take(3)
    denied = fake.slash(first, "admin queue create", name="x", channel=GENERAL, size=2).reply()
    assert denied.ephemeral and "Manage Server" in (denied.content or "")
    queue_id, queue_message = create(fake, "refuse", 2)
    other_id, other_message = create(fake, "other", 4)
    assert click(fake, ROBOT, queue_message, f"ladderbot:queue:join:{queue_id}").content == (
        "bots cannot join queues"
    )
    fake.slash(MOD, "admin settings", no_show_minutes=5).reply()
    try:
        mark = fake.mark()
        click(fake, first, queue_message, f"ladderbot:queue:join:{queue_id}")
        click(fake, second, queue_message, f"ladderbot:queue:join:{queue_id}")
        lobby = posted(fake, "Lobby #", mark, new=True)
        in_lobby = click(fake, first, other_message, f"ladderbot:queue:join:{other_id}")
        assert in_lobby.ephemeral and "you are playing in lobby #" in (in_lobby.content or "")
        left = click(fake, second, int(lobby.message_id or 0), custom_ids(lobby)[1])
        assert left.ephemeral and "it is dissolved" in (left.content or "")
        penalized = fake.slash(second, "queue join", name="other").reply()
        assert penalized.ephemeral and "cannot queue for 5 min more" in (penalized.content or "")
    finally:
        fake.slash(MOD, "admin settings", no_show_minutes=0).reply()
    listed = fake.slash(third, "queue list").reply()
    assert listed.ephemeral and "**refuse**" in (listed.content or "")
    unknown = fake.slash(third, "queue join", name="nope").reply()
    assert unknown.ephemeral and "there is no queue 'nope'" in (unknown.content or "")
    deleted = fake.slash(MOD, "admin queue delete", name="other").reply()
    assert deleted.ephemeral and "was deleted" in (deleted.content or "")


def test_free_for_all_result_by_order_and_a_substitute(fake: FakeDiscord, bot: BotProcess) -> None:
    first, second, third, sub = take(4)
    queue_id, queue_message = create(fake, "ffa3", 3, format="ffa", ready_seconds=60)
    mark = fake.mark()
    for player in (first, second, third):
        click(fake, player, queue_message, f"ladderbot:queue:join:{queue_id}")
    lobby = posted(fake, "Lobby #", mark, new=True)
    lobby_id = int(title(lobby).split("#")[1].split()[0])
    swapped = fake.slash(MOD, "admin lobby sub", id=lobby_id, out=third, in_=sub).reply()
    assert swapped.ephemeral and f"<@{sub.id}> plays in lobby #{lobby_id}" in (
        swapped.content or ""
    )
    for player in (first, second):
        click(fake, player, int(lobby.message_id or 0), f"ladderbot:lobby:ready:{lobby_id}")
    posted(fake, f"Lobby #{lobby_id} · ffa3 — playing", mark)
    order = f"<@{sub.id}> <@{first.id}> <@{second.id}>"
    wrong = fake.slash(first, "queue result", lobby=lobby_id, winner="a").reply()
    assert wrong.ephemeral and "free-for-all: give the order" in (wrong.content or "")
    done = fake.slash(MOD, "queue result", lobby=lobby_id, order=order).reply()
    assert not done.ephemeral and "applied" in done.embeds[0]["description"]
    cancel = fake.slash(MOD, "admin lobby cancel", id=lobby_id).reply()
    assert cancel.ephemeral and "already has its result" in (cancel.content or "")


def test_queue_names_are_offered_as_you_type(fake: FakeDiscord, bot: BotProcess) -> None:
    asked = fake.autocomplete(take(1)[0], "queue join", "name", "CA")
    offered = fake.wait_for(lambda e: e.token == asked.token and e.kind == "other", 10)
    assert [choice["value"] for choice in offered.payload["choices"]] == ["caps"]
    asked = fake.autocomplete(MOD, "admin queue delete", "name", "")
    offered = fake.wait_for(lambda e: e.token == asked.token and e.kind == "other", 10)
    assert "refuse" in [choice["value"] for choice in offered.payload["choices"]]
