"""Where games are stored: configuration from the environment, and the dice seed table.

SQLite under ``WARLOG_DATA_DIR`` by default; PostgreSQL when ``WARLOG_DATABASE_URL`` is set.
Every variable is documented in docs/configuration.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import unquote, urlparse

from eventsourcing.persistence import DatabaseError, InterfaceError, OperationalError
from eventsourcing.utils import retry

from domain.dice import SEED_BYTES

DEFAULT_DATA_DIR = "var"
SQLITE_FILE = "warlog.sqlite3"  # in the data folder
SEEDS_TABLE = "warlog_dice_seeds"


@dataclass(frozen=True)
class StoreConfig:
    kind: str  # "sqlite" or "postgres"
    sqlite_path: str | None = None
    postgres: Mapping[str, str] | None = None
    snapshot_interval: int = 100
    # Seconds a write waits for a lock the store holds for another writer before it fails
    # (storage errors answer 503 store_unavailable); None: 30 on SQLite, 10 on PostgreSQL.
    lock_timeout: int | None = None

    def describe(self) -> str:
        if self.kind == "sqlite":
            return f"sqlite:{self.sqlite_path}"
        pg = self.postgres or {}
        return f"postgresql://{pg.get('POSTGRES_USER', '')}@{pg.get('POSTGRES_HOST')}:{pg.get('POSTGRES_PORT')}/{pg.get('POSTGRES_DBNAME')}"

    def eventsourcing_env(self, *, create_table: bool) -> dict[str, str]:
        env = {"CREATE_TABLE": "y" if create_table else "n"}
        if self.kind == "sqlite":
            env.update(PERSISTENCE_MODULE="eventsourcing.sqlite", SQLITE_DBNAME=self.sqlite_path,
                       SQLITE_LOCK_TIMEOUT=str(self.lock_timeout or 30))
        else:
            # eventsourcing's PostgreSQL persistence, a wait run out not retried (domain/pgrecorder.py).
            env.update(**dict(self.postgres or {}), PERSISTENCE_MODULE="domain.pgrecorder:Factory")
            if self.lock_timeout:
                env["POSTGRES_LOCK_TIMEOUT"] = str(self.lock_timeout)
        return env


# One lock per database file, taken before its lock file: made when first used, so that under
# gevent (api/gunicorn_conf.py) it is gevent's lock, which waits without stopping the worker.
_writer_locks: dict[str, Any] = {}


@contextlib.contextmanager
def writer_lock(config: StoreConfig) -> Iterator[None]:
    """Held around each save of events. On SQLite, a lock file beside the database makes the
    processes sharing it take turns at once: SQLite's own busy handler polls with sleeps of up
    to 100 ms, which two web processes writing in turn would spend waiting. PostgreSQL queues
    writers itself (eventsourcing locks the events table); nothing is added there.

    Within a process, savers take turns on a thread lock first: ``flock`` blocks the whole OS
    thread, so a greenlet waiting on the file while another greenlet of its process held it
    would stop the worker for good."""
    if config.kind != "sqlite" or not config.sqlite_path:
        yield
        return
    path = f"{config.sqlite_path}.writer-lock"
    with _writer_locks.setdefault(path, threading.Lock()), private_file(path) as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def migration_lock(config: StoreConfig) -> Iterator[None]:
    """Held around a whole migration, so that processes migrating one store at once (two
    ``warlog serve`` started together) take turns: each looks for a column and adds it if
    missing, and two doing so at once failed ("column ... already exists" and "tuple concurrently
    updated" on PostgreSQL, "database is locked" on SQLite). SQLite: the writer's lock file;
    PostgreSQL: an advisory lock named after the schema, on a connection of its own."""
    if config.kind == "sqlite":
        with writer_lock(config):
            yield
        return
    import psycopg

    pg = config.postgres or {}
    with psycopg.connect(postgres_dsn(pg), autocommit=True,
                         connect_timeout=int(pg.get("POSTGRES_CONNECT_TIMEOUT") or 5)) as conn:
        conn.execute("SELECT pg_advisory_lock(hashtext(%s))", (f"warlog migrate {pg.get('POSTGRES_SCHEMA', '')}",))
        yield  # the lock ends with the connection


# A PostgreSQL statement whose connection was lost is tried again, as eventsourcing's recorders do.
retry_store = retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)


class StoreWaitedOut(DatabaseError):
    """The store was waited for as long as allowed: a lock not granted within the lock timeout,
    or no connection within the connect timeout. Not an ``OperationalError``, so eventsourcing's
    retries do not wait as long again; answered 503 as the store not answering."""


# SQLite raises OperationalError for a wrong statement too ("no such table", a syntax error):
# from SQLite, only these say the store could not answer now.
_SQLITE_NOT_ANSWERING = ("locked", "busy", "disk i/o error", "unable to open database", "database or disk is full")


def store_not_answering(exc: BaseException) -> bool:
    """An OperationalError or InterfaceError that says the store did not answer in time (a lock
    not granted, no free connection, a connection lost), not that a statement was wrong: what
    the API answers with 503 ``store_unavailable``, and a background loop waits out."""
    if isinstance(exc, StoreWaitedOut):
        return True
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return False
    if isinstance(exc, InterfaceError) or not isinstance(exc.__cause__, sqlite3.Error):
        return True  # psycopg files a wrong statement under ProgrammingError, never here
    text = str(exc.__cause__).lower()
    return any(words in text for words in _SQLITE_NOT_ANSWERING)


def error_line(exc: BaseException) -> str:
    """An error as one line for a log or a message: its class and the first line of its text
    (a driver's error goes on for lines), at most 200 characters of it."""
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0][:200]}"


