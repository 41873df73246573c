"""Annotations through the API (docs/api.md, "Annotations"): who may write, the history beside the
event, private text kept from the other seat and spectators, bounded input, idempotency by key,
signed by a keyed seat, spectator tokens issued, listed and revoked by the admin."""

from __future__ import annotations

import hashlib
import json

from api.app import create_app
from domain import signatures
from domain.access import SPECTATOR, AccessStore
from domain.game import MAX_ANNOTATION
from tests.api.conftest import bearer, export_events, make_game, umpire
from tests.api.test_signatures import command_sig, keyed_game


def annotate(client, game, headers, about_seq, text, private=False, key="a-1", **extra):
    return client.post(f"/api/v1/games/{game.game_id}/annotations", json={"about_seq": about_seq, "text": text,
                                                                         "private": private},
                       headers={**headers, "Idempotency-Key": key, **extra})


def notes_on(client, game, headers, seq):
    r = client.get(f"/api/v1/games/{game.game_id}/history", headers=headers)
    assert r.status_code == 200, r.json
    lines = [line for t in r.json["turns"] for p in t["phases"] for op in p["operations"] for line in op["lines"]]
    assert not [line for line in lines if line["type"] == "AnnotationAdded"]  # beside events, not among them
    return [(n["author"], n["text"]) for line in lines if line["seq"] == seq for n in line["annotations"]]


def test_a_seat_annotates_an_event_and_the_history_shows_it_beside_that_event(client):
    game = make_game(client, public=True)
    order = game.order(client, "Blue", {"kind": "note", "text": "Blue moves"}, "o-1")
    seq = order.json["events"][0]["seq"]
    r = annotate(client, game, game.seats["Red"], seq, "that left the bridge open")
    assert r.status_code == 201 and [line["type"] for line in r.json["events"]] == ["AnnotationAdded"], r.json
    data = r.json["events"][0]["data"]
    assert (data["author"], data["role"], data["about_seq"], data["private"]) == ("Red", "seat", seq, False)
    again = annotate(client, game, game.seats["Red"], seq, "that left the bridge open")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["events"] == r.json["events"]
    other = annotate(client, game, game.seats["Red"], seq, "other words")
    assert other.status_code == 422 and other.json["code"] == "idempotency_conflict"
    for headers in (game.seats["Blue"], game.seats["Red"], {}):
        assert notes_on(client, game, headers, seq) == [("Red", "that left the bridge open")]


def test_a_private_annotation_is_read_by_its_seat_and_the_umpire_only(client):
    game = make_game(client, public=True)
    ump = umpire(client, game)
    r = annotate(client, game, game.seats["Blue"], 1, "my plan: feint north", private=True)
    assert r.status_code == 201, r.json
    assert notes_on(client, game, game.seats["Blue"], 1) == [("Blue", "my plan: feint north")]
    assert notes_on(client, game, ump, 1) == [("Blue", "my plan: feint north")]
    for headers in (game.seats["Red"], {}):
        assert notes_on(client, game, headers, 1) == []
        for path in ("events", "export", "history"):
            body = client.get(f"/api/v1/games/{game.game_id}/{path}", headers=headers).get_data(as_text=True)
            assert "feint north" not in body, path
    r = annotate(client, game, ump, 1, "noted, umpire", private=True, key="u-1")
    assert r.status_code == 201 and r.json["events"][0]["data"]["role"] == "umpire", r.json
    for headers in (game.seats["Red"], game.seats["Blue"], {}):
        assert "noted, umpire" not in client.get(f"/api/v1/games/{game.game_id}/export",
                                                 headers=headers).get_data(as_text=True)


def test_spectators_annotate_with_a_token_the_admin_issued_once_the_game_has_ended(client):
    game = make_game(client)  # private: a spectator token is also its read link
    assert annotate(client, game, {}, 1, "hello").status_code == 404
    r = client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": "Sam"}, headers=game.seats["Blue"])
    assert r.status_code == 403
    r = client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": "  "}, headers=game.admin)
    assert r.status_code == 422 and "name" in r.json["errors"], r.json
    r = client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": "Sam"}, headers=game.admin)
    assert r.status_code == 201 and r.json["token"].startswith("wlv_"), r.json
    sam = bearer(r.json["token"])
    assert client.get(f"/api/v1/games/{game.game_id}/history", headers=sam).status_code == 200
    early = annotate(client, game, sam, 1, "too early")
    assert early.status_code == 422 and early.json["code"] == "rule_violation", early.json
    assert annotate(client, game, game.admin, 1, "admin").status_code == 403
    assert client.post(f"/api/v1/games/{game.game_id}/concede", headers=game.seats["Red"]).status_code == 200
    private = annotate(client, game, sam, 1, "psst", private=True, key="s-1")
    assert private.status_code == 422 and private.json["code"] == "invalid_order", private.json
    r = annotate(client, game, sam, 1, "a fine game", key="s-2")
    assert r.status_code == 201 and r.json["events"][0]["data"]["author"] == "Sam", r.json
    report = annotate(client, game, game.seats["Red"], 1, "After-action report: I overextended.", key="r-1")
    assert report.status_code == 201, report.json
    assert notes_on(client, game, game.seats["Blue"], 1) == [("Sam", "a fine game"),
                                                             ("Red", "After-action report: I overextended.")]


