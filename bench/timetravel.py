"""3. The state at a random seq of a 10,000-event game: median time, and the ratio to a full
fold from seq 1.

The game is built in-process (bench/games.py) on SQLite with a snapshot every 100 events (the
default). "At seq k" is ``Warlog.get_game(id, version=k)`` — the nearest snapshot at or before k
plus the events after it, what ``GET /games/{id}/state?at=k`` does; the baseline is the same
aggregate folded from seq 1 (a repository without snapshots), at the same seqs.
"""

from __future__ import annotations

import random
import statistics
import time
from uuid import UUID

from eventsourcing.application import Repository

from bench import games as made
from bench.report import Figure, Result, fmt
from bench.sources import SOURCES
from bench.stores import fresh, migrated


def _ms(fn, seqs: list[int]) -> list[float]:
    out = []
    for k in seqs:
        started = time.perf_counter()
        fn(k)
        out.append((time.perf_counter() - started) * 1000)
    return out


def run(quick: bool) -> Result:
    result = Result("timetravel", "3. The state at a random seq of a long game")
    events = 1_000 if quick else 10_000
    samples, full_samples = (20, 5) if quick else (200, 20)
    with fresh("sqlite") as store:
        app = migrated(store)
        try:
            gid = made.play_to_events(app, SOURCES["freeform"](), random.Random(3), events, finish=False)
            version = app.get_game(gid).version
            rng = random.Random(1)
            seqs = [rng.randint(1, version) for _ in range(samples)]
            unsnapshotted = Repository(event_store=app.events)
            for k in seqs[:3]:  # the same state both ways
                assert app.get_game(gid, version=k).state == unsnapshotted.get(UUID(gid), version=k).state
            by_snapshot = _ms(lambda k: app.get_game(gid, version=k), seqs)
            from_start = _ms(lambda k: unsnapshotted.get(UUID(gid), version=k), seqs[:full_samples])
        finally:
            app.close()
    median = statistics.median(by_snapshot)
    paired = statistics.median(by_snapshot[:full_samples])
    full = statistics.median(from_start)
    ratio = full / paired
    result.figures.append(Figure(f"state at a random seq of a {version:,}-event game (median)", median, "ms",
                                 full, "ms", "fold from seq 1, median", ratio, "<= 5 ms and >= 100x",
                                 median <= 5 and ratio >= 100))
    result.tables.append((["way", "seqs", "median ms", "p90 ms", "max ms"], [
        ["snapshot + later events", len(by_snapshot), fmt(median), fmt(sorted(by_snapshot)[int(len(by_snapshot) * 0.9)]),
         fmt(max(by_snapshot))],
        ["fold from seq 1", len(from_start), fmt(full), fmt(sorted(from_start)[int(len(from_start) * 0.9)]), fmt(max(from_start))],
    ]))
    result.notes.append(f"ratio = median fold from seq 1 over median by snapshot at the same {full_samples} seqs "
                        f"({fmt(paired)} ms there); a snapshot every 100 events; SQLite")
    return result
