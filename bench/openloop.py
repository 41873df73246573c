"""2. Open loop at a busy hour: 100 orders or moves a second, p50 and p99.

A PBEM service's real load is far below its saturation, so what a player sees is the latency of
one order on a quiet server. Sends are spaced evenly at the rate (open loop: a send time never
waits for an answer), each to the next game not waiting for an answer of its own; a latency runs
from the send's scheduled time, so a send held up by the client counts against the server, not
for it. warlog: 200 games over 32 kept-alive connections (bench/orders.py's set-up), freeform
``roll 2d6`` orders and Falklands Showdown's random legal orders (bench/sources.py; the client
follows each game's state as its umpire, as in the orders benchmark); boardgame.io 0.50.2: the
game of the peers benchmark, 200 matches, its own client (bench/peers/bgio/driver.js open).
Server CPU per move as in the peers benchmark, at this rate.

Beside the served rows, the same Falklands orders through warlog's Flask app one at a time, with
no socket and no server (``python -m bench.inprocess --falklands``, 200 games, in a fresh
process): a floor under the served p99, and its orders by the lines they recorded (a Falklands
order records one line per step it resolves, from none when refused to dozens at a turn's end).
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from pathlib import Path

from bench import inprocess, peer, sources
from bench.http import Connection
from bench.orders import API, Game, Load, _cpu_seconds, _profile, _workers
from bench.peers import ROLLS
from bench.report import Figure, Result, fmt
from bench.server import serve
from bench.stores import LABEL, fresh, postgres_missing
from domain.visibility import fully_shown

RATE = 100
GAMES = 200
CONNECTIONS = 32
FLOOR = 1.5  # warlog's p99 at most this many times the peer's
SPY = "--rate 200"  # py-spy: every running thread, on CPU or in a C call (a driver's included)


class OpenLoad(Load):
    """bench/orders.py's client, sending at a fixed rate instead of one order per answer."""

    async def open_run(self, games: int, connections: int, rate: float, warmup: float, duration: float,
                       pid: int, profile: Path | None = None) -> dict:
        conns = [Connection(self.host, self.port) for _ in range(connections)]
        owned: list[Game] = []

        async def set_up(i: int) -> None:
            for _ in range(i, games, connections):
                owned.append(await self.new_game(conns[i]))

        try:
            await asyncio.gather(*(set_up(i) for i in range(connections)))
            free = asyncio.Queue()
            for conn in conns:
                free.put_nowait(conn)
            busy: set[str] = set()
            pending: list[asyncio.Task] = []
            skipped = 0
            workers = _workers(pid)
            start = time.perf_counter()
            self.window = (start + warmup, start + warmup + duration)
            cpu: list[float] = []
            spies: list = []
            spacing, k, at, nxt = 1.0 / rate, 0, start, 0
            while at < self.window[1]:
                if not cpu and at >= self.window[0]:
                    cpu.append(_cpu_seconds(workers))
                    spies = _profile(workers, duration, profile, "open", SPY) if profile else []
                await asyncio.sleep(max(0.0, at - time.perf_counter()))
                game = None
                for _ in range(len(owned)):
                    candidate = owned[nxt]
                    nxt = (nxt + 1) % len(owned)
                    if candidate.id not in busy and (not self.source.needs_state or candidate.view["whose_move"]):
                        game = candidate
                        break
                if game is None:
                    skipped += at >= self.window[0]
                else:
                    busy.add(game.id)
                    pending.append(asyncio.ensure_future(self.send(free, busy, game, at)))
                k += 1
                at = start + k * spacing
            await asyncio.sleep(max(0.0, self.window[1] - time.perf_counter()))
            cpu.append(_cpu_seconds(workers))
            await asyncio.gather(*pending)
            for spy in spies:
                spy.wait(timeout=60)
            return {"skipped": skipped, "server_cpu": cpu[1] - cpu[0]}
        finally:
            for c in conns:
                await c.close()

    async def send(self, free: asyncio.Queue, busy: set[str], game: Game, scheduled: float) -> None:
        conn = await free.get()
        try:
            if self.source.needs_state:
                seat = self.rng.choice(game.view["whose_move"])
                order = next(iter(self.source.orders(game.view["state"], seat, self.rng)))
            else:
                seats = list(game.tokens)
                seat = seats[game.turn % len(seats)]
                game.turn += 1
                order = self.source.random_order(None, seat, self.rng)
            status, _, body = await conn.request(
                "POST", f"{API}/games/{game.id}/orders", order,
                {"Authorization": f"Bearer {game.tokens[seat]}", "Idempotency-Key": uuid.uuid4().hex})
            done = time.perf_counter()
            if self.window[0] <= scheduled and done <= self.window[1]:
                self.latencies.append(done - scheduled)
                self.status[status] = self.status.get(status, 0) + 1
            if self.source.needs_state:
                if status == 201 and body["events"][0]["seq"] == game.view["version"] + 1 \
                        and all(fully_shown(line) for line in body["events"]):
                    game.fold(body["events"])
                else:
                    await self.follow(conn, game)
        finally:
            free.put_nowait(conn)
            busy.discard(game.id)


