"""The sixth attack round on the newer API features (time control, webhooks and a seat's choices,
annotations, sealed orders and rolls, signatures, take-backs): requests a careless client or an
attacker could send, each answered as the service promises (docs/api.md). SQLite only: what these
tests check is the API's answer, not the store."""

from __future__ import annotations

import ipaddress
import secrets

import pytest

from domain import sealed
from tests.api.conftest import make_game, start_game
from workers import webhook_target


def url(game, tail=""):
    return f"/api/v1/games/{game.game_id}{tail}"


@pytest.fixture
def hooks_example(monkeypatch):
    """hooks.example resolves to a public address (never connected to), without asking DNS."""
    real = webhook_target.resolve
    monkeypatch.setattr(webhook_target, "resolve", lambda host, port: (
        [ipaddress.ip_address("93.184.216.34")] if host == "hooks.example" else real(host, port)))


# ------------------------------------------------------------- every refusal names its rule ----
def test_an_order_of_a_kind_freeform_does_not_know_is_refused_naming_the_rule(sqlite_client):
    game = make_game(sqlite_client)
    r = game.order(sqlite_client, "Blue", {"kind": "bogus"}, "o-1")
    assert r.status_code == 422 and r.json["code"] == "invalid_order", r.json
    assert r.json["rule"] == "FF 2" and r.json["field"] == "kind", r.json


def seal_and_reveal(c, game, orders: dict):
    """Round 1 of sealed orders: each seat seals ``orders[seat]``, then each reveals them; the last
    reveal's answer (it carries the round out)."""
    salts = {seat: secrets.token_hex(16) for seat in orders}
    for seat, mine in orders.items():
        r = c.post(url(game, "/sealed"), json={"commitment": sealed.commitment(game.game_id, seat, 1, mine, salts[seat])},
                   headers=game.seats[seat])
        assert r.status_code == 201, r.json
    for seat, mine in orders.items():
        r = c.post(url(game, "/sealed/reveal"), json={"orders": mine, "salt": salts[seat]}, headers=game.seats[seat])
        assert r.status_code == 201, r.json
    return r


def test_a_revealed_sealed_order_of_an_unknown_kind_is_recorded_refused_naming_the_rule(sqlite_client):
    """A SealedOrderRefused is in the log for good: its rule must not be null."""
    c = sqlite_client
    game = make_game(c, sealed_orders=True)
    orders = {"Blue": [{"kind": "bogus"}, {"kind": 5}], "Red": []}
    r = seal_and_reveal(c, game, orders)
    refused = [line["data"] for line in r.json["events"] if line["type"] == "SealedOrderRefused"]
    assert [d["index"] for d in refused] == [0, 1], r.json
    assert all(d["rule"] == "FF 2" for d in refused), refused


# ---------------------------------------------------------------- a token of another game ----
@pytest.mark.parametrize("role", ["seat", "admin"])
def test_another_games_valid_token_annotating_a_public_game_is_403_not_401(sqlite_client, role):
    """401 says "this token is not valid" (and counts as token guessing, api/limits.py); the token is
    valid, for another game: 403, as docs/api.md "Who may do what" says."""
    c = sqlite_client
    game = start_game(c, {"ruleset": "freeform", "public": True, "options": {"sides": ["Blue", "Red"]}})
    other = make_game(c)
    token = other.seats["Blue"] if role == "seat" else other.admin
    r = c.post(url(game, "/annotations"), json={"about_seq": 1, "text": "not my game"},
               headers={**token, "Idempotency-Key": "note-1"})
    assert r.status_code == 403 and r.json["code"] == "forbidden" and "another game" in r.json["detail"], r.json
    assert c.post(url(game, "/annotations"), json={"about_seq": 1, "text": "x"},
                  headers={"Idempotency-Key": "note-2"}).status_code == 401  # no token at all: still 401


