"""The write side of the API and its security rules, through the Flask test client on each store."""

from __future__ import annotations

import json
import logging

import pytest

from tests.api.conftest import bearer, make_game, umpire

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "barrage", "target": {"compare": ">=", "value": 7}}
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


def problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.json
    assert PROBLEM_KEYS <= set(body) and body["status"] == status and body["code"] == code
    return body


# ---------------------------------------------------------------------------- create, join ---
def test_create_returns_id_invites_per_seat_and_an_admin_token(client):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["AR", "UK"]}})
    assert r.status_code == 201
    body = r.json
    assert set(body["invites"]) == {"AR", "UK"} and body["seats"] == ["AR", "UK"]
    assert r.headers["Location"].endswith(f"/api/v1/games/{body['game_id']}")
    for secret in [body["admin_token"], *body["invites"].values()]:
        assert len(secret) >= 4 + 43  # prefix + 256 bits in url-safe base64


def test_create_answers_in_the_documented_order_with_no_sandbox_key_for_a_new_game(client):
    """docs/api.md's getting-started answer: the admin token before the invites (keys are sent in
    the order the schema gives them, api/jsonbody.py), and no ``sandbox`` mark unless forked."""
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    assert r.status_code == 201
    assert list(json.loads(r.get_data(as_text=True))) == ["game_id", "seats", "admin_token", "invites", "version",
                                                         "chain_head"]


def test_tokens_are_stored_hashed_never_in_clear(client, api_service):
    game = make_game(client)
    token = game.seats["Blue"]["Authorization"].split()[1]
    with api_service.recorder.datastore.transaction(commit=False) as c:
        c.execute("SELECT token_hash FROM warlog_tokens" if api_service.config.kind == "sqlite"
                  else f"SELECT token_hash FROM {api_service.config.postgres['POSTGRES_SCHEMA']}.warlog_tokens")
        stored = [row["token_hash"] for row in c.fetchall()]
    assert token not in stored and len(stored) == 3  # admin + two seats
    assert all(len(h) == 64 for h in stored)
    export = "\n".join(api_service.export(game.game_id))
    assert token not in export and "blue" in export  # the handle is public, the token is not


def test_join_with_an_invite_gives_a_seat_token_once(client):
    game = make_game(client, join=False)
    code = game.invites["Blue"]
    r = client.post(f"/api/v1/games/{game.game_id}/join", json={"invite_code": code, "handle": "ann"})
    assert r.status_code == 201 and r.json["seat"] == "Blue" and r.json["token"].startswith("wls_")
    again = client.post(f"/api/v1/games/{game.game_id}/join", json={"invite_code": code, "handle": "eve"})
    problem(again, 409, "invite_used")


def test_join_with_a_wrong_invite_looks_like_an_unknown_game(client):
    game = make_game(client, join=False)
    r = client.post(f"/api/v1/games/{game.game_id}/join", json={"invite_code": "wli_nope", "handle": "x"})
    problem(r, 404, "game_not_found")


def test_a_game_id_cut_short_is_told_the_whole_id_is_needed(client):
    """The game page's title shows a game's first 8 characters ("game 2886fa44"); typed into the
    lobby's join form (the new user's round 11) that read "no game '2886fa44'", as for a game that
    does not exist. A malformed id is still no game, and the answer says what a game id is."""
    game = make_game(client, join=False)
    short = game.game_id[:8]
    r = client.post(f"/api/v1/games/{short}/join", json={"invite_code": game.invites["Blue"], "handle": "ann"})
    assert "36 characters" in problem(r, 404, "game_not_found")["detail"]
    assert "36 characters" in problem(client.get(f"/api/v1/games/{short}"), 404, "game_not_found")["detail"]


def test_join_schema_errors_are_422_per_field(client):
    game = make_game(client, join=False)
    r = client.post(f"/api/v1/games/{game.game_id}/join",
                    json={"invite_code": game.invites["Blue"], "handle": "", "email": "not-an-email"})
    body = problem(r, 422, "invalid_request")
    assert set(body["errors"]) == {"handle", "email"}


def test_create_with_bad_options_names_the_rule(client):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["A", "A"]}})
    assert "FF 1" in problem(r, 422, "invalid_setup")["detail"]
    r = client.post("/api/v1/games", json={"ruleset": "chess"})
    assert "freeform" in problem(r, 422, "unknown_ruleset")["detail"]


