"""The ninth attack round: what a client could make the server record that it should not (a field
no order has, a name that is not one line, a seat key anyone can sign for), query numbers that are
not digits, and 'warlog import' before 'warlog migrate'; each answered as the service promises
(docs/api.md, docs/rulesets.md, docs/dice.md). SQLite only: what these tests check is the API's
answer, not the store."""

from __future__ import annotations

import pytest

from tests.api.conftest import make_game


def url(game, tail=""):
    return f"/api/v1/games/{game.game_id}{tail}"


# ------------------------------------------------- FF 2-9: an order holds its kind's fields ----
@pytest.mark.parametrize("order, rule, field", [
    ({"kind": "note", "text": "3 Bde is really at the ford", "Private": True}, "FF 2", "Private"),
    ({"kind": "note", "text": "3 Bde is really at the ford", "privat": True}, "FF 2", "privat"),
    ({"kind": "roll", "dice": "2d6", "purpose": "scouting", "seal": True}, "FF 3", "seal"),
    ({"kind": "vp", "side": "Blue", "delta": 1, "reason": "town", "seat": "Red"}, "FF 4", "seat"),
    ({"kind": "advance", "phase": "Fight"}, "FF 2", "phase"),
    ({"kind": "end", "winner": "Blue", "reason": "done", "winer": "Red"}, "FF 5", "winer"),
])
def test_a_freeform_order_with_a_field_its_kind_does_not_have_is_refused_naming_the_rule(
        sqlite_client, order, rule, field):
    """A misspelt field was recorded in silence: a note meant private with "Private": true was
    recorded as a public note, its text shown to every seat and spectator (FF 7)."""
    c = sqlite_client
    game = make_game(c, public=True)
    before = c.get(url(game)).json["version"]
    r = game.order(c, "Blue", order, "o-1")
    assert r.status_code == 422 and r.json["code"] == "invalid_order", r.json
    assert (r.json["rule"], r.json["field"]) == (rule, field), r.json
    assert f"'{field}' is not a field of {order['kind']}" in r.json["detail"], r.json
    assert c.get(url(game)).json["version"] == before  # nothing recorded
    assert "3 Bde" not in c.get(url(game, "/export")).get_data(as_text=True)


@pytest.mark.parametrize("order", [
    {"kind": "note", "text": "t", "private": False, "fields": {"any": ["of", "mine"]}},
    {"kind": "roll", "dice": "2d6", "purpose": "p", "rule": "8.2", "units": ["3 Bde"], "private": False,
     "target": {"compare": ">=", "value": 8}, "sealed": False},
    {"kind": "vp", "side": "Blue", "delta": 2, "reason": "town", "rule": "13.1"},
    {"kind": "end", "winner": None, "level": "marginal", "reason": "turn 6"},
])
def test_every_field_freeform_lists_for_a_kind_is_taken(sqlite_client, order):
    c = sqlite_client
    game = make_game(c)
    r = game.order(c, "Blue", order, "o-1")
    assert r.status_code == 201, r.json


# ------------------------------------------------- names are printable text on one line ----
# A handle and a side's name are printable characters on one line; an umpire's name and a
# spectator's were taken with a newline, a tab, a line separator or an invisible mark in them.
NOT_ONE_LINE = ["Ann\nSmith", "Ann\tSmith", "Ann\u2028Smith", "\u200fAnn", "Ann\u200b"]


@pytest.mark.parametrize("name", NOT_ONE_LINE)
def test_an_umpire_named_at_creation_by_what_is_not_one_printable_line_is_refused(sqlite_client, name):
    r = sqlite_client.post("/api/v1/games", json={"ruleset": "freeform", "umpire": name})
    assert r.status_code == 422 and r.json["code"] == "invalid_setup", r.json
    assert "printable characters on one line" in r.json["detail"], r.json


@pytest.mark.parametrize("name", NOT_ONE_LINE)
def test_an_umpire_proposed_by_what_is_not_one_printable_line_is_refused_naming_the_rule(sqlite_client, name):
    c = sqlite_client
    game = make_game(c)
    before = c.get(url(game), headers=game.admin).json["version"]
    r = c.post(url(game, "/umpire"), json={"umpire": name}, headers=game.admin)
    assert r.status_code == 422 and (r.json["rule"], r.json["field"]) == ("umpire", "umpire"), r.json
    assert c.get(url(game), headers=game.admin).json["version"] == before


