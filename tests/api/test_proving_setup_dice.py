"""PG 4 set-up by dice end to end through the HTTP API (domain/rulesets/proving/setup.py): the
server's opening roll once both seats have joined, each side's muster rolled on tables, other
orders refused naming PG 4 until the set-up is done, and every set-up die re-derived from the
export once the set-up's end reveals dice epoch 0."""

from __future__ import annotations

from domain import dice
from domain.rulesets.proving.setup import COMPANY, GROUND, STRENGTH
from domain.verify import verify_text
from tests.api.test_proving_standing import proving_game, types


def events(client, game, seat="Red") -> list[dict]:
    return client.get(f"/api/v1/games/{game.game_id}/events?limit=500", headers=game.seats[seat]).json["events"]


def test_pg_4_1_the_server_rolls_for_system_as_soon_as_the_last_seat_joins(client):
    game = proving_game(client, scenario="muster")
    lines = events(client, game)
    assert [line["type"] for line in lines][-5:] == ["SeatJoined", "DiceEpochOpened", "DiceCommitted", "DiceRolled",
                                                     "ControlChanged"]
    roll, control = lines[-2]["data"], lines[-1]["data"]
    assert roll["seat"] == "system" and roll["rule"] == "PG 4.1" and roll["epoch"] == 0
    assert roll["target"]["table"] == "PG 4.1 Ground Table"
    assert control["side"] == GROUND[roll["dice"][0]["value"]]


def test_pg_4_3_orders_other_than_the_muster_are_refused_until_the_set_up_is_done(client):
    game = proving_game(client, scenario="muster")
    refused = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-1")
    assert refused.status_code == 422 and refused.json["rule"] == "PG 4", refused.json
    assert "waiting for Red and Blue to muster" in refused.json["detail"]
    legal = client.get(f"/api/v1/games/{game.game_id}/legal-orders", headers=game.seats["Red"]).json["orders"]
    assert legal == [{"kind": "muster", "rule": "PG 4.2"}]

    first = game.order(client, "Red", {"kind": "muster"}, "red-2")
    assert first.status_code == 201 and "TurnAdvanced" not in types(first)
    twice = game.order(client, "Red", {"kind": "muster"}, "red-3")
    assert twice.status_code == 422 and twice.json["rule"] == "PG 4.2"
    still = game.order(client, "Blue", {"kind": "advance", "hex": "J4"}, "blue-1")
    assert still.status_code == 422 and still.json["rule"] == "PG 4" and "waiting for Blue" in still.json["detail"]

    last = game.order(client, "Blue", {"kind": "muster"}, "blue-2")
    assert types(last)[-4:] == ["TurnAdvanced", "DiceEpochRevealed", "DiceEpochOpened", "DiceCommitted"]
    late = game.order(client, "Blue", {"kind": "muster"}, "blue-3")
    assert late.status_code == 422 and late.json["rule"] == "PG 4.2"
    play = game.order(client, "Red", {"kind": "advance", "hex": "J4"}, "red-4")
    assert play.status_code == 201, play.json


def test_pg_4_every_set_up_die_is_re_derived_from_the_export_after_the_reveal(client):
    game = proving_game(client, scenario="muster")
    game.order(client, "Blue", {"kind": "muster"}, "blue-1")
    half = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Red"]).data.decode()
    report, lines = verify_text(half.splitlines())  # mid set-up: committed, not yet revealed
    assert report.ok and report.rolls_unrevealed >= 3 and report.rolls_verified == 0
    assert "DiceEpochRevealed" not in {line["type"] for line in lines}
    game.order(client, "Red", {"kind": "muster"}, "red-1")

    text = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Red"]).data.decode()
    report, lines = verify_text(text.splitlines())
    assert report.ok, report.summary()
    opened = next(line["data"] for line in lines if line["type"] == "DiceEpochOpened" and line["data"]["epoch"] == 0)
    revealed = next(line["data"] for line in lines if line["type"] == "DiceEpochRevealed")
    assert revealed["epoch"] == 0
    seed = bytes.fromhex(revealed["seed"])
    assert dice.commitment(seed) == opened["commitment"]

    rolls, order_id = [], ""  # a roll's input: the id of the last order accepted before it ("" for none)
    for line in lines:
        if line["type"] == "OrderAccepted":
            order_id = line["data"]["order_id"]
        elif line["type"] == "DiceRolled":
            rolls.append((line["data"], order_id))
    assert rolls and all(r["epoch"] == 0 for r, _ in rolls)
    assert {input for r, input in rolls if r["seat"] == "system"} == {""}  # the opening, before any order
    for r, input in rolls:  # every face, from the seed revealed, exactly as docs/dice.md derives it
        for die in r["dice"]:
            assert die["value"] == dice.face2(seed, game.game_id, 0, opened["client_entropy"], input, die["nonce"],
                                              die["sides"])
    rolls = [r for r, _ in rolls]
    assert report.rolls_verified == len(rolls)

    # The forces follow from the dice by the tables of PG 4.2: strength, then one roll per company.
    for side in ("Blue", "Red"):
        mine = [r for r in rolls if r["seat"] == side]
        assert len(mine) == 1 + STRENGTH[mine[0]["dice"][0]["value"]]
        expected = [f"{COMPANY[r['dice'][0]['value']]} company" for r in mine[1:]]
        gained = [line["data"]["marker"] for line in lines
                  if line["type"] == "MarkerGained" and line["data"]["side"] == side]
        assert gained == expected
    state = client.get(f"/api/v1/games/{game.game_id}/state", headers=game.seats["Red"]).json
    assert state["state"]["turn"] == 1 and state["state"]["phase"] == "Play"
