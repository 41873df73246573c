"""The command-line client (api/client.py, the client commands of api/cli.py) against a real
server: the Flask app in a werkzeug server on a thread, on a tmp SQLite store.

Each player has their own client config file, as on two machines; the CLI runs in-process
through ``api.cli.main`` and is read back from capsys.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import time

import pytest
from werkzeug.serving import BaseWSGIServer, make_server

from api.app import create_app, migrate
from api.cli import main
from api.client import ConnectionFailed, ProblemError, StreamEvent, WarlogClient, _parse_sse, api_base
from bench.server import free_port
from domain.service import Warlog
from tests.api.serving import QuietHandler


def live_server(app) -> BaseWSGIServer:
    """``app`` served on a thread. Its request threads are not daemons, so ``server_close()`` waits
    for them: a test closes its service after that, and an event stream still polling SQLite on a
    connection closed under it crashes the whole process (a segfault, seen in CI)."""
    httpd = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
    httpd.daemon_threads = False
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


class Recorder:
    """WSGI middleware noting each event-stream request's Last-Event-ID."""

    def __init__(self, app):
        self.app = app
        self.stream_requests: list[str | None] = []

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "").endswith("/events/stream"):
            self.stream_requests.append(environ.get("HTTP_LAST_EVENT_ID"))
        return self.app(environ, start_response)


@pytest.fixture
def server(sqlite_config, monkeypatch):
    """The URL of a live server; short stream lives so reconnects happen within a test."""
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.05")
    monkeypatch.setenv("WARLOG_STREAM_HEARTBEAT_SECONDS", "0.5")
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "3")
    migrate(sqlite_config)
    service = Warlog(sqlite_config)
    app = Recorder(create_app({"WARLOG_SERVICE": service}))
    httpd = live_server(app)
    url = f"http://127.0.0.1:{httpd.server_port}"
    url_info = type("Server", (), {"url": url, "app": app, "config": sqlite_config})()
    yield url_info
    httpd.shutdown()
    httpd.server_close()
    service.close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ("WARLOG_SERVER", "WARLOG_TOKEN", "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "nobody" / "client.json"))


class Player:
    """One person at a terminal: their own config file."""

    def __init__(self, name, tmp_path, monkeypatch, capsys):
        self.config = tmp_path / name / "client.json"
        self._monkeypatch = monkeypatch
        self._capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        self._capsys.readouterr()
        self._monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(self.config))
        code = main([str(a) for a in argv])
        out, err = self._capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out, err

    def json(self, *argv: str):
        code, out, err = self(*argv, "--json")
        assert code == 0, err
        return json.loads(out)

    def saved(self) -> dict:
        return json.loads(self.config.read_text())


@pytest.fixture
def alice(tmp_path, monkeypatch, capsys):
    return Player("alice", tmp_path, monkeypatch, capsys)


@pytest.fixture
def bob(tmp_path, monkeypatch, capsys):
    return Player("bob", tmp_path, monkeypatch, capsys)


