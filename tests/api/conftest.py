"""Fixtures for the HTTP API: a Flask test client on a real store, and helpers to set up games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass, field

import pytest
from werkzeug.serving import make_server

from api.app import create_app, migrate
from domain.service import Warlog
from tests.api.serving import QuietHandler


def app_on(service: Warlog, **config):
    """The Flask app on ``service`` in testing mode, with ``config`` on top."""
    return create_app({"WARLOG_SERVICE": service, "TESTING": True, **config})


def _service(config):
    """A fixture's service on a migrated store, closed when the fixture ends."""
    migrate(config)
    service = Warlog(config)
    yield service
    service.close()


@pytest.fixture
def api_service(store_config):
    yield from _service(store_config)


@pytest.fixture
def sqlite_service(sqlite_config):
    """``api_service`` on SQLite alone."""
    yield from _service(sqlite_config)


@pytest.fixture
def client(api_service):
    return app_on(api_service).test_client()


@pytest.fixture
def sqlite_client(sqlite_service):
    """A test client on SQLite alone, for tests of the rules over HTTP, where the store is not what
    they test (``client`` runs on every store)."""
    return app_on(sqlite_service).test_client()


@pytest.fixture
def serve_stub(monkeypatch, tmp_path):
    """Serves a test's own stub of the server (a WSGI app) on a thread for the CLI run in-process
    (api.cli.main), with no server, token or proxy from the environment and a client config of its
    own: ``serve_stub(app)`` gives the stub's URL; each stub stops when the test ends."""
    for name in ("WARLOG_SERVER", "WARLOG_TOKEN", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WARLOG_CLIENT_CONFIG", str(tmp_path / "client.json"))
    served = []

    def serve(app) -> str:
        httpd = make_server("127.0.0.1", 0, app, threaded=True, request_handler=QuietHandler)
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        served.append(httpd)
        return f"http://127.0.0.1:{httpd.server_port}"

    yield serve
    for httpd in served:
        httpd.shutdown()
        httpd.server_close()


@dataclass
class ApiGame:
    """A created (and by default fully joined) game, with the tokens of every role."""

    game_id: str
    admin: dict
    seats: dict = field(default_factory=dict)  # seat -> Authorization header
    invites: dict = field(default_factory=dict)
    umpire: dict | None = None  # the Authorization header of the umpire token ``umpire()`` got

    def order(self, client, seat, order, key, **headers):
        return client.post(f"/api/v1/games/{self.game_id}/orders", json=order,
                           headers={**self.seats[seat], "Idempotency-Key": key, **headers})

    def send(self, client, seat, order):
        """An order under a fresh Idempotency-Key; whatever it is, never a 5xx."""
        r = self.order(client, seat, order, uuid.uuid4().hex)
        assert r.status_code < 500, r.json
        return r

    def refused(self, client, seat, order) -> dict:
        """The problem of an order refused as malformed (422 invalid_order)."""
        r = self.send(client, seat, order)
        assert r.status_code == 422 and r.json["code"] == "invalid_order", (order, r.json)
        return r.json

    def version(self, client, seat) -> int:
        return client.get(f"/api/v1/games/{self.game_id}", headers=self.seats[seat]).json["version"]


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def make_game(client, sides=("Blue", "Red"), public=False, join=True, umpire_named: str | None = None,
              **options) -> ApiGame:
    body = {"ruleset": "freeform", "public": public, "options": {"sides": list(sides), **options}}
    if umpire_named is not None:
        body["umpire"] = umpire_named
    return start_game(client, body, join=join)


def start_game(client, body: dict, join: bool = True) -> ApiGame:
    """A game created from ``body`` and, with ``join``, every seat joined (handle: its name)."""
    r = client.post("/api/v1/games", json=body)
    assert r.status_code == 201, r.json
    game = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    if join:
        for seat, code in r.json["invites"].items():
            j = client.post(f"/api/v1/games/{game.game_id}/join",
                            json={"invite_code": code, "handle": seat.lower(), "client_seed": f"cs-{seat}"})
            assert j.status_code == 201, j.json
            game.seats[seat] = bearer(j.json["token"])
    return game


def proving_game(client, scenario: str | None = None) -> ApiGame:
    """A proving-ground game (domain/rulesets/proving/), both seats joined."""
    return start_game(client, {"ruleset": "proving", **({"scenario": scenario} if scenario else {})})


def appoint_umpire(client, game: ApiGame, name: str = "Ann the umpire") -> None:
    """The seats agree to an umpire: the admin proposes, every seat accepts."""
    r = client.post(f"/api/v1/games/{game.game_id}/umpire", json={"umpire": name}, headers=game.admin)
    assert r.status_code == 201, r.json
    for seat, headers in game.seats.items():
        r = client.post(f"/api/v1/games/{game.game_id}/umpire/answer", json={"accept": True}, headers=headers)
        assert r.status_code == 200, r.json
    assert r.json["events"][-1]["type"] == "UmpireAppointed", r.json


def umpire(client, game: ApiGame) -> dict:
    """An umpire token of the game (the same one each time), got the only way there is: the seats
    agree to an umpire (unless one is appointed already), then the admin issues the token."""
    if game.umpire is None:
        listed = client.get(f"/api/v1/games/{game.game_id}/umpire-tokens", headers=game.admin)
        assert listed.status_code == 200, listed.json
        if listed.json["umpire"] is None:
            appoint_umpire(client, game)
        r = client.post(f"/api/v1/games/{game.game_id}/umpire-tokens", headers=game.admin)
        assert r.status_code == 201, r.json
        game.umpire = bearer(r.json["token"])
    return game.umpire


def export_events(text: str) -> list[str]:
    """The event lines of an export's text: a format-2 game's begins with its header line."""
    lines = text.splitlines()
    return lines[1:] if lines and lines[0].startswith('{"warlog_export"') else lines


def export_verifies(client, game_id: str, headers: dict, path) -> str:
    """The game's export, as ``headers`` may read it, written to ``path`` and checked offline by
    ``warlog verify`` in a process of its own with no store configured (what a player would run);
    returns what it printed."""
    export = client.get(f"/api/v1/games/{game_id}/export", headers=headers)
    assert export.status_code == 200
    path.write_bytes(export.data)
    env = {**os.environ, "WARLOG_DATA_DIR": str(path.parent / "cli")}
    env.pop("WARLOG_DATABASE_URL", None)
    checked = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = [json.loads(text) for text in export.data.decode().splitlines()]
    lines = lines[1:] if "warlog_export" in lines[0] else lines  # export v2's header line
    assert lines[0]["data"]["format"] == 2 and "DiceCommitted" in {line["type"] for line in lines}, \
        "a game made now is format 2, its dice scheme 2"
    if "DiceEpochRevealed" in {line["type"] for line in lines} and "DiceRolled" in {line["type"] for line in lines}:
        assert " 0 rolls (" not in checked.stdout, checked.stdout  # its dice were checked, not skipped
    return checked.stdout
