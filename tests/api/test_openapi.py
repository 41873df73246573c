"""The API's description matches the API: every route is documented, every answer a client gets
is a documented answer, the docs page is self-contained, and docs/api.md lists every problem code.

Runs on SQLite only: what is checked here is the HTTP layer's description, not the store.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from api import openapi
from api.problems import PROBLEM_JSON, PROBLEMS
from tests.api.conftest import app_on, bearer, make_game, umpire

ROOT = Path(__file__).resolve().parents[2]
API_MD = ROOT / "docs" / "api.md"


@pytest.fixture
def app(sqlite_service):
    return app_on(sqlite_service)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def doc(client):
    r = client.get("/api/v1/openapi.json")
    assert r.status_code == 200 and r.mimetype == "application/json"
    return r.json


@pytest.fixture
def page(client):
    r = client.get("/api/docs")
    assert r.status_code == 200
    return r


# ------------------------------------------------------------------------------ the document ----
def test_the_served_document_is_valid_openapi_3_1(doc):
    validate(doc)
    assert doc["openapi"].startswith("3.1")


def test_the_whole_table_builds_a_valid_document():
    """Also the rows whose routes another blueprint serves: a typo there must not wait for it."""
    full = openapi.build_document()
    validate(full)
    assert len([m for item in full["paths"].values() for m in item]) == len(openapi.OPERATIONS)


def test_every_route_under_api_v1_is_documented_with_its_method(app, doc):
    """Fails when someone adds a route without a row in api/openapi.OPERATIONS: add the row."""
    documented = {(method, openapi._template(path)) for path, item in doc["paths"].items() for method in item}
    missing = sorted((method.upper(), rule.rule) for rule in app.url_map.iter_rules()
                     if rule.rule.startswith("/api/v1/") and rule.rule != "/api/v1/openapi.json"
                     for method in rule.methods - {"HEAD", "OPTIONS"}
                     if (method.lower(), openapi._template(rule.rule)) not in documented)
    assert not missing, f"routes missing from api/openapi.py OPERATIONS: {missing}"


def test_every_route_outside_api_v1_is_documented_or_an_html_page(app):
    """The web pages (api/pages.PAGE_ROUTES) and Flask's static files are exempt from the table;
    any other route outside /api/v1 needs its row too."""
    from api.pages import PAGE_ROUTES

    documented = {openapi._template(path) for _, path in openapi.OPERATIONS}
    exempt = set(PAGE_ROUTES) | {app.static_url_path + "/<path:filename>"}
    stray = sorted(rule.rule for rule in app.url_map.iter_rules()
                   if not rule.rule.startswith("/api/v1/") and rule.rule not in exempt
                   and openapi._template(rule.rule) not in documented)
    assert not stray, f"routes neither in api/openapi.py OPERATIONS nor exempt as pages: {stray}"


def test_the_document_describes_only_routes_the_app_serves(app, doc):
    served = openapi.served(app)
    extra = [(m, p) for p, item in doc["paths"].items() for m in item if (m, openapi._template(p)) not in served]
    assert not extra


def test_schemas_come_from_the_marshmallow_classes(doc):
    schemas = doc["components"]["schemas"]
    for name in ("CreateGame", "Created", "Join", "Joined", "Order", "CommandResult", "Summary", "Line"):
        assert name in schemas
    assert schemas["Join"]["required"] == sorted(["invite_code", "handle"])
    assert schemas["Order"]["additionalProperties"] is True  # the ruleset's own fields pass through
    order = doc["paths"]["/api/v1/games/{game_id}/orders"]["post"]
    assert order["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Order"}


def test_a_seats_webhook_format_takes_the_game_webhooks_formats(doc):
    schemas = doc["components"]["schemas"]
    game, seat = schemas["Webhook"]["properties"]["format"], schemas["NotificationSettings"]["properties"]
    assert seat["webhook_format"]["enum"] == game["enum"] == ["warlog", "discord", "slack"]
    assert "webhook_format" in schemas["NotificationSettingsOut"]["properties"]
    assert "webhook_format" in doc["paths"]["/api/v1/games/{game_id}/notifications"]["put"]["description"]


def test_the_problem_schema_has_every_field_a_problem_can_carry(doc):
    problem = doc["components"]["schemas"]["Problem"]
    for name in ("type", "title", "status", "detail", "code", "rule", "field", "errors", "current_version"):
        assert name in problem["properties"]
    assert problem["properties"]["code"]["enum"] == list(PROBLEMS)
    assert set(problem["required"]) == {"type", "title", "status", "detail", "code"}


def test_security_and_headers_are_declared(doc):
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http", "scheme": "bearer", "description": doc["components"]["securitySchemes"]["bearerAuth"]["description"]}
    order = doc["paths"]["/api/v1/games/{game_id}/orders"]["post"]
    assert order["security"] == [{"bearerAuth": []}] and order["x-warlog-auth"] == "seat"
    params = {p["$ref"].rsplit("/", 1)[-1] for p in order["parameters"]}
    assert {"IdempotencyKey", "IfMatch"} <= params
    assert doc["components"]["parameters"]["IdempotencyKey"]["required"] is True
    assert doc["paths"]["/api/v1/games"]["post"]["security"] == []
    assert doc["paths"]["/api/v1/games/{game_id}"]["get"]["security"] == [{}, {"bearerAuth": []}]
    umpire_tokens = doc["paths"]["/api/v1/games/{game_id}/umpire-tokens"]["post"]
    assert umpire_tokens["x-warlog-auth"] == "admin"


def test_every_problem_code_of_an_operation_is_under_its_status(doc):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert "500" in op["responses"], (method, path)
            for status, response in op["responses"].items():
                for code in response.get("x-problem-codes", []):
                    assert PROBLEMS[code][0] == int(status), (method, path, code)
                    assert list(response["content"]) == [PROBLEM_JSON]


def test_every_problem_code_is_answered_by_an_operation_or_said_where_it_comes_from():
    """Fails when a code is added to api/problems.PROBLEMS without saying, in api/openapi.py,
    which operations answer with it (their rows' problems), or else WHERE or NOT_ANSWERED."""
    full = openapi.build_document()
    answered = {code for item in full["paths"].values() for op in item.values()
                for response in op["responses"].values() for code in response.get("x-problem-codes", [])}
    placed = answered | set(openapi.WHERE) | set(openapi.NOT_ANSWERED)
    assert not [code for code in PROBLEMS if code not in placed]
    assert not set(openapi.NOT_ANSWERED) & answered


# ---------------------------------------------------------------------- answers match the doc ----
class Checker:
    """Sends requests and checks each answer against the document: the status is documented for
    the operation, a JSON body fits its schema, a problem's code is listed under its status."""

    def __init__(self, client, doc):
        self.client, self.doc, self.seen = client, doc, set()
        self.routes = [(re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$"), path)
                       for path in doc["paths"]]

    def operation(self, method: str, url: str) -> tuple[str, dict] | None:
        path = url.split("?", 1)[0]
        for pattern, template in sorted(self.routes, key=lambda r: "{" in r[1]):
            if pattern.match(path) and method in self.doc["paths"][template]:
                return template, self.doc["paths"][template][method]
        return None

    def __call__(self, method: str, url: str, **kwargs):
        response = getattr(self.client, method)(url, **kwargs)
        found = self.operation(method, url)
        if found is None:  # a method or URL the API does not have: answered for any URL
            assert response.status_code in (404, 405), f"{method.upper()} {url} is not documented"
            assert response.json["code"] in openapi.WHERE and response.mimetype == PROBLEM_JSON
            self.seen.add((method, url, response.status_code))
            return response
        template, op = found
        where = f"{method.upper()} {template} -> {response.status_code}"
        documented = op["responses"].get(str(response.status_code))
        assert documented is not None, f"{where} is not a documented status: {response.get_data(as_text=True)[:300]}"
        if response.mimetype == PROBLEM_JSON:
            body = response.json
            assert body["code"] in documented.get("x-problem-codes", []), f"{where}: {body['code']} not documented"
            assert body["type"] == f"/api/docs#problem-{body['code']}"
            self._validate({"$ref": "#/components/schemas/Problem"}, body, where)
        else:
            assert response.mimetype in documented.get("content", {}), f"{where}: {response.mimetype} not documented"
            schema = documented["content"][response.mimetype].get("schema")
            if response.mimetype == "application/json" and schema:
                self._validate(schema, response.json, where)
            for header in documented.get("headers", {}):
                if header not in ("Link", "Idempotent-Replayed", "Retry-After", "WWW-Authenticate", "Warlog-Damaged"):
                    assert header in response.headers, f"{where}: no {header} header"
        self.seen.add((method, template, response.status_code))
        return response

    def _validate(self, schema: dict, body, where: str) -> None:
        root = {**schema, "components": self.doc["components"]}
        errors = sorted(Draft202012Validator(root).iter_errors(body), key=str)
        assert not errors, f"{where}: the body does not fit the documented schema: {errors[0]}"


@pytest.fixture
def check(client, doc):
    return Checker(client, doc)


def test_the_write_side_answers_only_as_documented(client, check):
    game = make_game(client)
    gid, blue, red = game.game_id, game.seats["Blue"], game.seats["Red"]
    base = f"/api/v1/games/{gid}"
    check("get", "/healthz")
    check("get", "/api/v1/rulesets")
    check("get", "/api/v1/rulesets/freeform")
    check("get", "/api/v1/rulesets/chess")
    check("get", "/api/v1/games", headers=blue)
    check("get", "/api/v1/games?status=nope")
    check("get", "/api/v1/games", headers={"Authorization": "Bearer wls_nonsense"})
    check("get", base, headers=red)
    check("get", base)  # private: 404 without a token
    check("get", f"{base}/me", headers=red)
    check("get", f"{base}/me", headers={"Authorization": "Bearer wls_nonsense"})
    public = make_game(client, public=True)
    check("get", f"/api/v1/games/{public.game_id}/me", headers=red)  # another game's token: 403
    check("get", "/api/v1/games/not-a-uuid", headers=red)
    check("post", "/api/v1/games", json={"ruleset": "chess"})
    check("post", "/api/v1/games", json={"ruleset": "freeform", "options": {"sides": []}})
    check("post", "/api/v1/games", data="x", content_type="text/plain")
    check("post", "/api/v1/games", data="{", content_type="application/json")
    check("post", "/api/v1/games", data="[" * 70_000, content_type="application/json")
    check("post", f"{base}/join", json={"invite_code": game.invites["Blue"], "handle": "again"})
    check("post", f"{base}/join", json={"invite_code": "wli_unknown", "handle": "x"})
    check("post", f"{base}/umpire-tokens", headers=game.admin)
    check("post", f"{base}/umpire-tokens", headers=blue)
    check("post", f"{base}/umpire-tokens")
    check("put", f"{base}/client-seed", json={"client_seed": "new"}, headers=blue)
    check("get", f"{base}/legal-orders", headers=blue)
    check("get", f"{base}/legal-orders", headers=umpire(client, game))
    order = {"kind": "roll", "dice": "2d6", "purpose": "test"}
    check("post", f"{base}/orders", json=order, headers=blue)  # no Idempotency-Key
    check("post", f"{base}/orders", json=order, headers={**blue, "Idempotency-Key": "k1", "If-Match": "x"})
    check("post", f"{base}/orders", json=order, headers={**blue, "Idempotency-Key": "k1", "If-Match": '"1"'})
    first = check("post", f"{base}/orders", json=order, headers={**blue, "Idempotency-Key": "k1"})
    assert first.status_code == 201
    again = check("post", f"{base}/orders", json=order, headers={**blue, "Idempotency-Key": "k1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    check("post", f"{base}/orders", json={**order, "dice": "3d6"}, headers={**blue, "Idempotency-Key": "k1"})
    check("post", f"{base}/orders", json={"dice": "2d6"}, headers={**blue, "Idempotency-Key": "k2"})
    check("post", f"{base}/orders", json={"kind": "roll"}, headers={**blue, "Idempotency-Key": "k3"})
    check("post", f"{base}/orders", json={"kind": "vp", "side": "Green", "delta": 1, "reason": "x"},
          headers={**blue, "Idempotency-Key": "k4"})
    check("post", f"{base}/take-backs", json={}, headers=red)  # not Red's order
    check("post", f"{base}/take-backs", json={"reason": "misclick"}, headers=blue)
    check("post", f"{base}/orders", json=order, headers={**red, "Idempotency-Key": "r1"})  # waiting
    check("post", f"{base}/take-backs/answer", json={"accept": True}, headers=blue)
    check("post", f"{base}/take-backs/answer", json={"accept": True}, headers=red)
    check("post", f"{base}/concede", headers=red)
    check("post", f"{base}/concede", headers=red)
    check("delete", base, headers=red)
    statuses = {s for _, _, s in check.seen}
    assert {200, 201, 400, 401, 403, 404, 405, 409, 412, 413, 415, 422} <= statuses


def test_the_umpire_endpoints_answer_only_as_documented(client, check):
    game = make_game(client)
    base, blue, red = f"/api/v1/games/{game.game_id}", game.seats["Blue"], game.seats["Red"]
    assert check("post", f"{base}/umpire-tokens", headers=game.admin).json["rule"] == "umpire"  # none appointed
    check("post", f"{base}/umpire/answer", json={"accept": True}, headers=blue)  # no proposal waiting
    check("post", f"{base}/umpire", json={"umpire": ""}, headers=game.admin)
    check("post", f"{base}/umpire", json={"umpire": "   "}, headers=game.admin)
    check("post", f"{base}/umpire", json={"umpire": "Ann"}, headers=blue)
    check("post", f"{base}/umpire", data="x", content_type="text/plain", headers=game.admin)
    assert check("post", f"{base}/umpire", json={"umpire": "Ann"}, headers=game.admin).status_code == 201
    check("post", f"{base}/umpire", json={"umpire": "Bob"}, headers=game.admin)  # one proposal at a time
    check("post", f"{base}/umpire/answer", json={}, headers=blue)
    check("post", f"{base}/umpire/answer", json={"accept": True}, headers=game.admin)
    check("post", f"{base}/umpire/answer", json={"accept": True}, headers=blue)
    appointed = check("post", f"{base}/umpire/answer", json={"accept": True}, headers=red)
    assert appointed.json["events"][-1]["type"] == "UmpireAppointed"
    made = [check("post", f"{base}/umpire-tokens", headers=game.admin) for _ in range(4)]
    assert [r.status_code for r in made] == [201, 201, 201, 409]
    check("post", f"{base}/umpire-tokens", headers=bearer(made[0].json["token"]))
    check("get", f"{base}/umpire-tokens", headers=game.admin)
    check("get", f"{base}/umpire-tokens", headers=blue)
    check("get", f"{base}/umpire-tokens")
    assert check("delete", f"{base}/umpire-tokens/{made[0].json['token_id']}", headers=game.admin).status_code == 200
    check("delete", f"{base}/umpire-tokens/{'f' * 16}", headers=game.admin)
    check("delete", f"{base}/umpire-tokens/{made[1].json['token_id']}", headers=red)
    check("delete", f"{base}/umpire", headers=blue)
    assert check("delete", f"{base}/umpire", headers=game.admin).status_code == 200
    check("delete", f"{base}/umpire", headers=game.admin)  # no umpire any more
    assert check("get", f"{base}/umpire-tokens", headers=bearer(made[1].json["token"])).status_code == 401  # revoked
    statuses = {(m, t, s) for m, t, s in check.seen if "umpire" in t}
    assert {s for _, _, s in statuses} == {200, 201, 401, 403, 404, 409, 415, 422}


def test_the_spectator_token_endpoints_answer_only_as_documented(client, check):
    game = make_game(client)
    base = f"/api/v1/games/{game.game_id}/spectator-tokens"
    made = check("post", base, json={"name": "Sam"}, headers=game.admin)
    assert made.status_code == 201
    check("post", base, json={"name": ""}, headers=game.admin)
    check("get", base, headers=game.admin)
    check("get", base, headers=game.seats["Blue"])
    check("get", base)
    assert check("delete", f"{base}/{made.json['token_id']}", headers=game.admin).status_code == 200
    assert check("delete", f"{base}/{made.json['token_id']}", headers=game.admin).json["already_revoked"] is True
    check("delete", f"{base}/{'f' * 16}", headers=game.admin)
    check("delete", f"{base}/{made.json['token_id']}", headers=game.seats["Red"])
    assert check("get", base, headers=bearer(made.json["token"])).status_code == 401  # revoked
    check("post", base, json={"name": "Kim"}, headers=game.admin)
    assert check("delete", f"{base}?name=Kim", headers=game.admin).json["revoked"] == 1
    check("delete", f"{base}?name=Nobody", headers=game.admin)
    check("delete", base, headers=game.admin)
    check("delete", f"{base}?name=Kim", headers=game.seats["Blue"])
    statuses = {s for _, t, s in check.seen if "spectator-tokens" in t}
    assert statuses == {200, 201, 401, 403, 404, 422}


def test_the_reads_answer_only_as_documented(app, client, check):
    game = make_game(client, public=True)
    base = f"/api/v1/games/{game.game_id}"
    reads = ["state", "state?at=1", "state?turn=1", "state?at=9999", "state?turn=99", "state?phase=x",
             "vp", "history", "dice", "dice?seat=Blue&turn=1", "events", "events?after=2&limit=1",
             "events?limit=0", "take-backs", "integrity", "vp?x=1", "frames", "frames?at=1"]
    served = openapi.served(app)
    game.order(client, "Blue", {"kind": "roll", "dice": "d6", "purpose": "p"}, "o1")
    game.order(client, "Blue", {"kind": "advance"}, "o2")
    tried = 0
    for read in reads:
        path = read.split("?")[0]
        if ("get", openapi._template(f"/api/v1/games/{{}}/{path}")) not in served:
            continue
        tried += 1
        check("get", f"{base}/{read}")
        check("get", f"{base}/{read}", headers=game.seats["Red"])
    if ("get", "/api/v1/games/{}/export") in served:
        r = check("get", f"{base}/export", headers=umpire(client, game))
        assert r.mimetype == "application/x-ndjson"
        check("get", "/api/v1/games/00000000-0000-4000-8000-000000000000/export")
    if ("get", "/api/v1/games/{}/events/stream") in served:
        check("get", f"{base}/events/stream", headers={"Last-Event-ID": "twelve"})
    if not tried:
        pytest.skip("api/reads.py is not registered on this app")


def test_a_damaged_log_answers_as_documented(client, check, sqlite_config):
    """A row changed outside warlog: every operation that loads the log says damaged_log (409),
    documented on each; the integrity read reports it in its body."""
    from tests.integration.rawstore import RawStore

    game = make_game(client, public=True)
    game.order(client, "Blue", {"kind": "roll", "dice": "d6", "purpose": "p"}, "o1")
    with RawStore(sqlite_config) as raw:
        raw.set_state(game.game_id, 3, b"{not json")
    base, blue = f"/api/v1/games/{game.game_id}", game.seats["Blue"]
    assert check("get", base, headers=blue).json["code"] == "damaged_log"
    assert check("get", f"{base}/legal-orders", headers=blue).status_code == 409
    assert check("post", f"{base}/orders", json={"kind": "advance"},
                 headers={**blue, "Idempotency-Key": "o2"}).status_code == 409
    assert check("post", f"{base}/umpire-tokens", headers=game.admin).json["code"] == "damaged_log"
    for read in ("state", "history", "events"):
        if ("get", f"/api/v1/games/{{}}/{read}") in openapi.served(client.application):
            assert check("get", f"{base}/{read}").json["code"] == "damaged_log"
    if ("get", "/api/v1/games/{}/integrity") in openapi.served(client.application):
        assert check("get", f"{base}/integrity").json["ok"] is False


def test_the_getting_started_requests_work(client, check):
    """The create, join and order of /api/docs and docs/api.md, sent as they are written."""
    created = check("post", "/api/v1/games", json=openapi.EXAMPLES["create"])
    assert created.status_code == 201
    gid = created.json["game_id"]
    tokens = {}
    for seat, code in created.json["invites"].items():
        body = {**openapi.EXAMPLES["join"], "invite_code": code, "handle": seat.lower()}
        joined = check("post", f"/api/v1/games/{gid}/join", json=body)
        assert joined.status_code == 201
        tokens[joined.json["seat"]] = bearer(joined.json["token"])
    r = check("post", f"/api/v1/games/{gid}/orders", json=openapi.EXAMPLES["order"],
              headers={**tokens["Blue"], "Idempotency-Key": openapi.EXAMPLES["order_id"]})
    assert r.status_code == 201 and [e["type"] for e in r.json["events"]] == ["OrderAccepted", "DiceRolled"]


# ------------------------------------------------------------------------------ the docs page ----
class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.tags = set(), [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src", "action", "srcset", "poster", "data"):
            if attrs.get(name):
                self.links.append(attrs[name])


def _parse(page) -> _Page:
    parsed = _Page()
    parsed.feed(page.get_data(as_text=True))
    return parsed


def test_the_docs_page_is_html_without_external_resources(page):
    assert page.mimetype == "text/html"
    parsed = _parse(page)
    external = [link for link in parsed.links if re.match(r"^\s*(https?:)?//", link, re.I)]
    assert not external
    assert not [t for t, _ in parsed.tags if t in ("script", "iframe", "link", "img")]
    text = page.get_data(as_text=True)
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", text) and "@import" not in text


def test_the_docs_page_is_accessible_markup(page):
    parsed = _parse(page)
    html = dict(parsed.tags)["html"]
    assert html.get("lang") == "en"
    assert any(t == "meta" and a.get("name") == "viewport" for t, a in parsed.tags)
    assert [t for t, _ in parsed.tags].count("h1") == 1
    assert {"main", "nav", "header"} <= {t for t, _ in parsed.tags}


def test_every_problem_code_has_its_anchor_on_the_docs_page(page):
    parsed = _parse(page)
    for code in PROBLEMS:
        assert f"problem-{code}" in parsed.ids, code


def test_every_link_within_the_page_has_its_target(page):
    parsed = _parse(page)
    for link in parsed.links:
        if link.startswith("#"):
            assert link[1:] in parsed.ids, link


def test_every_documented_operation_is_on_the_page(doc, page):
    text = page.get_data(as_text=True)
    parsed = _parse(page)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert f"op-{op['operationId']}" in parsed.ids
            assert f"<code>{path}</code>" in text
    # $refs are expanded into field lists: nested fields of a referenced schema are shown
    assert "<code>events[].hash</code>" in text and "<code>games[].seats[].handle</code>" in text


def test_a_problem_type_points_at_its_row_on_the_docs_page(client, page):
    r = client.get("/api/v1/games/00000000-0000-4000-8000-000000000000")
    assert r.status_code == 404
    path, _, anchor = r.json["type"].partition("#")
    assert path == "/api/docs" and anchor in _parse(page).ids


def test_the_docs_page_shows_the_examples_with_this_servers_address(page):
    text = page.get_data(as_text=True)
    assert "BASE=http://localhost" in text
    assert "Idempotency-Key: " + openapi.EXAMPLES["order_id"] in text


# -------------------------------------------------------------------------------- docs/api.md ----
def _block(name: str) -> str:
    text = API_MD.read_text(encoding="utf-8")
    match = re.search(rf"<!-- generated: {name} -->\n(.*?)\n<!-- end: {name} -->", text, re.S)
    assert match, f"docs/api.md has no generated {name} block"
    return match.group(1)


def test_docs_api_md_lists_every_problem_code_as_the_code_has_it():
    """Regenerate with: .venv/bin/python -m api.openapi"""
    assert _block("problems") == openapi.problems_markdown()
    block = _block("problems")
    for code, (status, title) in PROBLEMS.items():
        assert f"| `{code}` | {status} | {title} |" in block


def test_docs_api_md_lists_every_endpoint_of_the_table():
    assert _block("endpoints") == openapi.endpoints_markdown()


def test_docs_api_md_walk_through_uses_the_tested_requests():
    text = API_MD.read_text(encoding="utf-8")
    for name in ("create", "join", "order"):
        assert json.dumps(openapi.EXAMPLES[name]) in text, name
    assert "64 KiB" in text and "Idempotent-Replayed: true" in text


# ------------------------------------------------------------------ routes the docs name ----
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# What the docs write in a path where the route has a parameter.
PLACEHOLDERS = r"\b(GAME_ID|GAME|ID|SEQ|TOKEN_ID|JOB_ID|freeform|falklands|stf|chess)\b"


def test_every_row_of_the_table_is_a_route_the_app_serves(app):
    """docs/api.md's endpoint table is made from api/openapi.OPERATIONS: a row no blueprint
    serves would document a route that does not exist."""
    served = openapi.served(app)
    assert not [(m, p) for m, p in openapi.OPERATIONS if (m, openapi._template(p)) not in served]


def test_every_route_the_docs_name_is_in_the_table():
    """A `METHOD /api/v1/...` (or a bare path, or one written `…/tail`) in README.md or docs/*.md
    is an operation of api/openapi.OPERATIONS or a page (api/pages.PAGE_ROUTES)."""
    from api.pages import PAGE_ROUTES

    operations = {(m, openapi._template(p)) for m, p in openapi.OPERATIONS}
    paths = {t for _, t in operations} | {openapi._template(p) for p in PAGE_ROUTES}
    wrong, seen = [], 0
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in re.finditer(r"\b(?:(GET|POST|PUT|DELETE) )?(/api/v1/[\w{}<>/.:-]*|…/[\w{}<>/-]+)", text):
            method, path = m.group(1), m.group(2).rstrip(".:/")
            template = openapi._template(re.sub(PLACEHOLDERS, "{x}", path))
            seen += 1
            if template.startswith("…"):
                tail = template[1:]
                found = any(t.endswith(tail) and (method is None or (method.lower(), t) in operations) for t in paths)
            elif method:
                found = (method.lower(), template) in operations
            else:  # a path named in prose: a route, or the start of some
                found = template in paths or any(t.startswith(template + "/") for t in paths)
            if not found:
                wrong.append((doc.name, m.group(0)))
    assert seen > 90 and not wrong, wrong


def test_a_status_the_docs_give_a_problem_code_is_its_status():
    """"409 `damaged_log`" or "`damaged_log` (409)", in docs/api.md or any other doc: the status
    api/problems.PROBLEMS answers it with."""
    text = "\n".join(doc.read_text(encoding="utf-8") for doc in DOCS)
    pairs = [(int(s), c) for s, c in re.findall(r"\b(\d{3}) `([a-z_]+)`", text)]
    pairs += [(int(s), c) for c, s in re.findall(r"`([a-z_]+)` \((\d{3})\)", text)]
    named = [(status, code) for status, code in pairs if code in PROBLEMS]
    assert len(named) > 40
    assert not [(status, code) for status, code in named if PROBLEMS[code][0] != status]
    unknown = {code for _, code in pairs if code not in PROBLEMS}
    assert not unknown, f"the docs name a status with codes no problem has: {unknown}"


def test_every_page_route_is_in_docs_pages_md():
    """The routes exempt from the table (api/pages.PAGE_ROUTES) have their row in docs/pages.md."""
    from api.pages import PAGE_ROUTES

    rows = set(re.findall(r"^\| [^|]+ \| `([^`]+)` \|", (ROOT / "docs" / "pages.md").read_text(encoding="utf-8"), re.M))
    assert not [route for route in PAGE_ROUTES if openapi._template(route) not in {openapi._template(r) for r in rows}]


def test_a_method_and_path_the_docs_give_outside_api_v1_is_served_so(app):
    """`GET /healthz`, `POST /confirm-email`: a route the app serves with that method. A shorthand
    such as `GET /games/{id}` for the API's summary would name the game page instead; write the
    /api/v1 path (checked above). Fenced blocks (a webhook receiver's request) are examples."""
    served = openapi.served(app)
    wrong = []
    for doc in DOCS:
        text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
        for method, path in re.findall(r"\b(GET|POST|PUT|DELETE) (/[\w{}<>/.:?=&-]*)", text):
            path = path.split("?", 1)[0].rstrip(".:/") or "/"
            if not path.startswith("/api/v1/"):
                template = openapi._template(re.sub(PLACEHOLDERS, "{x}", path))
                if (method.lower(), template) not in served:
                    wrong.append((doc.name, f"{method} {path}"))
    assert not wrong, wrong


def test_the_routes_outside_api_v1_are_the_ones_api_md_lists(app):
    """docs/api.md: "Everything is under /api/v1, except …": each route the app serves elsewhere."""
    text = re.sub(r"\s+", " ", API_MD.read_text(encoding="utf-8"))
    except_ = re.search(r"Everything is under `/api/v1`, except (.*?)\)\.", text).group(1)
    named = {openapi._template(p.rstrip("/") or "/") for p in re.findall(r"`(?:GET )?(/[^`]*)`", except_)}
    outside = {openapi._template(rule.rule) for rule in app.url_map.iter_rules() if not rule.rule.startswith("/api/v1/")}
    static = openapi._template(app.static_url_path + "/<path:filename>")
    assert not sorted(outside - named - {static}) and "`/static/` files" in except_, outside - named


def test_the_bounds_api_md_gives_are_the_codes():
    """The table of JSON limits, the body's and an order's size, the sealed orders' count."""
    from api import jsonbody
    from domain.game import MAX_ORDER_BYTES
    from domain.sealed import MAX_SEALED_ORDERS

    text = API_MD.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^  \| ([^|]+?) \| ([^|]+?) \|$", text, re.M))
    assert rows["arrays and objects nested in one another"] == f"{jsonbody.MAX_DEPTH} levels"
    assert rows["members of one object, items of one array"] == f"{jsonbody.MAX_MEMBERS:,}"
    assert rows["values in the whole body"] == f"{jsonbody.MAX_VALUES:,}"
    assert rows["characters of one string"] == f"{jsonbody.MAX_STRING:,}"
    assert rows["characters of one object key"] == f"{jsonbody.MAX_KEY:,}"
    assert f"of at most **{jsonbody.MAX_BODY // 1024} KiB**" in text
    assert f"An order is at most\n  {MAX_ORDER_BYTES // 1024} KiB of JSON" in text
    assert f"(more than {MAX_SEALED_ORDERS}, or not objects of at most {MAX_ORDER_BYTES // 1024} KiB)" in text
