"""Every response carries nosniff, no-referrer, no framing and a Content-Security-Policy (issue 29,
item 8): the JSON API and its problems, /healthz, /static, /api/docs; the pages keep their own CSP
and the artifacts their sandbox (tests/browser checks that both still work in Chromium)."""

from __future__ import annotations

import pytest

from api.app import SECURITY_HEADERS
from api.openapi import DOCS_CSP
from api.jobs import ARTIFACT_CSP
from api.pages import CSP as PAGES_CSP
from tests.api.conftest import make_game


def assert_guarded(response, csp: str) -> None:
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Content-Security-Policy"] == csp
    assert "frame-ancestors 'none'" in csp


@pytest.mark.parametrize("path", ["/api/v1/rulesets", "/healthz", "/api/v1/games/nope", "/static/common.js",
                                  "/static/warlog.css", "/openapi.json"])
def test_the_api_static_files_and_problems_allow_nothing_to_run(client, path):
    response = client.get(path)
    assert response.status_code in (200, 404)
    assert_guarded(response, SECURITY_HEADERS["Content-Security-Policy"])
    assert "default-src 'none'" in response.headers["Content-Security-Policy"]


def test_a_game_read_and_a_refused_order_are_guarded(client):
    game = make_game(client, public=True)
    assert_guarded(client.get(f"/api/v1/games/{game.game_id}"), SECURITY_HEADERS["Content-Security-Policy"])
    refused = game.order(client, "Blue", {"kind": "no such order"}, "x")
    assert refused.status_code == 422
    assert_guarded(refused, SECURITY_HEADERS["Content-Security-Policy"])


def test_the_api_docs_page_may_use_its_inline_style_and_nothing_else(client):
    assert_guarded(client.get("/api/docs"), DOCS_CSP)
    assert "script-src" not in DOCS_CSP


def test_the_pages_keep_their_own_policy(client):
    assert_guarded(client.get("/"), PAGES_CSP)


def test_the_artifact_policy_sandboxes_it_away_from_the_site():
    assert ARTIFACT_CSP.startswith("sandbox allow-scripts;")
    assert "allow-same-origin" not in ARTIFACT_CSP and "frame-ancestors 'none'" in ARTIFACT_CSP