# ---------------------------------------------------------------------------------- orders ---
def test_an_order_returns_its_events_with_dice_structured_and_readable(client):
    game = make_game(client)
    r = game.order(client, "Blue", ROLL, "o1")
    assert r.status_code == 201
    body = r.json
    accepted, rolled = body["events"]
    assert accepted["type"] == "OrderAccepted" and rolled["type"] == "DiceRolled"
    assert rolled["data"]["purpose"] == "barrage" and rolled["data"]["outcome"] in ("success", "failure")
    assert [d["nonce"] for d in rolled["data"]["dice"]] == [0, 1]
    assert rolled["text"].startswith("Blue rolled 2d6 for barrage: ") and ">= 7" in rolled["text"]
    assert body["chain_head"] == rolled["hash"] and body["version"] == rolled["seq"]
    assert r.headers["ETag"] == f'"{body["version"]}"'


def test_the_same_idempotency_key_replays_the_first_result(client):
    game = make_game(client)
    first = game.order(client, "Blue", ROLL, "o1")
    again = game.order(client, "Blue", ROLL, "o1")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["events"] == first.json["events"] and again.json["version"] == first.json["version"]
    other = game.order(client, "Blue", {**ROLL, "dice": "3d6"}, "o1")
    problem(other, 422, "idempotency_conflict")


def test_an_order_needs_an_idempotency_key(client):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json=ROLL, headers=game.seats["Blue"])
    problem(r, 400, "idempotency_key_required")


def test_if_match_with_a_stale_version_is_412_and_records_nothing(client):
    game = make_game(client)
    version = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).json["version"]
    assert game.order(client, "Blue", ROLL, "o1", **{"If-Match": f'"{version}"'}).status_code == 201
    stale = game.order(client, "Red", ROLL, "o2", **{"If-Match": f'"{version}"'})
    body = problem(stale, 412, "stale_version")
    assert body["current_version"] == version + 2  # OrderAccepted and DiceRolled of o1
    bad = game.order(client, "Red", ROLL, "o3", **{"If-Match": "yesterday"})
    problem(bad, 400, "bad_request")


@pytest.mark.parametrize("order, status, code, rule", [
    ({"kind": "vp", "side": "Blue", "delta": 0, "reason": "x"}, 422, "invalid_order", "FF 4"),
    ({"kind": "roll", "dice": "3x6", "purpose": "x"}, 422, "invalid_order", "FF 3"),
    ({"kind": "roll", "dice": "d6", "purpose": "x", "replaces": 1}, 422, "rule_violation", "FF 3"),
    ({"kind": "teleport"}, 422, "invalid_order", "FF 2"),
    ({"purpose": "no kind"}, 422, "invalid_request", None),
])
def test_a_rejected_order_says_which_rule_it_breaks(client, order, status, code, rule):
    game = make_game(client)
    before = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).json["version"]
    body = problem(game.order(client, "Blue", order, "bad"), status, code)
    assert body.get("rule") == rule
    if rule:
        assert body["detail"].startswith(rule + ": ")
    after = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).json
    assert after["version"] == before  # nothing was recorded


def test_no_vp_track_is_a_rule_violation(client):
    game = make_game(client, vp_track=False)
    body = problem(game.order(client, "Blue", {"kind": "vp", "side": "Blue", "delta": 1, "reason": "x"}, "v"),
                   422, "rule_violation")
    assert body["rule"] == "FF 4"


@pytest.mark.parametrize("data, content_type, status, code", [
    ("{", "application/json", 400, "bad_request"),
    ("[1, 2]", "application/json", 400, "bad_request"),
    ("kind=roll", "application/x-www-form-urlencoded", 415, "unsupported_media_type"),
    ("{\"kind\": \"note\", \"text\": \"" + "x" * 70_000 + "\"}", "application/json", 413, "payload_too_large"),
])
def test_malformed_bodies_get_a_clear_4xx(client, data, content_type, status, code):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", data=data,
                    headers={**game.seats["Blue"], "Idempotency-Key": "m", "Content-Type": content_type})
    problem(r, status, code)


