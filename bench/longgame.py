"""A live projector on one long game: ``python -m bench.longgame [--store sqlite|postgres] [--events N]``.

A freeform game (bench/games.py) is played one order at a time, saved after each, and the
projector runs a batch after each save, as it does when orders arrive one by one. Each batch
starts from the stored views (the views the projector carries from its last batch are dropped
first, as when other games' batches came between). Printed: the median batch time over the
batches of the last ``CHUNK`` (200) seqs before each mark (seq 500, 1,000, 2,000, 3,000, ...),
its ratio to the first mark's,
and the stored bytes of each projection's rows at the mark. A batch's cost that does not grow
with the game's length keeps the ratio near 1; a view written whole at every batch makes it grow
with the seq. A batch reads and writes its view's open chunk, which fills from 0 to 200 seqs and
starts again, so its cost goes up and down with that: the window is one whole chunk's worth of
batches, wherever the mark falls in it. Not part of ``python -m bench``: the issue's figures do not include it
(docs/projections.md, "Views that grow with the game are stored in chunks").
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bench import games as made
from bench import machine
from bench.sources import SOURCES
from bench.stores import fresh, migrated, postgres_missing
from projections.runner import Projections
from projections.store import CHUNK, CHUNKS, VIEWS, ProjectionStore

MARKS = (500, 1000, 2000, 3000, 5000, 10000)


def stored_bytes(app) -> dict[str, int]:
    """{projection: bytes of its rows' bodies} (on SQLite LZ4 frames; on PostgreSQL the text)."""
    store = ProjectionStore.for_service(app)
    size = "length(body)" if store.kind == "sqlite" else "octet_length(body)"
    out: dict[str, int] = {}
    with app.recorder.datastore.transaction(commit=False) as c:
        for table in (VIEWS, CHUNKS):
            c.execute(store.sql(f"SELECT projection, sum({size}) AS n FROM {{t}}{table} GROUP BY projection"))
            for r in c.fetchall():
                out[r["projection"]] = out.get(r["projection"], 0) + int(r["n"])
    return out


def run(kind: str, events: int) -> None:
    if kind == "postgres" and (why := postgres_missing()):
        raise SystemExit(f"PostgreSQL: {why}")
    print("; ".join(f"{k}: {v}" for k, v in machine.describe().items() if k not in ("Redis",)))
    with fresh(kind) as store:
        app = migrated(store)
        source, rng, seeds = SOURCES["freeform"](), random.Random(1), made.Seeds()
        game = made.start(source, seeds)
        seeds.write(app)
        app.save(game)
        projections = Projections(app)
        projections.catch_up()
        times: list[float] = []
        first = None
        marks = [m for m in MARKS if m <= events]
        while marks and game.version < events:
            made.play(game, source, rng, 1, seeds, finish=False)
            seeds.write(app)
            app.save(game)
            started = time.perf_counter()
            projections.run_batch()
            times.append(time.perf_counter() - started)
            if game.version >= marks[0]:
                median = statistics.median(times[-CHUNK:]) * 1000
                first = first or median
                sizes = ", ".join(f"{name} {n / 1024:.1f} KiB" for name, n in sorted(stored_bytes(app).items()))
                print(f"{kind} seq {game.version:>6}: batch median {median:6.2f} ms, {median / first:5.2f} x the first"
                      f" mark's; stored: {sizes}", flush=True)
                marks.pop(0)
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--events", type=int, default=3000)
    args = parser.parse_args()
    run(args.store, args.events)


if __name__ == "__main__":
    main()
