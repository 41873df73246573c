"""The peer: boardgame.io 0.50.2 (its official server, its own client library) installed with npm
into bench/peers/bgio/, with FlatFile storage (beside warlog's SQLite) or bgio-postgres (beside
warlog's PostgreSQL, in a database made for the run and dropped after it).

``missing()`` says why the peer cannot run (no node or npm, an install that failed), installing
it on first use (``npm ci`` from the committed package-lock.json; koa-compose is pinned to 4.1.0
there because boardgame.io 0.50.2 with 4.2.0 answers 404 to every Lobby route).
``drive(kind, mode, ...)`` starts the server, runs bench/peers/bgio/driver.js against it and
returns the moves, latencies and the server process's CPU over the measured window.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import statistics
import subprocess
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Iterator

from bench.orders import _cpu_seconds
from bench.server import answers, free_port
from bench.stores import PG_URL, pg_dsn

FOLDER = Path(__file__).with_name("peers") / "bgio"
VERSION = "0.50.2"
NAME = f"boardgame.io {VERSION}"
STORAGE = {"sqlite": "FlatFile", "postgres": "bgio-postgres"}


def _installed() -> bool:
    try:
        found = json.loads((FOLDER / "node_modules" / "boardgame.io" / "package.json").read_text())
        return found["version"] == VERSION and (FOLDER / "node_modules" / "bgio-postgres").is_dir()
    except (OSError, ValueError, KeyError):
        return False


def missing() -> str | None:
    """None when the peer can run, else why not (installing it first if node and npm exist)."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if _installed():
        return None
    command = ["npm", "ci" if (FOLDER / "package-lock.json").exists() else "install", "--no-audit", "--no-fund"]
    print(f"  installing the peer: {' '.join(command)} in {FOLDER}", flush=True)
    try:
        done = subprocess.run(command, cwd=FOLDER, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "npm did not finish installing boardgame.io within 10 minutes"
    if done.returncode != 0 or not _installed():
        last = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"npm could not install boardgame.io (exit {done.returncode}: {last[0][:200]})"
    return None


@contextlib.contextmanager
def _storage(kind: str, folder: Path) -> Iterator[tuple[str, str]]:
    """(storage argument, where) for server.js: a FlatFile folder, or a fresh PostgreSQL database."""
    if kind == "sqlite":
        yield "flatfile", str(folder / "flatfile")
        return
    import psycopg

    name = "bench_bgio_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_dsn(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield "postgres", urllib.parse.urlsplit(PG_URL)._replace(path=f"/{name}", query="").geturl()
    finally:
        with psycopg.connect(pg_dsn(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@contextlib.contextmanager
def serve(kind: str, folder: Path, startup_timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """(URL, pid) of boardgame.io's server on ``kind``'s peer storage, stopped afterwards."""
    folder.mkdir(parents=True, exist_ok=True)
    with _storage(kind, folder) as (storage, where):
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log_path = folder / f"bgio-{port}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(["node", "server.js", str(port), storage, where], cwd=FOLDER,
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + startup_timeout
            while proc.poll() is None and time.monotonic() < deadline and not answers(f"{url}/games"):
                time.sleep(0.1)
            if proc.poll() is not None or not answers(f"{url}/games"):
                raise RuntimeError(f"boardgame.io's server did not answer within {startup_timeout:g} s "
                                   f"(exit code {proc.poll()}):\n{log_path.read_text(errors='replace')[-3000:]}")
            yield url, proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def drive(kind: str, folder: Path, mode: str, *, matches: int, n: float, warmup: float, duration: float) -> dict:
    """Run driver.js (``closed`` with ``n`` client loops, or ``open`` at ``n`` moves/s) against a
    fresh server; the figures of the window."""
    with serve(kind, folder) as (url, pid):
        proc = subprocess.Popen(["node", "driver.js", mode, url, str(matches), str(n), str(warmup), str(duration)],
                                cwd=FOLDER, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cpu: dict[str, float] = {}
        last = ""
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.strip()
            if line in ("window start", "window end"):
                cpu[line] = _cpu_seconds([pid])
            last = line or last
        stderr = proc.stderr.read() if proc.stderr is not None else ""
        if proc.wait(timeout=60) != 0 or len(cpu) != 2:
            raise RuntimeError(f"driver.js failed (exit {proc.returncode}): {stderr[-2000:]}")
    got = json.loads(last)
    lat = sorted(got["latencies_ms"])
    moves = got["moves"]
    return {
        "moves_per_s": moves / duration, "moves": moves,
        "p50_ms": statistics.median(lat) if lat else None,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None,
        "server_cpu_ms_per_move": (cpu["window end"] - cpu["window start"]) / moves * 1000 if moves else None,
        "unanswered": got["unanswered"], "skipped": got["skipped"],
    }
