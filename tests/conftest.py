"""Every test can ask for the engine fixtures (tests/storage/engines.py: a fresh database
on SQLite and on PostgreSQL). The long, time-bounded test files (marked `long`) start first:
the workers of pytest-xdist take one file at a time, so a 60-second file left for the
end keeps one worker busy while the others have nothing left to run."""

from __future__ import annotations

import pytest

pytest_plugins = ["tests.storage.engines"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
