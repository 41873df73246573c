"""Simultaneous sealed orders through the API (docs/api.md, "Sealed orders"), on SQLite and
PostgreSQL: two seats commit, neither sees the other's orders before the reveal in any read, a
mismatched reveal records nothing, and the orders are carried out in the rules' order with dice."""

from __future__ import annotations

import json
import secrets

import pytest

from domain import chain, sealed
from domain.verify import verify_text
from tests.api.conftest import make_game

ORDERS = {
    "Blue": [{"kind": "note", "text": "BLUE-SECRET-PLAN"}, {"kind": "roll", "dice": "2d6", "purpose": "blue fire"}],
    "Red": [{"kind": "roll", "dice": "1d6", "purpose": "red fire"},
            {"kind": "vp", "side": "Red", "delta": 3, "reason": "RED-SECRET-PLAN"}],
}


def url(game, tail=""):
    return f"/api/v1/games/{game.game_id}{tail}"


def commit(client, game, seat, orders, salt, round_no=1):
    digest = sealed.commitment(game.game_id, seat, round_no, orders, salt)
    return client.post(url(game, "/sealed"), json={"commitment": digest}, headers=game.seats[seat])


def reveal(client, game, seat, orders, salt):
    return client.post(url(game, "/sealed/reveal"), json={"orders": orders, "salt": salt}, headers=game.seats[seat])


def everything_seat_reads(client, game, seat, monkeypatch) -> str:
    """The state, the summary, the lines, the export and the stream as ``seat`` reads them."""
    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "1")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    headers = game.seats[seat]
    parts = [client.get(url(game, path), headers=headers).get_data(as_text=True)
             for path in ("", "/state", "/events", "/export", "/history")]
    stream = client.get(url(game, "/events/stream"), headers=headers, buffered=False)
    parts.append(b"".join(stream.response).decode())
    return "\n".join(parts)


