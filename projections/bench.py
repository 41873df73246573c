"""Time travel on a long game: ``python -m projections.bench [EVENTS]``.

Builds a freeform game of about EVENTS events (default 10,000) in a temporary SQLite store,
projects it, then times the state at random seqs three ways: the map checkpoints of the
projections (``Projections.map_at``: the nearest stored checkpoint, one every 100 events, plus
the map fold of the events after it; what ``/state?at=`` reads), the aggregate from its nearest
snapshot (``get_game(version=k)``, a snapshot every WARLOG_SNAPSHOT_INTERVAL = 100 events), and
the map fold from seq 1. The benchmark of record is ``python -m bench timetravel``
(docs/benchmarks.md section 3).
"""

from __future__ import annotations

import platform
import random
import statistics
import sys
import tempfile
import time

from domain.service import Warlog
from domain.storage import config_from_env
from projections import folds
from projections.runner import Projections


def build(app: Warlog, events: int) -> str:
    gid = app.create_game("freeform", options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}).game_id
    app.join(gid, "Blue", "b", "x")
    app.join(gid, "Red", "r", "y")
    n = 0
    while app.get_game(gid).version < events:
        n += 1
        kind = n % 10
        order = ({"kind": "advance"} if kind == 0 else
                 {"kind": "vp", "side": "Blue", "delta": 1, "reason": "r"} if kind == 5 else
                 {"kind": "roll", "dice": "2d6", "purpose": "fire", "target": {"compare": ">=", "value": 7}})
        app.submit_order(gid, "Blue" if n % 2 else "Red", f"o{n}", order)
    return gid


def main(events: int = 10_000, every: int = 100, samples: int = 200) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = config_from_env({"WARLOG_DATA_DIR": tmp, "WARLOG_SNAPSHOT_INTERVAL": str(every)})
        Warlog.migrate(config)
        app = Warlog(config)
        started = time.perf_counter()
        gid = build(app, events)
        version = app.get_game(gid).version
        print(f"built a game of {version} events in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        projections = Projections(app, every=every)
        projections.store.create_tables()
        projections.catch_up()
        rng = random.Random(1)  # one generator for every sample: distinct seqs
        ks = [rng.randint(1, version) for _ in range(samples)]

        def by_snapshot(k):
            return app.get_game(gid, version=k).state

        def by_checkpoint(k):
            return projections.map_at(gid, k)["state"]

        def from_start(k):
            return folds.fold("map", app.lines(gid, limit=k))["state"]

        for k in ks[:20]:
            assert by_snapshot(k) == by_checkpoint(k) == from_start(k)
        print(f"machine: {platform.processor() or platform.machine()}, {platform.system()} {platform.release()}, "
              f"Python {platform.python_version()}, SQLite")
        for name, how, n in ((f"map checkpoint every {every} + map fold (Projections.map_at)", by_checkpoint, samples),
                             ("snapshot + events (get_game(version=k))", by_snapshot, samples),
                             ("fold from the start", from_start, 5)):
            times = []
            for k in ks[:n]:
                t = time.perf_counter()
                how(k)
                times.append((time.perf_counter() - t) * 1000)
            print(f"{name}: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms over {n} seqs")
        app.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
