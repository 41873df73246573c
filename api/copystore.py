"""``warlog copy-store``: the whole store (SQLite, or another PostgreSQL schema) copied into an
empty PostgreSQL schema, its games still playable there (docs/operations.md, "Moving a store to
PostgreSQL").

What is copied: the event store (stored events with their notification ids, which the projector's
and the dispatcher's positions count in, and the snapshots) and every table beside it: the dice
seeds and each ``SqlTables`` subclass's ``TABLES`` (access, read models, notifications, damage).
The source is only read. The target is made by the same ``migrate`` as a fresh store, then filled,
then every game's chain on it is checked as ``warlog check`` checks it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator
from uuid import UUID

from api.app import migrate, schema_made, schema_ready
from domain.access import AccessStore
from domain.damage import DamageRecords
from domain.service import Warlog
from domain.storage import SEEDS_TABLE, SqlTables, StoreConfig, column_names, postgres_dsn
from projections.store import ProjectionStore
from workers.dispatch import NotifyStore

BATCH = 1000  # rows read and written at once (memory: a batch of events or of view bodies)
STORES = (AccessStore, ProjectionStore, NotifyStore, DamageRecords)  # every SqlTables of a store
# The one row ``migrate`` writes in an empty store (the dispatcher's start); the copy replaces it.
MIGRATE_ROWS = {"warlog_notify_tracking": 1}


class CopyRefused(Exception):
    """The copy is not started (the target is not empty, the source not ready, a process runs): a
    usage error naming what to do; nothing was written anywhere."""


@dataclass
class CopyReport:
    counts: list[tuple[str, int, int]] = field(default_factory=list)  # (table, source rows, target rows)
    games: int = 0
    damaged: list[tuple[str, str]] = field(default_factory=list)  # (game id, the check's first failure)

    @property
    def ok(self) -> bool:
        return not self.damaged and all(source == target for _, source, target in self.counts)


def plain_tables() -> dict[str, str]:
    """Every table beside the event store, name -> its column definitions: the seeds and each
    ``SqlTables``'s ``TABLES``."""
    tables = {SEEDS_TABLE: "game_id, epoch, seed"}
    for store in STORES:
        tables.update(store.TABLES)
    return tables


def processes_using(path: str) -> list[int]:
    """The ids of this machine's other processes that hold the SQLite database ``path`` (or its
    -wal or -shm file) open, as far as /proc shows them (Linux; a process of another user is not
    seen): a warlog process still running on the source. Empty where there is no /proc."""
    names = {os.path.realpath(path + suffix) for suffix in ("", "-wal", "-shm")}
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{entry}/fd")
            if any(_link(f"/proc/{entry}/fd/{fd}") in names for fd in fds):
                found.append(int(entry))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


def _link(path: str) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def target_rows(target: StoreConfig) -> dict[str, int]:
    """The rows of every table of the target's schema (none when it has no table yet);
    CopyRefused when the schema is missing (eventsourcing's tables are made in one, never it)."""
    import psycopg

    pg = target.postgres or {}
    with psycopg.connect(postgres_dsn(pg), connect_timeout=int(pg.get("POSTGRES_CONNECT_TIMEOUT") or 5)) as conn:
        schema = conn.execute("SELECT COALESCE(%s, current_schema())", (pg.get("POSTGRES_SCHEMA"),)).fetchone()[0]
        if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (schema,)).fetchone() is None:
            raise CopyRefused(f"the target's schema {schema} does not exist: make it (CREATE SCHEMA {schema}, "
                              "as the user of the URL or for it), then copy")
        names = [row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s AND table_type = 'BASE TABLE'",
            (schema,))]
        return {name: conn.execute(f'SELECT COUNT(*) FROM "{schema}"."{name}"').fetchone()[0] for name in names}


def refusals(source: Warlog, target: StoreConfig) -> None:
    """CopyRefused when the copy must not start."""
    if target.kind != "postgres":
        raise CopyRefused("--to must be a postgresql:// URL (the target is a PostgreSQL schema)")
    if where(source.config) == where(target):
        raise CopyRefused("--to names the source store itself: give an empty schema of another database or "
                          "another ?schema=NAME")
    if not schema_made(source) or not schema_ready(source):
        raise CopyRefused(f"the source {source.config.describe()} is not migrated to this release: stop every "
                          "warlog process, run 'warlog migrate' on it (the same WARLOG_DATA_DIR or "
                          "WARLOG_DATABASE_URL), then copy")
    if source.config.kind == "sqlite":
        running = processes_using(source.config.sqlite_path or "")
        if running:
            raise CopyRefused(f"process(es) {', '.join(map(str, running))} hold the source database "
                              f"{source.config.sqlite_path} open: stop every warlog process (web, workers, "
                              "dispatcher, projector; 'make run': Ctrl-C), then copy")
    full = {name: n for name, n in target_rows(target).items() if n > MIGRATE_ROWS.get(name, 0)}
    if full:
        listed = ", ".join(f"{name} ({n} rows)" for name, n in sorted(full.items())[:5])
        raise CopyRefused(f"the target {where(target)} is not empty: {listed}; give a new schema "
                          "(postgresql://…?schema=NAME), or drop this one (DROP SCHEMA NAME CASCADE) if it is "
                          "a copy that stopped midway, then copy again")


