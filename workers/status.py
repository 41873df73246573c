"""What ``warlog status`` reports: is every process that follows the log doing its work?

The projector and the dispatcher each keep their place in the event log (the last notification
id they have read). A follower behind the log's head is normal for a moment; one whose first
unread event was recorded longer ago than ``stalled_after`` seconds is not: nothing is reading
the log for it, so either the process is not running (an older Procfile has no dispatcher line)
or it keeps failing (its log says why). Such a follower is looked at again a few seconds later:
one whose position moved is catching up a backlog, not stalled. Read from the store alone, so the
check needs no heartbeat: a process that runs and reads is the only thing that moves a position.

The rq side is read from Redis with rq's public API: each queue's waiting and failed jobs and the
workers listening on it. The jobs queue (replays, statistics; mails too unless WARLOG_NOTIFY_QUEUE
parts them) needs a worker even when empty, since its jobs come when a game ends; the webhooks'
queue only when a delivery waits in it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

STALLED_AFTER = 60.0  # seconds: a follower polls every second or so
PAUSE = 3.0  # seconds between two looks at a follower that seems stalled: longer than its poll


@dataclass
class Follower:
    name: str  # the process, as the Procfile names it
    command: str  # what starts it
    position: int  # the last notification id it has read
    behind: int  # notifications recorded after it
    waiting_since: str | None = None  # when the first of them was recorded (ISO 8601, UTC)
    waiting_seconds: float | None = None
    stalled: bool = False
    moving: bool = False  # behind that long, but its position moved while we looked: catching up


@dataclass
class Queue:
    name: str
    queued: int  # jobs waiting
    failed: int  # jobs in its failed registry
    workers: int  # rq workers listening on it
    needed: bool  # a worker must listen on it even when it is empty

    @property
    def served(self) -> bool:
        return self.workers > 0 or (not self.needed and self.queued == 0)


@dataclass
class Queues:
    url: str
    answered: bool
    error: str | None = None
    queues: list[Queue] = field(default_factory=list)
    workers: list[dict[str, Any]] = field(default_factory=list)  # {"name", "queues", "state"} on these queues


@dataclass
class Status:
    store: str  # where the store is
    head: int  # the log's last notification id
    followers: list[Follower]
    queues: Queues | None = None

    @property
    def ok(self) -> bool:
        return (not any(f.stalled for f in self.followers) and self.queues is not None and self.queues.answered
                and all(q.served for q in self.queues.queues))

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def followers(service: Any, now: datetime, stalled_after: float = STALLED_AFTER,
              pause: Callable[[], None] = lambda: time.sleep(PAUSE)) -> tuple[int, list[Follower]]:
    """The log's head and where the projector and the dispatcher are in it. A follower whose first
    unread event is older than ``stalled_after`` is looked at again after ``pause``: one whose
    position moved meanwhile is catching up (``moving``: a backlog after a restart), not stalled."""
    from projections.runner import TRACKED
    from projections.store import ProjectionStore
    from workers.dispatch import NotifyStore

    projector, dispatcher = ProjectionStore.for_service(service), NotifyStore.for_service(service)
    places = {"projector": ("warlog projector", lambda: projector.position(TRACKED)),
              "dispatcher": ("warlog dispatcher", dispatcher.position)}
    head = service.recorder.max_notification_id() or 0
    found = []
    for name, (command, position) in places.items():
        at = position()
        follower = Follower(name, command, at, max(0, head - at))
        if follower.behind:
            since = _recorded_at(service, at + 1)
            if since is not None:
                follower.waiting_since = since.isoformat()
                follower.waiting_seconds = max(0.0, (now - since).total_seconds())
                follower.stalled = follower.waiting_seconds > stalled_after
        found.append(follower)
    if any(f.stalled for f in found):
        pause()
        for f in found:
            if f.stalled and places[f.name][1]() > f.position:
                f.stalled, f.moving = False, True
    return head, found


def _recorded_at(service: Any, notification_id: int) -> datetime | None:
    """When the event of the first notification from ``notification_id`` was recorded."""
    notifications = service.recorder.select_notifications(notification_id, 1)
    if not notifications:
        return None
    try:
        stamp = service.mapper.to_domain_event(notifications[0]).timestamp
    except Exception:  # a stored row that does not decode (damage): its time is unknown, not a crash
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def queues(conn: Any, url: str, needed: list[str], optional: list[str]) -> Queues:
    """Jobs waiting and failed on each queue, and the rq workers listening on them. A ``needed``
    queue must have a worker; an ``optional`` one (webhooks) only when a job waits in it."""
    from redis.exceptions import RedisError
    from rq import Queue as RqQueue, Worker

    names = list(dict.fromkeys([*needed, *optional]))
    try:
        found = Queues(url, True)
        for worker in Worker.all(connection=conn):
            mine = [name for name in worker.queue_names() if name in names]
            if mine:
                state = worker.get_state()
                found.workers.append({"name": worker.name, "queues": mine, "state": str(getattr(state, "value", state))})
        for name in names:
            queue = RqQueue(name, connection=conn)
            found.queues.append(Queue(name, queue.count, queue.failed_job_registry.count,
                                      sum(name in w["queues"] for w in found.workers), name in needed))
        return found
    except (RedisError, OSError) as exc:
        return Queues(url, False, error=f"{type(exc).__name__}: {exc}")