@pytest.mark.parametrize("first", ["Blue", "Red"])
def test_two_seats_seal_reveal_in_either_order_and_the_orders_are_carried_out_in_side_order(client, first,
                                                                                            monkeypatch):
    game = make_game(client, sealed_orders=True)
    state = client.get(url(game, "/state"), headers=game.seats["Blue"]).json
    assert state["sealed"] == {"round": 1, "rule": "FF 8", "seats": ["Blue", "Red"], "committed": [],
                               "revealed": [], "must_commit": ["Blue", "Red"], "must_reveal": []}
    # An ordinary order is refused naming the rule, and records nothing.
    r = game.order(client, "Blue", {"kind": "advance"}, "o-1")
    assert r.status_code == 422 and r.json["code"] == "rule_violation" and r.json["rule"] == "FF 8", r.json

    salts = {seat: secrets.token_hex(16) for seat in ORDERS}
    r = commit(client, game, "Blue", ORDERS["Blue"], salts["Blue"])
    assert r.status_code == 201 and [e["type"] for e in r.json["events"]] == ["OrderSealed"], r.json
    again = commit(client, game, "Blue", ORDERS["Blue"], salts["Blue"])
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["events"] == r.json["events"]
    other = commit(client, game, "Blue", [], salts["Blue"])
    assert other.status_code == 422 and "cannot be changed" in other.json["detail"]
    early = reveal(client, game, "Blue", ORDERS["Blue"], salts["Blue"])
    assert early.status_code == 422 and early.json["code"] == "rule_violation" and "waiting for Red" in early.json["detail"]
    state = client.get(url(game, "/state"), headers=game.seats["Red"]).json
    assert state["sealed"]["committed"] == ["Blue"] and state["whose_move"] == ["Red"]
    assert commit(client, game, "Red", ORDERS["Red"], salts["Red"]).status_code == 201

    # Both bound; neither seat (nor the server) can show the other's orders: they are not there.
    for seat in ORDERS:
        seen = everything_seat_reads(client, game, seat, monkeypatch)
        assert "SECRET-PLAN" not in seen and "OrderSealed" in seen
    state = client.get(url(game, "/state"), headers=game.seats["Blue"]).json
    assert state["sealed"]["must_reveal"] == ["Blue", "Red"] and state["whose_move"] == ["Blue", "Red"]
    assert "commitment" not in json.dumps(state["sealed"])

    # A mismatched reveal: 422, nothing recorded.
    version = client.get(url(game), headers=game.seats["Red"]).json["version"]
    bad = reveal(client, game, first, [*ORDERS[first], {"kind": "note", "text": "one more"}], salts[first])
    assert bad.status_code == 422 and bad.json["code"] == "commitment_mismatch", bad.json
    assert client.get(url(game), headers=game.seats["Red"]).json["version"] == version

    second = "Red" if first == "Blue" else "Blue"
    r = reveal(client, game, first, ORDERS[first], salts[first])
    assert r.status_code == 201 and [e["type"] for e in r.json["events"]] == ["OrderRevealed"]
    assert reveal(client, game, first, ORDERS[first], salts[first]).status_code == 200  # the same again
    r = reveal(client, game, second, ORDERS[second], salts[second])
    assert r.status_code == 201, r.json
    kinds = [(e["type"], e["data"].get("seat")) for e in r.json["events"]]
    assert kinds == [("OrderRevealed", second), ("SealedOrdersCarriedOut", None),
                     ("OrderAccepted", "Blue"), ("OrderAccepted", "Blue"), ("DiceRolled", "Blue"),
                     ("OrderAccepted", "Red"), ("DiceRolled", "Red"), ("OrderAccepted", "Red"), ("VPScored", None),
                     ("SealedRoundOpened", None)]
    state = client.get(url(game, "/state"), headers=game.seats["Red"]).json
    assert state["sealed"]["round"] == 2 and state["state"]["vp"]["Red"] == 3

    # Every seat's export verifies, reveals included; an altered reveal fails at its line even rehashed.
    text = client.get(url(game, "/export"), headers=game.seats["Blue"]).get_data(as_text=True).splitlines()
    report, _ = verify_text(text)
    assert report.ok and report.reveals_verified == 2, report.summary()
    lines = [json.loads(t) for t in text[1:]]  # after the header line
    at = next(i for i, line in enumerate(lines) if line["type"] == "OrderRevealed" and line["data"]["seat"] == "Red")
    lines[at]["data"]["orders"][1]["delta"] = 30
    prev = chain.GENESIS
    for line in lines:
        line["prev_hash"] = prev
        line["hash"] = prev = chain.line_hash(line)
    report, _ = verify_text([json.dumps(line) for line in lines])
    # and the order carried out, the one Red committed to, is not the forged reveal's (docs/dice.md section 8)
    assert report.failures[0] == (at + 1, "the orders Red revealed for round 1 do not match its commitment")
    assert [why.split(" is not ")[0] for _, why in report.failures[1:]] == ["order 'sealed:1:Red:1'"]


def test_sealed_requests_are_refused_with_a_clear_problem(client):
    plain = make_game(client)
    r = client.post(url(plain, "/sealed"), json={"commitment": "0" * 64}, headers=plain.seats["Blue"])
    assert r.status_code == 422 and "no sealed-orders round is open" in r.json["detail"]
    game = make_game(client, sealed_orders=True)
    for body, code in (({"commitment": "xyz"}, "invalid_order"), ({}, "invalid_request"),
                       ({"commitment": 5}, "invalid_request")):
        r = client.post(url(game, "/sealed"), json=body, headers=game.seats["Blue"])
        assert r.status_code == 422 and r.json["code"] == code, r.json
    r = client.post(url(game, "/sealed"), json={"commitment": "0" * 64}, headers=game.admin)
    assert r.status_code == 403
    for seat in ("Blue", "Red"):
        assert commit(client, game, seat, [], "ab" * 16).status_code == 201
    for body, field in (({"orders": [], "salt": "short"}, "salt"), ({"orders": [1], "salt": "ab" * 16}, "orders")):
        r = client.post(url(game, "/sealed/reveal"), json=body, headers=game.seats["Blue"])
        assert r.status_code == 422 and r.json["code"] == "invalid_order" and r.json["field"] == field, r.json
