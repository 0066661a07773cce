"""The engine fixture (tests/storage/engines.py) for the storage tests."""

from tests.storage.engines import (
    database,
    database_url,
    fresh_database,
    postgres_admin,
    postgres_url,
)

__all__ = ["database", "database_url", "fresh_database", "postgres_admin", "postgres_url"]
