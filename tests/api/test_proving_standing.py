"""PG 5 standing orders end to end through the HTTP API (domain/rulesets/proving/standing.py):
Blue leaves a standing order out of turn; Red's advance raises Blue's opportunity fire decision,
which the standing order answers inside Red's order, the use recorded; "ask me at K5" asks Blue;
a cancelled order asks again; a bad policy is refused naming PG 5.4; the log verifies."""

from __future__ import annotations

from domain.verify import verify_text
from tests.api.conftest import ApiGame, bearer, proving_game, umpire
from tests.api.test_client import alice, bob, clean_env, server  # noqa: F401  (fixtures)


def set_policy(client, game: ApiGame, seat: str, policy_id: str, policy, kind: str = "opportunity_fire"):
    return client.put(f"/api/v1/games/{game.game_id}/standing-orders/{policy_id}",
                      json={"decision_kind": kind, "policy": policy}, headers=game.seats[seat])


def types(response) -> list[str]:
    return [line["type"] for line in response.json["events"]]


def test_pg_5_4_a_standing_order_set_out_of_turn_answers_the_interrupt_and_its_use_is_recorded(client):
    game = proving_game(client)
    r = set_policy(client, game, "Blue", "fire-at-will", {"fire": "always"})
    assert r.status_code == 200, r.json
    assert types(r) == ["StandingOrderSet"]
    assert r.json["events"][0]["data"]["rule"] == "PG 5.4"

    r = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    assert r.status_code == 201, r.json
    assert types(r) == ["OrderAccepted", "UnitMoved", "DecisionPending", "StandingOrderUsed",
                        "DecisionResolved", "DiceRolled"] + (["VPScored"] if types(r)[-1] == "VPScored" else [])
    used = r.json["events"][3]["data"]
    assert used["choice"] == "fire" and used["decision_id"] == "opportunity_fire-J4"
    assert r.json["events"][5]["data"]["seat"] == "Blue"  # Blue's die, as if Blue had ordered it
    # Red saw the answer, not the standing order's name.
    assert used["policy_id"] != "fire-at-will" and used["concealed"] == {"policy_id": None}
    assert "redacted" not in r.json["events"][3]
    # Nothing waits for Blue: Red is free to order again.
    summary = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Red"]).json
    assert set(summary["whose_move"]) == {"Red", "Blue"}

    # The same order id again: the first result, the policy not consulted a second time.
    again = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    assert again.status_code == 200 and [e["seq"] for e in again.json["events"]] == \
        [e["seq"] for e in r.json["events"]]


def test_pg_5_4_a_policy_that_says_ask_me_here_leaves_the_decision_to_the_seat(client):
    game = proving_game(client)
    assert set_policy(client, game, "Blue", "hold-but-k5", {"fire": "never", "ask_at": ["K5"]}).status_code == 200

    held = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    assert "StandingOrderUsed" in types(held) and held.json["events"][-1]["data"]["choice"] == "hold"

    asked = game.order(client, "Red", {"kind": "advance", "hex": "K5"}, "red-2")
    assert types(asked) == ["OrderAccepted", "UnitMoved", "DecisionPending"]
    refused = game.order(client, "Red", {"kind": "advance", "hex": "K6"}, "red-3")
    assert refused.status_code == 422 and refused.json["code"] == "not_your_move" and refused.json["rule"] == "PG 5.2"
    legal = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Blue"]).json["orders"]
    assert [o["kind"] for o in legal] == ["decide"] and legal[0]["decision"] == "opportunity_fire-K5"
    answered = game.order(client, "Blue", {"kind": "decide", "decision": "opportunity_fire-K5", "choice": "fire"},
                          "blue-1")
    assert answered.status_code == 201 and types(answered)[:3] == ["OrderAccepted", "DecisionResolved", "DiceRolled"]


