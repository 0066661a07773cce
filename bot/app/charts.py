"""The rating-over-time chart of /rating (SPEC 9.5), rendered to PNG bytes.

Matches spanning less than BY_DATE_DAYS are drawn by match number (a new server plays them
all on one day), longer histories by date. The dashed line is the starting rating; the last
point carries the current value, and a season start that moved the rating is a point of its
own (a diamond on a dotted line labelled "season start"). Colours follow Discord's dark theme.

Names in any script are drawn with matplotlib's font fallback over the installed families of
FONT_FAMILIES; a character no installed font has is drawn as MISSING (so matplotlib never
logs a "Glyph missing" warning).

Every call builds its own Figure on the Agg canvas (no pyplot state), so charts can render
in worker threads (the cog calls `rating_chart_png` through asyncio.to_thread).
"""

from __future__ import annotations

import functools
import io
import unicodedata
from collections.abc import Sequence
from typing import Any, Final

import matplotlib.dates as mdates
import numpy as np
from babel.dates import get_month_names
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FuncFormatter, MaxNLocator

from bot.present.language import ENGLISH, N_, Words
from bot.present.series import match_positions, season_starts
from bot.services.card import RatingPoint

WIDTH_INCHES: Final = 12.0
HEIGHT_INCHES: Final = 6.0
DPI: Final = 100
"""1200 by 600 pixels."""
BY_DATE_DAYS: Final = 3.0
MARKERS_UP_TO: Final = 60
"""Histories longer than this are drawn as a plain line (dots would merge)."""

BACKGROUND: Final = "#2b2d31"
PANEL: Final = "#313338"
TEXT: Final = "#dbdee1"
MUTED: Final = "#949ba4"
GRID: Final = "#3f4147"
LINE: Final = "#5865f2"
CURRENT: Final = "#57f287"
SEASON: Final = "#fee75c"
FONT_FAMILIES: Final = (
    "DejaVu Sans",
    "Noto Sans",
    "Noto Sans CJK JP",
    "Noto Sans Symbols",
    "Noto Sans Symbols 2",
    "Noto Emoji",
    "Symbola",
)
"""Tried in this order for each character; those not installed are left out. (Noto Color
Emoji is a bitmap font that matplotlib cannot draw; Noto Emoji and Symbola are outlines.)"""
C_MONTHS: Final = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
"""The month names strftime writes (the bot never sets a C locale), which LocalDates replaces."""
MISSING: Final = "\u25a1"
"""A white square (DejaVu Sans has it): drawn for a character no installed font has."""


@functools.cache
def installed_families() -> tuple[str, ...]:
    """The families of FONT_FAMILIES that are installed, in order."""
    known = {entry.name for entry in font_manager.fontManager.ttflist}
    return tuple(family for family in FONT_FAMILIES if family in known)


@functools.cache
def _drawable_characters() -> frozenset[int]:
    """The characters the installed families have (the upright regular face of each)."""
    found: set[int] = set()
    for family in installed_families():
        path = font_manager.findfont(FontProperties(family=family, weight="normal"))
        found.update(font_manager.get_font(path).get_charmap())
    return frozenset(found)


def drawable(text: str) -> str:
    """`text` as the chart draws it: each character no installed font has becomes MISSING,
    or is left out when it is a mark or format character (a variation selector, a zero-width
    joiner) that only changes its neighbour."""
    known = _drawable_characters()
    kept = []
    for character in text:
        if ord(character) in known:
            kept.append(character)
        elif unicodedata.category(character) not in ("Mn", "Me", "Cf"):
            kept.append(MISSING)
    return "".join(kept)


def _style(figure: Figure, axes: Axes) -> None:
    figure.set_facecolor(BACKGROUND)
    axes.set_facecolor(PANEL)
    for spine in axes.spines.values():
        spine.set_color(GRID)
    axes.tick_params(colors=TEXT, labelsize=11)
    axes.grid(True, color=GRID, linewidth=0.8)
    axes.set_axisbelow(True)


def _match_numbers(said: Words) -> FuncFormatter:
    """The x axis by match number: 0 is the start (before the first match)."""

    def label(value: float, _position: int | None) -> str:
        number = round(value)
        return said.gettext(N_("start")) if number == 0 else said.integer(number)

    return FuncFormatter(label)


