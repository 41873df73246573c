"""Signed orders and signed heads over the API (issue 34, part 3; docs/dice.md "Signed orders and heads"),
on SQLite and PostgreSQL."""

from __future__ import annotations

import json

from domain import chain, sealed, signatures
from domain.verify import verify_head, verify_text
from tests.api.conftest import ApiGame, bearer

ROLL = {"kind": "roll", "dice": "2d6", "purpose": "barrage"}


def keyed_game(client, **options) -> tuple[ApiGame, object, str]:
    """A freeform game whose Blue seat registered a key (Red did not); the key and Blue's join head."""
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"], **options}})
    assert r.status_code == 201, r.json
    game = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    key = signatures.new_private_key()
    j = client.post(f"/api/v1/games/{game.game_id}/join", json={
        "invite_code": game.invites["Blue"], "handle": "blue", "public_key": signatures.public_key_of(key)})
    assert j.status_code == 201, j.json
    game.seats["Blue"] = bearer(j.json["token"])
    j = client.post(f"/api/v1/games/{game.game_id}/join", json={"invite_code": game.invites["Red"], "handle": "red"})
    assert j.status_code == 201, j.json
    game.seats["Red"] = bearer(j.json["token"])
    return game, key, j.json["chain_head"]


def signed(game, key, order_id, order, head) -> dict:
    return {"Warlog-Signature": signatures.sign_order(key, game.game_id, order_id, order, head), "Warlog-Head": head}


def versions(client, game) -> int:
    return client.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Red"]).json["version"]


def export_text(client, game, headers) -> list[str]:
    r = client.get(f"/api/v1/games/{game.game_id}/export", headers=headers)
    assert r.status_code == 200
    text = r.get_data(as_text=True).splitlines()
    # A format-2 game's export begins with its header line, naming the server's key (export v2).
    assert json.loads(text[0]) == {"warlog_export": {"version": 2, "server_key": r.headers["Warlog-Server-Key"]}}
    return text


def test_a_keyed_seats_unsigned_or_badly_signed_order_is_refused_and_nothing_recorded(client):
    game, key, head = keyed_game(client)
    before = versions(client, game)
    r = game.order(client, "Blue", ROLL, "o-1")
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    forged = signatures.new_private_key()  # someone else's key: the server's own forgery
    r = game.order(client, "Blue", ROLL, "o-1", **signed(game, forged, "o-1", ROLL, head))
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    altered = {**ROLL, "dice": "3d6"}  # signed one order, sent another
    r = game.order(client, "Blue", altered, "o-1", **signed(game, key, "o-1", ROLL, head))
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-2", ROLL, head))  # another order id
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-1", ROLL, "a" * 64))
    assert r.status_code == 422 and r.json["code"] == "unknown_head", r.json
    assert versions(client, game) == before


def test_a_signed_order_is_accepted_kept_and_the_export_verifies_with_its_signature(client):
    game, key, head = keyed_game(client)
    r = game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-1", ROLL, head))
    assert r.status_code == 201, r.json
    types = [line["type"] for line in r.json["events"]]
    assert types[:2] == ["OrderAccepted", "OrderSigned"]
    assert r.json["events"][1]["data"]["head"] == head
    # A retry keeps its id and its signature: the first result again.
    again = game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-1", ROLL, head))
    assert again.status_code == 200 and again.json["replayed"] is True
    # An older head is still a head of the log: the seat signs what it saw.
    r = game.order(client, "Blue", {"kind": "note", "text": "hi"}, "o-2",
                   **signed(game, key, "o-2", {"kind": "note", "text": "hi"}, head))
    assert r.status_code == 201, r.json
    # The seat without a key plays as before.
    assert game.order(client, "Red", {"kind": "note", "text": "ok"}, "r-1").status_code == 201
    report, _ = verify_text(export_text(client, game, game.seats["Blue"]))
    assert report.ok, report.summary()
    assert report.signatures_verified == 2