# -------------------------------------------------------------- a seat's notification choices ----
def test_putting_back_the_settings_read_keeps_the_seat_webhooks_secret(sqlite_client, hooks_example):
    """A client that reads its settings, changes one field and puts them all back sends its
    webhook_url again, unchanged: that is no new URL, and its secret must not be replaced (the
    receiver verifies with the one it has)."""
    c = sqlite_client
    game = make_game(c)
    settings = url(game, "/notifications")
    red = game.seats["Red"]
    r = c.put(settings, json={"channels": ["webhook"], "webhook_url": "https://hooks.example/red"}, headers=red)
    assert r.status_code == 200 and r.json["webhook_secret"].startswith("whsec_"), r.json
    secret = r.json["webhook_secret"]
    from api.notify_settings import store

    with c.application.app_context():
        assert store().seat_webhook(game.game_id, "Red")["secret"] == secret
    got = c.get(settings, headers=red).json
    body = {k: got[k] for k in ("events", "channels", "digest", "webhook_url", "webhook_format")}
    r = c.put(settings, json={**body, "digest": True}, headers=red)
    assert r.status_code == 200 and r.json["digest"] is True and r.json["webhook_secret"] is None, r.json
    with c.application.app_context():
        assert store().seat_webhook(game.game_id, "Red")["secret"] == secret
    # A new URL still gets a new secret, returned once.
    r = c.put(settings, json={"webhook_url": "https://hooks.example/red-2"}, headers=red)
    assert r.status_code == 200 and r.json["webhook_secret"] not in (None, secret), r.json


# ------------------------------------------------------------------- replays of old requests ----
def test_the_last_reveal_of_a_round_sent_again_is_its_first_answer_replayed(sqlite_client):
    """The last reveal carries the round out and opens the next: a client whose answer was lost
    sends it again, and gets the reveal's line back (200, Idempotent-Replayed), as docs/api.md
    promises of a reveal sent again; it got 422 "has not sealed its orders for round 2". A
    different reveal is still refused, and nothing new is recorded."""
    c = sqlite_client
    game = make_game(c, sealed_orders=True)
    orders = {"Blue": [{"kind": "note", "text": "blue"}], "Red": [{"kind": "note", "text": "red"}]}
    salts = {seat: secrets.token_hex(16) for seat in orders}
    for seat, mine in orders.items():
        r = c.post(url(game, "/sealed"), json={"commitment": sealed.commitment(game.game_id, seat, 1, mine, salts[seat])},
                   headers=game.seats[seat])
        assert r.status_code == 201, r.json
    first = {}
    for seat, mine in orders.items():
        first[seat] = c.post(url(game, "/sealed/reveal"), json={"orders": mine, "salt": salts[seat]},
                             headers=game.seats[seat])
        assert first[seat].status_code == 201, first[seat].json
    version = first["Red"].json["version"]
    assert any(line["type"] == "SealedRoundOpened" for line in first["Red"].json["events"])  # round 2 is open
    for seat, mine in orders.items():
        again = c.post(url(game, "/sealed/reveal"), json={"orders": mine, "salt": salts[seat]},
                       headers=game.seats[seat])
        assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.json
        assert again.json["events"][0] == first[seat].json["events"][0], again.json
    other = c.post(url(game, "/sealed/reveal"), json={"orders": [], "salt": salts["Red"]}, headers=game.seats["Red"])
    assert other.status_code == 422 and other.json["code"] == "rule_violation" and other.json["rule"] == "FF 8"
    assert c.get(url(game), headers=game.admin).json["version"] == version  # nothing recorded


def test_orders_and_salt_sealed_again_in_the_next_round_are_revealed_there_not_replayed(sqlite_client):
    """The replay of a closed round's reveal must not swallow the next round's reveal of the same
    orders under the same salt (a client that reuses its salt): that one is recorded."""
    c = sqlite_client
    game = make_game(c, sealed_orders=True)
    orders = {"Blue": [{"kind": "note", "text": "again"}], "Red": []}
    salts = {seat: secrets.token_hex(16) for seat in orders}
    for round_no in (1, 2):
        for seat, mine in orders.items():
            r = c.post(url(game, "/sealed"), json={"commitment": sealed.commitment(game.game_id, seat, round_no, mine,
                                                                                    salts[seat])},
                       headers=game.seats[seat])
            assert r.status_code == 201, r.json
        for seat, mine in orders.items():
            r = c.post(url(game, "/sealed/reveal"), json={"orders": mine, "salt": salts[seat]}, headers=game.seats[seat])
            assert r.status_code == 201 and r.json["events"][0]["data"]["round"] == round_no, r.json


