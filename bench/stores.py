"""Fresh stores for a benchmark: an SQLite file in a temporary folder, or a PostgreSQL schema
made for the run and dropped after it (``WARLOG_BENCH_POSTGRES_URL``, default the test database)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from domain.storage import StoreConfig, config_from_env, postgres_dsn, postgres_env

PG_URL = os.environ.get("WARLOG_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
KINDS = ("sqlite", "postgres")
LABEL = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def pg_dsn(url: str = PG_URL) -> str:
    return postgres_dsn(postgres_env(url))


def postgres_missing() -> str | None:
    """None when the PostgreSQL server answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(pg_dsn(), connect_timeout=3):
            return None
    except Exception as exc:  # any failure to connect: no server for this run
        return f"PostgreSQL not reachable at {PG_URL}: {type(exc).__name__}"


@dataclass
class Store:
    kind: str
    env: dict[str, str]  # WARLOG_* variables for a server process
    config: StoreConfig
    folder: Path  # scratch space (logs, the SQLite file)

    @property
    def label(self) -> str:
        return LABEL[self.kind]

    def raw_env(self, name: str) -> dict[str, str]:
        """eventsourcing settings for a plain Application on the same store (own table or schema)."""
        if self.kind == "sqlite":
            return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "CREATE_TABLE": "y",
                    "SQLITE_DBNAME": str(self.folder / f"{name}.sqlite3"), "SQLITE_LOCK_TIMEOUT": "30"}
        env = dict(self.config.postgres or {})
        env.update(PERSISTENCE_MODULE="eventsourcing.postgres", CREATE_TABLE="y")
        return env


@contextlib.contextmanager
def fresh(kind: str, snapshot_interval: int = 100) -> Iterator[Store]:
    folder = Path(tempfile.mkdtemp(prefix=f"warlog-bench-{kind}-"))
    schema = None
    try:
        env = {"WARLOG_SNAPSHOT_INTERVAL": str(snapshot_interval)}
        if kind == "sqlite":
            env["WARLOG_DATA_DIR"] = str(folder / "data")
        else:
            import psycopg

            schema = "bench_" + uuid.uuid4().hex[:12]
            with psycopg.connect(pg_dsn(), autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            env["WARLOG_DATABASE_URL"] = f"{PG_URL}?schema={schema}"
        config = config_from_env(env)
        yield Store(kind, env, config, folder)
    finally:
        if schema is not None:
            import psycopg

            with psycopg.connect(pg_dsn(), autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
        shutil.rmtree(folder, ignore_errors=True)


def migrated(store: Store):
    """The Warlog service on ``store`` with every table created (as ``warlog migrate``)."""
    from api.app import migrate
    from domain.service import Warlog

    migrate(store.config)
    return Warlog(store.config)
