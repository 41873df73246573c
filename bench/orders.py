"""4. Orders per second through HTTP, every ruleset (information: no goal).

A real gunicorn (api/gunicorn_conf.py, 2 workers) on a fresh store; 200 started games; 32
kept-alive client connections, each owning its share of the games (so the figure is throughput,
not a measure of same-game conflicts: a 409 is counted and reported, never retried); every order
a random legal order of the game's ruleset (bench/sources.py), mostly dice. The client is one
asyncio process. After a warm-up, orders completed inside a fixed window are counted; p50/p99
are the latencies of those requests; server CPU per order is the workers' CPU time over the
window ÷ orders, and "machine busy" the share of the cores' time spent busy in the window
(server, database, client and kernel together).

``--before REV`` also runs every order source against that commit's server, with this client,
in the same run (the rows *before*). ``--profile DIR`` also records each web worker with py-spy
during the window (collapsed stacks: ``python -m bench.profile_split DIR`` splits them).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench import sources
from bench.http import Connection
from bench.report import Figure, Result, fmt
from bench.procs import children, socket_inodes, tcp_connections
from bench.stores import LABEL, Store, fresh, postgres_missing
from domain.visibility import fully_shown
from projections import folds

GAMES = 200
CONNECTIONS = 32
API = "/api/v1"


class Game:
    def __init__(self, game_id: str, seats: dict[str, str], umpire: str | None):
        self.id = game_id
        self.tokens = seats  # seat -> bearer token
        self.umpire = umpire
        self.view = folds.map_empty()
        self.turn = 0

    def fold(self, lines: list[dict]) -> None:
        """The game's map view after these export lines, as the projector folds them."""
        self.view = folds.fold("map", lines, self.view)


class Load:
    """The client side of one run: games, connections, counters."""

    def __init__(self, host: str, port: int, source: sources.Source, seed: int):
        self.host, self.port, self.source = host, port, source
        self.rng = random.Random(seed)
        self.latencies: list[float] = []
        self.status: dict[int, int] = {}
        self.samples: list[str] = []
        self.window = (float("inf"), float("-inf"))
        self.created = 0
        self.workers: list[int] = []
        self.spread: list[int] = []

    # ---------------------------------------------------------------------------- set-up ----
    async def new_game(self, conn: Connection) -> Game:
        body = self.source.create_body()
        if self.source.needs_state:  # the client follows the game as an umpire, named at creation
            body = {**body, "umpire": "bench"}
        status, _, made = await conn.request("POST", f"{API}/games", body)
        if status != 201:
            raise RuntimeError(f"creating a {self.source.ruleset} game: {status} {made}")
        tokens = {}
        for n, seat in enumerate(made["seats"]):
            status, _, joined = await conn.request("POST", f"{API}/games/{made['game_id']}/join",
                                                   {"invite_code": made["invites"][seat], "handle": f"p{n}",
                                                    "client_seed": f"bench-{n}"})
            if status != 201:
                raise RuntimeError(f"joining {seat}: {status} {joined}")
            tokens[seat] = joined["token"]
        umpire = None
        if self.source.needs_state:
            status, _, body = await conn.request("POST", f"{API}/games/{made['game_id']}/umpire-tokens",
                                                 headers={"Authorization": f"Bearer {made['admin_token']}"})
            if status != 201:
                raise RuntimeError(f"an umpire token: {status} {body}")
            umpire = body["token"]
        game = Game(made["game_id"], tokens, umpire)
        if self.source.needs_state:
            await self.follow(conn, game)
        self.created += 1
        return game

    async def follow(self, conn: Connection, game: Game) -> None:
        """Bring the client's copy of the game's state up to date, as the umpire sees it."""
        while True:
            status, _, body = await conn.request(
                "GET", f"{API}/games/{game.id}/events?after={game.view['version']}&limit=500",
                headers={"Authorization": f"Bearer {game.umpire}"})
            if status != 200:
                raise RuntimeError(f"reading events: {status} {body}")
            game.fold(body["events"])
            if body["next_after"] is None:
                return

    # ------------------------------------------------------------------------------ load ----
    async def drive(self, conn: Connection, games: list[Game], until: float) -> None:
        k = 0
        while time.perf_counter() < until:
            at = k % len(games)
            game = games[at]
            k += 1
            if self.source.needs_state:
                movers = game.view["whose_move"]
                if not movers:  # the game is over: a new one takes its place
                    games[at] = await self.new_game(conn)
                    continue
                seat = self.rng.choice(movers)
                state = game.view["state"]
            else:
                seats = list(game.tokens)
                seat, state = seats[game.turn % len(seats)], None
                game.turn += 1
            for order in self.source.orders(state, seat, self.rng):
                started = time.perf_counter()
                status, _, body = await conn.request(
                    "POST", f"{API}/games/{game.id}/orders", order,
                    {"Authorization": f"Bearer {game.tokens[seat]}", "Idempotency-Key": uuid.uuid4().hex})
                done = time.perf_counter()
                if self.window[0] <= started and done <= self.window[1]:
                    self.latencies.append(done - started)
                    self.status[status] = self.status.get(status, 0) + 1
                    if status != 201 and len(self.samples) < 2:
                        detail = body.get("detail") if isinstance(body, dict) else body
                        self.samples.append(f"{status} {str(detail)[:160]}")
                if status != 422:  # a rule refused it: the source's next candidate, if any
                    break
            if status == 201 and self.source.needs_state:
                lines = body["events"]
                if not all(fully_shown(line) for line in lines) or lines[0]["seq"] != game.view["version"] + 1:
                    await self.follow(conn, game)
                else:
                    game.fold(lines)
            elif status != 201 and self.source.needs_state:
                await self.follow(conn, game)

    async def run(self, games: int, connections: int, warmup: float, duration: float) -> dict:
        conns = [Connection(self.host, self.port) for _ in range(connections)]
        try:
            owned: list[list[Game]] = [[] for _ in conns]

            async def set_up(i: int) -> None:
                for _ in range(i, games, connections):
                    owned[i].append(await self.new_game(conns[i]))

            await asyncio.gather(*(set_up(i) for i in range(connections)))
            self.spread = await balance(conns, self.workers, self.port)
            now = time.perf_counter()
            self.window = (now + warmup, now + warmup + duration)
            cpu = [None, None]

            async def mark() -> None:
                await asyncio.sleep(max(0.0, self.window[0] - time.perf_counter()))
                cpu[0] = time.process_time()
                await asyncio.sleep(max(0.0, self.window[1] - time.perf_counter()))
                cpu[1] = time.process_time()

            await asyncio.gather(mark(), *(self.drive(conns[i], owned[i], self.window[1]) for i in range(connections)
                                           if owned[i]))
            return {"client_cpu": (cpu[1] - cpu[0]) if None not in cpu else None}
        finally:
            for c in conns:
                await c.close()


