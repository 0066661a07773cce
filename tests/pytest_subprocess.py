"""A pytest run of its own in a subprocess, with CI set or unset: how the suite behaves on a
machine that lacks something it needs (a PostgreSQL server, a browser)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_pytest(
    paths: Sequence[str], *, ci: str | None, environment: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """pytest on `paths` from the repository root, CI set to `ci` (None: unset), with
    `environment` over this process's."""
    variables = {name: value for name, value in os.environ.items() if name != "CI"}
    if ci is not None:
        variables["CI"] = ci
    variables.update(environment)
    # One process (-n 0): xdist's four workers would each import the suite for a file or two.
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", *paths],
        cwd=ROOT,
        env=variables,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
