"""A gunicorn web server for the benchmarks, as tests/e2e/server.py starts one (the project's
api/gunicorn_conf.py), from this tree or from another one: ``--before REV`` runs the orders
benchmark against an older commit's code, extracted with ``git archive``, in the same run."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from tests.e2e.server import APP, CONF, LiveServer, _environment, _healthy, _stop, free_port

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def serve(folder: Path, root: Path = ROOT, startup_timeout: float = 60.0, app: str = APP,
          **env: Any) -> Iterator[LiveServer]:
    """Migrate, start gunicorn (with ``app``, warlog's by default) from ``root`` on a free port,
    yield its URL; stop it whatever happens."""
    folder.mkdir(parents=True, exist_ok=True)
    if root != ROOT:
        env = {**env, "PYTHONPATH": str(root)}
    if app == APP:
        done = subprocess.run([sys.executable, "-m", "api.cli", "migrate"], cwd=root,
                              env=_environment(folder, 0, env), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"warlog migrate failed: {done.stdout}{done.stderr}")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log_path = folder / f"server-{port}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", CONF, app], cwd=root,
                                env=_environment(folder, port, env), stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + startup_timeout
        while proc.poll() is None and not _healthy(url):
            if time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start: {log_path.read_text()[-2000:]}")
            time.sleep(0.1)
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {log_path.read_text()[-2000:]}")
        yield LiveServer(url, log_path, proc.pid)
    finally:
        _stop(proc, 10.0)


@contextlib.contextmanager
def tree(rev: str) -> Iterator[Path]:
    """The files of commit ``rev`` in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="warlog-bench-tree-") as tmp:
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, timeout=120)
        if archive.returncode != 0:
            raise SystemExit(f"git archive {rev}: {archive.stderr.decode(errors='replace')}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True, timeout=120)
        yield Path(tmp)
