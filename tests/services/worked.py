"""SPEC 2.3's worked examples as lineups, with set-up reports that bring members to the
ratings the examples start from (shared by the service and the CLI tests).

A member gets an exact rating change of ±2·m (m ≤ 20 minutes) by beating (or losing to)
eight newcomers in a team game: its |offset| is the largest, so step 7 scales it to exactly
time_h · game_mult whatever the ratings, while each newcomer moves by a small amount.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import count

GUILD = 77
NEWCOMERS = 8
INITIAL = 500.0

_fresh_ids = count(10_000)


def set_up(user: int, target: float) -> Iterator[str]:
    """Lineups that move `user` from the initial rating to `target` (steps of at most 40)."""
    remaining = target - INITIAL
    while abs(remaining) > 1e-9:
        step = max(-40.0, min(40.0, remaining))
        minutes = abs(step) / 2
        others = ", ".join(
            f"<@{next(_fresh_ids)}> {0 if step > 0 else 1} {minutes}" for _ in range(NEWCOMERS)
        )
        yield f"<@{user}> {1 if step > 0 else 0} {minutes} | {others}"
        remaining -= step


# (ratings before, lineup of the example match, expected change per user id)
EXAMPLES: list[tuple[dict[int, float], str, dict[int, float]]] = [
    ({1: 500, 2: 500}, "<@1> 1 20 | <@2> 0 20", {1: 20.0, 2: -20.0}),
    ({3: 400, 4: 650}, "<@3> 1 20 | <@4> 0 20", {3: 35.5709, 4: -35.5709}),
    (
        {5: 500, 6: 500, 7: 500, 8: 500},
        "<@5> 40 20, <@6> 30 20, <@7> 20 20, <@8> 10 20",
        {5: 40.0, 6: 13.3333, 7: -13.3333, 8: -40.0},
    ),
    ({9: 520, 10: 480}, "<@9> 3 5 | <@10> 6 30", {9: 4.1743, 10: -4.1743}),
    (
        {11: 600, 12: 500, 13: 450, 14: 500},
        "<@11> 10 20, <@12> 8 20 | <@13> 9 15, <@14> 1 20",
        {11: -8.1170, 12: 1.3909, 13: 30.0000, 14: -23.2739},
    ),
]
