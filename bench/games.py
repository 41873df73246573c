"""Games made in-process for the benchmarks: the Game aggregate driven directly (no HTTP, one
transaction per batch of games), so building a store of 10,000 games takes seconds, not hours.

Seeds are drawn as the service draws them and written to the seed table in bulk, so a game made
here can be continued through the service like any other."""

from __future__ import annotations

import random
import secrets
from datetime import datetime, timezone
from typing import Iterable
from uuid import UUID, uuid4

from bench.sources import Source
from domain.dice import SEED_BYTES
from domain.errors import InvalidOrder, RuleViolation
from domain.game import Game
from domain.storage import SEEDS_TABLE


class Seeds:
    """get-or-create seeds in memory, written to the store later with ``write``."""

    def __init__(self) -> None:
        self.held: dict[tuple[str, int], bytes] = {}
        self.written: set[tuple[str, int]] = set()

    def for_game(self, game: Game):
        return self.for_id(game.id)

    def for_id(self, game_id: UUID):
        gid = str(game_id)

        def seed_for(epoch: int) -> bytes:
            return self.held.setdefault((gid, epoch), secrets.token_bytes(SEED_BYTES))
        return seed_for

    def write(self, app) -> None:
        schema = (app.config.postgres or {}).get("POSTGRES_SCHEMA")
        table = f"{schema}.{SEEDS_TABLE}" if schema else SEEDS_TABLE
        p = "?" if app.config.kind == "sqlite" else "%s"
        rows = [(g, e, s) for (g, e), s in self.held.items() if (g, e) not in self.written]
        if rows:
            with app.recorder.datastore.transaction(commit=True) as c:
                c.executemany(f"INSERT INTO {table} (game_id, epoch, seed) VALUES ({p}, {p}, {p}) "
                              "ON CONFLICT (game_id, epoch) DO NOTHING", rows)
        self.written.update((g, e) for g, e, _ in rows)


def start(source: Source, seeds: Seeds) -> Game:
    """A created game with every seat joined."""
    game_id = uuid4()
    game = Game.create(source.ruleset, source.scenario, dict(source.options), game_id=game_id,
                       seed_for=seeds.for_id(game_id))
    for n, seat in enumerate(game.human_seats()):
        game.join(seat, f"player{n}", f"client-seed-{n}", seeds.for_game(game))
    return game


def play(game: Game, source: Source, rng: random.Random, orders: int, seeds: Seeds, *,
         finish: bool = True) -> Game:
    """Up to ``orders`` random legal orders; with ``finish``, a game still running is then
    ended with the source's end order (freeform never ends by itself)."""
    seed_for = seeds.for_game(game)
    n = 0
    while n < orders and not game.is_ended:
        n += 1
        seat = rng.choice(game.whose_move())
        refused = None
        for order in source.orders(game.state, seat, rng):
            try:
                game.submit(seat, f"o{game.version}", order, seed_for)
                break
            except (InvalidOrder, RuleViolation) as exc:  # try the source's next candidate
                refused = exc
        else:
            raise RuntimeError(f"{source.ruleset}: no order the source offered {seat} was accepted "
                               f"(the last refusal: {refused})")
    if finish and not game.is_ended and source.end_order is not None:
        seat = rng.choice(game.whose_move())
        game.submit(seat, f"o{game.version}", source.end_order(game.state, seat, rng), seed_for)
    return game


def play_to_events(app, source: Source, rng: random.Random, events: int, *, finish: bool = True,
                   chunk: int = 500) -> str:
    """One game of about ``events`` events ended by the source's end order, or, for a ruleset
    that ends by itself, played to its end; saved every ``chunk`` events; returns its id."""
    seeds = Seeds()
    game = start(source, seeds)
    orders = saved = 0
    # A ruleset that ends by itself (no end order) is played to its end: a complete game.
    while ((game.version < events or source.end_order is None) and not game.is_ended
           and orders < source.max_orders):
        play(game, source, rng, 1, seeds, finish=False)
        orders += 1
        if game.version - saved >= chunk:
            seeds.write(app)
            app.save(game)
            saved = game.version
    if finish:
        play(game, source, rng, 0, seeds, finish=True)
    seeds.write(app)
    app.save(game)
    return str(game.id)


def store_games(app, source: Source, count: int, orders: tuple[int, int], rng: random.Random, *,
                public: bool = True, batch: int = 100) -> list[str]:
    """``count`` complete games of ``orders`` (low, high) orders each, saved ``batch`` games per
    transaction, and registered (public) in the access table as the API would; returns their ids."""
    ids: list[str] = []
    seeds = Seeds()
    pending: list[Game] = []
    for n in range(count):
        game = play(start(source, seeds), source, rng, rng.randint(*orders), seeds)
        pending.append(game)
        ids.append(str(game.id))
        if len(pending) == batch or n == count - 1:
            seeds.write(app)
            app.save(*pending)
            _register(app, [str(g.id) for g in pending], public)
            pending.clear()
    return ids


def _register(app, game_ids: Iterable[str], public: bool) -> None:
    schema = (app.config.postgres or {}).get("POSTGRES_SCHEMA")
    prefix = f"{schema}." if schema else ""
    p = "?" if app.config.kind == "sqlite" else "%s"
    now = datetime.now(timezone.utc).isoformat()
    with app.recorder.datastore.transaction(commit=True) as c:
        c.executemany(f"INSERT INTO {prefix}warlog_game_access (game_id, public, created_at) VALUES ({p}, {p}, {p})",
                      [(g, 1 if public else 0, now) for g in game_ids])
