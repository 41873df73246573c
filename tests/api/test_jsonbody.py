"""api/jsonbody.py's provider: Flask's own, with keys in the order the code gives them."""

from __future__ import annotations

import json

from api.jsonbody import JSONProvider
from tests.api.conftest import make_game


def test_the_api_answers_in_flask_s_json_with_keys_in_the_code_s_order(client):
    assert type(client.application.json) is JSONProvider
    game = make_game(client)
    r = game.order(client, "Blue", {"kind": "note", "text": "Ποταμός crossed ✓"}, "k1")
    assert r.status_code == 201
    assert list(r.json) == ["game_id", "events", "version", "chain_head", "replayed", "order_id",
                            "signed_head"]
    assert r.get_data() == (json.dumps(r.json, separators=(",", ":")) + "\n").encode()  # compact, ensure_ascii
    assert "\\u03a0" in r.get_data(as_text=True)