@pytest.mark.parametrize("name", NOT_ONE_LINE)
def test_a_sandbox_whose_umpire_is_not_one_printable_line_is_refused(sqlite_client, name):
    c = sqlite_client
    game = make_game(c, public=True)
    r = c.post(url(game, "/sandbox"), json={"at": 3, "umpire": name}, headers=game.seats["Blue"])
    assert r.status_code == 422 and r.json["code"] == "invalid_setup", r.json


@pytest.mark.parametrize("name", NOT_ONE_LINE)
def test_a_spectator_named_by_what_is_not_one_printable_line_is_refused(sqlite_client, name):
    c = sqlite_client
    game = make_game(c)
    r = c.post(url(game, "/spectator-tokens"), json={"name": name}, headers=game.admin)
    assert r.status_code == 422 and r.json["code"] == "invalid_request" and "name" in r.json["errors"], r.json
    assert c.get(url(game, "/spectator-tokens"), headers=game.admin).json["tokens"] == []


def test_an_umpire_and_a_spectator_named_in_any_script_are_taken(sqlite_client):
    c = sqlite_client
    game = make_game(c, umpire_named="Ана Шмидт, 審判")
    assert c.post(url(game, "/spectator-tokens"), json={"name": "Sam O'Neil (زائر)"}, headers=game.admin).status_code == 201


