"""End to end through the fake Discord (SPEC 10): a queue created, joined by its buttons,
popped, readied, balanced, reported and confirmed into the ladder, with the bot restarted
between the steps; a ready deadline that passes while the bot is down (and a member who
leaves the server meanwhile leaves the queues at start); captains picking in
their order with the auto-pick (its 60 s made 4 s for the test); the refusals."""

from __future__ import annotations

import json
import time
from typing import Any

from tests.app.fakediscord import GUILD_ID, FakeDiscord
from tests.app.harness import MOD, BotProcess, ladderbot
from tests.app.queue_scenario import (  # noqa: F401 (queue_fake, queue_bot: fixtures)
    click,
    create,
    custom_ids,
    posted,
    queue_bot,
    queue_fake,
    take,
    title,
)

READY = 4
"""The ready check of the lobby whose deadline passes while the bot is down."""


def cli_json(bot: BotProcess, *args: str) -> Any:
    """`ladderbot ARGS --json` beside the bot, read."""
    return json.loads(ladderbot(bot.database, *args, "--json"))


def test_queue_to_ladder_with_restarts(fake: FakeDiscord, bot: BotProcess) -> None:
    players = take(4)
    queue_id, queue_message = create(fake, "e2e4", 4, ready_seconds=60)
    bot.restart()
    join = f"ladderbot:queue:join:{queue_id}"
    for player in players[:2]:
        reply = click(fake, player, queue_message, join)
        assert reply.ephemeral and "You joined the queue e2e4" in (reply.content or "")
    again = click(fake, players[0], queue_message, join)
    assert again.ephemeral and "already in the queue e2e4 (place 1)" in (again.content or "")
    mark = fake.mark()
    click(fake, players[2], queue_message, join)
    popped = click(fake, players[3], queue_message, join)
    assert "popped: you play in lobby #" in (popped.content or "")
    lobby_post = fake.wait_for(
        lambda e: e.kind == "message_create" and title(e).startswith("Lobby #"), 10, mark
    )
    lobby_id = int(title(lobby_post).split("#")[1].split()[0])
    lobby_message = int(lobby_post.message_id or 0)
    assert all(f"<@{p.id}>" in lobby_post.payload["content"] for p in players)
    ready, _ = custom_ids(lobby_post)
    assert ready == f"ladderbot:lobby:ready:{lobby_id}"
    posted(fake, "Queue e2e4 — 0/4", mark)  # the players left the queue
    bot.restart()
    mark = fake.mark()
    for player in players:
        assert click(fake, player, lobby_message, ready).ephemeral
    playing = posted(fake, f"Lobby #{lobby_id} · e2e4 — playing", mark)
    fields = playing.payload["embeds"][0]["fields"]
    assert [f["name"].split(" —")[0] for f in fields] == ["Team A", "Team B"]
    assert all("to win" in f["name"] for f in fields)
    team_a = [p for p in players if f"<@{p.id}>" in fields[0]["value"]]
    team_b = [p for p in players if p not in team_a]
    assert len(team_a) == len(team_b) == 2
    assert custom_ids(playing) == [
        f"ladderbot:lobby:{action}:{lobby_id}" for action in ("a", "b", "draw")
    ]
    bot.restart()
    outsider = take(1)[0]
    refused = click(fake, outsider, lobby_message, f"ladderbot:lobby:a:{lobby_id}")
    assert refused.ephemeral and "only the players of lobby" in (refused.content or "")
    result = click(fake, team_a[0], lobby_message, f"ladderbot:lobby:a:{lobby_id}")
    assert not result.ephemeral and "pending" in result.embeds[0]["description"]
    assert all(f"<@{p.id}>" in (result.content or "") for p in team_b)
    match_id = int(result.embeds[0]["title"].split("#")[1])
    second = click(fake, team_b[0], lobby_message, f"ladderbot:lobby:b:{lobby_id}")
    assert second.ephemeral and f"match #{match_id}" in (second.content or "")
    bot.restart()
    applied = click(fake, team_b[0], int(result.message_id or 0), f"ladderbot:confirm:{match_id}")
    assert "applied" in applied.embeds[0]["description"]
    match = cli_json(bot, "match", str(match_id))
    sides = {p["user_id"]: (p["side"], p["rating_after"]) for p in match["participants"]}
    assert {user: side for user, (side, _) in sides.items()} == {
        **{p.id: "A" for p in team_a},
        **{p.id: "B" for p in team_b},
    }
    assert all(sides[p.id][1] > 500 for p in team_a) and all(sides[p.id][1] < 500 for p in team_b)
    assert cli_json(bot, "queue", "list")["lobbies"] == []


