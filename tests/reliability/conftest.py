"""Fixtures of the reliability suite: a store to run a live server on (SQLite, PostgreSQL), and
the real Redis of the workers' tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from domain.storage import StoreConfig, config_from_env
from tests.conftest import PG_URL
from tests.e2e.server import live_server
from tests.workers.conftest import redis_url, rq_env  # noqa: F401  (fixtures, used by test_crashes)


@dataclass
class Store:
    """Where a live server of a test keeps its games: ``config`` for the test's own access
    (SQL, a service), ``env`` for the server and any other process."""

    kind: str
    config: StoreConfig
    directory: Path
    env: dict = field(default_factory=dict)

    def serve(self, **env):
        return live_server(self.directory, **{**self.env, **env})

    def process_env(self) -> dict:
        """Environment variables naming this store, for a warlog process (projector, worker, CLI)."""
        if self.kind == "sqlite":
            return {"WARLOG_DATA_DIR": str(self.directory / "data")}
        return dict(self.env)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request, tmp_path) -> Store:
    directory = tmp_path / "server"
    if request.param == "sqlite":
        config = config_from_env({"WARLOG_DATA_DIR": str(directory / "data")})
        return Store("sqlite", config, directory)
    config = request.getfixturevalue("postgres_config")
    url = f"{PG_URL}?schema={config.postgres['POSTGRES_SCHEMA']}"
    return Store("postgres", config, directory, {"WARLOG_DATABASE_URL": url})


@pytest.fixture
def pg_store(tmp_path, postgres_config) -> Store:
    url = f"{PG_URL}?schema={postgres_config.postgres['POSTGRES_SCHEMA']}"
    return Store("postgres", postgres_config, tmp_path / "server", {"WARLOG_DATABASE_URL": url})
