"""``warlog seal`` and ``warlog reveal`` against a live server (the fixtures of test_client): the
salt and the orders stay in the seat's 0600 config until the reveal; only the hash is sent; a
seat whose key is kept there signs its seal and reveal with it."""

from __future__ import annotations

import json
import stat

from domain import chain
from tests.api import test_client
from tests.api.test_client import started_game

# The live server and the two players of test_client, as fixtures of this module too.
server, alice, bob, clean_env = test_client.server, test_client.alice, test_client.bob, test_client.clean_env

FIRE = json.dumps({"kind": "roll", "dice": "2d6", "purpose": "ALICE-BARRAGE"})


def test_seal_keeps_salt_and_orders_in_the_0600_config_and_reveal_carries_them_out(server, alice, bob, tmp_path):
    game_id = started_game(server, alice, bob, sealed_orders=True)
    code, out, err = alice("state", game_id)
    assert code == 0 and "sealed-orders round 1 (FF 8): committed nobody; revealed nobody; to seal: Blue, Red" in out
    code, out, err = alice("seal", game_id, FIRE, json.dumps({"kind": "note", "text": "dig in"}))
    assert code == 0 and "Blue sealed 2 order(s) for round 1" in out and "Blue sealed its orders" in out, err
    kept = alice.saved()["games"][game_id]["sealed"]["Blue"]
    assert kept["round"] == 1 and len(kept["salt"]) == 64 and kept["orders"][0]["purpose"] == "ALICE-BARRAGE"
    assert stat.S_IMODE(alice.config.stat().st_mode) == 0o600
    assert alice("seal", game_id, FIRE, json.dumps({"kind": "note", "text": "dig in"}))[0] == 0  # the same: once
    code, out, err = alice("seal", game_id, FIRE)
    assert code == 2 and "sealed other orders for round 1 already" in err
    # Bob sees that Blue committed, never what: the server does not have it.
    code, out, err = bob("state", game_id)
    assert "committed Blue" in out and "ALICE-BARRAGE" not in out
    code, out, err = bob("history", game_id)
    assert code == 0 and "ALICE-BARRAGE" not in out
    code, out, err = alice("reveal", game_id)
    assert code == 1 and "waiting for Red" in err
    code, out, err = bob("seal", game_id, "--none")
    assert code == 0, err
    assert bob("seal", game_id)[0] == 2  # no orders and no --none: a usage error
    code, out, err = bob("reveal", game_id)
    assert code == 0 and "Red revealed its orders of round 1" in out, err
    assert "Red" not in (bob.saved()["games"][game_id].get("sealed") or {})  # forgotten once recorded
    code, out, err = alice("reveal", game_id)
    assert code == 0 and "ALICE-BARRAGE" in out and "to seal" not in out, err
    assert alice.json("state", game_id)["sealed"]["round"] == 2
    code, out, err = alice("reveal", game_id)
    assert code == 2 and "no orders of Blue sealed for round 2" in err

    # The export verifies offline, the reveals checked against their commitments; an altered
    # reveal, every hash recomputed after it, fails naming its line.
    path = tmp_path / "game.jsonl"
    assert alice("export", game_id, "-o", path, "--server", server.url)[0] == 0
    code, out, err = alice("verify", path)
    assert code == 0 and "2 sealed-orders reveal(s) verified" in out, out
    # Both seats joined with a key (the CLI's default): each seal and reveal was signed with it.
    assert "4 signed seal(s) and reveal(s) verified" in out, out
    lines = [json.loads(t) for t in path.read_text().splitlines()]
    header = [line for line in lines if "warlog_export" in line]  # the server key's line (docs/dice.md)
    lines = [line for line in lines if "warlog_export" not in line]
    signed = [(line["data"]["kind"], line["data"]["seat"]) for line in lines if line["type"] == "SealedOrdersSigned"]
    assert signed == [("seal", "Blue"), ("seal", "Red"), ("reveal", "Red"), ("reveal", "Blue")]
    at = next(i for i, line in enumerate(lines) if line["type"] == "OrderRevealed" and line["data"]["seat"] == "Blue")
    lines[at]["data"]["orders"][0]["dice"] = "3d6"
    prev = chain.GENESIS
    for line in lines:
        line["prev_hash"] = prev
        line["hash"] = prev = chain.line_hash(line)
    path.write_text("".join(json.dumps(line) + "\n" for line in header + lines))
    code, out, err = alice("verify", path)
    assert code == 1 and f"line {at + 1}: the orders Blue revealed for round 1 do not match its commitment" in out
    assert f"line {at + 1}: the signature on line {at + 2} is not seat Blue's of its reveal" in out


def test_a_seal_without_the_seats_key_is_refused_and_records_nothing(server, alice, bob):
    game_id = started_game(server, alice, bob, sealed_orders=True)
    config = alice.saved()
    del config["games"][game_id]["keys"]  # the key lost: the server still asks for Blue's signature
    alice.config.write_text(json.dumps(config))
    version = alice.json("state", game_id)["version"]
    code, out, err = alice("seal", game_id, FIRE)
    assert code == 1 and "registered a public key" in err, err
    assert alice.json("state", game_id)["version"] == version


def test_seal_outside_a_sealed_round_says_so(server, alice, bob):
    game_id = started_game(server, alice, bob)
    code, out, err = alice("seal", game_id, FIRE)
    assert code == 2 and "no sealed-orders round open" in err


def test_legal_in_a_sealed_round_says_to_seal_and_gives_each_order_as_seal_takes_it(server, alice, bob):
    """FF 8: in a sealed-orders round 'warlog legal' printed each order as a 'warlog order' line and
    offered a take-back, both of which the server refuses then ("orders are sealed and revealed (POST
    .../sealed), not given one by one"). It now says the round is open, gives each order as the JSON
    'warlog seal' takes, and once the seat has sealed, that it reveals when every seat has."""
    game_id = started_game(server, alice, bob, sealed_orders=True)
    code, out, err = alice("legal", game_id)
    assert code == 0, err
    assert f"sealed-orders round 1 is open (FF 8): seal your orders together, 'warlog seal {game_id} ORDER…'" in out
    assert f"warlog order {game_id}" not in out and "take-back" not in out
    line = next(x for x in out.splitlines() if x.strip().startswith(f"warlog seal {game_id} ") and '"advance"' in x)
    assert json.loads(line.split(f"warlog seal {game_id} ", 1)[1].strip("'")) == {"kind": "advance"}
    assert alice("seal", game_id, json.dumps({"kind": "advance"}))[0] == 0
    code, out, err = alice("legal", game_id)
    assert code == 0 and f"Blue has sealed its orders for round 1: 'warlog reveal {game_id}' once every seat " \
                         "has sealed (to seal: Red)" in out, out
    assert bob("seal", game_id, "--none")[0] == 0 and alice("reveal", game_id)[0] == 0
    code, out, err = alice("legal", game_id)
    assert code == 0 and "Blue has revealed its orders for round 1 (to reveal: Red)" in out, out
