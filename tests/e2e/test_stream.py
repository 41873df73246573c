"""The event stream (api/stream.py) end to end: real gunicorn (api/gunicorn_conf.py) on SQLite
(threaded workers) and on PostgreSQL (gevent workers).

- 50 open streams do not starve orders, and each stream gets every event;
- Last-Event-ID / ?after resume, heartbeats, bad input;
- access: the same decisions as every read (404 / 401 / 200), and per-viewer filtering;
- the per-process stream budget: beyond it a stream gets 503 while other requests are served.

Every wait has a deadline and every socket a timeout; every server is stopped by live_server.
"""

from __future__ import annotations

import http.client
import json
import socket
import statistics
import threading
import time
import uuid
from urllib.parse import urlsplit

import pytest

from tests.e2e.server import http_json, live_server, store_env
from tests.reliability.seeds import WATCH

STREAMS = 50
ORDERS = 20
SOCKET_TIMEOUT = 10.0  # a stream read waits this long at most (the shared server beats every 1 s)


# --------------------------------------------------------------------------------- client ----
class SSE:
    """A minimal EventSource over http.client: one GET, events parsed as they arrive."""

    def __init__(self, url: str, path: str, headers: dict | None = None, timeout: float = SOCKET_TIMEOUT):
        u = urlsplit(url)
        self.url = url
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.sock = self.conn.sock  # http.client drops its reference once the response says "close"
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = dict(self.resp.headers)
        self.events: list[dict] = []
        self.comments: list[str] = []
        self.retry: int | None = None
        self.ended = False

    def body_json(self) -> dict:
        raw = self.resp.read()
        WATCH.record(self.url, raw)
        return json.loads(raw.decode())

    def _block(self) -> dict | None:
        """The fields of the next block (up to a blank line); None at the end of the stream.
        Comments and ``retry`` are recorded, and a block with data is recorded as an event."""
        fields: dict[str, str] = {}
        comment = False
        while True:
            raw = self.resp.readline()
            if not raw:
                self.ended = True
                return None
            line = raw.decode("utf-8").rstrip("\n").rstrip("\r")
            if line == "":
                if "data" in fields:
                    WATCH.record(self.url, fields["data"])
                    self.events.append({"id": int(fields["id"]), "event": fields.get("event", "message"),
                                        "data": json.loads(fields["data"])})
                if fields or comment:
                    return fields
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                comment = True
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "retry":
                self.retry = int(value)
            elif name == "data" and "data" in fields:
                fields["data"] += "\n" + value
            else:
                fields[name] = value

    def next(self) -> dict | None:
        """The next event; None at the end of the stream."""
        while (fields := self._block()) is not None:
            if "data" in fields:
                return self.events[-1]
        return None

    def heartbeat(self, timeout: float) -> bool:
        """Read until a ``: keep-alive`` comment arrives (True), or for ``timeout`` at most."""
        deadline = time.monotonic() + timeout
        seen = len(self.comments)
        while time.monotonic() < deadline:
            if "keep-alive" in self.comments[seen:]:
                return True
            if self._block() is None:
                return False
        return "keep-alive" in self.comments[seen:]

    def until(self, seq: int, timeout: float = 10.0) -> list[dict]:
        """Read until the event with id ``seq`` (or a later one) has arrived; the events read."""
        deadline = time.monotonic() + timeout
        got = []
        while not (self.events and self.events[-1]["id"] >= seq):
            assert time.monotonic() < deadline, f"no event {seq} within {timeout} s (have {self.ids})"
            event = self.next()
            assert event is not None, f"the stream ended before event {seq} (have {self.ids})"
            got.append(event)
        return got

    @property
    def ids(self) -> list[int]:
        return [e["id"] for e in self.events]

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.resp.close()
        self.sock.close()
        self.conn.close()


