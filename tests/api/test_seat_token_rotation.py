"""A seat replaces its own token (docs/api.md, "A seat's token replaced"), on SQLite and PostgreSQL:
the token sent answers 401 from then on, in every server process; a lost answer is asked for again
under the request's Idempotency-Key and gets the same token, never a second live one; a seat that
registered a key signs the request."""

from __future__ import annotations

from domain import signatures
from domain.access import AccessStore
from tests.api.conftest import app_on, bearer, make_game
from tests.api.test_signatures import keyed_game


def rotate(client, game_id: str, headers: dict, key: str = "rotate-1", **extra):
    return client.post(f"/api/v1/games/{game_id}/seat-token", headers={**headers, "Idempotency-Key": key, **extra})


def me(client, game_id: str, token: str):
    return client.get(f"/api/v1/games/{game_id}/me", headers=bearer(token))


def token_of(headers: dict) -> str:
    return headers["Authorization"].split(" ", 1)[1]


def live_seat_tokens(service, game_id: str, seat: str) -> int:
    store = AccessStore.for_service(service)
    rows = store._run("SELECT revoked_at FROM {t}warlog_tokens WHERE game_id = ? AND role = 'seat' AND seat = ?",
                      (game_id, seat), fetch="all")
    return sum(1 for r in rows if r["revoked_at"] is None)


def test_a_seat_replaces_its_token_and_the_old_one_answers_401_in_every_process(api_service):
    first, second = app_on(api_service).test_client(), app_on(api_service).test_client()
    game = make_game(first)
    old = token_of(game.seats["Blue"])
    version = game.version(first, "Blue")
    r = rotate(first, game.game_id, game.seats["Blue"])
    assert r.status_code == 201, r.json
    new = r.json["token"]
    assert new.startswith("wls_") and new != old and r.json["seat"] == "Blue"
    assert me(second, game.game_id, new).json["seat"] == "Blue"
    for client in (first, second):  # another web process reads the same store
        assert me(client, game.game_id, old).status_code == 401
        r = game.order(client, "Blue", {"kind": "note", "text": "x"}, "o-after")
        assert r.status_code == 401 and r.json["code"] == "unauthorized"
    # Recorded beside the log (whose, when; never a token), not in it.
    assert game.version(first, "Red") == version
    rotations = AccessStore.for_service(api_service).seat_token_rotations(game.game_id)
    assert [r["seat"] for r in rotations] == ["Blue"] and old not in str(rotations) and new not in str(rotations)
    assert live_seat_tokens(api_service, game.game_id, "Blue") == 1


def test_the_same_request_sent_again_gets_the_same_token_and_no_second_one(api_service):
    client = app_on(api_service).test_client()
    game = make_game(client)
    first = rotate(client, game.game_id, game.seats["Blue"], key="k-1")
    assert first.status_code == 201
    again = rotate(client, game.game_id, game.seats["Blue"], key="k-1")  # its answer lost: sent again
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.json
    assert again.json["token"] == first.json["token"]
    assert live_seat_tokens(api_service, game.game_id, "Blue") == 1
    # The replaced token under another key is a revoked token, nothing more.
    other = rotate(client, game.game_id, game.seats["Blue"], key="k-2")
    assert other.status_code == 401 and other.json["code"] == "unauthorized"
    # Once the new token is replaced in its turn, the first request gets nothing back.
    r = rotate(client, game.game_id, bearer(first.json["token"]), key="k-3")
    assert r.status_code == 201
    assert rotate(client, game.game_id, game.seats["Blue"], key="k-1").status_code == 401
    assert live_seat_tokens(api_service, game.game_id, "Blue") == 1


def test_a_request_without_an_idempotency_key_or_from_another_role_is_refused(api_service):
    client = app_on(api_service).test_client()
    game = make_game(client)
    r = client.post(f"/api/v1/games/{game.game_id}/seat-token", headers=game.seats["Blue"])
    assert r.status_code == 400 and r.json["code"] == "idempotency_key_required"
    r = rotate(client, game.game_id, game.admin)
    assert r.status_code == 403 and r.json["code"] == "forbidden"
    r = rotate(client, game.game_id, {})  # no token: a private game is 404, as everywhere
    assert r.status_code == 404
    other = make_game(client)
    r = rotate(client, game.game_id, other.seats["Blue"])  # another game's token: a private game is 404
    assert r.status_code == 404
    assert me(client, game.game_id, token_of(game.seats["Blue"])).status_code == 200


