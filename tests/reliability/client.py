"""The HTTP client of the reliability tests: one request per connection, every response recorded
for the seed check (tests/reliability/seeds.py), every secret it hands out noted for the log check.
"""

from __future__ import annotations

import http.client
import json
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tests.reliability.seeds import WATCH

API = "/api/v1"
TIMEOUT = 20.0


@dataclass
class Reply:
    status: int
    headers: dict
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw.decode("utf-8")) if self.raw else None


@dataclass
class Http:
    """Requests to one server. ``secrets`` collects every token, invite code and admin token
    the server returned, for ``assert_no_secret_in_log``."""

    url: str
    secrets: set[str] = field(default_factory=set)
    statuses: list[int] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def connection(self, timeout: float = TIMEOUT) -> http.client.HTTPConnection:
        parts = urlsplit(self.url)
        return http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)

    def send(self, conn: http.client.HTTPConnection, method: str, path: str, body: Any = None, *,
             token: str | None = None, headers: dict | None = None) -> None:
        """Send a request on ``conn`` without reading the answer (see ``read``)."""
        full = path if path.startswith(("/api/", "/healthz")) else API + path
        hdrs = {"Accept": "application/json", **(headers or {})}
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        conn.request(method, full, body=data, headers=hdrs)

    def read(self, conn: http.client.HTTPConnection) -> Reply:
        resp = conn.getresponse()
        reply = Reply(resp.status, dict(resp.headers), resp.read())
        WATCH.record(self.url, reply.raw)
        with self._lock:
            self.statuses.append(reply.status)
            if reply.status < 300 and reply.headers.get("Content-Type", "").startswith("application/json"):
                self._note_secrets(reply.body)
        return reply

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             headers: dict | None = None, timeout: float = TIMEOUT) -> Reply:
        conn = self.connection(timeout)
        try:
            self.send(conn, method, path, body, token=token, headers=headers)
            return self.read(conn)
        finally:
            conn.close()

    def _note_secrets(self, body: Any) -> None:
        if not isinstance(body, dict):
            return
        for key in ("token", "admin_token", "secret"):
            if isinstance(body.get(key), str):
                self.secrets.add(body[key])
        if isinstance(body.get("invites"), dict):
            self.secrets.update(v for v in body["invites"].values() if isinstance(v, str))


class Game:
    """A freeform game made over HTTP, every seat joined."""

    def __init__(self, http: Http, *, public: bool = False, sides=("Blue", "Red"), **options: Any):
        self.http = http
        created = http.call("POST", "/games", {"ruleset": "freeform", "public": public,
                                               "options": {"sides": list(sides), **options}})
        assert created.status == 201, created.raw
        self.id: str = created.body["game_id"]
        self.admin: str = created.body["admin_token"]
        self.invites: dict[str, str] = created.body["invites"]
        self.tokens: dict[str, str] = {}
        for seat, code in self.invites.items():
            joined = http.call("POST", f"/games/{self.id}/join",
                               {"invite_code": code, "handle": seat.lower(), "client_seed": f"seed of {seat}"})
            assert joined.status == 201, joined.raw
            self.tokens[seat] = joined.body["token"]
        self._umpire: str | None = None

    def path(self, suffix: str = "") -> str:
        return f"/games/{self.id}{suffix}"

    @property
    def umpire(self) -> str:
        """An umpire token, got the only way there is: the admin proposes an umpire, every seat
        accepts (recorded in the log), then the admin issues the token."""
        if self._umpire is None:
            proposed = self.http.call("POST", self.path("/umpire"), {"umpire": "the umpire"}, token=self.admin)
            assert proposed.status == 201, proposed.raw
            for token in self.tokens.values():
                answered = self.http.call("POST", self.path("/umpire/answer"), {"accept": True}, token=token)
                assert answered.status == 200, answered.raw
            reply = self.http.call("POST", self.path("/umpire-tokens"), token=self.admin)
            assert reply.status == 201, reply.raw
            self._umpire = reply.body["token"]
        return self._umpire

    def order(self, seat: str, order: dict, key: str | None = None, *, expect: int | None = 201,
              **kwargs: Any) -> Reply:
        reply = self.http.call("POST", self.path("/orders"), order, token=self.tokens[seat],
                               headers={"Idempotency-Key": key or uuid.uuid4().hex}, **kwargs)
        if expect is not None:
            assert reply.status == expect, reply.raw
        return reply

    def export(self) -> list[dict]:
        """The umpire's export: the exact log (its events, without a format-2 game's header line)."""
        reply = self.http.call("GET", self.path("/export"), token=self.umpire)
        assert reply.status == 200, reply.raw
        lines = [json.loads(line) for line in reply.raw.decode().splitlines()]
        return lines[1:] if lines and "warlog_export" in lines[0] else lines

    def integrity(self) -> dict:
        reply = self.http.call("GET", self.path("/integrity"), token=self.umpire)
        assert reply.status == 200, reply.raw
        return reply.body

    def summary(self, token: str | None = None) -> dict:
        reply = self.http.call("GET", self.path(), token=token or self.umpire)
        assert reply.status == 200, reply.raw
        return reply.body


def without_text(line: dict) -> dict:
    """An event of a command result as its export line (results add a readable ``text``)."""
    return {k: v for k, v in line.items() if k != "text"}


def assert_sound_log(game: Game) -> list[dict]:
    """Gapless seqs 1..N, the integrity check passes, and N is the game's version."""
    lines = game.export()
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    report = game.integrity()
    assert report["ok"] is True and report["failures"] == [], report
    assert report["events"] == len(lines) == game.summary()["version"]
    return lines


def assert_no_secret_in_log(http: Http, log: str) -> None:
    assert http.secrets, "no secret was handed out: nothing to look for"
    leaked = sorted(s[:8] + "…" for s in http.secrets if s in log)
    assert leaked == [], f"secrets in the server log: {leaked}"
    assert "Bearer" not in log and "Authorization" not in log