class Reader(threading.Thread):
    """Reads one stream in the background, noting when each event arrived and when the server
    ended the stream (then it closes the connection, as an EventSource would before reconnecting)."""

    def __init__(self, stream: SSE):
        super().__init__(daemon=True)
        self.stream = stream
        self.arrived: dict[int, float] = {}
        self.ended_at: float | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while (event := self.stream.next()) is not None:
                self.arrived[event["id"]] = time.monotonic()
            self.ended_at = time.monotonic()
            self.stream.close()
        except BaseException as exc:  # a closed socket at the end of the test, or a real failure
            self.error = exc

    @property
    def last(self) -> int:
        return max(self.arrived, default=0)


# ------------------------------------------------------------------------------- helpers -----
def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class Game:
    def __init__(self, url: str, public: bool = True, sides=("Blue", "Red")):
        self.url = url
        status, _, body = http_json("POST", f"{url}/api/v1/games", {
            "ruleset": "freeform", "public": public, "options": {"sides": list(sides)}})
        assert status == 201, body
        self.id = body["game_id"]
        self.admin = bearer(body["admin_token"])
        self.seats: dict[str, dict] = {}
        self.version = body["version"]
        for seat, code in body["invites"].items():
            status, _, joined = http_json("POST", f"{url}/api/v1/games/{self.id}/join", {
                "invite_code": code, "handle": seat.lower(), "client_seed": f"cs-{seat}"})
            assert status == 201, joined
            self.seats[seat] = bearer(joined["token"])
            self.version = joined["version"]

    @property
    def path(self) -> str:
        return f"/api/v1/games/{self.id}/events/stream"

    def note(self, seat: str, text: str, **fields) -> tuple[int, dict, float]:
        """Post a note order: (status, body, seconds it took)."""
        started = time.monotonic()
        status, _, body = http_json("POST", f"{self.url}/api/v1/games/{self.id}/orders",
                                    {"kind": "note", "text": text, **fields},
                                    {**self.seats[seat], "Idempotency-Key": uuid.uuid4().hex})
        took = time.monotonic() - started
        if status == 201:
            self.version = body["version"]
        return status, body, took

    def stream(self, headers: dict | None = None, query: str = "") -> SSE:
        return SSE(self.url, self.path + query, headers)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """One server per store for the tests below: the production defaults (2 workers: 64 threads
    each on SQLite, gevent on PostgreSQL), a heartbeat every second so idle reads never wait long."""
    with store_env(request.param) as env, \
            live_server(tmp_path_factory.mktemp("stream"), WARLOG_STREAM_HEARTBEAT_SECONDS="1", **env) as url:
        yield url


