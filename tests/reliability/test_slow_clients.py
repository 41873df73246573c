"""Slow clients do not stop the server (issue 29, item 5): a live gunicorn with the production
settings (api/gunicorn_conf.py, two workers), on SQLite and on PostgreSQL.

300 connections send part of a request (half of them part of the request line, half a request
line and part of the headers) and then nothing, as a flaky mobile link or a slowloris does, while
30 event streams are open. /healthz and an order must still answer within a few seconds, and the
half-open connections are closed by the server once they have had ``keepalive`` seconds to
finish their headers. Loopback only; every socket has a timeout and is closed at the end.
"""

from __future__ import annotations

import contextlib
import socket
import time
import uuid
from urllib.parse import urlsplit

import pytest

from tests.e2e.server import http_json, live_server, store_env
from tests.e2e.test_stream import Game

HALF_OPEN = 300
STREAMS = 30
ANSWER_WITHIN = 3.0  # seconds, for /healthz and for an order while the slow clients hang on
PARTS = (b"GET /api/v1/rulesets HT",  # part of the request line
         b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow")  # a request line, part of the headers


def half_open(url: str, count: int) -> list[socket.socket]:
    u = urlsplit(url)
    opened = []
    for i in range(count):
        s = socket.create_connection((u.hostname, u.port), timeout=5)
        s.sendall(PARTS[i % 2])
        opened.append(s)
    return opened


def closed_by_server(s: socket.socket) -> bool:
    s.settimeout(0.01)
    try:
        return s.recv(1) == b""
    except (TimeoutError, BlockingIOError):
        return False
    except OSError:  # reset
        return True


def timed(func, *args, **kwargs):
    started = time.monotonic()
    try:
        result = func(*args, **kwargs)
    except TimeoutError:
        pytest.fail(f"no answer within {ANSWER_WITHIN} s while {HALF_OPEN} clients hang on")
    return result, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_300_half_open_connections_and_open_streams_do_not_stop_health_checks_or_orders(store, tmp_path):
    with store_env(store) as env, live_server(tmp_path, WARLOG_STREAM_HEARTBEAT_SECONDS="1", **env) as url:
        game = Game(url)
        streams, slow = [], []
        try:
            streams = [game.stream() for _ in range(STREAMS)]
            assert all(s.status == 200 for s in streams), [s.status for s in streams]
            slow = half_open(url, HALF_OPEN)
            time.sleep(0.5)  # the server has taken them in

            (status, _, body), health = timed(http_json, "GET", f"{url}/healthz", timeout=ANSWER_WITHIN)
            assert status == 200, body
            (status, _, body), order = timed(
                http_json, "POST", f"{url}/api/v1/games/{game.id}/orders",
                {"kind": "note", "text": f"sent while {HALF_OPEN} clients hang on"},
                {**game.seats["Blue"], "Idempotency-Key": uuid.uuid4().hex}, timeout=ANSWER_WITHIN)
            assert status == 201, body
            print(f"{store}: /healthz in {health:.3f} s, an order in {order:.3f} s "
                  f"with {HALF_OPEN} half-open connections and {STREAMS} streams")
            assert health < ANSWER_WITHIN and order < ANSWER_WITHIN

            # Their time to finish the headers is bounded: the server closes them.
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and not all(closed_by_server(s) for s in slow):
                time.sleep(0.5)
            assert all(closed_by_server(s) for s in slow), "half-open connections are closed by the server"
        finally:
            for s in slow:
                s.close()
            for s in streams:
                with contextlib.suppress(Exception):
                    s.close()