class LocalDates(mdates.ConciseDateFormatter):
    """matplotlib's concise date ticks (a year, a month, a day, a time: the least that
    tells them apart) with the month names of `said`'s language."""

    def __init__(self, locator: mdates.AutoDateLocator, said: Words) -> None:
        super().__init__(locator, show_offset=False)  # type: ignore[no-untyped-call]
        names = get_month_names("abbreviated", context="stand-alone", locale=said.locale)
        self.months = dict(zip(C_MONTHS, (names[number] for number in range(1, 13)), strict=True))

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        shown = super().format_ticks(values)  # type: ignore[no-untyped-call]
        return [self.months.get(label, label) for label in shown]


XValues = np.ndarray[Any, Any]
"""A chart's x values: match numbers (float64) or times (datetime64)."""


def _season_marks(axes: Axes, xs: XValues, history: Sequence[RatingPoint], said: Words) -> None:
    """A dotted line and a diamond at each season start of the series."""
    for number, index in enumerate(season_starts(history)):
        axes.axvline(
            xs[index],
            color=SEASON,
            linestyle=":",
            linewidth=1.4,
            label=said.gettext(N_("season start")) if number == 0 else None,
        )
        axes.plot([xs[index]], [history[index].rating], marker="D", markersize=8, color=SEASON)


def rating_chart(
    start: float, history: Sequence[RatingPoint], title: str, said: Words = ENGLISH
) -> Figure:
    """The chart of a member's ladder rating: `start` before the first match, then the
    series of the card (at least one point; the last is the current rating); its labels
    and numbers in the language of `said`."""
    figure = Figure(figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI)
    axes = figure.add_subplot()
    _style(figure, axes)
    ratings = [point.rating for point in history]
    times = [point.at for point in history]
    markers = "o" if len(history) <= MARKERS_UP_TO else None
    by_date = max(times) - min(times) >= BY_DATE_DAYS * 86_400
    xs: XValues
    if by_date:
        xs = np.array([round(when) for when in times], dtype="datetime64[s]")
        axes.plot(xs, ratings, color=LINE, linewidth=2, marker=markers, markersize=4)
        # matplotlib.dates carries no annotations (hence the ignores).
        locator = mdates.AutoDateLocator(minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
        formatter = LocalDates(locator, said)
        axes.xaxis.set_major_locator(locator)
        axes.xaxis.set_major_formatter(formatter)
        axes.set_xlabel(said.gettext(N_("date (UTC)")), color=MUTED)
    else:
        positions = match_positions(history)
        xs = np.array(positions)
        axes.plot(
            [0.0, *positions],
            [start, *ratings],
            color=LINE,
            linewidth=2,
            marker=markers,
            markersize=5,
        )
        axes.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True, min_n_ticks=2))
        axes.xaxis.set_major_formatter(_match_numbers(said))
        # A season start last sits half way to a match not played yet: no tick for that one.
        axes.set_xlim(-0.5, positions[-1] + (0.5 if positions[-1].is_integer() else 0.3))
        axes.set_xlabel(said.gettext(N_("match")), color=MUTED)
    _season_marks(axes, xs, history, said)
    last_x = xs[-1]
    axes.axhline(
        start,
        color=MUTED,
        linestyle="--",
        linewidth=1.2,
        label=said.gettext(N_("start {rating}"), rating=said.rating(start)),
    )
    axes.plot([last_x], [ratings[-1]], marker="o", markersize=9, color=CURRENT)
    axes.annotate(
        said.rating(ratings[-1]),
        xy=(last_x, ratings[-1]),
        xytext=(-12, 12),
        textcoords="offset points",
        ha="right",
        color=CURRENT,
        fontsize=14,
        fontweight="bold",
        bbox={"boxstyle": "round,pad=0.3", "facecolor": PANEL, "edgecolor": CURRENT},
    )
    low, high = min(start, *ratings), max(start, *ratings)
    pad = max((high - low) * 0.15, 10.0)
    axes.set_ylim(low - pad, high + pad)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: said.number(value)))
    axes.set_ylabel(said.gettext(N_("ladder rating")), color=MUTED)
    axes.set_title(
        drawable(title),
        color=TEXT,
        fontsize=16,
        loc="left",
        parse_math=False,
        fontfamily=list(installed_families()),
    )
    legend = axes.legend(loc="upper left", facecolor=PANEL, edgecolor=GRID, labelcolor=TEXT)
    legend.set_zorder(3)
    figure.tight_layout()
    return figure


def png_bytes(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", facecolor=figure.get_facecolor())
    return buffer.getvalue()


def rating_chart_png(
    start: float, history: Sequence[RatingPoint], title: str, said: Words = ENGLISH
) -> bytes:
    """`rating_chart` as PNG bytes."""
    return png_bytes(rating_chart(start, history, title, said))
