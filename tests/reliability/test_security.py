"""Security on a live server, for every endpoint the API table (api/openapi.py OPERATIONS) lists,
so a new endpoint is covered the day it is added:

- a seat acts only as itself: whatever another seat's name it puts in a body or query, what is
  recorded or changed is its own seat's; it cannot do what only the admin may;
- a seat never reads another seat's hidden information (FF 7 private notes), through any read:
  state (now and at every past seq), history, events (every page), export, the stream, the dice,
  the VP track, take-backs, integrity, legal orders, the replay frames; nor the note's digest and
  salt; not even once the note was taken back. Spectators and the admin neither; the author and
  umpires do see it (so the reads looked in the right place);
- an umpire writes nothing: every write endpoint answers 403 forbidden and nothing changes;
- an umpire exists only by the seats' agreement: the admin token alone gets no umpire token, and
  a revoked umpire token reads nothing more, on a server of several processes;
- no token, invite code or admin token appears in the server's log, even one a client put in a
  query string.
(No response holding an unrevealed seed is checked for the whole session: tests/reliability/seeds.py.)
"""

from __future__ import annotations

import re
import uuid

import pytest

from api.openapi import ADMIN, OPERATIONS, OWN, SEAT, SEAT_OR_UMPIRE
from tests.e2e.server import live_server
from tests.reliability.client import Game, Http, assert_no_secret_in_log

# Every read of one game; the jobs' downloads are 404 until a worker made them (test_jobs_api).
# The admin's listing of umpire tokens is no read of the game: it holds no game data, and only the
# admin may call it (test_umpire_tokens_...).
READS = sorted((path, op.auth) for (method, path), op in OPERATIONS.items()
               if method == "get" and path.startswith("/api/v1/games/{game_id}") and op.tag != "jobs"
               and op.auth != ADMIN)
WRITES = sorted((method, path, op.auth) for (method, path), op in OPERATIONS.items()
                if method != "get" and op.auth in (SEAT, ADMIN) and "{game_id}" in path)
ROLL = {"kind": "roll", "dice": "2d6", "purpose": "scouting"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("security"), WEB_CONCURRENCY="2",
                     WARLOG_STREAM_HEARTBEAT_SECONDS="1", WARLOG_STREAM_MAX_SECONDS="1",
                     WARLOG_WEBHOOK_ALLOW="127.0.0.1:9") as url:  # the webhook set below (nothing delivers it)
        yield url, Http(url)


def path_of(template: str, game: Game) -> str:
    return template.replace("{game_id}", game.id)


def secret_text() -> str:
    return f"secret-{uuid.uuid4().hex}: the reserve waits behind the hill"


def test_the_table_lists_the_endpoints_these_tests_walk():
    reads = [path for path, _ in READS]
    assert "/api/v1/games/{game_id}/state" in reads and "/api/v1/games/{game_id}/events/stream" in reads
    assert "/api/v1/games/{game_id}/legal-orders" in reads
    assert ("post", "/api/v1/games/{game_id}/orders", SEAT) in WRITES
    assert ("put", "/api/v1/games/{game_id}/webhook", ADMIN) in WRITES


# ------------------------------------------------------------------------ hidden information ----
def test_no_read_shows_a_private_note_to_anyone_but_its_author_and_umpires(server):
    url, http = server
    game = Game(http, public=True, phases=["Move", "Fight"])
    game.order("Blue", ROLL)
    kept = secret_text()
    game.order("Blue", {"kind": "note", "text": kept, "private": True, "fields": {"plan": kept}})
    game.order("Red", {"kind": "advance"})
    taken_back = secret_text()  # a private note, then taken back: it stays in the log
    game.order("Blue", {"kind": "note", "text": taken_back, "private": True})
    assert http.call("POST", game.path("/take-backs"), {"reason": "oops"}, token=game.tokens["Blue"]).status == 201
    assert http.call("POST", game.path("/take-backs/answer"), {"accept": True}, token=game.tokens["Red"]).status == 200
    game.order("Red", {"kind": "note", "text": "Red's open note"})
    exact = game.export()
    version = exact[-1]["seq"]
    hidden = [kept, taken_back]
    hashes = [v for line in exact if line["type"] == "OrderAccepted" and line["data"]["order"].get("private")
              for v in (line["data"]["digest"], line["data"]["salt"])]
    assert len(hashes) == 4

    def reads(token: str | None, seat: bool = False) -> dict[str, bytes]:
        seen = {}
        for template, auth in READS:
            if auth in (SEAT, SEAT_OR_UMPIRE) and not seat:  # the admin and a spectator get 403 there
                continue
            if auth == OWN and token is None:  # a visitor with no token has no role to ask about (401)
                continue
            reply = http.call("GET", path_of(template, game), token=token, timeout=30)
            assert reply.status == 200, (template, reply.raw)
            seen[template] = reply.raw
        for at in range(1, version + 1):
            seen[f"state?at={at}"] = http.call("GET", game.path(f"/state?at={at}"), token=token).raw
        after = 0
        while after is not None:  # every page of one event
            page = http.call("GET", game.path(f"/events?after={after}&limit=1"), token=token)
            seen[f"events?after={after}"] = page.raw
            after = page.body["next_after"]
        return seen

    for who, token in (("the other seat", game.tokens["Red"]), ("the admin", game.admin), ("a spectator", None)):
        for name, raw in reads(token, seat=who == "the other seat").items():
            for text in hidden:
                assert text.split(":")[0].encode() not in raw, (who, name)
            for value in hashes:
                assert value.encode() not in raw, (who, name, "the digest or salt of a hidden order")
    for who, token in (("the author", game.tokens["Blue"]), ("an umpire", game.umpire)):
        seen = reads(token, seat=who == "the author")
        for name in ("/api/v1/games/{game_id}/events", "/api/v1/games/{game_id}/export",
                     "/api/v1/games/{game_id}/history", "/api/v1/games/{game_id}/events/stream"):
            assert all(text.split(":")[0].encode() in seen[name] for text in hidden), (who, name)
    assert_no_secret_in_log(http, url.log())