class OutageLog:
    """How a background loop that tries again every few seconds (the projector, the
    notification dispatcher) logs its failures: a part that does not answer (``down(exc)``
    names it: "the store" by default) once, as a warning without a traceback, and once again
    when the loop gets through; anything else with its traceback, every time. Through a
    ten-minute database outage such a loop otherwise wrote a traceback every few seconds."""

    def __init__(self, log: Any, what: str, down: Callable[[BaseException], str | None] | None = None):
        self.log, self.what = log, what
        self.down = down or (lambda exc: "the store" if store_not_answering(exc) else None)
        self.since: float | None = None

    def failed(self, exc: BaseException, retry_in: float) -> None:
        part = self.down(exc)
        if part is None:
            self.log.error("%s failed; retrying in %ss", self.what, retry_in, exc_info=exc)
        elif self.since is None:
            self.since = time.monotonic()
            self.log.warning("%s: %s does not answer (%s); trying again every %ss", self.what, part,
                             error_line(exc), retry_in)

    def got_through(self) -> None:
        if self.since is not None:
            self.log.warning("%s: going on again, %.0f s after the first failure", self.what,
                             time.monotonic() - self.since)
            self.since = None


def postgres_env(url: str) -> dict[str, str]:
    """eventsourcing's POSTGRES_* settings from a postgresql:// URL."""
    parsed = urlparse(url)
    if parsed.scheme not in ("postgres", "postgresql"):
        raise ValueError(f"WARLOG_DATABASE_URL must start with postgresql://, not {parsed.scheme}://")
    env = {
        "POSTGRES_DBNAME": (parsed.path or "/").lstrip("/") or "postgres",
        "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parsed.port or 5432),
        "POSTGRES_USER": unquote(parsed.username or "postgres"),
        "POSTGRES_PASSWORD": unquote(parsed.password or ""),
        "POSTGRES_LOCK_TIMEOUT": "10",
        "POSTGRES_POOL_SIZE": "5",
        "POSTGRES_MAX_OVERFLOW": "10",
        "POSTGRES_CONNECT_TIMEOUT": "5",  # also how long a request waits for a free connection
    }
    schema = dict(p.split("=", 1) for p in parsed.query.split("&") if "=" in p).get("schema")
    if schema:
        env["POSTGRES_SCHEMA"] = schema
    return env


def postgres_dsn(pg: Mapping[str, str]) -> str:
    """A libpq connection string from eventsourcing's POSTGRES_* settings (``postgres_env``), for
    a plain connection beside the application's pool (tools, tests, benchmarks). Every value is
    quoted, so a password with a space or a quote in it still connects."""
    def quoted(value: str) -> str:
        return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"

    keys = {"host": "POSTGRES_HOST", "port": "POSTGRES_PORT", "user": "POSTGRES_USER", "dbname": "POSTGRES_DBNAME",
            "password": "POSTGRES_PASSWORD"}
    return " ".join(f"{key}={quoted(pg[name])}" for key, name in keys.items() if pg.get(name))


