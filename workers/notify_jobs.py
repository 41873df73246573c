"""rq jobs for notifications: thin wrappers over workers/dispatch.deliver.

Webhook deliveries have their own queue, served by its own worker (``warlog worker --webhooks``),
so a receiver that is slow or never answers holds up other webhooks only, never mails, replays or
statistics; each attempt is short and the retries are bounded, with backoff.

Environment: WARLOG_SMTP_* (workers/notify.SmtpSettings), WARLOG_PUBLIC_URL (the link in a
message), WARLOG_NOTIFY_QUEUE (the mails' queue; default WARLOG_QUEUE, else ``warlog``),
WARLOG_WEBHOOK_QUEUE (the webhooks' queue; default ``<WARLOG_QUEUE>-webhooks``, i.e.
``warlog-webhooks``), WARLOG_NOTIFY_RETRY_INTERVALS (seconds between attempts; their count is the
number of retries), WARLOG_WEBHOOK_TIMEOUT (seconds per network step of an attempt, default 5),
WARLOG_WEBHOOK_ALLOW (workers/webhook_target), WARLOG_DIGEST_HOUR (the hour of the day, UTC, when
the daily digests go out; default 7). REDIS_URL: see docs/operations.md.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

DEFAULT_QUEUE = "warlog"  # the queue of the other jobs too (WARLOG_QUEUE)
JOB_TIMEOUT = 120  # seconds: an SMTP conversation times out well before
WEBHOOK_JOB_TIMEOUT = 30  # seconds: a whole webhook attempt, however slowly a receiver drips its answer


def queue_name() -> str:
    return (os.environ.get("WARLOG_NOTIFY_QUEUE", "").strip() or os.environ.get("WARLOG_QUEUE", "").strip()
            or DEFAULT_QUEUE)


def webhook_queue_name() -> str:
    return (os.environ.get("WARLOG_WEBHOOK_QUEUE", "").strip()
            or f"{os.environ.get('WARLOG_QUEUE', '').strip() or DEFAULT_QUEUE}-webhooks")


def public_url() -> str:
    return os.environ.get("WARLOG_PUBLIC_URL", "").strip() or f"http://127.0.0.1:{os.environ.get('PORT') or 8000}"


def webhook_timeout(env: dict | None = None) -> float:
    """WARLOG_WEBHOOK_TIMEOUT: seconds for each network step of a webhook POST (default 5)."""
    from domain.storage import seconds_from_env

    return seconds_from_env("WARLOG_WEBHOOK_TIMEOUT", 5.0, env, above_zero=True)


def digest_hour(env: dict | None = None) -> int:
    """WARLOG_DIGEST_HOUR: when the daily digests go out (0-23, UTC; default 7)."""
    raw = ((os.environ if env is None else env).get("WARLOG_DIGEST_HOUR") or "").strip()
    hour = int(raw) if raw.isascii() and raw.isdigit() else (7 if not raw else -1)
    if not 0 <= hour <= 23:
        raise ValueError(f"WARLOG_DIGEST_HOUR is an hour of the day, 0 to 23 (UTC), not {raw!r}")
    return hour


def redis_connection(url: str | None = None) -> Any:
    """The configured Redis (workers/queue.py: REDIS_URL, else 127.0.0.1:6379); ``unix://`` URLs work too."""
    from workers.queue import connection

    return connection(url)


def job_id(row: dict) -> str:
    seat = hashlib.sha256(row["seat"].encode()).hexdigest()[:12]
    return f"notify-{row['channel']}-{row['game_id']}-{row['seq']}-{seat}"


def enqueuer(connection: Any = None, queue: str | None = None, intervals: list[int] | None = None,
             webhook_queue: str | None = None):
    """The dispatcher's ``enqueue``: one rq job per delivery row, its id derived from the row;
    mails on ``queue``, webhooks on ``webhook_queue`` with their shorter time limit."""
    from rq import Queue, Retry

    from workers.dispatch import CONFIRM, WEBHOOK
    from workers.notify import retry_intervals

    connection = connection or redis_connection()
    mails = Queue(queue or queue_name(), connection=connection)
    hooks = Queue(webhook_queue or webhook_queue_name(), connection=connection)
    intervals = retry_intervals() if intervals is None else intervals

    def enqueue(row: dict) -> None:
        retry = Retry(max=len(intervals), interval=intervals) if intervals else None
        if row["channel"] == CONFIRM:
            mails.enqueue(send_confirmation, row["request_id"], job_id=confirmation_job_id(row["request_id"]),
                          retry=retry, job_timeout=JOB_TIMEOUT, result_ttl=86400, failure_ttl=7 * 86400,
                          description=f"confirmation mail {row['request_id']}")
            return
        webhook = row["channel"] == WEBHOOK
        (hooks if webhook else mails).enqueue(
            deliver, row["game_id"], int(row["seq"]), row["channel"], row["seat"], job_id=job_id(row), retry=retry,
            job_timeout=WEBHOOK_JOB_TIMEOUT if webhook else JOB_TIMEOUT, result_ttl=86400, failure_ttl=7 * 86400,
            description=f"notify {row['channel']} game {row['game_id']} seq {row['seq']}")

    return enqueue


def deliver(game_id: str, seq: int, channel: str, seat: str) -> str:
    """The job: send one notification unless it was sent already."""
    from domain.service import Warlog
    from workers.dispatch import deliver as run
    from workers.notify import SmtpSettings

    service = Warlog()
    try:
        return run(service, game_id, seq, channel, seat, smtp=SmtpSettings.from_env(), public_url=public_url(),
                   webhook_timeout=webhook_timeout())
    finally:
        service.close()


def confirmation_job_id(request_id: str) -> str:
    return f"notify-confirm-{request_id}"


def send_confirmation(request_id: str) -> str:
    """The job: the confirmation mail of one request (workers/dispatch.deliver_confirmation)."""
    from domain.access import AccessStore
    from domain.service import Warlog
    from workers.dispatch import deliver_confirmation
    from workers.notify import SmtpSettings

    service = Warlog()
    try:
        return deliver_confirmation(AccessStore.for_service(service), request_id, smtp=SmtpSettings.from_env(),
                                    public_url=public_url())
    finally:
        service.close()
