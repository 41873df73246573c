"""Schemathesis against the app's own OpenAPI document (/api/v1/openapi.json): for every operation
it serves, requests generated from the document (valid ones and invalid ones) never get a 5xx, and
every answer matches the document: its status, content type, headers and body schema, and an
invalid request is refused.

The app runs in-process (WSGI) on SQLite and the real Redis (the job endpoints queue on a queue of
their own). Generated requests go to a real public game with a token of each role half the time,
so they get past authentication and reach the rules; the rest are left as generated (random ids,
random tokens). Bounded: a few dozen examples per operation, derandomized, no example database.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings, strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi import checks

from api.app import create_app
from api.openapi import OPERATIONS
from tests.api.conftest import make_game, umpire
from tests.conftest import make_app

EXAMPLES = 40
STREAM_EXAMPLES = 12  # each stream that reaches the game stays open WARLOG_STREAM_MAX_SECONDS
CHECKS = [not_a_server_error, checks.status_code_conformance, checks.content_type_conformance,
          checks.response_headers_conformance, checks.response_schema_conformance,
          checks.negative_data_rejection, checks.missing_required_header, checks.ignored_auth,
          checks.unsupported_method]
ROLES = ("seat", "other seat", "admin", "umpire", "none")


@pytest.fixture
def world(sqlite_config, rq_env, tmp_path, monkeypatch):
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "0.2")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.05")
    service = make_app(sqlite_config)
    app = create_app({"WARLOG_SERVICE": service, "TESTING": True, "REDIS_URL": rq_env.url,
                      "WARLOG_QUEUE": rq_env.queue, "WARLOG_ARTIFACT_DIR": str(tmp_path / "artifacts"),
                      "WARLOG_RATE_LIMITS": False})  # thousands of requests from one address, bad tokens among them
    client = app.test_client()
    # Public: a request without a token is then refused as unauthenticated (401), which
    # ignored_auth checks; for a private game it is 404 on purpose (api/auth.py), not 401.
    game = make_game(client, public=True)
    game.order(client, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire"}, "fuzz-1")
    tokens = {"seat": game.seats["Blue"], "other seat": game.seats["Red"], "admin": game.admin,
              "umpire": umpire(client, game), "none": {}}
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    yield schema, game, tokens, rq_env
    service.close()
    # Jobs the fuzzer queued are removed with the queue by rq_env; note their ids for it.
    rq_env.job_ids.extend(k.decode().split(":", 2)[-1] for k in rq_env.conn.scan_iter("rq:job:warlog-*")
                          if game.game_id in k.decode())


@pytest.mark.parametrize("method,path", sorted(OPERATIONS), ids=[f"{m.upper()} {p}" for m, p in sorted(OPERATIONS)])
def test_generated_requests_get_no_5xx_and_answers_match_the_document(world, method, path):
    schema, game, tokens, _ = world
    if path not in schema or method.upper() not in schema[path]:
        pytest.skip(f"{method.upper()} {path} is not served by this app")
    operation = schema[path][method.upper()]
    strategy = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))
    calls: list[int] = []

    @settings(max_examples=STREAM_EXAMPLES if path.endswith("/stream") else EXAMPLES, deadline=None,
              derandomize=True, database=None, suppress_health_check=list(HealthCheck))
    @given(case=strategy, data=st.data())
    def run(case, data):
        # A valid request is pointed at the real game with a real token half the time. An invalid
        # one is sent as generated: its invalid parts must stay invalid for the checks to hold.
        if case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE and data.draw(st.booleans()):
            if "game_id" in (case.path_parameters or {}):
                case.path_parameters["game_id"] = game.game_id
            case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "authorization"}
            case.headers.update(tokens[data.draw(st.sampled_from(ROLES))])
        # The WSGI transport does not undo a Content-Encoding: ask for none.
        response = case.call_and_validate(checks=CHECKS, headers={"Accept-Encoding": "identity"})
        calls.append(response.status_code)

    run()
    assert calls and max(calls) < 500


# ----------------------------------------------------------- what the fuzzer found, pinned ----
def _validated(schema, method: str, path: str, **case) -> int:
    response = schema[path][method].Case(**case).call_and_validate(
        checks=CHECKS[:5], headers={"Accept-Encoding": "identity"})
    return response.status_code


def test_statistics_and_replays_not_made_yet_are_a_documented_404(world):
    schema, game, tokens, _ = world
    assert _validated(schema, "GET", "/api/v1/statistics", query={"ruleset": "freeform"}) == 404
    assert _validated(schema, "GET", "/api/v1/games/{game_id}/statistics",
                      path_parameters={"game_id": game.game_id}, headers=tokens["seat"]) == 404
    assert _validated(schema, "GET", "/api/v1/games/{game_id}/replays/{version}",
                      path_parameters={"game_id": game.game_id, "version": "latest"}, headers=tokens["seat"]) == 404


def test_each_event_of_the_stream_matches_the_documented_event(world):
    schema, game, tokens, _ = world
    assert _validated(schema, "GET", "/api/v1/games/{game_id}/events/stream",
                      path_parameters={"game_id": game.game_id}, headers=tokens["umpire"]) == 200
    event = schema["/api/v1/games/{game_id}/events/stream"]["GET"].definition.raw["responses"]["200"]
    assert event["content"]["text/event-stream"]["schema"]["properties"]["data"]["contentSchema"] == \
        {"$ref": "#/components/schemas/Line"}