def test_bad_annotations_are_clear_4xx_problems_naming_what_is_wrong(client):
    game = make_game(client)
    url = f"/api/v1/games/{game.game_id}/annotations"
    r = client.post(url, json={"about_seq": 1, "text": "x"}, headers=game.seats["Blue"])
    assert r.status_code == 400 and r.json["code"] == "idempotency_key_required"
    for body, field in [({"about_seq": 1, "text": "x" * (MAX_ANNOTATION + 1)}, "text"), ({"about_seq": 1}, "text"),
                        ({"about_seq": "1", "text": "x"}, "about_seq"), ({"about_seq": 0, "text": "x"}, "about_seq")]:
        r = client.post(url, json=body, headers={**game.seats["Blue"], "Idempotency-Key": "k"})
        assert r.status_code == 422 and field in r.json["errors"], r.json
    r = annotate(client, game, game.seats["Blue"], 9999, "about nothing")
    assert r.status_code == 422 and r.json["code"] == "invalid_order" and "about_seq" in r.json["detail"], r.json
    r = annotate(client, game, game.seats["Blue"], 1, "   ")
    assert r.status_code == 422 and r.json["code"] == "invalid_order", r.json


def test_a_keyed_seat_signs_its_annotation_and_the_export_verifies(client, tmp_path):
    game, key, head = keyed_game(client)
    fields = {"annotation_id": "a-1", "about_seq": 1, "text": "signed words"}
    r = annotate(client, game, game.seats["Blue"], 1, "signed words")
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = annotate(client, game, game.seats["Blue"], 1, "signed words",
                 **command_sig(key, game, signatures.ANNOTATION, fields, head))
    assert r.status_code == 201 and [line["type"] for line in r.json["events"]] == ["AnnotationAdded", "CommandSigned"]
    from domain.verify import verify_text
    for headers in (game.seats["Blue"], game.seats["Red"]):
        text = client.get(f"/api/v1/games/{game.game_id}/export", headers=headers).get_data(as_text=True)
        report, _ = verify_text(text.splitlines())
        assert report.ok and report.command_signatures_verified == 1, report.failures
        assert [json.loads(t)["type"] for t in export_events(text)][-2:] == ["AnnotationAdded", "CommandSigned"]


def spectator(client, game, name):
    r = client.post(f"/api/v1/games/{game.game_id}/spectator-tokens", json={"name": name}, headers=game.admin)
    assert r.status_code == 201 and r.json["token_id"], r.json
    return r.json


def test_spectator_tokens_are_listed_by_name_and_id_never_their_secrets(client):
    game = make_game(client)
    made = [spectator(client, game, name) for name in ("Sam", "Kim", "Sam")]
    url = f"/api/v1/games/{game.game_id}/spectator-tokens"
    r = client.get(url, headers=game.admin)
    assert r.status_code == 200, r.json
    listed = r.json["tokens"]
    assert sorted((t["token_id"], t["name"]) for t in listed) == sorted((m["token_id"], m["name"]) for m in made)
    assert all(t["created_at"] and t["revoked_at"] is None and set(t) == {"token_id", "name", "created_at",
                                                                          "revoked_at"} for t in listed)
    text = r.get_data(as_text=True)
    assert not any(m["token"] in text or m["token"][4:] in text for m in made)
    assert not any(hashlib.sha256(m["token"].encode()).hexdigest() in text for m in made)  # nor the full hash
    for headers in (game.seats["Blue"], bearer(made[0]["token"]), umpire(client, game)):
        for r in (client.get(url, headers=headers), client.delete(f"{url}/{made[1]['token_id']}", headers=headers)):
            assert r.status_code == 403 and r.json["code"] == "forbidden", r.json
    assert client.get(url).status_code == 404  # a private game, without a token
    assert client.get(url, headers=game.admin).json["tokens"] == listed  # the refused revocation changed nothing


