"""The benchmarks' code works: ``python -m bench --quick`` runs every benchmark at a small size
and writes its report. Nothing here asserts a speed (figures live in docs/benchmarks.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import require_postgres

ROOT = Path(__file__).resolve().parents[2]


def test_every_benchmark_runs_in_quick_mode_and_reports_each_figure(tmp_path):
    require_postgres()
    out = tmp_path / "benchmarks.md"
    done = subprocess.run([sys.executable, "-m", "bench", "--quick", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = out.read_text(encoding="utf-8")
    for title in ("## The machine", "## 1. Orders per second through HTTP", "## 2. Projection catch-up",
                  "## 3. The state at a random seq", "## 4. Replays and statistics", "## 5. Dice derived",
                  "## 6. Memory of a web worker"):
        assert title in report, title
    for row in ("| orders/s, freeform, SQLite |", "| orders/s, freeform, PostgreSQL |", "| catch-up, SQLite |",
                "| catch-up, PostgreSQL |", "| dice derived/s", "| dice verified/s", "| statistics across 200 games |",
                "| replay artifact, freeform game", "| state at a random seq", "| worker RSS",
                "| HTTP floor (an order endpoint that does nothing, gevent) vs the SQLite baseline |",
                "| HTTP floor (an order endpoint that does nothing, gevent) vs the PostgreSQL baseline |"):
        assert row in report, row
    # Every figure has a measured value and a ratio to its baseline.
    summary = report.split("## Summary", 1)[1].split("\n## ", 1)[0]
    figures = [line for line in summary.splitlines() if line.startswith("| ") and not line.startswith("| figure")]
    assert len(figures) >= 10
    for line in figures:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert re.match(r"^[\d,.]+ ", cells[1]) and re.match(r"^[\d,.]+$", cells[3]), line
    # Every order got its 201: a bench that measured refusals would measure nothing.
    # Each store's server runs the worker class api/gunicorn_conf.py gives it, the floor's too.
    for store, worker in (("SQLite", "gevent"), ("PostgreSQL", "gevent")):
        assert re.search(rf"\| freeform \| {store}, {worker} \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \| \{{201: \d+\}} \|",
                         report), report
        assert re.search(rf"\| floor: nothing behind the endpoint, {worker} workers \(bench/floor.py\) \| {store}, "
                         rf"{worker} \| [\d,.]+ \| [\d,.]+ \| [\d,.]+ \| \{{201: \d+\}} \|", report), report
        # What bounds the row: the machine's busy share, and the server's own ceiling, which is the
        # cores over the workers' CPU an order, over the baseline (bench/orders.py server_ceiling).
        row = re.search(rf"^\| freeform \| {store}, {worker} \|(?: [^|]+ \|){{4}} ([\d.]+) \| [^|]+ \| (\d+)% \| "
                        rf"([\d,.]+) \|$", report, re.MULTILINE)
        assert row, report
        base = re.search(rf"^\| orders/s, freeform, {store} \| [^|]+ \| ([\d,.]+) saves/s", report, re.MULTILINE)
        cpu_ms, busy, ceiling = float(row[1]), int(row[2]), float(row[3].replace(",", ""))
        assert 0 < busy <= 100
        expected = len(os.sched_getaffinity(0)) / (cpu_ms / 1000) / float(base[1].replace(",", ""))
        assert abs(ceiling - expected) <= 0.01 * expected, (row[0], base[0])  # both shown to 3 digits


def test_one_benchmark_runs_alone(tmp_path):
    done = subprocess.run([sys.executable, "-m", "bench", "dice", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "dice derived/s" in done.stdout and "wrote" not in done.stdout


def test_the_long_game_benchmark_runs_and_prints_a_line_per_mark():
    done = subprocess.run([sys.executable, "-m", "bench.longgame", "--events", "1000"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    marks = re.findall(r"^sqlite seq +(\d+): batch median +[\d.]+ ms, +([\d.]+) x .*history [\d.]+ KiB", done.stdout,
                       re.MULTILINE)
    assert [int(seq) >= mark for (seq, _), mark in zip(marks, (500, 1000))] == [True, True], done.stdout
    assert marks[0][1] == "1.00"


def test_the_benchmarks_import_nothing_from_the_tests():
    """``python -m bench`` runs from an installed tree without the test suite's machinery (the
    seed watch, pytest fixtures): every bench module loads with no ``tests`` module."""
    modules = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__init__")
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module('bench.' + name)\n"
            "print(sorted(m for m in sys.modules if m == 'tests' or m.startswith('tests.')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", done.stdout


def test_the_instruction_count_replays_the_recorded_orders_to_the_same_games(tmp_path):
    """bench.instructions counts the same work for two codes only if a replay of its script
    takes every game where the recording did: seeds, salts and game ids are seeded. (The
    count itself needs valgrind; this runs its record and replay steps without it.)"""
    from bench.instructions import _run

    script = tmp_path / "script.json"
    recorded, _ = _run(ROOT, ["record", "sqlite", "falklands", "30", str(script)], False)
    replayed, _ = _run(ROOT, ["replay", "sqlite", "falklands", "100000", str(script)], False)
    assert recorded.startswith("versions [") and replayed == recorded
    versions = [int(v) for v in re.findall(r"\d+", recorded)]
    assert sum(versions) > 10 * 4 + 30  # the games took orders, several events each
    started, _ = _run(ROOT, ["replay", "sqlite", "falklands", "0", str(script)], False)
    assert started != recorded  # a replay of nothing: the games as created and joined