def test_a_signed_order_altered_in_the_export_fails_verify_naming_its_line(client):
    game, key, head = keyed_game(client)
    assert game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-1", ROLL, head)).status_code == 201
    text = export_text(client, game, game.seats["Blue"])
    lines = [json.loads(t) for t in text[1:]]
    at = next(i for i, line in enumerate(lines) if line["type"] == "OrderAccepted")
    lines[at]["data"]["order"]["purpose"] = "a purpose Blue never gave"
    prev = lines[at - 1]["hash"]
    for line in lines[at:]:  # the forger rewrites every hash after it: the chain itself is sound
        line["prev_hash"] = prev
        line["hash"] = prev = chain.line_hash(line)
    report, _ = verify_text([text[0]] + [json.dumps(line) for line in lines])
    assert not report.ok
    assert [n for n, _ in report.failures] == [at + 1], report.summary()
    assert "not seat Blue's" in report.failures[0][1]
    # Dropping the signature line instead is caught too.
    del lines[at + 1]
    for n, line in enumerate(lines[at + 1:], start=at + 2):
        line["seq"], line["prev_hash"] = n, lines[n - 2]["hash"]
        line["hash"] = chain.line_hash(line)
    report, _ = verify_text([json.dumps(line) for line in lines])
    assert any(n == at + 1 and "not followed by its signature" in m for n, m in report.failures), report.summary()


def test_signed_heads_prove_a_truncated_or_rewritten_export(client):
    game, key, head = keyed_game(client)
    server_key = client.get("/api/v1/server-key").json
    assert server_key["algorithm"] == "Ed25519"
    r = game.order(client, "Blue", ROLL, "o-1", **signed(game, key, "o-1", ROLL, head))
    kept = r.json["signed_head"]
    assert kept == {"game": game.game_id, "seq": r.json["version"], "hash": r.json["chain_head"],
                    "signature": kept["signature"]}
    assert signatures.signed_head_problem(kept, server_key["public_key"]) is None
    text = export_text(client, game, game.seats["Blue"])
    report, _ = verify_text(text)
    verify_head(report, kept, report.server_key)
    assert report.ok and report.server_key == server_key["public_key"], report.summary()
    # Cut short: the kept head's line is gone.
    short, _ = verify_text(text[:-1])
    verify_head(short, kept, short.server_key)
    assert short.failures and "cut short" in short.failures[-1][1]
    # Rewritten: a sound chain, but not the one the server signed.
    lines = [json.loads(t) for t in text[1:]]
    lines[-1]["data"]["outcome"] = "rewritten"
    lines[-1]["hash"] = chain.line_hash(lines[-1])
    rewritten, _ = verify_text([text[0]] + [json.dumps(line) for line in lines])
    assert rewritten.ok  # the chain alone cannot tell
    verify_head(rewritten, kept, rewritten.server_key)
    assert [n for n, _ in rewritten.failures] == [kept["seq"]] and "rewritten" in rewritten.failures[0][1]
    # A head the server never signed proves nothing.
    forged = {**kept, "hash": "b" * 64}
    report, _ = verify_text(text)
    verify_head(report, forged, report.server_key)
    assert "not the server key's" in report.failures[0][1]


def test_a_bad_public_key_is_refused_at_join_and_the_invite_stays_usable(client):
    r = client.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    gid, code = r.json["game_id"], r.json["invites"]["Blue"]
    for bad in ("abc", "A" * 44, "not base64!" * 4):
        j = client.post(f"/api/v1/games/{gid}/join", json={"invite_code": code, "handle": "b", "public_key": bad})
        assert j.status_code == 422, j.json
    j = client.post(f"/api/v1/games/{gid}/join", json={"invite_code": code, "handle": "b"})
    assert j.status_code == 201, j.json
    assert signatures.signed_head_problem(j.json["signed_head"], client.get("/api/v1/server-key").json["public_key"]) is None


