"""The rq plumbing on a real Redis with a real worker: time limits, idempotent enqueueing and
the one-line error of a failed job."""

from __future__ import annotations

from workers import queue as rqueue


def test_a_job_over_its_time_limit_fails_with_a_one_line_error(rq_env, monkeypatch, tmp_path):
    monkeypatch.setenv("WARLOG_JOB_TIMEOUT", "1")
    monkeypatch.setenv("WARLOG_JOB_RETRIES", "1")
    q = rqueue.get_queue(rq_env.conn, rq_env.queue)
    jid = rqueue.job_id("test-sleepy", tmp_path.name)
    rq_env.job_ids.append(jid)
    job, created = rqueue.enqueue_once(q, "tests.workers.slow_job.sleepy", jid, 5)
    assert created and job.timeout == 1 and job.retries_left == 1
    same, created = rqueue.enqueue_once(q, "tests.workers.slow_job.sleepy", jid, 5)
    assert not created and same.id == jid and len(q) == 1  # asked twice, queued once
    rq_env.work(tmp_path)
    shown = rqueue.status_of(rqueue.fetch(jid, rq_env.conn))
    assert shown["status"] == "failed" and shown["retries_left"] == 0
    assert shown["error"].startswith("JobTimeoutException:") and "\n" not in shown["error"]
    assert shown["progress"] == 10
    # A failed job asked for again is queued afresh under the same id.
    again, created = rqueue.enqueue_once(q, "tests.workers.slow_job.sleepy", jid, 0)
    assert created and again.id == jid and rqueue.status_of(again)["status"] == "queued"
    rq_env.work(tmp_path)
    done = rqueue.status_of(rqueue.fetch(jid, rq_env.conn))
    assert done["status"] == "finished" and done["progress"] == 100 and done["error"] is None


def test_job_ids_are_stable_and_within_rqs_alphabet():
    a = rqueue.job_id("replay", "3f1c-…", "v12", "public")
    assert a == rqueue.job_id("replay", "3f1c-…", "v12", "public") and a.startswith("warlog-replay-")
    assert all(c.isalnum() or c in "-_" for c in a)
    long = rqueue.job_id("across", "x" * 500)
    assert len(long) < 130 and long != rqueue.job_id("across", "x" * 499)


def test_settings_from_the_environment():
    assert rqueue.redis_url({}) == "redis://127.0.0.1:6379/0"
    assert rqueue.redis_url({"REDIS_URL": "unix:///tmp/r.sock"}) == "unix:///tmp/r.sock"
    retry = rqueue.retry_policy({"WARLOG_JOB_RETRIES": "2", "WARLOG_JOB_RETRY_INTERVALS": "1,4"})
    assert retry.max == 2 and retry.intervals == [1, 4]
    assert rqueue.retry_policy({}).intervals == [5, 30, 120] and rqueue.job_timeout({}) == 600
