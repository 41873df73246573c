"""The eleventh attack round: what the ten before missed. A webhook URL with an unclosed IPv6
bracket, and an invite link with one given to 'warlog join'; a server (a link's, or one that is not
warlog) that answers without end to the CLI; the VP track, read without limit though it goes
through every VP change of the game at each request; confirmation mails to one Gmail inbox under
its dotted spellings; the games list, which asked the store whether each game listed is public; one game's webhook at a
slow receiver, which held every other game's webhooks behind its deliveries."""

from __future__ import annotations

import uuid

import pytest

from api import client
from api.cli import main
from tests.api.conftest import make_game
from tests.api.test_rate_limits import app_with, prefix, refused  # noqa: F401  (fixtures)
from tests.workers.conftest import redis_url  # noqa: F401  (fixture)
from tests.api.test_client import bob  # noqa: F401  (fixture)


# ------------------------------------------- a webhook URL urllib cannot split is a 422 ----
@pytest.mark.parametrize("where", ["webhook", "notifications"])
@pytest.mark.parametrize("bad", ["http://[::1", "https://[::1/hook", "http://[example.com/"])
def test_a_webhook_url_with_an_unclosed_ipv6_bracket_is_422_not_a_500(sqlite_client, where, bad):
    """urlparse raises ValueError ("Invalid IPv6 URL") for an unclosed '[': the schema's URL check
    let it through as a 500, for the admin's game webhook and a seat's own alike."""
    game = make_game(sqlite_client)
    token, field = (game.admin, "url") if where == "webhook" else (game.seats["Blue"], "webhook_url")
    r = sqlite_client.put(f"/api/v1/games/{game.game_id}/{where}", json={field: bad}, headers=token)
    assert r.status_code == 422 and r.json["code"] == "invalid_request", r.get_data(as_text=True)
    assert field in r.json["errors"], r.json


@pytest.mark.parametrize("server", ["http://[::1", "http://[warlog.example.org"])
def test_an_invite_link_with_an_unclosed_ipv6_bracket_is_a_usage_error_not_a_traceback(bob, server):
    """README: 'warlog join LINK' reads the server from the link; one whose host opens a '[' it never
    closes (pasted cut short, or sent by someone) made urlsplit raise ValueError: a traceback."""
    code, out, err = bob("join", f"{server}/games/{uuid.uuid4()}#invite=wli_x", "--handle", "bob")
    assert code == 2 and "Traceback" not in err and server in err, err
    assert not bob.config.exists()


# ------------------------------------------ a server that answers without end to the CLI ----
GAME = "11111111-2222-3333-4444-555555555555"


def endless(status: str, content_type: str, first: bytes, chunk: bytes):
    """A stub server answering every request with ``first`` and then ``chunk`` for ever."""

    def app(environ, start_response):
        start_response(status, [("Content-Type", content_type)])

        def body():
            yield first
            while True:
                yield chunk

        return body()

    return app


@pytest.mark.parametrize("argv, stub", [
    (["show", GAME], endless("200 OK", "application/json", b'{"game_id": "', b"x" * 65536)),
    (["show", GAME], endless("404 Not Found", "application/problem+json", b'{"detail": "', b"x" * 65536)),
    (["watch", GAME], endless("200 OK", "text/event-stream", b"data: ", b"x" * 65536)),
    (["watch", GAME], endless("200 OK", "text/event-stream", b"", b"data: x\n" * 8192)),
    (["export", GAME, "-o", "{tmp}/game.jsonl"], endless("200 OK", "application/x-ndjson", b"{", b"x" * 65536)),
], ids=["json", "problem", "event-line", "event-lines", "export-line"])
def test_a_server_answering_without_end_is_read_only_so_far(serve_stub, tmp_path, monkeypatch, capsys, argv, stub):
    """README: the CLI plays against the server a link names, which may be anyone's. Its answer was
    read whole (an export line, a stream's event: up to its end), so a server that sends for ever
    filled the player's memory until the machine gave out. Past a bound far above any warlog answer
    the CLI stops reading and says so (here the bounds are made small, to be reached at once)."""
    monkeypatch.setattr(client, "MAX_ANSWER", 200_000)
    monkeypatch.setattr(client, "MAX_LINE", 200_000)
    monkeypatch.setattr(client, "MAX_PROBLEM", 200_000)
    url = serve_stub(stub)
    code = main([a.format(tmp=tmp_path) for a in argv] + ["--server", url, "--token", "wls_x"])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err, err
    if argv[0] == "show" and "404" not in err:
        assert "answered more than" in err, err


# --------------------------------------------------- the VP track is a read of the whole game ----
def test_the_vp_track_is_counted_with_the_reads_that_go_through_a_whole_game(app_with):  # noqa: F811
    """GET .../vp renders every VP change of the game at each request, as .../dice renders every
    roll: on a public game of 2,256 VP changes a live server took 0.25-0.35 s for each anonymous
    read of it (0.02 s for the dice audit, which is limited), and nothing limited it, so a few
    readers a second kept a two-worker server busy. It counts against WARLOG_LIMIT_READS now."""
    client = app_with(WARLOG_LIMIT_READS="2 per 60 second").test_client()
    game = make_game(client, public=True)
    vp = f"/api/v1/games/{game.game_id}/vp"
    assert [client.get(vp).status_code for _ in range(2)] == [200, 200]
    refused(client.get(vp), "too_many_reads", "WARLOG_LIMIT_READS", 60)
    assert client.get(f"/api/v1/games/{game.game_id}/dice").status_code == 429  # one count for them all
    assert client.get(f"/api/v1/games/{game.game_id}").status_code == 200  # the summary is not counted


