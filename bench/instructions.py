"""Instructions an order, counted: ``python -m bench.instructions [--ruleset R] [--orders N]
[--store postgres|sqlite] [--before REV] [--http]``.

On a shared VM the time an order takes moves by half between one minute and the next (the
orders benchmark's server CPU per order went from 3.1 to 5.4 ms between rounds of the same
code), so a change worth a few percent cannot be seen in seconds. Instructions can: valgrind
counts them whatever else the machine does, and the same work gives the same count.

The work is made the same: orders are picked once (``record``: random legal orders of the
ruleset's source, as the orders benchmark picks them, in 10 games started anew when they end)
and written to a script; each measurement replays the script in a fresh process (``replay``)
with the order salts and game ids drawn from a seeded generator, each dice seed made from its
game and epoch, and ``PYTHONHASHSEED=0``, so every game takes the same course on any code that
decides the same.
The replay submits the orders with ``Warlog.submit_order`` on a fresh store, and nothing else:
no HTTP, no picking. With ``--http`` it submits them through warlog's Flask app instead (Flask's
test client: no socket, no gunicorn), so what the API adds to an order is counted too. A replay
of none of the script (the same start-up, the games created and joined) is counted too, and the
figure is the difference over the orders submitted.

On PostgreSQL the database server's instructions are not counted (another process); on SQLite
SQLite's are (in-process). The figure is instructions of this process an order, not time: a
change that moves work to the database, or waits, is not seen here.

Not part of ``python -m bench``: the issue's figures are rates and times (docs/benchmarks.md).
Needs valgrind (Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Iterator

GAMES = 10
HERE = Path(__file__).resolve()


def _deterministic() -> None:
    """Salts and game ids from a seeded generator, and each epoch's dice seed from its game and
    epoch (the replay's only randomness). A seed does not come from the generator: code that
    draws seeds ahead (several epochs' at once) or one at a time then gets the same seed for
    each epoch, and the same salts and game ids after it."""
    import hashlib
    import secrets

    import domain.game
    import domain.storage

    rng = random.Random(7)
    ids = random.Random(11)  # apart, so that tokens the API draws (--http) leave the game ids as they are
    drawing: list = [None]  # (game id, epoch of the next seed drawn) inside SeedStore.seed_for

    def token_bytes(n: int = 32) -> bytes:
        if drawing[0] is not None:
            game_id, epoch = drawing[0]
            drawing[0] = (game_id, epoch + 1)
            return hashlib.sha256(f"{game_id}|{epoch}".encode()).digest()[:n]
        return bytes(rng.getrandbits(8) for _ in range(n))

    seed_for = domain.storage.SeedStore.seed_for

    def keyed_seed_for(self, game_id: str, epoch: int) -> bytes:
        drawing[0] = (game_id, epoch)
        try:
            return seed_for(self, game_id, epoch)
        finally:
            drawing[0] = None

    secrets.token_bytes = token_bytes
    secrets.token_hex = lambda n=32: secrets.token_bytes(n).hex()
    domain.game.uuid4 = lambda: uuid.UUID(int=ids.getrandbits(128), version=4)
    domain.storage.SeedStore.seed_for = keyed_seed_for


def child(mode: str, kind: str, ruleset: str, orders: int, path: Path) -> None:
    """``record`` ``orders`` orders into the script at ``path``, or ``replay`` the first
    ``orders`` steps of it (``replay-http``: through the API, ``_Api``); prints the games'
    versions (the same on any code that decides the same)."""
    _deterministic()
    from bench.sources import SOURCES
    from bench.stores import fresh, migrated
    from domain.errors import InvalidOrder, RuleViolation

    source = SOURCES[ruleset]()
    script = json.loads(path.read_text()) if mode != "record" else []
    with fresh(kind) as store:
        app = migrated(store)

        def new() -> str:
            made = app.create_game(source.ruleset, source.scenario, dict(source.options))
            for n, seat in enumerate(app.get_game(made.game_id).human_seats()):
                app.join(made.game_id, seat, f"p{n}", f"c{n}")
            return made.game_id

        if mode == "replay-http":
            api = _Api(app, source)
            new, submit = api.new, api.submit
        else:
            def submit(game_id: str, seat: str, order_id: str, order: dict) -> None:
                with contextlib.suppress(InvalidOrder, RuleViolation):
                    app.submit_order(game_id, seat, order_id, order)
        games = [new() for _ in range(GAMES)]
        if mode == "record":
            rng, done = random.Random(1), 0
            while done < orders:
                at = done % GAMES
                game = app.get_game(games[at])
                if game.is_ended:
                    games[at] = new()
                    script.append(["new", at])
                    continue
                seat = rng.choice(sorted(game.whose_move()))
                for order in source.orders(game.state, seat, rng):
                    script.append(["order", at, seat, f"o{done}", order])
                    try:
                        app.submit_order(games[at], seat, f"o{done}", order)
                        break
                    except (InvalidOrder, RuleViolation):  # the source's next candidate
                        pass
                done += 1
            path.write_text(json.dumps(script))
        else:
            for step in script[:orders]:
                if step[0] == "new":
                    games[step[1]] = new()
                    continue
                _, at, seat, order_id, order = step
                submit(games[at], seat, order_id, order)
        # Read off the log's last rows: loading the games here would be counted as the orders' work.
        versions = [app.recorder.select_events(uuid.UUID(g), desc=True, limit=1)[0].originator_version for g in games]
        print("versions", sorted(versions), flush=True)
        app.close()


class _Api:
    """Games made and orders submitted through warlog's Flask app (its test client: a WSGI call,
    no socket), so the count holds what the API adds to an order: authentication, the body
    loaded and checked, the result dumped and encoded, the access log."""

    def __init__(self, app, source) -> None:
        from api.app import create_app

        self.client = create_app({"WARLOG_SERVICE": app, "WARLOG_GAMES_PER_ADDRESS": 0,
                                  "WARLOG_RATE_LIMITS": False}).test_client()  # no cap, no rate limit
        self.source = source
        self.tokens: dict[str, dict[str, str]] = {}

    def new(self) -> str:
        made = self.client.post("/api/v1/games", json=self.source.create_body()).get_json()
        game_id = made["game_id"]
        self.tokens[game_id] = {}
        for n, seat in enumerate(made["seats"]):
            joined = self.client.post(f"/api/v1/games/{game_id}/join",
                                      json={"invite_code": made["invites"][seat], "handle": f"p{n}",
                                            "client_seed": f"c{n}"}).get_json()
            self.tokens[game_id][seat] = joined["token"]
        return game_id

    def submit(self, game_id: str, seat: str, order_id: str, order: dict) -> None:
        status = self.client.post(f"/api/v1/games/{game_id}/orders", json=order,
                                  headers={"Authorization": f"Bearer {self.tokens[game_id][seat]}",
                                           "Idempotency-Key": order_id}).status_code
        if status not in (201, 422):  # 422: a rule refused it, as the script's refused candidates
            raise SystemExit(f"order {order_id}: status {status}")


def _run(root: Path, args: list[str], valgrind: bool) -> tuple[str, int | None]:
    """This file run as a script in ``root`` (whose code it then imports: ``PYTHONPATH``; an
    older tree need not have this file)."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    run_this = f"import runpy; runpy.run_path({str(HERE)!r}, run_name='__main__')"  # sys.path[0]: root
    command = [sys.executable, "-c", run_this, "--child", *args]
    if valgrind:
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *command]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} on {root} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    versions = re.findall(r"^versions .*$", done.stdout, re.M)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    return (versions[-1] if versions else ""), (int(refs.group(1).replace(",", "")) if refs else None)