def test_a_keyed_seats_reveal_sent_again_after_its_round_is_checked_as_signed_then_replayed(sqlite_client):
    from domain import signatures
    from tests.api.test_signatures import keyed_game

    c = sqlite_client
    game, key, head = keyed_game(c, sealed_orders=True)
    gid, salt, orders = game.game_id, "5a" * 16, [{"kind": "note", "text": "blue"}]
    commitment = sealed.commitment(gid, "Blue", 1, orders, salt)
    signed_seal = {"Warlog-Head": head, "Warlog-Signature": signatures.sign_seal(key, gid, "Blue", 1, commitment, head)}
    assert c.post(url(game, "/sealed"), json={"commitment": commitment},
                  headers={**game.seats["Blue"], **signed_seal}).status_code == 201
    assert c.post(url(game, "/sealed"), json={"commitment": sealed.commitment(gid, "Red", 1, [], salt)},
                  headers=game.seats["Red"]).status_code == 201
    signed_reveal = {"Warlog-Head": head,
                     "Warlog-Signature": signatures.sign_reveal(key, gid, "Blue", 1, orders, salt, head)}
    body = {"orders": orders, "salt": salt}
    assert c.post(url(game, "/sealed/reveal"), json=body, headers={**game.seats["Blue"], **signed_reveal}).status_code == 201
    assert c.post(url(game, "/sealed/reveal"), json={"orders": [], "salt": salt},
                  headers=game.seats["Red"]).status_code == 201  # the round is carried out; round 2 opens
    unsigned = c.post(url(game, "/sealed/reveal"), json=body, headers=game.seats["Blue"])
    assert unsigned.status_code == 422 and unsigned.json["code"] == "signature_required", unsigned.json
    again = c.post(url(game, "/sealed/reveal"), json=body, headers={**game.seats["Blue"], **signed_reveal})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true", again.json


# ----------------------------------------------------------------- concurrent duplicates ----


def test_the_loser_of_two_identical_annotations_racing_gets_the_winners_result_not_a_409(sqlite_config):
    """As for orders (docs/api.md, Idempotency): the annotation was recorded, under its id, by the
    request that won; the one that lost gets that result as a replay, not 409 'nothing was recorded'."""
    from api.app import migrate
    from domain.service import Warlog
    from tests.conftest import new_freeform_game

    migrate(sqlite_config)
    here, elsewhere = Warlog(sqlite_config), Warlog(sqlite_config)
    try:
        gid = new_freeform_game(here)
        here.annotate(gid, "seat", "Blue", "warm-up", 1, "loads the game into this process's cache", False)
        won = elsewhere.annotate(gid, "seat", "Red", "note-1", 2, "the same annotation, sent twice", True)
        here._catch_up = lambda cached: None  # the other process recorded between this one's read and save
        lost = here.annotate(gid, "seat", "Red", "note-1", 2, "the same annotation, sent twice", True)
        assert lost.replayed and lost.events == won.events and lost.version == won.version
        assert [line["data"].get("annotation_id") for line in here.lines(gid)].count("note-1") == 1
    finally:
        here.close()
        elsewhere.close()


