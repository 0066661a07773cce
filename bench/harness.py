"""Timing and reporting: medians of repeated runs, markdown tables, the machine's description."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Timing:
    """The median of `runs` wall-clock measurements of one call, and what the call returned."""

    seconds: float
    runs: int
    value: Any

    def per(self, count: int) -> float:
        return self.seconds / count


def measure(call: Callable[[], Any], runs: int) -> Timing:
    """Call `runs` times; the median wall time (perf_counter) and the last return value."""
    times = []
    value = None
    for _ in range(runs):
        start = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - start)
    return Timing(statistics.median(times), runs, value)


def format_seconds(seconds: float) -> str:
    """Seconds in the unit that keeps three significant figures readable."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


@dataclass
class Table:
    """One benchmark's results as a markdown table with notes under it."""

    title: str
    columns: Sequence[str]
    rows: list[Sequence[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        self.rows.append([str(cell) for cell in cells])

    def render(self) -> str:
        lines = [f"### {self.title}", ""]
        lines.append("| " + " | ".join(self.columns) + " |")
        lines.append("|" + "---|" * len(self.columns))
        lines.extend("| " + " | ".join(row) + " |" for row in self.rows)
        if self.notes:
            lines.append("")
            lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines) + "\n"


def code_version() -> str:
    """The commit measured, and which files under bot/ differ from it (work in progress)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "bot"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    dirty = sorted(line[3:] for line in changed if line.strip())
    return f"commit {commit}" + (
        f", with uncommitted changes in {', '.join(dirty)}" if dirty else ""
    )


def machine() -> str:
    """The facts that make the figures comparable: CPU, cores, Python and numpy versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            models = [
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            ]
        cpu = models[0] if models else cpu
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"{cpu}; {os.cpu_count()} cores ({usable} usable); {platform.system()} "
        f"{platform.release()}; Python {platform.python_version()}; numpy {np.__version__}"
    )
