"""Bounds on what anyone may ask for without a token (no general rate limits yet).

- **Game creation**: at most ``WARLOG_GAMES_PER_ADDRESS`` games (default 20) created from one client
  address within ``WARLOG_GAMES_WINDOW_SECONDS`` (default 3600); beyond, 429 ``too_many_games``
  with ``Retry-After``. Counted in the database, so every web process counts the same creations.
  The address is stored as a keyed hash (never in clear) and forgotten once its window is over.
  Behind a reverse proxy every client has the proxy's address: raise the cap, or set it to 0
  (no cap) and bound creation at the proxy.
- **Cross-game statistics**: at most ``WARLOG_STATISTICS_JOBS`` (default 2) such jobs queued or
  running at once (api/jobs.py), beyond: 503 ``statistics_busy`` with ``Retry-After``.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math
import os
import secrets
import time
from typing import Mapping

from domain.storage import SqlTables


def _setting(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    raw = (environ.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"{name} must be a whole number (0: no limit), not {raw!r}")
    return int(raw)


def games_per_address(environ: Mapping[str, str] | None = None) -> int:
    return _setting("WARLOG_GAMES_PER_ADDRESS", 20, environ)


def games_window(environ: Mapping[str, str] | None = None) -> int:
    return max(1, _setting("WARLOG_GAMES_WINDOW_SECONDS", 3600, environ))


def statistics_jobs(environ: Mapping[str, str] | None = None) -> int:
    return _setting("WARLOG_STATISTICS_JOBS", 2, environ)


class CreationLog(SqlTables):
    """When games were created from which address (a keyed hash of it), for their window only."""

    TABLES = {"warlog_game_creations": "address_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL",
              "warlog_creation_key": "id INTEGER PRIMARY KEY, secret TEXT NOT NULL"}

    def _create(self, c) -> None:
        super()._create(c)
        c.execute(f"CREATE INDEX IF NOT EXISTS warlog_game_creations_by_address "
                  f"ON {self._prefix}warlog_game_creations (address_hash, created_at)")
        # The key of the addresses' hashes: without it, the few billion IPv4 addresses are
        # quickly tried against a stored hash.
        c.execute(self.sql("INSERT INTO {t}warlog_creation_key (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING"),
                  (secrets.token_hex(32),))

    @functools.cached_property
    def _key(self) -> str:
        """The key of the addresses' hashes, read once."""
        return self._run("SELECT secret FROM {t}warlog_creation_key WHERE id = 1", fetch="one")["secret"]

    def _address_hash(self, address: str) -> str:
        return hmac.new(self._key.encode(), address.encode(), hashlib.sha256).hexdigest()

    def wait_before_next(self, address: str, cap: int, window: int, now: float | None = None) -> int:
        """0 when ``address`` may create a game now, else the seconds until it may."""
        if cap <= 0:
            return 0
        now = time.time() if now is None else now
        rows = self._run("SELECT created_at FROM {t}warlog_game_creations WHERE address_hash = ? AND created_at > ? "
                         "ORDER BY created_at DESC", (self._address_hash(address), now - window), fetch="all")
        if len(rows) < cap:
            return 0
        return max(1, math.ceil(rows[cap - 1]["created_at"] + window - now))

    def record(self, address: str, window: int, now: float | None = None) -> None:
        now = time.time() if now is None else now
        self._run("DELETE FROM {t}warlog_game_creations WHERE created_at <= ?", (now - window,))
        self._run("INSERT INTO {t}warlog_game_creations (address_hash, created_at) VALUES (?, ?)",
                  (self._address_hash(address), now))
