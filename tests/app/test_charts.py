"""The /rating chart (SPEC 9.5) on the histories of docs/: size, ticks, marks, fonts."""

from __future__ import annotations

import itertools
import logging
import os
import struct
import warnings

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.backend_bases import FigureCanvasBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bot.app.charts import BY_DATE_DAYS, MISSING, installed_families, png_bytes, rating_chart
from bot.present.language import words
from bot.services.card import RatingPoint
from tests.app.chart_histories import HISTORIES, START

MAX_LABEL_CHARACTERS = 10


def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _draw(figure: Figure) -> None:
    """Lay the figure out as the PNG would be (text sizes and tick positions known)."""
    canvas: FigureCanvasBase = FigureCanvasAgg(figure)  # typed through its base class
    canvas.draw()


def _ys(line: Line2D) -> list[float]:
    return [float(y) for y in np.asarray(line.get_ydata())]


def _xs(line: Line2D) -> list[float]:
    return [float(x) for x in np.asarray(line.get_xdata())]


def _drawn(name: str) -> tuple[Figure, Axes, list[RatingPoint]]:
    points = HISTORIES[name]
    figure = rating_chart(START, points, f"player — {name}")
    _draw(figure)
    (axes,) = figure.axes
    return figure, axes, points


@pytest.mark.parametrize("name", HISTORIES)
def test_chart_is_at_least_1000_by_500(name: str) -> None:
    figure, _, _ = _drawn(name)
    width, height = _png_size(png_bytes(figure))
    assert width >= 1000 and height >= 500


@pytest.mark.parametrize("name", HISTORIES)
def test_x_tick_labels_are_distinct_short_and_do_not_overlap(name: str) -> None:
    _figure, axes, _ = _drawn(name)
    low, high = axes.get_xlim()
    ticks = [t for t in axes.xaxis.get_major_ticks() if low <= t.get_loc() <= high]
    labels = [tick.label1 for tick in ticks]
    texts = [label.get_text() for label in labels]
    assert 2 <= len(texts) <= 12, texts
    assert len(set(texts)) == len(texts), texts
    assert all(text and len(text) <= MAX_LABEL_CHARACTERS for text in texts), texts
    assert not any("00.000" in text for text in texts), texts
    boxes = sorted((label.get_window_extent() for label in labels), key=lambda box: box.x0)
    assert all(left.x1 < right.x0 for left, right in itertools.pairwise(boxes))


def test_short_histories_go_by_match_number_long_ones_by_date() -> None:
    for name, points in HISTORIES.items():
        _, axes, _ = _drawn(name)
        span_days = (points[-1].at - points[0].at) / 86_400
        assert axes.get_xlabel() == ("date (UTC)" if span_days >= BY_DATE_DAYS else "match")


@pytest.mark.parametrize("name", HISTORIES)
def test_starting_rating_line_and_current_value_are_drawn(name: str) -> None:
    _, axes, points = _drawn(name)
    start_lines = [
        line
        for line in axes.get_lines()
        if line.get_linestyle() == "--" and set(_ys(line)) == {START}
    ]
    assert len(start_lines) == 1
    current = f"{points[-1].rating:.1f}"
    assert [text.get_text() for text in axes.texts] == [current]


def test_a_single_match_draws_start_to_after() -> None:
    _, axes, points = _drawn("one-match")
    curve = axes.get_lines()[0]
    assert _ys(curve) == [START, points[0].rating]


def test_finding_7_a_season_start_is_the_last_point_and_marked() -> None:
    """Issue 23 finding 7: after a season start with carry 0.5 the chart ends at the carried
    rating (the card's), not at the last match, and the start is marked as one."""
    _, axes, points = _drawn("season-start")
    season, last_match = points[-1], points[-2]
    assert season.match_id is None and season.rating != last_match.rating
    curve = axes.get_lines()[0]
    assert _ys(curve)[-1] == season.rating
    assert _xs(curve)[-2:] == [8.0, 8.5]  # half way after match 8
    assert [text.get_text() for text in axes.texts] == [f"{season.rating:.1f}"]
    marks = [line for line in axes.get_lines() if line.get_marker() == "D"]
    assert [_ys(mark) for mark in marks] == [[season.rating]]
    legend = axes.get_legend()
    assert legend is not None and "season start" in [t.get_text() for t in legend.get_texts()]


NAMES_IN_MANY_SCRIPTS = "日本語の名前 Дмитрий Ωμέγα 🎮❤️"


def _title_png(title: str) -> bytes:
    return png_bytes(rating_chart(START, HISTORIES["one-match"], title))


def test_finding_9_names_in_any_script_are_drawn_with_glyphs_where_a_font_has_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 23 finding 9: CJK (and every other script) is drawn with an installed font's
    glyphs, never as a box matplotlib warns about; a character no installed font has is
    drawn as a plain square, also without a warning."""
    cjk_installed = "Noto Sans CJK JP" in installed_families()
    if os.environ.get("CI") == "true":  # .ci/run installs it, so CI checks the drawing
        assert cjk_installed, "fonts-noto-cjk is missing: apt-get install fonts-noto-cjk"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure = rating_chart(START, HISTORIES["one-match"], NAMES_IN_MANY_SCRIPTS)
        _draw(figure)
        cjk = _title_png("日本語")
        squares = _title_png(MISSING * 3)
    assert not [str(w.message) for w in caught if "missing" in str(w.message).lower()]
    assert not caught_records(caplog)
    title = figure.axes[0].get_title(loc="left")
    assert ("日本語の名前" in title) == cjk_installed
    assert "Дмитрий Ωμέγα" in title  # DejaVu Sans has Cyrillic and Greek
    assert (cjk != squares) == cjk_installed


def caught_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_month_names_and_numbers_follow_the_language() -> None:
    """A year by date in French: the months are French, the ratings French numbers."""
    figure = rating_chart(START, HISTORIES["a-year"], "ann", words("fr"))
    _draw(figure)
    (axes,) = figure.axes
    months = [label.get_text() for label in axes.get_xticklabels()]
    assert "févr." in months or "mars" in months, months
    assert not {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"} & set(
        months
    )
    assert [text.get_text() for text in axes.texts] == [
        words("fr").rating(HISTORIES["a-year"][-1].rating)
    ]
    assert "," in axes.texts[0].get_text()
