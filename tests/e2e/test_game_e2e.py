"""Whole games end to end: one real gunicorn server (api/gunicorn_conf.py, 2 workers, SQLite) for
the module, played with the ``warlog`` command as a real subprocess (one client config file per
player) and with raw HTTP side by side.

1. a short freeform game from ``new`` to ``end``, ``export`` and offline ``verify`` through the CLI;
2. an umpire, once every seat has agreed to it, reads everything (the private note too) and can
   change nothing;
3. a spectator reads public games without their hidden information, and private games not at all;
4. every client-caused problem code over real HTTP, in its documented shape; no 5xx anywhere;
5. a seat cannot act for the other seat nor read its hidden information;
6. the server's log holds no token, invite code or admin token that the tests used.

Every subprocess, socket and wait has a deadline; live_server stops the server however it ends.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import ROOT, LiveServer, live_server
from tests.reliability.seeds import WATCH

API = "/api/v1"
CLI_TIMEOUT = 30.0  # seconds per warlog command
SOCKET_TIMEOUT = 10.0  # seconds per socket read (the server sends a heartbeat every second)
STREAM_DEADLINE = 10.0  # seconds to read a stream up to a given event

# The problems table as docs/api.md documents it: code -> status.
DOCUMENTED = {code: int(status) for code, status in re.findall(
    r"^\| `(\w+)` \| (\d{3}) \|", (ROOT / "docs" / "api.md").read_text(encoding="utf-8"), re.M)}
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}

# Every read of one game, as (name, path under /api/v1/games/{id}); the stream is read apart.
READS = [("summary", ""), ("state", "/state"), ("vp", "/vp"), ("history", "/history"), ("dice", "/dice"),
         ("events", "/events"), ("export", "/export"), ("take-backs", "/take-backs"),
         ("integrity", "/integrity")]


# ------------------------------------------------------------------------------- clients -----
@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    raw: bytes

    @property
    def body(self) -> Any:
        return json.loads(self.raw.decode("utf-8")) if self.raw else None

    @property
    def content_type(self) -> str:
        return self.headers.get_content_type()


@dataclass
class Server:
    """The module's server, with every secret the tests used and every status it answered."""

    url: LiveServer
    tmp: Path
    secrets: set[str] = field(default_factory=set)  # tokens, invite codes, admin tokens
    hidden: set[str] = field(default_factory=set)  # texts of private notes
    seen: list[tuple[str, str, int]] = field(default_factory=list)  # (method, path, status)

    @property
    def host(self) -> str:
        return self.url.host

    @property
    def port(self) -> int:
        return self.url.port

    # ---------------------------------------------------------------------------- HTTP --
    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             headers: dict | None = None, data: bytes | None = None,
             content_type: str = "application/json") -> Reply:
        """One request to ``/api/v1`` + ``path`` (``path`` itself when it is a whole path such as
        ``/api/v1/...``); the status is recorded."""
        full = path if path.startswith(("/api/", "/healthz")) else API + path
        hdrs = {"Accept": "application/json, application/problem+json", **(headers or {})}
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        if data is None and body is not None:
            data = json.dumps(body).encode("utf-8")
        if data is not None:
            hdrs.setdefault("Content-Type", content_type)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=SOCKET_TIMEOUT)
        try:
            conn.request(method, full, body=data, headers=hdrs)
            resp = conn.getresponse()
            reply = Reply(resp.status, resp.headers, resp.read())
        finally:
            conn.close()
        self.seen.append((method, full, reply.status))
        WATCH.record(self.url, reply.raw)
        return reply

    def stream(self, game_id: str, *, token: str | None = None, until: int,
               deadline: float = STREAM_DEADLINE) -> tuple[Reply, list[dict]]:
        """Open the game's event stream and read it up to event ``until``: the reply (its raw
        bytes are everything read) and the events parsed from it."""
        path = f"{API}/games/{game_id}/events/stream"
        hdrs = {"Accept": "text/event-stream"}
        if token is not None:
            hdrs["Authorization"] = f"Bearer {token}"
        conn = http.client.HTTPConnection(self.host, self.port, timeout=SOCKET_TIMEOUT)
        events: list[dict] = []
        try:
            conn.request("GET", path, headers=hdrs)
            resp = conn.getresponse()
            self.seen.append(("GET", path, resp.status))
            if resp.status != 200:
                return Reply(resp.status, resp.headers, resp.read()), events
            raw = bytearray()
            fields: dict[str, str] = {}
            ends = time.monotonic() + deadline
            while not (events and events[-1]["id"] >= until):
                assert time.monotonic() < ends, f"no event {until} within {deadline} s: {bytes(raw)[-2000:]!r}"
                line = resp.readline()
                assert line, f"the stream ended before event {until}"
                raw += line
                text = line.decode("utf-8").rstrip("\r\n")
                if text == "":
                    if "data" in fields:
                        events.append({"id": int(fields["id"]), "event": fields.get("event"),
                                       "data": json.loads(fields["data"])})
                    fields = {}
                elif not text.startswith(":"):
                    name, _, value = text.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    fields[name] = f"{fields[name]}\n{value}" if name == "data" and "data" in fields else value
            resp.close()
            WATCH.record(self.url, bytes(raw))
            return Reply(200, resp.headers, bytes(raw)), events
        finally:
            conn.close()

    # ----------------------------------------------------------------------------- CLI --
    def cli(self, config: str | None, *args: str, token: str | None = None, expect: int = 0,
            server: bool = True) -> subprocess.CompletedProcess:
        """``python -m api.cli ARGS`` as player ``config`` (its own client config file)."""
        env = dict(os.environ)
        for key in ("WARLOG_TOKEN", "WARLOG_SERVER", "WARLOG_DATABASE_URL"):
            env.pop(key, None)
        env["WARLOG_DATA_DIR"] = str(self.tmp / "cli-data")  # never the server's store
        env["WARLOG_CLIENT_CONFIG"] = str(self.config_path(config or "nobody"))
        if server:
            env["WARLOG_SERVER"] = self.url
        if token is not None:
            env["WARLOG_TOKEN"] = token
        done = subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=CLI_TIMEOUT)
        assert done.returncode == expect, (f"warlog {' '.join(args)} exited {done.returncode}, not {expect}:\n"
                                           f"{done.stdout}\n{done.stderr}")
        return done

    def config_path(self, name: str) -> Path:
        return self.tmp / "clients" / f"{name}.json"

    def config(self, name: str) -> dict:
        return json.loads(self.config_path(name).read_text(encoding="utf-8"))