def test_legal_orders_list_what_the_seat_may_do(client):
    game = make_game(client, vp_track=False)
    r = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Red"])
    kinds = [o["kind"] for o in r.json["orders"]]
    assert r.status_code == 200 and r.json["seat"] == "Red"
    assert kinds == ["note", "roll", "advance", "end"]


def test_take_back_request_and_answer_over_http(client):
    game = make_game(client)
    game.order(client, "Blue", {"kind": "vp", "side": "Blue", "delta": 3, "reason": "bridge"}, "v1")
    r = client.post(f"/api/v1/games/{game.game_id}/take-backs", json={"reason": "misclick"}, headers=game.seats["Blue"])
    assert r.status_code == 201 and r.json["events"][0]["type"] == "TakeBackRequested"
    problem(game.order(client, "Red", ROLL, "r1"), 422, "rule_violation")
    own = client.post(f"/api/v1/games/{game.game_id}/take-backs/answer", json={"accept": True}, headers=game.seats["Blue"])
    assert problem(own, 422, "rule_violation")["rule"] == "FF 6"
    r = client.post(f"/api/v1/games/{game.game_id}/take-backs/answer", json={"accept": True}, headers=game.seats["Red"])
    assert r.status_code == 200 and r.json["events"][0]["type"] == "TakeBackAccepted"
    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Red"]).json
    assert summary["vp"] == {"Blue": 0, "Red": 0}


def test_concede_ends_the_game(client):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/concede", headers=game.seats["Red"])
    assert [e["type"] for e in r.json["events"]] == ["Conceded", "GameEnded", "DiceEpochRevealed", "SealedDiceRevealed"]
    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).json
    assert summary["status"] == "ended" and summary["ended"]["winner"] == "Blue"


def test_client_seed_change_is_recorded(client):
    game = make_game(client)
    r = client.put(f"/api/v1/games/{game.game_id}/client-seed", json={"client_seed": "lucky"}, headers=game.seats["Red"])
    assert r.status_code == 200 and r.json["events"][0]["data"] == {"seat": "Red", "client_seed": "lucky"}


# --------------------------------------------------------------------------------- security ---
def test_a_private_game_is_indistinguishable_from_an_unknown_one(client):
    game = make_game(client)
    other = make_game(client, public=True)
    unknown = "00000000-0000-4000-8000-000000000000"
    for gid, headers in [(game.game_id, {}), (unknown, {}), (game.game_id, other.seats["Blue"]),
                         ("not-a-uuid", {})]:
        r = client.get(f"/api/v1/games/{gid}", headers=headers)
        body = problem(r, 404, "game_not_found")
        assert set(body) == PROBLEM_KEYS  # nothing more that could tell them apart
    listed = client.get("/api/v1/games").json["games"]
    assert [g["game_id"] for g in listed] == [other.game_id]


def test_spectators_read_public_games_and_write_nothing(client):
    game = make_game(client, public=True)
    assert client.get(f"/api/v1/games/{game.game_id}").status_code == 200
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json=ROLL, headers={"Idempotency-Key": "s"})
    assert problem(r, 401, "unauthorized")
    assert r.headers["WWW-Authenticate"].startswith("Bearer")


def test_an_invalid_or_malformed_token_is_401(client):
    game = make_game(client, public=True)
    problem(client.get(f"/api/v1/games/{game.game_id}", headers=bearer("wls_forged")), 401, "unauthorized")
    problem(client.get(f"/api/v1/games/{game.game_id}", headers={"Authorization": "Basic abc"}), 401, "unauthorized")
    problem(client.get("/api/v1/games", headers=bearer("wls_forged")), 401, "unauthorized")


def test_umpires_see_everything_and_change_nothing(client):
    game = make_game(client)
    ump = umpire(client, game)
    assert client.get(f"/api/v1/games/{game.game_id}", headers=ump).status_code == 200
    for method, path, body in [("post", "orders", ROLL), ("post", "concede", None),
                               ("post", "take-backs", {}), ("put", "client-seed", {"client_seed": "x"})]:
        r = getattr(client, method)(f"/api/v1/games/{game.game_id}/{path}", json=body,
                                    headers={**ump, "Idempotency-Key": "u"})
        assert "change nothing" in problem(r, 403, "forbidden")["detail"]


