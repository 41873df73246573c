"""A join whose answer was lost: sent again under its Idempotency-Key, the same join gets the seat
a fresh token and revokes the lost one; nobody without both the invite code and the key gets it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

from tests.api.conftest import bearer, make_game
from tests.api.test_games import problem

ROLL = {"kind": "roll", "dice": "1d6", "purpose": "test"}


def _join(client, game, body, key=None):
    headers = {"Idempotency-Key": key} if key else {}
    return client.post(f"/api/v1/games/{game.game_id}/join", json=body, headers=headers)


def test_join_sent_again_under_its_key_gets_a_fresh_token_and_revokes_the_lost_one(client):
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann", "client_seed": "s1"}
    first = _join(client, game, body, key="join-1")
    assert first.status_code == 201
    lost = first.json["token"]  # the answer that never reached the player
    again = _join(client, game, body, key="join-1")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    token = again.json["token"]
    assert token != lost and again.json["seat"] == "Blue"
    assert {k: again.json[k] for k in ("version", "chain_head", "signed_head")} == \
           {k: first.json[k] for k in ("version", "chain_head", "signed_head")}
    me = client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(token))
    assert me.status_code == 200 and me.json["seat"] == "Blue"
    assert client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(lost)).status_code == 401
    events = client.get(f"/api/v1/games/{game.game_id}/events", headers=bearer(token)).json
    assert str(events).count("SeatJoined") == 1  # recorded once


def test_join_sent_again_without_its_key_or_with_another_is_invite_used(client):
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann"}
    assert _join(client, game, body, key="join-1").status_code == 201
    problem(_join(client, game, body), 409, "invite_used")
    problem(_join(client, game, body, key="join-2"), 409, "invite_used")


def test_a_join_without_a_key_cannot_be_taken_again_with_one(client):
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann"}
    assert _join(client, game, body).status_code == 201
    problem(_join(client, game, body, key="join-1"), 409, "invite_used")


def test_join_key_sent_again_with_another_body_is_an_idempotency_conflict(client):
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann"}
    first = _join(client, game, body, key="join-1")
    assert first.status_code == 201
    problem(_join(client, game, {**body, "handle": "eve"}, key="join-1"), 422, "idempotency_conflict")
    me = client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(first.json["token"]))
    assert me.status_code == 200  # the seat's token was not touched


def test_join_key_of_another_seats_invite_does_not_open_this_one(client):
    game = make_game(client, join=False)
    assert _join(client, game, {"invite_code": game.invites["Blue"], "handle": "ann"}, key="k").status_code == 201
    red = {"invite_code": game.invites["Red"], "handle": "bob"}
    assert _join(client, game, red, key="k").status_code == 201  # a key is the joiner's, per invite
    problem(_join(client, game, {"invite_code": game.invites["Blue"], "handle": "bob"}, key="k"),
            422, "idempotency_conflict")


def test_a_store_made_before_join_keys_gains_their_columns_and_keeps_its_used_invites(api_service):
    """The invites table of an older store has no join key columns: creating the tables adds them,
    and an invite it used stays used (no key kept: a second join is 409 invite_used)."""
    from domain.access import AccessStore, JOIN_COLUMNS

    store = AccessStore.for_service(api_service)
    with store._db.transaction(commit=True) as c:
        c.execute(store.sql("DROP TABLE {t}warlog_invites"))
        c.execute(store.sql("CREATE TABLE {t}warlog_invites (invite_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, "
                            "seat TEXT NOT NULL, used_at TEXT)"))
        c.execute(store.sql("INSERT INTO {t}warlog_invites VALUES (?, ?, ?, ?)"),
                  (store_hash("wli_old"), "g-1", "Blue", "2026-11-01T00:00:00+00:00"))
    store.create_tables()
    with store._db.transaction(commit=False) as c:
        assert all(store.has_column(c, "warlog_invites", column) for column, _ in JOIN_COLUMNS)
    invite = store.invite("g-1", "wli_old")
    assert invite["used_at"] and invite["join_key_hash"] is None
    assert store.same_join(invite, "any-key", "{}") is None


def store_hash(secret: str) -> str:
    import hashlib

    return hashlib.sha256(secret.encode()).hexdigest()


def test_join_sent_again_more_than_an_hour_later_is_invite_used(client):
    """The retry is for an answer lost on the way: an hour after the join, the same invite code and
    key (which the game's creator, knowing every invite, might have learnt) take no token."""
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann", "client_seed": "s1"}
    first = _join(client, game, body, key="join-1")
    assert first.status_code == 201
    access = client.application.extensions["warlog_access"]
    access._run("UPDATE {t}warlog_invites SET used_at = ? WHERE game_id = ? AND seat = ?",
                ((datetime.now(timezone.utc) - timedelta(hours=2)).isoformat(), game.game_id, "Blue"))
    assert "within 60 minutes" in problem(_join(client, game, body, key="join-1"), 409, "invite_used")["detail"]
    token = first.json["token"]  # the player's token still works
    assert client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(token)).status_code == 200