class Game:
    """A game made through raw HTTP, every seat joined; its tokens are noted as secrets."""

    def __init__(self, srv: Server, *, public: bool = False, sides=("Blue", "Red"), keys: dict | None = None,
                 **options: Any):
        """``keys``: {seat: public key} the seat registers when it joins (the others none)."""
        self.srv = srv
        created = srv.call("POST", "/games", {"ruleset": "freeform", "public": public,
                                              "options": {"sides": list(sides), **options}})
        assert created.status == 201, created.raw
        body = created.body
        self.id: str = body["game_id"]
        self.admin: str = body["admin_token"]
        srv.secrets.update([self.admin, *body["invites"].values()])
        self.invites: dict[str, str] = body["invites"]
        self.tokens: dict[str, str] = {}
        for seat, code in body["invites"].items():
            joined = srv.call("POST", f"/games/{self.id}/join",
                              {"invite_code": code, "handle": seat.lower(), "client_seed": f"seed of {seat}",
                               **({"public_key": keys[seat]} if seat in (keys or {}) else {})})
            assert joined.status == 201, joined.raw
            self.tokens[seat] = joined.body["token"]
            srv.secrets.add(joined.body["token"])

    def path(self, suffix: str = "") -> str:
        return f"/games/{self.id}{suffix}"

    def order(self, seat: str, order: dict, key: str | None = None, *, expect: int = 201) -> dict:
        reply = self.srv.call("POST", self.path("/orders"), order, token=self.tokens[seat],
                              headers={"Idempotency-Key": key or uuid.uuid4().hex})
        assert reply.status == expect, reply.raw
        return reply.body

    def umpire(self) -> str:
        """The seats agree to an umpire (the admin proposes, every seat accepts), then the admin
        gets its token: the only way there is."""
        proposed = self.srv.call("POST", self.path("/umpire"), {"umpire": "Ann the umpire"}, token=self.admin)
        assert proposed.status == 201, proposed.raw
        for token in self.tokens.values():
            answered = self.srv.call("POST", self.path("/umpire/answer"), {"accept": True}, token=token)
            assert answered.status == 200, answered.raw
        reply = self.srv.call("POST", self.path("/umpire-tokens"), token=self.admin)
        assert reply.status == 201, reply.raw
        self.srv.secrets.add(reply.body["token"])
        return reply.body["token"]

    def summary(self, token: str | None = None) -> dict:
        reply = self.srv.call("GET", self.path(), token=token)
        assert reply.status == 200, reply.raw
        return reply.body

    def events(self, token: str | None = None, limit: int = 100) -> list[dict]:
        """Every event the token may see, page by page."""
        lines, after = [], 0
        while after is not None:
            reply = self.srv.call("GET", self.path(f"/events?after={after}&limit={limit}"), token=token)
            assert reply.status == 200, reply.raw
            lines += reply.body["events"]
            after = reply.body["next_after"]
        return lines

    def private_note(self, seat: str) -> tuple[str, int]:
        """A private note (FF 7) with a text found nowhere else: (text, its seq)."""
        text = f"secret-{uuid.uuid4().hex[:16]}: flank march through the woods"
        self.srv.hidden.add(text)
        result = self.order(seat, {"kind": "note", "text": text, "private": True})
        return text, result["version"]


def marker(text: str) -> bytes:
    """The part of a private note's text that nothing else contains."""
    return text.split(":")[0].encode()


def assert_problem(reply: Reply, code: str, *, rule: bool = False) -> dict:
    """A problem answer in the documented shape (docs/api.md, "Problems")."""
    assert code in DOCUMENTED, f"{code} is not in the problems table of docs/api.md"
    assert reply.status == DOCUMENTED[code], (code, reply.status, reply.raw)
    assert reply.content_type == "application/problem+json", (code, reply.headers.get("Content-Type"))
    body = reply.body
    assert PROBLEM_KEYS <= set(body), (code, body)
    assert body["code"] == code and body["status"] == reply.status, body
    assert body["type"] == f"/api/docs#problem-{code}", body
    assert isinstance(body["title"], str) and body["title"] and isinstance(body["detail"], str) and body["detail"]
    if rule:
        assert isinstance(body.get("rule"), str) and body["rule"], body
    return body


# ------------------------------------------------------------------------------- fixture -----
@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    """One server for the whole module: the production settings (2 gevent workers), a
    heartbeat every second so that no stream read waits long."""
    tmp = tmp_path_factory.mktemp("game_e2e")
    with live_server(tmp / "server", WEB_CONCURRENCY="2", WARLOG_STREAM_HEARTBEAT_SECONDS="1") as url:
        yield Server(url, tmp)