def test_me_answers_a_tokens_role_in_its_own_game_and_refuses_another_games(client):
    """docs/api.md "Who may do what": a public game reads with any game's token, so a client asks
    ``…/me`` whether a token it was given is this game's, and as what."""
    game = make_game(client, public=True)
    spectator = client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": "Sam"},
                            headers=game.admin).json["token"]
    me = f"/api/v1/games/{game.game_id}/me"
    answers = {name: client.get(me, headers=headers).json for name, headers in
               [("admin", game.admin), ("Red", game.seats["Red"]), ("umpire", umpire(client, game)),
                ("spectator", bearer(spectator))]}
    assert {k: (v["role"], v["seat"], v["name"]) for k, v in answers.items()} == {
        "admin": ("admin", None, None), "Red": ("seat", "Red", None), "umpire": ("umpire", None, None),
        "spectator": ("spectator", None, "Sam")}
    assert all(v["game_id"] == game.game_id for v in answers.values())
    other = make_game(client)
    other_spectator = client.post(f"/api/v1/games/{other.game_id}/spectator-tokens", json={"name": "Kim"},
                                  headers=other.admin).json["token"]
    for headers in (other.admin, other.seats["Blue"], umpire(client, other), bearer(other_spectator)):
        assert problem(client.get(me, headers=headers), 403, "forbidden")["detail"] == "this token is for another game"
    problem(client.get(me), 401, "unauthorized")
    problem(client.get(me, headers=bearer("wlu_forged")), 401, "unauthorized")
    # On a private game another game's token learns nothing, as on every read.
    problem(client.get(f"/api/v1/games/{other.game_id}/me", headers=game.admin), 404, "game_not_found")
    problem(client.get(f"/api/v1/games/{other.game_id}/me"), 404, "game_not_found")


def test_only_the_admin_issues_umpire_tokens(client):
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/umpire-tokens", headers=game.seats["Blue"])
    problem(r, 403, "forbidden")


def test_a_seat_acts_only_for_itself_and_only_in_its_own_game(client):
    game = make_game(client)
    other = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json=ROLL,
                    headers={**other.seats["Blue"], "Idempotency-Key": "x"})
    problem(r, 404, "game_not_found")  # a token for another (private) game learns nothing here
    public = make_game(client, public=True)
    r = client.post(f"/api/v1/games/{public.game_id}/orders", json=ROLL,
                    headers={**other.seats["Blue"], "Idempotency-Key": "x"})
    problem(r, 403, "forbidden")
    # The seat is taken from the token, never from the body: a "seat" is no field of a roll (FF 3).
    r = game.order(client, "Blue", {**ROLL, "seat": "Red"}, "spoof")
    problem(r, 422, "invalid_order")
    assert (r.json["rule"], r.json["field"]) == ("FF 3", "seat"), r.json


def test_the_list_filters_by_status_ruleset_player_and_whose_turn(client):
    waiting = make_game(client, public=True, join=False)
    active = make_game(client, public=True)
    ended = make_game(client, public=True)
    client.post(f"/api/v1/games/{ended.game_id}/concede", headers=ended.seats["Red"])
    ids = lambda q: {g["game_id"] for g in client.get(f"/api/v1/games?{q}").json["games"]}  # noqa: E731
    assert ids("status=waiting") == {waiting.game_id}
    assert ids("status=active") == {active.game_id}
    assert ids("status=ended") == {ended.game_id}
    assert ids("ruleset=freeform") == {waiting.game_id, active.game_id, ended.game_id}
    assert ids("player=blue") == {active.game_id, ended.game_id}
    assert ids("turn_of=red") == {active.game_id}
    problem(client.get("/api/v1/games?status=sleeping"), 422, "invalid_request")


