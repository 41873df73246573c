"""2. Projection catch-up, events per second ÷ the raw notification read-and-decode rate.

A store of complete freeform games (bench/games.py); the projector's catch-up from nothing
(``Projections.catch_up``: read a batch of notifications, decode, fold into the four read models,
write them with the tracking position in one transaction) against reading the same
notifications in the same batches and decoding each into its domain event, and nothing else.
The two are timed in interleaved rounds (the read models dropped before each catch-up) and the
best of each is kept, so a passing load on the shared machine weighs on both alike.
"""

from __future__ import annotations

import random
import time

from bench import games as made
from bench.report import Figure, Result, fmt
from bench.sources import SOURCES
from bench.stores import LABEL, fresh, migrated, postgres_missing
from projections.runner import BATCH, Projections


def read_and_decode(app) -> int:
    """Every notification, in batches of BATCH, decoded; returns how many."""
    position, count = 0, 0
    while True:
        batch = app.recorder.select_notifications(position + 1, BATCH)
        if not batch:
            return count
        for notification in batch:
            app.mapper.to_domain_event(notification)
        count += len(batch)
        position = batch[-1].id


def run(kinds: list[str], quick: bool) -> Result:
    result = Result("projection", "2. Projection catch-up")
    count, orders = (40, (8, 16)) if quick else (1000, (8, 16))
    rounds = 2 if quick else 3
    for kind in kinds:
        if kind == "postgres" and (why := postgres_missing()):
            result.note(f"PostgreSQL skipped: {why}")
            continue
        with fresh(kind) as store:
            app = migrated(store)
            try:
                made.store_games(app, SOURCES["freeform"](), count, orders, random.Random(2))
                events = app.recorder.max_notification_id()
                read_and_decode(app)  # warm the store's pages and the decoder
                projections = Projections(app)
                best_raw = best_fold = float("inf")
                for _ in range(rounds):
                    started = time.perf_counter()
                    read = read_and_decode(app)
                    best_raw = min(best_raw, time.perf_counter() - started)
                    projections.store.drop()
                    projections = Projections(app)  # nothing carried over from the round before
                    started = time.perf_counter()
                    folded = projections.catch_up()
                    best_fold = min(best_fold, time.perf_counter() - started)
                    assert read == folded == events, (read, folded, events)
                raw_rate, rate = events / best_raw, events / best_fold
            finally:
                app.close()
        ratio = rate / raw_rate
        result.figures.append(Figure(f"catch-up, {LABEL[kind]}", rate, "events/s", raw_rate, "events/s",
                                     "read + decode only", ratio, ">= 0.5", ratio >= 0.5))
        result.notes.append(f"{LABEL[kind]}: {fmt(events)} events of {count} games, batches of {BATCH}; "
                            f"{rounds} interleaved rounds, the best of each")
    return result