def test_a_key_another_seat_registered_is_refused_at_join_and_the_invite_stays_usable(client):
    """docs/dice.md, "Seats' keys": an order's signed bytes do not name its seat, so with one key for
    two seats the server could record one seat's signed order as the other's."""
    game, key, _ = keyed_game(client, sides=["Blue", "Red", "Green"])
    blues = signatures.public_key_of(key)
    before = versions(client, game)
    j = client.post(f"/api/v1/games/{game.game_id}/join", json={
        "invite_code": game.invites["Green"], "handle": "green", "public_key": blues})
    assert j.status_code == 422 and j.json["field"] == "public_key", j.json
    assert "seat Blue" in j.json["detail"] and "could not be told apart" in j.json["detail"], j.json
    assert versions(client, game) == before  # nothing recorded
    own = signatures.public_key_of(signatures.new_private_key())
    j = client.post(f"/api/v1/games/{game.game_id}/join", json={
        "invite_code": game.invites["Green"], "handle": "green", "public_key": own})
    assert j.status_code == 201, j.json


def test_the_signature_of_an_order_hidden_from_a_seat_is_hidden_with_it(client):
    game, key, head = keyed_game(client)
    secret = {"kind": "note", "text": "the reserve waits behind the hill", "private": True}
    r = game.order(client, "Blue", secret, "o-1", **signed(game, key, "o-1", secret, head))
    assert r.status_code == 201, r.json
    mine = client.get(f"/api/v1/games/{game.game_id}/events", headers=game.seats["Blue"]).json["events"]
    theirs = client.get(f"/api/v1/games/{game.game_id}/events", headers=game.seats["Red"]).json["events"]
    signed_mine = next(line for line in mine if line["type"] == "OrderSigned")
    signed_theirs = next(line for line in theirs if line["type"] == "OrderSigned")
    assert signed_mine["data"]["signature"] and "redacted" not in signed_mine
    # A signature lets anyone test a guess of what it signs: Red sees that Blue signed, and a
    # commitment in place of the signature.
    assert signed_theirs["data"]["signature"] != signed_mine["data"]["signature"]
    assert signed_theirs["data"]["concealed"] == {"signature": None} and "redacted" not in signed_theirs
    assert signed_theirs["data"]["head"] == head
    report, _ = verify_text(export_text(client, game, game.seats["Red"]))
    assert report.ok and report.signatures_verified == 0, report.summary()  # Red's copy: not checkable there
    assert verify_text(export_text(client, game, game.seats["Blue"]))[0].signatures_verified == 1


# ------------------------------------------------------------------ signed seals and reveals ----
def seal(client, game, seat, commitment, **headers):
    return client.post(f"/api/v1/games/{game.game_id}/sealed", json={"commitment": commitment},
                       headers={**game.seats[seat], **headers})


def reveal(client, game, seat, orders, salt, **headers):
    return client.post(f"/api/v1/games/{game.game_id}/sealed/reveal", json={"orders": orders, "salt": salt},
                       headers={**game.seats[seat], **headers})


def sig(signature, head) -> dict:
    return {"Warlog-Signature": signature, "Warlog-Head": head}


