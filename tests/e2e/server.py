"""A real warlog server for end-to-end tests: gunicorn with api/gunicorn_conf.py on a free port.

    from tests.e2e.server import live_server, http_json

    def test_something(tmp_path):
        with live_server(tmp_path, WEB_CONCURRENCY="1") as url:
            status, headers, body = http_json("GET", f"{url}/healthz")

``live_server(tmp_path, **env)`` is bench/server.py's ``serve``: it migrates a fresh SQLite store
under ``tmp_path/data`` (``python -m api.cli migrate``), starts ``python -m gunicorn -c
api/gunicorn_conf.py 'api.app:create_app()'`` on 127.0.0.1 and a free port, waits until
``/healthz`` answers and yields the base URL (a ``str`` that also carries ``.log_path``, the
server's combined stdout and stderr, and ``.log()``). Keyword arguments are environment variables
for both commands (a value of ``None`` removes one); pass ``WARLOG_DATABASE_URL`` to run on
PostgreSQL instead. However the block ends, the server's whole process group (arbiter and
workers) gets SIGTERM, then SIGKILL if it has not gone within ``stop_timeout`` seconds.

``unjoined_game`` and ``started_game`` make a game on such a server over the API (the browser tests
and the end-to-end ones alike), ``started_game`` with every seat joined.

Every server is registered with the seed recorder (tests/reliability/seeds.py) and every body
``http_json`` receives is recorded, so the session can check that no response held a seed that
was still unrevealed.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

from bench.server import APP, CONF, ROOT, LiveServer, environment, free_port, serve  # noqa: F401 (for the tests)
from tests.reliability.seeds import WATCH


@contextlib.contextmanager
def store_env(store: str) -> Iterator[dict]:
    """Environment variables for ``live_server`` on a store: none for SQLite (the default, in its
    folder), or a fresh PostgreSQL schema's WARLOG_DATABASE_URL, dropped afterwards."""
    if store == "sqlite":
        yield {}
        return
    from tests.conftest import fresh_schema

    with fresh_schema() as url:
        yield {"WARLOG_DATABASE_URL": url}


@contextlib.contextmanager
def live_server(tmp_path: Path, *, startup_timeout: float = 30.0, stop_timeout: float = 10.0,
                **env: Any) -> Iterator[LiveServer]:
    """bench/server.py's ``serve``, with the server's store watched for unrevealed seeds."""
    started = None
    try:
        with serve(Path(tmp_path), startup_timeout=startup_timeout, stop_timeout=stop_timeout, **env) as url:
            started = url
            WATCH.register(url, environment(Path(tmp_path), url.port, env))
            yield url
    finally:
        if started is not None:
            WATCH.harvest(started)  # the store's seeds, for the end-of-session check (tests/reliability/seeds.py)


def http_json(method: str, url: str, body: Any = None, headers: dict | None = None,
              timeout: float = 10.0) -> tuple[int, dict, Any]:
    """One request: (status, headers, the JSON body or the raw text when it is not JSON).
    Error statuses are returned, not raised."""
    data = None if body is None else json.dumps(body).encode()
    all_headers = {"Accept": "application/json", **(headers or {})}
    if data is not None:
        all_headers.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, hdrs, raw = r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, raw = e.code, dict(e.headers), e.read()
    WATCH.record(url, raw)
    text = raw.decode("utf-8", errors="replace")
    try:
        return status, hdrs, json.loads(text) if text else None
    except ValueError:
        return status, hdrs, text


FREEFORM = {"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}}  # a freeform game of Blue and Red


def unjoined_game(server: str, body: dict = FREEFORM) -> dict:
    """A game made from ``body`` over the API, no seat joined yet: the answer (its ``game_id``,
    ``admin_token`` and ``invites``)."""
    status, _, made = http_json("POST", f"{server}/api/v1/games", body)
    assert status == 201, made
    return made


def started_game(server: str, body: dict) -> tuple[str, str, dict]:
    """A game made from ``body`` and joined by every seat over the API (each seat's handle its name
    in lower case): its id, its admin token and the seats' tokens."""
    made = unjoined_game(server, body)
    tokens = {}
    for seat, code in made["invites"].items():
        status, _, joined = http_json("POST", f"{server}/api/v1/games/{made['game_id']}/join",
                                      {"invite_code": code, "handle": seat.lower()})
        assert status == 201, joined
        tokens[seat] = joined["token"]
    return made["game_id"], made["admin_token"], tokens
