"""Every refusal says what is wrong and changes nothing (a snapshot of all tables)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.services import (
    Actor,
    LineupEntry,
    MemberInfo,
    Player,
    Services,
    UserError,
    parse_lineup,
)

GUILD = 5
MOD = Actor(999, is_moderator=True)


def entries(*rows: tuple[int, str, float, float | None]) -> tuple[LineupEntry, ...]:
    return tuple(LineupEntry(Player(user_id=u), side, score, m) for u, side, score, m in rows)


async def seeded(services: Services) -> int:
    """A guild with history: two applied matches, one pending."""
    await services.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="a")
    await services.matches.report(GUILD, MOD, parse_lineup("<@2> 1 | <@3> 0"), request_id="b")
    await services.members.upsert(GUILD, [MemberInfo(50, "robot", is_bot=True)])
    await services.members.leave(GUILD, MemberInfo(4, "four"))
    pending = await services.matches.report(
        GUILD, Actor(1), parse_lineup("<@1> 1 | <@3> 0"), request_id="c"
    )
    return pending.match.id


CSV_HEAD = "match,played_at,side,player,score,minutes\n"
REFUSALS: list[tuple[str, Callable[[Services, int], Awaitable[object]], str]] = [
    (
        "one side",
        lambda s, _: s.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1, <@2> 0 | guest 3"), request_id="x"
        ),
        "at least two sides",
    ),
    (
        "only the left member rated",
        lambda s, _: s.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@4> 0"), request_id="x"),
        "at least two sides",
    ),
    (
        "same member twice",
        lambda s, _: s.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@!1> 0"), request_id="x"),
        "appears twice",
    ),
    (
        "a bot",
        lambda s, _: s.matches.report(GUILD, MOD, parse_lineup("<@1> 1 | <@50> 0"), request_id="x"),
        "is a bot",
    ),
    (
        "a bot seen in this very report",
        lambda s, _: s.matches.report(
            GUILD,
            MOD,
            parse_lineup("<@1> 1 | <@60> 0"),
            request_id="x",
            members=[MemberInfo(60, "hal", is_bot=True)],
        ),
        "is a bot",
    ),
    (
        "33 participants",
        lambda s, _: s.matches.report(
            GUILD, MOD, entries(*((u, str(u), 1.0, None) for u in range(1, 34))), request_id="x"
        ),
        "at most 32",
    ),
    (
        "negative score",
        lambda s, _: s.matches.report(
            GUILD, MOD, entries((1, "a", -1, None), (2, "b", 0, None)), request_id="x"
        ),
        "score -1",
    ),
    (
        "NaN score",
        lambda s, _: s.matches.report(
            GUILD, MOD, entries((1, "a", float("nan"), None), (2, "b", 0, None)), request_id="x"
        ),
        "score nan",
    ),
    (
        "infinite minutes",
        lambda s, _: s.matches.report(
            GUILD, MOD, entries((1, "a", 1, float("inf")), (2, "b", 0, None)), request_id="x"
        ),
        "minutes inf",
    ),
    (
        "minutes over a day",
        lambda s, _: s.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1 1441 | <@2> 0"), request_id="x"
        ),
        "minutes 1441",
    ),
    (
        "zero report minutes",
        lambda s, _: s.matches.report(
            GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="x", minutes=0
        ),
        "minutes 0",
    ),
    (
        "reporter not playing",
        lambda s, _: s.matches.report(
            GUILD, Actor(7), parse_lineup("<@1> 1 | <@2> 0"), request_id="x"
        ),
        "only report matches you played",
    ),
    ("void unknown match", lambda s, _: s.matches.void(GUILD, MOD, 12345), "no match #12345"),
    ("void by a member", lambda s, m: s.matches.void(GUILD, Actor(3), m), "only moderators"),
    (
        "confirm by the reporter",
        lambda s, m: s.matches.confirm(GUILD, Actor(1), m),
        "opponent of the reporter",
    ),
    (
        "confirm another guild's match",
        lambda s, m: s.matches.confirm(GUILD + 1, MOD, m),
        "no match #",
    ),
    (
        "unknown member card",
        lambda s, _: s.standings.rating_card(GUILD, 404),
        "<@404> has no ladder record",
    ),
    (
        "unknown member by name",
        lambda s, _: s.members.find(GUILD, "nobody"),
        "no member named",
    ),
    (
        "unknown variant",
        lambda s, _: s.standings.rating_card(GUILD, 1, "p9"),
        "unknown variant 'p9'",
    ),
    (
        "unknown measure",
        lambda s, _: s.standings.leaderboard(GUILD, by="elo"),
        "cannot rank by 'elo'",
    ),
    (
        "bad setting",
        lambda s, _: s.settings.change(GUILD, MOD, {"t": "abc"}),
        "setting t: must be a number from 1 to 10,000",
    ),
    ("unknown setting", lambda s, _: s.settings.change(GUILD, MOD, {"k": 1}), "setting k"),
    (
        "NaN setting",
        lambda s, _: s.settings.change(GUILD, MOD, {"game_mult": float("nan")}),
        "game_mult",
    ),
    (
        "csv with a bad score on line 4",
        lambda s, _: s.transfers.import_csv(
            GUILD,
            MOD,
            CSV_HEAD
            + "m1,2023-01-01T00:00:00Z,a,1,3,20\n"
            + "m1,2023-01-01T00:00:00Z,b,2,1,20\n"
            + "m2,2023-01-02T00:00:00Z,a,1,inf,20\n",
        ),
        "line 4: score 'inf'",
    ),
    (
        "csv with a one-sided match",
        lambda s, _: s.transfers.import_csv(
            GUILD,
            MOD,
            CSV_HEAD
            + "m1,2023-01-01T00:00:00Z,a,1,3,20\n"
            + "m1,2023-01-01T00:00:00Z,b,2,1,20\n"
            + "m2,2023-01-02T00:00:00Z,a,1,3,20\n"
            + "m2,2023-01-02T00:00:00Z,a,2,1,20\n",
        ),
        "line 4 (match 'm2')",
    ),
    (
        "csv with a bad time",
        lambda s, _: s.transfers.import_csv(GUILD, MOD, CSV_HEAD + "m1,yesterday,a,1,3,20\n"),
        "line 2: played_at 'yesterday'",
    ),
    (
        "csv with a bad player",
        lambda s, _: s.transfers.import_csv(GUILD, MOD, CSV_HEAD + "m1,2023-01-01,a,bob,3,20\n"),
        "line 2: player 'bob'",
    ),
    (
        "csv without the minutes column",
        lambda s, _: s.transfers.import_csv(GUILD, MOD, "match,played_at,side,player,score\n"),
        "line 1: the header lacks minutes",
    ),
]


@pytest.mark.parametrize(("case", "call", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
async def test_refused_with_a_message_and_nothing_changed(
    services: Services, case: str, call: Callable[[Services, int], Awaitable[object]], message: str
) -> None:
    pending = await seeded(services)
    before = await services.context.db.read.dump()
    with pytest.raises(UserError) as refusal:
        await call(services, pending)
    assert message in str(refusal.value)
    assert "\n" not in str(refusal.value)
    assert await services.context.db.read.dump() == before


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("<@1> 12 | <@2>", "'<@2>'"),
        ("<@1> 12 | <@2> twelve", "'twelve'"),
        ("<@1> 12 3 4 | <@2> 1", "'<@1> 12 3 4'"),
        ("<@1> 1 | ", "side 2"),
        ("<#5> 1 | <@2> 1", "'<#5>'"),
        ("", "empty"),
    ],
)
def test_malformed_lineup_quotes_the_entry(text: str, quoted: str) -> None:
    with pytest.raises(UserError, match=quoted):
        parse_lineup(text)
