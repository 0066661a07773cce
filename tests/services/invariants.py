"""The invariant of SPEC 2.5, checked against an independent replay of the stored log."""

from __future__ import annotations

import numpy as np
import pytest

from bot.ratings.ladder import LadderSettings
from bot.ratings.replay import replay_sequential
from bot.services import Ladder


async def assert_log_is_truth(ladder: Ladder, guild_id: int) -> None:
    """Replaying the applied matches in log order from scratch (bot.ratings.replay) gives
    every stored rating_before/after and every member's rating and record."""
    settings = await ladder.settings(guild_id)
    matches = await ladder.db.read.applied_matches(guild_id)
    rows = [(index, p) for index, m in enumerate(matches) for p in m.participants if p.enabled]
    user_ids = dict.fromkeys(p.user_id for _, p in rows)
    players = {user_id: n for n, user_id in enumerate(user_ids)}
    sides: dict[str, int] = {}
    replay = replay_sequential(
        [index for index, _ in rows],
        [players[p.user_id] for _, p in rows],
        [sides.setdefault(p.side, len(sides)) for _, p in rows],
        [p.score for _, p in rows],
        [p.minutes for _, p in rows],
        len(players),
        LadderSettings(
            settings.t, settings.game_mult, settings.max_game_length, settings.initial_rating
        ),
    )
    stored_before = [p.rating_before for _, p in rows]
    stored_after = [p.rating_after for _, p in rows]
    assert stored_before == pytest.approx(replay.before.tolist(), abs=1e-9)
    assert stored_after == pytest.approx(replay.after.tolist(), abs=1e-9)
    for m in matches:
        for p in m.participants:
            assert (p.rating_before is None) == (not p.enabled)
    for member in await ladder.db.read.members(guild_id):
        played = [p for _, p in rows if p.user_id == member.user_id]
        assert member.games == len(played)
        assert member.wins == sum(p.outcome == "win" for p in played)
        assert member.losses == sum(p.outcome == "loss" for p in played)
        if member.user_id in players:
            expected = float(replay.final[players[member.user_id]])
            assert member.rating == pytest.approx(expected, abs=1e-9)
        else:
            assert member.rating is None
    assert np.isfinite(replay.final).all()