def copy_store(source: Warlog, target_config: StoreConfig, say: Callable[[str], None]) -> CopyReport:
    """Copy ``source``'s whole store into the empty PostgreSQL schema of ``target_config``;
    then check every game's chain there and count each table's rows on both sides."""
    refusals(source, target_config)
    migrate(target_config)
    target = Warlog(target_config)
    try:
        games = _copy_events(source, target, say)
        _copy_snapshots(source, target, games, say)
        for table, definition in plain_tables().items():
            _copy_table(source, target, table, column_names(definition), say)
        report = CopyReport(counts=_counts(source, target), games=len(games))
        for game_id in sorted(games, key=str):
            checked = target.check_integrity(game_id)
            if not checked.ok:
                report.damaged.append((str(game_id), checked.summary().splitlines()[0]))
        return report
    finally:
        target.close()


def _copy_events(source: Warlog, target: Warlog, say: Callable[[str], None]) -> set[UUID]:
    """Every stored event in notification order, with its notification id: eventsourcing's
    PostgreSQL recorder numbers what it inserts itself (a ``bigserial``), so the rows go in by
    SQL and the sequence is set past the last id afterwards. The games' ids, found on the way."""
    table = _qualified(target, target.recorder.events_table_name)
    insert = (f"INSERT INTO {table} (originator_id, originator_version, topic, state, notification_id) "
              "VALUES (%s, %s, %s, %s, %s)")
    games: set[UUID] = set()
    copied, last = 0, 0
    while True:
        batch = source.recorder.select_notifications(last + 1, BATCH)
        if not batch:
            break
        rows = [(n.originator_id, n.originator_version, n.topic, n.state, n.id) for n in batch]
        with target.recorder.datastore.transaction(commit=True) as c:
            c.executemany(insert, rows)
        games.update(n.originator_id for n in batch)
        copied, last = copied + len(batch), batch[-1].id
        say(f"{target.recorder.events_table_name}: {copied} rows copied")
    with target.recorder.datastore.transaction(commit=True) as c:
        c.execute("SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), %s, %s)",
                  (table, max(last, 1), last > 0))
    return games


def _copy_snapshots(source: Warlog, target: Warlog, games: set[UUID], say: Callable[[str], None]) -> None:
    """Each game's snapshots, read and inserted by eventsourcing's recorders (they carry no
    notification id)."""
    copied = 0
    for game_id in sorted(games, key=str):
        stored = source.snapshots.recorder.select_events(game_id)
        if stored:
            target.snapshots.recorder.insert_events(stored)
            copied += len(stored)
            say(f"{target.snapshots.recorder.events_table_name}: {copied} rows copied")


def _copy_table(source: Warlog, target: Warlog, table: str, columns: list[str], say: Callable[[str], None]) -> None:
    """A plain table's rows, ``BATCH`` at a time. A read model's body is kept by SQLite as an LZ4
    frame of its JSON and by PostgreSQL as the JSON text (projections/store.py): written as text."""
    insert = (f"INSERT INTO {_qualified(target, table)} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})"
              + (" ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position" if table in MIGRATE_ROWS else ""))
    copied = 0
    for rows in _rows(source, table, columns):
        with target.recorder.datastore.transaction(commit=True) as c:
            c.executemany(insert, [tuple(_as_text(value) if column == "body" else value
                                         for column, value in zip(columns, row)) for row in rows])
        copied += len(rows)
        say(f"{table}: {copied} rows copied")


def _rows(source: Warlog, table: str, columns: list[str]) -> Iterator[list[tuple]]:
    """The rows of a source table in batches, read in one transaction: SQLite's cursor steps
    through them, a PostgreSQL source's on the server (a named cursor), so neither holds the
    whole table in memory."""
    tables = SqlTables.for_service(source)
    select = tables.sql(f"SELECT {', '.join(columns)} FROM {{t}}{table}")
    if source.config.kind == "sqlite":
        with source.recorder.datastore.transaction(commit=False) as c:
            c.execute(select)
            yield from _batches(c.sqlite_cursor, columns)  # eventsourcing's wrapper has no fetchmany
        return
    with source.recorder.datastore.get_connection() as conn, conn.transaction(), \
            conn.cursor(name="warlog_copy_store") as c:
        c.execute(select)
        yield from _batches(c, columns)


def _batches(cursor: Any, columns: list[str]) -> Iterator[list[tuple]]:
    while True:
        rows = cursor.fetchmany(BATCH)
        if not rows:
            return
        yield [tuple(row[column] for column in columns) for row in rows]


def _as_text(body: Any) -> Any:
    if isinstance(body, (bytes, memoryview)):
        import lz4.frame

        return lz4.frame.decompress(bytes(body)).decode("utf-8")
    return body


def _qualified(target: Warlog, table: str) -> str:
    return f'"{target.recorder.datastore.schema}"."{table}"'


def _counts(source: Warlog, target: Warlog) -> list[tuple[str, int, int]]:
    """(table, rows in the source, rows in the target) of every table copied; the event store's
    tables by the target's names (eventsourcing names them differently on SQLite)."""
    src, dst = SqlTables.for_service(source), SqlTables.for_service(target)
    pairs = [(source.recorder.events_table_name, target.recorder.events_table_name),
             (source.snapshots.recorder.events_table_name, target.snapshots.recorder.events_table_name),
             *((name, name) for name in plain_tables())]
    return [(there, _count(src, here), _count(dst, there)) for here, there in pairs]


def _count(tables: SqlTables, table: str) -> int:
    return int(tables._run(f"SELECT COUNT(*) AS n FROM {{t}}{table}", fetch="one")["n"])


def where(config: StoreConfig) -> str:
    """A store as a message names it, a PostgreSQL schema with it."""
    schema = (config.postgres or {}).get("POSTGRES_SCHEMA")
    return config.describe() + (f"?schema={schema}" if schema else "")
