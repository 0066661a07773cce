"""What the change feed's end-to-end tests (SPEC 5, 8.7) check on each engine: changes made
with the command line beside the running bot reach it through the change feed as a Discord
change would. A `ladderbot report` edits the live board, gives the rank role and is posted to
the mod log as made by "the command line", each exactly once; a `void` and a `settings`
change after it likewise; a restarted bot tells none of them again but gives the rank roles
that changes made while it was down earn, and a match reported in Discord and confirmed on
the command line gets its message updated once.

Each engine's test file imports the fixtures and tests from here and adds its `database`."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.app.fakediscord import GUILD_ID, Event, FakeDiscord, Member, Role
from tests.app.harness import (
    EDIT_SECONDS,
    MOD,
    BotProcess,
    ladderbot,
    running,
    serving,
    write_config,
)

WINNER, LOSER = Member(6_000_001, "feedwinner"), Member(6_000_002, "feedloser")
QUIET_SECONDS = EDIT_SECONDS + 0.5
"""Room for a second edit (edit_seconds after the first), role call or post (a poll of the
change log, 2 s), which must not come."""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeDiscord]:
    yield from serving(FakeDiscord([MOD, WINNER, LOSER]))


@pytest.fixture(scope="module")
def gold(fake: FakeDiscord) -> Role:
    return fake.add_role("gold", 4)  # below the bot's own role: it may give it


@pytest.fixture(scope="module")
def bot(
    fake: FakeDiscord, gold: Role, database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BotProcess]:
    directory = tmp_path_factory.mktemp("feed-bot")
    yield from running(BotProcess(fake, write_config(directory, database=database)))


def posts(fake: FakeDiscord, channel_id: int, after: int) -> list[str]:
    return [
        e.payload.get("content", "")
        for e in fake.of_kind("message_create", after)
        if e.channel_id == channel_id
    ]


def board_edits(fake: FakeDiscord, message_id: int, after: int) -> list[Event]:
    return [e for e in fake.of_kind("message_edit", after) if e.message_id == message_id]


def role_calls(fake: FakeDiscord, after: int) -> list[tuple[str, int, int]]:
    return [
        (e.payload["method"], e.payload["user_id"], e.payload["role_id"])
        for e in fake.of_kind("member_role", after)
    ]


def test_command_line_changes_reach_the_bot_once(
    fake: FakeDiscord, bot: BotProcess, gold: Role, database: str
) -> None:
    modlog, live = fake.channels_of(GUILD_ID)
    fake.slash(MOD, "admin modlog", channel=modlog).reply()
    fake.slash(MOD, "admin rank add", role=gold, min_rating=510.0).reply()
    mark = fake.mark()
    fake.slash(MOD, "admin channel", channel=live).reply()
    board = fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == live.id, 10, mark
    )
    assert board.message_id is not None
    time.sleep(EDIT_SECONDS)  # the board may be edited again at once

    # A report: the board, the role and the mod log follow, each once.
    mark = fake.mark()
    reported = ladderbot(database, "report", f"<@{WINNER.id}> 3 | <@{LOSER.id}> 1")
    match_id = int(reported.split("#")[1].split()[0])
    edited = fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == board.message_id, 15, mark
    )
    assert f"{WINNER.id} — 520.0 · 1W 0D 0L" in edited.payload["embeds"][0]["description"]
    fake.wait_for(lambda e: e.kind == "member_role", 15, mark)
    fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == modlog.id and "Rank" in
        e.payload.get("content", ""), 15, mark,
    )  # fmt: skip
    time.sleep(QUIET_SECONDS)
    assert board_edits(fake, board.message_id, mark) == [edited]
    assert role_calls(fake, mark) == [("PUT", WINNER.id, gold.id)]
    assert sorted(posts(fake, modlog.id, mark)) == sorted(
        [
            f"Match #{match_id} was applied by the command line.",
            f"Rank roles: <@{WINNER.id}> gets <@&{gold.id}>",
        ]
    )
    assert gold.id in fake.held(GUILD_ID, WINNER.id)

    # A void and a settings change: each posted once, the role taken back once.
    mark = fake.mark()
    ladderbot(database, "void", str(match_id), "--reason", "typo")
    ladderbot(database, "settings", "min_games=2")
    fake.wait_for(lambda e: e.kind == "member_role", 15, mark)
    fake.wait_for(
        lambda e: e.kind == "message_create" and e.channel_id == modlog.id and "Settings" in
        e.payload.get("content", ""), 15, mark,
    )  # fmt: skip
    fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == board.message_id
        and str(WINNER.id) not in e.payload["embeds"][0]["description"], 15, mark,
    )  # fmt: skip
    time.sleep(QUIET_SECONDS)
    assert role_calls(fake, mark) == [("DELETE", WINNER.id, gold.id)]
    logged = posts(fake, modlog.id, mark)
    assert logged.count(f"Match #{match_id} was voided by the command line: typo.") == 1, logged
    settings = [line for line in logged if line.startswith("Settings changed by the command line")]
    assert len(settings) == 1 and "min_games" in settings[0], logged
    assert len(logged) == 3, logged  # and the rank role's line
    assert 1 <= len(board_edits(fake, board.message_id, mark)) <= 2
    bot.assert_alive()
    assert "Traceback" not in bot.output()


def test_the_bot_restarted_learns_nothing_twice(
    fake: FakeDiscord, bot: BotProcess, gold: Role, database: str
) -> None:
    """Changes told before a restart are not told again after it; the rank roles of changes
    made while the bot was down are caught up at start; a match reported in Discord and
    confirmed on the command line gets its message updated, once."""
    modlog, _ = fake.channels_of(GUILD_ID)
    bot.stop()
    for _ in range(2):  # min_games is 2
        ladderbot(database, "report", f"<@{WINNER.id}> 3 | <@{LOSER.id}> 1")
    mark = fake.mark()
    bot.start()
    fake.wait_for(lambda e: e.kind == "member_role", 15, mark)
    time.sleep(QUIET_SECONDS)
    assert role_calls(fake, mark) == [("PUT", WINNER.id, gold.id)]
    assert posts(fake, modlog.id, mark) == [f"Rank roles: <@{WINNER.id}> gets <@&{gold.id}>"]

    mark = fake.mark()
    pending = fake.slash(WINNER, "report duel", winner=WINNER, loser=LOSER).reply()
    assert pending.message_id is not None and "pending" in pending.embeds[0]["description"]
    match_id = int(pending.embeds[0]["title"].removeprefix("Match #"))
    assert posts(fake, modlog.id, mark) == []
    ladderbot(database, "confirm", str(match_id))
    edited = fake.wait_for(
        lambda e: e.kind == "message_edit" and e.message_id == pending.message_id, 15, mark
    )
    assert "applied" in edited.payload["embeds"][0]["description"]
    assert edited.payload["components"] == []  # no buttons left
    time.sleep(QUIET_SECONDS)
    edits = [e for e in fake.of_kind("message_edit", mark) if e.message_id == pending.message_id]
    assert edits == [edited]
    assert posts(fake, modlog.id, mark) == [f"Match #{match_id} was applied by the command line."]
    assert role_calls(fake, mark) == []  # gold already

    # A click on the message's own Confirm answers in place: no second edit of it.
    pending = fake.slash(WINNER, "report duel", winner=WINNER, loser=LOSER).reply()
    assert pending.message_id is not None
    mark = fake.mark()
    clicked = fake.click(LOSER, pending.message_id, pending.custom_ids()[0]).reply()
    assert clicked.kind == "update" and "applied" in clicked.embeds[0]["description"]
    time.sleep(1.0)
    assert [
        e for e in fake.of_kind("message_edit", mark) if e.message_id == pending.message_id
    ] == []
    bot.assert_alive()
