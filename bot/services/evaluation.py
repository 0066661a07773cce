"""Which rating predicts this community best? (SPEC 12): the evaluation of a guild's log and
the tuning of its ladder constants. Reads only; the numpy work runs in a worker thread.

Decisions the spec leaves open:
- A guild needs at least MIN_MATCHES applied matches; fewer are refused, saying how many.
- Evaluations run one at a time per process (EVALUATIONS), later ones waiting their turn.
- `last` is a whole number from 1 to MAX_LAST; more than the guild has evaluates them all.
- The JSON object carries exactly the keys of SPEC 12.1/12.2; the text and the embed add
  the comparison with the guild's variant and the gain of the best constants, each with
  its standard error (clustered by match), and advise a switch (the /admin settings to
  apply) only for a lead of more than CHANCE standard errors.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final

from bot.config import Bound, GuildSettings, SettingError
from bot.ratings.evaluation import BASELINE, DEFAULT_LAST, Evaluation, MeasureScore, TuningPoint
from bot.ratings.variants import VARIANTS
from bot.services.context import ServiceContext, use_cases
from bot.services.errors import N_, Counted, UserError
from bot.services.progress import stage
from bot.services.replaying import boundaries, evaluate_log, ladder_settings
from bot.storage import LOG_START

SettingsCommand = Callable[[Mapping[str, str]], str]
"""How the asking front end spells a settings change (bot.present.words): the verdicts name
the command that applies their advice, and the services know no front end's syntax."""

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

    def table(self) -> list[str]:
        """One line per measure (log-loss, Brier, accuracy) under a header, in columns; the
        best measure and the guild's variant marked."""
        best, mine = self.best.measure, self.settings.variant
        marks = {best: "best", mine: "yours"} if best != mine else {best: "best, yours"}
        return [
            f"{'measure':<9} {'log-loss':>8} {'Brier':>7} {'accuracy':>8}",
            *(
                f"{s.measure:<9} {s.log_loss:>8.4f} {s.brier:>7.4f} {s.accuracy:>8.1%}"
                + (f"  ({marks[s.measure]})" if s.measure in marks else "")
                for s in self.evaluation.scores
            ),
        ]

    def verdict(self, settings_command: SettingsCommand) -> str:
        """Which measure predicts best, how the guild's variant compares, and whether the best
        performance rating is worth switching to (ahead by more than CHANCE standard errors)."""
        best, mine = self.best, self.variant
        if best.measure == BASELINE:
            return (
                f"{BASELINE} (a coin toss) predicts best (log-loss {best.log_loss:.4f}): no "
                "rating foresees these results better than chance yet (too few matches, or "
                f"results left to luck). This server's variant {mine.measure} has "
                f"{mine.log_loss:.4f}."
            )
        if best.measure == mine.measure:
            return (
                f"{best.measure}, this server's variant, predicts best "
                f"(log-loss {best.log_loss:.4f})."
            )
        found = (
            f"{best.measure} predicts best (log-loss {best.log_loss:.4f}); this server's "
            f"variant {mine.measure} has {mine.log_loss:.4f} ("
            + _ahead(mine.log_loss - best.log_loss, self._error(mine, best))
            + " more)."
        )
        variants = [score for score in self.evaluation.scores if score.measure in VARIANTS]
        candidate = min(variants, key=lambda score: score.log_loss)
        if candidate.measure == mine.measure:
            return found + " No other performance rating does better."
        gap, error = mine.log_loss - candidate.log_loss, self._error(mine, candidate)
        if best.measure != candidate.measure:
            found += (
                f" The best performance rating is {candidate.measure} "
                f"({candidate.log_loss:.4f}, {_ahead(gap, error)} below {mine.measure})."
            )
        if gap <= CHANCE * error:
            return found + " That is within chance: no reason to switch yet."
        command = settings_command({"variant": candidate.measure})
        return found + f" {command} makes it the default."

    def _error(self, measure: MeasureScore, other: MeasureScore) -> float:
        return self.evaluation.error_between(measure.measure, other.measure)

    def tuning_verdict(self, settings_command: SettingsCommand) -> str | None:
        """The best ladder constants tried and their gain; None when not tuned."""
        tuning = self.evaluation.tuning
        if tuning is None:
            return None
        best, current = tuning.best, tuning.current
        tried = f"{len(tuning.grid)} pairs of ladder constants tried"
        if best == current:
            return (
                f"The current constants ({_constants(current)}) are the best of the {tried} "
                f"(ladder log-loss {current.log_loss:.4f}). Nothing was changed."
            )
        found = (
            f"Best of the {tried}: {_constants(best)} (ladder log-loss {best.log_loss:.4f}, "
            f"{_ahead(tuning.gain, tuning.margin)} lower than with the current "
            f"{_constants(current)}). Nothing was changed"
        )
        if tuning.gain <= CHANCE * tuning.margin:
            return found + ": the gain is within chance, no reason to change them yet."
        return found + (
            f": {settings_command({'t': f'{best.t:g}', 'game_mult': f'{best.game_mult:g}'})} "
            "applies them and replays every rating."
        )

    def tuning_table(self) -> list[str]:
        """The ladder's log-loss at every point of the grid: a row per t (down), a column per
        game_mult (across), the best point marked * and the current one < (a line of its own when it
        is not a point of the grid). Empty when not tuned."""
        tuning = self.evaluation.tuning
        if tuning is None:
            return []
        points = {(point.t, point.game_mult): point for point in tuning.grid}
        spreads = sorted({t for t, _ in points})
        multipliers = sorted({g for _, g in points})
        on_grid = all((t, g) in points for t in spreads for g in multipliers)
        if not on_grid:  # the current constants were added to the grid
            del points[tuning.current.t, tuning.current.game_mult]
            spreads = sorted({t for t, _ in points})
            multipliers = sorted({g for _, g in points})

        def cell(point: TuningPoint) -> str:
            mark = "*" if point == tuning.best else "<" if point == tuning.current else " "
            return f"{point.log_loss:>7.4f}{mark}"

        lines = [
            f"{'t':>5}" + "".join(f"{g:>7g} " for g in multipliers),
            *(
                f"{t:>5g}"
                + "".join(
                    cell(points[t, g]) if (t, g) in points else f"{'':>8}" for g in multipliers
                )
                for t in spreads
            ),
        ]
        if not on_grid:
            current = tuning.current
            lines.append(f"current ({_constants(current)}): {current.log_loss:.4f}<")
        return [*(line.rstrip() for line in lines), "* best   < current"]

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


def _ahead(difference: float, error: float) -> str:
    """A difference of log-loss with its standard error when known."""
    return f"{difference:.4f}" if math.isnan(error) else f"{difference:.4f} ± {error:.4f}"


def _constants(point: TuningPoint) -> str:
    return f"t {point.t:g}, game_mult {point.game_mult:g}"


def _point(point: TuningPoint) -> dict[str, float]:
    return {"t": point.t, "game_mult": point.game_mult, "log_loss": point.log_loss}


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
