"""End to end through the fake Discord: /h2h, /balance, /match list pages and the
leaderboard's "my rank" button, each reply within Discord's limits."""

from __future__ import annotations

import re

from tests.app.fakediscord import FakeDiscord, Member, Reply
from tests.app.harness import MOD, PAGE_SIZE, PLAYERS, ROBOT, BotProcess, Players

FIELDS_MAX, FIELD_VALUE_MAX, FIELD_NAME_MAX = 25, 1024, 256
TITLE_MAX, DESCRIPTION_MAX, FOOTER_MAX, EMBED_TOTAL_MAX, CONTENT_MAX = 256, 4096, 2048, 6000, 2000


def within_limits(reply: Reply) -> Reply:
    """Discord's limits on a message: content, fields, field sizes, the embed's total."""
    assert len(reply.content or "") <= CONTENT_MAX
    for embed in reply.embeds:
        fields = embed.get("fields", [])
        assert len(fields) <= FIELDS_MAX
        assert all(len(f["value"]) <= FIELD_VALUE_MAX for f in fields)
        assert all(len(f["name"]) <= FIELD_NAME_MAX for f in fields)
        assert len(embed.get("title", "")) <= TITLE_MAX
        assert len(embed.get("description", "")) <= DESCRIPTION_MAX
        footer = embed.get("footer", {}).get("text", "")
        assert len(footer) <= FOOTER_MAX
        total = len(embed.get("title", "")) + len(embed.get("description", "")) + len(footer)
        total += sum(len(f["name"]) + len(f["value"]) for f in fields)
        assert total <= EMBED_TOTAL_MAX
    return reply


def field(reply: Reply, prefix: str) -> str:
    return next(f["value"] for f in reply.embeds[0]["fields"] if f["name"].startswith(prefix))


def refused(reply: Reply, *words: str) -> None:
    assert reply.ephemeral and not reply.embeds, reply
    for word in words:
        assert word in (reply.content or ""), reply.content


def duel(fake: FakeDiscord, winner: Member, loser: Member, draw: bool = False) -> None:
    reply = fake.slash(MOD, "report duel", winner=winner, loser=loser, draw=draw).reply()
    assert "applied" in reply.embeds[0]["description"], reply


