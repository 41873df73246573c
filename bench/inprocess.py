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
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

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


def measure(kind: str, orders: int) -> dict:
    """Both figures from a fresh Python process (this module run as a script)."""
    done = subprocess.run([sys.executable, "-m", "bench.inprocess", "--store", kind, "--orders", str(orders), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"bench.inprocess on {kind} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inprocess", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--orders", type=int, default=3000, help="orders a round (three rounds)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = parser.parse_args(argv)
    got = measure_here(args.store, args.orders)
    if args.json:
        print(json.dumps(got))
    else:
        print(f"{args.store}: CPU an order, median of {ROUNDS} rounds of {args.orders}: Warlog.submit_order alone "
              f"{got['service_ms']:.3f} ms; through the Flask app (test client) {got['flask_ms']:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
