"""Jobs that report on the process running them, for tests/workers/test_worker_process.py
(imported by the rq worker by name)."""

from __future__ import annotations

import os
import time
from pathlib import Path


def threads_of_parent() -> list[str]:
    """The names of the threads of the process that forked this job (from /proc)."""
    tasks = Path(f"/proc/{os.getppid()}/task")
    return sorted((task / "comm").read_text().strip() for task in tasks.iterdir())


def write_pid_and_sleep(path: str, seconds: float) -> None:
    Path(path).write_text(str(os.getpid()))
    time.sleep(seconds)