def test_the_list_comes_in_pages_newest_activity_first_each_game_once(client):
    games = [make_game(client, public=True) for _ in range(5)]
    sandbox = client.post(f"/api/v1/games/{games[0].game_id}/sandbox", json={"at": 1, "public": True},
                          headers=games[0].admin)
    assert sandbox.status_code == 201, sandbox.json
    whole = client.get("/api/v1/games").json
    assert whole["next_after"] is None and len(whole["games"]) == 5
    pages, url = [], "/api/v1/games?limit=2"
    while url:
        r = client.get(url)
        assert r.status_code == 200, r.json
        pages.append([g["game_id"] for g in r.json["games"]])
        nxt = r.json["next_after"]
        assert ("Link" in r.headers) == (nxt is not None)
        url = r.headers["Link"].split(">")[0].lstrip("<") if nxt else None
        assert url is None or f"after={nxt}" in url and "limit=2" in url
    assert [len(p) for p in pages] == [2, 2, 1]  # sandboxes left out, the pages still full
    assert [gid for p in pages for gid in p] == [g["game_id"] for g in whole["games"]]
    # A game that moves up between two pages is not listed again on the next.
    first = client.get("/api/v1/games?limit=2").json
    moved = next(g for g in games if g.game_id == whole["games"][-1]["game_id"])
    assert moved.order(client, "Blue", ROLL, "moves-up").status_code == 201
    rest = client.get(f"/api/v1/games?limit=10&after={first['next_after']}").json["games"]
    assert moved.game_id not in [g["game_id"] for g in rest] and len(rest) == 2
    # Not listed before it moved, it is on no later page; the first page read again leads with it,
    # which is where `warlog games` and the lobby's "More games" find it (docs/api.md).
    assert client.get("/api/v1/games?limit=2").json["games"][0]["game_id"] == moved.game_id


def test_the_list_catches_up_only_the_games_the_projector_has_not_reached(api_service, monkeypatch):
    """With the projector one event behind, a read of the list looked at every public game's views
    (a query or two each: half a second a page with 1,000 games, docs/benchmarks.md); only the
    games with events after the projector's position are behind, and one query finds them."""
    from projections.runner import Projections
    from tests.api.conftest import app_on

    client = app_on(api_service).test_client()
    games = [make_game(client, public=True) for _ in range(5)]
    Projections(api_service).catch_up()
    moved = games[2]
    assert moved.order(client, "Blue", ROLL, "after-the-projector").status_code == 201
    looked, current = [], Projections.current
    monkeypatch.setattr(Projections, "current", lambda self, gid, *names: looked.append(gid) or current(self, gid, *names))
    listed = client.get("/api/v1/games").json["games"]
    assert looked == [moved.game_id]
    assert listed[0]["game_id"] == moved.game_id and listed[0]["version"] == moved.version(client, "Blue")
    assert {g["game_id"] for g in listed} == {g.game_id for g in games}


@pytest.mark.parametrize("query", ["limit=0", "limit=501", "limit=x", "after=", "after=bm90LWpzb24",
                                   "after=%E2%98%83", "after=WyJhIl0"])
def test_a_page_of_the_list_out_of_bounds_or_a_cursor_it_did_not_give_is_422(client, query):
    body = problem(client.get(f"/api/v1/games?{query}"), 422, "invalid_request")
    assert query.split("=")[0] in str(body), body


def test_unknown_routes_and_methods_are_problems_too(client):
    problem(client.get("/api/v1/nowhere"), 404, "not_found")
    r = client.delete("/api/v1/games")
    problem(r, 405, "method_not_allowed")
    assert "GET" in r.headers["Allow"]


def test_tokens_never_reach_the_logs(client, caplog):
    game = make_game(client)
    token = game.seats["Blue"]["Authorization"].split()[1]
    with caplog.at_level(logging.DEBUG):
        game.order(client, "Blue", ROLL, "o1")
        client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"])
        client.get(f"/api/v1/games/{game.game_id}", headers=bearer(token + "x"))
    assert token not in caplog.text


@pytest.mark.parametrize("damage", ["garbage", "deleted"])
def test_a_damaged_stored_log_is_a_problem_naming_the_line_not_an_anonymous_crash(client, store_config, damage):
    from tests.integration.rawstore import RawStore

    game = make_game(client)
    ump = umpire(client, game)  # the seats agree to one while the log is whole
    game.order(client, "Blue", ROLL, "o1")
    with RawStore(store_config) as raw:
        if damage == "garbage":
            raw.set_state(game.game_id, 3, b"{not json")
        else:
            raw.delete(game.game_id, 3)
    for path in ("", "/state", "/events", "/history"):
        r = client.get(f"/api/v1/games/{game.game_id}{path}", headers=game.seats["Blue"])
        body = problem(r, 409, "damaged_log")
        assert game.game_id in body["detail"] and body["line"] == 3 and body["detail"].startswith("line 3:")
    report = client.get(f"/api/v1/games/{game.game_id}/integrity", headers=ump).json
    assert report["ok"] is False and report["failures"][0]["line"] == 3


