"""No response of the end-to-end suite holds a seed that was unrevealed when it was sent.

A recorder fed by the HTTP helpers of the end-to-end and reliability tests (``http_json`` and
``live_server`` in tests/e2e/server.py, the e2e modules' own clients, tests/reliability/client.py):

- ``live_server`` registers each server with the store it runs on (``register``) and, when it
  stops, reads that store's seeds and the time each was revealed (``harvest``);
- every response body is ``record``-ed with the time it was received; only the runs of hex (and
  base64) characters long enough to hold a seed are kept;
- at the end of the session (the autouse fixture in tests/conftest.py) ``leaks`` compares the two:
  a seed found in a response received before its ``DiceEpochRevealed`` event was written (the
  sealed dice's, epoch -1: its ``SealedDiceRevealed``; or of an epoch never revealed) is a leak. The response that reveals an epoch (the order ending the
  turn) was received after the event was stamped, so it is allowed to carry the seed.

Seeds are 32 bytes; the log shows a revealed one as 64 lowercase hex digits, and a leak could take
that form, upper case, or base64 (standard or URL-safe), all of which are looked for.
"""

from __future__ import annotations

import base64
import json
import re
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

_HEX_RUN = re.compile(rb"[0-9a-fA-F]{64,}")
_B64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{43,}")
SEEDS_TABLE = "warlog_dice_seeds"
SEALED_EPOCH = -1  # where the sealed dice's seed is kept (domain/game.py SEALED_SEED)


@dataclass(frozen=True)
class Seed:
    store: str
    game_id: str
    epoch: int
    hex: str
    revealed_at: float | None  # seconds since the epoch of the DiceEpochRevealed event, None if never


@dataclass(frozen=True)
class Leak:
    url: str
    received_at: float
    seed: Seed

    def __str__(self) -> str:
        when = ("never revealed" if self.seed.revealed_at is None
                else f"revealed {self.seed.revealed_at - self.received_at:.3f} s after the response")
        return (f"a response of {self.url} holds the seed of dice epoch {self.seed.epoch} of game "
                f"{self.seed.game_id} ({when})")


@dataclass
class _Response:
    store: str | None
    url: str
    received_at: float
    hex_runs: tuple[str, ...]
    b64_runs: tuple[str, ...]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port}"


def store_key(env: Mapping[str, Any]) -> str:
    """Which store a server with this environment runs on: its PostgreSQL URL, or its SQLite file."""
    url = str(env.get("WARLOG_DATABASE_URL") or "").strip()
    if url:
        return url
    return "sqlite:" + str((Path(str(env["WARLOG_DATA_DIR"])) / "warlog.sqlite3").resolve())


def read_seeds(key: str) -> list[Seed]:
    """Every seed the store holds, with the time its epoch was revealed (if it was)."""
    if key.startswith("sqlite:"):
        conn = sqlite3.connect(key[len("sqlite:"):], timeout=30)
        try:
            seeds = conn.execute(f"SELECT game_id, epoch, seed FROM {SEEDS_TABLE}").fetchall()
            reveals = conn.execute("SELECT originator_id, state FROM stored_events WHERE topic LIKE "
                                   "'%DiceEpochRevealed' OR topic LIKE '%SealedDiceRevealed'").fetchall()
        finally:
            conn.close()
    else:
        import psycopg

        from domain.storage import postgres_dsn, postgres_env

        pg = postgres_env(key)
        schema = pg.get("POSTGRES_SCHEMA") or "public"
        with psycopg.connect(postgres_dsn(pg), connect_timeout=10) as conn:
            seeds = conn.execute(f"SELECT game_id, epoch, seed FROM {schema}.{SEEDS_TABLE}").fetchall()
            reveals = conn.execute(f"SELECT originator_id, state FROM {schema}.warlog_events WHERE topic LIKE "
                                   "'%%DiceEpochRevealed' OR topic LIKE '%%SealedDiceRevealed'").fetchall()
    revealed: dict[tuple[str, int], float] = {}
    for originator, state in reveals:
        data = json.loads(bytes(state))
        stamped = datetime.fromisoformat(data["timestamp"]["_data_"]).timestamp()
        epoch = int(data["epoch"]) if "epoch" in data else SEALED_EPOCH  # SealedDiceRevealed: the sealed dice
        revealed[(str(uuid.UUID(str(originator))), epoch)] = stamped
    return [Seed(key, str(uuid.UUID(str(gid))), int(epoch), bytes(seed).hex(),
                 revealed.get((str(uuid.UUID(str(gid))), int(epoch))))
            for gid, epoch, seed in seeds]


