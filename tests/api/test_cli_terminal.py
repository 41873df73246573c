"""Stored text reaches the terminal escaped (issue 29, item 4): a note, a purpose, a handle or a
side name holding ESC, CR, NUL or a bidi override cannot fake lines in a player's terminal.

The server here is a stub answering with such text, as a store written before the server refused
it at the door would; the CLI runs in-process (api.cli.main)."""

from __future__ import annotations

import json

import pytest

from api.cli import main, terminal_safe

GAME = "0f0f0f0f-0000-4000-8000-000000000000"
EVIL = "took the bridge\x1b[2K\r#99 Red concedes\x00\u202eevil\u2066"
SIDE = "Red\x1b]0;owned\x07"


def body_for(path: str) -> object:
    line = {"seq": 7, "type": "OrderAccepted", "text": f"{SIDE} orders note: {EVIL}"}
    game = {"game_id": GAME, "ruleset": "freeform", "status": "active", "turn": 1, "phase": "Move",
            "whose_move": [SIDE], "version": 7, "chain_head": "ab" * 32,
            "seats": [{"seat": SIDE, "handle": EVIL}], "vp": {SIDE: 1}}
    bodies = {
        f"/api/v1/games/{GAME}": game,
        "/api/v1/games": {"games": [game]},
        f"/api/v1/games/{GAME}/history": {"turns": [{"turn": 1, "phases": [{"phase": "Move\x1b[31m", "operations": [
            {"seat": SIDE, "order_id": "o\r1", "lines": [line]}]}]}]},
        f"/api/v1/games/{GAME}/state": {"game_id": GAME, "version": 7, "turn": 1, "phase": "Move",
                                        "whose_move": [SIDE], "ended": None,
                                        "state": {"turn": 1, "phase": "Move", "vp": {SIDE: 1}, "notes": EVIL}},
        f"/api/v1/games/{GAME}/dice": {"rolls": [{"seq": 8, "seat": SIDE, "purpose": EVIL, "text": f"{SIDE} rolled {EVIL}",
                                                  "turn": 1, "epoch": 0, "status": "unrevealed"}]},
        f"/api/v1/games/{GAME}/legal-orders": {"seat": SIDE, "orders": [
            {"kind": "note", "rule": "FF 2", "fields": {"text": EVIL}}]},
    }
    return bodies.get(path)


def stub(environ, start_response):
    path = environ["PATH_INFO"]
    if path.endswith("/events/stream"):
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        data = json.dumps({"seq": 7, "type": "OrderAccepted", "text": f"{SIDE} orders note: {EVIL}"})
        return [f"id: 7\nevent: OrderAccepted\ndata: {data}\n\n".encode()]
    if path.endswith("/export"):
        start_response("200 OK", [("Content-Type", "application/x-ndjson")])
        line = {"seq": 1, "type": "OrderAccepted", "data": {"order": {"kind": "note", "text": EVIL}}}
        return [(json.dumps(line, ensure_ascii=False) + "\n").encode()]
    body = body_for(path)
    if body is None:
        start_response("404 Not Found", [("Content-Type", "application/problem+json")])
        return [json.dumps({"code": "game_not_found", "detail": f"no game {EVIL}"}).encode()]
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps(body).encode()]


@pytest.fixture
def stub_server(serve_stub):
    return serve_stub(stub)


UNSAFE = ["\x1b", "\r", "\x00", "\x07", "\u202e", "\u2066"]


@pytest.mark.parametrize("argv", [["history", GAME], ["show", GAME], ["games"], ["state", GAME], ["dice", GAME],
                                  ["legal", GAME], ["watch", GAME, "--count", "1"]])
def test_every_human_readable_output_shows_control_and_bidi_characters_escaped(stub_server, capsys, argv):
    code = main([*argv, "--server", stub_server, "--token", "wls_x"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not [c for c in UNSAFE if c in out + err], repr(out)
    assert "\\x1b" in out and "U+202E" in out  # shown, not hidden
    assert all(line.count("#99 Red concedes") <= 1 for line in out.splitlines())
    assert not any(line.startswith("#99") for line in out.splitlines())  # no faked line


@pytest.mark.parametrize("argv", [["history", GAME], ["watch", GAME, "--count", "1"]])
def test_json_output_escapes_them_as_json_and_decodes_to_the_same_text(stub_server, capsys, argv):
    code = main([*argv, "--server", stub_server, "--token", "wls_x", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not [c for c in UNSAFE if c in out], repr(out)
    decoded = json.loads(out.splitlines()[0]) if argv[0] == "watch" else json.loads(out)
    if argv[0] == "history":
        decoded = decoded["turns"][0]["phases"][0]["operations"][0]["lines"][0]
    assert decoded["text"] == f"{SIDE} orders note: {EVIL}"  # the same text, only escaped


def test_an_error_message_quoting_stored_text_is_escaped_too(stub_server, capsys):
    code = main(["show", "1f1f1f1f-0000-4000-8000-000000000000", "--server", stub_server])
    out, err = capsys.readouterr()
    assert code == 1 and "no game took the bridge\\x1b[2K\\x0d" in err
    assert not [c for c in UNSAFE if c in err]


def test_terminal_safe_keeps_ordinary_text_and_escapes_each_kind():
    assert terminal_safe("Sea Area 4 — Port Stanley, ≤ 3, ünïcode") == "Sea Area 4 — Port Stanley, ≤ 3, ünïcode"
    assert terminal_safe("a\x1bb\rc\nd\x00e\x9bf\u202eg\u2028h") == "a\\x1bb\\x0dc\\x0ad\\x00e\\x9bfU+202EgU+2028h"


def test_an_export_shown_on_a_terminal_is_escaped_and_one_written_to_a_file_is_exact(stub_server, capsys,
                                                                                  monkeypatch, tmp_path):
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code = main(["export", GAME, "--server", stub_server, "--token", "wls_x"])
    out, err = capsys.readouterr()
    assert code == 0 and r"\u202e" in out and "\u202e" not in out and "\x1b" not in out
    assert json.loads(out)["data"]["order"]["text"] == EVIL  # the same line, decoded
    kept = tmp_path / "game.jsonl"
    assert main(["export", GAME, "--server", stub_server, "--token", "wls_x", "-o", str(kept)]) == 0
    assert "\u202e" in kept.read_text() and r"\u202e" not in kept.read_text()  # the bytes as served
