"""Rating-range matchmaking (SPEC 10.5) on both engines: a pop never takes a member outside
the window (range + widen x minutes waited) of the queue's longest-waiting member at that
moment, and takes that member and the earliest joiners inside it; a queue that could pop
does, on the join or on the timed check; a spread queue pops once its window has widened
enough; joins from several processes at once pop no member outside a window or twice."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.config import GuildSettings
from bot.services import Actor, MemberInfo, ServiceContext, Services, UserError
from bot.services.core import elo_bridge
from bot.services.queues import Queues
from bot.storage import Database
from bot.storage.queues import Lobby, Queue, QueueSettings, Waiting
from tests.services.conftest import Clock
from tests.storage.engines import OpenDatabase

GUILD = 33
MOD = Actor(999, is_moderator=True)
DEFAULTS = GuildSettings()
RANGED = QueueSettings("ranked", 1, 4, ready_seconds=0, rating_range=100, widen=50)


async def seed_ratings(services: Services, elo: dict[int, float]) -> dict[int, float]:
    """Members with these Elo ratings; the ratings as the bot reads them back (the ladder
    stores its own scale)."""
    bridge = elo_bridge(DEFAULTS)
    ladder = {user: float(bridge.from_elo(rating)) for user, rating in elo.items()}
    async with services.context.write(GUILD) as unit:
        await unit.tx.ensure_guild(GUILD, DEFAULTS)
        await unit.tx.add_members(GUILD, list(elo))
        await unit.tx.set_ratings(GUILD, ladder)
    return {user: float(bridge.to_elo(rating)) for user, rating in ladder.items()}


def poppable(queue: Queue, elo: dict[int, float], now: float) -> list[int] | None:
    """The test's own reading of SPEC 10.5: whom the queue must pop now (None: nobody)."""
    spec = queue.settings
    if len(queue.waiting) < spec.size:
        return None
    anchor = queue.waiting[0]
    for waiting in queue.waiting:
        if waiting.joined_at < anchor.joined_at:
            anchor = waiting
    reach = spec.rating_range + spec.widen * (now - anchor.joined_at) / 60
    near = [
        w.user_id
        for w in queue.waiting
        if w != anchor and abs(elo[w.user_id] - elo[anchor.user_id]) <= reach
    ]
    if len(near) < spec.size - 1:
        return None
    chosen = {anchor.user_id, *near[: spec.size - 1]}
    return [w.user_id for w in queue.waiting if w.user_id in chosen]


def check_pops(before: Queue, popped: tuple[Lobby, ...], elo: dict[int, float], now: float) -> None:
    expected = poppable(before, elo, now)
    if expected is None:
        assert not popped
        return
    first = popped[0]
    assert [p.user_id for p in first.players] == expected
    anchor = min(before.waiting, key=lambda w: w.joined_at)
    reach = RANGED.rating_range + RANGED.widen * (now - anchor.joined_at) / 60
    assert all(abs(p.rating - elo[anchor.user_id]) <= reach + 1e-6 for p in first.players)


operation = st.one_of(
    st.tuples(st.just("join"), st.integers(1, 10)),
    st.tuples(st.just("join"), st.integers(1, 10)),
    st.tuples(st.just("wait"), st.sampled_from([15, 40, 90, 300])),
    st.tuples(st.just("cancel"), st.integers(1, 10)),
)


async def run(
    fresh_database: OpenDatabase, ratings: list[float], steps: list[tuple[str, int]]
) -> None:
    db = await fresh_database()
    clock = Clock()
    services = Services.build(ServiceContext(db, DEFAULTS, clock=clock))
    service = Queues(services.context, services.matches, rng=random.Random(2))
    try:
        elo = await seed_ratings(services, dict(enumerate(ratings, 1)))
        queue = await service.create_queue(GUILD, MOD, RANGED, pick_order_given=False)
        for kind, arg in steps:
            before = await service.queue(GUILD, queue.queue_id)
            assert before is not None
            if kind == "join":
                try:
                    result = await service.join(GUILD, MemberInfo(arg, f"u{arg}"))
                except UserError:
                    continue  # in a lobby: refused
                if not result.already:
                    joined = replace_waiting(before, arg, clock.now)
                    check_pops(joined, result.lobbies, elo, clock.now)
            elif kind == "wait":
                clock.now += arg
                opened = {lobby.lobby_id for lobby in await service.open_lobbies(GUILD)}
                await service.run_due()
                after = await service.open_lobbies(GUILD)
                popped = tuple(lobby for lobby in after if lobby.lobby_id not in opened)
                expired = [
                    w for w in before.waiting if w.joined_at + 60 * 60 > clock.now
                ]  # the timed actions expire members first (expire_minutes 60)
                check_pops(replace_line(before, expired), popped, elo, clock.now)
            else:
                lobby_id = await db.read.open_lobby_of(GUILD, arg)
                if lobby_id is not None:
                    await service.cancel(GUILD, MOD, lobby_id)
            now_queue = await service.queue(GUILD, queue.queue_id)
            assert now_queue is not None
            assert poppable(now_queue, elo, clock.now) is None  # nothing left that must pop
    finally:
        await services.close()