def warlog_open(kind: str, source: sources.Source, *, rate: float, games: int, connections: int,
                warmup: float, duration: float, server: str = "gunicorn", profile: Path | None = None) -> dict:
    with fresh(kind) as store:
        with serve(store.folder / "server", startup_timeout=60, server=server, WEB_CONCURRENCY="2",
                   **store.env) as url:
            load = OpenLoad(url.host, url.port, source, seed=30)
            got = asyncio.run(load.open_run(games, connections, rate, warmup, duration, url.pid, profile))
    lat = sorted(load.latencies)
    answered = sum(load.status.values())
    return {"p50_ms": statistics.median(lat) * 1000 if lat else None,
            "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else None,
            "moves": answered, "status": dict(sorted(load.status.items())), "skipped": got["skipped"],
            "server_cpu_ms_per_move": got["server_cpu"] / answered * 1000 if answered else None}


def run(kinds: list[str], quick: bool) -> Result:
    result = Result("openloop", "2. Open loop at a busy hour: 100 orders or moves a second")
    warmup, duration = (1.0, 3.0) if quick else (5.0, 30.0)
    games, connections = (40, 8) if quick else (GAMES, CONNECTIONS)
    why_not = peer.missing()
    if why_not:
        result.note(f"{peer.NAME} skipped: {why_not}; warlog measured alone")
    found = {"freeform": ROLLS}
    found.update({s.ruleset: s for s in sources.available(["falklands"], result.notes)})
    rows = []
    by_lines: list[list] = []  # the Falklands orders with no web server, by lines recorded
    for kind in kinds:
        if kind == "postgres" and (why := postgres_missing()):
            result.note(f"PostgreSQL skipped: {why}")
            continue
        theirs = None
        if not why_not:
            with fresh(kind) as store:
                theirs = peer.drive(kind, store.folder / "bgio", "open", matches=games, n=RATE, warmup=warmup,
                                    duration=duration)
            rows.append([f"{peer.NAME}, {peer.STORAGE[kind]}", "roll 2d6", *_cells(theirs), "-", theirs["skipped"]])
            print(f"  {peer.NAME} on {peer.STORAGE[kind]}: {_line(theirs)}", flush=True)
        for name, source in found.items():
            got = warlog_open(kind, source, rate=RATE, games=games, connections=connections, warmup=warmup,
                              duration=duration)
            what = "roll 2d6" if name == "freeform" else "random legal orders"
            rows.append([f"warlog {name}, {LABEL[kind]}", what, *_cells(got), got["status"], got["skipped"]])
            print(f"  warlog {name} on {LABEL[kind]}: {_line(got)}, statuses {got['status']}", flush=True)
            if theirs is not None and got["p99_ms"] is not None:
                ratio = got["p99_ms"] / theirs["p99_ms"]
                result.figures.append(Figure(
                    f"p99 at {RATE}/s, warlog {name} on {LABEL[kind]} ÷ peer", got["p99_ms"], "ms", theirs["p99_ms"],
                    "ms", f"{peer.NAME} on {peer.STORAGE[kind]}", ratio, f"<= {FLOOR}", ratio <= FLOOR))
            elif got["p99_ms"] is not None:
                result.figures.append(Figure(f"p99 at {RATE}/s, warlog {name} on {LABEL[kind]} (no peer)",
                                             got["p99_ms"], "ms"))
        if "falklands" in found:
            alone = inprocess.measure(kind, 300 if quick else 3000, falklands=True)
            rows.append([f"warlog falklands, {LABEL[kind]}: one at a time, no web server", "random legal orders",
                         alone["orders"], fmt(alone["p50_ms"]), fmt(alone["p99_ms"]), "-", "-", "-"])
            by_lines.extend([LABEL[kind], b["lines"], b["orders"], fmt(b["median_ms"])] for b in alone["by_lines"])
            print(f"  warlog falklands on {LABEL[kind]}, no web server: p50 {fmt(alone['p50_ms'])} ms, "
                  f"p99 {fmt(alone['p99_ms'])} ms", flush=True)
            if theirs is not None:
                result.figures.append(Figure(
                    f"p99 of Falklands orders on {LABEL[kind]} with no web server ÷ peer's p99 at {RATE}/s",
                    alone["p99_ms"], "ms", theirs["p99_ms"], "ms", f"{peer.NAME} on {peer.STORAGE[kind]}",
                    alone["p99_ms"] / theirs["p99_ms"]))
    result.tables.append((["server", "orders or moves", "answered in the window", "p50 ms", "p99 ms", "server CPU ms/move",
                           "statuses", "sends skipped (every game waiting)"], rows))
    if by_lines:
        result.tables.append((["store", "lines the Falklands order recorded", "orders", "median ms, no web server"],
                              by_lines))
    result.notes.append(f"{RATE} sends/s at fixed spacing, warm-up {warmup:g} s, window {duration:g} s, "
                        f"{games} games/matches; warlog over {connections} connections")
    return result


def _cells(got: dict) -> list[str]:
    return [str(got["moves"]), fmt(got["p50_ms"]), fmt(got["p99_ms"]), fmt(got["server_cpu_ms_per_move"])]


def _line(got: dict) -> str:
    return (f"{got['moves']} answered, p50 {fmt(got['p50_ms'])} ms, p99 {fmt(got['p99_ms'])} ms, "
            f"server CPU {fmt(got['server_cpu_ms_per_move'])} ms/move")
