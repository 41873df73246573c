"""Crashes: SIGKILL a gunicorn web worker mid-request, an rq worker mid-job and the projector
mid-batch, on real stores (SQLite, PostgreSQL) and the real Redis.

Each kill lands at a known point: the process is waiting for a lock the test holds
(tests/reliability/faults.py), so it is inside its request, job or batch, not before or after.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rq.registry import StartedJobRegistry

from domain.rulesets import UMPIRE
from projections.runner import Projections
from tests.conftest import make_app, new_freeform_game
from tests.e2e.server import ROOT
from tests.projections.test_runner import play, rebuilt, snapshot
from tests.reliability.client import Game, Http, assert_no_secret_in_log, assert_sound_log, without_text
from tests.reliability.faults import (alive, backends_ended, children, reads_blocked, socket_owner, tracking_held,
                                      wait_until, writes_blocked)
from workers import queue as rqueue
from workers import replay as replaying

DISCONNECTED = (http.client.RemoteDisconnected, http.client.IncompleteRead, ConnectionError)


def roll(purpose: str) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": purpose}


def two_workers(master: int, without: int | None = None) -> set[int]:
    """The master's 2 workers once it has them (none of them ``without``)."""
    def found() -> set[int] | None:
        workers = children(master)
        return workers if len(workers) == 2 and without not in workers else None

    return wait_until(found, 30, "gunicorn does not have its 2 workers")


