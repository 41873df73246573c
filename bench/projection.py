"""5. Projection catch-up, events per second ÷ the raw notification read-and-decode rate.

A store of complete freeform games (bench/games.py); the projector's catch-up from nothing
(``Projections.catch_up``: read a batch of notifications, decode, fold into the four read models,
write them with the tracking position in one transaction) against reading the same
notifications in the same batches and decoding each into its domain event, and nothing else.
Each round times the baseline, then a catch-up (the read models dropped before it), then the
baseline again, and takes the catch-up's rate over the mean of the two baselines around it;
the figure is the round with the median ratio. Pairing matters on a shared VM whose speed
drifts (here the same baseline took from 13 to 35 µs an event within a minute): the best of
each, taken apart, favoured the shorter baseline, which more often falls wholly in a fast spell.
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


def _timed(work) -> tuple:
    started = time.perf_counter()
    done = work()
    return done, time.perf_counter() - started


def run(kinds: list[str], quick: bool) -> Result:
    result = Result("projection", "5. Projection catch-up")
    count, orders = (40, (8, 16)) if quick else (1000, (8, 16))
    rounds = 2 if quick else 5
    for kind in kinds:
        if kind == "postgres" and (why := postgres_missing()):
            result.note(f"PostgreSQL skipped: {why}")
            continue
        with fresh(kind) as store:
            app = migrated(store)
            try:
                made.store_games(app, SOURCES["freeform"](), count, orders, random.Random(2))
                events = app.recorder.max_notification_id()
                read_and_decode(app)  # warm the store's pages and the decoder,
                projections = Projections(app)
                projections.catch_up()  # and the folds and the views' tables: neither counted
                runs = []  # (ratio, catch-up rate, baseline rate) per round
                for _ in range(rounds):
                    before = _timed(lambda: read_and_decode(app))
                    projections.store.drop()
                    projections = Projections(app)  # nothing carried over from the round before
                    folded, took = _timed(projections.catch_up)
                    after = _timed(lambda: read_and_decode(app))
                    assert before[0] == after[0] == folded == events, (before, after, folded, events)
                    raw_rate = events / ((before[1] + after[1]) / 2)
                    runs.append((events / took / raw_rate, events / took, raw_rate))
                runs.sort()
                ratio, rate, raw_rate = runs[len(runs) // 2]
            finally:
                app.close()
        result.figures.append(Figure(f"catch-up, {LABEL[kind]}", rate, "events/s", raw_rate, "events/s",
                                     "read + decode only", ratio, ">= 0.5", ratio >= 0.5))
        result.notes.append(f"{LABEL[kind]}: {fmt(events)} events of {count} games, batches of {BATCH}; "
                            f"{rounds} rounds (baseline, catch-up, baseline), the median shown; the ratios of "
                            f"the rounds: {', '.join(fmt(r[0]) for r in runs)}")
    return result