def test_a_keyed_seats_unsigned_request_is_refused_and_its_token_kept(client):
    game, key, head = keyed_game(client)
    r = rotate(client, game.game_id, game.seats["Blue"])
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    wrong = signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue", {"request_id": "other"}, head)
    r = rotate(client, game.game_id, game.seats["Blue"], **{"Warlog-Signature": wrong, "Warlog-Head": head})
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    assert me(client, game.game_id, token_of(game.seats["Blue"])).status_code == 200  # nothing changed
    signed = {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue",
                                                          {"request_id": "rotate-1"}, head), "Warlog-Head": head}
    r = rotate(client, game.game_id, game.seats["Blue"], **signed)
    assert r.status_code == 201, r.json
    assert me(client, game.game_id, token_of(game.seats["Blue"])).status_code == 401
    # The replay of a keyed seat's request is signed as the request was.
    assert rotate(client, game.game_id, game.seats["Blue"]).json["code"] == "signature_required"
    again = rotate(client, game.game_id, game.seats["Blue"], **signed)
    assert again.status_code == 200 and again.json["token"] == r.json["token"]
    # Red registered no key: it needs no signature.
    assert rotate(client, game.game_id, game.seats["Red"]).status_code == 201


def test_a_chain_of_rotations_is_bounded_per_seat_since_each_new_token_has_its_own_write_limit(api_service,
                                                                                                 monkeypatch):
    import domain.access

    monkeypatch.setattr(domain.access, "ROTATIONS_PER_SEAT", 3, raising=False)
    client = app_on(api_service).test_client()
    game = make_game(client)
    headers = game.seats["Blue"]
    for n in range(3):
        r = rotate(client, game.game_id, headers, key=f"k-{n}")
        assert r.status_code == 201, r.json
        headers = bearer(r.json["token"])
    r = rotate(client, game.game_id, headers, key="k-3")
    assert r.status_code == 429 and r.json["code"] == "too_many_rotations", r.json
    assert int(r.headers["Retry-After"]) > 0
    assert me(client, game.game_id, token_of(headers)).status_code == 200  # refused: the token is kept
    assert rotate(client, game.game_id, game.seats["Red"]).status_code == 201  # another seat's are its own


def test_rotations_of_one_token_that_race_leave_exactly_one_live_token(api_service):
    import threading
    import uuid

    store = AccessStore.for_service(api_service)
    game_id = str(uuid.uuid4())  # the store's rows alone: no game is needed
    old = store.issue_token(game_id, "seat", "Blue")
    barrier, won = threading.Barrier(6), []

    def rotate_once(n: int) -> None:
        barrier.wait()
        won.append(store.rotate_seat_token(game_id, "Blue", old, f"wls_new-{n}", f"key-{n}"))

    threads = [threading.Thread(target=rotate_once, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == [False] * 5 + [True]
    assert live_seat_tokens(api_service, game_id, "Blue") == 1
    assert len(store.seat_token_rotations(game_id)) == 1


def test_a_replaced_tokens_open_stream_ends_before_sending_another_event(api_service, monkeypatch):
    """A thief's stream, opened with the token before its seat replaced it, reads no more."""
    import time

    monkeypatch.setenv("WARLOG_STREAM_MAX_SECONDS", "5")
    monkeypatch.setenv("WARLOG_STREAM_POLL_SECONDS", "0.1")
    client = app_on(api_service).test_client()
    game = make_game(client)
    url = f"/api/v1/games/{game.game_id}/events/stream"
    response = client.get(url, headers=game.seats["Blue"], buffered=False)
    chunks = iter(response.response)
    assert b"retry:" in next(chunks) and b"event: GameCreated" in next(chunks)
    new = rotate(client, game.game_id, game.seats["Blue"]).json["token"]
    r = game.order(client, "Red", {"kind": "note", "text": "AFTER-ROTATION"}, "after")
    assert r.status_code == 201, r.json
    started = time.monotonic()
    rest = b"".join(chunks).decode()
    assert "AFTER-ROTATION" not in rest and "event:" not in rest and time.monotonic() - started < 3
    fresh = client.get(url, headers=bearer(new), buffered=False)
    assert fresh.status_code == 200
    fresh.close()


def test_a_keyed_seats_signed_request_replaces_no_later_token(client):
    """The signature names the request by its Idempotency-Key, not the token it replaces: a captured
    signed request (its answer, the new token, got back by its replay) replaced that new token too,
    and the next, each time locking the owner out without the seat's key."""
    game, key, head = keyed_game(client)
    signed = {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue",
                                                          {"request_id": "rotate-1"}, head), "Warlog-Head": head}
    owner = rotate(client, game.game_id, game.seats["Blue"], **signed)
    assert owner.status_code == 201, owner.json
    # The thief holds the signed request as sent: its replay gives him the new token, and the same
    # signed request sent with that token is refused; the token stays the owner's.
    replay = rotate(client, game.game_id, game.seats["Blue"], **signed)
    assert replay.status_code == 200 and replay.json["token"] == owner.json["token"]
    r = rotate(client, game.game_id, bearer(owner.json["token"]), **signed)
    assert r.status_code == 422 and r.json["code"] == "idempotency_conflict", r.json
    assert me(client, game.game_id, owner.json["token"]).status_code == 200
    # The owner replaces it under a key of a new request, signed.
    fresh = {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue",
                                                         {"request_id": "rotate-2"}, head), "Warlog-Head": head}
    assert rotate(client, game.game_id, bearer(owner.json["token"]), key="rotate-2", **fresh).status_code == 201


