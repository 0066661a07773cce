"""The rating-over-time chart of /rating, rendered to PNG bytes (off the event loop)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure


def rating_chart_png(points: Sequence[tuple[float, float]], title: str) -> bytes:
    """A line chart of (unix seconds, ladder rating) points as PNG bytes.

    Uses a bare Figure (the Agg canvas, no pyplot state), so it is safe in a worker thread.
    """
    figure = Figure(figsize=(6, 3), dpi=100)
    axes = figure.add_subplot()
    times = np.array([round(when) for when, _ in points], dtype="datetime64[s]")
    ratings = [rating for _, rating in points]
    axes.plot(times, ratings, marker="o" if len(points) < 30 else None, linewidth=1.5)
    axes.set_title(title)
    axes.set_ylabel("ladder rating")
    axes.grid(True, alpha=0.3)
    figure.autofmt_xdate()
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()
