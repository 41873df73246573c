"""Making faults happen at a known point: holding locks in the store from the test, finding the
processes to kill, and cutting the link to PostgreSQL (``CuttableLink``).

A request, job or batch that needs a lock the test holds waits for it, so the test knows the
process is in the middle of its work when it sends SIGKILL: no sleeping and hoping.

- SQLite (WAL): ``BEGIN IMMEDIATE`` holds the one write lock; readers are never blocked.
- PostgreSQL: ``LOCK TABLE ... IN EXCLUSIVE MODE`` on the events table blocks the writers of
  events (eventsourcing takes that lock to insert) but not readers; ``ACCESS EXCLUSIVE`` blocks
  readers too; ``SELECT ... FOR UPDATE`` holds single rows. ``waiters()`` counts the backends
  waiting for a lock on a table, so a test can see the process it is about to kill is stuck there.
  The server gives up waiting for the events lock after POSTGRES_LOCK_TIMEOUT (10 s): every hold
  here is much shorter.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from pathlib import Path
from typing import Callable, Iterator

from bench.procs import children, socket_inodes, tcp_connections  # noqa: F401 (used by the tests from here)
from domain.storage import StoreConfig
from tests.integration.rawstore import pg_dsn, pg_schema

EVENTS = "warlog_events"
TRACKING = "warlog_projection_tracking"


def table(config: StoreConfig, name: str) -> str:
    return f"{pg_schema(config)}.{name}" if config.kind == "postgres" else name


class Hold:
    """A lock held by the test on its own connection; released when the ``with`` block ends."""

    def __init__(self, config: StoreConfig, conn, relation: str | None):
        self.config, self.conn, self.relation = config, conn, relation

    def waiters(self) -> int:
        """Backends waiting for a lock on the held table (PostgreSQL); -1 when that cannot be seen."""
        if self.config.kind != "postgres" or self.relation is None:
            return -1
        return len(self.waiting_backends())

    def waiting_backends(self) -> set[int]:
        """The server pids of the backends waiting for a lock on the held table (PostgreSQL;
        none on SQLite, whose waiters are threads of the processes themselves)."""
        if self.config.kind != "postgres" or self.relation is None:
            return set()
        import psycopg

        with psycopg.connect(pg_dsn(self.config), autocommit=True) as other:
            rows = other.execute("SELECT DISTINCT l.pid FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
                                 "WHERE NOT l.granted AND (l.relation = %s::regclass OR "
                                 "(l.locktype = 'transactionid' AND a.query ILIKE %s))",
                                 (self.relation, f"%{self.relation}%")).fetchall()
        return {int(row[0]) for row in rows}

    def wait_for_waiter(self, pids: set[int] | None = None, timeout: float = 15.0) -> None:
        """Until someone waits for this lock. PostgreSQL shows its waiting backends; SQLite does
        not, but a thread waiting for its lock sleeps in SQLite's busy handler (clock_nanosleep),
        which /proc shows for ``pids`` (the processes the waiter can be in)."""
        if self.waiters() >= 0:
            wait_until(lambda: self.waiters() > 0, timeout, f"nobody waited for the lock on {self.relation}")
            return
        assert pids, "SQLite: name the processes that should be waiting"
        wait_until(lambda: any(busy_waiting(pid) for pid in pids), timeout,
                   f"none of the processes {sorted(pids)} waited for the SQLite lock")


@contextlib.contextmanager
def writes_blocked(config: StoreConfig) -> Iterator[Hold]:
    """No event can be written while the block runs; reads go on."""
    if config.kind == "sqlite":
        conn = sqlite3.connect(config.sqlite_path, isolation_level=None, timeout=30)
        try:
            conn.execute("BEGIN IMMEDIATE")
            yield Hold(config, conn, None)
            conn.execute("ROLLBACK")
        finally:
            conn.close()
        return
    with _events_locked(config, "EXCLUSIVE") as hold:
        yield hold


@contextlib.contextmanager
def reads_blocked(config: StoreConfig) -> Iterator[Hold]:
    """PostgreSQL only: not even a read of the events table gets through while the block runs."""
    assert config.kind == "postgres", "SQLite in WAL mode never blocks a reader"
    with _events_locked(config, "ACCESS EXCLUSIVE") as hold:
        yield hold


@contextlib.contextmanager
def _events_locked(config: StoreConfig, mode: str) -> Iterator[Hold]:
    """PostgreSQL: the events table locked in ``mode`` by a connection of its own until the block ends."""
    import psycopg

    conn = psycopg.connect(pg_dsn(config))
    try:
        conn.execute(f"LOCK TABLE {table(config, EVENTS)} IN {mode} MODE")
        yield Hold(config, conn, table(config, EVENTS))
    finally:
        conn.rollback()
        conn.close()


@contextlib.contextmanager
def tracking_held(config: StoreConfig) -> Iterator[Hold]:
    """The projector's position cannot be written while the block runs: PostgreSQL holds the
    tracking rows (so a batch writes its views, then waits, uncommitted); SQLite holds the
    write lock (so a batch waits at its first write)."""
    if config.kind == "sqlite":
        with writes_blocked(config) as hold:
            yield hold
        return
    import psycopg

    conn = psycopg.connect(pg_dsn(config))
    try:
        held = conn.execute(f"SELECT name FROM {table(config, TRACKING)} FOR UPDATE").fetchall()
        assert held, "no tracking row yet: run the projector once first"
        yield Hold(config, conn, table(config, TRACKING))
    finally:
        conn.rollback()
        conn.close()


def backends_ended(config: StoreConfig, pids: set[int], timeout: float = 15.0) -> None:
    """PostgreSQL: until none of the server backends ``pids`` is left. A backend whose client
    died goes on with the statement it had been sent (waiting for a lock, then running it) and
    ends only when it finds nobody to answer; once it has ended, its transaction is over,
    committed or rolled back, and what it left in the store is final."""
    if config.kind != "postgres" or not pids:
        return
    import psycopg

    def ended() -> bool:
        with psycopg.connect(pg_dsn(config), autocommit=True) as conn:
            return not conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)",
                                    (list(pids),)).fetchone()[0]

    wait_until(ended, timeout, f"the server backends {sorted(pids)} did not end")


# ---------------------------------------------------------------------------- processes -----
def wait_until(predicate: Callable[[], object], timeout: float, message: str, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{message} (within {timeout} s)")
        time.sleep(poll)


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


_SLEEPS = {"35", "230"}  # nanosleep, clock_nanosleep (x86-64): how SQLite's busy handler waits


def busy_waiting(pid: int, samples: int = 10, interval: float = 0.02) -> bool:
    """A thread of ``pid`` sleeps in (clock_)nanosleep in nearly every sample: waiting for a lock
    in SQLite's busy handler (these processes use no other sleep while serving)."""
    hits = 0
    for _ in range(samples):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return False
        for tid in tasks:
            try:
                if Path(f"/proc/{pid}/task/{tid}/syscall").read_text().split()[0] in _SLEEPS:
                    hits += 1
                    break
            except (OSError, IndexError):
                continue
        time.sleep(interval)
    return hits >= samples - 2