# --------------------------------------------------------------------------------- tests -----
def test_a_short_freeform_game_from_creation_to_end_through_the_cli_and_raw_http(srv):
    # Creation: the creator's config file gets the invite codes and the admin token.
    out = srv.cli("creator", "new", "freeform", "--option", "sides=Blue,Red", "--option", "phases=Move,Fight",
                  "--option", "last_turn=2").stdout
    gid = re.search(r"^game ([0-9a-f-]{36}) \(freeform, private\)$", out, re.M).group(1)
    creator = srv.config("creator")["games"][gid]
    admin, invites = creator["admin_token"], creator["invites"]
    srv.secrets.update([admin, *invites.values()])
    assert set(invites) == {"Blue", "Red"}
    assert f"invite for Blue: {invites['Blue']}" in out and f"admin token: {admin}" in out
    assert out.index("admin token:") < out.index("invite for Blue:")  # as the API's answer has them
    assert "seats: Blue, Red" in out and re.search(r"^version \d+, chain head [0-9a-f]{64}$", out, re.M), out
    assert stat.S_IMODE(srv.config_path("creator").stat().st_mode) == 0o600

    # Each player joins from his own machine (his own config file); the game then starts.
    out = srv.cli("blue", "join", gid, invites["Blue"], "--handle", "alice",
                  "--client-seed", "alice's entropy").stdout
    assert f"joined game {gid} as Blue (alice)" in out
    # Blue's CLI registers a signing key (its orders are signed); Red, who also orders over raw
    # HTTP with its token alone below, joins without one.
    out = srv.cli("red", "join", gid, invites["Red"], "--handle", "bob", "--no-key").stdout
    assert f"joined game {gid} as Red (bob)" in out
    blue, red = srv.config("blue")["games"][gid]["token"], srv.config("red")["games"][gid]["token"]
    srv.secrets.update([blue, red])
    assert blue.startswith("wls_") and red.startswith("wls_") and blue != red
    assert stat.S_IMODE(srv.config_path("red").stat().st_mode) == 0o600
    summary = srv.call("GET", f"/games/{gid}", token=red).body
    assert summary["status"] == "active" and summary["public"] is False
    assert [(s["seat"], s["handle"]) for s in summary["seats"]] == [("Blue", "alice"), ("Red", "bob")]

    out = srv.cli("blue", "legal", gid[:8]).stdout  # the first characters of the id will do
    for kind in ("note (FF 2)", "roll (FF 3)", "vp (FF 4)", "advance (FF 2)", "end (FF 5)"):
        assert kind in out, out

    # Turn 1, Move phase: dice with a target and modifiers, a d66, a VP change, a private note.
    out = srv.cli("blue", "order", gid, "roll", "2d6", "--purpose", "3 Bde fires at the bridge",
                  "--target", ">=8", "--modifier", "+1 elite", "--modifier", "-2 in cover").stdout
    fire = re.search(r"#(\d+) Blue rolled 2d6 for 3 Bde fires at the bridge: (\d), (\d) — (-?\d+) "
                     r"\(\+1 elite -2 in cover\) >= 8: (success|failure)", out)
    assert fire, out
    a, b, total = int(fire.group(2)), int(fire.group(3)), int(fire.group(4))
    assert total == a + b - 1 and fire.group(5) == ("success" if total >= 8 else "failure")
    out = srv.cli("red", "order", gid, "roll", "d66", "--purpose", "weather table", "--target", ">=35").stdout
    weather = re.search(r"#(\d+) Red rolled (?:2d6|d66) for weather table: (\d), (\d) — (\d+) >= 35: "
                        r"(success|failure)", out)
    assert weather, out
    # d66: tens, then units. (Recorded and narrated as "2d6" for now: DiceRolled does not keep the expression.)
    assert int(weather.group(4)) == 10 * int(weather.group(2)) + int(weather.group(3))
    out = srv.cli("blue", "order", gid, "vp", "Blue", "+2", "--reason", "took the town").stdout
    assert "VP +2 Blue for took the town — Blue now 2 (FF 4)" in out
    secret = f"secret-{uuid.uuid4().hex[:16]}: Blue's reserve waits behind the hill"
    srv.hidden.add(secret)
    out = srv.cli("blue", "order", gid, "note", secret, "--set", "private=true").stdout
    assert f"Blue orders note: {secret}" in out  # its author sees it

    # Red orders over raw HTTP with its token; the same Idempotency-Key again is a replay.
    order = {"kind": "note", "text": "Red digs in at the ford"}
    first = srv.call("POST", f"/games/{gid}/orders", order, token=red, headers={"Idempotency-Key": "red-0001"})
    assert first.status == 201, first.raw
    assert first.headers.get("Idempotent-Replayed") is None
    again = srv.call("POST", f"/games/{gid}/orders", order, token=red, headers={"Idempotency-Key": "red-0001"})
    assert again.status == 200 and again.headers.get("Idempotent-Replayed") == "true", again.raw
    assert again.body["replayed"] is True and first.body["replayed"] is False
    for key in ("events", "version", "chain_head", "order_id"):
        assert again.body[key] == first.body[key], key
    assert again.headers["ETag"] == first.headers["ETag"] == f'"{first.body["version"]}"'
    assert srv.call("GET", f"/games/{gid}", token=red).body["version"] == first.body["version"]  # nothing new

    # Phases and a turn: the turn closes dice epoch 0, reveals its seed and opens epoch 1.
    assert "Turn 1: Fight phase" in srv.cli("blue", "order", gid, "advance").stdout
    turn = json.loads(srv.cli("red", "order", gid, "advance", "--json").stdout)
    types = [e["type"] for e in turn["events"]]
    assert types == ["OrderAccepted", "TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened", "DiceCommitted"], types
    assert turn["events"][2]["data"]["epoch"] == 0 and turn["events"][3]["data"]["epoch"] == 1
    assert turn["events"][4]["data"]["epoch"] == 2  # the seed of the epoch after, committed ahead

    # A take-back: Red asks, Blue accepts, all through the CLI.
    srv.cli("red", "order", gid, "note", "3 Bde retreats (a misclick)")
    out = srv.cli("red", "take-back", gid, "--reason", "misclick").stdout
    assert "take-back requested" in out and "Red asks to take back order" in out and "misclick" in out
    out = srv.cli("blue", "answer-take-back", gid, "--accept").stdout
    assert "take-back accepted" in out and "Blue accepted the take-back" in out and "superseded" in out
    asked = srv.call("GET", f"/games/{gid}/take-backs", token=blue).body["requests"]
    assert [(r["seat"], r["answer"], r["answered_by"]) for r in asked] == [("Red", "accepted", "Blue")]

    out = srv.cli("blue", "order", gid, "roll", "1d6", "--purpose", "morale check", "--unit", "3 Bde").stdout
    assert re.search(r"Blue rolled 1d6 for morale check \(3 Bde\): \d", out), out

    out = srv.cli("red", "state", gid).stdout
    assert "turn 2, Move phase; to move: Blue, Red" in out and "VP: Blue 2, Red 0" in out
    assert secret not in out

    out = srv.cli("blue", "history", gid).stdout
    for text in ("Turn 1", "  Move", "  Fight", "Turn 2", "3 Bde fires at the bridge", "weather table",
                 "took the town", "Red digs in at the ford", "Dice epoch 0 revealed", f"Blue orders note: {secret}"):
        assert text in out, (text, out)
    red_history = srv.cli("red", "history", gid).stdout
    assert secret not in red_history and "Blue gives an order (hidden)\n" in red_history

    out = srv.cli("red", "dice", gid).stdout
    assert re.search(r"3 Bde fires at the bridge: \d, \d — -?\d+ \(\+1 elite -2 in cover\) >= 8: "
                     r"(success|failure) \(turn 1, epoch 0\) \[verified\]", out), out
    assert re.search(r"weather table: \d, \d — \d+ >= 35: (success|failure) \(turn 1, epoch 0\) \[verified\]",
                     out), out
    assert re.search(r"morale check \(3 Bde\): \d \(turn 2, epoch 1\) \[unrevealed\]", out), out
    out = srv.cli("red", "dice", gid, "--purpose", "WEATHER").stdout
    assert "weather table" in out and "bridge" not in out

    # An umpire, by every seat's agreement, in the log: the creator alone gets no umpire token.
    assert "[umpire]" in srv.cli("creator", "umpire-token", gid, expect=1).stderr
    assert "admin proposes Ann as umpire" in srv.cli("creator", "umpire-propose", gid, "Ann").stdout
    srv.cli("blue", "umpire-answer", gid, "--accept")
    out = srv.cli("red", "umpire-answer", gid, "--accept").stdout
    assert "Ann is the umpire (accepted by every seat: Blue, Red)" in out, out

    # The last turn: its last phase cannot be left; the game is ended instead.
    assert "Turn 2: Fight phase" in srv.cli("blue", "order", gid, "advance").stdout
    refused = srv.cli("red", "order", gid, "advance", expect=1)
    assert "turn 2 is the last turn; end the game instead [FF 2]" in refused.stderr
    out = srv.cli("blue", "order", gid, "end", "Blue", "--level", "decisive", "--reason", "held the ford").stdout
    assert "Game over: Blue wins" in out and "Dice epoch 1 revealed" in out
    final = int(re.search(r"^version (\d+), chain head ([0-9a-f]{64})$", out, re.M).group(1))
    head = re.search(r"^version (\d+), chain head ([0-9a-f]{64})$", out, re.M).group(2)
    ended = srv.call("GET", f"/games/{gid}/state", token=red).body
    assert ended["ended"]["winner"] == "Blue" and ended["ended"]["level"] == "decisive" and ended["whose_move"] == []
    out = srv.cli("red", "show", gid).stdout
    assert "ended" in out and head in out

    # The creator issues the umpire's token; its export is the exact log, and it verifies offline.
    out = srv.cli("creator", "umpire-token", gid).stdout
    umpire = re.search(r"umpire token for game [0-9a-f-]{36}: (wlu_\S+)", out).group(1)
    srv.secrets.add(umpire)
    exported = srv.tmp / "game-1.jsonl"
    done = srv.cli("creator", "export", gid, "-o", str(exported), token=umpire)
    assert f"exported {final} events of game {gid}" in done.stderr
    header, *lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert header == {"warlog_export": {"version": 2, "server_key": srv.call("GET", "/server-key").body["public_key"]}}
    assert [line["seq"] for line in lines] == list(range(1, final + 1)) and lines[-1]["hash"] == head
    assert not any(line.get("redacted") for line in lines)
    assert any(line["data"].get("order", {}).get("text") == secret for line in lines)
    verified = srv.cli(None, "verify", str(exported), server=False).stdout
    assert f"OK game {gid}: {final} events, chain head {head}" in verified, verified
    assert "2 dice epochs revealed, 3 rolls (5 dice) verified" in verified, verified

    # Watching an ended game prints every event and stops by itself.
    watched = srv.cli("red", "watch", gid).stdout.splitlines()
    assert [int(line.split()[0][1:]) for line in watched] == list(range(1, final + 1))
    assert secret not in "\n".join(watched)


