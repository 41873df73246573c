"""A job that takes its time, for the time-limit test (imported by the rq worker by name)."""

from __future__ import annotations

import time

from workers.jobs import job


@job
def sleepy(seconds: float, *, progress) -> str:
    progress.set(10)
    time.sleep(seconds)
    return "slept"
