"""The umpire over HTTP: a role the seats agree to, in the log every seat reads; its tokens are
issued only then, bounded, listed and revocable (docs/api.md, "The umpire")."""

from __future__ import annotations

import hashlib

import pytest

from api.app import create_app, max_umpire_tokens
from domain.verify import verify_text
from tests.api.conftest import appoint_umpire, bearer, make_game, umpire

SECRET = "SECRET-PLAN: the reserve waits behind the hill"
NOTE = {"kind": "note", "text": SECRET, "private": True}


def url(game, suffix: str = "") -> str:
    return f"/api/v1/games/{game.game_id}{suffix}"


def problem(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.json
    assert r.json["code"] == code, r.json
    return r.json


def mint(client, game):
    return client.post(url(game, "/umpire-tokens"), headers=game.admin)


def reads_secret(client, game, headers) -> bool:
    r = client.get(url(game, "/events"), headers=headers)
    assert r.status_code == 200, r.json
    return SECRET in r.get_data(as_text=True)


def test_the_admin_token_alone_gets_no_umpire_token_and_reads_no_hidden_note(client):
    game = make_game(client)
    assert game.order(client, "Blue", NOTE, "n1").status_code == 201
    body = problem(mint(client, game), 422, "rule_violation")
    assert body["rule"] == "umpire" and "every seat accept" in body["detail"]
    assert not reads_secret(client, game, game.admin)
    listed = client.get(url(game, "/umpire-tokens"), headers=game.admin).json
    assert listed["umpire"] is None and listed["tokens"] == []


def test_a_proposal_not_accepted_by_every_seat_gives_no_umpire(client):
    game = make_game(client, sides=("Blue", "Red", "Green"))
    assert client.post(url(game, "/umpire"), json={"umpire": "Ann"}, headers=game.admin).status_code == 201
    for seat in ("Blue", "Red"):
        assert client.post(url(game, "/umpire/answer"), json={"accept": True}, headers=game.seats[seat]).status_code == 200
    problem(mint(client, game), 422, "rule_violation")  # Green has not answered
    declined = client.post(url(game, "/umpire/answer"), json={"accept": False}, headers=game.seats["Green"])
    assert [e["type"] for e in declined.json["events"]] == ["UmpireDeclined"]
    problem(mint(client, game), 422, "rule_violation")
    late = client.post(url(game, "/umpire/answer"), json={"accept": True}, headers=game.seats["Green"])
    assert problem(late, 422, "rule_violation")["rule"] == "umpire"  # the proposal has ended


def test_after_every_seat_accepts_the_umpire_reads_the_hidden_note_ff_7(client):
    game = make_game(client)
    assert game.order(client, "Blue", NOTE, "n1").status_code == 201
    appoint_umpire(client, game, "Ann")
    r = mint(client, game)
    assert r.status_code == 201 and r.json["umpire"] == "Ann" and r.json["token"].startswith("wlu_")
    ump = bearer(r.json["token"])
    assert reads_secret(client, game, ump)
    assert not reads_secret(client, game, game.admin) and not reads_secret(client, game, game.seats["Red"])
    # The umpire's export is the exact log, umpire events and all, and verifies offline.
    exported = client.get(url(game, "/export"), headers=ump).get_data(as_text=True).splitlines()
    report, _ = verify_text(exported)
    assert report.ok, report.summary()


def test_the_appointment_is_in_every_seats_events_and_history(client):
    game = make_game(client, public=True)
    appoint_umpire(client, game, "Ann")
    kinds = ["UmpireProposed", "UmpireAccepted", "UmpireAccepted", "UmpireAppointed"]
    for who in (game.seats["Blue"], game.seats["Red"], {}):  # both seats and a spectator
        events = client.get(url(game, "/events"), headers=who).json["events"]
        assert [e["type"] for e in events if e["type"].startswith("Umpire")] == kinds
        appointed = events[-1]
        assert appointed["data"] == {"umpire": "Ann", "agreement": "accepted by every seat", "seats": ["Blue", "Red"]}
        history = client.get(url(game, "/history"), headers=who).get_data(as_text=True)
        assert "Ann is the umpire (accepted by every seat: Blue, Red), and sees hidden information" in history
        assert "admin proposes Ann as umpire" in history and "Red accepts Ann as umpire" in history


def test_an_umpire_named_at_creation_is_in_the_log_before_any_seat_joins(client):
    game = make_game(client, public=True, join=False, umpire_named="Ann")
    events = client.get(url(game, "/events")).json["events"]  # what a player reads before joining
    assert [e["type"] for e in events] == ["GameCreated", "DiceCommitted", "DiceCommitted", "UmpireAppointed"]
    assert events[3]["data"]["agreement"] == "named at creation"
    joined = client.post(url(game, "/join"), json={"invite_code": game.invites["Blue"], "handle": "b"})
    assert joined.status_code == 201 and joined.json["umpire"] == "Ann"  # and of a private game: told at once
    other = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue"]}}).json
    assert client.post(f"/api/v1/games/{other['game_id']}/join",
                       json={"invite_code": other["invites"]["Blue"], "handle": "b"}).json["umpire"] is None  # none
    assert mint(client, game).status_code == 201  # no further agreement needed
    bad = client.post("/api/v1/games", json={"ruleset": "freeform", "umpire": "  "})
    problem(bad, 422, "invalid_setup")


def test_only_the_admin_proposes_and_only_seats_answer(client):
    game = make_game(client)
    ump_less = client.post(url(game, "/umpire"), json={"umpire": "Ann"}, headers=game.seats["Blue"])
    problem(ump_less, 403, "forbidden")
    assert client.post(url(game, "/umpire"), json={"umpire": "Ann"}, headers=game.admin).status_code == 201
    problem(client.post(url(game, "/umpire/answer"), json={"accept": True}, headers=game.admin), 403, "forbidden")
    problem(client.post(url(game, "/umpire"), json={"umpire": "Bob"}, headers=game.admin), 422, "rule_violation")
    problem(client.post(url(game, "/umpire"), json={}, headers=game.admin), 422, "invalid_request")
    for seat in game.seats.values():
        client.post(url(game, "/umpire/answer"), json={"accept": True}, headers=seat)
    ump = umpire(client, game)
    for method, path, body in (("post", "/umpire", {"umpire": "Bob"}), ("post", "/umpire/answer", {"accept": True}),
                               ("delete", "/umpire", None), ("post", "/umpire-tokens", None),
                               ("get", "/umpire-tokens", None)):
        r = getattr(client, method)(url(game, path), json=body, headers=ump)
        problem(r, 403, "forbidden")


def test_umpire_tokens_are_listed_with_their_times_never_their_secrets(client):
    game = make_game(client)
    appoint_umpire(client, game)
    made = [mint(client, game).json for _ in range(2)]
    r = client.get(url(game, "/umpire-tokens"), headers=game.admin)
    assert r.status_code == 200
    listed = r.json
    assert listed["umpire"] == "Ann the umpire" and listed["limit"] == 3 and listed["proposal"] is None
    assert sorted(t["token_id"] for t in listed["tokens"]) == sorted(m["token_id"] for m in made)
    assert all(t["created_at"] and t["revoked_at"] is None for t in listed["tokens"])
    assert not any(m["token"] in r.get_data(as_text=True) for m in made)
    problem(client.get(url(game, "/umpire-tokens"), headers=game.seats["Blue"]), 403, "forbidden")


def test_a_revoked_umpire_token_fails_at_once_and_stays_listed(client):
    game = make_game(client)
    appoint_umpire(client, game)
    first, second = mint(client, game).json, mint(client, game).json
    assert client.get(url(game), headers=bearer(first["token"])).status_code == 200
    r = client.delete(url(game, f"/umpire-tokens/{first['token_id']}"), headers=game.admin)
    assert r.status_code == 200 and r.json["token_id"] == first["token_id"] and r.json["revoked_at"]
    problem(client.get(url(game), headers=bearer(first["token"])), 401, "unauthorized")
    assert client.get(url(game), headers=bearer(second["token"])).status_code == 200  # the role goes on
    again = client.delete(url(game, f"/umpire-tokens/{first['token_id']}"), headers=game.admin)
    assert again.status_code == 200 and again.json["revoked_at"] == r.json["revoked_at"]
    listed = {t["token_id"]: t for t in client.get(url(game, "/umpire-tokens"), headers=game.admin).json["tokens"]}
    assert listed[first["token_id"]]["revoked_at"] == r.json["revoked_at"]
    assert listed[second["token_id"]]["revoked_at"] is None
    for unknown in ("0" * 16, "not-an-id"):
        problem(client.delete(url(game, f"/umpire-tokens/{unknown}"), headers=game.admin), 404, "not_found")


def test_a_revocation_holds_in_another_server_process_at_once(client, api_service):
    """Another process (its own AccessStore, with its own memory of grants) that has just
    served the token refuses it as soon as it is revoked."""
    other = create_app({"WARLOG_SERVICE": api_service, "TESTING": True}).test_client()
    game = make_game(client)
    ump = umpire(client, game)
    assert other.get(url(game), headers=ump).status_code == 200
    token_id = client.get(url(game, "/umpire-tokens"), headers=game.admin).json["tokens"][0]["token_id"]
    assert client.delete(url(game, f"/umpire-tokens/{token_id}"), headers=game.admin).status_code == 200
    problem(other.get(url(game), headers=ump), 401, "unauthorized")


def test_ending_the_role_is_in_the_log_and_revokes_every_token(client):
    game = make_game(client)
    assert game.order(client, "Blue", NOTE, "n1").status_code == 201
    appoint_umpire(client, game, "Ann")
    tokens = [bearer(mint(client, game).json["token"]) for _ in range(2)]
    assert all(reads_secret(client, game, t) for t in tokens)
    ended = client.delete(url(game, "/umpire"), headers=game.admin)
    assert ended.status_code == 200
    assert [(e["type"], e["data"]["umpire"], e["data"]["by"]) for e in ended.json["events"]] == \
        [("UmpireRevoked", "Ann", "admin")]
    for t in tokens:
        problem(client.get(url(game, "/events"), headers=t), 401, "unauthorized")
    assert all(t["revoked_at"] for t in client.get(url(game, "/umpire-tokens"), headers=game.admin).json["tokens"])
    seen = client.get(url(game, "/history"), headers=game.seats["Red"]).get_data(as_text=True)
    assert "admin ended Ann's role as umpire" in seen
    problem(mint(client, game), 422, "rule_violation")
    problem(client.delete(url(game, "/umpire"), headers=game.admin), 422, "rule_violation")
    assert client.post(url(game, "/umpire"), json={"umpire": "Bob"}, headers=game.admin).status_code == 201


def test_a_seat_withdrawing_its_agreement_ends_the_role_and_its_tokens(client):
    game = make_game(client, umpire_named="Ann")
    ump = umpire(client, game)
    assert client.get(url(game), headers=ump).status_code == 200
    withdrawn = client.post(url(game, "/umpire/answer"), json={"accept": False}, headers=game.seats["Red"])
    assert withdrawn.status_code == 200, withdrawn.json
    assert [(e["type"], e["data"]["by"]) for e in withdrawn.json["events"]] == [("UmpireRevoked", "Red")]
    problem(client.get(url(game), headers=ump), 401, "unauthorized")
    problem(mint(client, game), 422, "rule_violation")
    assert "Red ended Ann's role as umpire" in client.get(url(game, "/history"), headers=game.seats["Blue"]).get_data(
        as_text=True)


def test_live_umpire_tokens_are_bounded_per_game(api_service):
    client = create_app({"WARLOG_SERVICE": api_service, "TESTING": True, "WARLOG_MAX_UMPIRE_TOKENS": 2}).test_client()
    game = make_game(client)
    appoint_umpire(client, game)
    made = [mint(client, game) for _ in range(2)]
    assert [r.status_code for r in made] == [201, 201]
    body = problem(mint(client, game), 409, "umpire_token_limit")
    assert "2 live umpire tokens" in body["detail"]
    assert len(client.get(url(game, "/umpire-tokens"), headers=game.admin).json["tokens"]) == 2  # nothing issued
    client.delete(url(game, f"/umpire-tokens/{made[0].json['token_id']}"), headers=game.admin)
    assert mint(client, game).status_code == 201  # a revoked token no longer counts
    other = make_game(client)  # the bound is per game
    appoint_umpire(client, other)
    assert mint(client, other).status_code == 201


def test_the_bound_is_configured_by_warlog_max_umpire_tokens(monkeypatch):
    monkeypatch.delenv("WARLOG_MAX_UMPIRE_TOKENS", raising=False)
    assert max_umpire_tokens() == 3
    monkeypatch.setenv("WARLOG_MAX_UMPIRE_TOKENS", "5")
    assert max_umpire_tokens() == 5
    for bad in ("0", "-1", "many"):
        monkeypatch.setenv("WARLOG_MAX_UMPIRE_TOKENS", bad)
        with pytest.raises(SystemExit, match="WARLOG_MAX_UMPIRE_TOKENS"):
            max_umpire_tokens()


def test_a_token_table_made_before_revocation_gains_its_column_and_loses_its_unagreed_umpires(api_service):
    """A store migrated by an earlier warlog: its token table has no revoked_at until migrate adds
    it; the umpire tokens in it were issued by the admin alone, so they are revoked then."""
    from domain.access import AccessStore

    access = AccessStore.for_service(api_service)
    access._run("DROP TABLE {t}warlog_tokens")
    access._run("CREATE TABLE {t}warlog_tokens (token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, "
                "role TEXT NOT NULL, seat TEXT, created_at TEXT NOT NULL)")
    seat, umpire_token = "wls_an-old-seat-token", "wlu_an-old-umpire-token"
    for token, role in ((seat, "seat"), (umpire_token, "umpire")):
        access._run("INSERT INTO {t}warlog_tokens (token_hash, game_id, role, seat, created_at) VALUES (?, ?, ?, ?, ?)",
                    (hashlib.sha256(token.encode()).hexdigest(), "g", role, "Blue" if role == "seat" else None,
                     "2026-01-01"))
    access.create_tables()
    [old] = access.umpire_tokens("g")
    assert old["created_at"] == "2026-01-01" and old["revoked_at"] is not None
    assert access.grant(umpire_token) is None and access.grant(seat).seat == "Blue"
    access.create_tables()  # again: the column is there, nothing more changes
    assert access.umpire_tokens("g") == [old]
