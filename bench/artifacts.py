"""7. A replay artifact of a complete game, and statistics across 10,000 generated games.

Both are timed as the worker runs them (workers/jobs.py, called directly instead of through rq):
reading the log from the store, the pure functions, writing the files. Replay: a complete game
of each order source that can play one (freeform: a long game ended by an end order; a ruleset
with a play module: the longest of eight games, each played until it ends, as long as its dice
make it), ``make_replay`` for the umpire, median of 3; the baseline is reading the same lines
and folding them into the map state (the least a replay must do). Statistics:
``statistics_across`` over every game of the corpus (bench/corpus.py); the baseline is reading
those games' lines alone.
"""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import tempfile
import time
from typing import Iterator

from bench import games as made
from bench import sources
from bench.corpus import corpus
from bench.report import Figure, Result, fmt
from bench.stores import Store, fresh, migrated
from domain.service import Warlog
from projections import folds

LONGEST_OF = 8


@contextlib.contextmanager
def store_env(store: Store) -> Iterator[None]:
    """The environment the worker reads its store from (config_from_env), for the block."""
    keys = ("WARLOG_DATA_DIR", "WARLOG_DATABASE_URL", "WARLOG_SNAPSHOT_INTERVAL")
    saved = {k: os.environ.get(k) for k in keys}
    for k in keys:
        os.environ.pop(k, None)
    os.environ.update(store.env)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _replay(result: Result, source: sources.Source, quick: bool) -> None:
    from workers import jobs

    events = 400 if quick else 3000
    # A game that ends by itself is as long as its dice make it (a Falklands game: 230 to 1,000
    # events), so one game would make the figure a draw; the longest of eight is a long one.
    tries = 1 if quick or source.end_order is not None else LONGEST_OF
    with fresh("sqlite") as store:
        app = migrated(store)
        try:
            played = []
            for n in range(tries):
                gid = made.play_to_events(app, source, random.Random(4 + n), events)
                game = app.get_game(gid)
                played.append((game.version, game.is_ended, gid))
            version, ended, gid = max(played)
        finally:
            app.close()
        with store_env(store):
            times, bases = [], []
            for n in range(3):
                with tempfile.TemporaryDirectory() as out:
                    started = time.perf_counter()
                    jobs.make_replay(gid, version, "umpire", out)
                    times.append(time.perf_counter() - started)
                started = time.perf_counter()
                service = Warlog()
                try:
                    folds.fold("map", service.lines(gid))
                finally:
                    service.close()
                bases.append(time.perf_counter() - started)
    took, base = statistics.median(times), statistics.median(bases)
    what = "complete" if ended else "unfinished"
    result.figures.append(Figure(f"replay artifact, {source.ruleset} game of {version:,} events ({what})", took, "s",
                                 base, "s", "read + map fold", took / base, "<= 2 s", took <= 2))


def run(quick: bool, rulesets: list[str] | None = None) -> Result:
    result = Result("replay", "7. Replays and statistics across games")
    for source in sources.available(rulesets, result.notes):
        try:
            _replay(result, source, quick)
        except RuntimeError as exc:  # a ruleset's random play that gets stuck: say so, go on
            result.note(f"replay of a {source.ruleset} game skipped: {exc}")
    from workers import jobs

    made_corpus = corpus(quick)
    with store_env(made_corpus.store):
        service = Warlog()
        try:
            started = time.perf_counter()
            for gid in made_corpus.ids:
                service.lines(gid)
            base = time.perf_counter() - started
        finally:
            service.close()
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            jobs.statistics_across(None, made_corpus.ids, "bench", out)
            took = time.perf_counter() - started
    n = len(made_corpus.ids)
    result.figures.append(Figure(f"statistics across {n:,} games", took, "s", base, "s", "reading their lines",
                                 took / base, "<= 60 s", took <= 60))
    result.notes.append(f"the corpus: {n:,} complete freeform games, {fmt(made_corpus.events)} events, SQLite; "
                        "replays and statistics as workers/jobs.py makes them (files written included)")
    return result
