"""A seat that registered a key signs every write of its own notification and webhook settings
(kind "notifications", docs/dice.md, "Signed orders and heads"): a stolen seat token alone cannot
turn off the mails or the webhook that tell the seat a deadline is near. A seat without a key is
unchanged."""

from __future__ import annotations

from domain import signatures
from tests.api.test_signatures import keyed_game


def put(client, game, seat: str, body: dict, **headers):
    return client.put(f"/api/v1/games/{game.game_id}/notifications", json=body, headers={**game.seats[seat], **headers})


def settings(client, game, seat: str) -> dict:
    r = client.get(f"/api/v1/games/{game.game_id}/notifications", headers=game.seats[seat])
    assert r.status_code == 200, r.json
    return r.json


def signed(game, key, body: dict, head: str) -> dict:
    return {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.NOTIFICATIONS, "Blue",
                                                        {"settings": body}, head), "Warlog-Head": head}


def test_a_keyed_seats_unsigned_or_wrongly_signed_settings_are_refused_and_nothing_changes(client):
    game, key, head = keyed_game(client)
    before = settings(client, game, "Blue")
    silence = {"notify": False, "events": []}
    r = put(client, game, "Blue", silence)
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = put(client, game, "Blue", {"webhook_url": None, "channels": []})
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    # Signed over other settings than those sent, or as another kind: not this body's signature.
    r = put(client, game, "Blue", silence, **signed(game, key, {"notify": False}, head))
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    assert "notifications command, settings" in r.json["detail"]
    other = signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue", {"request_id": "x"}, head)
    r = put(client, game, "Blue", silence, **{"Warlog-Signature": other, "Warlog-Head": head})
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = put(client, game, "Blue", silence, **signed(game, key, silence, "ab" * 32))
    assert r.status_code == 422 and r.json["code"] == "unknown_head", r.json
    assert settings(client, game, "Blue") == before


def test_a_keyed_seats_signed_settings_are_accepted(client):
    game, key, head = keyed_game(client)
    body = {"events": ["game_over"], "digest": True}
    r = put(client, game, "Blue", body, **signed(game, key, body, head))
    assert r.status_code == 200, r.json
    assert settings(client, game, "Blue")["events"] == ["game_over"]


def test_a_seat_without_a_key_writes_its_settings_unsigned(client):
    game, _, _ = keyed_game(client)
    r = put(client, game, "Red", {"events": ["game_over"]})
    assert r.status_code == 200, r.json
    assert settings(client, game, "Red")["events"] == ["game_over"]
