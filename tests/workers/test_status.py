"""``warlog status`` (workers/status.py): a follower of the log that nothing moves is found stalled
and named with the command that runs it, on SQLite and PostgreSQL; one that has read the log is
caught up; a jobs queue no rq worker listens on, or a Redis that does not answer, is not ok; a
password in REDIS_URL is never printed. `tests/e2e/test_stack.py` runs it beside `make run`'s
stack, which it finds without REDIS_URL."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker

from projections.runner import Projections
from tests.conftest import new_freeform_game
from workers import status
from workers.dispatch import Dispatcher

ROOT = Path(__file__).resolve().parents[2]
REDIS = "redis://127.0.0.1:6379/0"


def STILL() -> None:
    """The pause between two looks, in which nothing runs."""


def _redis() -> redis.Redis:
    conn = redis.Redis.from_url(REDIS, socket_connect_timeout=1)
    try:
        conn.ping()
    except redis.ConnectionError:
        pytest.skip("no Redis at 127.0.0.1:6379")
    return conn


def test_a_follower_nothing_moves_is_stalled_and_one_that_read_the_log_is_caught_up(app):
    new_freeform_game(app)
    head = app.recorder.max_notification_id()
    now = datetime.now(timezone.utc)

    got_head, found = status.followers(app, now + timedelta(seconds=61), pause=STILL)
    assert got_head == head
    assert [(f.name, f.command, f.behind, f.stalled) for f in found] == [
        ("projector", "warlog projector", head, True), ("dispatcher", "warlog dispatcher", head, True)]
    first = datetime.fromisoformat(found[0].waiting_since)
    assert abs((first - now).total_seconds()) < 30  # the first unread event's time, not the newest's

    # a minute is the default bound: the same log seen 10 s after is only behind
    assert [f.stalled for f in status.followers(app, now + timedelta(seconds=10), pause=STILL)[1]] == [False, False]

    Projections(app).catch_up()
    _, found = status.followers(app, now + timedelta(seconds=61), pause=STILL)
    assert [(f.name, f.behind, f.stalled) for f in found] == [("projector", 0, False), ("dispatcher", head, True)]

    Dispatcher(app, enqueue=lambda row: None).run_batch()
    _, found = status.followers(app, now + timedelta(hours=1), pause=STILL)
    assert [(f.position, f.behind, f.stalled) for f in found] == [(head, 0, False), (head, 0, False)]


def test_a_follower_that_moves_while_looked_at_is_catching_up_not_stalled(app):
    for _ in range(3):
        new_freeform_game(app)
    head = app.recorder.max_notification_id()
    later = datetime.now(timezone.utc) + timedelta(minutes=5)
    # the projector reads a few events during the pause, as one catching up a backlog does
    _, found = status.followers(app, later, pause=lambda: Projections(app).run_batch(limit=2))
    projector, dispatcher = found
    assert (projector.stalled, projector.moving, projector.position, projector.behind) == (False, True, 0, head)
    assert (dispatcher.stalled, dispatcher.moving) == (True, False)


def test_a_jobs_queue_without_a_worker_is_not_served_and_an_empty_webhooks_queue_need_not_be():
    conn = _redis()
    jobs, hooks = f"test-status-{uuid.uuid4().hex}", f"test-status-{uuid.uuid4().hex}-webhooks"
    found = status.queues(conn, REDIS, [jobs], [hooks])
    assert [(q.name, q.workers, q.served) for q in found.queues] == [(jobs, 0, False), (hooks, 0, True)]

    worker = Worker([Queue(jobs, connection=conn)], connection=conn)
    worker.register_birth()
    try:
        Queue(hooks, connection=conn).enqueue("workers.jobs.replay_game", "no-such-game")  # waits: no worker
        found = status.queues(conn, REDIS, [jobs], [hooks])
        assert [(q.name, q.queued, q.workers, q.served) for q in found.queues] == [
            (jobs, 0, 1, True), (hooks, 1, 0, False)]
        assert found.workers == [{"name": worker.name, "queues": [jobs], "state": found.workers[0]["state"]}]
    finally:
        worker.register_death()
        Queue(hooks, connection=conn).empty()


def _status(tmp_path, *args, **env) -> subprocess.CompletedProcess:
    environ = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data"), **env}
    environ.pop("WARLOG_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "api.cli", "status", *args], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)


def test_the_command_names_what_to_start_and_exits_1(tmp_path, sqlite_config):
    from tests.conftest import make_app

    _redis()
    service = make_app(sqlite_config)  # tmp_path/data, as _status reads it
    try:
        new_freeform_game(service)
    finally:
        service.close()
    queue = f"test-status-{uuid.uuid4().hex}"
    done = _status(tmp_path, "--stalled-after", "0.001", REDIS_URL=REDIS, WARLOG_QUEUE=queue)
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "dispatcher: at 0, " in out and "is `warlog dispatcher` running?" in out
    assert "is `warlog projector` running?" in out
    assert f"queue {queue}: 0 waiting, 0 failed, 0 workers; NO WORKER: start `warlog worker`" in out
    assert out.rstrip().endswith("NOT OK")

    shown = _status(tmp_path, "--json", REDIS_URL="redis://:hunter2@127.0.0.1:1/0", WARLOG_QUEUE=queue)
    assert shown.returncode == 1 and "hunter2" not in shown.stdout + shown.stderr
    import json

    body = json.loads(shown.stdout)
    assert body["ok"] is False and body["queues"]["answered"] is False
    assert body["queues"]["url"] == "redis://:***@127.0.0.1:1/0"

    assert _status(tmp_path, "--stalled-after", "nan").returncode != 0


def test_the_command_on_an_empty_store_says_so(tmp_path):
    done = _status(tmp_path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "no warlog store at" in done.stderr and "no service has stored anything there yet" in done.stderr
    # what to do: the service's folder, or its settings; and the folder asked about is not made
    assert "run it where the service runs, or with its WARLOG_DATA_DIR or WARLOG_DATABASE_URL" in done.stderr
    assert not (tmp_path / "data").exists()