def _server_sockets(port: int) -> dict[int, int]:
    """{client port: socket inode} of the accepted connections to ``port`` on this machine."""
    return {remote: inode for local, remote, state, inode in tcp_connections()
            if state == "01" and local == port and inode}


async def balance(conns: list[Connection], workers: list[int], port: int, tries: int = 400) -> list[int]:
    """Spread the client's connections evenly over the web workers, as a load balancer in front
    of them would: gunicorn's workers race to accept, and one often takes every connection of
    a burst, leaving the other idle. A connection on the busiest worker is reopened until the
    counts differ by at most one. Returns the connections per worker."""
    counts: list[int] = []
    for _ in range(tries):
        sockets = _server_sockets(port)
        owned = {pid: socket_inodes(pid) for pid in workers}
        where: dict[int, list[Connection]] = {pid: [] for pid in workers}
        for conn in conns:
            inode = sockets.get(conn.local_port or -1)
            for pid, inodes in owned.items():
                if inode in inodes:
                    where[pid].append(conn)
        counts = [len(where[pid]) for pid in workers]
        if sum(counts) < len(conns):  # a reopened connection not accepted yet
            await asyncio.sleep(0.01)
            continue
        if max(counts) - min(counts) <= 1:
            return counts
        busiest = max(workers, key=lambda pid: len(where[pid]))
        conn = where[busiest][0]
        await conn.close()
        await conn.request("GET", "/healthz")
    return counts


def _workers(arbiter: int) -> list[int]:
    return sorted(children(arbiter))


def _machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def _cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def http_orders(store: Store, source: sources.Source, *, games: int, connections: int, warmup: float,
                duration: float, profile: Path | None = None, root: Path | None = None,
                server_env: dict | None = None, server: str = "gunicorn", spy_options: str | None = None) -> dict:
    from bench.server import ROOT, serve

    folder = store.folder / f"server-{source.ruleset}-{'this' if root is None else 'before'}"
    with serve(folder, root=root or ROOT, startup_timeout=60, server=server, WEB_CONCURRENCY="2", **store.env,
               **(server_env or {})) as url:
        load = Load(url.host, url.port, source, seed=8)
        workers = load.workers = _workers(url.pid)
        loop_result: dict[str, Any] = {}

        async def main() -> None:
            task = asyncio.ensure_future(load.run(games, connections, warmup, duration))
            # Server CPU is read at the window's edges, from this same event loop.
            while load.window[0] == float("inf"):
                await asyncio.sleep(0.05)
            await asyncio.sleep(max(0.0, load.window[0] - time.perf_counter()))
            spies = _profile(workers, duration, profile, f"{store.kind}-{source.ruleset}", spy_options) if profile else []
            before = [_cpu_seconds([w]) for w in workers]
            busy_before = _machine_busy()
            await asyncio.sleep(max(0.0, load.window[1] - time.perf_counter()))
            used = [_cpu_seconds([w]) - b for w, b in zip(workers, before)]
            busy_after = _machine_busy()
            loop_result["machine_busy"] = ((busy_after[0] - busy_before[0]) / max(1, busy_after[1] - busy_before[1]))
            loop_result["server_cpu"] = sum(used)
            loop_result["worker_cpu"] = [round(u / duration, 2) for u in used]
            loop_result.update(await task)
            for spy in spies:
                spy.wait(timeout=60)

        asyncio.run(main())
        worker_class = url.worker_class()
    ok = load.status.get(201, 0)
    lat = sorted(load.latencies)
    return {
        "orders_per_s": ok / duration, "ok": ok, "status": dict(sorted(load.status.items())),
        "p50_ms": statistics.median(lat) * 1000 if lat else None,
        "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000 if lat else None,
        "server_cpu_ms_per_order": loop_result["server_cpu"] / ok * 1000 if ok else None,
        "client_cpu_share": loop_result["client_cpu"] / duration if loop_result.get("client_cpu") is not None else None,
        "worker_cpu": loop_result["worker_cpu"], "connections_per_worker": load.spread,
        "machine_busy": loop_result["machine_busy"], "samples": load.samples, "games_created": load.created,
        "worker_class": worker_class,
    }


