"""3. Where an order's CPU goes, and what an acknowledged order survives.

warlog's web workers are recorded with py-spy (every running thread, 200 samples a second)
while they serve freeform ``roll 2d6`` orders, at 100 a second (bench/openloop.py's client) and
at saturation (bench/orders.py's closed loop, 200 games, 32 connections). bench/profile_split.py
splits the samples by module: the web stack (gunicorn or granian, Flask, Werkzeug, the access
log, the event loop between requests), warlog's HTTP layer (api/: views, schemas, auth, the
response's JSON), warlog's domain (rules, dice, the chain hash, the aggregate), persistence
(eventsourcing, the database driver, warlog's recorders and writer lock, time in SQLite's C
code and waits in it: a commit's fsync, a lock) and other. py-spy samples a thread on CPU or
blocked in a C call alike, and leaves out waits in an event loop (on PostgreSQL under gevent,
the wait for the database is one: only the driver's CPU is seen), so a share is of the time an
order keeps a worker busy, not of CPU alone; CPU per order is the workers' CPU time over the
window ÷ orders. granian's own HTTP work runs in Rust threads py-spy does not see: its web stack
share counts only the Python part (Flask, Werkzeug, its access log callback), and CPU per order
compares the two servers whole.

An order with no web server at all (bench/inprocess.py): CPU per order of ``Warlog.submit_order``
alone, and through warlog's Flask app with Flask's test client (no socket, no gunicorn), in a
fresh process on a fresh store, beside the gunicorn workers' CPU per order at saturation. On
SQLite what the gunicorn figure adds to the Flask one is the server's share (its HTTP parsing and
writing, gevent, the access log, the sockets' system calls). On PostgreSQL the loop's orders come
one at a time, while gunicorn's concurrent saves share a commit and a lock of the events table
(``GroupCommit``), so there the served figure may be the lower.

Rates, latencies and CPU per order come from a run without py-spy, the split from a second run
with it (``--quick``: both from the run with it). The same runs are made with granian
(``granian --interface wsgi --workers 2 --factory api.app:create_app``, its access log on) in
place of gunicorn, same app, same client.

Durability: the settings an acknowledged order is committed under, read from the app as its
workers create it: SQLite's ``journal_mode`` and ``synchronous`` pragmas on eventsourcing's
connection; PostgreSQL's ``synchronous_commit``, ``fsync`` and ``wal_sync_method``. warlog
answers 201 only after the commit returns: with WAL and ``synchronous = FULL`` SQLite syncs the
log to disk at every commit, and with ``synchronous_commit = on`` and ``fsync = on`` PostgreSQL
flushes its WAL before the commit returns, so an acknowledged order survives a power cut on both.
The peer's FlatFile (node-persist) writes a file per match with no fsync; bgio-postgres commits
under the same PostgreSQL settings as warlog.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import inprocess, profile_split
from bench.openloop import warlog_open
from bench.orders import http_orders
from bench.peers import ROLLS
from bench.report import Figure, Result, fmt
from bench.server import ROOT, environment
from bench.stores import LABEL, fresh, postgres_missing

RATE = 100
SPY = "--rate 200"
PARTS = profile_split.PARTS

DURABILITY = """
import json
from api.app import create_app
service = create_app().extensions["warlog"]
names = {names!r}
got = {{}}
with service.recorder.datastore.transaction(commit=False) as cursor:
    for name in names:
        cursor.execute(("PRAGMA " if {sqlite!r} else "SHOW ") + name)
        row = cursor.fetchone()
        got[name] = str(list(row.values())[0] if isinstance(row, dict) else row[0])
service.close()
print(json.dumps(got))
"""
SQLITE_SYNC = {"0": "OFF", "1": "NORMAL", "2": "FULL", "3": "EXTRA"}


def durability(kind: str) -> dict[str, str]:
    """The settings an order is committed under, queried through the app's own store."""
    names = ["journal_mode", "synchronous"] if kind == "sqlite" else ["synchronous_commit", "fsync", "wal_sync_method"]
    with fresh(kind) as store:
        env = environment(store.folder, 0, store.env)
        subprocess.run([sys.executable, "-m", "api.cli", "migrate"], cwd=ROOT, env=env, check=True,
                       capture_output=True, timeout=120)
        done = subprocess.run([sys.executable, "-c", DURABILITY.format(names=names, sqlite=kind == "sqlite")],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1][:200] if done.stderr.strip() else "no output"}
    got = json.loads(done.stdout.strip().splitlines()[-1])
    if "synchronous" in got:
        got["synchronous"] = SQLITE_SYNC.get(got["synchronous"], got["synchronous"])
    return got


def servers() -> list[str]:
    return ["gunicorn"] + (["granian"] if importlib.util.find_spec("granian") else [])


def _once(kind: str, server: str, load: str, profile: Path | None, **shape) -> dict:
    if load == "saturation":
        with fresh(kind) as store:
            got = http_orders(store, ROLLS, profile=profile, server=server, spy_options=SPY, **shape)
        return {"rate": got["orders_per_s"], "p50_ms": got["p50_ms"], "p99_ms": got["p99_ms"],
                "cpu_ms": got["server_cpu_ms_per_order"]}
    got = warlog_open(kind, ROLLS, rate=RATE, server=server, profile=profile, **shape)
    return {"rate": got["moves"] / shape["duration"], "p50_ms": got["p50_ms"], "p99_ms": got["p99_ms"],
            "cpu_ms": got["server_cpu_ms_per_move"]}


