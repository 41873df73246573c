"""The proving ground refuses a field its order's kind does not have, naming it and the kind's
rule, as the Falklands and STF rulesets do: a typo (`elit` for `elite`) was taken and dropped in
silence. A template's words for readers (`title`, `rule`, `prompt`) may come back, as text."""

from __future__ import annotations

import pytest

from tests.api.conftest import proving_game


@pytest.fixture
def client(sqlite_client):
    return sqlite_client


@pytest.mark.parametrize("order,field,rule", [
    ({"kind": "fire", "odds": "1:1", "elit": True}, "elit", "PG 2"),
    ({"kind": "search", "search_value": 5, "searchvalue": 6}, "searchvalue", "PG 3"),
    ({"kind": "chart", "value": 2}, "value", "PG 3"),
    ({"kind": "advance", "hex": "K5", "hexes": ["K6"]}, "hexes", "PG 5.1"),
    ({"kind": "sight", "from": "L8", "to": "L12", "too": "L13"}, "too", "PG 6"),
    ({"kind": "roll_score", "dice": "2d6"}, "dice", "PG 7.2"),
    ({"kind": "take_marker", "marker": "ace", "face_up": True}, "face_up", "PG 7.3"),
    ({"kind": "turn_end", "turn": 9}, "turn", "PG 7.4"),
    ({"kind": "fire", "odds": "1:1", "title": 3}, "title", "PG 2"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_pg_an_order_with_a_field_its_kind_does_not_have_is_refused_naming_it_and_the_rule(client, order, field,
                                                                                           rule):
    game = proving_game(client)
    before = game.version(client, "Red")
    problem = game.refused(client, "Red", order)
    assert (problem["field"], problem["rule"]) == (field, rule), problem
    assert f"'{field}'" in problem["detail"], problem
    assert game.version(client, "Red") == before


def test_pg_4_2_a_muster_with_a_field_it_does_not_have_is_refused_naming_it(client):
    game = proving_game(client, "muster")
    problem = game.refused(client, "Red", {"kind": "muster", "companies": 4})
    assert (problem["field"], problem["rule"]) == ("companies", "PG 4.2"), problem


def test_pg_5_2_3_an_answer_with_a_field_it_does_not_have_is_refused_naming_it(client):
    game = proving_game(client)
    assert game.send(client, "Red", {"kind": "advance", "hex": "K5"}).status_code == 201
    problem = game.refused(client, "Blue", {"kind": "decide", "decision": "opportunity_fire-K5", "choice": "fire",
                                             "chioce": "hold"})
    assert (problem["field"], problem["rule"]) == ("chioce", "PG 5.2"), problem
    game = proving_game(client)
    assert game.send(client, "Red", {"kind": "chart"}).status_code == 201
    owed = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Red"]).json["orders"][0]
    problem = game.refused(client, "Red", {"kind": "declare", "decision": owed["decision"], "value": 1, "vlaue": 2})
    assert (problem["field"], problem["rule"]) == ("vlaue", "PG 3"), problem


def test_pg_a_templates_words_for_readers_may_come_back_as_text(client):
    game = proving_game(client)
    order = {"kind": "fire", "odds": "1:1", "title": "fire", "rule": "PG 2", "prompt": "fire on the table"}
    assert game.send(client, "Red", order).status_code == 201
    problem = game.refused(client, "Red", {**order, "prompt": ["fire"]})
    assert (problem["field"], problem["rule"]) == ("prompt", "PG 2"), problem


def test_pg_5_4_a_standing_order_with_a_field_it_does_not_have_is_refused_naming_it(client):
    game = proving_game(client)
    r = client.put(f"/api/v1/games/{game.game_id}/standing-orders/p1", headers=game.seats["Blue"],
                   json={"decision_kind": "opportunity_fire", "policy": {"fire": "always", "ask": ["K5"]}})
    assert r.status_code == 422 and r.json["rule"] == "PG 5.4", r.json
    assert "'ask'" in r.json["detail"], r.json
