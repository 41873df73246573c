"""PG 3 declared results end to end through the HTTP API: a value the texts do not give is
declared by the seat (inside its order, or as the answer to a pending "declare" decision after
the server's roll), recorded with who declared it and what it stands for, then the server rolls
and applies the rest; a value out of its range is refused naming PG 3."""

from __future__ import annotations

from tests.api.test_proving_tables import export_lines, proving_game
from workers import stats


def events_of(r, kind: str) -> list[dict]:
    return [e["data"] for e in r.json["events"] if e["type"] == kind]


def test_pg_3_a_search_value_is_declared_by_the_seat_then_the_server_rolls_against_it(client):
    game = proving_game(client)
    r = game.order(client, "Blue", {"kind": "search", "search_value": 4}, "s1")
    assert r.status_code == 201, r.json
    assert [e["type"] for e in r.json["events"]][1:3] == ["ResultDeclared", "DiceRolled"]
    (declared,) = events_of(r, "ResultDeclared")
    assert declared == {"seat": "Blue", "rule": "PG 3", "what": "search value", "value": 4, "decision": None,
                        "stands_for": "the base game's search value chart (a rule book not in the texts)"}
    (rolled,) = events_of(r, "DiceRolled")
    die = rolled["dice"][0]["value"]
    assert rolled["notation"] == "1d10" and rolled["rule"] == "PG 3"
    assert rolled["target"]["compare"] == "<=" and rolled["target"]["value"] == 4
    assert rolled["outcome"] == ("success" if die <= 4 else "failure")
    assert events_of(r, "VPScored") == ([{"side": "Blue", "delta": 1, "total": 1, "reason": "search succeeded",
                                          "rule": "PG 3"}] if die <= 4 else [])
    # Luck on a roll against a declared value is measured like any target: P(d10 <= 4) = 0.4.
    luck = stats.game_statistics(export_lines(client, game))["luck"]["Blue"]
    assert luck["rolls"] == 1 and abs(luck["expected"] - 0.4) < 1e-9


def test_pg_3_a_declaration_out_of_its_range_is_refused_naming_pg_3_and_nothing_is_rolled(client):
    game = proving_game(client)
    r = game.order(client, "Red", {"kind": "search", "search_value": 14}, "s1")
    assert r.status_code == 422, r.json
    assert "PG 3" in str(r.json) and "from 1 to 10" in str(r.json), r.json
    wrong_type = game.order(client, "Red", {"kind": "search", "search_value": "a lot"}, "s2")
    assert wrong_type.status_code in (400, 422) and "PG 3" in str(wrong_type.json), wrong_type.json
    dice = client.get(f"/api/v1/games/{game.game_id}/dice", headers=game.seats["Red"]).json
    assert "DiceRolled" not in str(dice)


def test_pg_3_mid_order_the_server_rolls_then_waits_for_the_seat_to_declare_the_chart(client):
    game = proving_game(client)
    r = game.order(client, "Red", {"kind": "chart"}, "c1")
    assert r.status_code == 201, r.json
    (rolled,) = events_of(r, "DiceRolled")
    (pending,) = events_of(r, "DecisionPending")
    decision = pending["decision"]
    assert decision["kind"] == "declare" and decision["seat"] == "Red" and decision["rule"] == "PG 3"
    assert decision["options"]["min"] == 0 and decision["options"]["max"] == 3
    assert str(sum(d["value"] for d in rolled["dice"])) in decision["prompt"]
    # The game waits for Red's declaration: Blue may not act, and Red's only legal order is it.
    blue = game.order(client, "Blue", {"kind": "search", "search_value": 3}, "b1")
    assert blue.status_code == 422 and "not_your_move" in str(blue.json) and blue.json["rule"] == "PG 3", blue.json
    legal = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Red"]).json["orders"]
    assert [o["kind"] for o in legal] == ["declare"] and legal[0]["decision"] == decision["id"]
    refused = game.order(client, "Red", {"kind": "declare", "decision": decision["id"], "value": 7}, "c2")
    assert refused.status_code == 422 and "PG 3" in str(refused.json), refused.json
    r = game.order(client, "Red", {"kind": "declare", "decision": decision["id"], "value": 2}, "c3")
    assert r.status_code == 201, r.json
    assert events_of(r, "DecisionResolved")[0]["decision_id"] == decision["id"]
    (declared,) = events_of(r, "ResultDeclared")
    assert declared["value"] == 2 and declared["decision"] == decision["id"] and declared["seat"] == "Red"
    assert events_of(r, "VPScored")[0]["delta"] == 2
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Blue"]).json
    assert "Red declared the map chart result: 2" in str(history)
