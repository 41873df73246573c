"""6. The state at a random seq of a 10,000-event game: median time, and the ratio to a full
fold from seq 1.

The game is built in-process (bench/games.py) on SQLite and projected (``Projections.catch_up``,
a map checkpoint every 100 events, the default). "At seq k" is ``Projections.map_at(id, k)`` —
the nearest map checkpoint at or before k plus the map fold of the events after it, what
``GET /api/v1/games/{id}/state?at=k`` does before filtering the state for the viewer; the baseline is
the aggregate folded from seq 1 (a repository without snapshots), at the same seqs. The former
way, the aggregate from its nearest snapshot (one every 100 events) plus the events after it
(``Warlog.get_game(id, version=k)``), is timed too, at the same seqs.
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
from projections.runner import CHECKPOINT_EVERY, Projections


def _ms(fn, seqs: list[int]) -> list[float]:
    out = []
    for k in seqs:
        started = time.perf_counter()
        fn(k)
        out.append((time.perf_counter() - started) * 1000)
    return out


def run(quick: bool) -> Result:
    result = Result("timetravel", "6. The state at a random seq of a long game")
    events = 1_000 if quick else 10_000
    samples, full_samples = (20, 5) if quick else (200, 20)
    with fresh("sqlite") as store:
        app = migrated(store)
        try:
            gid = made.play_to_events(app, SOURCES["freeform"](), random.Random(3), events, finish=False)
            version = app.get_game(gid).version
            rng = random.Random(1)
            seqs = [rng.randint(1, version) for _ in range(samples)]
            projections = Projections(app)
            projections.catch_up()
            unsnapshotted = Repository(event_store=app.events)
            for k in seqs[:3]:  # the same state every way
                state = unsnapshotted.get(UUID(gid), version=k).state
                assert projections.map_at(gid, k)["state"] == state == app.get_game(gid, version=k).state
            by_checkpoint = _ms(lambda k: projections.map_at(gid, k), seqs)
            by_snapshot = _ms(lambda k: app.get_game(gid, version=k), seqs)
            from_start = _ms(lambda k: unsnapshotted.get(UUID(gid), version=k), seqs[:full_samples])
        finally:
            app.close()
    median = statistics.median(by_checkpoint)
    paired = statistics.median(by_checkpoint[:full_samples])
    full = statistics.median(from_start)
    ratio = full / paired
    result.figures.append(Figure(f"state at a random seq of a {version:,}-event game (median)", median, "ms",
                                 full, "ms", "fold from seq 1, median", ratio, "<= 5 ms and >= 100x",
                                 median <= 5 and ratio >= 100))
    def row(name: str, times: list[float]) -> list:
        return [name, len(times), fmt(statistics.median(times)), fmt(sorted(times)[int(len(times) * 0.9)]),
                fmt(max(times))]

    result.tables.append((["way", "seqs", "median ms", "p90 ms", "max ms"], [
        row("map checkpoint + map fold of later events (Projections.map_at)", by_checkpoint),
        row("aggregate snapshot + later events (get_game(version=k), the former way)", by_snapshot),
        row("aggregate fold from seq 1", from_start),
    ]))
    result.notes.append(f"ratio = median fold from seq 1 over median by checkpoint at the same {full_samples} seqs "
                        f"({fmt(paired)} ms there); a map checkpoint and an aggregate snapshot every "
                        f"{CHECKPOINT_EVERY} events; {len(set(seqs))} distinct seqs drawn from Random(1); SQLite")
    return result