def test_a_keyed_seats_seal_and_reveal_are_signed_refused_unsigned_or_badly_signed_and_the_export_verifies(client):
    game, key, head = keyed_game(client, sealed_orders=True)
    gid = game.game_id
    orders = [ROLL, {"kind": "note", "text": "BLUE-PRIVATE-PLAN", "private": True}]
    salt = "5a" * 16
    commitment = sealed.commitment(gid, "Blue", 1, orders, salt)
    before = versions(client, game)
    r = seal(client, game, "Blue", commitment)
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = seal(client, game, "Blue", commitment, **sig(signatures.sign_seal(key, gid, "Blue", 1, commitment, "c" * 64),
                                                     "c" * 64))
    assert r.status_code == 422 and r.json["code"] == "unknown_head", r.json
    for forged in (signatures.sign_seal(signatures.new_private_key(), gid, "Blue", 1, commitment, head),
                   signatures.sign_seal(key, gid, "Blue", 1, "0" * 64, head),  # signed one commitment, sent another
                   signatures.sign_reveal(key, gid, "Blue", 1, orders, salt, head)):  # another kind
        r = seal(client, game, "Blue", commitment, **sig(forged, head))
        assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    assert versions(client, game) == before
    seal_signature = signatures.sign_seal(key, gid, "Blue", 1, commitment, head)
    r = seal(client, game, "Blue", commitment, **sig(seal_signature, head))
    assert r.status_code == 201, r.json
    assert [line["type"] for line in r.json["events"]] == ["OrderSealed", "SealedOrdersSigned"]
    assert r.json["events"][1]["data"] == {"kind": "seal", "seat": "Blue", "round": 1, "head": head,
                                           "signature": seal_signature}
    assert r.json["signed_head"]["seq"] == r.json["version"]
    again = seal(client, game, "Blue", commitment, **sig(seal_signature, head))
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert seal(client, game, "Red", sealed.commitment(gid, "Red", 1, [], salt)).status_code == 201  # no key

    before = versions(client, game)
    assert reveal(client, game, "Blue", orders, salt).json["code"] == "signature_required"
    r = reveal(client, game, "Blue", orders, salt, **sig(seal_signature, head))  # the seal's, replayed
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = reveal(client, game, "Blue", orders, salt, **sig(signatures.sign_reveal(key, gid, "Blue", 1, orders[:1], salt,
                                                                                 head), head))
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    assert versions(client, game) == before
    r = reveal(client, game, "Blue", orders, salt,
               **sig(signatures.sign_reveal(key, gid, "Blue", 1, orders, salt, head), head))
    assert r.status_code == 201, r.json
    assert [line["type"] for line in r.json["events"]] == ["OrderRevealed", "SealedOrdersSigned"]
    assert reveal(client, game, "Red", [], salt).status_code == 201

    report, _ = verify_text(export_text(client, game, game.seats["Blue"]))
    assert report.ok and report.sealed_signatures_verified == 2 and report.reveals_verified == 2, report.summary()
    # Red may not read Blue's private note, so not the reveal's signature either; the seal's is public.
    theirs = client.get(f"/api/v1/games/{gid}/events", headers=game.seats["Red"]).json["events"]
    signed_lines = {line["data"]["kind"]: line for line in theirs if line["type"] == "SealedOrdersSigned"}
    assert signed_lines["seal"]["data"]["signature"] == seal_signature and "redacted" not in signed_lines["seal"]
    # A commitment stands in the reveal's signature's place (concealed fields, docs/dice.md).
    assert signed_lines["reveal"]["data"]["concealed"] == {"signature": None} and "redacted" not in signed_lines["reveal"]
    mine = client.get(f"/api/v1/games/{gid}/events", headers=game.seats["Blue"]).json["events"]
    blue_reveal = next(line for line in mine if line["type"] == "SealedOrdersSigned" and line["data"]["kind"] == "reveal")
    assert signed_lines["reveal"]["data"]["signature"] != blue_reveal["data"]["signature"]
    assert "BLUE-PRIVATE-PLAN" not in json.dumps(theirs)
    report, _ = verify_text(export_text(client, game, game.seats["Red"]))
    assert report.ok, report.summary()


def command_sig(key, game, kind, fields, head) -> dict:
    return sig(signatures.sign_command(key, game.game_id, kind, "Blue", fields, head), head)


