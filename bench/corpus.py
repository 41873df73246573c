"""A store of many complete games, built once per run and shared by the benchmarks that need
it (statistics across games, memory): 10,000 freeform games (200 in quick mode) on SQLite."""

from __future__ import annotations

import atexit
import contextlib
import random
import time
from dataclasses import dataclass

from bench import games as made
from bench.sources import SOURCES
from bench.stores import Store, fresh, migrated

ORDERS = (8, 16)  # orders per game, then an end order


@dataclass
class Corpus:
    store: Store
    ids: list[str]
    events: int
    seconds: float


_built: dict[int, Corpus] = {}
_stack = contextlib.ExitStack()
atexit.register(_stack.close)


def corpus(quick: bool) -> Corpus:
    count = 200 if quick else 10_000
    if count not in _built:
        store = _stack.enter_context(fresh("sqlite"))
        app = migrated(store)
        try:
            started = time.perf_counter()
            ids = made.store_games(app, SOURCES["freeform"](), count, ORDERS, random.Random(10))
            seconds = time.perf_counter() - started
            events = app.recorder.max_notification_id() or 0
        finally:
            app.close()
        print(f"  built {count:,} games ({events:,} events) in {seconds:.0f} s", flush=True)
        _built[count] = Corpus(store, ids, events, seconds)
    return _built[count]
