"""No 5xx for anything a client can send: random bodies, headers and ids (Hypothesis, SQLite)."""

from __future__ import annotations

import json
import uuid

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from api.app import create_app, migrate
from domain.service import Warlog
from domain.storage import config_from_env
from tests.api.conftest import make_game

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12)
orders = st.one_of(
    json_values,
    st.fixed_dictionaries({"kind": st.sampled_from(["roll", "vp", "advance", "note", "end", "x"])},
                          optional={"dice": json_values | st.sampled_from(["2d6", "d66", "0d6", "d1000000"]),
                                    "purpose": json_values, "side": json_values, "delta": json_values,
                                    "reason": json_values, "text": json_values, "target": json_values,
                                    "replaces": json_values, "winner": json_values, "units": json_values}))
header_values = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path_factory.mktemp("fuzz"))})
    migrate(config)
    service = Warlog(config)
    client = create_app({"WARLOG_SERVICE": service, "TESTING": True}).test_client()
    yield client, make_game(client)
    service.close()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=orders, key=header_values, if_match=st.none() | header_values)
def test_random_orders_never_get_a_5xx(world, order, key, if_match):
    client, game = world
    headers = {**game.seats["Blue"], "Idempotency-Key": key}
    if if_match is not None:
        headers["If-Match"] = if_match
    r = client.post(f"/api/v1/games/{game.game_id}/orders", json=order, headers=headers)
    assert r.status_code < 500, r.get_data(as_text=True)
    assert r.status_code in (200, 201) or r.mimetype == "application/problem+json"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=json_values, path=st.sampled_from(["join", "take-backs", "take-backs/answer", "client-seed",
                                              "concede", "umpire-tokens", "umpire", "umpire/answer",
                                              "annotations", "spectator-tokens"]),
       game_id=st.one_of(st.just(None), st.text(alphabet="0123456789abcdef-", max_size=40)),
       auth=st.one_of(st.none(), header_values))
def test_random_requests_to_other_endpoints_never_get_a_5xx(world, body, path, game_id, auth):
    client, game = world
    headers = {"Authorization": auth} if auth is not None else game.seats["Red"]
    method = client.put if path == "client-seed" else client.post
    if path == "annotations":
        headers = {**headers, "Idempotency-Key": "fuzzed"}
    r = method(f"/api/v1/games/{game_id or game.game_id}/{path}", json=body, headers=headers)
    assert r.status_code < 500, r.get_data(as_text=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.dictionaries(st.sampled_from(["status", "ruleset", "player", "turn_of", "x"]), header_values, max_size=3))
def test_random_list_queries_never_get_a_5xx(world, query):
    client, _ = world
    assert client.get("/api/v1/games", query_string=query).status_code < 500


# Values a JSON text can hold that hypothesis's json_values above never make: non-finite numbers,
# integers past 64 bits or a double, unpaired surrogates, controls, bidi overrides, deep nesting.
hostile = st.sampled_from([
    "NaN", "-Infinity", "Infinity", "1e400", "-1e400", str(2**53), str(2**63), "1" + "0" * 400, "9" * 5000,
    '"\\ud800"', '"x\\udfff"', '"a\\u001b[2J"', '"\\r"', '"\\u0000"', '"\\u009b1m"', '"\\u202e"', '"\\u2066"',
    '"1d6\\n"', "[" * 40 + "]" * 40, "[" * 3000 + "]" * 3000, '"' + "x" * 5000 + '"'])
raw_values = st.one_of(hostile, json_values.map(json.dumps))
raw_bodies = st.dictionaries(
    st.sampled_from(["kind", "text", "purpose", "reason", "delta", "side", "dice", "fields", "handle", "client_seed",
                     "invite_code", "ruleset", "scenario", "options", "url", "secret", "email", "notify",
                     "accept", "\\ud800", "a\\u001bb"]),
    raw_values, max_size=5).map(lambda d: "{" + ",".join(f'"{k}": {v}' for k, v in d.items()) + "}")
BODY_PATHS = [("POST", ""), ("POST", "join"), ("PUT", "client-seed"), ("POST", "orders"), ("POST", "take-backs"),
              ("POST", "take-backs/answer"), ("PUT", "notifications"), ("PUT", "webhook")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=raw_bodies, where=st.sampled_from(BODY_PATHS), kind=st.sampled_from(["note", "vp", "roll", None]))
def test_hostile_json_never_gets_a_5xx_and_never_reaches_the_log(world, raw, where, kind):
    client, game = world
    method, path = where
    if kind is not None and path == "orders" and '"kind"' not in raw:
        raw = raw[:-1] + ("," if raw != "{}" else "") + f'"kind": "{kind}"}}'
    url = f"/api/v1/games/{game.game_id}/{path}" if path else "/api/v1/games"
    headers = {**(game.admin if path == "webhook" else game.seats["Blue"]), "Content-Type": "application/json",
               "Idempotency-Key": str(uuid.uuid4())}
    r = client.open(url, method=method, data=raw, headers=headers)
    assert r.status_code < 500, r.get_data(as_text=True)
    export = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Blue"])
    assert export.status_code == 200
    for line in export.get_data(as_text=True).splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"the log holds {c}"))