def test_a_seat_replaces_its_token_on_a_damaged_log_which_guards_orders_not_access(client, store_config):
    """docs/api.md, "Damaged logs": a replacement records nothing in the log. A process that loaded
    the game after a row stopped decoding refused it (409 damaged_log), so a seat whose token leaked
    could not take it back from the thief until an operator acted. The key is read from the stored
    lines: a keyed seat still signs; where the line after a seat's join is unreadable, its key is
    unknown and the request is refused as before."""
    from domain.service import Warlog
    from tests.integration.rawstore import RawStore

    game, key, _ = keyed_game(client)
    for n in range(3):
        assert game.order(client, "Red", {"kind": "note", "text": "x"}, f"o{n}").status_code == 201
    head = client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Red"]).json["chain_head"]
    with RawStore(store_config) as raw:
        raw.set_state(game.game_id, 9, b"not an event")  # an order's line, after both joins
    fresh = Warlog(store_config)  # another process: it loads the game from the stored rows
    try:
        other = app_on(fresh).test_client()
        r = game.order(other, "Red", {"kind": "note", "text": "after"}, "after")
        assert r.status_code == 409 and r.json["code"] == "damaged_log" and r.json["line"] == 9
        r = rotate(other, game.game_id, game.seats["Red"])
        assert r.status_code == 201, r.json
        assert me(other, game.game_id, r.json["token"]).json["seat"] == "Red"
        assert rotate(other, game.game_id, game.seats["Blue"]).json["code"] == "signature_required"
        signed = {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue",
                                                              {"request_id": "rotate-1"}, head), "Warlog-Head": head}
        r = rotate(other, game.game_id, game.seats["Blue"], **signed)
        assert r.status_code == 201, r.json
        assert me(other, game.game_id, token_of(game.seats["Blue"])).status_code == 401
        with RawStore(store_config) as raw:
            raw.set_state(game.game_id, 5, b"not an event")  # Blue's SeatKeyRegistered: its key is unknown now
        signed = {"Warlog-Signature": signatures.sign_command(key, game.game_id, signatures.SEAT_TOKEN, "Blue",
                                                              {"request_id": "rotate-2"}, head), "Warlog-Head": head}
        r = rotate(other, game.game_id, bearer(r.json["token"]), key="rotate-2", **signed)
        assert r.status_code == 409 and r.json["code"] == "damaged_log" and r.json["line"] == 5, r.json
    finally:
        fresh.close()


def test_a_replaced_token_says_it_was_replaced_and_when_so_its_owner_learns_it_leaked(client):
    """trust13, item 4: a thief who replaced an unkeyed seat's token first left its owner with a 401
    "this token is not valid", as for a typo. The 401 of a seat token its seat replaced says so and
    when, and what to do; any other token that is not valid is answered as before."""
    game = make_game(client)
    new = rotate(client, game.game_id, game.seats["Blue"]).json["token"]
    rotated_at = AccessStore.for_service(client.application.extensions["warlog"]).seat_token_rotations(
        game.game_id)[0]["rotated_at"]
    for r in (me(client, game.game_id, token_of(game.seats["Blue"])),
              game.order(client, "Blue", {"kind": "note", "text": "x"}, "o-old"),
              client.get("/api/v1/games", headers=game.seats["Blue"])):
        assert r.status_code == 401, r.json
        assert f"replaced at {rotated_at}" in r.json["detail"] and "leaked" in r.json["detail"], r.json
    r = me(client, game.game_id, "wls_" + "x" * 43)
    assert r.status_code == 401 and r.json["detail"] == "this token is not valid"
    assert me(client, game.game_id, new).status_code == 200