# ------------------------------------------- one Gmail inbox is one address, dots or none ----
def test_the_confirmation_mails_to_one_gmail_inbox_are_counted_as_one_address(sqlite_client):
    """Gmail delivers j.smith@, jsmith@ and js.m.ith@gmail.com, and googlemail.com, to one inbox:
    the per-address limit (3 confirmation mails a day, docs/operations.md) counted each spelling
    apart, so whoever creates games (a seat token each) mailed a Gmail user 3 times per dotted
    spelling, 2**(n-1) of them for a local part of n letters."""
    c = sqlite_client
    spellings = ["j.smith@gmail.com", "js.mith@gmail.com", "jsmith@GoogleMail.com", "j.s.m.i.t.h@gmail.com"]
    answers = []
    for email in spellings:
        game = make_game(c)
        r = c.put(f"/api/v1/games/{game.game_id}/notifications", json={"email": email}, headers=game.seats["Red"])
        answers.append((r.status_code, r.json.get("code")))
    assert answers[:3] == [(200, None)] * 3, answers
    assert answers[3] == (429, "too_many_confirmations"), answers
    game = make_game(c)  # another inbox is its own, and dots count elsewhere
    for email in ("j.smith@example.org", "jsmith2@gmail.com"):
        r = c.put(f"/api/v1/games/{game.game_id}/notifications", json={"email": email}, headers=game.seats["Blue"])
        assert r.status_code == 200, r.json


# ------------------------------------------- the games list asks once which games are public ----
def test_the_games_list_asks_the_store_once_which_games_are_public_not_once_a_game(sqlite_client, monkeypatch):
    """GET /api/v1/games read the public games' ids, then asked the store again, one query for each
    game it listed, whether that game was public: 500 queries for one anonymous ?limit=500, a quarter
    of its time on a live server with 500 public games (0.22 s of 0.83 s, profiled)."""
    from domain.access import AccessStore

    for _ in range(5):
        make_game(sqlite_client, public=True)
    asked = []
    real = AccessStore.is_public
    monkeypatch.setattr(AccessStore, "is_public", lambda self, gid: asked.append(gid) or real(self, gid))
    r = sqlite_client.get("/api/v1/games?limit=500")
    assert r.status_code == 200 and len(r.json["games"]) == 5
    assert all(g["public"] for g in r.json["games"])
    assert asked == []
    private = make_game(sqlite_client)  # a token's own private game is listed, and said private
    r = sqlite_client.get("/api/v1/games?limit=500", headers=private.seats["Blue"])
    assert {g["game_id"]: g["public"] for g in r.json["games"]}[private.game_id] is False


# ------------------------------------------- one webhook's deliveries go out one at a time ----
def test_a_webhooks_deliveries_are_queued_one_at_a_time_so_a_slow_one_holds_up_only_its_own(app):
    """Every hand-over queued a delivery at once, and one worker sends them in turn, each up to 30 s
    at a receiver that answers a byte every 4 s. On a live server 20 orders of one game (0.7 s, a
    webhook of the game's and one of each seat's at such a receiver) queued 40 deliveries, and
    another game's webhook, to a receiver that answers at once, was still not delivered 3 minutes
    later: behind them and their retries (120 orders a minute a token may send: hours). Now a
    webhook has one delivery queued, being sent or waiting for a retry at a time; the next waits in
    the outbox, and the others' go out between them. On both stores: the outbox is SQL of its own."""
    from tests.conftest import new_freeform_game
    from tests.workers.test_notify import Harness
    from workers.dispatch import FAILED, SENT, WEBHOOK

    h = Harness(app, None)
    slow, other = new_freeform_game(h.app), new_freeform_game(h.app)
    h.dispatch()
    for gid in (slow, other):
        h.store.set_webhook(gid, f"https://hooks.example/{gid}", "whsec_" + "k" * 40)
    for _ in range(5):
        for seat in ("Blue", "Red"):
            h.order(slow, seat, {"kind": "advance"})
    h.order(other, "Blue", {"kind": "advance"})
    queued = [(r["game_id"], r["seq"]) for r in h.dispatch() if r["channel"] == WEBHOOK]
    assert [gid for gid, _ in queued].count(slow) == 1, queued  # not ten ahead of the other game's
    assert [gid for gid, _ in queued].count(other) == 1, queued
    first = next(seq for gid, seq in queued if gid == slow)
    assert h.dispatch() == []  # the rest wait while the first is queued
    h.store.claim(slow, first, WEBHOOK, "")
    h.store.finish(slow, first, WEBHOOK, "", FAILED, "WebhookFailed: timed out")  # its retry is to come
    assert h.dispatch() == []
    h.store.claim(slow, first, WEBHOOK, "")
    h.store.finish(slow, first, WEBHOOK, "", SENT)  # the retry got through: the next goes
    [row] = h.dispatch()
    assert (row["game_id"], row["channel"]) == (slow, WEBHOOK) and row["seq"] > first