def socket_owner(pids: set[int], local_port: int, remote_port: int) -> int | None:
    """Which of ``pids`` holds the TCP connection local_port <-> remote_port (the server side of
    a client's connection), from /proc/net/tcp and each process's file descriptors."""
    inodes = {inode for local, remote, _, inode in tcp_connections()
              if local == local_port and remote == remote_port}
    for pid in pids:
        if socket_inodes(pid) & inodes:
            return pid
    return None


class CuttableLink:
    """A TCP relay on a free local port to ``target`` (the PostgreSQL server) that the test can
    cut, as a network failure or a database restart would: ``cut()`` closes every relayed
    connection and refuses new ones (accepted and closed at once), ``restore()`` relays again."""

    def __init__(self, target: tuple[str, int]):
        import socket
        import threading

        self._socket, self._threading = socket, threading
        self.target = target
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._up = True
        self._open: list = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return  # closed
            if not self._up:
                client.close()
                continue
            try:
                upstream = self._socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                # cut() may have come while the upstream connection was made: this connection
                # was not among those it closed, so it is closed here.
                if not self._up:
                    for s in (client, upstream):
                        s.close()
                    continue
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                self._threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a, b) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(self._socket.SHUT_RDWR)

    @classmethod
    def to_postgres(cls, config: StoreConfig) -> "CuttableLink":
        """A link to the PostgreSQL server of ``config``."""
        pg = config.postgres
        return cls((pg["POSTGRES_HOST"], int(pg["POSTGRES_PORT"])))

    def database_url(self, config: StoreConfig) -> str:
        """``WARLOG_DATABASE_URL`` of ``config``'s PostgreSQL schema, through this link."""
        pg = config.postgres
        return (f"postgresql://{pg['POSTGRES_USER']}@127.0.0.1:{self.port}/{pg['POSTGRES_DBNAME']}"
                f"?schema={pg['POSTGRES_SCHEMA']}")

    def cut(self) -> None:
        with self._lock:
            self._up = False
            for s in self._open:
                with contextlib.suppress(OSError):
                    s.shutdown(self._socket.SHUT_RDWR)
            self._open = []

    def restore(self) -> None:
        self._up = True

    def close(self) -> None:
        self.cut()
        self._server.close()
