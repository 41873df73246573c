"""The clock sweep: notices a reminder due or a deadline passed with nobody acting (domain/clock.py).

Every ``WARLOG_CLOCK_SWEEP_SECONDS`` (default 60; 0: off) it asks the games index for the active
games whose clock has something due by the server's clock (``next_due``, ``clock.next_due``: one
indexed query, no view read), catches those up if they are behind the log, checks each one's map
view (``due``) and records what is due through the service (``Warlog.sweep_game``): a
``DeadlineReminder``, a ``TimedOut`` and, where the game passes, the pass. The dispatcher then
tells the seats as it tells them of any command (workers/notify.recipients). The game decides again on its own log, so a view
behind the log or two sweeps at once (one per worker) record nothing twice: the second save loses
the race and is dropped.

It runs as a thread of ``warlog worker``, beside the dispatcher.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime
from typing import Any

from domain import clock as clocks
from domain.errors import Conflict, GameNotFound, IntegrityFailure
from domain.storage import OutageLog, seconds_from_env
from projections.runner import Projections

log = logging.getLogger("warlog.clock")

DEFAULT_SECONDS = 60.0


def sweep_seconds(environ: dict | None = None) -> float:
    """``WARLOG_CLOCK_SWEEP_SECONDS``: seconds between sweeps; 0 turns the sweep off."""
    value = seconds_from_env("WARLOG_CLOCK_SWEEP_SECONDS", DEFAULT_SECONDS, environ)
    if value < 0:
        raise ValueError("WARLOG_CLOCK_SWEEP_SECONDS must be 0 (off) or more")
    return value


def due(view: dict | None, now: datetime) -> bool:
    """Whether a game's map view says its clock has a reminder or a timeout due at ``now``."""
    found = (view or {}).get("clock")
    return bool(found) and (clocks.timed_out(found, now) or clocks.reminder_due(found, now) is not None)


class ClockSweep:
    def __init__(self, service: Any, projections: Projections | None = None):
        self.service = service
        self.projections = projections or Projections(service)
        self.stopping = threading.Event()

    def sweep(self) -> list[str]:
        """One sweep; the ids of the games where something was recorded."""
        store = self.projections.store
        now = self.service.now()
        # Only the games the index says have something due; a game whose index row the projector
        # has not brought up to its log yet is swept once it has (docs/operations.md).
        ids = store.due_games(clocks.stamp(now))
        left_out = self.projections.ensure_current(ids)  # views behind the log: caught up first
        views = store.load([gid for gid in ids if gid not in left_out], ("map",))
        recorded = []
        for gid, found in views.items():
            if not due(found.get("map"), now):
                continue
            try:
                if self.service.sweep_game(gid) is not None:
                    recorded.append(gid)
            except Conflict:
                log.info("game %s: another command was recorded first; the next sweep looks again", gid)
            except (IntegrityFailure, GameNotFound) as exc:  # a damaged log, a seed that does not match
                log.error("game %s: not swept (%s)", gid, exc)
        return recorded

    def stop(self, *args: Any) -> None:
        self.stopping.set()

    def run(self, seconds: float = DEFAULT_SECONDS) -> None:
        log.info("clock sweep started: every %s s", seconds)
        outage = OutageLog(log, "clock sweep")
        while not self.stopping.is_set():
            try:
                for gid in self.sweep():
                    log.info("game %s: the clock recorded a reminder or a timeout", gid)
                outage.got_through()
            except Exception as exc:  # a store briefly away must not end the worker
                outage.failed(exc, seconds)
            self.stopping.wait(seconds)