def test_h2h_shows_record_chances_and_last_meetings(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    a, b, c = players.take(3)
    duel(fake, a, b)
    duel(fake, b, a)
    duel(fake, a, b)
    duel(fake, a, b, draw=True)
    duel(fake, a, c)  # not a meeting of a and b
    reply = within_limits(fake.slash(c, "h2h", a=a, b=b).reply())
    assert not reply.ephemeral
    assert field(reply, "Record of") == "2W 1D 1L in 4 meetings"
    assert re.fullmatch(r"player\d+ wins with \d+\.\d%", field(reply, "Ladder"))
    assert field(reply, "Performance")
    meetings = field(reply, "Last meetings").splitlines()
    assert len(meetings) == 4
    assert [line.rsplit(" ", 1)[1] for line in meetings] == ["drew", "won", "lost", "won"]
    other_side = within_limits(fake.slash(c, "h2h", a=b, b=a).reply())
    assert field(other_side, "Record of") == "1W 1D 2L in 4 meetings"

    strangers = within_limits(fake.slash(c, "h2h", a=b, b=c).reply())
    assert "not met" in field(strangers, "Last meetings")
    refused(fake.slash(a, "h2h", a=a, b=a).reply(), "same member")
    refused(fake.slash(a, "h2h", a=a, b=ROBOT).reply(), "bot")


def test_balance_splits_members_and_guests_into_even_teams(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    strong, weak, third, fourth = players.take(4)
    for _ in range(3):
        duel(fake, strong, weak)
    text = f"<@{strong.id}> <@{weak.id}>, <@{third.id}> guest_**bob**"
    reply = within_limits(fake.slash(MOD, "balance", players=text).reply())
    teams = [f for f in reply.embeds[0]["fields"] if f["name"].startswith("Team")]
    assert len(teams) == 2
    placed = "\n".join(team["value"] for team in teams)
    assert f"<@{strong.id}>" in placed and f"<@{weak.id}>" in placed
    assert r"guest\_\*\*bob\*\*" in placed  # the guest's name shown literally
    together = next(team["value"] for team in teams if f"<@{strong.id}>" in team["value"])
    assert f"<@{weak.id}>" in together  # the strongest with the weakest: the even split
    shown = [re.search(r"wins (\d+\.\d)%", team["name"]) for team in teams]
    chances = [float(found[1]) for found in shown if found is not None]
    assert len(chances) == len(teams)
    assert abs(sum(chances) - 100) <= 0.1

    everyone = " ".join(f"<@{player.id}>" for player in PLAYERS[:32])
    big = within_limits(fake.slash(MOD, "balance", players=everyone, teams=4).reply())
    assert len([f for f in big.embeds[0]["fields"] if f["name"].startswith("Team")]) == 4
    assert "heuristic" in big.embeds[0]["description"]

    refused(fake.slash(MOD, "balance", players=f"<@{fourth.id}> <@{fourth.id}>").reply(), "twice")
    refused(fake.slash(MOD, "balance", players=f"<@{fourth.id}> <@{ROBOT.id}>").reply(), "bot")
    too_many = " ".join(f"guest{number}" for number in range(33))
    refused(fake.slash(MOD, "balance", players=too_many).reply(), "33", "2 to 32")
    refused(fake.slash(MOD, "balance", players="solo", teams=2).reply(), "player count 1")
    refused(fake.slash(MOD, "balance", players="a b c", teams=4).reply(), "at most")


def test_match_list_pages_for_its_caller_only(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    member, *opponents = players.take(PAGE_SIZE + 2)
    for opponent in opponents:
        duel(fake, member, opponent)
    first = within_limits(fake.slash(opponents[0], "match list", member=member).reply())
    assert first.embeds[0]["footer"]["text"] == f"page 1 of 2 · {PAGE_SIZE + 1} matches"
    assert member.name in first.embeds[0]["title"]
    assert len(first.embeds[0]["description"].splitlines()) == PAGE_SIZE
    _, following = first.custom_ids()
    refused(fake.click(member, first.message_id, following).reply(), "Only the member")
    second = within_limits(fake.click(opponents[0], first.message_id, following).reply())
    assert second.kind == "update"
    assert second.embeds[0]["footer"]["text"].startswith("page 2 of 2")
    assert len(second.embeds[0]["description"].splitlines()) == 1
    back = fake.click(opponents[0], first.message_id, second.custom_ids()[0]).reply()
    assert back.embeds[0]["description"] == first.embeds[0]["description"]

    everyone = within_limits(fake.slash(member, "match list").reply())
    assert everyone.embeds[0]["title"] == "Matches"
    assert re.match(r"page 1 of \d+ · \d+ matches", everyone.embeds[0]["footer"]["text"])


def test_my_rank_jumps_to_the_callers_page_and_the_board_shows_its_time(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    group = players.take(2 * (PAGE_SIZE + 1))
    for winner, loser in zip(group[::2], group[1::2], strict=True):
        duel(fake, winner, loser)
    caller = group[-1]  # a loser: below every winner, so not on the first page
    first = within_limits(fake.slash(caller, "leaderboard").reply())
    assert first.embeds[0]["timestamp"]
    assert first.embeds[0]["footer"]["text"].startswith("page 1 of ")
    *_, mine = first.custom_ids()
    assert len(first.custom_ids()) == 3
    assert mine.endswith(":mine")
    jumped = within_limits(fake.click(caller, first.message_id, mine).reply())
    assert jumped.kind == "update"
    assert not jumped.embeds[0]["footer"]["text"].startswith("page 1 of ")
    marked = [line for line in jumped.embeds[0]["description"].splitlines() if "▶" in line]
    assert len(marked) == 1 and f" {caller.name} — " in marked[0]

    own = within_limits(fake.click(group[0], first.message_id, mine).reply())
    assert own.ephemeral and f" {group[0].name} — " in next(
        line for line in own.embeds[0]["description"].splitlines() if "▶" in line
    )
    refused(fake.click(MOD, first.message_id, mine).reply(), "not on the ladder leaderboard")