def test_an_umpire_audits_everything_and_changes_nothing(srv):
    game = Game(srv, public=False)
    game.order("Blue", {"kind": "roll", "dice": "2d6", "purpose": "artillery at the crossroads",
                        "target": {"compare": ">=", "value": 7}})
    secret, note_seq = game.private_note("Blue")
    game.order("Red", {"kind": "roll", "dice": "1d6", "purpose": "counter-battery"})
    game.order("Blue", {"kind": "note", "text": "Blue moves up"})
    umpire = game.umpire()

    # Before the reveal: every roll unrevealed, the epoch open, its seed unknown even to the umpire.
    dice = srv.call("GET", game.path("/dice"), token=umpire).body
    assert [(r["purpose"], r["status"]) for r in dice["rolls"]] == [
        ("artillery at the crossroads", "unrevealed"), ("counter-battery", "unrevealed")]
    assert [(e["epoch"], e["status"], e["seed"]) for e in dice["epochs"]] == [(0, "open", None)]

    # The private note, in the clear, through every read.
    version = game.summary(umpire)["version"]
    events = game.events(umpire, limit=3)
    assert [line["seq"] for line in events] == list(range(1, version + 1))
    assert not any(line.get("redacted") for line in events)
    note = next(line for line in events if line["seq"] == note_seq)
    assert note["data"]["order"] == {"kind": "note", "text": secret, "private": True}
    assert note["data"]["digest"] and note["data"]["salt"] and note["text"] == f"Blue orders note: {secret}"
    assert secret.encode() in srv.call("GET", game.path("/history"), token=umpire).raw
    exported = srv.call("GET", game.path("/export"), token=umpire)
    assert exported.status == 200 and exported.content_type == "application/x-ndjson"
    lines = [json.loads(line) for line in exported.raw.decode().splitlines()[1:]]  # after the header line
    assert [line["seq"] for line in lines] == list(range(1, version + 1))
    assert lines[note_seq - 1]["data"]["order"]["text"] == secret and "redacted" not in lines[note_seq - 1]
    reply, streamed = srv.stream(game.id, token=umpire, until=version)
    assert reply.status == 200 and [e["id"] for e in streamed] == list(range(1, version + 1))
    assert streamed[note_seq - 1]["data"]["data"]["order"]["text"] == secret
    # The admin token reads public information only (docs/api.md): no text there.
    assert marker(secret) not in srv.call("GET", game.path("/export"), token=game.admin).raw

    # Every write answers 403 forbidden to the umpire, and nothing is recorded.
    srv.call("POST", game.path("/take-backs"), {"reason": "Blue wants it back"}, token=game.tokens["Blue"])
    before = game.summary(umpire)
    writes = [
        ("POST", "/orders", {"kind": "note", "text": "the umpire speaks"}, {"Idempotency-Key": "umpire-1"}),
        ("POST", "/orders", {"kind": "end", "winner": None, "reason": "umpire stops it"}, {"Idempotency-Key": "u2"}),
        ("POST", "/take-backs", {"reason": "umpire"}, None),
        ("POST", "/take-backs/answer", {"accept": True}, None),
        ("POST", "/concede", None, None),
        ("PUT", "/client-seed", {"client_seed": "umpire's seed"}, None),
        ("POST", "/umpire-tokens", None, None),
        ("GET", "/umpire-tokens", None, None),
        ("POST", "/umpire", {"umpire": "the umpire again"}, None),
        ("POST", "/umpire/answer", {"accept": False}, None),
        ("DELETE", "/umpire", None, None),
        ("GET", "/legal-orders", None, None),  # a seat's read
    ]
    for method, suffix, body, headers in writes:
        reply = srv.call(method, game.path(suffix), body, token=umpire, headers=headers)
        assert_problem(reply, "forbidden")
    after = game.summary(umpire)
    assert (after["version"], after["chain_head"]) == (before["version"], before["chain_head"])
    assert game.events(umpire)[-1]["type"] == "TakeBackRequested"

    # Red declines and ends the turn: epoch 0 is revealed and every roll verifies.
    declined = srv.call("POST", game.path("/take-backs/answer"), {"accept": False}, token=game.tokens["Red"])
    assert declined.status == 200, declined.raw
    game.order("Red", {"kind": "advance"})
    dice = srv.call("GET", game.path("/dice"), token=umpire).body
    assert [r["status"] for r in dice["rolls"]] == ["verified", "verified"]
    assert [(e["epoch"], e["status"]) for e in dice["epochs"]] == [(0, "revealed"), (1, "open")]
    assert dice["epochs"][0]["seed"] and dice["epochs"][1]["seed"] is None
    integrity = srv.call("GET", game.path("/integrity"), token=umpire).body
    assert integrity["ok"] is True and integrity["failures"] == []
    assert integrity["epochs_revealed"] == 1 and integrity["rolls_verified"] == 2
    assert integrity["events"] == game.summary(umpire)["version"]