# ------------------------------------------------------------------------ acting as a seat ----
def test_a_seat_acts_only_as_itself_whatever_it_names(server):
    url, http = server
    game = Game(http)
    red, blue = game.tokens["Red"], game.tokens["Blue"]
    game.order("Blue", ROLL, "blue-1")
    as_blue = "?seat=Blue&as=Blue"

    # A body naming a seat is refused: a roll has no field "seat" (FF 3), nor "side".
    named = http.call("POST", game.path("/orders"), {**ROLL, "seat": "Blue", "side": "Blue"}, token=red,
                      headers={"Idempotency-Key": "red-0"})
    assert named.status == 422 and named.body["field"] == "seat", named.raw
    order = http.call("POST", game.path("/orders" + as_blue), ROLL, token=red, headers={"Idempotency-Key": "red-1"})
    assert order.status == 201 and {e["data"]["seat"] for e in order.body["events"]} == {"Red"}
    # Red's order id is Red's: Blue sending it is refused, not a replay of Red's result.
    replay = http.call("POST", game.path("/orders"), ROLL, token=blue, headers={"Idempotency-Key": "red-1"})
    assert replay.status == 422 and replay.body["code"] == "idempotency_conflict", replay.raw

    seed = http.call("PUT", game.path("/client-seed" + as_blue), {"client_seed": "mine"}, token=red)
    assert seed.status == 200 and [e["data"]["seat"] for e in seed.body["events"]] == ["Red"], seed.raw
    assert http.call("PUT", game.path("/client-seed"), {"client_seed": "x", "seat": "Blue"}, token=red).status == 422

    mail = http.call("PUT", game.path("/notifications" + as_blue), {"email": "red@example.org", "notify": True},
                     token=red)
    assert mail.status == 200 and mail.body["seat"] == "Red", mail.raw
    blue_mail = http.call("PUT", game.path("/notifications"), {"notify": False}, token=blue)
    assert blue_mail.body["seat"] == "Blue" and blue_mail.body["email"] is None  # Red's address is not Blue's
    assert "red@example.org" not in http.call("GET", game.path(), token=blue).raw.decode()

    # Red asks to take back ITS last order (named from the token), and cannot answer itself.
    asked = http.call("POST", game.path("/take-backs" + as_blue), {"reason": "mine"}, token=red)
    assert asked.status == 201 and asked.body["events"][0]["data"]["seat"] == "Red", asked.raw
    assert asked.body["events"][0]["data"]["order_id"] == "red-1"
    answer = http.call("POST", game.path("/take-backs/answer" + as_blue), {"accept": True}, token=red)
    assert answer.status == 422 and answer.body["rule"] == "FF 6", answer.raw
    assert http.call("POST", game.path("/take-backs/answer"), {"accept": False}, token=blue).status == 200

    # What only the admin may do, a seat may not.
    for method, template, auth in WRITES:
        if auth == ADMIN:
            reply = http.call(method.upper(), path_of(template, game), {"url": None}, token=red)
            assert reply.status == 403 and reply.body["code"] == "forbidden", (template, reply.raw)

    conceded = http.call("POST", game.path("/concede" + as_blue), token=red)
    assert conceded.status == 200 and conceded.body["events"][0]["data"]["seat"] == "Red", conceded.raw
    assert game.summary()["ended"]["winner"] == "Blue"
    assert_no_secret_in_log(http, url.log())