def test_a_revoked_spectator_token_fails_at_once_and_its_annotation_stays_in_the_log(client, api_service):
    """Revoked: 401 on a read and on an annotation, in this process and another; the spectator's
    other tokens and the game's other readers go on; the row stays, listed; what it wrote stays."""
    other = create_app({"WARLOG_SERVICE": api_service, "TESTING": True}).test_client()
    game = make_game(client)
    sam, kim = spectator(client, game, "Sam"), spectator(client, game, "Kim")
    assert client.post(f"/api/v1/games/{game.game_id}/concede", headers=game.seats["Red"]).status_code == 200
    r = annotate(client, game, bearer(sam["token"]), 1, "a fine game", key="s-1")
    assert r.status_code == 201, r.json
    history = f"/api/v1/games/{game.game_id}/history"
    assert other.get(history, headers=bearer(sam["token"])).status_code == 200
    url = f"/api/v1/games/{game.game_id}/spectator-tokens/{sam['token_id']}"
    r = client.delete(url, headers=game.admin)
    assert r.status_code == 200 and r.json["token_id"] == sam["token_id"] and r.json["name"] == "Sam", r.json
    assert r.json["revoked_at"] and r.json["already_revoked"] is False
    for c in (client, other):
        refused = c.get(history, headers=bearer(sam["token"]))
        assert refused.status_code == 401 and refused.json["code"] == "unauthorized", refused.json
    refused = annotate(client, game, bearer(sam["token"]), 1, "one more", key="s-2")
    assert refused.status_code == 401 and refused.json["code"] == "unauthorized", refused.json
    assert annotate(client, game, bearer(kim["token"]), 1, "well played", key="k-1").status_code == 201
    for headers in (game.seats["Blue"], game.admin):
        assert client.get(history, headers=headers).status_code == 200
    assert notes_on(client, game, game.seats["Blue"], 1) == [("Sam", "a fine game"), ("Kim", "well played")]
    exported = client.get(f"/api/v1/games/{game.game_id}/export", headers=game.seats["Blue"]).get_data(as_text=True)
    assert "a fine game" in exported and "one more" not in exported
    again = client.delete(url, headers=game.admin)
    assert again.status_code == 200 and again.json["already_revoked"] is True, again.json
    assert again.json["revoked_at"] == r.json["revoked_at"]
    listed = {t["token_id"]: t for t in client.get(f"/api/v1/games/{game.game_id}/spectator-tokens",
                                                   headers=game.admin).json["tokens"]}
    assert listed[sam["token_id"]]["revoked_at"] == r.json["revoked_at"]
    assert listed[kim["token_id"]]["revoked_at"] is None
    for unknown in ("0" * 16, "not-an-id", kim["token_id"][:8]):
        missing = client.delete(f"/api/v1/games/{game.game_id}/spectator-tokens/{unknown}", headers=game.admin)
        assert missing.status_code == 404 and missing.json["code"] == "not_found", missing.json
        assert unknown in missing.json["detail"]


def test_a_spectator_token_id_of_another_game_is_not_found_in_this_one(client):
    game, other = make_game(client), make_game(client)
    sam = spectator(client, other, "Sam")
    r = client.delete(f"/api/v1/games/{game.game_id}/spectator-tokens/{sam['token_id']}", headers=game.admin)
    assert r.status_code == 404 and r.json["code"] == "not_found", r.json
    assert client.get(f"/api/v1/games/{other.game_id}", headers=bearer(sam["token"])).status_code == 200


def test_revoking_by_name_revokes_every_live_token_of_that_name_and_no_other(api_service):
    access = AccessStore.for_service(api_service)
    game_id = "00000000-0000-4000-8000-000000000035"
    tokens = {name: access.issue_token(game_id, SPECTATOR, name) for name in ("Sam", "Kim")}
    second_sam = access.issue_token(game_id, SPECTATOR, "Sam")
    assert access.revoke_spectator_tokens(game_id, name="Sam") == 2
    assert access.revoke_spectator_tokens(game_id, name="Sam") == 0  # nothing live of that name now
    assert access.grant(tokens["Sam"]) is None and access.grant(second_sam) is None
    assert access.grant(tokens["Kim"]).seat == "Kim"
    assert [t["name"] for t in access.spectator_tokens(game_id) if t["revoked_at"] is None] == ["Kim"]
    assert len(access.spectator_tokens(game_id)) == 3  # revoked rows are kept


def test_the_admin_revokes_every_spectator_token_of_a_name_at_once(client):
    game = make_game(client)
    sams = [spectator(client, game, "Sam") for _ in range(2)]
    kim = spectator(client, game, "Kim")
    url = f"/api/v1/games/{game.game_id}/spectator-tokens"
    r = client.delete(url, query_string={"name": " Sam "}, headers=game.admin)
    assert r.status_code == 200 and r.json["revoked"] == 2 and r.json["name"] == "Sam", r.json
    assert sorted(t["token_id"] for t in r.json["tokens"]) == sorted(s["token_id"] for s in sams)
    assert all(t["revoked_at"] for t in r.json["tokens"])
    for s in sams:
        assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer(s["token"])).status_code == 401
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer(kim["token"])).status_code == 200
    again = client.delete(url, query_string={"name": "Sam"}, headers=game.admin)
    assert again.status_code == 200 and again.json["revoked"] == 0, again.json
    missing = client.delete(url, query_string={"name": "Nobody"}, headers=game.admin)
    assert missing.status_code == 404 and "Nobody" in missing.json["detail"], missing.json
    for query in ({}, {"name": "  "}, {"name": "Kim", "x": "1"}):
        bad = client.delete(url, query_string=query, headers=game.admin)
        assert bad.status_code == 422 and bad.json["code"] == "invalid_request", bad.json
    refused = client.delete(url, query_string={"name": "Kim"}, headers=game.seats["Blue"])
    assert refused.status_code == 403, refused.json
    assert client.get(f"/api/v1/games/{game.game_id}", headers=bearer(kim["token"])).status_code == 200