def test_a_spectator_sees_only_public_information_of_public_games(srv):
    public = Game(srv, public=True)
    public.order("Blue", {"kind": "roll", "dice": "2d6", "purpose": "skirmishers fire"})
    secret, note_seq = public.private_note("Blue")
    public.order("Red", {"kind": "vp", "side": "Red", "delta": 1, "reason": "held the village"})
    public.order("Red", {"kind": "advance"})  # turn 2: epoch 0 revealed
    version = public.summary()["version"]

    for name, suffix in READS:
        reply = srv.call("GET", public.path(suffix))
        assert reply.status == 200, (name, reply.raw)
        assert marker(secret) not in reply.raw, name
    reply, streamed = srv.stream(public.id, until=version)
    assert reply.status == 200 and [e["id"] for e in streamed] == list(range(1, version + 1))
    assert marker(secret) not in reply.raw
    note = streamed[note_seq - 1]["data"]
    # Its order, digest and salt are commitments (docs/dice.md, "Concealed fields"): the line keeps its hash.
    assert "redacted" not in note and note["data"]["concealed"] == {"order": None, "digest": None, "salt": None}
    assert note["text"] == "Blue gives an order (hidden)"

    events = public.events(limit=2)
    assert [line["seq"] for line in events] == list(range(1, version + 1))
    assert events[note_seq - 1]["data"]["concealed"]["digest"] is None and "redacted" not in events[note_seq - 1]
    dice = srv.call("GET", public.path("/dice")).body
    assert [(r["purpose"], r["status"]) for r in dice["rolls"]] == [("skirmishers fire", "verified")]
    assert srv.call("GET", public.path("/vp")).body["totals"] == {"Blue": 0, "Red": 1}
    export = srv.call("GET", public.path("/export")).raw.decode().splitlines()
    assert json.loads(export[note_seq])["data"]["concealed"]["order"] is None  # line note_seq after the header
    # The CLI without any token reads it the same way.
    out = srv.cli("spectator", "history", public.id).stdout
    assert "skirmishers fire" in out and "Blue gives an order (hidden)" in out and secret not in out

    # A private game is, to a spectator, exactly an unknown game: the same 404, body and all.
    private = Game(srv, public=False)
    private_secret, _ = private.private_note("Red")
    unknown = str(uuid.uuid4())
    listed = {g["game_id"] for g in srv.call("GET", "/games").body["games"]}
    assert public.id in listed and private.id not in listed
    probes = [("GET", suffix, None) for _, suffix in READS] + [
        ("GET", "/events/stream", None), ("GET", "/legal-orders", None),
        ("POST", "/orders", {"kind": "note", "text": "x"}), ("POST", "/take-backs", {}),
        ("POST", "/take-backs/answer", {"accept": True}), ("POST", "/concede", None),
        ("PUT", "/client-seed", {"client_seed": "x"}), ("POST", "/umpire-tokens", None),
    ]
    for method, suffix, body in probes:
        headers = {"Idempotency-Key": "k"} if suffix == "/orders" else None
        hidden = srv.call(method, private.path(suffix), body, headers=headers)
        missing = srv.call(method, f"/games/{unknown}{suffix}", body, headers=headers)
        got = assert_problem(hidden, "game_not_found")
        assert_problem(missing, "game_not_found")
        assert private.id in got["detail"], got
        same = {**got, "detail": got["detail"].replace(private.id, unknown)}
        assert same == missing.body, (method, suffix, got, missing.body)
        assert hidden.content_type == missing.content_type
        assert marker(private_secret) not in hidden.raw


