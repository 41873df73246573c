"""Input the door refuses (api/jsonbody.py) and the rules refuse (FF 1-4): every number, depth,
length and count bounded, no non-finite number, unpaired surrogate or control character, and the
right 4xx. Each refusal records nothing, and the game's reads (events, frames, export) still work."""

from __future__ import annotations

import io
import json

import pytest

from tests.api.conftest import make_game

DEEP = "[" * 10_000 + "]" * 10_000


def send(client, method, path, raw, headers=None, **kwargs):
    """A raw JSON body (text the test client would not make from a dict: NaN, lone surrogates)."""
    return client.open(path, method=method, data=raw,
                       headers={"Content-Type": "application/json", **(headers or {})}, **kwargs)


# The version of a started game: GameCreated, two DiceCommitted (the open stream's epoch 0 and the
# sealed dice), two SeatJoined, DiceEpochOpened, DiceCommitted (epoch 1); a refused body records
# nothing after it.
STARTED = 7


def version(client, game) -> int:
    return client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).json["version"]


def assert_problem(r, status, code):
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json" and r.json["code"] == code, r.json
    assert "sys." not in r.json["detail"] and "Traceback" not in r.json["detail"]
    return r.json


def assert_reads_work(client, game):
    """Every reader of the log still answers with JSON it can parse strictly (no bare NaN)."""
    blue = game.seats["Blue"]
    for path in ("events", "frames", "export", "state", "history"):
        r = client.get(f"/api/v1/games/{game.game_id}/{path}", headers=blue)
        assert r.status_code == 200, (path, r.get_data(as_text=True)[:300])
        for text in r.get_data(as_text=True).splitlines():
            json.loads(text, parse_constant=lambda c: pytest.fail(f"/{path} holds {c}"))


def order(client, game, raw, key, seat="Blue", **headers):
    return send(client, "POST", f"/api/v1/games/{game.game_id}/orders", raw,
                {**game.seats[seat], "Idempotency-Key": key, **headers})


# ------------------------------------------------------------------ every body, at the door ----
def _endpoints(game):
    g = f"/api/v1/games/{game.game_id}"
    blue, admin = game.seats["Blue"], game.admin
    return {
        "create": ("POST", "/api/v1/games", {}),
        "join": ("POST", f"{g}/join", {}),
        "client-seed": ("PUT", f"{g}/client-seed", blue),
        "orders": ("POST", f"{g}/orders", {**blue, "Idempotency-Key": "k"}),
        "take-back": ("POST", f"{g}/take-backs", blue),
        "take-back answer": ("POST", f"{g}/take-backs/answer", blue),
        "notifications": ("PUT", f"{g}/notifications", blue),
        "webhook": ("PUT", f"{g}/webhook", admin),
    }


