"""Hypothesis strategies and a plain-Python restatement of SPEC 1.3/1.4 to check against."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from bot.ratings.gamelist import Game

VARIANT_NAMES = tuple(f"p{number}" for number in range(1, 9))

games_strategy = st.builds(
    Game,
    result=st.sampled_from((0.0, 0.5, 1.0)),
    rating=st.integers(-1000, 4000).map(float),
    opponent=st.sampled_from(("a", "b", "c", "d", "unknown")),
)
game_lists = st.lists(games_strategy, max_size=30)


def spec_weights(games: list[Game], variant: str) -> list[float]:
    """k_i exactly as the table of SPEC 1.4 states it, one game at a time."""
    names = [game.opponent for game in games]
    weights = []
    for i, name in enumerate(names):
        count = names.count(name)
        newer_same = names[:i].count(name)
        distinct_newer = len(set(names[:i]))
        d = 0.98
        k = {
            "p1": 1.0,
            "p2": 1.0,
            "p3": d**i,
            "p4": d**i / math.sqrt(count),
            "p5": d**i / math.sqrt(min(count, 50)),
            "p6": d**distinct_newer / math.sqrt(min(count, 50)),
            "p7": d**distinct_newer
            * d**newer_same
            * min(math.sqrt(count), 5)
            / sum(d**t for t in range(count)),
        }
        weights.append(k["p7" if variant == "p8" else variant])
    return weights


SPEC_FICTITIOUS = {
    "p1": (),
    **{f"p{number}": ((0.1, 0.5, 0.0),) for number in range(2, 8)},
    "p8": ((0.1, 0.5, 1500.0), (0.1, 0.5, 1500.0)),
}


def spec_equation(games: list[Game], variant: str, rating: float) -> float:
    """f(RP) of SPEC 1.3 with math.pow, one term at a time."""
    terms = [
        (k, game.result, game.rating)
        for k, game in zip(spec_weights(games, variant), games, strict=True)
    ]
    terms += SPEC_FICTITIOUS[variant]
    return sum(k * (w - 1 / (1 + 10 ** ((r - rating) / 400))) for k, w, r in terms)