def config_from_env(environ: Mapping[str, str] | None = None) -> StoreConfig:
    environ = os.environ if environ is None else environ
    interval = whole_from_env("WARLOG_SNAPSHOT_INTERVAL", 100, environ)  # 0: no snapshots
    lock_timeout = _lock_timeout(environ.get("WARLOG_LOCK_TIMEOUT", "").strip())
    url = environ.get("WARLOG_DATABASE_URL", "").strip()
    if url:
        return StoreConfig(kind="postgres", postgres=postgres_env(url), snapshot_interval=interval,
                           lock_timeout=lock_timeout)
    database = private_dir(data_dir_from_env(environ)) / SQLITE_FILE
    private_database(database)
    return StoreConfig(kind="sqlite", sqlite_path=str(database), snapshot_interval=interval,
                       lock_timeout=lock_timeout)


def seconds_from_env(name: str, default: float, environ: Mapping[str, str] | None = None, *,
                     above_zero: bool = False) -> float:
    """A number of seconds from the environment: ``default`` when unset or empty, ValueError
    naming the variable when it is not a number (with ``above_zero``, not one above 0: a timeout
    or a poll interval; NaN too). Other bounds are the setting's own."""
    raw = (os.environ if environ is None else environ).get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = None
    if above_zero and not (value is not None and value > 0):
        raise ValueError(f"{name} must be a number of seconds above 0, not {raw!r}")
    if value is None:
        raise ValueError(f"{name} must be a number of seconds, not {raw!r}")
    return value


def whole_from_env(name: str, default: int, environ: Mapping[str, str] | None = None, minimum: int = 0) -> int:
    """A whole number from the environment: ``default`` when unset or empty, ValueError naming the
    variable when it is not a whole number of at least ``minimum``."""
    raw = ((os.environ if environ is None else environ).get(name) or "").strip()
    if not raw:
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) < minimum:  # int() refuses "²", which isdigit takes
        at_least = f", at least {minimum}" if minimum else ""
        raise ValueError(f"{name} must be a whole number{at_least}, not {raw!r}")
    return int(raw)


def whole_list_from_env(name: str, default: str, environ: Mapping[str, str] | None = None) -> list[int]:
    """Comma-separated whole numbers (seconds between retries) from the environment, ``default``
    when unset; ValueError naming the variable when one is not a whole number."""
    raw = (os.environ if environ is None else environ).get(name)
    raw = default if raw is None else raw
    items = [item.strip() for item in raw.split(",") if item.strip()]
    if not all(item.isascii() and item.isdigit() for item in items):
        raise ValueError(f"{name} must be whole numbers of seconds separated by commas, not {raw!r}")
    return [int(item) for item in items]


def data_dir_from_env(environ: Mapping[str, str] | None = None) -> Path:
    """WARLOG_DATA_DIR (default ``var``) as an absolute path: resolved once, against the working
    directory of the process that reads the environment, so no later use reads it differently
    (Flask's ``send_file`` resolves a relative path against the app's folder)."""
    environ = os.environ if environ is None else environ
    return Path(environ.get("WARLOG_DATA_DIR", "").strip() or DEFAULT_DATA_DIR).resolve()


# The database holds the open epochs' seeds and the webhooks' secrets: the data folder and the
# files warlog makes in it are for the service's user only.
def private_dir(path: Path) -> Path:
    """``path``, made (with its missing parents) 0700 if it is missing; an existing folder keeps its mode."""
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path, 0o700)  # mkdir's mode passes through the umask
    return path


def private_file(path: str | Path, mode: str = "a+b") -> Any:
    """``open(path, mode)``; a file it creates is made 0600."""
    return open(path, mode, opener=lambda name, flags: os.open(name, flags, 0o600))


def private_database(database: Path) -> None:
    """Create the SQLite file 0600 before SQLite does (SQLite gives its -wal and -shm files the
    mode of the database file), and take group and other access from files an older warlog made."""
    private_file(database).close()
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm"), Path(f"{database}.writer-lock")):
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)


def _lock_timeout(raw: str) -> int | None:
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise ValueError(f"WARLOG_LOCK_TIMEOUT must be a whole number of seconds, at least 1, not {raw!r}")
    return int(raw)