def started_game(server, alice, bob, keys: bool = True, **options) -> str:
    """alice creates a Blue/Red game and takes Blue; bob takes Red with the invite she sends him.
    ``keys``: each registers a signing key, as join does by default (else --no-key)."""
    opts = ["--option", "sides=Blue,Red", "--option", "phases=Move,Fight"]
    for key, value in options.items():
        opts += ["--option", f"{key}={json.dumps(value)}"]
    code, out, err = alice("new", "freeform", *opts, "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    no_key = () if keys else ("--no-key",)
    assert alice("join", game_id, invites["Blue"], "--handle", "alice", *no_key)[0] == 0
    assert bob("join", game_id, invites["Red"], "--handle", "bob", "--server", server.url,
               "--client-seed", "bob's luck", *no_key)[0] == 0
    return game_id


def closed_port() -> int:
    """A port nothing listens on: one the system just handed out and took back."""
    return free_port()


# ================================================================================ a game ====
def test_a_freeform_game_from_new_to_the_end(server, alice, bob, tmp_path):
    # new: the game id, one invite per seat and the admin token, printed and saved 0600
    code, out, err = alice("new", "freeform", "--option", "sides=Blue,Red", "--option", "phases=Move,Fight",
                           "--option", "last_turn=3", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    saved = alice.saved()
    entry = saved["games"][game_id]
    assert saved["server"] == api_base(server.url)
    assert set(entry["invites"]) == {"Blue", "Red"} and entry["admin_token"].startswith("wla_")
    for code_ in entry["invites"].values():
        assert code_ in out
    assert entry["admin_token"] in out and "chain head" in out
    assert stat.S_IMODE(os.stat(alice.config).st_mode) == 0o600

    # join: each seat's token saved in its player's own file
    code, out, err = alice("join", game_id, entry["invites"]["Blue"], "--handle", "alice", "--email", "a@example.org",
                           "--no-key")  # signed orders: tests/api/test_cli_signatures.py
    assert code == 0, err
    assert "joined game" in out and "as Blue" in out
    code, out, err = bob("join", game_id, entry["invites"]["Red"], "--handle", "bob", "--server", server.url,
                         "--no-key")
    assert code == 0, err
    assert alice.saved()["games"][game_id]["seat"] == "Blue"
    assert "Blue" not in alice.saved()["games"][game_id]["invites"]  # used
    assert bob.saved()["games"][game_id]["token"].startswith("wls_")
    assert bob.saved()["server"] == api_base(server.url)  # later commands need no --server
    assert stat.S_IMODE(os.stat(bob.config).st_mode) == 0o600

    # legal: the templates, by a short prefix of the id
    code, out, err = alice("legal", game_id[:8])
    assert code == 0, err
    assert "roll (FF 3)" in out and "advance (FF 2)" in out and "end (FF 5)" in out
    assert {o["kind"] for o in alice.json("legal", game_id)["orders"]} >= {"note", "roll", "vp", "advance", "end"}

    # orders with dice: each prints its lines, the dice with purpose and outcome, the chain head
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "3 Bde fires at the bridge",
                           "--target", ">=8", "--modifier", "+1 elite", "--rule", "8.2", "--unit", "3 Bde")
    assert code == 0, err
    assert "Blue rolled 2d6 for 3 Bde fires at the bridge" in out
    assert ": success" in out or ": failure" in out
    assert "(+1 elite) >= 8" in out
    head = out.strip().splitlines()[-1]
    shown = alice.json("show", game_id)
    assert head == f"version {shown['version']}, chain head {shown['chain_head']}"

    code, out, err = bob("order", game_id, "note", "Red", "digs", "in", "at", "the", "ridge")
    assert code == 0 and "Red orders note: Red digs in at the ridge" in out
    result = bob.json("order", game_id, "roll", "d66", "--purpose", "random event")
    rolled = [e for e in result["events"] if e["type"] == "DiceRolled"]
    assert len(rolled) == 1 and rolled[0]["data"]["purpose"] == "random event"
    code, out, err = alice("order", game_id, "vp", "Blue", "+2", "--reason", "took the bridge")
    assert code == 0 and "VP +2 Blue for took the bridge" in out
    code, out, err = alice("order", game_id, "--json", '{"kind": "roll", "dice": "3d6", "purpose": "barrage"}')
    assert code == 0, err
    body = json.loads(out)  # a JSON order: a JSON answer
    assert [e["type"] for e in body["events"]] == ["OrderAccepted", "DiceRolled"]

    # a take-back: bob asks for his advance back, alice accepts
    code, out, err = bob("order", game_id, "advance")
    assert code == 0 and "Turn 1: Fight phase" in out
    advanced_to = bob.json("show", game_id)["version"]
    code, out, err = bob("take-back", game_id, "--reason", "misclick")
    assert code == 0, err
    assert "Red asks to take back order" in out and "misclick" in out
    code, out, err = bob("order", game_id, "note", "meanwhile")  # blocked until answered
    assert code == 1 and "[FF 6]" in err
    code, out, err = alice("answer-take-back", game_id, "--accept")
    assert code == 0, err
    assert "take-back accepted" in out and "superseded" in out

    # state now and in the past
    state = alice.json("state", game_id)
    assert state["phase"] == "Move" and state["state"]["vp"] == {"Blue": 2, "Red": 0}
    code, out, err = alice("state", game_id)
    assert code == 0 and "turn 1, Move phase" in out and "VP: Blue 2, Red 0" in out
    past = alice.json("state", game_id, "--at", str(advanced_to))
    assert past["phase"] == "Fight" and past["version"] == advanced_to
    code, out, err = alice("state", game_id, "--at", "9999")
    assert code == 1 and "past the last event" in err

    # history: turn, phase, operations with their lines
    code, out, err = alice("history", game_id)
    assert code == 0, err
    assert out.startswith("Turn 1\n  Move\n")
    assert "Blue rolled 2d6 for 3 Bde fires at the bridge" in out and "accepted the take-back" in out
    assert alice.json("history", game_id)["turns"][0]["turn"] == 1

    # dice, filtered, with purpose and outcome
    code, out, err = bob("dice", game_id, "--seat", "Blue")
    assert code == 0, err
    lines = [line for line in out.splitlines() if line.startswith("#")]  # one a roll, then what unrevealed means
    assert len(lines) == 2 and "3 Bde fires at the bridge" in lines[0] and "barrage" in lines[1]
    assert out.splitlines()[-1].startswith("unrevealed: ")
    assert "success" in lines[0] or "failure" in lines[0]
    assert "[unrevealed]" in lines[0]
    assert [r["purpose"] for r in bob.json("dice", game_id, "--purpose", "RANDOM")["rolls"]] == ["random event"]

    # an umpire the seats agree to; the end, then the export (with an umpire token: the exact log)
    # verifies offline
    code, out, err = alice("umpire-token", game_id)
    assert code == 1 and "[umpire]" in err  # the admin alone gets none: the seats agree to an umpire first
    code, out, err = alice("umpire-propose", game_id, "Carol")
    assert code == 0 and "admin proposes Carol as umpire" in out, err
    assert alice("umpire-answer", game_id, "--accept")[0] == 0
    code, out, err = bob("umpire-answer", game_id, "--accept")
    assert code == 0 and "Carol is the umpire (accepted by every seat: Blue, Red)" in out, err
    code, out, err = bob("order", game_id, "end", "Blue", "--level", "marginal", "--reason", "Red withdraws")
    assert code == 0 and "Game over: Blue wins (marginal)" in out and "revealed" in out
    code, out, err = alice("umpire-token", game_id)
    assert code == 0 and "umpire token" in out
    umpire = alice.saved()["games"][game_id]["umpire_token"]
    exported = tmp_path / "game.jsonl"
    code, out, err = alice("export", game_id, "--server", server.url, "--token", umpire, "-o", exported)
    assert code == 0, err
    assert "exported" in err
    final = alice.json("show", game_id)
    assert len(exported.read_text().splitlines()) == final["version"] + 1  # and the server key's header line
    code, out, err = alice("verify", exported)
    assert code == 0 and out.startswith("OK") and final["chain_head"] in out
    events = [json.loads(text) for text in exported.read_text().splitlines()[1:]]
    assert events[0]["data"]["format"] == 2 and "DiceCommitted" in {e["type"] for e in events}  # dice scheme 2
    assert re.search(r"[1-9][0-9]* rolls \([0-9]+ dice\) verified", out), out
    # the umpire tokens, listed without their secrets, and revoked: the token stops working
    code, out, err = alice("umpire-tokens", game_id)
    assert code == 0 and "umpire: Carol" in out and " live" in out and umpire not in out, err
    token_id = alice.json("umpire-tokens", game_id)["tokens"][0]["token_id"]
    code, out, err = alice("umpire-revoke", game_id, token_id)
    assert code == 0 and f"umpire token {token_id} revoked" in out, err
    code, out, err = alice("show", game_id, "--token", umpire)
    assert code == 1 and "not valid" in err
    code, out, err = alice("dice", game_id)
    assert "[verified]" in out and "unrevealed" not in out  # the game's end revealed the epoch

    # watch: a few events then stop; without --count it stops by itself at the game's end
    code, out, err = bob("watch", game_id, "--count", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "#1 Game created: freeform (freeform), seats Blue, Red"
    assert [int(line.split()[0][1:]) for line in lines] == [1, 2, 3]
    started = time.monotonic()
    code, out, err = bob("watch", game_id, "--from", str(final["version"] - 3))
    assert code == 0, err
    seqs = [int(line.split()[0][1:]) for line in out.splitlines()]
    assert seqs == list(range(final["version"] - 2, final["version"] + 1))
    assert "Game over" in out and time.monotonic() - started < 2.5

    code, out, err = alice("show", game_id)
    assert code == 0 and "ended" in out and "Blue wins" in out
    code, out, err = alice("umpire-revoke", game_id, "--role")
    assert code == 0 and "admin ended Carol's role as umpire" in out, err


def test_the_same_order_id_records_once_and_if_match_guards_the_version(server, alice, bob):
    game_id = started_game(server, alice, bob)
    first = alice.json("order", game_id, "roll", "2d6", "--purpose", "fire", "--order-id", "fire-1")
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "fire", "--order-id", "fire-1")
    assert code == 0, err
    assert "replayed" in out and f"chain head {first['chain_head']}" in out
    again = alice.json("order", game_id, "roll", "2d6", "--purpose", "fire", "--order-id", "fire-1")
    assert again["replayed"] is True and again["events"] == first["events"]

    code, out, err = alice("order", game_id, "note", "late", "--if-match", str(first["version"] - 1))
    assert code == 1 and f"is at version {first['version']}" in err
    code, out, err = alice("order", game_id, "note", "on time", "--if-match", str(first["version"]))
    assert code == 0, err


def test_several_seats_of_one_game_on_one_machine_choose_a_token_with_as(server, alice):
    code, out, err = alice("new", "freeform", "--options", '{"sides": ["Blue", "Red"]}', "--server", server.url)
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    for seat in ("Blue", "Red"):
        assert alice("join", game_id, invites[seat], "--handle", f"solo-{seat}")[0] == 0
    code, out, err = alice("order", game_id, "note", "as Red", "--as", "Red")
    assert code == 0 and "Red orders note: as Red" in out
    code, out, err = alice("order", game_id, "note", "as Blue", "--as", "Blue")
    assert code == 0 and "Blue orders note: as Blue" in out
    code, out, err = alice("order", game_id, "note", "nobody", "--as", "Green")
    assert code == 2 and "no token saved for seat Green" in err


# ============================================================================ errors ====
def test_an_illegal_order_exits_1_naming_the_rule(server, alice, bob):
    game_id = started_game(server, alice, bob)
    code, out, err = alice("order", game_id, "roll", "2d6", "--purpose", "re-roll", "--replaces", "99")
    assert code == 1
    assert err.startswith("warlog order: ") and err.rstrip().endswith("[FF 3]")
    assert "re-roll replaces the last roll" in err
    code, out, err = alice("order", game_id, "roll", "2d7x", "--purpose", "odd dice")
    assert code == 1 and "[FF 3]" in err
    code, out, err = alice("order", game_id, "--json", '{"kind": "charge"}')
    assert code == 1 and "kind" in err
    assert json.loads(out)["code"] == "invalid_order"  # --json: the problem for scripts too
    code, out, err = bob("take-back", game_id)
    assert code == 1 and "[FF 6]" in err  # bob has no order to take back


def test_a_bad_token_exits_1_not_valid(server, alice, bob):
    game_id = started_game(server, alice, bob)
    code, out, err = alice("legal", game_id, "--token", "wls_not-a-token")
    assert code == 1 and "not valid" in err and err.startswith("warlog legal: ")
    code, out, err = alice("umpire-token", game_id, "--token", alice.saved()["games"][game_id]["token"])
    assert code == 1 and "admin" in err  # a seat token issues no umpire tokens


def test_an_unreachable_server_exits_2_with_a_clean_message(alice, tmp_path):
    url = f"http://127.0.0.1:{closed_port()}"
    game_id = "00000000-0000-0000-0000-000000000000"
    code, out, err = alice("show", game_id, "--server", url)
    assert code == 2
    assert err.startswith("warlog show: cannot reach http://127.0.0.1:") and "Traceback" not in err
    code, out, err = alice("order", game_id, "advance", "--server", url, "--token", "wls_x", "--order-id", "o-7")
    assert code == 2 and "--order-id o-7" in err  # how to resend safely
    code, out, err = alice("new", "freeform", "--server", url)
    assert code == 2 and "cannot reach" in err
    assert not alice.config.exists()


def test_usage_errors_exit_2(server, alice, bob, tmp_path):
    code, out, err = alice("show", "00000000-0000-0000-0000-000000000000")
    assert code == 2 and "no server" in err and "WARLOG_SERVER" in err
    game_id = started_game(server, alice, bob)
    code, out, err = alice("order", game_id, "--json", "{not json")
    assert code == 2 and "--json" in err
    code, out, err = alice("order", game_id, "--json", "roll")
    assert code == 2 and "JSON object" in err
    code, out, err = alice("order", game_id, "roll", "2d6", "--target", "eight")
    assert code == 2 and "--target" in err
    code, out, err = alice("order", game_id)
    assert code == 2 and "KIND" in err
    stranger = Player("carol", tmp_path, alice._monkeypatch, alice._capsys)
    code, out, err = stranger("legal", game_id, "--server", server.url)
    assert code == 2 and "join it first" in err
    with pytest.raises(SystemExit) as exc:
        main(["answer-take-back", game_id])  # --accept or --decline is required
    assert exc.value.code == 2


def test_a_broken_config_file_is_a_usage_error(alice):
    alice.config.parent.mkdir(parents=True)
    alice.config.write_text("{oops")
    code, out, err = alice("show", "x", "--server", "http://127.0.0.1:1")
    assert code == 2 and "not valid JSON" in err


def test_environment_gives_server_and_token(server, alice, bob, monkeypatch, tmp_path):
    game_id = started_game(server, alice, bob, keys=False)  # a machine with the token alone: no key to sign
    token = alice.saved()["games"][game_id]["token"]
    nobody = Player("nobody", tmp_path, monkeypatch, alice._capsys)
    monkeypatch.setenv("WARLOG_SERVER", server.url)
    monkeypatch.setenv("WARLOG_TOKEN", token)
    code, out, err = nobody("order", game_id, "note", "from the environment")
    assert code == 0 and "Blue orders note" in out
    code, out, err = nobody("legal", game_id, "--token", "wls_bad")  # the option wins
    assert code == 1 and "not valid" in err


# =========================================================================== export ====
def test_export_uses_the_server_only_when_one_is_given(server, alice, bob, monkeypatch, tmp_path):
    game_id = started_game(server, alice, bob)
    alice("order", game_id, "roll", "2d6", "--purpose", "fire")
    monkeypatch.setenv("WARLOG_DATA_DIR", str(tmp_path / "data"))  # the server's store (sqlite_config)
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)

    # no --server, no WARLOG_SERVER: the local store (alice's saved server does not count)
    code, local, err = alice("export", game_id)
    assert code == 0, err
    # --server: the API (an umpire's export is the same exact log)
    assert alice("umpire-propose", game_id, "Carol")[0] == 0
    assert alice("umpire-answer", game_id, "--accept")[0] == 0 and bob("umpire-answer", game_id, "--accept")[0] == 0
    code, local, err = alice("export", game_id)  # the log now holds the appointment
    umpire = alice.json("umpire-token", game_id)["token"]
    code, remote, err = alice("export", game_id, "--server", server.url, "--token", umpire)
    assert code == 0, err
    header, _, events = remote.partition("\n")  # the API's export begins with its header line: v2, the server key
    assert json.loads(header) == {"warlog_export": {"version": 2,
                                                    "server_key": WarlogClient(server.url).server_key()["public_key"]}}
    local_header, _, local_events = local.partition("\n")  # a local export's: v2, no server key here
    assert json.loads(local_header) == {"warlog_export": {"version": 2}}
    assert events == local_events and json.loads(local_events.splitlines()[0])["type"] == "GameCreated"

    dead = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("WARLOG_SERVER", dead)
    code, out, err = alice("export", game_id)
    assert code == 2 and "cannot reach" in err  # WARLOG_SERVER: the API
    code, out, err = alice("export", game_id, "--local")
    assert code == 0 and out == local  # --local: the store, whatever the environment says
    code, out, err = alice("export", "00000000-0000-0000-0000-000000000000", "--server", server.url)
    assert code == 1 and "no game" in err
    code, out, err = alice("export", "00000000-0000-0000-0000-000000000000", "--server", server.url,
                           "-o", tmp_path / "missing.jsonl")
    assert code == 1 and not (tmp_path / "missing.jsonl").exists()  # no empty file for a refusal


