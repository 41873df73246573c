"""PG 6 through the HTTP API: the proving ground's hex map and line of sight. The ruleset read
gives the grid form of the board (a grid spec and the terrain of ~900 hexes, no polygon each);
a sight whose line passes a woods or building hex is refused naming PG 6 and the blocking hexes,
along a hexside only when both hexes beside it block; a clear one rolls the die."""

from __future__ import annotations

from domain.rulesets.toolkit.hexes import Grid
from tests.api.conftest import bearer


def proving_game(client) -> tuple[str, dict]:
    created = client.post("/api/v1/games", json={"ruleset": "proving"})
    assert created.status_code == 201, created.json
    game_id, seats = created.json["game_id"], {}
    for seat, code in created.json["invites"].items():
        joined = client.post(f"/api/v1/games/{game_id}/join", json={"invite_code": code, "handle": seat.lower()})
        assert joined.status_code == 201, joined.json
        seats[seat] = bearer(joined.json["token"])
    return game_id, seats


def sight(client, game_id, headers, key, **fields):
    return client.post(f"/api/v1/games/{game_id}/orders", json={"kind": "sight", **fields},
                       headers={**headers, "Idempotency-Key": key})


def test_pg6_the_ruleset_read_gives_a_grid_board_of_900_hexes(client):
    r = client.get("/api/v1/rulesets/proving")
    assert r.status_code == 200, r.json
    board = r.json["board"]
    grid = Grid(board["grid"])
    assert len(grid.names()) == 900 and "areas" not in board
    assert board["terrain"]["M9"] == "building" and board["terrain_styles"]["building"]["blocks"] is True
    assert all(grid.hex(h) for h in board["terrain"])  # every terrain hex is on the map


def test_pg6_sight_refused_when_blocked_and_rolled_when_clear(client):
    game_id, seats = proving_game(client)
    legal = client.get(f"/api/v1/games/{game_id}/legal-orders", headers=seats["Red"]).json["orders"]
    assert {"kind": "sight", "rule": "PG 6"}.items() <= next(o for o in legal if o["kind"] == "sight").items()

    # through the building in M9 (the line L8-P12 crosses M9, M10, N10, O11, O12)
    r = sight(client, game_id, seats["Red"], "s1", **{"from": "L8", "to": "P12"})
    assert r.status_code == 422, r.json
    assert r.json["code"] == "rule_violation" and r.json["rule"] == "PG 6"
    assert "PG 6: no line of sight from L8 to P12 (blocked by M9 (building), N10 (woods))" in r.json["detail"]
    # along the hexside between the woods in M8 and the building in M9: both block
    r = sight(client, game_id, seats["Blue"], "s2", **{"from": "N8", "to": "L8"})
    assert r.status_code == 422 and "blocked by M8 (woods), M9 (building)" in r.json["detail"], r.json

    # clear down column L: the die is rolled, by the server, for the seat that ordered
    r = sight(client, game_id, seats["Red"], "s3", **{"from": "L8", "to": "L12"})
    assert r.status_code == 201, r.json
    rolled = [e for e in r.json["events"] if e["type"] == "DiceRolled"]
    assert len(rolled) == 1, r.json["events"]
    roll = rolled[0]["data"]
    assert roll["rule"] == "PG 6" and roll["seat"] == "Red" and roll["notation"] == "1d10"
    assert 1 <= roll["dice"][0]["value"] <= 10 and "L8" in roll["purpose"] and "L12" in roll["purpose"]


def test_pg6_a_hex_not_on_the_map_is_an_invalid_order_naming_the_field(client):
    game_id, seats = proving_game(client)
    for key, fields, field, says in (
            ("b1", {"from": "L8", "to": "L31"}, "to", "'L31' is not a hex of this map"),
            ("b2", {"from": "l8", "to": "L12"}, "from", "'l8' is not a hex name"),
            ("b3", {"to": "L12"}, "from", "not None")):
        r = sight(client, game_id, seats["Red"], key, **fields)
        assert r.status_code == 422, r.json
        assert r.json["code"] == "invalid_order", r.json
        assert r.json["rule"] == "PG 6" and r.json["field"] == field, r.json
        assert says in r.json["detail"] and "names like A1" in r.json["detail"], r.json

