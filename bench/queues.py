"""Benchmark: matchmaking queues (SPEC 10) through the service, to their pops.

Joins per second into 10 queues of sizes 2 to 32 (each its own transaction under the
guild's write lock; every `size`-th join pops a lobby, whose teams are made at once: ready
check off, balanced teams), one at a time and all at once; and the event loop's longest
stall (SPEC 8.5) during a burst of 1,000 joins fired at once, against the 100 ms target.
Every member joins once, so every join is accepted; a second burst mixes in refusals as a
real crowd does: 1,000 joins from 200 members (most of them already waiting or playing).
In the same run, the rating-range queues with parties of SPEC 10.5: the same 10 sizes with
range 150 and widen 25 (Elo) and parties of up to half a team, 1,000 rated members (Elo
1000-2000), a quarter of them in parties of two or three formed before the burst, each
leader's join bringing their party; every join reads the ratings of the queue's line and
its parties to find the pop, so pops per second are beside the plain queues'."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.harness import Table, format_seconds, verdict
from bench.responsiveness import SAMPLE_SECONDS, TARGET_STALL_SECONDS, loop_lag
from bench.service import ENGINE_NAMES, GUILD, MODERATOR, engines, temporary_ladder
from bot.services import MemberInfo, Services, UserError
from bot.services.core import elo_bridge
from bot.services.queues import Queues
from bot.storage.queues import QueueSettings

SIZES: tuple[int, ...] = (2, 4, 6, 8, 10, 12, 16, 20, 24, 32)
FIRST_USER = 10**16
RANGE, WIDEN = 150, 25


def plain(number: int, size: int) -> QueueSettings:
    return QueueSettings(f"q{number}", 1, size, ready_seconds=0)


def ranged(number: int, size: int) -> QueueSettings:
    """Range and widen, parties of up to half a team (two teams)."""
    return QueueSettings(
        f"r{number}", 1, size, ready_seconds=0, rating_range=RANGE, widen=WIDEN,
        party_max=max(1, size // 4),
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Workload:
    joins: int
    crowd: int
    """Members of the mixed burst."""


FULL = Workload(joins=1_000, crowd=200)
QUICK = Workload(joins=100, crowd=20)


@dataclass(frozen=True, slots=True)
class Burst:
    label: str
    joins: int
    accepted: int
    lobbies: int
    seconds: float
    longest_stall: float | None


async def _rate_and_group(
    services: Services, service: Queues, members: Sequence[int], seed: int
) -> set[int]:
    """Give the members Elo ratings of 1000-2000 and put a quarter of them in parties of two
    or three (leader first); the members who are not leaders of a party nor in one."""
    rng = random.Random(seed)
    settings = await services.settings.current(GUILD)
    bridge = elo_bridge(settings)
    async with services.context.write(GUILD) as unit:
        await unit.tx.set_ratings(
            GUILD, {m: float(bridge.from_elo(rng.uniform(1000, 2000))) for m in members}
        )
    mates: set[int] = set()
    grouped = list(members[: len(members) // 4])
    while len(grouped) >= 3:
        size = rng.choice((2, 3))
        leader, *others = grouped[:size]
        del grouped[:size]
        for other in others:
            await service.invite(GUILD, MemberInfo(leader, f"m{leader}"), MemberInfo(other, "o"))
            await service.answer_invite(GUILD, other, leader, accept=True)
            mates.add(other)
    return mates


def _order(joins: int, members: int, seed: int) -> list[tuple[int, int]]:
    """(member, queue) of each join: each member once while there are enough, then again."""
    rng = random.Random(seed)
    return [(FIRST_USER + (n % members), rng.randrange(len(SIZES)) + 1) for n in range(joins)]


async def _burst(
    engine: str,
    label: str,
    order: Sequence[tuple[int, int]],
    at_once: bool,
    queue: Callable[[int, int], QueueSettings] = plain,
) -> Burst:
    async with temporary_ladder(engine) as services:
        service = Queues(services.context, services.matches, rng=random.Random(1))
        for number, size in enumerate(SIZES):
            spec = queue(number, size)
            await service.create_queue(GUILD, MODERATOR, spec, pick_order_given=False)
        members = sorted({m for m, _ in order})
        await services.members.upsert(GUILD, [MemberInfo(m, f"m{m}") for m in members])
        if queue is ranged:  # the party members do not join themselves: their leader does
            mates = await _rate_and_group(services, service, members, seed=9)
            order = [(m, q) for m, q in order if m not in mates]
        accepted = 0

        async def join(member: int, queue_id: int) -> None:
            nonlocal accepted
            with contextlib.suppress(UserError):
                result = await service.join(GUILD, MemberInfo(member, f"m{member}"),
                                            queue_id=queue_id)  # fmt: skip
                accepted += not result.already

        async with loop_lag() as lag:
            started = time.perf_counter()
            if at_once:
                tasks = []
                for member, queue_id in order:  # as interactions arrive: one per loop turn
                    tasks.append(asyncio.create_task(join(member, queue_id)))
                    await asyncio.sleep(0)
                await asyncio.gather(*tasks)
            else:
                for member, queue_id in order:
                    await join(member, queue_id)
            seconds = time.perf_counter() - started
        lobbies = len(await service.open_lobbies(GUILD))
        return Burst(label, len(order), accepted, lobbies, seconds,
                     lag.longest if at_once else None)  # fmt: skip


async def bursts(workload: Workload, engine: str) -> list[Burst]:
    every = _order(workload.joins, workload.joins, seed=3)
    crowd = _order(workload.joins, workload.crowd, seed=4)
    return [
        await _burst(engine, "one at a time, each member once", every, at_once=False),
        await _burst(engine, "all at once, each member once", every, at_once=True),
        await _burst(
            engine, f"all at once, {workload.crowd:,} members (refusals mixed in)", crowd, True
        ),
        await _burst(
            engine, "all at once into range queues with parties", every, True, queue=ranged
        ),
    ]


def run(quick: bool) -> list[Table]:
    workload = QUICK if quick else FULL
    tables = []
    for engine in engines():
        table = Table(
            f"Queues: joins through the service to pops ({ENGINE_NAMES[engine]})",
            [
                "joins",
                "joins/s",
                "accepted",
                "lobbies popped",
                "pops/s",
                "longest loop stall",
                "target",
            ],
        )
        for burst in asyncio.run(bursts(workload, engine)):
            stall = burst.longest_stall
            table.add(
                f"{burst.joins:,} {burst.label}",
                f"{burst.joins / burst.seconds:,.0f}",
                f"{burst.accepted:,}",
                f"{burst.lobbies:,}",
                f"{burst.lobbies / burst.seconds:,.1f}",
                "—" if stall is None else format_seconds(stall),
                "—" if stall is None else f"<= 100 ms {verdict(stall <= TARGET_STALL_SECONDS)}",
            )
        table.notes.append(
            f"10 queues of sizes {', '.join(map(str, SIZES))}, ready check off (teams made at "
            "the pop, balanced); one guild, so every join waits for the guild's write lock; "
            f"a sampler task asks to wake every {SAMPLE_SECONDS * 1000:g} ms during the "
            f"bursts fired at once. The range queues: range {RANGE}, widen {WIDEN} Elo, "
            "parties of up to a quarter of the size; a quarter of the members in parties of 2 "
            "or 3 whose leaders join for them (so fewer joins are fired, each bringing more "
            "members; a leader's join into a queue too small for the party is refused); the "
            "burst lasts seconds, so a pop needs its players within about the range."
        )
        tables.append(table)
    return tables
