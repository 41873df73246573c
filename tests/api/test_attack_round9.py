"""The ninth attack round: what a client could make the server record that it should not (a field
no order has, a name that is not one line), answered as the service promises (docs/api.md,
docs/rulesets.md). SQLite only: what these tests check is the API's answer, not the store."""

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
