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
import json
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



# ---------------------------------------------- a body that never comes, an answer never read ----
# The request head is bounded by ``keepalive`` (above); a body is read, and an answer written, once
# the app runs, which gunicorn does not time. Without a bound of their own, a connection that sent
# its head and then stopped (or took no answer) held its connection of the worker for good: a few
# thousand of them, anonymous, stopped the server. WARLOG_CLIENT_TIMEOUT bounds both.
CLIENT_TIMEOUT = 2  # seconds, for these tests (the default is 30)
STALLED_BODY = (b"POST /api/v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{\"ruleset\"")  # 10 bytes of the 100 promised, then nothing


def stalled(url: str, count: int, head: bytes, rcvbuf: int | None = None) -> list[socket.socket]:
    u = urlsplit(url)
    opened = []
    for _ in range(count):
        s = socket.socket()
        if rcvbuf is not None:  # a reader that takes nothing: the answer fills its window at once
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(5)
        s.connect((u.hostname, u.port))
        s.sendall(head)
        opened.append(s)
    return opened


def read_all(s: socket.socket, within: float) -> bytes:
    """Everything the server sends until it closes the connection, within ``within`` seconds."""
    s.settimeout(within)
    got = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := s.recv(65536):
            got += chunk
    return got


@pytest.mark.slow
def test_a_body_that_stops_coming_is_answered_408_and_its_connection_closed(tmp_path):
    with live_server(tmp_path, WEB_CONCURRENCY="1", WARLOG_CLIENT_TIMEOUT=str(CLIENT_TIMEOUT)) as url:
        s, = stalled(url, 1, STALLED_BODY)
        try:
            started = time.monotonic()
            answer = read_all(s, CLIENT_TIMEOUT + 8)  # a socket.timeout here: the server still waits
            took = time.monotonic() - started
        finally:
            s.close()
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408"), answer[:300]
        assert json.loads(body)["code"] == "request_timeout", body
        assert CLIENT_TIMEOUT - 0.5 <= took <= CLIENT_TIMEOUT + 5, took
        assert b'"ruleset"' not in body  # nothing of what was sent is echoed


def big_public_game(url: str) -> Game:
    """A public game whose export is about 5 MB, more than the kernel buffers of a connection on
    this machine hold (net.ipv4.tcp_wmem's 4 MB): 160 notes of 4,000 four-byte characters."""
    game = Game(url)
    for n in range(160):
        status, body, _ = game.note("Blue" if n % 2 else "Red", "\N{SMILING FACE WITH OPEN MOUTH}" * 4000)
        assert status == 201, body
    return game


@pytest.mark.slow
@pytest.mark.parametrize("how", ["body never sent", "export never read"])
def test_connections_that_stall_after_their_head_do_not_hold_the_worker_for_good(tmp_path, how):
    """One worker of 20 connections; 30 stall after their head, more than it holds. They are let
    go after WARLOG_CLIENT_TIMEOUT, and /healthz answers again (it never did before)."""
    with live_server(tmp_path, WEB_CONCURRENCY="1", WARLOG_CONNECTIONS="20", WARLOG_RATE_LIMITS="off",
                     WARLOG_CLIENT_TIMEOUT=str(CLIENT_TIMEOUT)) as url:
        if how == "body never sent":
            slow = stalled(url, 30, STALLED_BODY)
        else:  # a reader that takes none of an answer larger than the buffers between them
            game = big_public_game(url)
            slow = stalled(url, 30, f"GET /api/v1/games/{game.id}/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                           .encode(), rcvbuf=1024)
        try:
            deadline = time.monotonic() + CLIENT_TIMEOUT + 15
            answered = None
            while answered is None and time.monotonic() < deadline:
                with contextlib.suppress(OSError):
                    answered = http_json("GET", f"{url}/healthz", timeout=2)[0]
            assert answered == 200, f"/healthz did not answer while 30 connections stall ({how})"
        finally:
            for s in slow:
                s.close()


@pytest.mark.slow
@pytest.mark.parametrize("path, kind, first", [
    ("/confirm-email", "application/x-www-form-urlencoded", b"code=wlc_"),  # the page's form
    ("/api/v1/email-confirmations", "application/json", b'{"code": "wlc_'),
])
def test_a_body_that_trickles_in_is_answered_408_at_its_deadline(tmp_path, path, kind, first):
    """A byte a second, each read within WARLOG_CLIENT_TIMEOUT: the page's form (no token needed) was
    read by werkzeug without the body's deadline, so a trickle held its connection of the worker
    as long as the 64 KiB a body may have lasted (a day at a byte a second)."""
    with live_server(tmp_path, WEB_CONCURRENCY="1", WARLOG_CLIENT_TIMEOUT=str(CLIENT_TIMEOUT)) as url:
        s, = stalled(url, 1, f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {kind}\r\n"
                             f"Content-Length: 1000\r\n\r\n".encode() + first)
        started, answer = time.monotonic(), b""
        try:
            s.settimeout(0.05)
            while not answer and time.monotonic() - started < CLIENT_TIMEOUT + 8:
                with contextlib.suppress(TimeoutError):
                    answer = s.recv(65536)
                    break
                with contextlib.suppress(OSError):
                    s.sendall(b"c")
                time.sleep(CLIENT_TIMEOUT / 2)
            took = time.monotonic() - started
        finally:
            s.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
        assert took <= CLIENT_TIMEOUT + 3, took