def test_a_damaged_game_is_left_out_of_the_list_not_a_500(client, store_config):
    from tests.integration.rawstore import RawStore

    good = make_game(client, public=True)
    bad = make_game(client, public=True)
    with RawStore(store_config) as raw:
        raw.set_state(bad.game_id, 2, b"{not json")
    r = client.get("/api/v1/games")
    assert r.status_code == 200
    assert [g["game_id"] for g in r.json["games"]] == [good.game_id]


def test_a_seat_token_grants_its_seat_and_a_forged_one_nothing(client):
    access = client.application.extensions["warlog_access"]
    game = make_game(client)
    token = game.seats["Blue"]["Authorization"].split()[1]
    assert access.grant(token).seat == "Blue" and access.grant(token).role == "seat"
    assert access.grant("wls_forged") is None
    # A seat token orders for its seat and is refused what needs the admin's.
    assert game.order(client, "Blue", ROLL, "k1").status_code == 201
    r = client.post(f"/api/v1/games/{game.game_id}/umpire-tokens", headers=game.seats["Blue"])
    problem(r, 403, "forbidden")


def test_a_games_404_says_it_may_be_private_and_why_the_caller_cannot_read_it(client):
    """A player who reads a private game without its token (another config file, a forgotten
    --token) was told "no game ID", as of a game that does not exist. The answer now says it may be
    private and what the request lacked; it is the same for an unknown game, so it tells them apart
    no more than before."""
    game = make_game(client)
    other = make_game(client, public=True)
    unknown = "00000000-0000-4000-8000-000000000000"
    for headers, why in [({}, "no token was sent"), (other.seats["Blue"], "the token sent is not one of its own")]:
        details = {problem(client.get(f"/api/v1/games/{gid}", headers=headers), 404, "game_not_found")["detail"]
                   .replace(gid, "ID") for gid in (game.game_id, unknown)}
        assert details == {f"no game ID, or it is private and {why}"}


def test_the_list_reads_no_sandbox_view_unless_sandboxes_are_asked_for(client, monkeypatch):
    """Sandboxes were left out only once each game's map view was read: anyone making public
    sandboxes (20 an hour) and keeping them busy made every read of the list, the lobby's, read
    all their views before the games it shows. The index knows a sandbox: none is read."""
    from projections.runner import Projections
    from projections.store import ProjectionStore

    game = make_game(client, public=True)
    made = []
    for n in range(3):
        r = client.post(f"/api/v1/games/{game.game_id}/sandbox", json={"at": 3, "public": True})
        assert r.status_code == 201, r.json
        made.append(r.json["game_id"])
    Projections(client.application.extensions["warlog"]).catch_up()  # the list catches up none of them
    read, load = [], ProjectionStore.load
    monkeypatch.setattr(ProjectionStore, "load",
                        lambda self, ids, *a, **k: read.extend(ids) or load(self, ids, *a, **k))
    listed = client.get("/api/v1/games").json["games"]
    assert [g["game_id"] for g in listed] == [game.game_id]
    assert not set(read) & set(made)
    listed = client.get("/api/v1/games?sandbox=true").json["games"]
    assert {g["game_id"] for g in listed} == {game.game_id, *made}


def test_an_index_made_before_it_knew_sandboxes_still_lists_none_unless_asked(client):
    """A store whose games index has no ``sandbox`` column gains it empty (not known): such a row's
    view still tells the list a sandbox, until the projector writes the row again."""
    from projections.runner import Projections

    game = make_game(client, public=True)
    r = client.post(f"/api/v1/games/{game.game_id}/sandbox", json={"at": 3, "public": True})
    assert r.status_code == 201, r.json
    projections = Projections(client.application.extensions["warlog"])
    projections.catch_up()
    store = projections.store
    store._run("ALTER TABLE {t}warlog_games_index DROP COLUMN sandbox")
    store.create_tables()
    assert {row["sandbox"] for row in store.query_index([game.game_id, r.json["game_id"]])} == {None}
    assert [g["game_id"] for g in client.get("/api/v1/games").json["games"]] == [game.game_id]
    assert len(client.get("/api/v1/games?sandbox=true").json["games"]) == 2
