"""The eventsourcing baseline: one aggregate event per save, by a single writer."""

from __future__ import annotations

import time

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Tally(Aggregate):
    """The smallest useful aggregate: one counter, one event type."""

    def __init__(self) -> None:
        self.count = 0

    @event("Counted")
    def count_one(self, by: int) -> None:
        self.count += by


class RawApp(Application):
    name = "BenchRaw"


def save_rate(env: dict[str, str], saves: int, aggregates: int = 200) -> float:
    """Saves per second (one event each) over ``aggregates`` aggregates, by one thread."""
    app = RawApp(env=env)
    try:
        tallies = [Tally() for _ in range(aggregates)]
        app.save(*tallies)
        for t in tallies[: min(50, saves)]:  # warm the connection and the statement cache
            t.count_one(by=1)
            app.save(t)
        started = time.perf_counter()
        for n in range(saves):
            tally = tallies[n % aggregates]
            tally.count_one(by=1)
            app.save(tally)
        return saves / (time.perf_counter() - started)
    finally:
        app.close()