def test_a_ready_deadline_passed_while_down_dissolves_at_start(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    first, second, away = take(3)
    away_id, away_message = create(fake, "away", 2)
    click(fake, away, away_message, f"ladderbot:queue:join:{away_id}")
    queue_id, queue_message = create(fake, "quick", 2, ready_seconds=READY)
    join = f"ladderbot:queue:join:{queue_id}"
    mark = fake.mark()
    click(fake, first, queue_message, join)
    click(fake, second, queue_message, join)
    lobby_post = posted(fake, "Lobby #", mark, new=True)
    deadline = time.monotonic() + READY
    click(fake, first, int(lobby_post.message_id or 0), custom_ids(lobby_post)[0])
    bot.stop()
    assert time.monotonic() < deadline, "too slow: the deadline passed before the stop"
    del fake.members[away.id]  # issue 24 finding 4: left while the bot was down
    time.sleep(max(0.0, deadline + 0.2 - time.monotonic()))
    mark = fake.mark()
    bot.start()
    gone = posted(fake, "Queue away — 0/2", mark)
    assert f"<@{away.id}> left the server" in gone.payload["embeds"][0]["description"]
    dissolved = posted(fake, title(lobby_post).split(" —")[0] + " — dissolved", mark)
    assert dissolved.message_id == lobby_post.message_id and not custom_ids(dissolved)
    back = posted(fake, "Queue quick — 1/2", mark)
    assert f"<@{first.id}>" in back.payload["embeds"][0]["description"]
    listed = cli_json(bot, "queue", "list")
    (queue,) = [q for q in listed["queues"] if q["name"] == "quick"]
    assert [w["user_id"] for w in queue["waiting"]] == [first.id]
    fake.members[away.id] = away


def test_a_rating_range_queue_shows_each_members_window(fake: FakeDiscord, bot: BotProcess) -> None:
    """range and widen through Discord: the queue's message names them, /queue list shows
    each waiting member's rating and window in Elo, and edit changes them."""
    first, second = take(2)
    queue_id, queue_message = create(fake, "ranked", 4, range=100, widen=1)
    for player in (first, second):
        click(fake, player, queue_message, f"ladderbot:queue:join:{queue_id}")
    listed = fake.slash(first, "queue list").reply()
    assert listed.ephemeral
    text = listed.content or ""
    assert "Rating range ±100 Elo, +1 a minute waited; windows now:" in text
    assert f"<@{first.id}> 1500: 1400 to 1600" in text and f"<@{second.id}>" in text
    mark = fake.mark()
    edited = fake.slash(MOD, "admin queue edit", name="ranked", range=0).reply()
    assert edited.ephemeral and "was changed" in (edited.content or "")
    shown = posted(fake, "Queue ranked — 2/4", mark)
    assert "rating range" not in shown.payload["embeds"][0]["description"]


def test_finding_4_a_member_who_leaves_the_server_leaves_the_queue(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    gone, other = take(2)
    queue_id, queue_message = create(fake, "leavers", 2)
    join = f"ladderbot:queue:join:{queue_id}"
    click(fake, gone, queue_message, join)
    mark = fake.mark()
    removal = {"guild_id": str(GUILD_ID), "user": gone.user_payload()}
    fake.send_guild_event(GUILD_ID, "GUILD_MEMBER_REMOVE", removal)
    shown = posted(fake, "Queue leavers — 0/2", mark)
    assert f"<@{gone.id}> left the server" in shown.payload["embeds"][0]["description"]
    joined = click(fake, other, queue_message, join)
    assert "You joined the queue leavers" in (joined.content or "")  # no pop with the leaver


def test_finding_3_a_stale_join_of_a_deleted_queue_says_it_was_deleted(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    (player,) = take(1)
    old_id, old_message = create(fake, "reborn", 2)
    seen = fake.message(old_message)  # a client that still shows the buttons
    assert fake.slash(MOD, "admin queue delete", name="reborn").reply().ephemeral
    new_id, _ = create(fake, "reborn", 2)
    assert new_id != old_id
    stale = fake.click(player, old_message, f"ladderbot:queue:join:{old_id}", seen).reply()
    assert stale.ephemeral and "this queue was deleted" in (stale.content or "")
    # that it changed nothing, on both engines: tests/services/test_queue_issue24.py


def test_a_party_is_invited_by_button_and_queues_whole(fake: FakeDiscord, bot: BotProcess) -> None:
    """/queue party invite posts Accept/Decline that only the invitee may click (also
    after a restart); the leader's Join puts the party in, a member's Leave takes it out."""
    leader, mate, stranger = take(3)
    queue_id, queue_message = create(fake, "duos", 4, party_max=2)
    invite = fake.slash(leader, "queue party invite", member=mate).reply()
    assert not invite.ephemeral and f"<@{mate.id}>" in (invite.content or "")
    accept = f"ladderbot:party:accept:{leader.id}:{mate.id}"
    buttons = [part["custom_id"] for row in invite.components for part in row["components"]]
    assert buttons == [accept, f"ladderbot:party:decline:{leader.id}:{mate.id}"]
    message = int(invite.message_id or 0)
    bot.restart()
    wrong = click(fake, stranger, message, accept)
    assert wrong.ephemeral and f"only <@{mate.id}> can answer" in (wrong.content or "")
    accepted = click(fake, mate, message, accept)
    assert accepted.kind == "update" and "joined" in (accepted.content or "")
    assert not accepted.components  # the buttons are gone
    shown = fake.slash(mate, "queue party show").reply()
    assert f"Party of <@{leader.id}> (leader) with <@{mate.id}>" in (shown.content or "")
    refused = click(fake, mate, queue_message, f"ladderbot:queue:join:{queue_id}")
    assert refused.ephemeral and "its leader joins for it" in (refused.content or "")
    mark = fake.mark()
    click(fake, leader, queue_message, f"ladderbot:queue:join:{queue_id}")
    both = posted(fake, "Queue duos — 2/4", mark)
    assert f"<@{mate.id}>" in both.payload["embeds"][0]["description"]
    mark = fake.mark()
    click(fake, mate, queue_message, f"ladderbot:queue:leave:{queue_id}")
    posted(fake, "Queue duos — 0/4", mark)


def test_a_map_vote_by_buttons_survives_a_restart(fake: FakeDiscord, bot: BotProcess) -> None:
    """map_pick vote: the lobby shows a button per candidate; a vote before a restart counts
    after it; the last vote chooses the map, shown with its tally, then the result buttons."""
    first, second = take(2)
    queue_id, queue_message = create(
        fake, "voted", 2, ready_seconds=0, maps="dust,nuke", map_pick="vote"
    )
    mark = fake.mark()
    for player in (first, second):
        click(fake, player, queue_message, f"ladderbot:queue:join:{queue_id}")
    lobby_post = posted(fake, "Lobby #", mark, new=True)
    lobby_id = int(title(lobby_post).split("#")[1].split()[0])
    votes = custom_ids(lobby_post)
    assert votes == [f"ladderbot:map:vote:{lobby_id}:{n}" for n in (0, 1)]
    assert "Map vote: dust 0 · nuke 0" in lobby_post.payload["embeds"][0]["description"]
    message = int(lobby_post.message_id or 0)
    assert "Your vote: nuke." in (click(fake, first, message, votes[1]).content or "")
    bot.restart()
    mark = fake.mark()
    last = click(fake, second, message, votes[1])
    assert "The map is nuke." in (last.content or "")
    chosen = fake.wait_for(
        lambda e: e.message_id == message and "Map: nuke" in str(e.payload.get("embeds")), 10, mark
    )
    assert "Map: nuke (voted: dust 0 · nuke 2)" in chosen.payload["embeds"][0]["description"]
    assert custom_ids(chosen)[0] == f"ladderbot:lobby:a:{lobby_id}"