# =========================================================================== stream ====
def test_the_stream_reconnects_with_last_event_id_and_misses_nothing(server, alice, bob):
    game_id = started_game(server, alice, bob, keys=False)  # the orders below are sent unsigned
    token = alice.saved()["games"][game_id]["token"]
    client = WarlogClient(server.url, token, timeout=10)
    start = client.game(game_id)["version"]

    def later_orders():
        time.sleep(3.5)  # after the first stream has ended (3 s lives)
        for n in range(2):
            client.submit_order(game_id, {"kind": "note", "text": f"late {n}"})

    writer = threading.Thread(target=later_orders)
    writer.start()
    got = []
    for event in client.stream(game_id, last_event_id=start):
        got.append(event)
        if len(got) == 2:  # a note is one event
            break
    writer.join()
    assert [e.seq for e in got] == [start + 1, start + 2]
    assert [e.event for e in got] == ["OrderAccepted", "OrderAccepted"]
    assert got[1].text == "Blue orders note: late 1"
    requests = server.app.stream_requests
    assert len(requests) >= 2  # the server closed the first stream and the client came back…
    assert set(requests) <= {str(start), str(start + 1)}  # …each time from the last event it had


def test_watch_stops_quietly_on_keyboard_interrupt(server, alice, bob, monkeypatch):
    game_id = started_game(server, alice, bob)
    import api.client

    real = api.client._parse_sse

    def interrupted(lines):
        for n, item in enumerate(real(lines)):
            if n == 3:  # retry:, then two events
                raise KeyboardInterrupt
            yield item

    monkeypatch.setattr(api.client, "_parse_sse", interrupted)
    code, out, err = alice("watch", game_id)
    assert code == 0 and err == ""
    created, *committed = out.splitlines()  # the creation's lines, then no more
    assert created == "#1 Game created: freeform (freeform), seats Blue, Red"
    assert committed and all(" committed" in line for line in committed), out