# ---------------------------------------------------------------------------- web workers ----
def test_sigkill_of_a_web_worker_mid_request_loses_nothing_and_the_master_replaces_it(store):
    with store.serve(WEB_CONCURRENCY="2") as url:
        http = Http(url)
        game = Game(http)
        game.order("Blue", roll("before the crash"))
        before = game.summary()
        workers = two_workers(url.pid)
        order = roll("the order of the killed worker")

        with writes_blocked(store.config) as hold:
            conn = http.connection(timeout=20)
            try:
                http.send(conn, "POST", game.path("/orders"), order, token=game.tokens["Red"],
                          headers={"Idempotency-Key": "killed-1"})
                client_port = conn.sock.getsockname()[1]
                victim = wait_until(lambda: socket_owner(workers, url.port, client_port), 10,
                                    "no worker holds the request's connection")
                hold.wait_for_waiter({victim})  # inside the request, waiting to write the order
                statement = hold.waiting_backends()  # PostgreSQL: its save, in the server
                assert statement or store.kind == "sqlite"
                os.kill(victim, signal.SIGKILL)
                with pytest.raises(DISCONNECTED):  # the client gets an error, not an answer
                    http.read(conn)
            finally:
                conn.close()
        # The lock is free. On PostgreSQL the server now runs the save the dead worker had sent,
        # and commits it; until its backend has ended, a read may come before that commit.
        backends_ended(store.config, statement)

        # The master replaces the worker.
        replaced = two_workers(url.pid, without=victim)
        assert not alive(victim) and replaced - workers
        url.wait_for_log(f"(pid:{victim}) was sent SIGKILL")
        # The killed request recorded its order whole or not at all, and the log verifies: its
        # transaction died with the worker, before its COMMIT (eventsourcing's save is a
        # transaction, on either store).
        after = game.summary()
        recorded = False
        assert (after["version"], after["chain_head"]) == (before["version"], before["chain_head"])
        assert_sound_log(game)
        # The client's retry succeeds: recorded once (now, or as the original result), and a
        # second retry is its replay.
        first = game.order("Red", order, "killed-1", expect=200 if recorded else 201)
        again = game.order("Red", order, "killed-1", expect=200)
        assert again.body["events"] == first.body["events"]
        lines = assert_sound_log(game)
        assert [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"].count("killed-1") == 1
        # Both workers serve: enough requests that each gets some.
        for n in range(8):
            game.order(("Blue", "Red")[n % 2], roll(f"after {n}"))
        assert_sound_log(game)
        assert_no_secret_in_log(http, url.log())


def test_web_workers_killed_at_random_while_clients_retry_record_every_order_once(store):
    """Clients send orders and, on a dropped connection or a conflict, the same order again with
    the same order id; meanwhile web workers are killed at random moments. Every order ends up
    recorded exactly once, and each client's last answer is what the log holds."""
    clients, orders_each, kills = 6, 6, 4
    rnd = random.Random(8)
    with store.serve(WEB_CONCURRENCY="2") as url:
        http = Http(url)
        game = Game(http)
        final: dict[str, dict] = {}
        errors: list[BaseException] = []
        dropped = []
        ends = time.monotonic() + 90

        def client(i: int) -> None:
            try:
                for n in range(orders_each):
                    order_id = f"k{i}-{n}"
                    while True:
                        assert time.monotonic() < ends, "out of time"
                        try:
                            reply = game.order(("Blue", "Red")[i % 2], roll(order_id), order_id, expect=None)
                        except DISCONNECTED:
                            dropped.append(order_id)
                            continue
                        assert reply.status in (200, 201, 409), reply.raw
                        if reply.status != 409:
                            final[order_id] = reply.body
                            break
            except BaseException as exc:  # reported by the test
                errors.append(exc)

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
        for t in threads:
            t.start()
        killed = []
        for _ in range(kills):
            time.sleep(rnd.uniform(0.1, 0.4))
            workers = two_workers(url.pid)
            victim = rnd.choice(sorted(workers))
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
            # A killed process leaves the list once the kernel has ended it (not at once under
            # load: one in the middle of a write ends when the write returns).
            wait_until(lambda: victim not in children(url.pid), 30, f"killed worker {victim} does not end")
        for t in threads:
            t.join(timeout=max(1.0, ends - time.monotonic() + 5))
        assert not any(t.is_alive() for t in threads) and not errors, errors[:3]
        two_workers(url.pid)
        wait_until(lambda: not set(killed) & children(url.pid), 30, "a killed worker is still there")

        lines = assert_sound_log(game)
        by_seq = {line["seq"]: line for line in lines}
        recorded = [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"]
        assert sorted(recorded) == sorted(final) and len(final) == clients * orders_each
        for order_id, body in final.items():
            told = [without_text(e) for e in body["events"]]
            assert told == [by_seq[e["seq"]] for e in told] and told[0]["data"]["order_id"] == order_id


# ------------------------------------------------------------------------------ rq workers ----
def _worker(store, rq_env, *, burst: bool, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARLOG_")}
    env.update(store.process_env(), PYTHONPATH=str(ROOT), REDIS_URL=rq_env.url, WARLOG_JOB_RETRY_INTERVALS="0")
    args = [sys.executable, "-m", "rq.cli", "worker", "--url", rq_env.url, rq_env.queue]
    with open(log, "ab") as out:
        return subprocess.Popen(args + (["--burst"] if burst else []), cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def _replay_job(store, rq_env, artifacts: Path):
    """A game and its umpire replay job, queued: (game id, version, job id)."""
    service = make_app(store.config)
    try:
        gid = new_freeform_game(service)
        play(service, gid, orders=15, seed=3)
        version = service.get_game(gid).version
        lines = service.lines(gid)
    finally:
        service.close()
    jid = rqueue.job_id("replay", gid, version, "umpire")
    rq_env.job_ids.append(jid)
    q = rqueue.get_queue(rq_env.conn, rq_env.queue)
    job, created = rqueue.enqueue_once(q, "workers.jobs.make_replay", jid, gid, version, "umpire", str(artifacts))
    assert created and job.retries_left == 3
    return gid, version, jid, lines


def _started(rq_env, jid: str) -> bool:
    return rqueue.status_of(rqueue.fetch(jid, rq_env.conn))["status"] == "started"


def _assert_replay_made(rq_env, jid, artifacts, gid, version, lines, retries_left: set[int]) -> None:
    shown = rqueue.status_of(rqueue.fetch(jid, rq_env.conn))
    assert shown["status"] == "finished" and shown["progress"] == 100 and shown["error"] is None, shown
    assert shown["retries_left"] in retries_left, shown
    made = json.loads((artifacts / f"replay-{gid}-v{version}-umpire.json").read_text())
    assert made == json.loads(json.dumps(replaying.frames(lines, UMPIRE)))  # what the pure function gives
    assert (artifacts / f"replay-{gid}-v{version}-umpire.html").stat().st_size > 0
    assert not [p for p in artifacts.iterdir() if p.name.startswith(".")], "a half-written artifact was left"


def test_sigkill_of_the_rq_work_horse_mid_job_is_retried_and_completes(pg_store, rq_env, tmp_path):
    artifacts = tmp_path / "artifacts"
    gid, version, jid, lines = _replay_job(pg_store, rq_env, artifacts)
    log = tmp_path / "worker.log"
    with reads_blocked(pg_store.config) as hold:
        worker = _worker(pg_store, rq_env, burst=True, log=log)
        try:
            wait_until(lambda: _started(rq_env, jid), 30, "the worker never started the job")
            hold.wait_for_waiter()  # the job is reading the game's log
            horse = wait_until(lambda: children(worker.pid), 10, "no work horse")
            assert len(horse) == 1
            os.kill(horse.pop(), signal.SIGKILL)
            wait_until(lambda: "terminated unexpectedly" in log.read_text(errors="replace"), 15,
                       "the worker did not see its work horse die")
        except BaseException:
            _stop(worker)
            raise
    try:
        assert worker.wait(timeout=60) == 0, log.read_text(errors="replace")[-3000:]
    finally:
        _stop(worker)
    _assert_replay_made(rq_env, jid, artifacts, gid, version, lines, {2})  # it ran again as one of its 3 retries


def test_sigkill_of_a_whole_rq_worker_mid_job_is_retried_by_the_next_worker(pg_store, rq_env, tmp_path):
    artifacts = tmp_path / "artifacts"
    gid, version, jid, lines = _replay_job(pg_store, rq_env, artifacts)
    log = tmp_path / "worker.log"
    with reads_blocked(pg_store.config) as hold:
        worker = _worker(pg_store, rq_env, burst=False, log=log)
        try:
            wait_until(lambda: _started(rq_env, jid), 30, "the worker never started the job")
            hold.wait_for_waiter()
        finally:
            _stop(worker)  # SIGKILL to the worker and its work horse at once: nobody reports anything
    assert _started(rq_env, jid), "a job whose worker died stays 'started' until its heartbeat expires"
    # rq's registry maintenance (which every worker runs) finds the abandoned job once the
    # worker's heartbeat (~70 s) has expired; run it as of a time past that instead of waiting.
    registry = StartedJobRegistry(rq_env.queue, connection=rq_env.conn)
    registry.cleanup(timestamp=time.time() + 3600)
    assert rqueue.status_of(rqueue.fetch(jid, rq_env.conn))["status"] == "queued"
    worker = _worker(pg_store, rq_env, burst=True, log=log)
    try:
        assert worker.wait(timeout=60) == 0, log.read_text(errors="replace")[-3000:]
    finally:
        _stop(worker)
    # rq 3.0 requeues an abandoned job without saving its decremented retries_left (Job.retry
    # changes it in memory only on this path), so the count may still read 3.
    _assert_replay_made(rq_env, jid, artifacts, gid, version, lines, {2, 3})


# ------------------------------------------------------------------------------ projector ----
def _projector(store, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARLOG_")}
    env.update(store.process_env(), WARLOG_PROJECTOR_POLL_SECONDS="0.1")
    with open(log, "ab") as out:
        return subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "warlog"), "projector"], cwd=ROOT,
                                env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def test_sigkill_of_the_projector_mid_batch_resumes_and_rebuilt_equals_incremental(store, tmp_path):
    app = make_app(store.config)
    try:
        games = [new_freeform_game(app) for _ in range(3)]
        for n, gid in enumerate(games):
            play(app, gid, orders=10, seed=n)
        projections = Projections(app)
        projections.catch_up(limit=7)  # the tracking rows exist; the next batch is the projector's
        for n, gid in enumerate(games):
            play(app, gid, orders=12, seed=10 + n)
        position, views = projections.position(), snapshot(projections, games)
        assert position < projections.head()
        log = tmp_path / "projector.log"

        with tracking_held(store.config) as hold:
            proc = _projector(store, log)
            try:
                # PostgreSQL: its batch wrote the views and waits to write its position, uncommitted.
                # SQLite: its batch waits for the write lock.
                hold.wait_for_waiter({proc.pid}, timeout=30)
                os.killpg(proc.pid, signal.SIGKILL)
            finally:
                _stop(proc)
        assert projections.position() == position, "a killed batch committed its position"
        assert snapshot(projections, games) == views, "a killed batch left some of its writes"

        proc = _projector(store, log)
        try:
            wait_until(lambda: projections.position() == projections.head(), 30, "the projector did not resume")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        assert proc.returncode == 0, log.read_text(errors="replace")[-3000:]
        assert snapshot(projections, games) == rebuilt(app, games)
    finally:
        app.close()
