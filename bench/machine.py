"""The machine a run was made on: cores, memory, CPU, versions, date, load."""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from bench import stores


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def _postgres_version() -> str:
    try:
        import psycopg

        with psycopg.connect(stores.pg_dsn(), connect_timeout=3) as conn:
            return conn.execute("SHOW server_version").fetchone()[0]
    except Exception as exc:  # no server: say so instead of failing the report
        return f"not reachable ({type(exc).__name__})"


def _redis_version() -> str:
    try:
        import redis

        url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
        return str(redis.Redis.from_url(url, socket_connect_timeout=2).info("server")["redis_version"])
    except Exception as exc:  # none running: say so
        return f"not reachable ({type(exc).__name__})"


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parents[1])
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _node_version() -> str:
    try:
        out = subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "not installed"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def describe() -> dict[str, str]:
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": str(os.cpu_count()),
        "memory": _memory(),
        "CPU": _cpu_model(),
        "OS": f"{platform.system()} {platform.release()}",
        "Python": platform.python_version(),
        "SQLite": sqlite3.sqlite_version,
        "PostgreSQL": _postgres_version(),
        "Redis": _redis_version(),
        "eventsourcing": metadata.version("eventsourcing"),
        "gunicorn": metadata.version("gunicorn"),
        "granian": _version("granian"),
        "py-spy": _version("py-spy"),
        "Node.js (the peer)": _node_version(),
        "commit": _git_commit(),
        "load average at start": load(),
    }
