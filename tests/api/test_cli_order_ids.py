"""``warlog order`` keeps an order's id until an order is accepted under it (docs/dice.md,
"Retries keep their id"): a roll's dice depend on its order's id, so a client that answered a
refusal with a new id would let a dishonest server see the dice and refuse until it liked them.
Against a live server (the fixtures of test_client)."""

from __future__ import annotations

import json
import urllib.request

from api.client import ProblemError, WarlogClient
from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)


def pending(player, game_id: str) -> str | None:
    return (player.saved()["games"][game_id].get("pending_order_ids") or {}).get("Blue")


def accepted_ids(server, player, game_id: str) -> list[str]:
    client = WarlogClient(server.url, player.saved()["games"][game_id]["token"])
    lines = client.events(game_id, limit=500)["events"]
    return [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"]


def test_a_refused_order_s_next_attempt_keeps_its_id_even_corrected_and_a_new_id_follows_acceptance(
        server, alice, bob):
    game_id = started_game(server, alice, bob)
    code, _, err = alice("order", game_id, "roll", "3x6", "--purpose", "barrage")  # not a dice expression
    assert code != 0 and "FF 3" in err
    first = pending(alice, game_id)
    assert first  # made and kept before anything was sent
    code, _, err = alice("order", game_id, "vp", "Green", "+1", "--reason", "x")  # another order, refused too
    assert code != 0 and pending(alice, game_id) == first
    code, out, err = alice("order", game_id, "roll", "3d6", "--purpose", "barrage")  # corrected: accepted
    assert code == 0, err
    assert f"order {first} recorded" in out and pending(alice, game_id) is None
    code, out, err = alice("order", game_id, "note", "dig in")
    assert code == 0, err
    assert accepted_ids(server, alice, game_id)[0] == first
    second = accepted_ids(server, alice, game_id)[1]
    assert second != first and f"order {second} recorded" in out


def test_an_id_the_log_shows_accepted_is_spent_and_the_next_order_gets_a_new_one(server, alice, bob):
    game_id = started_game(server, alice, bob, keys=False)
    assert alice("order", game_id, "roll", "3x6", "--purpose", "x")[0] != 0
    kept = pending(alice, game_id)
    # The earlier attempt had in fact arrived and been accepted, its answer lost on the way back.
    token = alice.saved()["games"][game_id]["token"]
    request = urllib.request.Request(f"{server.url}/api/v1/games/{game_id}/orders", method="POST",
                                     data=json.dumps({"kind": "note", "text": "first"}).encode(),
                                     headers={"Authorization": f"Bearer {token}", "Idempotency-Key": kept,
                                              "Content-Type": "application/json"})
    assert urllib.request.urlopen(request).status == 201
    code, _, err = alice("order", game_id, "note", "second")
    assert code != 0 and "recorded for an earlier order" in err and pending(alice, game_id) is None
    code, out, err = alice("order", game_id, "note", "second")
    assert code == 0, err
    assert accepted_ids(server, alice, game_id)[0] == kept and accepted_ids(server, alice, game_id)[1] != kept


def test_a_server_s_word_that_an_id_was_used_does_not_spend_it_unless_its_log_shows_it(
        server, alice, bob, monkeypatch):
    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "roll", "3x6", "--purpose", "x")[0] != 0
    kept = pending(alice, game_id)
    honest = WarlogClient.submit_order

    def lying(self, *args, **kwargs):  # a dishonest server that wants a new id, and so new dice
        raise ProblemError(409, "idempotency_conflict", f"order id {kept!r} was already used for a different order")
    monkeypatch.setattr(WarlogClient, "submit_order", lying)
    code, _, err = alice("order", game_id, "roll", "3d6", "--purpose", "barrage")
    assert code != 0 and "already used" in err
    assert pending(alice, game_id) == kept  # no OrderAccepted under it in the log: kept
    monkeypatch.setattr(WarlogClient, "submit_order", honest)
    code, out, err = alice("order", game_id, "roll", "3d6", "--purpose", "barrage")
    assert code == 0 and f"order {kept} recorded" in out, err