def test_the_loser_of_two_identical_seals_racing_gets_the_winners_line_not_a_409(sqlite_config):
    from api.app import migrate
    from domain.service import Warlog
    from tests.conftest import new_freeform_game

    migrate(sqlite_config)
    here, elsewhere = Warlog(sqlite_config), Warlog(sqlite_config)
    try:
        gid = new_freeform_game(here, sealed_orders=True)
        here.seal(gid, "Blue", sealed.commitment(gid, "Blue", 1, [], "5a" * 16))  # this process's cache holds the game
        commitment = sealed.commitment(gid, "Red", 1, [], "6b" * 16)
        won = elsewhere.seal(gid, "Red", commitment)
        here._catch_up = lambda cached: None  # the other process recorded between this one's read and save
        lost = here.seal(gid, "Red", commitment)
        assert lost.replayed and lost.events == won.events[:1], lost
        here._catch_up = lambda cached: None
        with pytest.raises(Exception) as refused:  # another commitment lost the race: a plain conflict
            here.seal(gid, "Red", sealed.commitment(gid, "Red", 1, [{"kind": "advance"}], "6b" * 16))
        assert type(refused.value).__name__ in ("Conflict", "RuleViolation"), refused.value
    finally:
        here.close()
        elsewhere.close()


# ------------------------------------------------------------------------ hidden information ----
def test_a_sealed_note_meant_private_with_a_bad_flag_is_refused_and_stays_hidden_from_the_other_seat(sqlite_client):
    """``"private": "yes"`` is refused (FF 7) as an ordinary order, recording nothing; revealed in a
    sealed round it cannot be refused before it is recorded (the reveal must match the commitment),
    and its text was in every reader's copy of the reveal and of the refusal. Now both are hidden
    from the other seat as a private note's are, and its copy still verifies."""
    from domain.verify import verify_text

    c = sqlite_client
    game = make_game(c, sealed_orders=True)
    orders = {"Blue": [{"kind": "note", "text": "BLUE-SECRET-PLAN", "private": "yes"}], "Red": []}
    r = seal_and_reveal(c, game, orders)
    refused = [line["data"] for line in r.json["events"] if line["type"] == "SealedOrderRefused"]
    assert refused and refused[0]["rule"] == "FF 7", r.json
    for reader, sees in ((game.seats["Red"], False), ({}, False), (game.admin, False), (game.seats["Blue"], True)):
        for path in ("/events", "/export", "/history", "/frames"):
            got = c.get(url(game, path), headers=reader)
            if reader == {}:
                assert got.status_code == 404  # a private game
                continue
            assert got.status_code == 200, got.json
            if sees and path in ("/events", "/export"):  # the history and the frames never quote a reveal
                assert "BLUE-SECRET-PLAN" in got.get_data(as_text=True)
            elif not sees:
                assert "BLUE-SECRET-PLAN" not in got.get_data(as_text=True), path
    export = c.get(url(game, "/export"), headers=game.seats["Red"]).get_data(as_text=True).splitlines()
    report, _ = verify_text(export)
    assert report.ok, report.summary()


@pytest.mark.parametrize("order", [
    {"kind": "roll", "dice": "1d6", "purpose": "SECRET-PURPOSE", "private": True},
    {"kind": "vp", "side": "Blue", "delta": 1, "reason": "SECRET-REASON", "private": True},
    {"kind": "end", "winner": "Blue", "reason": "SECRET-REASON", "private": True},
    {"kind": "advance", "private": "yes"},
])
def test_private_on_an_order_that_is_not_a_note_is_refused_naming_ff_7(sqlite_client, order):
    """Only a note is private (FF 7). A private roll, VP change or end was accepted with its order
    concealed, as if private, while its outcome (the roll's purpose, the reason) went to every reader:
    the privacy asked for was silently not given. Now it is refused, recording nothing."""
    c = sqlite_client
    game = make_game(c)
    before = c.get(url(game), headers=game.admin).json["version"]
    r = game.order(c, "Blue", order, "o-1")
    assert r.status_code == 422 and r.json["code"] == "invalid_order", r.json
    assert r.json["rule"] == "FF 7" and r.json["field"] == "private", r.json
    assert c.get(url(game), headers=game.admin).json["version"] == before
    assert "SECRET" not in c.get(url(game, "/events"), headers=game.seats["Red"]).get_data(as_text=True)
    public = {k: v for k, v in order.items() if k != "private"}
    assert game.order(c, "Blue", {**public, "private": False}, "o-2").status_code == 201  # false: as without it
