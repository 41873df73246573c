"""Games played in memory for tests that need every kind of event real orders make."""

from __future__ import annotations

import random


def played_events(ruleset: str, orders: int, seed: int) -> list:
    """The events of a game played in memory by the benchmarks' order source (bench/games.py):
    ``orders`` random legal orders, then an end order where the ruleset has one."""
    from bench.games import Seeds, play, start
    from bench.sources import SOURCES

    source, seeds = SOURCES[ruleset](), Seeds()
    game = start(source, seeds)
    play(game, source, random.Random(seed), orders, seeds)
    return list(game.pending_events)