def test_every_error_class_over_real_http(srv):
    game = Game(srv, public=False, phases=["Move"], last_turn=1)
    blue, red = game.tokens["Blue"], game.tokens["Red"]
    orders = game.path("/orders")
    covered: dict[str, Reply] = {}

    def check(code: str, reply: Reply, **kwargs: Any) -> dict:
        body = assert_problem(reply, code, **kwargs)
        covered[code] = reply
        return body

    # 400
    check("bad_request", srv.call("POST", "/games", data=b'{"ruleset": "freeform",'))
    assert_problem(srv.call("POST", "/games", [1, 2]), "bad_request")  # JSON, but not an object
    assert_problem(srv.call("POST", orders, {"kind": "note", "text": "x"}, token=blue,
                            headers={"Idempotency-Key": "k-400", "If-Match": "soon"}), "bad_request")
    check("idempotency_key_required", srv.call("POST", orders, {"kind": "note", "text": "x"}, token=blue))
    assert_problem(srv.call("POST", orders, {"kind": "note", "text": "x"}, token=blue,
                            headers={"Idempotency-Key": "k" * 201}), "idempotency_key_required")
    # 401
    reply = srv.call("GET", game.path(), token="wls_not-a-token-of-this-server")
    check("unauthorized", reply)
    assert reply.headers["WWW-Authenticate"].startswith("Bearer")
    assert_problem(srv.call("GET", game.path(), headers={"Authorization": "Basic Zm9vOmJhcg=="}), "unauthorized")
    # 403: an admin token cannot order, a seat token cannot issue umpire tokens.
    check("forbidden", srv.call("POST", orders, {"kind": "note", "text": "x"}, token=game.admin,
                                headers={"Idempotency-Key": "k-403"}))
    assert_problem(srv.call("POST", game.path("/umpire-tokens"), token=blue), "forbidden")
    # 404
    check("not_found", srv.call("GET", "/api/v1/no-such-endpoint"))
    assert_problem(srv.call("GET", game.path("/state?turn=9"), token=blue), "not_found")
    check("game_not_found", srv.call("GET", f"/games/{uuid.uuid4()}"))
    assert_problem(srv.call("GET", "/games/not-a-uuid/history"), "game_not_found")
    assert_problem(srv.call("POST", game.path("/join"), {"invite_code": "wli_guessed", "handle": "eve"}),
                   "game_not_found")
    # 405
    reply = srv.call("DELETE", game.path(), token=blue)
    check("method_not_allowed", reply)
    assert "GET" in reply.headers["Allow"] and "DELETE" not in reply.headers["Allow"]
    # 409 invite_used: the invite code admits one player once.
    check("invite_used", srv.call("POST", game.path("/join"),
                                  {"invite_code": game.invites["Blue"], "handle": "mallory"}))
    # 409 umpire_token_limit: once the seats agree to an umpire, at most 3 live tokens (the default).
    game.umpire()
    for _ in range(2):
        assert srv.call("POST", game.path("/umpire-tokens"), token=game.admin).status == 201
    check("umpire_token_limit", srv.call("POST", game.path("/umpire-tokens"), token=game.admin))
    # 412
    version = game.summary(blue)["version"]
    body = check("stale_version", srv.call("POST", orders, {"kind": "note", "text": "x"}, token=blue,
                                           headers={"Idempotency-Key": "k-412", "If-Match": f'"{version - 1}"'}))
    assert body["current_version"] == version
    # 413 (MAX_BODY is 64 KiB)
    check("payload_too_large", srv.call("POST", orders, {"kind": "note", "text": "x" * 70_000}, token=blue,
                                        headers={"Idempotency-Key": "k-413"}))
    # 415
    check("unsupported_media_type", srv.call("POST", "/games", data=b'{"ruleset": "freeform"}',
                                             content_type="text/plain"))
    # 422
    body = check("invalid_request", srv.call("POST", orders, {"text": "no kind"}, token=blue,
                                             headers={"Idempotency-Key": "k-422a"}))
    assert "kind" in body["errors"]
    assert "status" in assert_problem(srv.call("GET", "/games?status=sleeping"), "invalid_request")["errors"]
    body = check("invalid_order", srv.call("POST", orders, {"kind": "roll", "dice": "7x", "purpose": "p"},
                                           token=blue, headers={"Idempotency-Key": "k-422b"}), rule=True)
    assert body["rule"] == "FF 3" and body["field"] == "dice"
    body = check("rule_violation", srv.call("POST", orders, {"kind": "advance"}, token=red,
                                            headers={"Idempotency-Key": "k-422c"}), rule=True)
    assert body["rule"] == "FF 2" and "last turn" in body["detail"]
    body = check("rule_violation", srv.call("POST", game.path("/take-backs/answer"), {"accept": True}, token=red),
                 rule=True)
    assert body["rule"] == "FF 6"
    # not_your_move cannot be provoked with freeform: any seat may act at any time (FF 2), so
    # every seat is always among those to move while the game goes on.
    assert game.summary(red)["whose_move"] == ["Blue", "Red"]
    srv.call("POST", orders, {"kind": "note", "text": "first"}, token=blue, headers={"Idempotency-Key": "k-dup"})
    check("idempotency_conflict", srv.call("POST", orders, {"kind": "note", "text": "second"}, token=blue,
                                           headers={"Idempotency-Key": "k-dup"}))
    assert_problem(srv.call("POST", orders, {"kind": "note", "text": "first"}, token=red,
                            headers={"Idempotency-Key": "k-dup"}), "idempotency_conflict")  # another seat
    body = check("invalid_fork", srv.call("POST", game.path("/sandbox"), {"at": 10**6}, token=blue))
    assert "at" in body["detail"], body
    check("invalid_setup", srv.call("POST", "/games", {"ruleset": "freeform", "options": {"sides": []}}))
    check("unknown_ruleset", srv.call("POST", "/games", {"ruleset": "no-such-game", "options": {}}))

    # 409 version_conflict: a real race, two threads ordering at once until one loses.
    lost = None
    ends = time.monotonic() + 15
    while lost is None and time.monotonic() < ends:
        pair = [("Blue", uuid.uuid4().hex), ("Red", uuid.uuid4().hex)]
        replies = race(srv, [(orders, {"kind": "note", "text": f"race {key}"}, game.tokens[seat], key)
                             for seat, key in pair])
        assert all(r.status in (201, 409) for r in replies), [(r.status, r.raw) for r in replies]
        for (seat, key), reply in zip(pair, replies):
            if reply.status == 409:
                lost = (seat, key, reply)
    assert lost is not None, "two orders sent at once never raced within 15 s"
    seat, key, reply = lost
    body = check("version_conflict", reply)
    assert isinstance(body["current_version"], int)
    # Nothing was recorded for the loser: its key sent again is a new order, not a replay.
    again = srv.call("POST", orders, {"kind": "note", "text": f"race {key}"}, token=game.tokens[seat],
                     headers={"Idempotency-Key": key})
    assert again.status == 201 and again.body["replayed"] is False

    # Two identical requests racing: one records, the other gets its result as a replay.
    key = uuid.uuid4().hex
    same = (orders, {"kind": "roll", "dice": "1d6", "purpose": "twin"}, blue, key)
    replies = sorted(race(srv, [same, same]), key=lambda r: r.status)
    assert [r.status for r in replies] == [200, 201], [r.raw for r in replies]
    assert replies[0].headers["Idempotent-Replayed"] == "true"
    assert replies[0].body["events"] == replies[1].body["events"]

    # 422 for a seat that registered a key: unsigned, signed over no head of the log, badly signed.
    from domain import signatures

    key = signatures.new_private_key()
    keyed = Game(srv, keys={"Blue": signatures.public_key_of(key)})
    note, head = {"kind": "note", "text": "signed"}, keyed.summary(keyed.tokens["Blue"])["chain_head"]
    keyed_orders, blue_keyed = keyed.path("/orders"), keyed.tokens["Blue"]
    check("signature_required", srv.call("POST", keyed_orders, note, token=blue_keyed,
                                         headers={"Idempotency-Key": "s-1"}))
    check("unknown_head", srv.call("POST", keyed_orders, note, token=blue_keyed, headers={
        "Idempotency-Key": "s-1", "Warlog-Head": "0" * 64,
        "Warlog-Signature": signatures.sign_order(key, keyed.id, "s-1", note, "0" * 64)}))
    check("bad_signature", srv.call("POST", keyed_orders, note, token=blue_keyed, headers={
        "Idempotency-Key": "s-1", "Warlog-Head": head,
        "Warlog-Signature": signatures.sign_order(key, keyed.id, "s-1", {**note, "text": "other"}, head)}))
    accepted = srv.call("POST", keyed_orders, note, token=blue_keyed, headers={
        "Idempotency-Key": "s-1", "Warlog-Head": head,
        "Warlog-Signature": signatures.sign_order(key, keyed.id, "s-1", note, head)})
    assert accepted.status == 201, accepted.raw
    # 422 signature_reused: a signed command sent again with the signature the log already holds
    head = accepted.body["chain_head"]
    seed, signed_seed = {"client_seed": "blue-2"}, {"Warlog-Head": head, "Warlog-Signature": signatures.sign_command(
        key, keyed.id, "client_seed", "Blue", {"client_seed": "blue-2"}, head)}
    changed = srv.call("PUT", keyed.path("/client-seed"), seed, token=blue_keyed, headers=signed_seed)
    assert changed.status == 200, changed.raw
    check("signature_reused", srv.call("PUT", keyed.path("/client-seed"), seed, token=blue_keyed, headers=signed_seed))

    # 422 commitment_mismatch: a sealed round's reveal that does not hash to its seat's commitment.
    from domain import sealed as sealing

    plotted = Game(srv, sealed_orders=True)
    fire, salt = [{"kind": "roll", "dice": "2d6", "purpose": "barrage"}], "5a" * 16
    for seat in ("Blue", "Red"):
        committed = srv.call("POST", plotted.path("/sealed"), {
            "commitment": sealing.commitment(plotted.id, seat, 1, fire, salt)}, token=plotted.tokens[seat])
        assert committed.status == 201, committed.raw
    check("commitment_mismatch", srv.call("POST", plotted.path("/sealed/reveal"),
                                          {"orders": [{**fire[0], "dice": "3d6"}], "salt": salt},
                                          token=plotted.tokens["Blue"]))

    # 429: a seat asks for more confirmation mails than it may (domain/access.py CONFIRM_PER_SEAT)
    from domain.access import CONFIRM_PER_SEAT

    for n in range(CONFIRM_PER_SEAT):
        asked = srv.call("PUT", game.path("/notifications"), {"email": f"blue{n}@example.org"}, token=blue)
        assert asked.status == 200 and asked.body["confirmation_mail"] is True, asked.raw
    check("too_many_confirmations", srv.call("PUT", game.path("/notifications"), {"email": "blue@example.org"},
                                             token=blue))

    # 429: a seat replaces its token more often than it may (domain/access.py ROTATIONS_PER_SEAT); each
    # replacement's answer is the token the next one is sent with.
    from domain.access import ROTATIONS_PER_SEAT

    replaced = Game(srv)
    token = replaced.tokens["Red"]
    for n in range(ROTATIONS_PER_SEAT):
        made = srv.call("POST", replaced.path("/seat-token"), token=token, headers={"Idempotency-Key": f"rotate-{n}"})
        assert made.status == 201, made.raw
        token = made.body["token"]
    check("too_many_rotations", srv.call("POST", replaced.path("/seat-token"), token=token,
                                         headers={"Idempotency-Key": "rotate-once-more"}))

    # Every code a client can cause over HTTP, except the ones that cannot be:
    # - not_your_move: unreachable with freeform (above);
    # - unknown_seat: seats come from tokens and invite codes, never from the request (docs/api.md);
    # - integrity_failure, damaged_log: need a store changed outside warlog;
    # - stream_capacity, queue_unavailable, store_unavailable (503), internal_error (500): the
    #   server's, not the client's (store_unavailable: tests/reliability/test_store_busy.py);
    # - too_many_games, too_many_failures, too_many_orders, too_many_streams, too_many_reads, too_many_lists,
    #   statistics_busy,
    #   game_jobs_busy: test servers set no rate limits, and this one has no job queue
    #   (tests/api/test_rate_limits.py, tests/e2e/test_rate_limits_live.py, tests/workers/test_jobs_api.py);
    # - request_timeout: a body that stops coming for WARLOG_CLIENT_TIMEOUT seconds
    #   (tests/reliability/test_slow_clients.py);
    # - fork_hidden: a freeform state hides nothing from a seat (tests/api/test_proving_sandbox.py);
    # - confirmation_used, confirmation_expired: a confirmation code is made by the mail job, and
    #   this server has no job queue (tests/workers/test_notify_confirm.py);
    # - spectator_token_limit, tokens_issued_limit: 50 live spectator tokens and 200 tokens issued
    #   to one game (tests/api/test_attack_round14.py lowers the caps).
    unreachable = {"not_your_move", "unknown_seat", "integrity_failure", "damaged_log", "stream_capacity",
                   "queue_unavailable", "store_unavailable", "internal_error", "too_many_games", "too_many_failures",
                   "too_many_orders", "too_many_streams", "too_many_reads", "too_many_lists", "statistics_busy", "game_jobs_busy", "request_timeout",
                   "fork_hidden", "confirmation_used", "confirmation_expired", "spectator_token_limit",
                   "tokens_issued_limit"}
    assert set(covered) == set(DOCUMENTED) - unreachable
    assert [s for s in srv.seen if s[2] >= 500] == []


