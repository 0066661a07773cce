"""The /admin evaluate embed and its verdicts (no bot process: the embed alone, checked by
the rules the fake Discord applies): within Discord's limits at the largest figures, and
each verdict telling a moderator what to do."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from bot.app.embeds import evaluation_embed
from bot.config import GuildSettings
from bot.present.evaluation import tuning_table, tuning_verdict, verdict
from bot.present.language import ENGLISH, words
from bot.present.words import discord_settings_command
from bot.ratings.evaluation import (
    MEASURES,
    Evaluation,
    MeasureScore,
    Tuning,
    TuningPoint,
)
from bot.services.evaluation import MAX_LAST, GuildEvaluation
from tests.app.discord_rules import message_problems

LOSSES = {"ladder": 0.52, "p3": 0.50, "p8": 0.51}


def evaluation(
    losses: dict[str, float], tuned: bool = False, pairs: int = 10**12, error: float = math.nan
) -> Evaluation:
    """Every measure at log-loss 0.6 unless given, the baseline at ln 2; every difference
    (and the tuning's gain) with standard error `error`."""
    scores = tuple(
        MeasureScore(
            name, losses.get(name, 0.6931 if name == "baseline" else 0.6), 0.25, 0.5, pairs
        )
        for name in MEASURES
    )
    tuning = None
    if tuned:
        grid = (
            *(TuningPoint(t, g, 0.55 - t / 10_000) for t in (30.0, 600.0) for g in (0.25, 8.0)),
            TuningPoint(120.0, 2.0, losses.get("ladder", 0.6)),
        )
        best = min(grid, key=lambda point: point.log_loss)
        tuning = Tuning(grid, best, grid[-1], error)
    errors = tuple(
        tuple(0.0 if i == j else error for j in range(len(MEASURES))) for i in range(len(MEASURES))
    )
    return Evaluation(MAX_LAST, scores, tuning, errors)


def found(
    losses: dict[str, float], variant: str = "p8", tuned: bool = False, error: float = math.nan
) -> GuildEvaluation:
    return GuildEvaluation(
        evaluation(losses, tuned, error=error), replace(GuildSettings(), variant=variant)
    )


def test_the_largest_embed_fits_discord() -> None:
    """A million matches, a trillion pairs, tuned: Discord takes it, every measure shown."""
    embed = evaluation_embed(found(LOSSES, tuned=True)).to_dict()
    assert message_problems({"embeds": [embed]}) == []
    assert "1,000,000 matches" in embed["description"]
    assert "1,000,000,000,000 ordered pairs" in embed["description"]
    table = embed["description"].split("```")[1].strip().splitlines()
    assert [line.split()[0] for line in table[1:]] == list(MEASURES)
    assert "baseline: a coin toss" in embed["description"]
    assert [field["name"] for field in embed["fields"]] == [
        "Best measure",
        "Ladder constants",
        "Ladder log-loss: t down, game_mult across",
    ]


@pytest.mark.parametrize(
    ("losses", "variant", "expected"),
    [
        (LOSSES, "p3", "p3, this server's variant, predicts best (log-loss 0.5000)."),
        (
            LOSSES,
            "p8",
            "p3 predicts best (log-loss 0.5000); this server's variant p8 has 0.5100 "
            "(0.0100 more). /admin settings variant:p3 makes it the default.",
        ),
        (
            {"ladder": 0.45, "p8": 0.5},
            "p8",
            "ladder predicts best (log-loss 0.4500); this server's variant p8 has 0.5000 "
            "(0.0500 more). No other performance rating does better.",
        ),
        (
            {"ladder": 0.45, "p8": 0.5, "p6": 0.48},
            "p8",
            "ladder predicts best (log-loss 0.4500); this server's variant p8 has 0.5000 "
            "(0.0500 more). The best performance rating is p6 (0.4800, 0.0200 below p8). "
            "/admin settings variant:p6 makes it the default.",
        ),
        (
            {**{name: 0.7 for name in MEASURES if name != "baseline"}, "p8": 0.71},
            "p8",
            "baseline (a coin toss) predicts best (log-loss 0.6931): no rating foresees these "
            "results better than chance yet (too few matches, or results left to luck). This "
            "server's variant p8 has 0.7100.",
        ),
    ],
    ids=["yours-best", "another-variant", "ladder-yours-next", "ladder-another-next", "coin"],
)
def test_verdicts_say_what_to_do(losses: dict[str, float], variant: str, expected: str) -> None:
    assert verdict(found(losses, variant), discord_settings_command, ENGLISH) == expected


def test_tuning_verdicts_name_the_command() -> None:
    better = tuning_verdict(found(LOSSES, tuned=True), discord_settings_command, ENGLISH)
    assert better == (
        "Best of the 5 pairs of ladder constants tried: t 600, game_mult 0.25 (ladder log-loss "
        "0.4900, 0.0300 lower than with the current t 120, game_mult 2). Nothing was changed: "
        "/admin settings t:600 game_mult:0.25 applies them and replays every rating."
    )
    current = tuning_verdict(found({"ladder": 0.4}, tuned=True), discord_settings_command, ENGLISH)
    assert current == (
        "The current constants (t 120, game_mult 2) are the best of the 5 pairs of ladder "
        "constants tried (ladder log-loss 0.4000). Nothing was changed."
    )
    assert tuning_verdict(found(LOSSES), discord_settings_command, ENGLISH) is None


def test_a_lead_within_chance_advises_no_switch() -> None:
    """A lead within two standard errors is called chance; beyond them the command is named."""
    assert verdict(found(LOSSES, error=0.006), discord_settings_command, ENGLISH) == (
        "p3 predicts best (log-loss 0.5000); this server's variant p8 has 0.5100 (0.0100 ± "
        "0.0060 more). That is within chance: no reason to switch yet."
    )
    assert verdict(found(LOSSES, error=0.004), discord_settings_command, ENGLISH).endswith(
        "/admin settings variant:p3 makes it the default."
    )
    ladder_ahead = verdict(
        found({"ladder": 0.45, "p8": 0.5, "p6": 0.48}, error=0.02),
        discord_settings_command,
        ENGLISH,
    )
    assert ladder_ahead.endswith(
        "The best performance rating is p6 (0.4800, 0.0200 ± 0.0200 below p8). That is within "
        "chance: no reason to switch yet."
    )
    tuned = tuning_verdict(found(LOSSES, tuned=True, error=0.02), discord_settings_command, ENGLISH)
    assert tuned is not None and tuned.endswith(
        "(ladder log-loss 0.4900, 0.0300 ± 0.0200 lower than with the current t 120, "
        "game_mult 2). Nothing was changed: the gain is within chance, no reason to change "
        "them yet."
    )
    embed = evaluation_embed(found(LOSSES, tuned=True, error=0.02)).to_dict()
    assert message_problems({"embeds": [embed]}) == []


def test_the_tuning_table_has_a_row_per_t_and_a_column_per_game_mult() -> None:
    """The grid's points in place, the best marked *, the current constants (not a point of
    this grid) on a line of their own marked <."""
    assert tuning_table(found(LOSSES, tuned=True), ENGLISH) == [
        "    t   0.25       8",
        "   30 0.5470  0.5470",
        "  600 0.4900* 0.4900",
        "current (t 120, game_mult 2): 0.5200<",
        "* best   < current",
    ]
    assert tuning_table(found(LOSSES), ENGLISH) == []


def test_the_embed_speaks_the_members_language() -> None:
    """The table's header and marks, the verdicts and the numbers in German; the measures
    and the command keep their names."""
    embed = evaluation_embed(found(LOSSES, tuned=True, error=0.004), words("de")).to_dict()
    table = embed["description"].split("```")[1].strip().splitlines()
    assert table[0].split() == ["Kennzahl", "Log-Loss", "Brier", "Trefferquote"]
    assert table[4].split() == ["p3", "0,5000", "0,2500", "50,0%", "(beste)"]
    assert embed["fields"][0]["value"] == (
        "p3 sagt am besten vorher (Log-Loss 0,5000); die Variante dieses Servers, p8, hat "
        "0,5100 (0,0100 ± 0,0040 mehr). /admin settings variant:p3 macht sie zum Standard."
    )
    assert embed["fields"][1]["value"].startswith(
        "Beste der 5 getesteten Paare von Ladder-Konstanten: t 600, game_mult 0,25"
    )
    assert "aktuell (t 120, game_mult 2): 0,5200<" in embed["fields"][2]["value"]
