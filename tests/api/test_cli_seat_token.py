"""`warlog seat-token` replaces the seat's token and saves the new one (docs/api.md, "A seat's token
replaced"), signed with the seat's key; run again after a lost answer, it gets the same token back.
Against a live server."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from domain.access import id_of_token
from tests.api import test_client
from tests.api.test_client import started_game

alice, bob, clean_env, server = test_client.alice, test_client.bob, test_client.clean_env, test_client.server


def role(server, game_id: str, token: str) -> int:
    """The status of GET .../me with ``token``."""
    request = urllib.request.Request(f"{server.url}/api/v1/games/{game_id}/me",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_seat_token_replaces_the_saved_token_signed_with_the_seats_key(server, alice, bob):
    game_id = started_game(server, alice, bob)  # alice's Blue registered a key: the request is signed
    old = alice.saved()["games"][game_id]["token"]
    code, out, err = alice("seat-token", game_id)
    assert code == 0 and "replaced the Blue token" in out and "saved the new token" in out, out + err
    entry = alice.saved()["games"][game_id]
    new = entry["token"]
    assert new != old and entry["seats"]["Blue"] == new and not entry.get("pending_rotations")
    assert role(server, game_id, old) == 401 and role(server, game_id, new) == 200
    code, out, err = alice("order", game_id, "note", "--set", "text=with the new token")
    assert code == 0, err


def test_seat_token_run_again_after_a_lost_answer_saves_the_same_token(server, alice, bob):
    game_id = started_game(server, alice, bob, keys=False)
    config = alice.saved()
    old = config["games"][game_id]["token"]
    request = urllib.request.Request(f"{server.url}/api/v1/games/{game_id}/seat-token", method="POST",
                                     headers={"Authorization": f"Bearer {old}", "Idempotency-Key": "lost-1"})
    with urllib.request.urlopen(request) as answer:  # the answer the CLI never read
        sent = json.loads(answer.read())["token"]
    config["games"][game_id]["pending_rotations"] = {id_of_token(old): "lost-1"}  # kept before it was sent
    alice.config.write_text(json.dumps(config))
    code, out, err = alice("seat-token", game_id)
    assert code == 0, err
    assert alice.saved()["games"][game_id]["token"] == sent and role(server, game_id, sent) == 200
