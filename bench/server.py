"""A real warlog web server: gunicorn with the project's api/gunicorn_conf.py on a free port, for
the benchmarks and the end-to-end tests alike (tests/e2e/server.py adds the tests' seed watch).

    with serve(folder, WEB_CONCURRENCY="2") as url:   # url: a LiveServer, i.e. the base URL
        ...

``serve`` migrates a fresh store (``python -m api.cli migrate``: SQLite under ``folder/data``
unless ``WARLOG_DATABASE_URL`` is passed), starts ``python -m gunicorn -c api/gunicorn_conf.py
APP`` on 127.0.0.1 and a free port, waits until ``/healthz`` answers, and yields its URL. Keyword
arguments are environment variables for both commands (``None`` removes one). However the block
ends, the server's process group gets SIGTERM, then SIGKILL if it has not gone within
``stop_timeout`` seconds. ``root`` runs another tree's code (``tree(rev)``: ``--before REV``
measures an older commit in the same run); ``app`` another WSGI app.
``server="granian"`` serves the same app with granian (a Rust HTTP server running WSGI apps) in
place of gunicorn: as many worker processes, its access log on, for bench/cpu.py's comparison.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
APP = "api.app:create_app()"
CONF = "api/gunicorn_conf.py"


class LiveServer(str):
    """The base URL, e.g. ``http://127.0.0.1:54321``, with the server's log beside it."""

    log_path: Path
    pid: int

    def __new__(cls, url: str, log_path: Path, pid: int) -> "LiveServer":
        obj = super().__new__(cls, url)
        obj.log_path = log_path
        obj.pid = pid
        return obj

    @property
    def host(self) -> str:
        return self.split("//", 1)[1].rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.rsplit(":", 1)[1])

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def worker_class(self) -> str:
        """The gunicorn worker class serving (``gthread``, ``gevent``), as its log says."""
        found = re.search(r"Using worker: (\S+)", self.log())
        return found.group(1) if found else "unknown"

    def wait_for_log(self, text: str, timeout: float = 5.0) -> str:
        """The log once it holds ``text``. gunicorn writes an access line after the response has
        gone out, so a client can read a response before its line is in the log."""
        deadline = time.monotonic() + timeout
        while text not in (log := self.log()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not in the server log within {timeout} s:\n{log[-4000:]}")
            time.sleep(0.05)
        return log


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def environment(folder: Path, port: int, env: dict[str, Any]) -> dict[str, str]:
    """This process's environment for a server in ``folder`` on ``port``: SQLite under
    ``folder/data`` unless ``env`` names a database; ``env``'s ``None`` values removed."""
    environ = dict(os.environ)
    environ.pop("WARLOG_DATABASE_URL", None)  # SQLite unless the caller asks otherwise
    environ.update(WARLOG_DATA_DIR=str(folder / "data"), WARLOG_HOST="127.0.0.1", PORT=str(port),
                   PYTHONUNBUFFERED="1")
    environ.setdefault("WARLOG_GAMES_PER_ADDRESS", "0")  # benchmarks and tests create games by the hundred
    # Benchmarks and load tests are floods from one address by design: no rate limit (api/limits.py),
    # unless ``env`` turns them on (a test of the limits on a live server).
    environ["WARLOG_RATE_LIMITS"] = "off"
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = str(value)
    return environ


def stop(proc: subprocess.Popen, stop_timeout: float) -> None:
    """SIGTERM to the process group (a graceful gunicorn stop), SIGKILL if it lingers."""
    for sig, wait in ((signal.SIGTERM, stop_timeout), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # The arbiter is gone; make sure no worker outlived it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        break
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=1)


def answers(url: str) -> bool:
    """Whether a GET of ``url`` answers 200 within two seconds."""
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


def healthy(url: str) -> bool:
    return answers(f"{url}/healthz")


@contextlib.contextmanager
def serve(folder: Path, *, root: Path = ROOT, app: str = APP, startup_timeout: float = 30.0,
          stop_timeout: float = 10.0, server: str = "gunicorn", **env: Any) -> Iterator[LiveServer]:
    """Migrate (warlog's app only), start gunicorn from ``root``, yield its URL once it answers;
    stop it whatever happens."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if root != ROOT:
        env = {**env, "PYTHONPATH": str(root)}
    if app == APP:
        done = subprocess.run([sys.executable, "-m", "api.cli", "migrate"], cwd=root,
                              env=environment(folder, 0, env), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"warlog migrate failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    for attempt in range(3):  # another process may take the free port before gunicorn binds it
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log_path = folder / f"server-{port}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(_command(server, app, port, env), cwd=root,
                                    env=environment(folder, port, env), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + startup_timeout
            while proc.poll() is None and time.monotonic() < deadline and not healthy(url):
                time.sleep(0.1)
            if proc.poll() is None and healthy(url):
                break
            text = log_path.read_text(encoding="utf-8", errors="replace")
            if proc.poll() is not None and "Address already in use" in text and attempt < 2:
                stop(proc, stop_timeout)
                continue
            raise RuntimeError(f"gunicorn did not answer /healthz within {startup_timeout} s "
                               f"(exit code {proc.poll()}); its log:\n{text[-4000:]}")
        except BaseException:
            stop(proc, stop_timeout)
            raise
    try:
        yield LiveServer(url, log_path, proc.pid)
    finally:
        stop(proc, stop_timeout)


def _command(server: str, app: str, port: int, env: dict[str, Any]) -> list[str]:
    if server == "gunicorn":
        return [sys.executable, "-m", "gunicorn", "-c", CONF, app]
    if server == "granian":
        factory = app.endswith("()")
        return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", str(port),
                "--workers", str(env.get("WEB_CONCURRENCY", 2)), "--access-log", "--no-ws",
                *(["--factory"] if factory else []), app.removesuffix("()")]
    raise ValueError(f"unknown server {server!r}: gunicorn or granian")


@contextlib.contextmanager
def tree(rev: str) -> Iterator[Path]:
    """The files of commit ``rev`` in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="warlog-bench-tree-") as tmp:
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, timeout=120)
        if archive.returncode != 0:
            raise SystemExit(f"git archive {rev}: {archive.stderr.decode(errors='replace')}")
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True, timeout=120)
        yield Path(tmp)
