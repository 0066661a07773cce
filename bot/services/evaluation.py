"""Which rating predicts this community best? (SPEC 12): the evaluation of a guild's log and
the tuning of its ladder constants. Reads only; the numpy work runs in a worker thread.

Decisions the spec leaves open:
- A guild needs at least MIN_MATCHES applied matches; fewer are refused, saying how many.
- Evaluations run one at a time per process (EVALUATIONS), later ones waiting their turn.
- `last` is a whole number from 1 to MAX_LAST; more than the guild has evaluates them all.
- The JSON object carries exactly the keys of SPEC 12.1/12.2; the text and the embed
  (bot.present.evaluation) add the comparison with the guild's variant and the gain of the
  best constants, each with its standard error (clustered by match), and advise a switch
  (the /admin settings to apply) only for a lead of more than CHANCE standard errors.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from bot.config import Bound, GuildSettings, SettingError
from bot.ratings.evaluation import DEFAULT_LAST, Evaluation, MeasureScore, TuningPoint, evaluate
from bot.ratings.ladder import LadderSettings
from bot.services.context import ServiceContext, use_cases
from bot.services.errors import N_, Counted, UserError
from bot.services.progress import stage
from bot.services.replaying import SeasonStart, boundaries, ladder_settings, log_indices
from bot.storage import LOG_START, LogColumns

MIN_MATCHES: Final = 10
"""Fewer applied matches tell nothing about a community: the evaluation is refused."""
MAX_LAST: Final = 1_000_000
LAST_BOUND: Final = Bound(1, MAX_LAST, whole=True)
EVALUATIONS: Final = ThreadPoolExecutor(max_workers=1, thread_name_prefix="evaluation")
"""Evaluations run one at a time in a thread of their own: each holds a guild's whole log and
its histories (about 0.5 GB for the last 5,000 of 100,000 matches, tuned), so a second one
waits for the first instead of doubling that, and the shared worker threads stay free."""
CHANCE: Final = 2.0
"""A lead of log-loss within this many standard errors may be chance: no switch advised."""


def checked_last(last: Any) -> int:
    """`last` within LAST_BOUND, else UserError stating the bound."""
    try:
        return int(LAST_BOUND.check(last))
    except SettingError:
        raise UserError(
            N_("last must be a whole number from {low} to {high}, not {value}"),
            low=f"{LAST_BOUND.low:,.0f}",
            high=f"{LAST_BOUND.high:,.0f}",
            value=repr(last),
        ) from None


@dataclass(frozen=True, slots=True)
class GuildEvaluation:
    """A guild's evaluation with what it is compared against: the guild's settings (its
    variant and ladder constants)."""

    evaluation: Evaluation
    settings: GuildSettings

    @property
    def best(self) -> MeasureScore:
        return self.evaluation.best

    @property
    def variant(self) -> MeasureScore:
        """The figures of the guild's current variant."""
        return self.evaluation.score_of(self.settings.variant)

    def as_json(self) -> dict[str, Any]:
        """The object of SPEC 12.1 (and 12.2 when tuned)."""
        found: dict[str, Any] = {
            "matches": self.evaluation.matches,
            "measures": [
                {
                    "measure": score.measure,
                    "log_loss": score.log_loss,
                    "brier": score.brier,
                    "accuracy": score.accuracy,
                    "pairs": score.pairs,
                }
                for score in self.evaluation.scores
            ],
            "best": self.best.measure,
        }
        tuning = self.evaluation.tuning
        if tuning is not None:
            found["tuning"] = {
                "grid": [_point(point) for point in tuning.grid],
                "best": _point(tuning.best),
                "current": _point(tuning.current),
            }
        return found


def _point(point: TuningPoint) -> dict[str, float]:
    return {"t": point.t, "game_mult": point.game_mult, "log_loss": point.log_loss}


def evaluate_log(
    log: LogColumns,
    seasons: Sequence[SeasonStart],
    settings: LadderSettings,
    last: int,
    tune: bool,
) -> Evaluation:
    """bot.ratings.evaluation.evaluate over a guild's whole log (with its season starts):
    players indexed by ascending user id, so a match's opponents go by user id (SPEC 3.3)."""
    indexed = log_indices(log, seasons)
    return evaluate(
        indexed.match,
        indexed.player,
        log.side,
        log.score,
        log.minutes,
        len(indexed.members),
        settings,
        last,
        indexed.season_starts,
        [season.carry for season in seasons],
        tune=tune,
    )


@use_cases()
class Evaluations:
    """Evaluates a guild's stored log (what /admin evaluate and `ladderbot evaluate` call)."""

    def __init__(self, context: ServiceContext) -> None:
        self.context = context

    async def evaluate(
        self, guild_id: int, last: Any = DEFAULT_LAST, *, tune: bool = False
    ) -> GuildEvaluation:
        """Every measure's figures over the guild's last `last` applied matches, with the
        tuning of the ladder's constants when `tune`; UserError for a bad `last` or a guild
        with fewer than MIN_MATCHES applied matches."""
        count = checked_last(last)
        stage("reading the log")
        async with self.context.db.snapshot() as read:
            settings = await self.context.settings(guild_id)
            log = await read.log_columns(guild_id)
            crossed = await read.seasons_from(guild_id, LOG_START)
        matches = len(log.match_firsts())
        if matches < MIN_MATCHES:
            raise UserError(
                N_(
                    "an evaluation needs at least {least}; this server has {matches}: report "
                    "{more} first"
                ),
                least=Counted("{count} applied match", "{count} applied matches", MIN_MATCHES),
                matches=matches,
                more=Counted("{count} more", "{count} more", MIN_MATCHES - matches),
            )
        stage(
            f"evaluating the last matches ({min(count, matches):,})"
            + (", tuning t and game_mult" if tune else "")
        )
        evaluation = await asyncio.get_running_loop().run_in_executor(
            EVALUATIONS,
            evaluate_log,
            log,
            boundaries(log, crossed),
            ladder_settings(settings),
            count,
            tune,
        )
        return GuildEvaluation(evaluation, settings)