# ------------------------------------------------------------------------------- umpires ----
def test_an_umpire_token_cannot_write_through_any_write_endpoint(server):
    url, http = server
    game = Game(http)
    game.order("Blue", ROLL)
    assert http.call("PUT", game.path("/notifications"), {"email": "blue@example.org", "notify": True},
                     token=game.tokens["Blue"]).status == 200
    hook = http.call("PUT", game.path("/webhook"), {"url": "http://127.0.0.1:9/hook"}, token=game.admin)
    assert hook.status == 200
    umpire = game.umpire
    before = game.summary()
    bodies = {"/orders": {"kind": "note", "text": "the umpire speaks"}, "/client-seed": {"client_seed": "u"},
              "/notifications": {"email": "umpire@example.org", "notify": True}, "/take-backs": {"reason": "u"},
              "/take-backs/answer": {"accept": True}, "/webhook": {"url": "http://127.0.0.1:9/umpire"},
              "/umpire": {"umpire": "the umpire itself"}, "/umpire/answer": {"accept": False}}
    tried = []
    for method, template, auth in WRITES:
        suffix = template.split("{game_id}", 1)[1]
        reply = http.call(method.upper(), path_of(template, game), bodies.get(suffix), token=umpire,
                          headers={"Idempotency-Key": f"umpire-{len(tried)}"})
        assert reply.status == 403 and reply.body["code"] == "forbidden", (method, template, reply.raw)
        tried.append(template)
    assert len(tried) == len(WRITES) >= 8
    after = game.summary()
    assert (after["version"], after["chain_head"]) == (before["version"], before["chain_head"])
    # Settings outside the log were not changed either: Blue's address, the webhook.
    mine = http.call("PUT", game.path("/notifications"), {"notify": True}, token=game.tokens["Blue"])
    assert mine.body["email"] == "blue@example.org", mine.raw
    assert_no_secret_in_log(http, url.log())


def test_the_admin_alone_gets_no_umpire_token_and_a_revoked_one_reads_nothing_in_any_process(server):
    url, http = server
    game = Game(http)
    kept = secret_text()
    game.order("Blue", {"kind": "note", "text": kept, "private": True})
    refused = http.call("POST", game.path("/umpire-tokens"), token=game.admin)
    assert refused.status == 422 and refused.body["rule"] == "umpire", refused.raw
    umpire = game.umpire  # the seats agree, then the admin issues it
    assert kept.encode() in http.call("GET", game.path("/events"), token=umpire).raw
    # Several web processes (WEB_CONCURRENCY=2): each one, having served the token, refuses it
    # as soon as it is revoked. New connections spread over the processes.
    for _ in range(6):
        assert http.call("GET", game.path(), token=umpire).status == 200
    listed = http.call("GET", game.path("/umpire-tokens"), token=game.admin).body["tokens"]
    revoked = http.call("DELETE", game.path(f"/umpire-tokens/{listed[0]['token_id']}"), token=game.admin)
    assert revoked.status == 200, revoked.raw
    for _ in range(6):
        reply = http.call("GET", game.path("/events"), token=umpire)
        assert reply.status == 401 and kept.encode() not in reply.raw, reply.raw
    assert_no_secret_in_log(http, url.log())


def test_a_revoked_spectator_token_reads_and_annotates_nothing_in_any_process(server):
    url, http = server
    game = Game(http)  # private: the spectator token is its only way in
    issued = http.call("POST", game.path("/spectator-tokens"), {"name": "Sam"}, token=game.admin)
    assert issued.status == 201, issued.raw
    sam = issued.body["token"]
    assert http.call("POST", game.path("/concede"), token=game.tokens["Red"]).status == 200
    for _ in range(6):  # new connections spread over the web processes (WEB_CONCURRENCY=2)
        assert http.call("GET", game.path("/history"), token=sam).status == 200
    revoked = http.call("DELETE", game.path(f"/spectator-tokens/{issued.body['token_id']}"), token=game.admin)
    assert revoked.status == 200 and revoked.body["revoked_at"], revoked.raw
    for i in range(6):
        assert http.call("GET", game.path("/history"), token=sam).status == 401
        note = http.call("POST", game.path("/annotations"), {"about_seq": 1, "text": "still here"}, token=sam,
                         headers={"Idempotency-Key": f"sam-{i}"})
        assert note.status == 401, note.raw
    assert sam.encode() not in http.call("GET", game.path("/spectator-tokens"), token=game.admin).raw
    assert_no_secret_in_log(http, url.log())


# ---------------------------------------------------------------------------------- logs ----
def test_no_token_reaches_the_server_log_even_from_a_query_string(server):
    url, http = server
    game = Game(http)
    game.umpire  # noqa: B018  (issues one, noted as a secret)
    token = game.tokens["Blue"]
    for reply in (http.call("GET", game.path(f"/state?access_token={token}"), token=token),
                  http.call("GET", game.path(f"/events?token={token}&after=0")),
                  http.call("GET", f"/api/v1/no-such-endpoint?token={token}"),
                  http.call("GET", game.path(), headers={"Authorization": f"Bearer {token}x"}),
                  http.call("GET", game.path(), headers={"Authorization": f"Basic {token}"})):
        assert reply.status in (200, 401, 404, 422), reply.raw
    log = url.wait_for_log("/api/v1/no-such-endpoint")
    assert re.search(rf'"GET /api/v1/games/{game.id}/state HTTP/1.1" \d{{3}}', log)  # the right log
    assert_no_secret_in_log(http, log)
    assert token[:12] not in log