def test_pg_5_4_a_cancelled_standing_order_no_longer_answers(client):
    game = proving_game(client)
    assert set_policy(client, game, "Blue", "fire-at-will", {"fire": "always"}).status_code == 200
    listed = client.get(f"/api/v1/games/{game.game_id}/standing-orders", headers=game.seats["Blue"]).json
    assert [(o["policy_id"], o["policy"]) for o in listed["standing_orders"]] == \
        [("fire-at-will", {"fire": "always", "ask_at": []})]
    assert listed["accepts"]["opportunity_fire"]["rule"] == "PG 5.4"
    # Red reads only its own (none); a spectator or another game's token reads nothing.
    assert client.get(f"/api/v1/games/{game.game_id}/standing-orders",
                      headers=game.seats["Red"]).json["standing_orders"] == []
    assert client.get(f"/api/v1/games/{game.game_id}/standing-orders").status_code == 404  # a private game

    r = client.delete(f"/api/v1/games/{game.game_id}/standing-orders/fire-at-will", headers=game.seats["Blue"])
    assert r.status_code == 200 and types(r) == ["StandingOrderCancelled"]
    asked = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    assert types(asked) == ["OrderAccepted", "UnitMoved", "DecisionPending"]
    again = client.delete(f"/api/v1/games/{game.game_id}/standing-orders/fire-at-will", headers=game.seats["Blue"])
    assert again.status_code == 422 and again.json["code"] == "rule_violation"


def test_pg_5_4_a_bad_policy_is_refused_naming_the_rule(client):
    game = proving_game(client)
    bad = set_policy(client, game, "Blue", "p", {"fire": "sometimes"})
    assert bad.status_code == 422 and bad.json["code"] == "invalid_order" and bad.json["rule"] == "PG 5.4"
    bad_hex = set_policy(client, game, "Blue", "p", {"fire": "always", "ask_at": ["K"]})
    assert bad_hex.status_code == 422 and bad_hex.json["rule"] == "PG 5.4"
    red = set_policy(client, game, "Red", "p", {"fire": "always"})
    assert red.status_code == 422 and red.json["code"] == "rule_violation" and red.json["rule"] == "PG 5.4"
    kind = set_policy(client, game, "Blue", "p", {"fire": "always"}, kind="reveal")
    assert kind.status_code == 422 and kind.json["rule"] == "PG" and "opportunity_fire" in kind.json["detail"]
    no_body = client.put(f"/api/v1/games/{game.game_id}/standing-orders/p", json={"policy": {}},
                         headers=game.seats["Blue"])
    assert no_body.status_code == 422 and no_body.json["code"] == "invalid_request"
    assert set_policy(client, game, "Blue", "p", {"fire": "always"}).status_code == 200
    second = set_policy(client, game, "Blue", "q", {"fire": "never"})
    assert second.status_code == 422 and second.json["rule"] == "PG 5.4" and "cancel it first" in second.json["detail"]
    same = set_policy(client, game, "Blue", "p", {"fire": "always"})
    assert same.status_code == 200 and same.json["events"] == []  # nothing new to record


def test_a_game_without_standing_orders_refuses_them_naming_its_rules(client):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["A", "B"]}})
    code = r.json["invites"]["A"]
    j = client.post(f"/api/v1/games/{r.json['game_id']}/join", json={"invite_code": code, "handle": "a"})
    refused = client.put(f"/api/v1/games/{r.json['game_id']}/standing-orders/p",
                         json={"decision_kind": "x", "policy": {}}, headers=bearer(j.json["token"]))
    assert refused.status_code == 422 and refused.json["rule"] == "FF", refused.json


