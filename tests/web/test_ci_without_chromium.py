"""Without chromium the browser test is skipped with its reason (pytest -rs prints it), unless
CI=true, where the missing browser is a failure (as tests/test_ci_without_postgres.py for
PostgreSQL; that one in a pytest of its own)."""

from __future__ import annotations

import subprocess

import pytest

from tests.pytest_subprocess import ROOT, run_pytest
from tests.web.browser import chromium_executable

NO_BROWSER = str(ROOT / "no-such-browser")
BROWSER_TEST = "tests/web/test_browser.py"


def _pytest_without_chromium(ci: str | None) -> subprocess.CompletedProcess[str]:
    return run_pytest([BROWSER_TEST], ci=ci, environment={"LADDERBOT_CHROMIUM": NO_BROWSER})


def test_without_chromium_the_browser_test_is_skipped_saying_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("LADDERBOT_CHROMIUM", NO_BROWSER)
    with pytest.raises(pytest.skip.Exception) as skipped:
        chromium_executable()
    assert "no browser:" in str(skipped.value) and "apt-get install chromium" in str(skipped.value)


def test_without_chromium_ci_fails() -> None:
    finished = _pytest_without_chromium(ci="true")
    assert finished.returncode != 0
    assert "CI needs chromium: no browser:" in finished.stdout