def test_watch_of_a_game_that_ended_before_the_given_event_returns_at_once(server, alice, bob):
    game_id = started_game(server, alice, bob)
    alice("order", game_id, "end", "draw", "--reason", "agreed")
    version = alice.json("show", game_id)["version"]
    started = time.monotonic()
    code, out, err = alice("watch", game_id, "--from", str(version))
    assert code == 0 and out == "" and time.monotonic() - started < 2


def test_the_export_of_each_format_has_one_header_line_naming_the_server_key(server, monkeypatch):
    """Format 2: the API's export begins with its header (version 2, the key); format 1: it has
    none, and the client writes the key from the response header as the file's first line."""
    from domain import game as game_module

    client = WarlogClient(server.url)
    key = client.server_key()["public_key"]
    for fmt, header, created in ((2, {"version": 2, "server_key": key}, ["GameCreated", "DiceCommitted", "DiceCommitted"]),
                                 (1, {"server_key": key}, ["GameCreated"])):
        monkeypatch.setattr(game_module, "FORMAT", fmt)
        game_id = client.create_game("freeform", {"sides": ["Blue", "Red"]}, public=True)["game_id"]
        lines = list(client.export(game_id))
        assert json.loads(lines[0]) == {"warlog_export": header}
        assert [json.loads(t)["type"] for t in lines[1:]] == created


