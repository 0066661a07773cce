"""Issue 17 item 9: without a PostgreSQL server the suite's PostgreSQL half is skipped with
its reason printed, unless CI=true, where the missing server is a failure."""

from __future__ import annotations

import socket
import subprocess

from tests.pytest_subprocess import run_pytest

NEEDS_POSTGRES = [
    "tests/bench/test_processes_bench.py",
    "tests/storage/test_change_notifications.py",
]


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _pytest_without_server(ci: str | None) -> subprocess.CompletedProcess[str]:
    closed = f"postgresql://postgres@127.0.0.1:{_closed_port()}/postgres"
    return run_pytest(NEEDS_POSTGRES, ci=ci, environment={"LADDERBOT_TEST_POSTGRES": closed})


def test_ci_run_without_postgres_skips_with_each_reason_printed() -> None:
    finished = _pytest_without_server(ci=None)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    skipped = [line for line in finished.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == len(NEEDS_POSTGRES)
    assert all("cannot reach PostgreSQL" in line for line in skipped)
    summary = finished.stdout.splitlines()[-1]
    assert "skipped" in summary and "failed" not in summary and "error" not in summary


def test_ci_run_without_postgres_fails_when_ci_is_set() -> None:
    finished = _pytest_without_server(ci="true")
    assert finished.returncode != 0
    assert "CI needs PostgreSQL: cannot reach PostgreSQL" in finished.stdout