def _profile(workers: list[int], duration: float, folder: Path, tag: str,
             options: str | None = None) -> list[subprocess.Popen]:
    """py-spy recording each of ``workers`` for ``duration`` into ``folder/TAG-PID.txt`` (collapsed
    stacks); ``options`` default to ``BENCH_PYSPY`` or ``--rate 100 --gil``."""
    beside = Path(sys.executable).parent / "py-spy"
    spy = str(beside) if beside.exists() else shutil.which("py-spy")
    if spy is None:
        print("  note: py-spy is not installed; no profile recorded", flush=True)
        return []
    folder.mkdir(parents=True, exist_ok=True)
    return [subprocess.Popen([spy, "record", "--pid", str(pid), "--duration", str(max(1, int(duration))),
                              *(options or os.environ.get("BENCH_PYSPY", "--rate 100 --gil")).split(), "--format", "raw", "--output", str(folder / f"{tag}-{pid}.txt")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pid in workers]


def run(kinds: list[str], quick: bool, profile: Path | None = None, rulesets: list[str] | None = None,
        before: str | None = None) -> Result:
    result = Result("orders", "4. Orders per second through HTTP, every ruleset")
    games, connections = (20, 8) if quick else (GAMES, CONNECTIONS)
    warmup, duration = (1.0, 2.0) if quick else (5.0, 30.0)
    found = sources.available(rulesets, result.notes)
    rows = []
    for kind in kinds:
        if kind == "postgres" and (why := postgres_missing()):
            result.note(f"PostgreSQL skipped: {why}")
            continue
        with fresh(kind) as store:
            runs = []
            for source in found:
                try:
                    runs.append((source, http_orders(store, source, games=games, connections=connections,
                                                     warmup=warmup, duration=duration, profile=profile)))
                except RuntimeError as exc:  # e.g. a ruleset whose games cannot be set up yet
                    result.note(f"{source.ruleset} on {LABEL[kind]} skipped: {exc}")
            if before is not None and found:
                from bench.server import tree

                # The older code's server for every order source, with this code's client: what
                # the client spends is the same in both rows, so the difference is the server's.
                with tree(before) as old:
                    for source in found:
                        with fresh(kind) as old_store:
                            got = http_orders(old_store, source, games=games, connections=connections, warmup=warmup,
                                              duration=duration, root=old)
                        runs.append((dataclasses.replace(source, ruleset=f"{source.ruleset}, before ({before})"), got))
        for source, got in runs:
            result.figures.append(Figure(f"orders/s, {source.ruleset}, {LABEL[kind]}", got["orders_per_s"], "orders/s"))
            rows.append([source.ruleset, f"{LABEL[kind]}, {got['worker_class']}", fmt(got["orders_per_s"]),
                         fmt(got["p50_ms"]), fmt(got["p99_ms"]), got["status"], fmt(got["server_cpu_ms_per_order"]),
                         fmt(got["client_cpu_share"]), f"{got['machine_busy']:.0%}"])
            for sample in got["samples"]:
                result.note(f"{source.ruleset} on {LABEL[kind]}: a response other than 201: {sample}")
            print(f"  {source.ruleset} on {LABEL[kind]}: {fmt(got['orders_per_s'])} orders/s, p50 "
                  f"{fmt(got['p50_ms'])} ms, p99 {fmt(got['p99_ms'])} ms, statuses {got['status']}, server CPU "
                  f"{fmt(got['server_cpu_ms_per_order'])} ms/order, cores used per worker "
                  f"{got['worker_cpu']}", flush=True)
    result.tables.append((["ruleset", "store", "orders/s", "p50 ms", "p99 ms", "statuses in the window",
                           "server CPU ms/order", "client CPU (cores)", "machine busy"], rows))
    result.notes.append(f"{games} games, {connections} connections, 2 gunicorn workers (api/gunicorn_conf.py), "
                        f"warm-up {warmup:g} s, window {duration:g} s")
    return result
