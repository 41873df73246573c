"""A real warlog server for end-to-end tests: gunicorn with api/gunicorn_conf.py on a free port.

    from tests.e2e.server import live_server, http_json

    def test_something(tmp_path):
        with live_server(tmp_path, WEB_CONCURRENCY="1") as url:
            status, headers, body = http_json("GET", f"{url}/healthz")

``live_server(tmp_path, **env)`` migrates a fresh SQLite store under ``tmp_path/data`` (``python -m
api.cli migrate``), starts ``python -m gunicorn -c api/gunicorn_conf.py 'api.app:create_app()'``
on 127.0.0.1 and a free port, waits until ``/healthz`` answers and yields the base URL (a ``str``
that also carries ``.log_path``, the server's combined stdout and stderr, and ``.log()``). Keyword
arguments are environment variables for both commands (a value of ``None`` removes one); pass
``WARLOG_DATABASE_URL`` to run on PostgreSQL instead. However the block ends, the server's whole
process group (arbiter and workers) gets SIGTERM, then SIGKILL if it has not gone within
``stop_timeout`` seconds.

Every server is registered with the seed recorder (tests/reliability/seeds.py) and every body
``http_json`` receives is recorded, so the session can check that no response held a seed that
was still unrevealed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from tests.reliability.seeds import WATCH

ROOT = Path(__file__).resolve().parents[2]
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


@contextlib.contextmanager
def store_env(store: str) -> Iterator[dict]:
    """Environment variables for ``live_server`` on a store: none for SQLite (the default, in its
    folder), or a fresh PostgreSQL schema's WARLOG_DATABASE_URL, dropped afterwards."""
    if store == "sqlite":
        yield {}
        return
    from tests.conftest import fresh_schema

    with fresh_schema() as url:
        yield {"WARLOG_DATABASE_URL": url}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _environment(tmp_path: Path, port: int, env: dict[str, Any]) -> dict[str, str]:
    environ = dict(os.environ)
    environ.pop("WARLOG_DATABASE_URL", None)  # SQLite unless the caller asks otherwise
    environ.update(WARLOG_DATA_DIR=str(tmp_path / "data"), WARLOG_HOST="127.0.0.1", PORT=str(port),
                   PYTHONUNBUFFERED="1")
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = str(value)
    return environ


def _stop(proc: subprocess.Popen, stop_timeout: float) -> None:
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


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=2) as r:
            return r.status == 200
    except (OSError, urllib.error.URLError):
        return False


@contextlib.contextmanager
def live_server(tmp_path: Path, *, startup_timeout: float = 30.0, stop_timeout: float = 10.0,
                **env: Any) -> Iterator[LiveServer]:
    tmp_path = Path(tmp_path)
    tmp_path.mkdir(parents=True, exist_ok=True)
    migrate_env = _environment(tmp_path, 0, env)
    done = subprocess.run([sys.executable, "-m", "api.cli", "migrate"], cwd=ROOT, env=migrate_env,
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"warlog migrate failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    for attempt in range(3):  # another process may take the free port before gunicorn binds it
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log_path = tmp_path / f"server-{port}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", CONF, APP], cwd=ROOT,
                                    env=_environment(tmp_path, port, env), stdin=subprocess.DEVNULL,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + startup_timeout
            while proc.poll() is None and time.monotonic() < deadline and not _healthy(url):
                time.sleep(0.1)
            if proc.poll() is None and _healthy(url):
                break
            text = log_path.read_text(encoding="utf-8", errors="replace")
            if proc.poll() is not None and "Address already in use" in text and attempt < 2:
                _stop(proc, stop_timeout)
                continue
            raise RuntimeError(f"gunicorn did not answer /healthz within {startup_timeout} s "
                               f"(exit code {proc.poll()}); its log:\n{text[-4000:]}")
        except BaseException:
            _stop(proc, stop_timeout)
            raise
    WATCH.register(url, _environment(tmp_path, port, env))
    try:
        yield LiveServer(url, log_path, proc.pid)
    finally:
        _stop(proc, stop_timeout)
        WATCH.harvest(url)  # the store's seeds, for the end-of-session check (tests/reliability/seeds.py)


def http_json(method: str, url: str, body: Any = None, headers: dict | None = None,
              timeout: float = 10.0) -> tuple[int, dict, Any]:
    """One request: (status, headers, the JSON body or the raw text when it is not JSON).
    Error statuses are returned, not raised."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"Accept": "application/json", **(headers or {})}
    if data is not None:
        all_headers.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, dict(e.headers), e.read()
    WATCH.record(url, raw)
    text = raw.decode("utf-8", errors="replace")
    try:
        return status, hdrs, json.loads(text) if text else None
    except ValueError:
        return status, hdrs, text
