"""Direct SQL access to a Warlog store, below the application: what a tamperer (or an operator
with a database shell) could do, and what the integration tests inspect.

SQLite: tables ``stored_events`` / ``stored_snapshots`` (originator_id TEXT, the uuid's 32 hex
digits without hyphens; originator_version INTEGER; topic TEXT; state BLOB holding JSON).
PostgreSQL: ``<schema>.warlog_events`` / ``<schema>.warlog_snapshots`` (originator_id uuid,
originator_version bigint, topic text, state bytea holding JSON; events also have a bigserial
notification_id).
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from pathlib import Path
from typing import Iterator

from domain.storage import StoreConfig, config_from_env, postgres_dsn


def pg_dsn(config: StoreConfig) -> str:
    return postgres_dsn(config.postgres or {})


def pg_schema(config: StoreConfig) -> str:
    """The PostgreSQL schema warlog's tables are in for this config."""
    return (config.postgres or {}).get("POSTGRES_SCHEMA") or "public"


class RawStore:
    """The events and snapshots tables of one store, by plain SQL, each call its own transaction."""

    def __init__(self, config: StoreConfig):
        self.kind = config.kind
        if self.kind == "sqlite":
            self._conn = sqlite3.connect(config.sqlite_path, timeout=30)
            self.events_table, self.snapshots_table, self._p = "stored_events", "stored_snapshots", "?"
        else:
            import psycopg

            self._conn = psycopg.connect(pg_dsn(config), autocommit=False)
            schema = pg_schema(config)
            self.events_table = f"{schema}.warlog_events"
            self.snapshots_table = f"{schema}.warlog_snapshots"
            self._p = "%s"

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "RawStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------------------ helpers --
    def _id(self, game_id: str):
        return uuid.UUID(str(game_id)).hex if self.kind == "sqlite" else uuid.UUID(str(game_id))

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self._p)

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        cur = self._conn.cursor()
        try:
            cur.execute(self._sql(sql), params)
            rows = cur.fetchall() if cur.description else []
            self._conn.commit()
            return rows
        except BaseException:
            self._conn.rollback()
            raise
        finally:
            cur.close()

    # ------------------------------------------------------------------------------- reads --
    def events(self, game_id: str) -> list[tuple[int, str, bytes]]:
        """(version, topic, state) of every stored event of the game, by version."""
        rows = self._run(f"SELECT originator_version, topic, state FROM {self.events_table} "
                         "WHERE originator_id = ? ORDER BY originator_version", (self._id(game_id),))
        return [(int(v), t, bytes(s)) for v, t, s in rows]

    def versions(self, game_id: str) -> list[int]:
        return [v for v, _, _ in self.events(game_id)]

    def state(self, game_id: str, version: int) -> bytes:
        rows = self._run(f"SELECT state FROM {self.events_table} WHERE originator_id = ? AND "
                         "originator_version = ?", (self._id(game_id), version))
        assert len(rows) == 1, f"no stored event {version} of game {game_id}"
        return bytes(rows[0][0])

    def snapshots(self, game_id: str) -> list[tuple[int, str]]:
        """(version, topic) of every stored snapshot of the game, by version."""
        rows = self._run(f"SELECT originator_version, topic FROM {self.snapshots_table} "
                         "WHERE originator_id = ? ORDER BY originator_version", (self._id(game_id),))
        return [(int(v), t) for v, t in rows]

    # ------------------------------------------------------------------------------ writes --
    def set_state(self, game_id: str, version: int, state: bytes) -> None:
        self._run(f"UPDATE {self.events_table} SET state = ? WHERE originator_id = ? AND "
                  "originator_version = ?", (state, self._id(game_id), version))

    def set_topic(self, game_id: str, version: int, topic: str) -> None:
        """Store an event under another topic (``module:Class``), as an older server named it."""
        self._run(f"UPDATE {self.events_table} SET topic = ? WHERE originator_id = ? AND "
                  "originator_version = ?", (topic, self._id(game_id), version))

    def delete(self, game_id: str, version: int) -> None:
        self._run(f"DELETE FROM {self.events_table} WHERE originator_id = ? AND originator_version = ?",
                  (self._id(game_id), version))

    def copy_row(self, game_id: str, source_version: int, new_version: int) -> None:
        """Insert a copy of one stored event (topic and state) under another version."""
        self._run(f"INSERT INTO {self.events_table} (originator_id, originator_version, topic, state) "
                  f"SELECT originator_id, ?, topic, state FROM {self.events_table} "
                  "WHERE originator_id = ? AND originator_version = ?",
                  (new_version, self._id(game_id), source_version))

    def shift(self, game_id: str, from_version: int, by: int) -> None:
        """Renumber the events from ``from_version`` on by ``by`` (in two steps, so the primary
        key never collides half way)."""
        gid = self._id(game_id)
        far = 1_000_000
        self._run(f"UPDATE {self.events_table} SET originator_version = originator_version + ? "
                  "WHERE originator_id = ? AND originator_version >= ?", (far, gid, from_version))
        self._run(f"UPDATE {self.events_table} SET originator_version = originator_version - ? "
                  "WHERE originator_id = ? AND originator_version >= ?", (far - by, gid, far))


@contextlib.contextmanager
def store_like(config: StoreConfig, tmp_dir: Path, snapshot_interval: int | None = None) -> Iterator[StoreConfig]:
    """Another, empty store of the same kind as ``config`` (a new SQLite file, or a new
    PostgreSQL schema dropped afterwards)."""
    interval = str(snapshot_interval or config.snapshot_interval)
    if config.kind == "sqlite":
        yield config_from_env({"WARLOG_DATA_DIR": str(tmp_dir / f"other-{uuid.uuid4().hex[:8]}"),
                               "WARLOG_SNAPSHOT_INTERVAL": interval})
        return
    import psycopg

    pg = dict(config.postgres or {})
    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_dsn(config), autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        pg["POSTGRES_SCHEMA"] = schema
        yield StoreConfig(kind="postgres", postgres=pg, snapshot_interval=int(interval))
    finally:
        with psycopg.connect(pg_dsn(config), autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