ENDPOINTS = ["create", "join", "client-seed", "orders", "take-back", "take-back answer", "notifications",
             "webhook"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_json_nested_10000_deep_is_refused_on_every_endpoint_that_reads_a_body(client, endpoint):
    game = make_game(client)
    method, path, headers = _endpoints(game)[endpoint]
    body = assert_problem(send(client, method, path, '{"x": ' + DEEP + "}", headers), 422, "invalid_request")
    assert "nested deeper than 16" in body["detail"]
    assert version(client, game) == STARTED


@pytest.mark.parametrize("endpoint, raw", [
    ("create", '{"ruleset": "freeform", "scenario": "\\ud800"}'),
    ("create", '{"ruleset": "freeform", "options": {"sides": ["Blue", "\\udfff"]}}'),
    ("join", '{"invite_code": "wli_x", "handle": "\\ud800"}'),
    ("join", '{"invite_code": "wli_x", "handle": "eve", "client_seed": "\\ud800"}'),
    ("client-seed", '{"client_seed": "\\ud800"}'),
    ("take-back", '{"reason": "\\ud800"}'),
    ("webhook", '{"url": "https://example.org/\\ud800"}'),
    ("webhook", '{"url": "https://example.org/", "secret": "0123456789abcdef\\ud800"}'),
    ("orders", '{"kind": "roll", "dice": "1d6", "purpose": "\\ud800"}'),
    ("orders", '{"kind": "note", "text": "x", "fields": {"\\ud800": 1}}'),
    ("orders", '{"kind": "note", "text": "x", "fields": {"a": ["\\udc00"]}}'),
    ("notifications", '{"notify": false, "email": "\\ud800@example.org"}'),
])
def test_a_lone_surrogate_is_refused_on_every_path(client, endpoint, raw):
    game = make_game(client)
    method, path, headers = _endpoints(game)[endpoint]
    body = assert_problem(send(client, method, path, raw, headers), 422, "invalid_request")
    assert "unpaired surrogate" in body["detail"]
    assert version(client, game) == STARTED
    assert_reads_work(client, game)


@pytest.mark.parametrize("constant", ["NaN", "-Infinity", "Infinity"])
def test_non_finite_numbers_in_an_order_s_fields_are_refused_and_the_log_stays_json(client, constant):
    game = make_game(client)
    r = order(client, game, '{"kind": "note", "text": "x", "fields": {"range": ' + constant + "}}", "nan")
    assert_problem(r, 400, "bad_request")
    assert version(client, game) == STARTED
    assert_reads_work(client, game)


def test_a_number_too_large_for_a_double_is_refused(client):
    game = make_game(client)
    body = assert_problem(order(client, game, '{"kind": "note", "text": "x", "fields": {"r": 1e400}}', "big"),
                          422, "invalid_request")
    assert "too large" in body["detail"]
    assert version(client, game) == STARTED


@pytest.mark.parametrize("delta", [str(2**63), "1" + "0" * 400, "-" + str(2**53)])
def test_a_vp_delta_beyond_2_53_is_refused_at_the_door_and_frames_still_work(client, delta):
    game = make_game(client)
    raw = '{"kind": "vp", "side": "Blue", "delta": ' + delta + ', "reason": "x"}'
    assert_problem(order(client, game, raw, "vp"), 422, "invalid_request")
    assert version(client, game) == STARTED
    assert_reads_work(client, game)


@pytest.mark.parametrize("delta", [2**53 - 1, 1_000_001, -1_000_001])
def test_a_vp_delta_beyond_the_track_is_refused_by_ff_4(client, delta):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", headers={**game.seats["Blue"], "Idempotency-Key": "v"},
                    json={"kind": "vp", "side": "Blue", "delta": delta, "reason": "x"})
    body = assert_problem(r, 422, "invalid_order")
    assert body["rule"] == "FF 4" and body["field"] == "delta"
    assert version(client, game) == STARTED
    assert_reads_work(client, game)


def test_a_vp_total_beyond_the_track_is_refused_by_ff_4(client):
    game = make_game(client)
    blue = {**game.seats["Blue"]}
    ok = client.post(f"/api/v1/games/{game.game_id}/orders", headers={**blue, "Idempotency-Key": "v1"},
                     json={"kind": "vp", "side": "Blue", "delta": 1_000_000, "reason": "x"})
    assert ok.status_code == 201
    r = client.post(f"/api/v1/games/{game.game_id}/orders", headers={**blue, "Idempotency-Key": "v2"},
                    json={"kind": "vp", "side": "Blue", "delta": 1, "reason": "x"})
    assert assert_problem(r, 422, "rule_violation")["rule"] == "FF 4"
    assert version(client, game) == STARTED + 2


@pytest.mark.parametrize("last_turn", [10**20, 2**53 - 1, 10_000])
def test_a_last_turn_beyond_9999_is_refused_by_ff_2(client, last_turn):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"last_turn": last_turn}})
    problem = r.json
    assert r.status_code == 422 and problem["code"] in ("invalid_setup", "invalid_request"), problem
    if last_turn < 2**53:
        assert problem["code"] == "invalid_setup" and problem["detail"].startswith("FF 2: ")


def test_a_phase_name_longer_than_40_characters_is_refused_by_ff_2(client):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"phases": ["Move", "x" * 41]}})
    body = assert_problem(r, 422, "invalid_setup")
    assert body["detail"].startswith("FF 2: ") and "40" in body["detail"]


def test_dice_with_a_trailing_newline_are_refused_by_ff_3(client):
    game = make_game(client)
    body = assert_problem(order(client, game, '{"kind": "roll", "dice": "1d6\\n", "purpose": "x"}', "d"),
                          422, "invalid_order")
    assert body["rule"] == "FF 3" and body["field"] == "dice"
    assert version(client, game) == STARTED


