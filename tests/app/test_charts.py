"""The /rating chart (SPEC 9.5) on the four histories of docs/: size, ticks, marks."""

from __future__ import annotations

import itertools
import struct

import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from bot.app.charts import BY_DATE_DAYS, png_bytes, rating_chart
from tests.app.chart_histories import HISTORIES, START

MAX_LABEL_CHARACTERS = 10


def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def _drawn(name: str) -> tuple[Figure, Axes, list[tuple[float, float]]]:
    points = HISTORIES[name]
    figure = rating_chart(START, points, f"player — {name}")
    FigureCanvasAgg(figure).draw()
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
        span_days = (points[-1][0] - points[0][0]) / 86_400
        assert axes.get_xlabel() == ("date (UTC)" if span_days >= BY_DATE_DAYS else "match")


@pytest.mark.parametrize("name", HISTORIES)
def test_starting_rating_line_and_current_value_are_drawn(name: str) -> None:
    _, axes, points = _drawn(name)
    start_lines = [
        line
        for line in axes.get_lines()
        if line.get_linestyle() == "--" and set(line.get_ydata()) == {START}
    ]
    assert len(start_lines) == 1
    current = f"{points[-1][1]:.1f}"
    assert [text.get_text() for text in axes.texts] == [current]


def test_a_single_match_draws_start_to_after() -> None:
    _, axes, points = _drawn("one-match")
    curve = axes.get_lines()[0]
    assert list(curve.get_ydata()) == [START, points[0][1]]