@contextlib.contextmanager
def _roots(before: str | None) -> Iterator[list[tuple[str, Path]]]:
    from bench.server import ROOT, tree

    if before is None:
        yield [("this", ROOT)]
        return
    with tree(before) as old:
        yield [(f"before ({before})", old), ("this", ROOT)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="falklands", help="the order source (bench/sources.py)")
    parser.add_argument("--orders", type=int, default=200)
    parser.add_argument("--store", choices=("postgres", "sqlite"), default="postgres")
    parser.add_argument("--before", metavar="REV", help="also count the code of this commit")
    parser.add_argument("--http", action="store_true",
                        help="submit through the API (Flask's test client) instead of Warlog.submit_order")
    parser.add_argument("--child", nargs=5, metavar=("MODE", "STORE", "RULESET", "ORDERS", "SCRIPT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        mode, kind, ruleset, orders, path = args.child
        child(mode, kind, ruleset, int(orders), Path(path))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.store == "postgres":
        from bench.stores import postgres_missing

        if why := postgres_missing():
            raise SystemExit(why)
    with tempfile.TemporaryDirectory(prefix="warlog-bench-instructions-") as tmp:
        script = Path(tmp) / "script.json"
        versions, _ = _run(HERE.parents[1], ["record", args.store, args.ruleset, str(args.orders), str(script)], False)
        steps = json.loads(script.read_text())
        submitted = sum(1 for step in steps if step[0] == "order")
        print(f"{args.ruleset} on {args.store}{' through the API' if args.http else ''}: {args.orders} orders, "
              f"{submitted} submitted in all "
              f"(refused candidates included), {versions}", flush=True)
        rows = []
        with _roots(args.before) as roots:
            for name, root in roots:
                mode = "replay-http" if args.http else "replay"
                replayed, whole = _run(root, [mode, args.store, args.ruleset, str(len(steps)), str(script)], True)
                _, start = _run(root, [mode, args.store, args.ruleset, "0", str(script)], True)
                if replayed != versions:
                    print(f"  note: {name} took the games elsewhere ({replayed}): it decides differently, "
                          "so its count is of other work", flush=True)
                per_order = (whole - start) / args.orders
                rows.append((name, per_order))
                print(f"  {name}: {per_order / 1e6:.3f} M instructions an order "
                      f"({whole:,} with the orders, {start:,} without)", flush=True)
        if len(rows) == 2:
            print(f"  this / before: {rows[1][1] / rows[0][1]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