# --------------------------------------------------------------------------------- tests -----
def test_fifty_open_streams_do_not_starve_orders_and_each_gets_every_event(server):
    game = Game(server)
    before = game.version
    viewers = [game.seats["Blue"], game.seats["Red"], {}]  # seats and spectators
    streams, readers = [], []
    try:
        for i in range(STREAMS):
            s = game.stream(viewers[i % len(viewers)])
            assert s.status == 200, s.body_json()
            streams.append(s)
        readers = [Reader(s) for s in streams]
        for r in readers:
            r.start()
        deadline = time.monotonic() + 20
        while any(r.last < before for r in readers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(r.last >= before for r in readers), "every stream gets the existing events"

        health = []
        for _ in range(5):
            started = time.monotonic()
            status, _, _ = http_json("GET", f"{server}/healthz")
            health.append(time.monotonic() - started)
            assert status == 200

        latencies, accepted_at = [], {}
        for i in range(ORDERS):
            status, body, took = game.note(("Blue", "Red")[i % 2], f"note {i} with 50 streams open")
            assert status == 201, body
            latencies.append(took)
            accepted_at[body["version"]] = time.monotonic()
        assert max(latencies) < 3.0, latencies
        assert p95(latencies) < 1.0, latencies

        final = game.version
        deadline = time.monotonic() + 15
        while any(r.last < final for r in readers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [r.error for r in readers if r.error] == []
        for r in readers:
            assert r.stream.ids == list(range(1, final + 1)), "every event once, in order"
        delivery = [r.arrived[seq] - t for r in readers for seq, t in accepted_at.items()]
        print(f"\n{STREAMS} streams open: {ORDERS} orders 201 in p50 {statistics.median(latencies) * 1000:.0f} ms, "
              f"p95 {p95(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms; "
              f"/healthz max {max(health) * 1000:.0f} ms; event reached a stream after its 201 in "
              f"p50 {statistics.median(delivery) * 1000:.0f} ms, max {max(delivery) * 1000:.0f} ms")
    finally:
        for s in streams:
            s.close()
        for r in readers:
            r.join(timeout=5)


def test_last_event_id_resumes_after_the_given_event(server):
    game = Game(server)
    for i in range(3):
        assert game.note("Blue", f"note {i}")[0] == 201
    last, k = game.version, game.version - 2

    resumed = game.stream({"Last-Event-ID": str(k)})
    try:
        assert resumed.status == 200
        assert resumed.headers["Content-Type"].startswith("text/event-stream")
        assert resumed.headers["Cache-Control"] == "no-cache"
        resumed.until(last)
        assert resumed.ids == list(range(k + 1, last + 1))
        assert resumed.retry == 2000
        # Nothing new: a heartbeat comment keeps the connection (every second on this server).
        assert resumed.heartbeat(timeout=5)
    finally:
        resumed.close()

    by_query = game.stream(query=f"?after={k}")
    header_wins = game.stream({"Last-Event-ID": str(last - 1)}, query="?after=0")
    only_new = game.stream(query="?after=latest")
    try:
        assert [e["id"] for e in by_query.until(last)] == list(range(k + 1, last + 1))
        assert [e["id"] for e in header_wins.until(last)] == [last]
        status, body, _ = game.note("Red", "after the streams opened")
        assert status == 201
        assert [e["id"] for e in only_new.until(game.version)] == [game.version]
        sent = body["events"][0]
        assert only_new.events[0]["event"] == "OrderAccepted"
        assert only_new.events[0]["data"] == sent  # the line as the order's answer showed it, text included
        assert sent["text"] == "Red orders note: after the streams opened"
    finally:
        for s in (by_query, header_wins, only_new):
            s.close()

    for bad in ({"Last-Event-ID": "twelve"}, {"Last-Event-ID": "-1"}):
        s = game.stream(bad)
        try:
            assert s.status == 400
            assert s.body_json()["code"] == "bad_request"
        finally:
            s.close()
    s = game.stream(query="?after=soon")
    try:
        assert s.status == 400
    finally:
        s.close()


def test_a_stream_is_read_like_any_other_read(server):
    private = Game(server, public=False)
    public = Game(server, public=True)

    def opened(game: Game, headers: dict) -> tuple[int, dict, SSE]:
        s = game.stream(headers)
        return s.status, (s.body_json() if s.status != 200 else {}), s

    cases = [
        (private, {}, 404, "game_not_found"),  # a spectator of a private game: as if it did not exist
        (private, public.seats["Blue"], 404, "game_not_found"),  # another game's token: the same
        (private, {"Authorization": "Bearer wls_not-a-token"}, 401, "unauthorized"),
        (private, {"Authorization": "Basic Zm9vOmJhcg=="}, 401, "unauthorized"),
        (public, {"Authorization": "Bearer wls_not-a-token"}, 401, "unauthorized"),
        (private, private.seats["Red"], 200, None),
        (private, private.admin, 200, None),
        (public, {}, 200, None),
    ]
    for game, headers, want, code in cases:
        status, body, s = opened(game, headers)
        try:
            assert status == want, (headers, body)
            if code:
                assert body["code"] == code
                if want == 401:
                    assert s.headers["WWW-Authenticate"].startswith("Bearer")
            else:
                s.until(game.version)
                assert s.ids == list(range(1, game.version + 1))
                assert all(e["data"]["seq"] == e["id"] and e["data"]["type"] == e["event"] and e["data"]["text"]
                           for e in s.events)
        finally:
            s.close()

    s = SSE(server, "/api/v1/games/not-a-game/events/stream?after=5")
    try:
        assert s.status == 404
    finally:
        s.close()

    # Nothing secret in the access log: no token, no query string.
    server.wait_for_log(f'"GET {private.path} HTTP/1.1" 401')
    log = server.wait_for_log('"GET /api/v1/games/not-a-game/events/stream HTTP/1.1" 404')  # no ?after=5
    token = private.seats["Red"]["Authorization"].split()[1]
    assert token not in log and "not-a-token" not in log and "Zm9vOmJhcg" not in log
    assert "after=" not in log


def test_a_private_note_reaches_only_its_author_and_umpires_in_the_clear(server):
    """FF 7 through the real server: each viewer's stream is filtered like every other read."""
    game = Game(server, public=True)
    base = f"{server}/api/v1/games/{game.id}"
    # The seats agree to an umpire (the admin proposes, every seat accepts); then its token.
    assert http_json("POST", f"{base}/umpire", {"umpire": "Ann"}, headers=game.admin)[0] == 201
    for seat in game.seats.values():
        assert http_json("POST", f"{base}/umpire/answer", {"accept": True}, headers=seat)[0] == 200
    status, _, ump = http_json("POST", f"{base}/umpire-tokens", headers=game.admin)
    assert status == 201
    status, body, _ = game.note("Blue", "flank march through the woods", private=True)
    assert status == 201, body
    seq = body["version"]
    viewers = {"Blue": game.seats["Blue"], "Red": game.seats["Red"], "spectator": {},
               "umpire": bearer(ump["token"]), "admin": game.admin}
    seen = {}
    for name, headers in viewers.items():
        s = game.stream(headers)
        try:
            assert s.status == 200
            s.until(seq)
            seen[name] = s.events[-1]
        finally:
            s.close()
    for name in ("Blue", "umpire"):
        assert seen[name]["data"]["data"]["order"]["text"] == "flank march through the woods"
        assert "redacted" not in seen[name]["data"]
    for name in ("Red", "spectator", "admin"):
        line = seen[name]["data"]
        # Its order, digest and salt are commitments (docs/dice.md, "Concealed fields"); the hash stays.
        assert "redacted" not in line and line["data"]["concealed"] == {"order": None, "digest": None, "salt": None}
        assert line["hash"] == seen["umpire"]["data"]["hash"]
        assert "flank" not in json.dumps(line)
        assert line["text"] == "Blue gives an order (hidden)"


def test_hidden_information_is_filtered_per_viewer(sqlite_config, monkeypatch):
    """In process (the hooks are patched): an event a viewer may not know of has every field
    concealed, a hidden field is a commitment, per viewer; every line keeps its hash."""
    from api.app import create_app, migrate
    from domain.rulesets.freeform.rules import Freeform
    from domain.service import Warlog
    from tests.api.conftest import make_game, umpire

    def is_secret(event_type, data):
        return event_type == "OrderAccepted" and data["order"].get("text", "").startswith("secret:")

    def concealable(self, event_type, data):
        if is_secret(event_type, data):
            return ("order_id", "seat", "order", "digest", "salt")
        return ("handle",) if event_type == "SeatJoined" else ()

    def hidden_fields(self, event_type, data, viewer):
        if is_secret(event_type, data) and viewer != data["seat"]:
            return set(concealable(self, event_type, data))
        return {"handle"} if event_type == "SeatJoined" and viewer is None else set()

    monkeypatch.setattr(Freeform, "concealable", concealable)
    monkeypatch.setattr(Freeform, "hidden_fields", hidden_fields)
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "0.3")  # each stream ends by itself
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    try:
        client = create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client()
        game = make_game(client, public=True)
        umpire_headers = umpire(client, game)  # the seats agree to one first: the notes stay the last events
        secret = game.order(client, "Blue", {"kind": "note", "text": "secret: flank march"}, "k1").json["version"]
        plain = game.order(client, "Red", {"kind": "note", "text": "we hold"}, "k2").json["version"]

        def events(headers: dict) -> dict[int, dict]:
            r = client.get(f"/api/v1/games/{game.game_id}/events/stream", headers=headers)
            assert r.status_code == 200 and r.mimetype == "text/event-stream"
            found = {}
            for block in r.get_data(as_text=True).split("\n\n"):
                fields = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
                if "data" in fields:
                    found[int(fields["id"])] = json.loads(fields["data"])
            return found

        blue, red = events(game.seats["Blue"]), events(game.seats["Red"])
        spectator, ump = events({}), events(umpire_headers)
        assert blue[secret]["data"]["order"]["text"] == "secret: flank march"
        for seen in (red, spectator):
            assert seen[secret]["type"] == "OrderAccepted" and "flank" not in json.dumps(seen)
            assert not any(seen[secret]["data"]["concealed"].values()) and seen[secret]["text"] == "A seat gives an order (hidden)"
            assert plain in seen and [e["hash"] for e in seen.values()] == [e["hash"] for e in ump.values()]
        assert set(ump) == set(range(1, plain + 1)) and not any(e.get("redacted") for e in ump.values())
        joined = [e for e in spectator.values() if e["type"] == "SeatJoined"]
        assert joined and all(e["data"]["concealed"] == {"handle": None} for e in joined)
        assert all(e["text"] == f"A player joined as {e['data']['seat']}" for e in joined)
        assert not any(e.get("redacted") for e in red.values())
    finally:
        service.close()


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_streams_beyond_the_budget_get_503_while_other_requests_are_served(tmp_path, store):
    max_life = 5.0
    with store_env(store) as env, live_server(
            tmp_path, WEB_CONCURRENCY="1", WARLOG_CONNECTIONS="4", WARLOG_STREAM_RESERVE="2",
            WARLOG_STREAM_MAX_SECONDS=str(max_life), **env) as url:  # heartbeat: 15 s, none here
        game = Game(url)
        opened_at = time.monotonic()
        first, second = game.stream(), game.stream()
        streams = [first, second]
        try:
            assert (first.status, second.status) == (200, 200)
            first.until(game.version)
            second.until(game.version)

            third = game.stream()
            streams.append(third)
            assert third.status == 503
            assert third.headers["Content-Type"].startswith("application/problem+json")
            assert int(third.headers["Retry-After"]) > 0
            assert third.body_json()["code"] == "stream_capacity"

            started = time.monotonic()
            assert http_json("GET", f"{url}/healthz")[0] == 200
            status, body, took = game.note("Blue", "two streams hold two of the four threads")
            assert status == 201, body
            assert time.monotonic() - started < 2.0
            first.until(game.version, timeout=3)
            second.until(game.version, timeout=3)

            # A client that goes away gives its slot back (seen within a poll, not at the next write).
            first.close()
            deadline = time.monotonic() + 3
            while True:
                again = game.stream()
                streams.append(again)
                if again.status == 200 or time.monotonic() > deadline:
                    break
                again.body_json()
                time.sleep(0.2)
            assert again.status == 200

            # Each stream ends cleanly (a complete chunked body) after its life, minus up to 10 %.
            while second.next() is not None:
                pass
            lived = time.monotonic() - opened_at
            assert second.ended and 0.9 * max_life - 0.5 <= lived <= max_life + 2.0, lived

            holdover = game.stream()  # its slot is second's; it lives until the server stops
            streams.append(holdover)
            assert holdover.status == 200
            holdover.until(game.version)
            watcher = Reader(holdover)
            watcher.start()
        except BaseException:
            for s in streams:
                s.close()
            raise
        for s in streams[:-1]:
            s.close()
        stop_started = time.monotonic()
    # A stopping worker ends its open streams within a poll interval, cleanly, instead of keeping
    # the server up until they end by themselves (here 4.5 s on) or graceful_timeout runs out.
    stopped_in = time.monotonic() - stop_started
    watcher.join(timeout=5)
    holdover.close()
    assert watcher.error is None and watcher.ended_at is not None, watcher.error
    assert watcher.ended_at - stop_started < 2.0, watcher.ended_at - stop_started
    assert stopped_in < 10.0, stopped_in