def measure(kind: str, server: str, load: str, folder: Path, quick: bool, **shape) -> dict:
    """Rate, latencies and CPU per order from a run without the profiler (py-spy takes CPU of
    its own from the same two cores), then the split from a second run with it (quick: one run)."""
    profile = folder / f"{kind}-{server}-{load}"
    spied = _once(kind, server, load, profile, **shape)
    got = spied if quick else _once(kind, server, load, None, **shape)
    counts = profile_split.split([profile])
    samples = sum(counts[name] for name in PARTS)
    return {**got, "samples": samples, "share": profile_split.shares(counts),
            "busy_ms": samples / 200 / (spied["rate"] * shape["duration"]) * 1000 if spied["rate"] else None}


BARE = ["store", "CPU ms/order: Warlog.submit_order alone", "through the Flask app (test client)",
        "gunicorn at saturation (above)"]


def _bare(kind: str, quick: bool, served: float | None) -> list[str]:
    """The row of an order with no web server (bench/inprocess.py), beside ``served``: the gunicorn
    workers' CPU per order at saturation, None when it was not measured."""
    alone = inprocess.measure(kind, 300 if quick else 3000)
    row = [LABEL[kind], fmt(alone["service_ms"]), fmt(alone["flask_ms"]), fmt(served)]
    print(f"  {LABEL[kind]}, no web server: {' | '.join(row[1:])}", flush=True)
    return row


def run(kinds: list[str], quick: bool, keep: Path | None = None) -> Result:
    result = Result("cpu", "3. Where an order's CPU goes")
    games, connections = (20, 8) if quick else (200, 32)
    warmup, duration = (1.0, 3.0) if quick else (5.0, 20.0)
    spy = Path(sys.executable).with_name("py-spy")
    if not spy.exists() and shutil.which("py-spy") is None:
        result.note("py-spy is not installed (pip install py-spy): no profile, only an order with no web server")
        result.tables.append((BARE, [_bare(kind, quick, None) for kind in kinds
                                     if not (kind == "postgres" and postgres_missing())]))
        return result
    rows, durable, bare = [], [], []
    folder = keep or Path(tempfile.mkdtemp(prefix="warlog-bench-cpu-"))
    try:
        for kind in kinds:
            if kind == "postgres" and (why := postgres_missing()):
                result.note(f"PostgreSQL skipped: {why}")
                continue
            durable.append([LABEL[kind], ", ".join(f"{k} = {v}" for k, v in durability(kind).items())])
            web: dict[tuple[str, str], dict] = {}
            for load in ("100/s", "saturation"):
                for server in servers():
                    got = measure(kind, server, load.replace("/", "per"), folder, quick, games=games,
                                  connections=connections, warmup=warmup, duration=duration)
                    web[server, load] = got
                    rows.append([LABEL[kind], server, load, fmt(got["rate"]), fmt(got["p50_ms"]), fmt(got["p99_ms"]),
                                 fmt(got["cpu_ms"]), *(f"{got['share'][p]:.0%}" for p in PARTS),
                                 f"{got['share'][profile_split.COMMIT]:.0%}", got["samples"]])
                    print(f"  {LABEL[kind]}, {server}, {load}: {' | '.join(str(c) for c in rows[-1][3:])}", flush=True)
                    if server == "gunicorn" and got["busy_ms"]:
                        parts = ", ".join(f"{p} {fmt(got['share'][p] * got['busy_ms'])} ms" for p in PARTS[:4])
                        result.notes.append(
                            f"{LABEL[kind]}, gunicorn, {load}: an order keeps a worker busy about {fmt(got['busy_ms'])} "
                            f"ms (py-spy's samples ÷ orders): {parts}; the commit alone "
                            f"{fmt(got['share'][profile_split.COMMIT] * got['busy_ms'])} ms")
            bare.append(_bare(kind, quick, web[("gunicorn", "saturation")]["cpu_ms"]))
            for load in ("100/s", "saturation"):
                ours, theirs = web.get(("gunicorn", load)), web.get(("granian", load))
                if ours is None or theirs is None:
                    continue
                same = "gunicorn (gevent), same app"
                for key, what, unit in (("rate", "orders/s", "orders/s"), ("p99_ms", "p99", "ms"),
                                        ("cpu_ms", "worker CPU per order", "ms")):
                    if ours[key] and theirs[key]:
                        result.figures.append(Figure(f"{what}, {LABEL[kind]}, {load}: granian ÷ gunicorn", theirs[key],
                                                     unit, ours[key], unit, same, theirs[key] / ours[key]))
                mine, other = ours["share"]["web stack"], theirs["share"]["web stack"]
                if mine:
                    result.figures.append(Figure(f"web stack's share of the samples, {LABEL[kind]}, {load}: granian ÷ "
                                                 "gunicorn", other * 100, "%", mine * 100, "%", same, other / mine))
    finally:
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    result.tables.append((["store", "server", "load", "orders/s", "p50 ms", "p99 ms", "CPU ms/order",
                           *PARTS, "of which the commit", "samples"], rows))
    result.tables.append((BARE, bare))
    result.tables.append((["store", "settings an acknowledged order is committed under"], durable))
    result.notes.append(f"{games} games, {connections} connections, warm-up {warmup:g} s, window {duration:g} s; "
                        f"py-spy {SPY} on each web worker")
    return result
