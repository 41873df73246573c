"""api/jsonbody.py: JSON responses written by orjson only where they are what Flask's standard
provider writes."""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st

from api.jsonbody import JSONProvider, fast_body
from tests.api.conftest import make_game
from tests.jsonvalues import Colour, Point, Size, has_float, same


def _standard(obj) -> bytes:
    """What Flask's own provider answers for ``obj`` (keys unsorted, as warlog's)."""
    app = Flask("standard")
    app.json.sort_keys = False
    with app.app_context():
        return app.json.response(obj).get_data()


def _warlog(obj) -> bytes:
    app = Flask("warlog")
    app.json = JSONProvider(app)
    with app.app_context():
        return app.json.response(obj).get_data()


def _agree(obj) -> None:
    try:
        expected = _standard(obj)
    except Exception as exc:
        with pytest.raises(type(exc)):
            _warlog(obj)
        return
    got = _warlog(obj)
    assert same(json.loads(got), json.loads(expected)), (got, expected)
    if not has_float(obj):
        assert got == expected


@pytest.mark.parametrize("body", [
    {"game_id": "g", "version": 12, "events": [{"seq": 1, "data": {"faces": [1, 6], "target": None}}]},
    {"text": "naïve café ✓ 😀 \u2028"}, {"control": "\x00\x1f\n\t\"\\"}, {"del": "\x7f"},  # escaped alike
    {"lone": "\ud800"},  # orjson refuses a lone surrogate, the standard escapes it
    {"nan": float("nan")}, {"inf": [float("inf"), float("-inf")]},  # orjson would write null
    {"small": 1e-05, "tiny": 1e-07, "large": 1e16, "half": 0.5, "negzero": -0.0},
    {"big": 2**64}, {"keys": {1: "x"}}, {"tuple": (1, 2)}, {"id": uuid.UUID(int=5)},
    {"when": datetime(2026, 11, 25, tzinfo=timezone.utc)}, {"day": date(2026, 1, 1)},
    {"money": Decimal("1.10")}, {"point": Point(1)}, {"size": Size.BIG}, {"colour": Colour.RED},
    [1, "two", None], "text", 3, None,
])
def test_fast_bodies_are_the_standard_provider_s(body):
    _agree(body)


def _values():
    scalars = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
               | st.sampled_from([uuid.UUID(int=1), 2**64, Size.BIG, Decimal("2.5")]))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                        | st.dictionaries(st.text(max_size=4) | st.integers(), inner, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(_values())
def test_fast_bodies_are_the_standard_provider_s_for_any_value(body):
    _agree(body)


def test_only_bodies_the_standard_would_write_alike_are_taken():
    assert fast_body({"a": [1, None, True]}) == b'{"a":[1,null,true]}'
    assert fast_body({"text": "é ✓ 😀", "del": "\x7f"}) == b'{"text":"\\u00e9 \\u2713 \\ud83d\\ude00","del":"\\u007f"}'
    for other in ({"nan": float("nan")}, {"id": uuid.UUID(int=1)}, (1, 2), {"lone": "\ud800"}):
        assert fast_body(other) is None


def test_a_pretty_printed_response_is_flask_s():
    app = Flask("pretty")
    app.json = JSONProvider(app)
    app.json.compact = False
    with app.app_context():
        assert app.json.response({"a": 1}).get_data() == b'{\n  "a": 1\n}\n'


def test_the_api_answers_with_it(client):
    """Through the app: an order's result, and one holding a player's non-ASCII text, are the
    bytes the standard provider writes."""
    assert type(client.application.json) is JSONProvider
    game = make_game(client)
    order = {"kind": "note", "text": "Ποταμός crossed ✓"}
    r = game.order(client, "Blue", order, "k1")
    assert r.status_code == 201 and r.get_data() == _standard(r.json)
    assert "\\u03a0" in r.get_data(as_text=True)  # escaped, as json.dumps with ensure_ascii escapes it
    r = game.order(client, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "fire"}, "k2")
    assert r.status_code == 201 and r.get_data() == _standard(r.json)
