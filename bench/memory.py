"""9. Memory (RSS) of a web worker with 10,000 games stored.

gunicorn as in production (api/gunicorn_conf.py, 2 workers) on the corpus store (bench/corpus.py:
10,000 complete public games), measured at three points: just started; after reading every game
once (``GET /api/v1/games/{id}``, which also brings the game's read models up to date); after commands in
1,000 further games (each created, joined by both seats and given orders, which fills the
worker's game cache). The baseline: the same server on an empty store, after the same kinds of
requests in the new games alone. The figure is the larger worker's resident set.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path

from bench.corpus import corpus
from bench.http import Connection
from bench.orders import _workers
from bench.report import Figure, Result, fmt
from bench.server import serve
from bench.sources import freeform_order
from bench.stores import Store, fresh

API = "/api/v1"


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _read_all(host: str, port: int, ids: list[str], connections: int = 8) -> None:
    conns = [Connection(host, port) for _ in range(connections)]

    async def reader(i: int) -> None:
        for gid in ids[i::connections]:
            status, _, body = await conns[i].request("GET", f"{API}/games/{gid}")
            if status != 200:
                raise RuntimeError(f"GET /games/{gid}: {status} {body}")
    try:
        await asyncio.gather(*(reader(i) for i in range(connections)))
    finally:
        for c in conns:
            await c.close()


async def _play_new(host: str, port: int, games: int, orders: int, connections: int = 8) -> None:
    conns = [Connection(host, port) for _ in range(connections)]
    rng = random.Random(6)
    body = {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]}}

    async def player(i: int) -> None:
        c = conns[i]
        for _ in range(i, games, connections):
            status, _, made = await c.request("POST", f"{API}/games", body)
            tokens = {}
            for seat in made["seats"]:
                status, _, joined = await c.request("POST", f"{API}/games/{made['game_id']}/join",
                                                    {"invite_code": made["invites"][seat], "handle": seat})
                tokens[seat] = joined["token"]
            for n in range(orders):
                seat = made["seats"][n % 2]
                status, _, got = await c.request("POST", f"{API}/games/{made['game_id']}/orders",
                                                 freeform_order(None, seat, rng),
                                                 {"Authorization": f"Bearer {tokens[seat]}",
                                                  "Idempotency-Key": uuid.uuid4().hex})
                if status != 201:
                    raise RuntimeError(f"an order: {status} {got}")
    try:
        await asyncio.gather(*(player(i) for i in range(connections)))
    finally:
        for c in conns:
            await c.close()


def measure(store: Store, ids: list[str], new_games: int, orders: int) -> dict[str, float]:
    with serve(store.folder / "memory-server", WEB_CONCURRENCY="2", **store.env) as url:
        workers = _workers(url.pid)
        out = {"started": max(rss_mib(p) for p in workers)}
        asyncio.run(_read_all(url.host, url.port, ids))
        out["after reading every game"] = max(rss_mib(p) for p in workers)
        asyncio.run(_play_new(url.host, url.port, new_games, orders))
        out[f"after commands in {new_games:,} new games"] = max(rss_mib(p) for p in workers)
    return out


def run(quick: bool) -> Result:
    result = Result("memory", "9. Memory of a web worker")
    made = corpus(quick)
    new_games, orders = (50, 4) if quick else (1000, 4)
    with fresh("sqlite") as empty:
        base = measure(empty, [], new_games, orders)
    full = measure(made.store, made.ids, new_games, orders)
    stages = list(full)
    last = stages[-1]
    n = len(made.ids)
    result.figures.append(Figure(f"worker RSS, {n:,} games stored, {last}", full[last], "MiB", base[last], "MiB",
                                 "empty store, same new games", full[last] / base[last]))
    result.tables.append((["stage", f"{n:,} games stored (MiB)", "empty store (MiB)", "ratio"],
                          [[s, fmt(full[s]), fmt(base[s]), fmt(full[s] / base[s])] for s in stages]))
    result.notes.append(f"the larger of the 2 workers' VmRSS; {orders} orders in each new game; "
                        f"the game cache holds up to {__import__('domain.service', fromlist=['Warlog']).Warlog.GAME_CACHE:,} games per worker")
    return result