def test_pg_5_4_the_log_with_standing_orders_verifies_and_hides_the_policy_from_the_opponent(client):
    game = proving_game(client)
    set_policy(client, game, "Blue", "fire-at-will", {"fire": "always", "ask_at": ["K5"]})
    game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    game.order(client, "Red", {"kind": "advance", "hex": "K5"}, "red-2")
    game.order(client, "Blue", {"kind": "decide", "decision": "opportunity_fire-K5", "choice": "hold"}, "blue-1")

    exact = client.get(f"/api/v1/games/{game.game_id}/export", headers=umpire(client, game)).data.decode()
    report, lines = verify_text(exact.splitlines())
    assert report.ok, report.summary()
    assert [line["type"] for line in lines].count("StandingOrderUsed") == 1
    mine = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Blue"]).data.decode()
    assert verify_text(mine.splitlines())[0].ok  # Blue's own export hides nothing from Blue

    seen_by_red = client.get(f"/api/v1/games/{game.game_id}/events", headers=game.seats["Red"]).json["events"]
    set_line = next(line for line in seen_by_red if line["type"] == "StandingOrderSet")
    assert set(set_line["data"]["concealed"]) == {"policy_id", "decision_kind", "policy", "rule", "salt"}
    assert not any(set_line["data"]["concealed"].values()) and "fire-at-will" not in str(seen_by_red)
    theirs = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Red"]).data.decode()
    report, _ = verify_text(theirs.splitlines())  # Red's export holds commitments, and verifies
    assert report.ok and report.fields_concealed > 0 and "fire-at-will" not in theirs, report.summary()
    history = client.get(f"/api/v1/games/{game.game_id}/history", headers=game.seats["Blue"])
    assert "standing order 'fire-at-will' answers opportunity_fire-J4: fire" in history.get_data(as_text=True)


def test_pg_5_4_warlog_standing_sets_lists_and_cancels_from_the_command_line(server, alice, bob):
    code, out, err = alice("new", "proving", "--server", server.url)
    assert code == 0, err
    game_id = out.split()[1]
    invites = alice.saved()["games"][game_id]["invites"]
    assert alice("join", game_id, invites["Red"], "--handle", "alice")[0] == 0
    assert bob("join", game_id, invites["Blue"], "--handle", "bob", "--server", server.url)[0] == 0

    # bob's seat signs (format 2): it signs the policy as PG 5.4 records it, which the refusal of
    # another form gives, for him to send (the CLI does not sign a form the server chose for him).
    code, out, err = bob("standing", game_id, "--set", "fire-at-will", "--kind", "opportunity_fire",
                         "--policy", '{"fire": "always"}')
    assert code == 1 and 'a standing order is signed as the rules record it: {"ask_at":[],"fire":"always"}' in err, err
    code, out, err = bob("standing", game_id, "--set", "fire-at-will", "--kind", "opportunity_fire",
                         "--policy", '{"ask_at":[],"fire":"always"}')
    assert code == 0 and "standing order fire-at-will set" in out, err
    code, out, err = bob("standing", game_id)
    assert code == 0 and 'Blue fire-at-will: opportunity_fire -> {"fire": "always", "ask_at": []}' in out, err
    code, out, err = bob("standing", game_id, "--set", "p", "--kind", "opportunity_fire", "--policy", '{"fire": 1}')
    assert code == 1 and "PG 5.4" in err, (out, err)
    code, out, err = bob("standing", game_id, "--cancel", "fire-at-will")
    assert code == 0 and "cancelled" in out, err
    assert "no standing orders" in bob("standing", game_id)[1]


def test_the_umpire_reads_every_seats_standing_orders_as_the_api_reference_says(client):
    """GET .../standing-orders serves a seat its own and the umpire every seat's (api/standing.py):
    the reference (api/openapi.py, docs/api.md's endpoint table) names both, not the seat alone."""
    game = proving_game(client)
    assert set_policy(client, game, "Blue", "fire-at-will", {"fire": "always"}).status_code == 200
    read = client.get(f"/api/v1/games/{game.game_id}/standing-orders", headers=umpire(client, game))
    assert read.status_code == 200, read.json
    assert [o["seat"] for o in read.json["standing_orders"]] == ["Blue"]
    admin = client.get(f"/api/v1/games/{game.game_id}/standing-orders", headers=game.admin)
    assert admin.status_code == 403

    op = client.get("/api/v1/openapi.json").json["paths"]["/api/v1/games/{game_id}/standing-orders"]["get"]
    assert op["x-warlog-auth"] == "seat or umpire"
    assert "umpire" in op["description"].split("Auth: ", 1)[1]