# --------------------------------------------------------- warlog import, before migrate ----
def test_an_import_into_a_store_whose_tables_were_never_made_says_to_migrate_without_a_traceback(
        sqlite_client, tmp_path, monkeypatch, capsys):
    """README: "warlog migrate  # create the tables once", then "warlog import game.jsonl". A new
    operator who imports first (a fresh WARLOG_DATA_DIR) got eventsourcing's "no such table:
    stored_events" traceback; after 'warlog migrate' the same file imports."""
    from api.cli import main

    game = make_game(sqlite_client)
    path = tmp_path / "game.jsonl"
    path.write_bytes(sqlite_client.get(url(game, "/export"), headers=game.seats["Blue"]).data)
    monkeypatch.setenv("WARLOG_DATA_DIR", str(tmp_path / "fresh"))
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    code = main(["import", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("warlog import: no warlog tables at sqlite:"), err
    assert "'warlog migrate'" in err and "Traceback" not in err, err
    assert main(["migrate"]) == 0
    capsys.readouterr()
    assert main(["import", str(path)]) == 0
    assert capsys.readouterr().out == f"imported game {game.game_id}\n"


# ------------------------------------------------- query numbers are ASCII digits ----
@pytest.mark.parametrize("query", ["events?after=%D9%A3", "events?after=%EF%BC%91", "events?limit=1_0",
                                   "events?after=%2B1", "events?after=%201", "state?at=%EF%BC%91",
                                   "state?at=0_1", "state?turn=%D9%A1", "dice?turn=%2B1", "statistics?version=%D9%A3"])
def test_a_query_number_that_is_not_ascii_digits_is_refused_as_the_stream_refuses_it(sqlite_client, query):
    """docs/api.md: a seq, a turn, a limit is a whole number. /events?after=٣ was read as 3 (and
    limit=1_0 as 10, after=+1 as 1) where /events/stream refuses the same 'after' with 400."""
    c = sqlite_client
    game = make_game(c)
    r = c.get(url(game, f"/{query}"), headers=game.seats["Blue"])
    assert r.status_code == 422 and r.json["code"] == "invalid_request", r.get_data(as_text=True)
    assert query.split("?")[1].split("=")[0] in r.json["errors"], r.json
    assert c.get(url(game, "/events/stream?after=%D9%A3"), headers=game.seats["Blue"]).status_code == 400


def test_a_query_number_in_ascii_digits_is_taken(sqlite_client):
    c = sqlite_client
    game = make_game(c)
    r = c.get(url(game, "/events?after=3&limit=2"), headers=game.seats["Blue"])
    assert r.status_code == 200 and [e["seq"] for e in r.json["events"]] == [4, 5], r.json
    assert c.get(url(game, "/state?at=007"), headers=game.seats["Blue"]).json["version"] == 7


# ------------------------------------------- a seat's key must be one only its holder signs for ----
SMALL_ORDER_KEYS = [  # Ed25519 points of order 1, 2, 4 and 8, as unpadded base64url
    "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIA", "7P_______________________________________38",
    "JuiVj8KyJ7BFw_SJ8u-Y8NXfrAXTxjM5sTgCiG1T_AU", "xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA3o"]


def forged_with_a_small_order_key(config) -> list[str]:
    """tests/tampers.py's signed game with the identity point in place of Blue's key and every
    signature of Blue's forged as R = identity, S = 0 (which verifies for that key and any
    message), the chain and the heads signed over rewritten as a forger would: the file's lines."""
    from domain import chain, signatures
    from domain.service import Warlog
    from domain.verify import dumps
    from tests.tampers import signed_game

    app = Warlog(config, create_tables=True)
    try:
        export = signed_game(app)
    finally:
        app.close()
    lines, forged, renamed = export.lines(), signatures.b64url(bytes([1]) + bytes(63)), {}
    for n, line in enumerate(lines):
        if line["type"] == "SeatKeyRegistered":
            line["data"]["public_key"] = SMALL_ORDER_KEYS[0]
        if line["type"] in ("OrderSigned", "CommandSigned") and line["data"]["seat"] == "Blue":
            line["data"]["signature"] = forged
            line["data"]["head"] = renamed.get(line["data"]["head"], line["data"]["head"])
        line["prev_hash"] = lines[n - 1]["hash"] if n else line["prev_hash"]
        old, line["hash"] = line["hash"], chain.line_hash(line)
        renamed[old] = line["hash"]
    return [*export.header, *(dumps(line) for line in lines)]


def test_an_export_whose_seat_key_is_of_small_order_does_not_verify_though_every_signature_checks(sqlite_config):
    """docs/dice.md: "the server, which does not hold the seat's private key, cannot write one the
    seat did not sign". With a key of small order it can: the forged file verified "OK ... 2 signed
    order(s) verified; 1 signed command(s) verified"."""
    from domain.verify import verify_text

    text = forged_with_a_small_order_key(sqlite_config)
    report, lines = verify_text(text)
    assert not report.ok, report.summary()
    failure = report.failures[0]
    assert "small order" in failure[1] and lines[failure[0] - 1]["type"] == "SeatKeyRegistered", report.failures


@pytest.mark.parametrize("key", SMALL_ORDER_KEYS)
def test_a_seat_key_of_small_order_is_refused_at_the_join_and_the_seat_stays_free(sqlite_client, key):
    c = sqlite_client
    game = make_game(c, join=False)
    r = c.post(url(game, "/join"), json={"invite_code": game.invites["Blue"], "handle": "alice", "public_key": key})
    assert r.status_code == 422 and r.json["field"] == "public_key" and "small order" in r.json["detail"], r.json
    seats = c.get(url(game), headers=game.admin).json["seats"]
    assert not any(s["joined"] for s in seats), seats
    from domain import signatures
    good = signatures.public_key_of(signatures.new_private_key())
    r = c.post(url(game, "/join"), json={"invite_code": game.invites["Blue"], "handle": "alice", "public_key": good})
    assert r.status_code == 201, r.json


def test_an_import_of_a_file_that_does_not_verify_into_a_store_without_tables_names_the_file(
        sqlite_client, tmp_path, monkeypatch, capsys):
    """The file's own refusal comes first: the tables are named only when the store fails."""
    from api.cli import main

    game = make_game(sqlite_client)
    lines = sqlite_client.get(url(game, "/export"), headers=game.seats["Blue"]).get_data(as_text=True).splitlines()
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(lines[:2] + lines[3:]) + "\n")  # an event left out
    monkeypatch.setenv("WARLOG_DATA_DIR", str(tmp_path / "fresh"))
    monkeypatch.delenv("WARLOG_DATABASE_URL", raising=False)
    code = main(["import", str(path)])
    err = capsys.readouterr().err
    assert code == 1 and "line 2" in err and "migrate" not in err, err
