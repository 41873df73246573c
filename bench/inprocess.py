"""An order's CPU with no web server: ``python -m bench.inprocess [--store sqlite|postgres] [--orders N]``.

Section 3 (bench/cpu.py) reports these rows beside its gunicorn rows. A fresh process on a fresh
store makes 50 freeform games, both seats joined, and submits ``roll 2d6`` orders, seats in turn,
two ways: ``Warlog.submit_order`` alone (the domain and the store: the damage and catch-up reads,
the rules, the dice, the chain hash, the save and its commit), then through warlog's Flask app
with Flask's test client (the same plus the API: the token's seat, the body loaded, the lines
filtered for the caller, the signed head, the JSON response; no socket, no gunicorn, rate limits
off as in every benchmark). The figure is this process's CPU time (``time.process_time``) ÷
orders, the median of three rounds after a warm-up; on PostgreSQL the database server's CPU is
not counted, as in the other sections. The test client builds each request's WSGI environ itself,
so the second figure holds a little client work that gunicorn would do instead.

``--falklands``: the latency of Falklands Showdown's random legal orders through the Flask app,
one at a time (bench/sources.py's orders, the client following each game as its umpire, as
bench/orders.py does over HTTP): p50 and p99 of each order's wall time, and the median by the
number of lines the order recorded. Section 2 reports it beside its open-loop rows: with no
socket, no server and no other order waiting, it is a floor under what any web server could
answer at.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

GAMES = 50
ROUNDS = 3
ORDER = {"kind": "roll", "dice": "2d6", "purpose": "bench"}
ROOT = Path(__file__).resolve().parents[1]


def _rounds(submit, orders: int) -> float:
    """Median CPU ms an order over ROUNDS rounds of ``orders`` calls of ``submit(i)``."""
    for i in range(max(50, orders // 10)):  # warm-up: caches, the games' first epochs
        submit(i)
    got = []
    for _ in range(ROUNDS):
        start = time.process_time()
        for i in range(orders):
            submit(i)
        got.append((time.process_time() - start) / orders * 1000)
    return statistics.median(got)


def measure_here(kind: str, orders: int) -> dict:
    """Both figures, measured in this process (``measure`` runs it in a fresh one)."""
    from api.app import create_app
    from bench.peers import ROLLS
    from bench.stores import fresh, migrated

    with fresh(kind) as store:
        service = migrated(store)
        try:
            client = create_app({"WARLOG_SERVICE": service, "WARLOG_GAMES_PER_ADDRESS": 0,
                                 "WARLOG_RATE_LIMITS": False}).test_client()
            games = [_new_game(client, ROLLS.create_body()) for _ in range(GAMES)]

            def direct(i: int) -> None:
                game_id, tokens = games[i % GAMES]
                seat = list(tokens)[(i // GAMES) % 2]
                service.submit_order(game_id, seat, uuid.uuid4().hex, ORDER)

            def through_flask(i: int) -> None:
                game_id, tokens = games[i % GAMES]
                token = list(tokens.values())[(i // GAMES) % 2]
                status = client.post(f"/api/v1/games/{game_id}/orders", json=ORDER,
                                     headers={"Authorization": f"Bearer {token}",
                                              "Idempotency-Key": uuid.uuid4().hex}).status_code
                if status != 201:
                    raise RuntimeError(f"an order through the Flask app answered {status}")

            alone = _rounds(direct, orders)
            flask = _rounds(through_flask, orders)
        finally:
            service.close()
    return {"service_ms": alone, "flask_ms": flask, "orders": orders, "rounds": ROUNDS}


FALKLANDS_GAMES = 200  # as section 2's open loop, whose 3,500 orders leave each game early in its play
LINE_BUCKETS = ((0, 5), (6, 10), (11, 20), (21, None))  # lines an order recorded (0: refused)


class _TestClientConnection:
    """bench.http.Connection's ``request``, answered by Flask's test client: no socket, no server."""

    def __init__(self, client):
        self.client = client

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        answer = self.client.open(path, method=method, json=body, headers=headers or {})
        return answer.status_code, dict(answer.headers), answer.get_json(silent=True)


def falklands_here(kind: str, orders: int) -> dict:
    """Falklands orders' wall time through the Flask app, measured in this process: bench/orders.py's
    client (its games, its umpire following each one) over a connection that is the test client."""
    from api.app import create_app
    from bench import sources
    from bench.orders import API, Load
    from bench.stores import fresh, migrated

    load = Load("in-process", 0, sources.available(["falklands"])[0], seed=30)
    timed: list[tuple[float, int]] = []  # (wall seconds, lines the order recorded)
    warmup = orders // 6  # as section 2: 5 s of warm-up before a 30 s window

    async def play(conn: _TestClientConnection) -> None:
        games = [await load.new_game(conn) for _ in range(FALKLANDS_GAMES)]
        k = 0
        while len(timed) < warmup + orders:
            at = k % len(games)
            game = games[at]
            k += 1
            movers = game.view["whose_move"]
            if not movers:  # the game is over: a new one takes its place
                games[at] = await load.new_game(conn)
                continue
            seat = load.rng.choice(movers)
            for order in load.source.orders(game.view["state"], seat, load.rng):
                started = time.perf_counter()
                status, _, _ = await conn.request("POST", f"{API}/games/{game.id}/orders", order,
                                                  {"Authorization": f"Bearer {game.tokens[seat]}",
                                                   "Idempotency-Key": uuid.uuid4().hex})
                took = time.perf_counter() - started
                before = game.view["version"]
                await load.follow(conn, game)
                timed.append((took, game.view["version"] - before))
                if status != 422:  # a rule refused it: the source's next candidate
                    break

    with fresh(kind) as store:
        service = migrated(store)
        try:
            asyncio.run(play(_TestClientConnection(create_app(
                {"WARLOG_SERVICE": service, "WARLOG_GAMES_PER_ADDRESS": 0, "WARLOG_RATE_LIMITS": False}).test_client())))
        finally:
            service.close()
    timed = timed[warmup:]
    walls = sorted(t for t, _ in timed)
    buckets = []
    for low, high in LINE_BUCKETS:
        inside = [t for t, n in timed if n >= low and (high is None or n <= high)]
        buckets.append({"lines": f"{low}–{high}" if high is not None else f"{low} or more", "orders": len(inside),
                        "median_ms": statistics.median(inside) * 1000 if inside else None})
    return {"orders": len(timed), "p50_ms": statistics.median(walls) * 1000,
            "p99_ms": walls[min(len(walls) - 1, int(len(walls) * 0.99))] * 1000, "by_lines": buckets}


def _new_game(client, body: dict) -> tuple[str, dict[str, str]]:
    """A game made and joined by both seats through the API: its id and {seat: bearer token}."""
    made = client.post("/api/v1/games", json=body).get_json()
    tokens = {}
    for n, seat in enumerate(made["seats"]):
        joined = client.post(f"/api/v1/games/{made['game_id']}/join",
                             json={"invite_code": made["invites"][seat], "handle": f"p{n}",
                                   "client_seed": f"c{n}"}).get_json()
        tokens[seat] = joined["token"]
    return made["game_id"], tokens


def measure(kind: str, orders: int, *, falklands: bool = False) -> dict:
    """Both figures (``falklands``: the Falklands latencies) from a fresh Python process (this
    module run as a script)."""
    done = subprocess.run([sys.executable, "-m", "bench.inprocess", "--store", kind, "--orders", str(orders), "--json",
                           *(["--falklands"] if falklands else [])],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"bench.inprocess on {kind} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--orders", type=int, default=3000, help="orders a round (three rounds)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    parser.add_argument("--falklands", action="store_true",
                        help="the wall time of Falklands Showdown's random legal orders instead (p50, p99, by lines)")
    args = parser.parse_args(argv)
    if args.falklands:
        got = falklands_here(args.store, args.orders)
        if args.json:
            print(json.dumps(got))
            return 0
        print(f"{args.store}: Falklands orders through the Flask app, one at a time: {got['orders']} orders, "
              f"p50 {got['p50_ms']:.2f} ms, p99 {got['p99_ms']:.2f} ms")
        for bucket in got["by_lines"]:
            median = "-" if bucket["median_ms"] is None else f"{bucket['median_ms']:.2f} ms"
            print(f"  {bucket['lines']} lines: {bucket['orders']} orders, median {median}")
        return 0
    got = measure_here(args.store, args.orders)
    if args.json:
        print(json.dumps(got))
    else:
        print(f"{args.store}: CPU an order, median of {ROUNDS} rounds of {args.orders}: Warlog.submit_order alone "
              f"{got['service_ms']:.3f} ms; through the Flask app (test client) {got['flask_ms']:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