def test_a_keyed_seats_unsigned_concession_is_refused_nothing_recorded_and_a_signed_one_verifies(client):
    game, key, head = keyed_game(client)
    gid = game.game_id
    url = f"/api/v1/games/{gid}"
    before = versions(client, game)
    r = client.post(f"{url}/concede", headers=game.seats["Blue"])  # what a forging server would record
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = client.post(f"{url}/concede", headers={**game.seats["Blue"], **command_sig(
        signatures.new_private_key(), game, "concede", {}, head)})
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = client.post(f"{url}/concede", headers={**game.seats["Blue"], **command_sig(  # another command's signature
        key, game, "client_seed", {"client_seed": ""}, head)})
    assert r.status_code == 422 and r.json["code"] == "bad_signature", r.json
    r = client.post(f"{url}/concede", headers={**game.seats["Blue"], **command_sig(key, game, "concede", {}, "d" * 64)})
    assert r.status_code == 422 and r.json["code"] == "unknown_head", r.json
    assert versions(client, game) == before
    assert client.get(url, headers=game.seats["Red"]).json["status"] != "ended"

    # The other commands' endpoints ask for a signature too (Red, without a key, is not asked).
    r = client.put(f"{url}/client-seed", json={"client_seed": "blue-2"}, headers=game.seats["Blue"])
    assert r.status_code == 422 and r.json["code"] == "signature_required", r.json
    r = client.put(f"{url}/client-seed", json={"client_seed": "blue-2"}, headers={
        **game.seats["Blue"], **command_sig(key, game, "client_seed", {"client_seed": "blue-2"}, head)})
    assert r.status_code == 200, r.json
    assert [line["type"] for line in r.json["events"]] == ["ClientSeedChanged", "CommandSigned"]
    assert client.put(f"{url}/client-seed", json={"client_seed": "red-2"}, headers=game.seats["Red"]).status_code == 200

    r = client.post(f"{url}/concede", headers={**game.seats["Blue"], **command_sig(key, game, "concede", {}, head)})
    assert r.status_code == 200, r.json
    assert [line["type"] for line in r.json["events"]][:3] == ["Conceded", "CommandSigned", "GameEnded"]
    report, _ = verify_text(export_text(client, game, game.seats["Red"]))
    assert report.ok and report.command_signatures_verified == 2, report.summary()


def test_a_keyed_seats_take_back_and_standing_orders_are_signed_and_the_standing_orders_signature_is_private(client):
    r = client.post("/api/v1/games", json={"ruleset": "proving"})
    assert r.status_code == 201, r.json
    game = ApiGame(r.json["game_id"], bearer(r.json["admin_token"]), invites=r.json["invites"])
    gid, key = game.game_id, signatures.new_private_key()
    j = client.post(f"/api/v1/games/{gid}/join", json={"invite_code": game.invites["Blue"], "handle": "blue",
                                                       "public_key": signatures.public_key_of(key)})
    game.seats["Blue"] = bearer(j.json["token"])
    j = client.post(f"/api/v1/games/{gid}/join", json={"invite_code": game.invites["Red"], "handle": "red"})
    game.seats["Red"], head = bearer(j.json["token"]), j.json["chain_head"]
    url = f"/api/v1/games/{gid}/standing-orders/SECRET-POLICY"
    body = {"decision_kind": "opportunity_fire", "policy": {"fire": "always", "ask_at": []}}
    fields = {"policy_id": "SECRET-POLICY", **body}
    assert client.put(url, json=body, headers=game.seats["Blue"]).json["code"] == "signature_required"
    r = client.put(url, json=body, headers={**game.seats["Blue"], **command_sig(key, game, "standing_order", fields, head)})
    assert r.status_code == 200 and [line["type"] for line in r.json["events"]] == ["StandingOrderSet", "CommandSigned"]
    signature = r.json["events"][1]["data"]["signature"]
    assert client.delete(url, headers=game.seats["Blue"]).json["code"] == "signature_required"
    r = client.delete(url, headers={**game.seats["Blue"], **command_sig(
        key, game, "standing_order_cancel", {"policy_id": "SECRET-POLICY"}, head)})
    assert r.status_code == 200 and [line["type"] for line in r.json["events"]] == ["StandingOrderCancelled",
                                                                                    "CommandSigned"]
    # Red sees that Blue set and cancelled a standing order, neither its name nor its signature.
    theirs = client.get(f"/api/v1/games/{gid}/events", headers=game.seats["Red"]).json["events"]
    signed_lines = [line for line in theirs if line["type"] == "CommandSigned"]
    assert len(signed_lines) == 2 and signature not in json.dumps(theirs) and "SECRET-POLICY" not in json.dumps(theirs)
    assert all(line["data"]["concealed"] == {"signature": None} for line in signed_lines)
    report, _ = verify_text(export_text(client, game, game.seats["Red"]))
    assert report.ok and report.command_signatures_verified == 0, report.summary()  # Red's copy: hidden, not failed
    report, _ = verify_text(export_text(client, game, game.seats["Blue"]))
    assert report.ok and report.command_signatures_verified == 2, report.summary()
