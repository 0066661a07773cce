"""The one change path: each committed write reports one Change; refusals, retries and
no-ops report none; standings changes mark the guild changed for other processes; heavy
numpy work runs in a worker thread (SPEC 8.5)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

import bot.services.replaying as replaying_module
import bot.services.standings as standings_module
from bot.config import GuildSettings
from bot.present.language import refusal_text, words
from bot.services import (
    Actor,
    Change,
    MemberInfo,
    ServiceContext,
    Services,
    UserError,
    parse_lineup,
)
from bot.services.errors import Notice
from tests.services.conftest import Clock

GUILD = 5
MOD = Actor(999, is_moderator=True)


@pytest.fixture
def changes(services: Services) -> list[Change]:
    heard: list[Change] = []
    services.context.on_change = heard.append
    return heard


async def report(services: Services, actor: Actor, text: str, request: str) -> int:
    result = await services.matches.report(GUILD, actor, parse_lineup(text), request_id=request)
    return result.match.id


async def test_matches_report_their_rated_members(
    services: Services, changes: list[Change]
) -> None:
    applied = await report(services, MOD, "<@1> 1 | <@2> 0, guest 0", "r1")
    await report(services, MOD, "<@1> 1 | <@2> 0, guest 0", "r1")  # a retry changes nothing
    pending = await report(services, Actor(3), "<@3> 1 | <@4> 0", "r2")
    with pytest.raises(UserError):
        await services.matches.confirm(GUILD, Actor(3), pending)  # the reporter cannot confirm
    await services.matches.confirm(GUILD, Actor(4), pending)
    await services.matches.confirm(GUILD, Actor(4), pending)  # already applied: nothing
    disputed = await report(services, Actor(5), "<@5> 1 | <@6> 0", "r3")
    await services.matches.dispute(GUILD, Actor(6), disputed)
    await services.matches.dispute(GUILD, Actor(6), disputed)  # already disputed: nothing
    assert changes == [
        Change(GUILD, "applied", frozenset({1, 2}), match_id=applied, actor_id=MOD.user_id),
        Change(GUILD, "reported", match_id=pending, actor_id=3),
        Change(GUILD, "applied", frozenset({3, 4}), match_id=pending, actor_id=4),
        Change(GUILD, "reported", match_id=disputed, actor_id=5),
        Change(GUILD, "disputed", match_id=disputed, actor_id=6),
    ]
    assert [change.changes_standings for change in changes] == [True, False, True, False, False]


async def test_auto_confirm_reports_each_applied_match(
    services: Services, changes: list[Change], clock: Clock
) -> None:
    match_id = await report(services, Actor(1), "<@1> 1 | <@2> 0", "r")
    clock.now += 25 * 3600
    await services.matches.auto_confirm()
    assert changes[-1] == Change(GUILD, "applied", frozenset({1, 2}), match_id=match_id)


async def test_void_reports_the_replayed_members(services: Services, changes: list[Change]) -> None:
    first = await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    await report(services, MOD, "<@2> 1 | <@3> 0", "b")
    await report(services, MOD, "<@4> 1 | <@5> 0", "c")
    pending = await report(services, Actor(6), "<@6> 1 | <@7> 0", "d")
    del changes[:]
    with pytest.raises(UserError):
        await services.matches.void(GUILD, Actor(1), first)  # not a moderator
    await services.matches.void(GUILD, MOD, first, "wrong players")
    await services.matches.void(GUILD, MOD, pending)
    assert changes == [
        Change(GUILD, "voided", frozenset({1, 2, 3, 4, 5}), match_id=first,
               actor_id=MOD.user_id, detail="wrong players"),
        Change(GUILD, "voided", match_id=pending, actor_id=MOD.user_id),
    ]  # fmt: skip
    assert [change.changes_standings for change in changes] == [True, False]


async def test_replays_and_settings_report_everyone_when_standings_may_move(
    services: Services, changes: list[Change]
) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    del changes[:]
    await services.settings.recompute(GUILD, MOD)
    await services.settings.change(GUILD, MOD, {"min_games": 2})
    await services.settings.change(GUILD, MOD, {"t": 150.0, "variant": "p4"})
    await services.settings.change(GUILD, MOD, {"confirm": "none"})
    with pytest.raises(UserError):
        await services.settings.change(GUILD, MOD, {"min_games": -1})
    assert changes == [
        Change(GUILD, "replayed", actor_id=MOD.user_id),  # the stored ratings were the replay's
        Change(GUILD, "settings", everyone=True, actor_id=MOD.user_id, detail="min_games = 2"),
        Change(GUILD, "settings", everyone=True, actor_id=MOD.user_id,
               detail="t = 150.0, variant = p4"),
        Change(GUILD, "settings", actor_id=MOD.user_id, detail="confirm = none"),
    ]  # fmt: skip
    assert not changes[-1].changes_standings


async def test_join_and_leave_report_only_a_real_change(
    services: Services, changes: list[Change]
) -> None:
    info = MemberInfo(7, "seven")
    await services.members.join(GUILD, info)  # members start on the ladder: nothing changes
    left = await services.members.leave(GUILD, info)
    await services.members.leave(GUILD, info)
    joined = await services.members.join(GUILD, info)
    assert (left.enabled, joined.enabled) == (False, True)
    assert changes == [
        Change(GUILD, "membership", frozenset({7}), actor_id=7, detail="left the ladder"),
        Change(GUILD, "membership", frozenset({7}), actor_id=7, detail="joined the ladder"),
    ]


async def test_import_reports_the_replayed_members(
    services: Services, changes: list[Change]
) -> None:
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    csv = (
        "match,played_at,side,player,score,minutes\n"
        "m,2020-01-01T00:00:00Z,a,3,1,20\nm,2020-01-01T00:00:00Z,b,4,0,20\n"
    )
    result = await services.transfers.import_csv(GUILD, MOD, csv)
    assert replace(changes[-1], detail="") == Change(
        GUILD, "imported", frozenset({1, 2, 3, 4}), actor_id=MOD.user_id
    )
    detail = Notice.load(changes[-1].detail)
    assert str(detail) == f"1 match imported, {result.replayed} replayed"
    assert (
        refusal_text(detail, words("de")) == f"1 Match importiert, {result.replayed} neu berechnet"
    )


async def test_standings_changes_mark_the_guild_changed(services: Services, clock: Clock) -> None:
    """Another process's live board learns of a leave or a min_games change through the
    guild's change stamp (live_boards_due), not only through this process's listener."""
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    await services.standings.set_live_channel(GUILD, MOD, 77)
    writes: list[Callable[[], Any]] = [
        lambda: services.members.leave(GUILD, MemberInfo(1, "one")),
        lambda: services.settings.change(GUILD, MOD, {"min_games": 3}),
        lambda: services.settings.change(GUILD, MOD, {"confirm": "none"}),  # not standings
    ]
    due = []
    for write in writes:
        await services.standings.mark_live_board_edited(GUILD, 1234)
        clock.now += services.context.edit_seconds + 1
        assert await services.standings.live_boards_due() == []
        await write()
        due.append([board.guild_id for board in await services.standings.live_boards_due()])
    assert due == [[GUILD], [GUILD], []]


async def test_a_failing_listener_leaves_the_write_standing(services: Services) -> None:
    def broken(change: Change) -> None:
        raise RuntimeError("listener bug")

    services.context.on_change = broken
    result = await services.matches.report(
        GUILD, MOD, parse_lineup("<@1> 1 | <@2> 0"), request_id="r"
    )
    assert (
        result.applied and (await services.matches.show(GUILD, result.match.id)).status == "applied"
    )


def _recording_threads(
    monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str, threads: list[threading.Thread]
) -> None:
    original = getattr(module, name)

    def recorded(*args: Any, **options: Any) -> Any:
        threads.append(threading.current_thread())
        return original(*args, **options)

    monkeypatch.setattr(module, name, recorded)


async def test_replays_and_performances_run_in_a_worker_thread(
    database: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = Services.build(ServiceContext(database, GuildSettings(), clock=clock))
    threads: list[threading.Thread] = []
    _recording_threads(monkeypatch, replaying_module, "replay_log", threads)
    _recording_threads(monkeypatch, standings_module, "measured", threads)
    _recording_threads(monkeypatch, standings_module, "ranking_values", threads)
    await report(services, MOD, "<@1> 1 | <@2> 0", "a")
    await services.settings.recompute(GUILD, MOD)
    await services.standings.leaderboard(GUILD, by="p8")
    await services.standings.rating_card(GUILD, 1)
    assert len(threads) == 3
    assert threading.main_thread() not in threads