def race(srv: Server, requests: list[tuple[str, dict, str, str]]) -> list[Reply]:
    """POST the orders (path, body, token, key) each from its own thread, released together."""
    barrier = threading.Barrier(len(requests))
    replies: list[Any] = [None] * len(requests)

    def send(i: int, path: str, body: dict, token: str, key: str) -> None:
        try:
            barrier.wait(timeout=5)
            replies[i] = srv.call("POST", path, body, token=token, headers={"Idempotency-Key": key})
        except BaseException as exc:  # reported below
            replies[i] = exc

    threads = [threading.Thread(target=send, args=(i, *request), daemon=True) for i, request in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=SOCKET_TIMEOUT + 5)
    assert all(isinstance(r, Reply) for r in replies), replies
    return replies


def test_a_seat_cannot_act_for_or_read_the_hidden_information_of_the_other_seat(srv):
    game = Game(srv, public=False)
    blue, red = game.tokens["Blue"], game.tokens["Red"]
    game.order("Blue", {"kind": "roll", "dice": "1d6", "purpose": "scouting"})
    secret, note_seq = game.private_note("Blue")

    # The seat comes from the token: a "seat" field in the body is no field of any order (FF 2, FF 3).
    refused = game.order("Red", {"kind": "note", "text": "orders for Blue's guns", "seat": "Blue"}, expect=422)
    assert (refused["rule"], refused["field"]) == ("FF 2", "seat"), refused
    refused = game.order("Red", {"kind": "roll", "dice": "1d6", "purpose": "Blue's morale", "seat": "Blue"}, expect=422)
    assert (refused["rule"], refused["field"]) == ("FF 3", "seat"), refused
    # On Red's machine the CLI holds Red's token only: there is no Blue token to pick.
    srv.config_path("red-5").parent.mkdir(parents=True, exist_ok=True)
    srv.config_path("red-5").write_text(json.dumps({"server": srv.url, "games": {
        game.id: {"server": srv.url, "seat": "Red", "token": red, "seats": {"Red": red}}}}))
    out = srv.cli("red-5", "order", game.id, "note", "as whom?").stdout
    assert "Red orders note: as whom?" in out
    refused = srv.cli("red-5", "order", game.id, "note", "as Blue", "--as", "Blue", expect=2)
    assert "no token saved for seat Blue" in refused.stderr

    # Red cannot answer its own take-back request, nor take back Blue's order.
    assert srv.call("POST", game.path("/take-backs"), {"reason": "mine"}, token=red).status == 201
    body = assert_problem(srv.call("POST", game.path("/take-backs/answer"), {"accept": True}, token=red),
                          "rule_violation", rule=True)
    assert body["rule"] == "FF 6" and "opponent" in body["detail"]
    assert srv.call("POST", game.path("/take-backs/answer"), {"accept": False}, token=blue).status == 200
    game.order("Blue", {"kind": "note", "text": "Blue's last order"})
    body = assert_problem(srv.call("POST", game.path("/take-backs"), {}, token=red), "rule_violation", rule=True)
    assert body["rule"] == "FF 6"
    assert game.summary(red)["version"] == game.summary(blue)["version"]

    # Red reads everything it may, and Blue's private note's text is nowhere in it.
    version = game.summary(red)["version"]
    for name, suffix in READS + [("legal-orders", "/legal-orders")]:
        reply = srv.call("GET", game.path(suffix), token=red)
        assert reply.status == 200, (name, reply.raw)
        assert marker(secret) not in reply.raw, name
    reply, streamed = srv.stream(game.id, token=red, until=version)
    assert reply.status == 200 and marker(secret) not in reply.raw
    assert streamed[note_seq - 1]["data"]["data"]["concealed"]["order"] is None
    # Blue, its author, finds it in the same reads: the checks above do look at the right place.
    for suffix in ("/events", "/history", "/export"):
        assert marker(secret) in srv.call("GET", game.path(suffix), token=blue).raw, suffix
    reply, _ = srv.stream(game.id, token=blue, until=version)
    assert marker(secret) in reply.raw
    # Red's export holds commitments in place of the note's order, digest and salt, and verifies
    # (docs/dice.md, "Concealed fields").
    exported = srv.tmp / "red-5.jsonl"
    srv.cli("red-5", "export", game.id, "-o", str(exported))
    assert marker(secret) not in exported.read_bytes()
    checked = srv.cli(None, "verify", str(exported), server=False).stdout
    assert checked.startswith("OK") and "still concealed" in checked

    # Red's token for this game opens nothing of another private game: 404, as if it did not exist.
    other = Game(srv, public=False)
    other_secret, _ = other.private_note("Blue")
    for name, suffix in READS + [("legal-orders", "/legal-orders")]:
        reply = srv.call("GET", other.path(suffix), token=red)
        assert_problem(reply, "game_not_found")
        assert marker(other_secret) not in reply.raw
    reply, _ = srv.stream(other.id, token=red, until=1)
    assert_problem(reply, "game_not_found")
    assert_problem(srv.call("POST", other.path("/orders"), {"kind": "note", "text": "x"}, token=red,
                            headers={"Idempotency-Key": "k-other"}), "game_not_found")
    assert other.summary(other.tokens["Red"])["version"] == other.summary(other.tokens["Blue"])["version"]


def test_the_server_log_holds_no_token_invite_code_or_admin_token(srv):
    game = Game(srv, public=True)  # something to look for, even when this test runs alone
    game.umpire()
    assert srv.secrets and all(len(s) > 20 for s in srv.secrets)
    srv.url.wait_for_log(f"/games/{game.id}/umpire-tokens HTTP/1.1\" 201", timeout=5)
    time.sleep(0.3)  # gunicorn writes an access line after its response has gone out
    log = srv.url.log()
    assert f'"POST /api/v1/games/{game.id}/join HTTP/1.1" 201' in log  # the right log
    leaked = sorted(s[:8] + "…" for s in srv.secrets if s in log)
    assert leaked == [], f"secrets in the server log: {leaked}"
    assert not [text for text in srv.hidden if marker(text).decode() in log]
    assert "Authorization" not in log and "Bearer" not in log
    # No 5xx in the whole module, the CLI's requests included (they are in the access log).
    assert [s for s in srv.seen if s[2] >= 500] == []
    assert not re.search(r'HTTP/1\.[01]" 5\d\d ', log), re.findall(r'.*HTTP/1\.[01]" 5\d\d .*', log)
    assert "Traceback" not in log