@pytest.mark.parametrize("dice", ["9" * 5000 + "d6", "d" + "9" * 5000])
def test_a_dice_count_of_thousands_of_digits_is_refused_without_python_s_words(client, dice):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", headers={**game.seats["Blue"], "Idempotency-Key": "d"},
                    json={"kind": "roll", "dice": dice, "purpose": "x"})
    body = assert_problem(r, 422, r.json["code"])  # beyond the door's 4,000 characters, or FF 3
    assert "int_max_str_digits" not in body["detail"] and "Exceeds the limit" not in body["detail"]
    assert version(client, game) == STARTED


@pytest.mark.parametrize("if_match", ["9" * 5000, "²", '"١٢"'])
def test_an_if_match_that_is_not_a_short_ascii_number_is_a_400(client, if_match):
    game = make_game(client)
    r = order(client, game, '{"kind": "note", "text": "x"}', "m", **{"If-Match": if_match})
    assert_problem(r, 400, "bad_request")
    assert version(client, game) == STARTED


def test_a_whole_number_of_5000_digits_in_a_body_is_refused_without_python_s_words(client):
    game = make_game(client)
    body = assert_problem(order(client, game, '{"kind": "note", "text": "x", "n": ' + "9" * 5000 + "}", "n"),
                          422, "invalid_request")
    assert "2**53" in body["detail"]