def _forms(seed_hex: str) -> tuple[str, set[str]]:
    """The hex and the (unpadded, 43-character) base64 spellings a leak of this seed could take."""
    raw = bytes.fromhex(seed_hex)
    return seed_hex.lower(), {base64.b64encode(raw).decode().rstrip("="),
                              base64.urlsafe_b64encode(raw).decode().rstrip("=")}


@dataclass
class SeedWatch:
    servers: dict[str, str] = field(default_factory=dict)  # origin -> store key (the live ones)
    seeds: dict[str, list[Seed]] = field(default_factory=dict)  # store key -> its seeds, once harvested
    responses: list[_Response] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------------------------- feeding --
    def register(self, url: str, env: Mapping[str, Any]) -> None:
        with self._lock:
            self.servers[_origin(url)] = store_key(env)

    def record(self, url: str, body: bytes | str | None, received_at: float | None = None) -> None:
        """One response body from ``url`` (any URL of the server), received now (or at ``received_at``)."""
        if body is None:
            return
        received_at = time.time() if received_at is None else received_at
        raw = body.encode("utf-8", "replace") if isinstance(body, str) else bytes(body)
        hex_runs = tuple(m.group().decode().lower() for m in _HEX_RUN.finditer(raw))
        b64_runs = tuple(m.group().decode() for m in _B64_RUN.finditer(raw)
                         if not _HEX_RUN.fullmatch(m.group()))  # hex runs are looked at above
        origin = _origin(url)
        with self._lock:
            self.responses.append(_Response(self.servers.get(origin), origin, received_at, hex_runs, b64_runs))

    def harvest(self, url: str) -> None:
        """Read the seeds of the store the server at ``url`` runs on (call before it is removed)."""
        with self._lock:
            key = self.servers.pop(_origin(url), None)
        if key is None:
            return
        try:
            found = read_seeds(key)
        except Exception as exc:  # the check would be vacuous for this store: said at the end
            self.errors.append(f"could not read the seeds of {key}: {exc!r}")
            return
        with self._lock:
            self.seeds[key] = found

    # ------------------------------------------------------------------------------ checking --
    def leaks(self) -> list[Leak]:
        indexes: dict[str, tuple[dict[str, Seed], dict[str, Seed]]] = {}
        for key, seeds in self.seeds.items():
            hexes: dict[str, Seed] = {}
            b64s: dict[str, Seed] = {}
            for seed in seeds:
                hex_form, b64_forms = _forms(seed.hex)
                hexes[hex_form] = seed
                b64s.update(dict.fromkeys(b64_forms, seed))
            indexes[key] = (hexes, b64s)
        found = []
        for response in self.responses:
            index = indexes.get(response.store or "")
            if not index:
                continue
            for seed in _seeds_in(response, *index):
                if seed.revealed_at is None or seed.revealed_at > response.received_at:
                    found.append(Leak(response.url, response.received_at, seed))
        return found

    def checked(self) -> int:
        """How many recorded responses came from a store whose seeds were read."""
        return sum(1 for r in self.responses if r.store in self.seeds)


def _seeds_in(response: _Response, hexes: dict[str, Seed], b64s: dict[str, Seed]) -> list[Seed]:
    hits = []
    for run in response.hex_runs:
        hits += [hexes[run[i:i + 64]] for i in range(len(run) - 63) if run[i:i + 64] in hexes]
    for run in response.b64_runs:
        hits += [b64s[run[i:i + 43]] for i in range(len(run) - 42) if run[i:i + 43] in b64s]
    return hits


WATCH = SeedWatch()  # the session's recorder; tests of the recorder itself make their own