def test_an_unknown_game_is_a_problem_from_the_client(server):
    client = WarlogClient(server.url)
    with pytest.raises(ProblemError) as exc:
        client.game("00000000-0000-0000-0000-000000000000")
    assert exc.value.status == 404 and exc.value.code == "game_not_found"
    with pytest.raises(ProblemError) as exc:
        next(client.stream("00000000-0000-0000-0000-000000000000"))
    assert exc.value.status == 404
    with pytest.raises(ConnectionFailed):
        WarlogClient(f"http://127.0.0.1:{closed_port()}", timeout=2).rulesets()
    assert "freeform" in {r["name"] for r in client.rulesets()}
    assert "wls_secret" not in repr(WarlogClient(server.url, "wls_secret"))


@pytest.mark.parametrize("status, headers, shown", [
    ("502 Bad Gateway", [("Content-Type", "text/html")], "HTTP 502 Bad Gateway: <html>upstream down</html>"),
    # a redirect is not followed: it would carry the bearer token to wherever it points
    ("302 Found", [("Location", "http://attacker.example/steal")], "HTTP 302"),
])
def test_a_server_that_answers_without_a_problem_document_is_still_a_clean_error(alice, status, headers, shown):
    seen = []

    def odd_server(environ, start_response):
        seen.append(environ.get("HTTP_AUTHORIZATION"))
        start_response(status, headers)
        return [b"<html>upstream down</html>"]

    httpd = make_server("127.0.0.1", 0, odd_server, threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        code, out, err = alice("show", "00000000-0000-0000-0000-000000000000", "--token", "wls_secret",
                               "--server", f"http://127.0.0.1:{httpd.server_port}")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert code == 1 and shown in err
    assert seen == ["Bearer wls_secret"]  # one request, no follow-up elsewhere


def test_watch_json_and_state_at_a_turn(server, alice, bob):
    game_id = started_game(server, alice, bob)
    alice("order", game_id, "advance")
    alice("order", game_id, "advance")  # turn 2 begins
    code, out, err = alice("watch", game_id, "--count", "2", "--json")
    assert code == 0, err
    assert [json.loads(line)["type"] for line in out.splitlines()] == ["GameCreated", "DiceCommitted"]
    code, out, err = alice("state", game_id, "--turn", "2")
    assert code == 0 and "turn 2, Move phase" in out and "the start of turn 2" in out
    assert alice.json("state", game_id, "--turn", "1", "--phase", "Fight")["phase"] == "Fight"
    code, out, err = alice("state", game_id, "--turn", "9")
    assert code == 1 and "has not been reached" in err
    code, out, err = alice("state", game_id, "--turn", "1", "--at", "3")
    assert code == 2


# ============================================================================ pieces ====
def test_sse_parsing_follows_the_event_stream_format():
    raw = [b"retry: 2000\n", b"\n", b": keep-alive\n", b"\n",
           b"id: 7\n", b"event: DiceRolled\n", b'data: {"seq": 7, "text": "Blue rolled"}\n', b"\n",
           b"id: 8\r\n", b"data: line one\r\n", b"data:line two\r\n", b"\r\n",
           b"event: ignored-without-data\n", b"\n"]
    items = list(_parse_sse(raw))
    assert items[0] == 2000
    assert items[1] == StreamEvent("7", "DiceRolled", {"seq": 7, "text": "Blue rolled"}, items[1].raw)
    assert items[1].text == "Blue rolled" and items[1].seq == 7
    assert items[2].id == "8" and items[2].event == "message" and items[2].data == "line one\nline two"
    assert len(items) == 3


@pytest.mark.parametrize("given, base", [
    ("http://127.0.0.1:8000", "http://127.0.0.1:8000/api/v1"),
    ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/api/v1"),
    ("127.0.0.1:8000", "http://127.0.0.1:8000/api/v1"),
    ("https://warlog.example/api/v1/", "https://warlog.example/api/v1"),
    ("https://example.org/warlog", "https://example.org/warlog/api/v1"),
])
def test_server_urls(given, base):
    assert api_base(given) == base


def test_an_order_the_busy_store_turned_away_is_sent_again_after_retry_after(tmp_path):
    """The store's write lock held outside warlog past the server's lock timeout (1 s), then let
    go: the client's order gets 503 store_unavailable, waits Retry-After and sends it again with
    the same Idempotency-Key, which records it once. A request without a key (a new game) is not
    sent again: it raises the 503 for the caller to decide."""
    import sqlite3
    from dataclasses import replace

    from domain.storage import config_from_env

    config = replace(config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data")}), lock_timeout=1)
    migrate(config)
    service = Warlog(config)
    requests: list[tuple[str, str, str | None]] = []
    shell = sqlite3.connect(config.sqlite_path, isolation_level=None, check_same_thread=False)
    release_after_a_503: list[str] = []  # the path whose 503 lets the lock go

    def counted(environ, start_response):
        requests.append((environ["REQUEST_METHOD"], environ["PATH_INFO"], environ.get("HTTP_IDEMPOTENCY_KEY")))

        def noting(status, headers, *exc_info):
            if status.startswith("503") and environ["PATH_INFO"] in release_after_a_503:
                shell.execute("ROLLBACK")  # the shell's transaction ends once the order was turned away
                release_after_a_503.clear()
            return start_response(status, headers, *exc_info)
        return app(environ, noting)

    app = create_app({"WARLOG_SERVICE": service})
    httpd = make_server("127.0.0.1", 0, counted, threaded=True, request_handler=QuietHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        client = WarlogClient(f"http://127.0.0.1:{httpd.server_port}")
        game = client.create_game("freeform", {"sides": ["Blue", "Red"]})
        blue = client.with_token(client.join(game["game_id"], game["invites"]["Blue"], "alice")["token"])
        client.join(game["game_id"], game["invites"]["Red"], "bob")
        blue.submit_order(game["game_id"], {"kind": "note", "text": "before"})
        shell.execute("BEGIN IMMEDIATE")  # a database shell's open transaction
        with pytest.raises(ProblemError) as refused:
            client.create_game("freeform", {"sides": ["Blue", "Red"]})
        assert refused.value.status == 503 and refused.value.code == "store_unavailable"
        assert [r[:2] for r in requests].count(("POST", "/api/v1/games")) == 2  # not sent again
        # The lock goes once the order's first attempt has been answered 503 (after the 1 s
        # lock timeout), before its second (Retry-After: 2 s).
        release_after_a_503.append(f"/api/v1/games/{game['game_id']}/orders")
        requests.clear()
        result = blue.submit_order(game["game_id"], {"kind": "note", "text": "held up"}, order_id="held-1")
        assert not release_after_a_503, "the order was never turned away"
        assert result["replayed"] is False
        orders = [r for r in requests if r[0] == "POST"]
        assert len(orders) == 2 and {r[2] for r in orders} == {"held-1"}  # turned away, then sent again
        stored = [line for line in service.lines(game["game_id"]) if line["type"] == "OrderAccepted"]
        assert [line["data"]["order_id"] for line in stored][-1] == "held-1" and len(stored) == 2
    finally:
        shell.close()
        httpd.shutdown()
        httpd.server_close()
        service.close()


def test_reads_of_a_damaged_game_warn_and_an_order_names_the_line(server, alice, bob):
    """A game whose stored log fails verification (docs/api.md, "Damaged logs"): every read
    command prints a warning naming the line; an order exits 1 with the server's problem."""
    from tests.integration.rawstore import RawStore
    from tests.integration.test_tamper import change_die_value

    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "roll", "2d6", "--purpose", "fire")[0] == 0
    code, out, err = alice("show", game_id)
    assert code == 0 and "warning" not in err
    service = Warlog(server.config)
    try:
        lines = [json.loads(line) for line in service.export(game_id)]
        with RawStore(server.config) as raw:
            k = change_die_value(raw, game_id, lines)
        assert not service.check_integrity(game_id).ok  # as `warlog check` finds it, and records it
    finally:
        service.close()
    code, out, err = alice("order", game_id, "note", "after")
    assert code == 1 and f"line {k}:" in err, err
    for command in ("show", "state", "history", "dice"):
        code, out, err = bob(command, game_id)
        assert code == 0, (command, err)
        assert err.count(f"warning: this game's stored log fails verification at line {k}") == 1, (command, err)