class SqlTables:
    """A few plain SQL tables beside the event store, on its connection.

    The one place that knows how the two databases differ here: the placeholder (``?`` or
    ``%s``), the schema prefix (written ``{t}`` in SQL) and where the row count is kept.
    Subclasses list their ``TABLES`` (name -> column definitions) and add their queries."""

    TABLES: dict[str, str] = {}

    def __init__(self, datastore: Any, kind: str, schema: str | None = None):
        self._db = datastore
        self.kind = kind
        self._p = "?" if kind == "sqlite" else "%s"
        self._prefix = f"{schema}." if schema else ""

    @classmethod
    def for_service(cls, service: Any) -> Any:
        config = service.config
        return cls(service.recorder.datastore, config.kind, (config.postgres or {}).get("POSTGRES_SCHEMA"))

    def sql(self, text: str) -> str:
        return text.replace("{t}", self._prefix).replace("?", self._p)

    def create_tables(self) -> None:
        with self._db.transaction(commit=True) as c:
            self._create(c)

    def _create(self, c: Any) -> None:
        for name, columns in self.TABLES.items():
            c.execute(f"CREATE TABLE IF NOT EXISTS {self._prefix}{name} ({columns})")

    def has_column(self, c: Any, table: str, column: str) -> bool:
        """Whether ``table`` has ``column`` (a table made before it was added has not)."""
        return column in self.columns(c, table)

    def columns(self, c: Any, table: str) -> set[str]:
        """The columns ``table`` has in the store (none when it is missing)."""
        if self.kind == "sqlite":
            c.execute(f"PRAGMA table_info({self._prefix}{table})")
            return {row["name"] for row in c.fetchall()}
        c.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = "
                  "COALESCE(%s, current_schema()) AND table_name = %s", (self._prefix[:-1] or None, table))
        return {row["column_name"] for row in c.fetchall()}

    def missing_columns(self) -> list[str]:
        """``table.column`` of each column of ``TABLES`` the store lacks: a table an older release
        made, not yet upgraded by ``warlog migrate`` (a missing table lacks all of its columns)."""
        with self._db.transaction(commit=False) as c:
            return [f"{table}.{column}" for table, definition in self.TABLES.items()
                    for column in sorted(set(column_names(definition)) - self.columns(c, table))]

    def _run(self, sql: str, params: tuple = (), *, fetch: str | None = None) -> Any:
        """One statement in its own transaction: a row (``fetch="one"``), rows as dicts
        (``fetch="all"``), or the number of rows written. On PostgreSQL the statement alone, on
        a connection of the pool (in autocommit mode: one statement is one transaction): in a
        transaction of its own, a BEGIN and a COMMIT went to the server and back as well."""
        if self.kind == "sqlite":
            with self._db.transaction(commit=fetch is None) as c:
                return self._result(c, self.sql(sql), params, fetch)
        with self._db.get_connection() as conn, conn.cursor() as c:
            return self._result(c, self.sql(sql), params, fetch)

    @staticmethod
    def _result(c: Any, sql: str, params: tuple, fetch: str | None) -> Any:
        c.execute(sql, params)
        if fetch == "one":
            return c.fetchone()
        if fetch == "all":
            return [dict(r) for r in c.fetchall()]
        return rowcount(c)


