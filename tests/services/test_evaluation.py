"""The evaluation service (SPEC 12) over a stored guild, on both engines: the figures of the
pure evaluation of the same log, the JSON shape of SPEC 12.1/12.2, and its refusals."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

from bot.config import GuildSettings
from bot.present.evaluation import verdict
from bot.present.language import ENGLISH
from bot.present.words import discord_settings_command
from bot.ratings.evaluation import MEASURES, evaluate
from bot.services import Actor, Services, UserError
from bot.services.evaluation import MIN_MATCHES, evaluate_log
from bot.services.replaying import ladder_settings
from tests.services.evaluation_data import community, community_csv

GUILD = 77
MOD = Actor(1, is_moderator=True)


async def test_guild_evaluation_equals_the_log_evaluated(services: Services) -> None:
    """Imported matches with a season start inside them: the service's figures (and its
    tuning) are the pure evaluation's over the same columns and season start."""
    columns = community()
    await services.transfers.import_csv(GUILD, MOD, community_csv(columns, season=(30, 0.5)))
    found = await services.evaluation.evaluate(GUILD, 25, tune=True)
    expected = evaluate(
        *columns,
        12,
        ladder_settings(GuildSettings()),
        25,
        season_starts=[30],
        season_carry=[0.5],
        tune=True,
    )
    assert found.evaluation.matches == 25
    for got, want in zip(found.evaluation.scores, expected.scores, strict=True):
        assert got.measure == want.measure
        assert got.pairs == want.pairs
        assert (got.log_loss, got.brier, got.accuracy) == pytest.approx(
            (want.log_loss, want.brier, want.accuracy), abs=1e-12
        )
    assert found.evaluation.tuning is not None and expected.tuning is not None
    assert found.evaluation.tuning.best == pytest.approx(expected.tuning.best)

    shape = found.as_json()
    assert set(shape) == {"matches", "measures", "best", "tuning"}
    assert [entry["measure"] for entry in shape["measures"]] == list(MEASURES)
    assert all(
        set(entry) == {"measure", "log_loss", "brier", "accuracy", "pairs"}
        for entry in shape["measures"]
    )
    assert shape["best"] == found.best.measure
    assert set(shape["tuning"]) == {"grid", "best", "current"}
    assert shape["tuning"]["current"] == {"t": 120.0, "game_mult": 2.0, "log_loss": pytest.approx(
        found.evaluation.score_of("ladder").log_loss
    )}  # fmt: skip
    assert shape["tuning"]["current"] in shape["tuning"]["grid"]
    assert "p8" in verdict(found, discord_settings_command, ENGLISH)


async def test_refusals(services: Services) -> None:
    """Too few matches says how many are needed; `last` out of bounds names the bound."""
    columns = community(matches=MIN_MATCHES - 1)
    await services.transfers.import_csv(GUILD, MOD, community_csv(columns))
    service = services.evaluation
    with pytest.raises(
        UserError, match=f"at least {MIN_MATCHES} applied matches; this server has 9"
    ):
        await service.evaluate(GUILD)
    with pytest.raises(UserError, match="last must be a whole number from 1 to 1,000,000, not 0"):
        await service.evaluate(GUILD, 0)


async def test_the_numpy_work_runs_off_the_event_loop_one_at_a_time(
    services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk-forward (seconds for a big guild) runs in the evaluations' own thread, not on
    the loop; two asked for at once run one after the other."""
    columns = community(matches=MIN_MATCHES)
    await services.transfers.import_csv(GUILD, MOD, community_csv(columns))
    threads: list[str] = []
    running: list[int] = []
    overlapped: list[bool] = []

    def recorded(*arguments: Any) -> Any:
        threads.append(threading.current_thread().name)
        running.append(1)
        overlapped.append(len(running) > 1)
        time.sleep(0.2)
        try:
            return evaluate_log(*arguments)
        finally:
            running.pop()

    monkeypatch.setattr("bot.services.evaluation.evaluate_log", recorded)
    service = services.evaluation
    first, second = await asyncio.gather(service.evaluate(GUILD), service.evaluate(GUILD, 5))
    assert (first.evaluation.matches, second.evaluation.matches) == (MIN_MATCHES, 5)
    assert len(threads) == 2 and all(name.startswith("evaluation") for name in threads)
    assert overlapped == [False, False]
