"""`warlog worker` as a process: rq forks a child for each job, so the worker runs no thread of
its own (the dispatcher and the clock sweep are `warlog dispatcher`), and the stack that stops it
leaves no job's child behind."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rq import Queue

from tests.workers.conftest import ROOT
from workers.stack import Stack

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")


def _env(rq_env, tmp_path: Path) -> dict:
    env = {**os.environ, "REDIS_URL": rq_env.url, "WARLOG_QUEUE": rq_env.queue,
           "WARLOG_DATA_DIR": str(tmp_path / "data")}
    env.pop("WARLOG_DATABASE_URL", None)
    return env


def _threads_of_the_forking_process(rq_env, env: dict, command: list[str]) -> list[str]:
    job = Queue(rq_env.queue, connection=rq_env.conn).enqueue("tests.workers.probe_jobs.threads_of_parent")
    rq_env.job_ids.append(job.id)
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert job.get_status(refresh=True) == "finished", done.stderr[-3000:]
    return job.return_value()


def test_the_worker_forks_its_jobs_from_a_process_with_no_thread_of_warlogs(rq_env, tmp_path):
    """A fork taken while another thread is inside SQLite can hand the child a mutex held for ever
    (an automatic replay once hung so). The worker ran the dispatcher and the clock sweep as
    threads: its forking process had two threads more than rq's own worker (which listens for
    commands on a thread of redis-py's that touches no database)."""
    from api.app import migrate
    from domain.storage import config_from_env

    env = _env(rq_env, tmp_path)
    migrate(config_from_env(env))  # a worker of old waited for the schema before it started
    rqs = _threads_of_the_forking_process(rq_env, env, ["rq.cli", "worker", "--burst", "--url", rq_env.url,
                                                        rq_env.queue])
    ours = _threads_of_the_forking_process(rq_env, env, ["api.cli", "worker", "--burst", "--queues", rq_env.queue])
    assert ours == rqs


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class WorkerOnly(Stack):
    def commands(self) -> dict[str, list[str]]:
        return {"worker": super().commands()["worker"]}


def test_stopping_the_stack_ends_a_job_that_outlasts_the_stop_timeout(rq_env, tmp_path):
    """rq puts each job's child in a process group of its own and, told to stop, waits for the
    job: killing the worker's group after the stop timeout left the child running, an orphan."""
    stack = WorkerOnly("127.0.0.1", 0, stop_timeout=2, env=_env(rq_env, tmp_path))
    pid_file = tmp_path / "job.pid"
    stack.prepare()
    try:
        stack.start()
        job = Queue(rq_env.queue, connection=rq_env.conn).enqueue(
            "tests.workers.probe_jobs.write_pid_and_sleep", str(pid_file), 300, job_timeout=600)
        rq_env.job_ids.append(job.id)
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()):
            assert stack.children["worker"].poll() is None, "the worker ended"
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.1)
        pid = int(pid_file.read_text())
        assert _alive(pid)
    finally:
        stack.stop()
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid), "the job's child outlived the stack"
