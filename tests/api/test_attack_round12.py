"""Attacker round 12: what the session added (a seat replacing its own token, kept heads, the
games list's catch-up, one delivery at a time per webhook, GAME_JOBS under a lock ...)."""

from __future__ import annotations

from tests.api.conftest import app_on, bearer, make_game
from tests.api.test_seat_token_rotation import live_seat_tokens, me, rotate


def _join(client, game, seat: str, key: str):
    return client.post(f"/api/v1/games/{game.game_id}/join", headers={"Idempotency-Key": key},
                       json={"invite_code": game.invites[seat], "handle": seat.lower(), "client_seed": "cs"})


def test_a_join_sent_again_after_its_seat_replaced_its_token_takes_nothing_back(api_service):
    # A token replaced because it leaked with the join that made it (a pasted log holds the invite
    # code and the join's key): that join sent again within its retry window must not revoke the
    # replacing token and hand its sender a live one. The seat had its join's answer: nothing was lost.
    client = app_on(api_service).test_client()
    game = make_game(client, join=False)
    old = _join(client, game, "Blue", "join-key").json["token"]
    r = rotate(client, game.game_id, bearer(old), key="rotate-1")
    assert r.status_code == 201, r.json
    new = r.json["token"]
    again = _join(client, game, "Blue", "join-key")
    assert again.status_code == 409 and again.json["code"] == "invite_used", again.json
    assert "replaced" in again.json["detail"]
    assert me(client, game.game_id, new).status_code == 200
    assert live_seat_tokens(api_service, game.game_id, "Blue") == 1
    # Before any replacement, the join sent again still gets the seat its token (docs/api.md, "Idempotency").
    red = _join(client, game, "Red", "red-key")
    assert red.status_code == 201
    assert _join(client, game, "Red", "red-key").status_code == 200
