"""The door's limits through a real gunicorn server (api/gunicorn_conf.py, SQLite): a chunked body
(no Content-Length) over 64 KiB is 413, not 400, and a small chunked one is read whole."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.e2e.server import http_json, live_server, started_game


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("limits") / "server", WEB_CONCURRENCY="1") as url:
        game_id, _, tokens = started_game(url, {"ruleset": "freeform"})
        yield url, game_id, tokens


def chunked(url, path: str, token: str, body: bytes, key: str) -> tuple[int, dict]:
    """POST ``body`` with Transfer-Encoding: chunked, in 8 KiB chunks."""
    conn = http.client.HTTPConnection(url.host, url.port, timeout=30)
    try:
        conn.request("POST", path, body=(body[i:i + 8192] for i in range(0, len(body), 8192)),
                     encode_chunked=True,
                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                              "Idempotency-Key": key, "Transfer-Encoding": "chunked"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def test_a_chunked_body_over_64_kib_is_413_and_records_nothing(game):
    url, game_id, tokens = game
    path = f"/api/v1/games/{game_id}/orders"
    auth = {"Authorization": f"Bearer {tokens['A']}"}
    _, _, before = http_json("GET", f"{url}/api/v1/games/{game_id}", headers=auth)
    body = json.dumps({"kind": "note", "text": "x" * 70_000}).encode()
    status, problem = chunked(url, path, tokens["A"], body, "big")
    assert (status, problem["code"]) == (413, "payload_too_large"), problem
    status, _, summary = http_json("GET", f"{url}/api/v1/games/{game_id}", headers=auth)
    assert summary["version"] == before["version"]


def test_a_small_chunked_body_is_read_whole(game):
    url, game_id, tokens = game
    order = {"kind": "note", "text": "y", "fields": {f"f{n}": str(n) * 3000 for n in range(5)}}  # 15 KB, 2 chunks
    status, result = chunked(url, f"/api/v1/games/{game_id}/orders", tokens["A"], json.dumps(order).encode(), "small")
    assert status == 201, result
    assert result["events"][0]["data"]["order"] == order
