"""The one per-guild worker of the live boards, rank roles and queue messages
(bot.app.workers): bursts coalesce, failures are retried, shutdown lets a run finish."""

from __future__ import annotations

import asyncio

from bot.app.workers import GuildWorkers


async def test_a_burst_while_running_costs_one_more_run() -> None:
    runs: list[int] = []
    release = asyncio.Event()

    async def work(guild_id: int) -> None:
        runs.append(guild_id)
        await release.wait()

    workers = GuildWorkers("the test work", work)
    workers.touch(1)
    await asyncio.sleep(0)  # the first run has started
    for _ in range(50):
        workers.touch(1)
    workers.touch(2)
    release.set()
    await workers.idle()
    assert sorted(runs) == [1, 1, 2]


async def test_a_failed_run_is_retried_after_retry_seconds_and_without_them_is_not() -> None:
    calls: list[int] = []

    async def failing_once(guild_id: int) -> None:
        calls.append(guild_id)
        if len(calls) == 1:
            raise RuntimeError("Discord said no")

    workers = GuildWorkers("the test work", failing_once, retry_seconds=0.0)
    workers.touch(7)
    await workers.idle()
    assert calls == [7, 7]

    calls.clear()
    once = GuildWorkers("the test work", failing_once)
    once.touch(7)
    await once.idle()
    assert calls == [7]


async def test_close_lets_the_run_under_way_finish_and_cancels_the_waiting() -> None:
    started, release = asyncio.Event(), asyncio.Event()
    finished: list[int] = []

    async def turn(guild_id: int) -> None:
        if guild_id == 2:
            await asyncio.Event().wait()  # waits for its turn forever

    async def work(guild_id: int) -> None:
        started.set()
        await release.wait()
        finished.append(guild_id)

    workers = GuildWorkers("the test work", work, turn=turn)
    workers.touch(1)
    workers.touch(2)
    await started.wait()
    closing = asyncio.create_task(workers.close(timeout=60.0))
    await asyncio.sleep(0)
    release.set()
    await closing
    assert finished == [1]
    workers.touch(3)  # closed: nothing starts
    await workers.idle()
    assert finished == [1]