RACE_ROUNDS = 6


def join_again_at_once(config, game_id, body, key, worker, barrier, results):
    """In a process of its own, as in a web worker: each round, the same join sent again under its
    key at the same moment as in the other processes; then the first process counts the live tokens
    of the seat."""
    from api.app import create_app
    from domain.access import SEAT, AccessStore
    from tests.integration.test_concurrency import _report

    def rounds(app):
        client = create_app({"WARLOG_SERVICE": app, "TESTING": True, "WARLOG_RATE_LIMITS": False}).test_client()
        live = []
        for _ in range(RACE_ROUNDS):
            barrier.wait()
            again = _join(client, SimpleNamespace(game_id=game_id), body, key=key)
            assert again.status_code == 200, again.json
            barrier.wait()  # every retry of the round answered before its tokens are counted
            if worker == 0:
                tokens = AccessStore.for_service(app)._tokens(game_id, SEAT)
                live.append(sum(1 for t in tokens if t["name"] == "Blue" and t["revoked_at"] is None))
                # The rounds send it again more often than a join is (JOIN_REPLAYS): counted afresh.
                AccessStore.for_service(app)._run("UPDATE {t}warlog_invites SET join_replays = 0 WHERE game_id = ?",
                                                  (game_id,))
            barrier.wait()
        return {"live": live}

    _report(config, barrier, results, worker, rounds)


def test_retries_of_one_join_racing_in_several_processes_leave_one_live_token(client, store_config):
    """Retries of one join sent at once to several web workers: however they interleave, exactly
    one token of the seat stays live (the store serializes them; no process lock could)."""
    from tests.integration.test_concurrency import run_processes

    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann", "client_seed": "s1"}
    assert _join(client, game, body, key="join-1").status_code == 201
    reports = run_processes(join_again_at_once, store_config, game.game_id, body, "join-1")
    assert reports[0]["live"] == [1] * RACE_ROUNDS


def test_a_join_is_sent_again_a_bounded_number_of_times(client, monkeypatch):
    """Each join sent again issues the seat a fresh token, with a write limit (too_many_orders) of
    its own: sent again without end within the hour, one seat ordered without limit, as a chain of
    token replacements did before it was bounded (too_many_rotations)."""
    import domain.access

    monkeypatch.setattr(domain.access, "JOIN_REPLAYS", 2)
    game = make_game(client, join=False)
    body = {"invite_code": game.invites["Blue"], "handle": "ann"}
    assert _join(client, game, body, key="join-1").status_code == 201
    tokens = [_join(client, game, body, key="join-1") for _ in range(2)]
    assert [r.status_code for r in tokens] == [200, 200]
    detail = problem(_join(client, game, body, key="join-1"), 409, "invite_used")["detail"]
    assert "sent again 2 times" in detail
    # Refused, it revoked nothing: the last token the seat was given works.
    assert client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(tokens[-1].json["token"])).status_code == 200


def test_a_keyed_seats_join_is_sent_again_only_signed_by_its_key(client):
    """docs/api.md, "Idempotency" (trust13, item 3): a join that leaked (its invite code and key, in a
    pasted log) let a thief send it again within the hour and revoke the owner's token, though the
    seat registered a key with that join. Its replay now carries the key's signature of
    {game, kind: "join_again", request_id}; the first send carries none, so a leaked one takes
    nothing. The honest retry after a lost answer, which kept the key, still gets a fresh token."""
    from domain import signatures

    game = make_game(client, join=False)
    key = signatures.new_private_key()
    body = {"invite_code": game.invites["Blue"], "handle": "ann", "public_key": signatures.public_key_of(key)}
    first = _join(client, game, body, key="join-1")
    assert first.status_code == 201, first.json
    owner = first.json["token"]
    stolen = _join(client, game, body, key="join-1")  # the leaked join, sent again as it was
    assert problem(stolen, 422, "signature_required")
    other = signatures.new_private_key()
    forged = client.post(f"/api/v1/games/{game.game_id}/join", json=body, headers={
        "Idempotency-Key": "join-1", "Warlog-Signature": signatures.sign_join_again(other, game.game_id, "join-1")})
    assert problem(forged, 422, "bad_signature")
    wrong_key = client.post(f"/api/v1/games/{game.game_id}/join", json=body, headers={
        "Idempotency-Key": "join-1", "Warlog-Signature": signatures.sign_join_again(key, game.game_id, "join-2")})
    assert problem(wrong_key, 422, "bad_signature")
    assert client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(owner)).status_code == 200  # kept
    again = client.post(f"/api/v1/games/{game.game_id}/join", json=body, headers={
        "Idempotency-Key": "join-1", "Warlog-Signature": signatures.sign_join_again(key, game.game_id, "join-1")})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.json
    assert again.json["seat"] == "Blue" and again.json["token"] != owner
    assert client.get(f"/api/v1/games/{game.game_id}/me", headers=bearer(owner)).status_code == 401
