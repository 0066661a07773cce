"""The stall sampler of the responsiveness benchmark sees a blocked loop, and the benchmark
runs on a tiny guild. Nothing here asserts a speed."""

from __future__ import annotations

import time

from bench.responsiveness import SAMPLE_SECONDS, Sizes, loop_lag, stalls

BLOCKED_SECONDS = 0.05


async def test_the_sampler_sees_the_loop_blocked() -> None:
    async with loop_lag() as lag:
        time.sleep(BLOCKED_SECONDS)  # blocks the event loop on purpose
    assert lag.longest >= BLOCKED_SECONDS - SAMPLE_SECONDS


async def test_each_heavy_operation_is_measured_on_a_tiny_guild() -> None:
    found = await stalls(Sizes(matches=40, members=6))
    assert [stall.operation.split()[0] for stall in found] == [
        "import_csv", "recompute", "/leaderboard", "void", "whole", "'My",
    ]  # fmt: skip
    for stall in found:  # the sampler woke during each, and saw no stall longer than it ran
        assert stall.seconds > 0 and stall.samples >= 1, stall
        assert 0 <= stall.longest_stall <= stall.watched, stall
        assert stall.seconds <= stall.watched, stall
