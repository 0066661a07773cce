"""An evaluation's table and verdicts (SPEC 12) in a language: the /admin evaluate embed in
the member's, the command line's in English (SPEC 13). The measures keep their names
(ladder, p1 to p8, baseline) and the settings theirs (t, game_mult): they are what a
moderator types."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from babel.numbers import format_percent

from bot.present.language import N_, Words
from bot.ratings.evaluation import BASELINE, MeasureScore, TuningPoint
from bot.ratings.variants import VARIANTS
from bot.services.evaluation import CHANCE, GuildEvaluation

SettingsCommand = Callable[[Mapping[str, str]], str]
"""How the asking front end spells a settings change (bot.present.words): the verdicts name
the command that applies their advice."""


def evaluation_table(found: GuildEvaluation, said: Words) -> list[str]:
    """One line per measure (log-loss, Brier, accuracy) under a header, in columns; the
    best measure and the guild's variant marked."""
    best, mine = found.best.measure, found.settings.variant
    marks = (
        {best: said.gettext(N_("best")), mine: said.gettext(N_("yours"))}
        if best != mine
        else {best: said.gettext(N_("best, yours"))}
    )
    header = [
        said.gettext(N_("measure")),
        said.gettext(N_("log-loss")),
        said.gettext(N_("Brier")),
        said.gettext(N_("accuracy")),
    ]
    rows = [
        [
            s.measure,
            said.decimal(s.log_loss, 4),
            said.decimal(s.brier, 4),
            format_percent(s.accuracy, "#,##0.0%", locale=said.locale),
        ]
        for s in found.evaluation.scores
    ]
    widths = [max(len(row[column]) for row in (header, *rows)) for column in range(4)]

    def line(row: list[str]) -> str:
        return " ".join(
            [
                row[0].ljust(widths[0]),
                *(cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)),
            ]
        )

    return [
        line(header),
        *(line(row) + (f"  ({marks[row[0]]})" if row[0] in marks else "") for row in rows),
    ]


def verdict(found: GuildEvaluation, settings_command: SettingsCommand, said: Words) -> str:
    """Which measure predicts best, how the guild's variant compares, and whether the best
    performance rating is worth switching to (ahead by more than CHANCE standard errors)."""
    _ = said.gettext
    best, mine = found.best, found.variant
    if best.measure == BASELINE:
        return _(
            N_(
                "{baseline} (a coin toss) predicts best (log-loss {loss}): no rating foresees "
                "these results better than chance yet (too few matches, or results left to "
                "luck). This server's variant {variant} has {mine}."
            ),
            baseline=BASELINE,
            loss=said.decimal(best.log_loss, 4),
            variant=mine.measure,
            mine=said.decimal(mine.log_loss, 4),
        )
    if best.measure == mine.measure:
        return _(
            N_("{measure}, this server's variant, predicts best (log-loss {loss})."),
            measure=best.measure,
            loss=said.decimal(best.log_loss, 4),
        )
    sentences = [
        _(
            N_(
                "{measure} predicts best (log-loss {loss}); this server's variant {variant} "
                "has {mine} ({ahead} more)."
            ),
            measure=best.measure,
            loss=said.decimal(best.log_loss, 4),
            variant=mine.measure,
            mine=said.decimal(mine.log_loss, 4),
            ahead=_ahead(mine.log_loss - best.log_loss, _error(found, mine, best), said),
        )
    ]
    variants = [score for score in found.evaluation.scores if score.measure in VARIANTS]
    candidate = min(variants, key=lambda score: score.log_loss)
    if candidate.measure == mine.measure:
        return " ".join([*sentences, _(N_("No other performance rating does better."))])
    gap, error = mine.log_loss - candidate.log_loss, _error(found, mine, candidate)
    if best.measure != candidate.measure:
        sentences.append(
            _(
                N_("The best performance rating is {measure} ({loss}, {ahead} below {variant})."),
                measure=candidate.measure,
                loss=said.decimal(candidate.log_loss, 4),
                ahead=_ahead(gap, error, said),
                variant=mine.measure,
            )
        )
    if gap <= CHANCE * error:
        sentences.append(_(N_("That is within chance: no reason to switch yet.")))
    else:
        command = settings_command({"variant": candidate.measure})
        sentences.append(_(N_("{command} makes it the default."), command=command))
    return " ".join(sentences)


def _error(found: GuildEvaluation, measure: MeasureScore, other: MeasureScore) -> float:
    return found.evaluation.error_between(measure.measure, other.measure)


def tuning_verdict(
    found: GuildEvaluation, settings_command: SettingsCommand, said: Words
) -> str | None:
    """The best ladder constants tried and their gain; None when not tuned."""
    tuning = found.evaluation.tuning
    if tuning is None:
        return None
    _ = said.gettext
    best, current = tuning.best, tuning.current
    tried = said.ngettext(
        "{count} pair of ladder constants tried",
        "{count} pairs of ladder constants tried",
        len(tuning.grid),
    )
    if best == current:
        return _(
            N_(
                "The current constants ({constants}) are the best of the {tried} (ladder "
                "log-loss {loss}). Nothing was changed."
            ),
            constants=_constants(current, said),
            tried=tried,
            loss=said.decimal(current.log_loss, 4),
        )
    found_text = _(
        N_(
            "Best of the {tried}: {best} (ladder log-loss {loss}, {ahead} lower than with the "
            "current {current})."
        ),
        tried=tried,
        best=_constants(best, said),
        loss=said.decimal(best.log_loss, 4),
        ahead=_ahead(tuning.gain, tuning.margin, said),
        current=_constants(current, said),
    )
    if tuning.gain <= CHANCE * tuning.margin:
        advice = _(
            N_("Nothing was changed: the gain is within chance, no reason to change them yet.")
        )
    else:
        command = settings_command({"t": f"{best.t:g}", "game_mult": f"{best.game_mult:g}"})
        advice = _(
            N_("Nothing was changed: {command} applies them and replays every rating."),
            command=command,
        )
    return f"{found_text} {advice}"


def tuning_table(found: GuildEvaluation, said: Words) -> list[str]:
    """The ladder's log-loss at every point of the grid: a row per t (down), a column per
    game_mult (across), the best point marked * and the current one < (a line of its own when
    it is not a point of the grid). Empty when not tuned."""
    tuning = found.evaluation.tuning
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
        return said.decimal(point.log_loss, 4).rjust(7) + mark

    lines = [
        "t".rjust(5) + "".join(said.number(g).rjust(7) + " " for g in multipliers),
        *(
            said.number(t).rjust(5)
            + "".join(cell(points[t, g]) if (t, g) in points else " " * 8 for g in multipliers)
            for t in spreads
        ),
    ]
    if not on_grid:
        current = tuning.current
        lines.append(
            said.gettext(
                N_("current ({constants}): {loss}<"),
                constants=_constants(current, said),
                loss=said.decimal(current.log_loss, 4),
            )
        )
    return [*(line.rstrip() for line in lines), said.gettext(N_("* best   < current"))]


def _ahead(difference: float, error: float, said: Words) -> str:
    """A difference of log-loss with its standard error when known."""
    shown = said.decimal(difference, 4)
    return shown if math.isnan(error) else f"{shown} ± {said.decimal(error, 4)}"


def _constants(point: TuningPoint, said: Words) -> str:
    return f"t {said.number(point.t)}, game_mult {said.number(point.game_mult)}"