def test_a_chunked_body_over_64_kib_is_413_not_400(client):
    game = make_game(client)
    # gunicorn (and werkzeug's own server) hands a chunked body on with wsgi.input_terminated set.
    raw = ('{"kind": "note", "text": "' + "x" * 70_000 + '"}').encode()
    r = client.post(f"/api/v1/games/{game.game_id}/orders", input_stream=io.BytesIO(raw),
                    headers={**game.seats["Blue"], "Idempotency-Key": "c", "Content-Type": "application/json",
                             "Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert_problem(r, 413, "payload_too_large")
    small = b'{"kind": "note", "text": "chunked"}'
    r = client.post(f"/api/v1/games/{game.game_id}/orders", input_stream=io.BytesIO(small),
                    headers={**game.seats["Blue"], "Idempotency-Key": "c2", "Content-Type": "application/json",
                             "Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 201 and r.json["events"][0]["data"]["order"]["text"] == "chunked"


# ------------------------------------------------------------------- sizes and counts ----
@pytest.mark.parametrize("raw, where", [
    ('{"kind": "note", "text": "' + "x" * 4001 + '"}', "text"),
    ('{"kind": "note", "text": "x", "fields": {"' + "k" * 101 + '": 1}}', "fields"),
    ('{"kind": "note", "text": "x", "fields": {"a": [' + ",".join(["1"] * 201) + "]}}", "fields.a"),
    ('{"kind": "note", "text": "x", "fields": {'
     + ",".join(f'"k{n}": [1,2,3,4,5,6,7,8,9,10]' for n in range(199)) + "}}", "fields"),
])
def test_a_body_beyond_a_length_or_count_is_refused_naming_where(client, raw, where):
    game = make_game(client)
    body = assert_problem(order(client, game, raw, "s"), 422, "invalid_request")
    assert len(body["errors"]) == 1 and next(iter(body["errors"])).startswith(where), body
    assert version(client, game) == STARTED


@pytest.mark.parametrize("order_body, field", [
    ({"kind": "roll", "dice": "1d6", "purpose": "p" * 201}, "purpose"),
    ({"kind": "vp", "side": "Blue", "delta": 1, "reason": "r" * 1001}, "reason"),
    ({"kind": "end", "winner": None, "reason": "r" * 1001}, "reason"),
    ({"kind": "roll", "dice": "1d6", "purpose": "p", "rule": "r" * 101}, "rule"),
    ({"kind": "roll", "dice": "1d6", "purpose": "p", "units": ["u"] * 51}, "units"),
    ({"kind": "roll", "dice": "1d6", "purpose": "p", "target": {"value": 8, "modifiers": [{"value": 1}] * 21}},
     "target"),
    ({"kind": "roll", "dice": "1d6", "purpose": "p", "target": {"value": 10**7}}, "target.value"),
])
def test_an_order_s_free_field_beyond_its_length_is_refused_naming_the_rule(client, order_body, field):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json=order_body,
                    headers={**game.seats["Blue"], "Idempotency-Key": "f"})
    body = assert_problem(r, 422, "invalid_order")
    assert body["rule"] in ("FF 3", "FF 4", "FF 5") and body["field"] == field
    assert version(client, game) == STARTED


def test_an_order_over_16_kib_in_all_is_refused(client):
    game = make_game(client)
    fields = {f"k{n}": "x" * 3000 for n in range(6)}  # each text within the door's limit, 18 KB in all
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "note", "text": "x", "fields": fields},
                    headers={**game.seats["Blue"], "Idempotency-Key": "big"})
    body = assert_problem(r, 422, "invalid_order")
    assert body["field"] == "order" and "16384 bytes" in body["detail"]
    assert version(client, game) == STARTED


# ---------------------------------------------------------- control characters (item 4) ----
CONTROLS = ["\x1b[2J", "\r", "\x00", "\x9b31m", "\u202e", "\u2066", "\x7f"]


@pytest.mark.parametrize("control", CONTROLS)
@pytest.mark.parametrize("what", ["note", "purpose", "vp reason", "end reason", "take-back reason", "handle",
                                  "side"])
def test_control_characters_and_bidi_overrides_are_refused_at_the_door(client, what, control):
    game = make_game(client, join=what != "handle")
    g, text = f"/api/v1/games/{game.game_id}", f"a{control}b"
    if what == "take-back reason":
        client.post(f"{g}/orders", json={"kind": "note", "text": "x"},
                    headers={**game.seats["Blue"], "Idempotency-Key": "n"})
    before = client.get(f"{g}/events", headers=game.admin).json["events"]
    if what == "handle":
        r = client.post(f"{g}/join", json={"invite_code": game.invites["Blue"], "handle": text})
    elif what == "side":
        r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", text]}})
    elif what == "take-back reason":
        r = client.post(f"{g}/take-backs", json={"reason": text}, headers=game.seats["Blue"])
    else:
        body = {"note": {"kind": "note", "text": text},
                "purpose": {"kind": "roll", "dice": "1d6", "purpose": text},
                "vp reason": {"kind": "vp", "side": "Blue", "delta": 1, "reason": text},
                "end reason": {"kind": "end", "winner": None, "reason": text}}[what]
        r = client.post(f"{g}/orders", json=body, headers={**game.seats["Blue"], "Idempotency-Key": "c"})
    body = assert_problem(r, 422, "invalid_request")
    assert "control character" in body["detail"]
    assert client.get(f"{g}/events", headers=game.admin).json["events"] == before  # nothing recorded


def test_tab_and_newline_are_allowed_in_a_note_but_not_in_a_name(client):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "note", "text": "line 1\n\tline 2"},
                    headers={**game.seats["Blue"], "Idempotency-Key": "t"})
    assert r.status_code == 201
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red\nArmy"]}})
    assert assert_problem(r, 422, "invalid_setup")["detail"].startswith("FF 1: ")
    other = make_game(client, join=False)
    r = client.post(f"/api/v1/games/{other.game_id}/join",
                    json={"invite_code": other.invites["Blue"], "handle": "al\tice"})
    assert "handle" in assert_problem(r, 422, "invalid_request")["errors"]
    r = order(client, game, '{"kind": "note", "text": "x", "fields": {"a\\nb": 1}}', "k")
    assert_problem(r, 422, "invalid_request")


def test_an_idempotency_key_with_a_control_character_is_refused(client):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "note", "text": "x"},
                    headers={**game.seats["Blue"], "Idempotency-Key": "k\x9b2Jx"})
    assert_problem(r, 400, "idempotency_key_required")
    assert version(client, game) == STARTED


# ------------------------------------------------------------- numbers in URLs and headers ----
@pytest.mark.parametrize("path", ["events/stream?after=%C2%B2", "replays/%C2%B2", "replays/" + "9" * 5000])
def test_a_number_in_a_url_that_int_cannot_read_is_a_4xx(client, path):
    game = make_game(client)
    r = client.get(f"/api/v1/games/{game.game_id}/{path}", headers=game.seats["Blue"])
    assert 400 <= r.status_code < 500 and r.mimetype == "application/problem+json", r.get_data(as_text=True)[:200]


def test_a_last_event_id_in_superscript_digits_is_a_400(client):
    game = make_game(client)
    r = client.get(f"/api/v1/games/{game.game_id}/events/stream",
                   headers={**game.seats["Blue"], "Last-Event-ID": "\u00b2"})
    assert_problem(r, 400, "bad_request")