def replace_line(queue: Queue, waiting: list[Waiting]) -> Queue:
    return replace(queue, waiting=tuple(waiting))


def replace_waiting(queue: Queue, user_id: int, now: float) -> Queue:
    return replace_line(queue, [*queue.waiting, Waiting(user_id, now)])


@settings(
    max_examples=7,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(st.integers(1000, 2000).map(float), min_size=10, max_size=10),
    st.lists(operation, min_size=1, max_size=25),
)
def test_a_pop_never_takes_a_member_outside_the_longest_waiting_members_window(
    fresh_database: OpenDatabase, ratings: list[float], steps: list[tuple[str, int]]
) -> None:
    asyncio.run(run(fresh_database, ratings, steps))


async def test_a_spread_queue_pops_on_the_timed_check_once_its_window_widened_enough(
    fresh_database: OpenDatabase,
) -> None:
    """Four members 300 Elo apart (range 100, widen 50 a minute): the window of the first
    reaches the last (900 Elo away) after 16 minutes; not a check before, the first check
    after; a member with no rating counts at initial_rating (1500 Elo)."""
    db = await fresh_database()
    clock = Clock()
    services = Services.build(ServiceContext(db, DEFAULTS, clock=clock))
    service = Queues(services.context, services.matches, rng=random.Random(2))
    try:
        await seed_ratings(services, {1: 1000.0, 2: 1300.0, 3: 1900.0})
        await service.create_queue(GUILD, MOD, RANGED, pick_order_given=False)
        for user in (1, 2, 3, 4):  # 4: never rated, 1500
            result = await service.join(GUILD, MemberInfo(user, f"u{user}"))
            assert not result.lobbies
            clock.now += 1
        clock.now += 16 * 60 - 5
        assert await service.run_due() == 0
        assert not await service.open_lobbies(GUILD)
        clock.now += 2
        assert await service.run_due() == 1
        (lobby,) = await service.open_lobbies(GUILD)
        assert [p.user_id for p in lobby.players] == [1, 2, 3, 4]
        assert [round(p.rating) for p in lobby.players] == [1000, 1300, 1900, 1500]
        assert await service.run_due() == 0
    finally:
        await services.close()


async def test_joins_from_three_processes_at_once_pop_only_within_windows(
    database_url: str,
) -> None:
    """Three processes on one database, 120 joins of 40 rated members into two range
    queues at once, then the timed checks of all three at once: every member ends in at
    most one open lobby or waits; each lobby's players lie within the range of its first
    player (all joined at the same moment, so the longest-waiting is the first in line and
    the window is the range); nothing is left that could pop."""
    clock = Clock()
    processes = [
        Services.build(ServiceContext(await Database.open(database_url), DEFAULTS, clock=clock))
        for _ in range(3)
    ]
    services = [Queues(p.context, p.matches, rng=random.Random(n)) for n, p in enumerate(processes)]
    rng = random.Random(8)
    try:
        elo = await seed_ratings(
            processes[0], {u: float(rng.randint(1400, 1600)) for u in range(1, 41)}
        )
        for name in ("ranked", "ranked2"):
            await services[0].create_queue(
                GUILD, MOD, replace(RANGED, name=name), pick_order_given=False
            )
        order = [(rng.randint(1, 40), rng.randint(1, 2)) for _ in range(120)]

        async def join(number: int, user: int, queue_id: int) -> None:
            with contextlib.suppress(UserError):
                await services[number % 3].join(
                    GUILD, MemberInfo(user, f"u{user}"), queue_id=queue_id
                )

        await asyncio.gather(*(join(n, u, q) for n, (u, q) in enumerate(order)))
        await asyncio.gather(*(s.run_due() for s in services))
        lobbies = await services[1].open_lobbies(GUILD)
        assert len(lobbies) >= 3
        in_lobbies = Counter(p.user_id for lobby in lobbies for p in lobby.players)
        assert set(in_lobbies.values()) == {1}
        for lobby in lobbies:
            anchor = elo[lobby.players[0].user_id]
            assert all(abs(elo[p.user_id] - anchor) <= RANGED.rating_range for p in lobby.players)
        for queue in await services[2].queues(GUILD):
            assert not {w.user_id for w in queue.waiting} & in_lobbies.keys()
            assert poppable(queue, elo, clock.now) is None
    finally:
        for process in processes:
            await process.close()
