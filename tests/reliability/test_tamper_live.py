"""Tampering below a running server, on SQLite and PostgreSQL: every change, deletion, insertion and
reordering of stored events (the tampers of tests/integration/test_tamper.py, done by SQL on the
server's own store) is flagged by

- the integrity endpoint (``GET /api/v1/games/<id>/integrity``): ``ok: false`` for that game,
  its first failure at the tampered event's seq (an umpire also sees why; a seat sees the line);
- ``warlog verify`` of the game's export (``warlog export``, read from the store the way an
  operator does): exit status 1, ``FAILED game <id>``, the same line first;
- and the real commands end to end once per store: ``warlog export --server`` with an umpire
  token then ``warlog verify``, and ``warlog check``.

Games the tampering did not touch still verify. test_tamper.py checks the same tampers through
the application service (check_integrity, verify_text, import).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from api import cli
from domain.service import Warlog
from tests.e2e.server import ROOT
from tests.integration.rawstore import RawStore
from tests.integration.test_tamper import TAMPERS, change_die_value, other_face
from tests.reliability.client import Game, Http, assert_no_secret_in_log


def played(http: Http) -> Game:
    """The game of test_tamper.played_game, over HTTP: rolls in a revealed epoch (0) and in an
    open one (1), VP, phases, a note."""
    game = Game(http, phases=["Move", "Fight"])
    game.order("Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire"}, "r1")
    game.order("Red", {"kind": "vp", "side": "Red", "delta": 3, "reason": "town"}, "v1")
    game.order("Blue", {"kind": "advance"}, "a1")
    game.order("Red", {"kind": "roll", "dice": "3d6", "purpose": "morale"}, "r2")
    game.order("Blue", {"kind": "advance"}, "a2")
    game.order("Blue", {"kind": "roll", "dice": "d10", "purpose": "weather"}, "r3")
    game.order("Red", {"kind": "note", "text": "dug in"}, "n1")
    return game


def warlog(store, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("WARLOG_")}
    environ.update(store.process_env(), WARLOG_CLIENT_CONFIG=str(store.directory / "client.json"), **env)
    return subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=ROOT, env=environ, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_every_tamper_is_flagged_by_the_integrity_endpoint_and_by_verify_of_the_export(store, tmp_path, capsys):
    with store.serve(WEB_CONCURRENCY="1") as url:
        http = Http(url)
        games = {tamper.__name__: played(http) for tamper in TAMPERS}
        untouched = played(http)
        expected = {}
        with RawStore(store.config) as raw:
            for tamper in TAMPERS:
                game = games[tamper.__name__]
                intact = game.export()
                assert game.integrity()["ok"] is True
                before = raw.events(game.id)
                expected[tamper.__name__] = tamper(raw, game.id, intact)
                assert raw.events(game.id) != before, tamper.__name__

        service = Warlog(store.config)
        try:
            for name, game in games.items():
                seq = expected[name]
                # The integrity endpoint flags the game and names the event.
                report = game.integrity()
                assert report["game_id"] == game.id and report["ok"] is False, (name, report)
                assert report["failures"][0]["line"] == seq, (name, report)
                assert report["failures"][0]["message"], name
                seat_view = http.call("GET", game.path("/integrity"), token=game.tokens["Red"])
                assert seat_view.status == 200 and seat_view.body["ok"] is False, (name, seat_view.raw)
                assert seat_view.body["failures"][0]["line"] == seq, name
                # warlog verify of its export: FAILED, naming the game and the same line first.
                exported = tmp_path / f"{name}.jsonl"
                exported.write_text("".join(line + "\n" for line in service.export(game.id)), encoding="utf-8")
                capsys.readouterr()
                assert cli.main(["verify", str(exported)]) == cli.EXIT_FAILED, name
                out = capsys.readouterr().out
                assert out.startswith(f"FAILED game {game.id}:"), (name, out)
                assert out.splitlines()[1].startswith(f"  line {seq}:"), (name, out)
            # The game nobody touched still verifies, through both.
            assert untouched.integrity()["ok"] is True
            clean = tmp_path / "untouched.jsonl"
            clean.write_text("".join(line + "\n" for line in service.export(untouched.id)), encoding="utf-8")
            assert cli.main(["verify", str(clean)]) == cli.EXIT_OK
        finally:
            service.close()

        # The real commands, end to end: an umpire downloads the export from the server and
        # verifies it offline; an operator checks a game whose rows were deleted and moved.
        forged = games["change_die_value"]
        umpire = forged.umpire
        done = warlog(store, "export", forged.id, "--server", url, "--token", umpire, "-o", str(tmp_path / "dl.jsonl"))
        assert done.returncode == 0, done.stderr
        done = warlog(store, "verify", str(tmp_path / "dl.jsonl"))
        assert done.returncode == 1 and done.stdout.startswith(f"FAILED game {forged.id}:"), done.stdout
        assert f"\n  line {expected['change_die_value']}:" in done.stdout
        for name in ("delete_a_middle_event", "move_a_roll_to_the_end"):
            done = warlog(store, "check", games[name].id)
            assert done.returncode == 1, (name, done.stdout, done.stderr)
            assert done.stdout.startswith(f"FAILED game {games[name].id}:"), done.stdout
            assert done.stdout.splitlines()[1].startswith(f"  line {expected[name]}:"), done.stdout
        assert_no_secret_in_log(http, url.log())


@pytest.mark.parametrize("tamper", ["delete_a_middle_event", "swap_two_adjacent_events"])
def test_a_game_whose_log_no_longer_loads_answers_damaged_log_naming_it(store, tamper):
    """Commands and reads that load the game answer 409 damaged_log naming the game and the first
    bad line; the integrity endpoint still reports; the server log holds no token of the
    requests."""
    with store.serve(WEB_CONCURRENCY="1") as url:
        http = Http(url)
        game = played(http)
        with RawStore(store.config) as raw:
            {t.__name__: t for t in TAMPERS}[tamper](raw, game.id, game.export())
        legal = http.call("GET", game.path("/legal-orders"), token=game.tokens["Blue"])
        order = http.call("POST", game.path("/orders"), {"kind": "note", "text": "x"}, token=game.tokens["Blue"],
                          headers={"Idempotency-Key": "after-tamper"})
        report = game.integrity()
        assert report["ok"] is False and report["failures"], report
        first = report["failures"][0]["line"]
        for reply in (legal, order):
            assert reply.status == 409, reply.raw
            assert reply.body["code"] == "damaged_log" and game.id in reply.body["detail"], reply.raw
            assert reply.body["line"] == first, reply.raw
        # A read that filters the log for a seat cannot tell what a misfit line hides: 409
        # damaged_log as well, never an unhandled error.
        take_backs = http.call("GET", game.path("/take-backs"), token=game.tokens["Red"])
        assert take_backs.status == 409 and take_backs.body["code"] == "damaged_log", take_backs.raw
        assert_no_secret_in_log(http, url.wait_for_log(game.path("/integrity")))


def test_a_tampered_game_stops_taking_orders_and_says_so_until_an_operator_accepts(store):
    """The issue's case: one stored die changed below a running server of two web workers, each
    holding the game in its cache (a cached copy reads only the rows after its version, so the
    change goes unnoticed by orders). The integrity endpoint finds it and records it: from then
    on orders are refused naming the line, on every worker; every read says so and the dice
    audit shows the stored face, no longer "verified"; ``warlog check`` says the game is stopped;
    the operator's ``--accept-damage`` lets it play on, recorded."""
    with store.serve(WEB_CONCURRENCY="2") as url:
        http = Http(url)
        game = played(http)
        for n in range(4):  # orders and reads reach both workers: each caches the game
            game.order("Red", {"kind": "note", "text": f"warm {n}"}, f"warm-{n}")
        dice = http.call("GET", game.path("/dice"), token=game.umpire).body["rolls"][0]
        assert dice["status"] == "verified"
        with RawStore(store.config) as raw:
            k = change_die_value(raw, game.id, game.export())
        assert k == dice["seq"]
        assert game.integrity()["ok"] is False

        for n in range(4):
            refused = game.order("Blue", {"kind": "note", "text": "after"}, f"after-{n}", expect=409)
            assert refused.body["code"] == "damaged_log" and refused.body["line"] == k, refused.raw
        for n in range(2):
            read = http.call("GET", game.path("/dice"), token=game.tokens["Red"])
            assert read.status == 200 and read.headers.get("Warlog-Damaged") == str(k), read.headers
            roll = read.body["rolls"][0]
            assert roll["dice"][0]["value"] == other_face(dice["dice"][0]) and roll["status"] == "failed", roll
        summary = http.call("GET", game.path(), token=game.tokens["Blue"]).body
        assert summary["damaged"] == {"line": k, "accepted": False, "accepted_at": None, "reason": None}

        done = warlog(store, "check", game.id)
        assert done.returncode == 1 and "DAMAGED: the game takes no orders" in done.stdout, done.stdout
        done = warlog(store, "check", game.id, "--accept-damage", "the players agree the stored face stands")
        assert done.returncode == 1 and f"accepted by the operator: line(s) {k} (" in done.stdout, done.stdout

        for n in range(4):
            game.order("Blue", {"kind": "note", "text": "played on"}, f"on-{n}")
        read = http.call("GET", game.path(), token=game.tokens["Red"])
        assert "Warlog-Damaged" not in read.headers
        assert read.body["damaged"]["accepted"] is True
        assert read.body["damaged"]["reason"] == "the players agree the stored face stands"
        assert game.integrity()["ok"] is False
