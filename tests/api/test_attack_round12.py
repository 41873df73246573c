"""Attacker round 12: what the session added (a seat replacing its own token, kept heads, the
games list's catch-up, one delivery at a time per webhook, GAME_JOBS under a lock ...)."""

from __future__ import annotations

from domain import signatures
from tests.api.conftest import app_on, bearer, make_game
from tests.api.test_cli_kept_heads import _relaying
from tests.api.test_client import alice, bob, clean_env, server, started_game  # noqa: F401  (fixtures)
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


def test_a_head_not_signed_by_the_server_key_does_not_replace_the_one_kept(server, alice, bob, serve_stub, tmp_path):
    # A hostile server answered alice's order with its own line's head (game, seq and hash right)
    # under a signature of another key: the CLI kept it in place of her genuinely signed head, so
    # she held no proof a third party checks, and `verify --head` failed on her own head, not the log.
    game_id = started_game(server, alice, bob)
    assert alice("order", game_id, "note", "--set", "text=first")[0] == 0
    first = alice.saved()["games"][game_id]["signed_head"]
    forger = signatures.new_private_key()

    def forged(head: dict) -> dict:
        return {**head, "signature": signatures.sign(forger, signatures.head_message(head["game"], head["seq"],
                                                                                       head["hash"]))}

    hostile = serve_stub(_relaying(server.url, {"head": forged}))
    code, out, err = alice("order", game_id, "note", "--set", "text=second", "--server", hostile)
    assert code == 0, err
    assert "not the server key's" in err, err
    assert alice.saved()["games"][game_id]["signed_head"] == first
    # The key was pinned when her first head was kept: a hostile server serving another key changes nothing.
    assert alice.saved()["games"][game_id]["server_key"] == server_key_of(server)
    # Through the honest server, the next head is kept as before.
    assert alice("order", game_id, "note", "--set", "text=third")[0] == 0
    assert alice.saved()["games"][game_id]["signed_head"]["seq"] > first["seq"]


def server_key_of(server) -> str:
    import json
    import urllib.request

    with urllib.request.urlopen(server.url + "/api/v1/server-key") as got:
        return json.load(got)["public_key"]


def test_a_stream_s_retry_field_is_bounded_as_retry_after_is(serve_stub, monkeypatch):
    # A server (a link's, or not warlog) sending "retry: 10^30" made the client sleep for ever
    # before reconnecting, or crash with OverflowError (time_t): Retry-After was capped, this was not.
    import api.client as client_module
    from api.client import ConnectionFailed, WarlogClient

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/event-stream")])
        return [b"retry: " + b"9" * 30 + b"\n\n"]

    slept: list[float] = []
    monkeypatch.setattr(client_module.time, "sleep", slept.append)
    client = WarlogClient(serve_stub(app), None, timeout=5)
    try:
        list(client.stream("00000000-0000-4000-8000-000000000000", stop_on_end=False, max_failures=2))
    except ConnectionFailed:
        pass
    assert slept and max(slept) <= client_module.MAX_WAIT, slept


def test_rotations_of_one_token_racing_leave_one_live_token(api_service):
    # Held: eight rotations of one token at once, half under one key and half under their own,
    # in as many web processes: one new token, the same key's others replay it, the rest are 401.
    import threading

    game = make_game(app_on(api_service).test_client())
    answers: list = []

    # the apps are built here, one at a time: CPython 3.11 may fail compiling in two threads at
    # once ("AST constructor recursion depth mismatch"); the race under test is the requests'
    clients = [app_on(api_service).test_client() for _ in range(8)]

    def send(i: int) -> None:
        client = clients[i]
        r = rotate(client, game.game_id, game.seats["Blue"], key="same" if i % 2 else f"own-{i}")
        answers.append((i % 2, r.status_code, (r.json or {}).get("token")))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(status in (200, 201, 401) for _, status, _ in answers), answers
    made = {token for _, status, token in answers if status == 201}
    assert len(made) == 1 and live_seat_tokens(api_service, game.game_id, "Blue") == 1, answers
    assert all(token in made for _, status, token in answers if status == 200), answers


def test_a_join_sent_again_racing_a_rotation_leaves_one_live_token(api_service):
    # The join's replay revokes every live token of the seat and the rotation one: at once, either
    # wins and the other is refused; never two live tokens for the seat.
    import threading

    for round_ in range(4):
        client = app_on(api_service).test_client()
        game = make_game(client, join=False)
        old = _join(client, game, "Blue", f"join-{round_}").json["token"]
        answers: dict = {}
        go = threading.Barrier(2)
        joining, rotating = app_on(api_service).test_client(), app_on(api_service).test_client()  # as above

        def replay() -> None:
            go.wait()
            answers["join"] = _join(joining, game, "Blue", f"join-{round_}").status_code

        def rotation() -> None:
            go.wait()
            answers["rotate"] = rotate(rotating, game.game_id, bearer(old)).status_code

        threads = [threading.Thread(target=replay), threading.Thread(target=rotation)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert live_seat_tokens(api_service, game.game_id, "Blue") == 1, answers
        assert sorted(answers.values()) in ([200, 401], [201, 409]), answers


def test_seat_token_saves_nothing_under_a_seat_the_token_was_not_for(server, alice, bob, serve_stub):
    # A server (hostile, or not warlog) answering alice's Blue rotation with "seat": "Red" had the CLI
    # save the new token as her Red token, the only copy of it lost, and Blue's kept revoked.
    import json as json_

    game_id = started_game(server, alice, bob)
    config = alice.saved()
    red = bob.saved()["games"][game_id]["token"]
    config["games"][game_id]["seats"]["Red"] = red  # alice plays both seats from this machine
    alice.config.write_text(json_.dumps(config))
    relay = _relaying(server.url, {})

    def app(environ, start_response):
        got: dict = {}
        body = b"".join(relay(environ, lambda status, headers: got.update(status=status, headers=headers)))
        if environ["PATH_INFO"].endswith("/seat-token"):
            body = json_.dumps({**json_.loads(body), "seat": "Red"}).encode()
            got["headers"] = [(k, v) for k, v in got["headers"] if k.lower() != "content-length"] + \
                [("Content-Length", str(len(body)))]
        start_response(got["status"], got["headers"])
        return [body]

    hostile = serve_stub(app)
    code, out, err = alice("seat-token", game_id, "--server", hostile)
    assert code != 0 and "Red" in err and "Blue" in err, out + err
    entry = alice.saved()["games"][game_id]
    assert entry["seats"]["Red"] == red
    new = [w for w in err.split() if w.startswith("wls_")]
    assert new and new[0] != entry["seats"]["Blue"], err  # the new token is shown, not lost
