"""The rating-over-time chart of /rating (SPEC 9.5), rendered to PNG bytes.

Matches spanning less than BY_DATE_DAYS are drawn by match number (a new server plays them
all on one day), longer histories by date. The dashed line is the starting rating; the last
point carries the current value. Colours follow Discord's dark theme.

Every call builds its own Figure on the Agg canvas (no pyplot state), so charts can render
in worker threads (the cog calls `rating_chart_png` through asyncio.to_thread).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Final

import matplotlib.dates as mdates
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

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


def _style(figure: Figure, axes: Axes) -> None:
    figure.set_facecolor(BACKGROUND)
    axes.set_facecolor(PANEL)
    for spine in axes.spines.values():
        spine.set_color(GRID)
    axes.tick_params(colors=TEXT, labelsize=11)
    axes.grid(True, color=GRID, linewidth=0.8)
    axes.set_axisbelow(True)


def _match_number(value: float, _position: int | None) -> str:
    number = round(value)
    return "start" if number == 0 else str(number)


def rating_chart(start: float, points: Sequence[tuple[float, float]], title: str) -> Figure:
    """The chart of a member's ladder rating: `start` before the first match, then one
    (unix seconds played, rating after) point per match in log order (at least one)."""
    figure = Figure(figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI)
    axes = figure.add_subplot()
    _style(figure, axes)
    ratings = [rating for _, rating in points]
    times = [when for when, _ in points]
    markers = "o" if len(points) <= MARKERS_UP_TO else None
    by_date = max(times) - min(times) >= BY_DATE_DAYS * 86_400
    if by_date:
        xs = np.array([round(when) for when in times], dtype="datetime64[s]")
        axes.plot(xs, ratings, color=LINE, linewidth=2, marker=markers, markersize=4)
        # matplotlib.dates carries no annotations (hence the ignores).
        locator = mdates.AutoDateLocator(minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
        formatter = mdates.ConciseDateFormatter(  # type: ignore[no-untyped-call]
            locator, show_offset=False
        )
        axes.xaxis.set_major_locator(locator)
        axes.xaxis.set_major_formatter(formatter)
        axes.set_xlabel("date (UTC)", color=MUTED)
    else:
        xs = np.arange(len(points) + 1)
        axes.plot(xs, [start, *ratings], color=LINE, linewidth=2, marker=markers, markersize=5)
        axes.xaxis.set_major_locator(MaxNLocator(nbins=10, integer=True, min_n_ticks=2))
        axes.xaxis.set_major_formatter(FuncFormatter(_match_number))
        axes.set_xlim(-0.5, len(points) + 0.5)
        axes.set_xlabel("match", color=MUTED)
    last_x = xs[-1]
    axes.axhline(start, color=MUTED, linestyle="--", linewidth=1.2, label=f"start {start:.1f}")
    axes.plot([last_x], [ratings[-1]], marker="o", markersize=9, color=CURRENT)
    axes.annotate(
        f"{ratings[-1]:.1f}",
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
    axes.set_ylabel("ladder rating", color=MUTED)
    axes.set_title(title, color=TEXT, fontsize=16, loc="left", parse_math=False)
    legend = axes.legend(loc="upper left", facecolor=PANEL, edgecolor=GRID, labelcolor=TEXT)
    legend.set_zorder(3)
    figure.tight_layout()
    return figure


def png_bytes(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", facecolor=figure.get_facecolor())
    return buffer.getvalue()


def rating_chart_png(start: float, points: Sequence[tuple[float, float]], title: str) -> bytes:
    """`rating_chart` as PNG bytes."""
    return png_bytes(rating_chart(start, points, title))
