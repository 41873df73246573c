"""1. Against a peer, side by side: warlog ÷ boardgame.io, moves per second, closed loop.

The peer is boardgame.io 0.50.2 (bench/peer.py): its official server with a two-player game whose
move rolls two d6 with its server-side random API (bench/peers/bgio/game.js), on FlatFile (beside
warlog's SQLite) or bgio-postgres (beside warlog's PostgreSQL), driven by its own client library
over its SocketIO transport (bench/peers/bgio/driver.js): 200 matches created and joined through
the Lobby API, 32 client loops each owning its share of the matches and making one move at a
time, the seat whose turn it is; a move's latency runs from sending it to that seat's client
seeing the new state. warlog: the same shape through bench/orders.py, 200 freeform games, 32
kept-alive connections, every order ``roll 2d6``, seats alternating; gunicorn as ``make run``
starts it (api/gunicorn_conf.py, 2 workers).

Both: a warm-up, then the moves answered inside a fixed window are counted; p50/p99 are their
latencies. Server CPU per move is the CPU time the server's processes used over the window
(warlog: every gunicorn worker; the peer: its node process; neither counts the database server)
÷ the moves. Rounds alternate, peer then warlog, each on a fresh store; the figures are the
medians over the rounds, and the ratios are warlog's median ÷ the peer's.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

from bench import peer
from bench.orders import http_orders
from bench.report import Figure, Result, fmt
from bench.sources import Source
from bench.stores import LABEL, fresh, postgres_missing

GAMES = 200
CLIENTS = 32
FLOORS = {"sqlite": 1.2, "postgres": 2.5}  # warlog ÷ peer throughput this issue asks for


def roll_2d6(state: Any, seat: str, rng: random.Random) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": "bench"}


ROLLS = Source("freeform", roll_2d6, options={"sides": ["Blue", "Red"], "phases": ["Move", "Fight"]},
               needs_state=False)


def warlog_round(kind: str, *, games: int, connections: int, warmup: float, duration: float) -> dict:
    with fresh(kind) as store:
        got = http_orders(store, ROLLS, games=games, connections=connections, warmup=warmup, duration=duration)
    return {"moves_per_s": got["orders_per_s"], "p50_ms": got["p50_ms"], "p99_ms": got["p99_ms"],
            "server_cpu_ms_per_move": got["server_cpu_ms_per_order"], "status": got["status"],
            "machine_busy": got["machine_busy"]}


def peer_round(kind: str, *, games: int, connections: int, warmup: float, duration: float) -> dict:
    with fresh(kind) as store:  # a scratch folder for FlatFile and the server's log
        return peer.drive(kind, store.folder / "bgio", "closed", matches=games, n=connections,
                          warmup=warmup, duration=duration)


def median(rounds: list[dict], key: str) -> float | None:
    values = [r[key] for r in rounds if r.get(key) is not None]
    return statistics.median(values) if values else None


def run(kinds: list[str], quick: bool) -> Result:
    result = Result("peers", "1. Against a peer: warlog and boardgame.io, closed loop")
    games, connections = (20, 8) if quick else (GAMES, CLIENTS)
    warmup, duration = (1.0, 2.0) if quick else (5.0, 30.0)
    rounds = 1 if quick else 3
    why_not = peer.missing()
    if why_not:
        result.note(f"{peer.NAME} skipped: {why_not}; warlog measured alone")
    rows = []
    for kind in kinds:
        if kind == "postgres" and (why := postgres_missing()):
            result.note(f"PostgreSQL skipped: {why}")
            continue
        sides: dict[str, list[dict]] = {"peer": [], "warlog": []}
        shape = dict(games=games, connections=connections, warmup=warmup, duration=duration)
        for n in range(rounds):
            if not why_not:
                sides["peer"].append(peer_round(kind, **shape))
                print(f"  round {n + 1}, {peer.NAME} on {peer.STORAGE[kind]}: {_line(sides['peer'][-1])}", flush=True)
            sides["warlog"].append(warlog_round(kind, **shape))
            print(f"  round {n + 1}, warlog on {LABEL[kind]}: {_line(sides['warlog'][-1])}", flush=True)
        keys = ("moves_per_s", "p50_ms", "p99_ms", "server_cpu_ms_per_move")
        mine = {k: median(sides["warlog"], k) for k in keys}
        theirs = {k: median(sides["peer"], k) for k in keys} if sides["peer"] else None
        rows.append([f"warlog, {LABEL[kind]}", *(fmt(mine[k]) for k in keys), len(sides["warlog"])])
        if theirs is None:
            result.figures.append(Figure(f"moves/s, warlog on {LABEL[kind]} (no peer)", mine["moves_per_s"], "moves/s"))
            continue
        rows.append([f"{peer.NAME}, {peer.STORAGE[kind]}", *(fmt(theirs[k]) for k in keys), len(sides["peer"])])
        peer_name = f"{peer.NAME} on {peer.STORAGE[kind]}"
        ratio = mine["moves_per_s"] / theirs["moves_per_s"]
        result.figures.append(Figure(
            f"moves/s, warlog on {LABEL[kind]} ÷ peer", mine["moves_per_s"], "moves/s", theirs["moves_per_s"],
            "moves/s", peer_name, ratio, f">= {FLOORS[kind]}", ratio >= FLOORS[kind]))
        cpu_ratio = mine["server_cpu_ms_per_move"] / theirs["server_cpu_ms_per_move"]
        result.figures.append(Figure(
            f"server CPU per move, warlog on {LABEL[kind]} ÷ peer", mine["server_cpu_ms_per_move"], "ms",
            theirs["server_cpu_ms_per_move"], "ms", peer_name, cpu_ratio, "< 1.0", cpu_ratio < 1.0))
        for key, label in (("p50_ms", "p50"), ("p99_ms", "p99")):
            result.figures.append(Figure(
                f"{label}, warlog on {LABEL[kind]} ÷ peer", mine[key], "ms", theirs[key], "ms", peer_name,
                mine[key] / theirs[key]))
    result.tables.append((["server", "moves/s", "p50 ms", "p99 ms", "server CPU ms/move", "rounds"], rows))
    result.notes.append(f"{games} matches/games, {connections} client loops, warm-up {warmup:g} s, window "
                        f"{duration:g} s, {rounds} round(s) per side (peer, warlog, peer, ...), medians")
    return result


def _line(got: dict) -> str:
    return (f"{fmt(got['moves_per_s'])} moves/s, p50 {fmt(got['p50_ms'])} ms, p99 {fmt(got['p99_ms'])} ms, "
            f"server CPU {fmt(got['server_cpu_ms_per_move'])} ms/move")