def column_names(definition: str) -> list[str]:
    """The columns a table's definition (``TABLES``) names, not its constraints."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(definition + ","):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(definition[start:i].split())
            start = i + 1
    return [words[0] for words in parts if words and words[0].upper() not in ("PRIMARY", "UNIQUE", "FOREIGN",
                                                                                "CHECK", "CONSTRAINT")]


def rowcount(cursor: Any) -> int:
    # eventsourcing wraps sqlite3's cursor; psycopg's cursor is handed out as it is.
    return getattr(cursor, "sqlite_cursor", cursor).rowcount


class SeedStore:
    """Epoch seeds, kept apart from the events so no read of the log can ever reach one.

    ``seed_for`` is get-or-create: racing writers of one game agree on one seed per epoch, and a
    seed drawn for an order that then lost a race is the one used by the next attempt.

    A seed not in this process's cache is got-or-created with those of the ``AHEAD - 1`` epochs
    after it, in one statement: a game opens its epochs in order, one at every turn (in a game
    of Falklands Showdown about every order), and each seed asked for alone cost a round trip
    and a commit of its own in the middle of an order. The cache keeps the ``CACHE`` seeds used
    last (a seed is public once its epoch is revealed, and asked for again only by a command of
    a game this process has not kept)."""

    AHEAD = 8
    CACHE = 16384

    def __init__(self, datastore: Any, kind: str, schema: str | None = None):
        self._datastore = datastore
        self._kind = kind
        self._table = f"{schema}.{SEEDS_TABLE}" if schema else SEEDS_TABLE
        self._cache: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._get_or_create = (  # PostgreSQL (_postgres)
            f"WITH made AS (INSERT INTO {self._table} (game_id, epoch, seed) "
            "SELECT %s, epoch, seed FROM unnest(%s::integer[], %s::bytea[]) AS fresh(epoch, seed) "
            "ON CONFLICT (game_id, epoch) DO NOTHING RETURNING epoch, seed) "
            f"SELECT epoch, seed FROM made UNION ALL SELECT epoch, seed FROM {self._table} "
            "WHERE game_id = %s AND epoch >= %s AND epoch < %s")

    def create_table(self) -> None:
        blob = "BLOB" if self._kind == "sqlite" else "BYTEA"
        with self._datastore.transaction(commit=True) as c:
            c.execute(f"CREATE TABLE IF NOT EXISTS {self._table} (game_id TEXT NOT NULL, "
                      f"epoch INTEGER NOT NULL, seed {blob} NOT NULL, PRIMARY KEY (game_id, epoch))")

    def seed_for(self, game_id: str, epoch: int) -> bytes:
        key = (game_id, epoch)
        with self._lock:
            seed = self._cache.get(key)
            if seed is not None:
                self._cache.move_to_end(key)
                return seed
        epochs = list(range(epoch, epoch + self.AHEAD))
        fresh = [secrets.token_bytes(SEED_BYTES) for _ in epochs]
        got = (self._postgres if self._kind == "postgres" else self._sqlite)(game_id, epochs, fresh)
        with self._lock:
            for e, seed in sorted(got.items()):
                self._cache[(game_id, e)] = seed
            while len(self._cache) > self.CACHE:
                self._cache.popitem(last=False)
        return got[epoch]

    def held(self, game_id: str, epoch: int) -> bytes | None:
        """The seed of ``epoch`` of ``game_id`` if this store holds one, else None; unlike
        ``seed_for`` it never draws one (an imported game's seeds are held where it was played)."""
        with self._lock:
            seed = self._cache.get((game_id, epoch))
        if seed is not None:
            return seed
        return (self._held_postgres if self._kind == "postgres" else self._held_sqlite)(game_id, epoch)

    def _held_sqlite(self, game_id: str, epoch: int) -> bytes | None:
        with self._datastore.transaction(commit=False) as c:
            c.execute(f"SELECT seed FROM {self._table} WHERE game_id = ? AND epoch = ?", (game_id, epoch))
            row = c.fetchone()
        return bytes(row["seed"]) if row else None

    @retry_store
    def _held_postgres(self, game_id: str, epoch: int) -> bytes | None:
        with self._datastore.get_connection() as conn:
            row = conn.execute(f"SELECT seed FROM {self._table} WHERE game_id = %s AND epoch = %s",
                               (game_id, epoch)).fetchone()
        return bytes(row["seed"]) if row else None

    def _sqlite(self, game_id: str, epochs: list[int], fresh: list[bytes]) -> dict[int, bytes]:
        with self._datastore.transaction(commit=True) as c:
            c.executemany(f"INSERT INTO {self._table} (game_id, epoch, seed) VALUES (?, ?, ?) "
                          "ON CONFLICT (game_id, epoch) DO NOTHING", [(game_id, e, s) for e, s in zip(epochs, fresh)])
            c.execute(f"SELECT epoch, seed FROM {self._table} WHERE game_id = ? AND epoch >= ? AND epoch < ?",
                      (game_id, epochs[0], epochs[-1] + 1))
            return {int(row["epoch"]): bytes(row["seed"]) for row in c.fetchall()}

    @retry_store
    def _postgres(self, game_id: str, epochs: list[int], fresh: list[bytes]) -> dict[int, bytes]:
        """One statement, committed by itself (its own round trip, its own fsync: the seeds are
        on disk before any commitment to one of them is saved). It inserts the fresh seeds or,
        for the epochs that have one, reads it; a racing writer that has inserted but not yet
        committed makes the insert wait and then do nothing, and the read (as of the statement's
        start) find nothing: the statement is then run again at once, and reads the winner's
        seed. Only the first epoch's seed must come back; one of a later epoch still racing is
        got again when it is asked for.

        A lost connection is retried as eventsourcing's recorders retry it (the decorator). A
        seed that still cannot be read after ``SEED_READS`` runs is not a race any more (a
        trigger or a rule of the database drops the insert): ``DatabaseError``, which the
        decorator does not retry, so it surfaces at once."""
        with self._datastore.get_connection() as conn:
            for _ in range(SEED_READS):
                rows = conn.execute(self._get_or_create, (game_id, epochs, fresh, game_id, epochs[0], epochs[-1] + 1),
                                    prepare=True).fetchall()
                got = {int(row["epoch"]): bytes(row["seed"]) for row in rows}
                if epochs[0] in got:
                    return got
        raise DatabaseError(f"no dice seed could be read or stored for game {game_id}, epoch {epochs[0]}")


# A racing insert makes one run of the get-or-create find nothing; the next finds its seed.
SEED_READS = 3
