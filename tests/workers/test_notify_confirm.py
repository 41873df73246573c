"""An address gets no turn mail until its owner confirms it: one confirmation mail (a link with a
single-use secret that expires), a page that confirms only with a press of its button, rate
limits per address and per game, and a dispatcher that mails confirmed addresses only. Real
deliveries (aiosmtpd), the real API (Flask's test client), a real rq worker on a real Redis."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from domain.access import CONFIRM_PER_ADDRESS, CONFIRM_PER_SEAT, CONFIRM_TTL, AccessStore
from tests.workers.notify_helpers import confirm_address, smtp_server
from tests.workers.test_notify import PUBLIC, Harness
from workers import notify, notify_jobs
from workers.dispatch import CONFIRM, EMAIL, Dispatcher, NotifyStore, deliver_confirmation

NOTE = "Meet me at the old mill, bring the money"  # text of the attacker's choosing
LINK = re.compile(r"(https://warlog\.example/confirm-email\?code=(wlc_[A-Za-z0-9_-]+))")


@pytest.fixture
def mail():
    with smtp_server() as (box, port):
        yield box, notify.SmtpSettings(host="127.0.0.1", port=port, sender="warlog@example.org", timeout=5)


def _body(msg) -> str:
    return msg.get_payload(decode=True).decode()


def _game(c):
    from tests.api.conftest import make_game

    return make_game(c)


def _put(c, game, seat, **body):
    return c.put(f"/api/v1/games/{game.game_id}/notifications", json=body, headers=game.seats[seat])


def _confirmations(h: Harness) -> list[dict]:
    """Run the dispatcher; the confirmation rows it handed to the queue."""
    return [r for r in h.dispatch() if r["channel"] == CONFIRM]


def test_an_address_given_gets_one_confirmation_mail_and_no_turn_mail_until_confirmed(each_store_client, mail):
    box, smtp = mail
    c, service = each_store_client
    h = Harness(service, smtp)
    game = _game(c)
    h.dispatch()
    r = _put(c, game, "Red", email="victim@example.org")
    assert r.status_code == 200, r.json
    assert r.json["email"] == "victim@example.org" and r.json["email_confirmed"] is False
    assert r.json["confirmation_mail"] is True

    # Blue's hand-over with a note of Blue's choosing: Red's address is not confirmed, no turn mail
    h.order(game.game_id, "Blue", {"kind": "note", "text": NOTE})
    h.order(game.game_id, "Blue", {"kind": "advance"})
    rows = h.dispatch()
    assert [r for r in rows if r["channel"] == EMAIL] == []
    [asked] = [r for r in rows if r["channel"] == CONFIRM]
    assert h.dispatch() == []  # handed to the queue once

    assert deliver_confirmation(h.access, asked["request_id"], smtp=smtp, public_url=PUBLIC) == "sent"
    [msg] = box.to("victim@example.org")
    # nothing typed by whoever gave the address: no note, no handle, no seat, no game id
    for chosen in (NOTE, "red", "Red", "Blue", game.game_id, game.game_id[:8]):
        assert chosen not in _body(msg) and chosen not in msg["Subject"]
    [(link, code)] = LINK.findall(_body(msg))
    assert code not in str(AccessStore.for_service(service)._run(
        "SELECT * FROM {t}warlog_email_confirmations", fetch="all"))  # only its hash is kept
    # the same job run again (rq retried it after it sent): no second mail
    assert deliver_confirmation(h.access, asked["request_id"], smtp=smtp, public_url=PUBLIC).startswith("skipped")
    assert len(box.to("victim@example.org")) == 1

    # the link's page asks for a press of its button: opening it (a mail scanner) confirms nothing
    page = c.get(link.removeprefix(PUBLIC))
    assert page.status_code == 200 and 'method="post"' in page.get_data(as_text=True)
    assert code in page.get_data(as_text=True)
    assert c.get(f"/api/v1/games/{game.game_id}/notifications", headers=game.seats["Red"]).json[
        "email_confirmed"] is False
    done = c.post("/confirm-email", data={"code": code})
    assert done.status_code == 200 and "Confirmed" in done.get_data(as_text=True)
    assert c.get(f"/api/v1/games/{game.game_id}/notifications", headers=game.seats["Red"]).json[
        "email_confirmed"] is True

    # from now on Red's turn mails go to it
    h.order(game.game_id, "Red", {"kind": "advance"})
    h.dispatch()
    row = h.hand_over(game.game_id, "Blue")
    assert (row["channel"], row["seat"]) == (EMAIL, "Red")
    assert h.deliver(row) == "sent" and len(box.to("victim@example.org")) == 2


def test_a_confirmation_code_works_once_and_expires(client):
    c, service = client
    game = _game(c)
    access = AccessStore.for_service(service)
    _put(c, game, "Red", email="red@example.org")
    [asked] = access.confirmations_to_queue()
    _, code = access.confirmation_to_send(asked["request_id"])
    url = "/api/v1/email-confirmations"
    r = c.post(url, json={"code": code})
    assert r.status_code == 200 and r.json == {"game_id": game.game_id, "seat": "Red", "confirmed": True}
    again = c.post(url, json={"code": code})
    assert again.status_code == 409 and again.json["code"] == "confirmation_used"
    assert c.post(url, json={"code": "wlc_" + "x" * 43}).json["code"] == "not_found"
    assert c.post(url, json={"code": ""}).status_code == 422
    assert c.post("/confirm-email", data={"code": code}).status_code == 409  # the page says so too

    # Blue's code, used after it expired
    _put(c, game, "Blue", email="blue@example.org")
    [asked] = access.confirmations_to_queue()
    _, code = access.confirmation_to_send(asked["request_id"], now=datetime.now(timezone.utc) - CONFIRM_TTL)
    late = c.post(url, json={"code": code})
    assert late.status_code == 410 and late.json["code"] == "confirmation_expired"
    assert access.contacts(game.game_id)["Blue"]["confirmed"] is False


def test_confirmation_mails_are_limited_per_address_and_per_seat(client):
    c, service = client
    access = AccessStore.for_service(service)
    game = _game(c)
    for _ in range(CONFIRM_PER_ADDRESS):  # given, then given again: a mail each time
        assert _put(c, game, "Red", email="victim@example.org").json["confirmation_mail"] is True
    # beyond the limit, the seat's own address given again (a settings form saved) saves the rest, no mail
    r = _put(c, game, "Red", email="victim@example.org", digest=True)
    assert r.status_code == 200 and r.json["confirmation_mail"] is False and r.json["digest"] is True
    assert len(access.confirmations_to_queue()) == CONFIRM_PER_ADDRESS
    # a new address beyond the limit is refused, and nothing changes
    r = _put(c, game, "Blue", email="victim@example.org", notify=False)
    assert r.status_code == 429 and r.json["code"] == "too_many_confirmations"
    assert 0 < int(r.headers["Retry-After"]) <= 24 * 3600
    assert "Blue" not in access.contacts(game.game_id)
    # the limit is the address's, over every game
    other = _game(c)
    assert _put(c, other, "Blue", email="Victim@Example.org").status_code == 429

    # per seat: one seat may ask for at most CONFIRM_PER_SEAT, whatever the addresses, and does not use
    # up another seat's (per game, an opponent could have kept Blue's address from being confirmed)
    third = _game(c)
    for i in range(CONFIRM_PER_SEAT):
        assert _put(c, third, "Red", email=f"r{i}@example.org").status_code == 200
    r = _put(c, third, "Red", email="one-more@example.org")
    assert r.status_code == 429 and "this seat" in r.json["detail"]
    assert access.contacts(third.game_id)["Red"]["email"] != "one-more@example.org"
    assert _put(c, third, "Blue", email="blue@example.org").json["confirmation_mail"] is True


def test_an_address_confirmed_is_not_asked_again_and_a_new_one_is(client):
    c, service = client
    access = AccessStore.for_service(service)
    game = _game(c)
    confirm_address(access, game.game_id, "Red", "red@example.org")
    r = _put(c, game, "Red", email="red@example.org", digest=True)
    assert r.json["confirmation_mail"] is False and r.json["email_confirmed"] is True
    r = _put(c, game, "Red", email="elsewhere@example.org")
    assert r.json["confirmation_mail"] is True and r.json["email_confirmed"] is False


def test_an_address_changed_after_the_turn_mail_was_decided_gets_nothing(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    from tests.conftest import new_freeform_game

    gid = new_freeform_game(sqlite_app)
    confirm_address(h.access, gid, "Red", "red@example.org")
    h.dispatch()
    row = h.hand_over(gid, "Blue")
    h.access.set_contact(gid, "Red", "victim@example.org")  # not confirmed
    assert h.deliver(row) == "skipped: the seat's address is not confirmed"
    assert box.messages == []


def test_a_confirmation_for_an_address_the_seat_replaced_is_not_sent(sqlite_app, mail):
    box, smtp = mail
    access = AccessStore.for_service(sqlite_app)
    from tests.conftest import new_freeform_game

    gid = new_freeform_game(sqlite_app)
    access.set_contact(gid, "Red", "first@example.org")
    first = access.request_confirmation(gid, "Red", "first@example.org")
    access.set_contact(gid, "Red", "second@example.org")
    assert deliver_confirmation(access, first, smtp=smtp, public_url=PUBLIC).startswith("skipped")
    assert box.messages == []


def test_a_join_with_an_email_asks_for_its_confirmation(client):
    c, service = client
    r = c.post("/api/v1/games", json={"ruleset": "freeform", "options": {"sides": ["Blue", "Red"]}})
    gid, invites = r.json["game_id"], r.json["invites"]
    j = c.post(f"/api/v1/games/{gid}/join", json={"invite_code": invites["Red"], "handle": "red",
                                                   "email": "red@example.org"})
    assert j.status_code == 201 and j.json["confirmation_mail"] is True
    access = AccessStore.for_service(service)
    assert access.contacts(gid)["Red"] == {"email": "red@example.org", "notify": True, "confirmed": False}
    assert len(access.confirmations_to_queue()) == 1
    j = c.post(f"/api/v1/games/{gid}/join", json={"invite_code": invites["Blue"], "handle": "blue"})
    assert j.json["confirmation_mail"] is False


@pytest.mark.slow
def test_a_real_worker_sends_the_confirmation_mail_and_turn_mails_wait_for_it(tmp_path, redis_url, rq_env):
    from api.app import migrate
    from domain.service import Warlog
    from domain.storage import config_from_env
    from tests.conftest import new_freeform_game
    from tests.workers.test_notify_rq import run_worker

    config = config_from_env({"WARLOG_DATA_DIR": str(tmp_path / "data")})
    migrate(config)
    app = Warlog(config)
    try:
        gid = new_freeform_game(app)
        dispatcher = Dispatcher(app, notify_jobs.enqueuer(rq_env.conn, rq_env.queue, intervals=[0],
                                                          webhook_queue=rq_env.queue))
        dispatcher.run_batch()
        access = AccessStore.for_service(app)
        access.set_contact(gid, "Red", "red@example.org")
        access.request_confirmation(gid, "Red", "red@example.org")
        with smtp_server() as (box, port):
            app.submit_order(gid, "Blue", "a1", {"kind": "advance"})
            dispatcher.run_batch()
            dispatcher.run_batch()  # nothing new
            done = run_worker(tmp_path, redis_url, rq_env.queue, WARLOG_SMTP_HOST="127.0.0.1",
                              WARLOG_SMTP_PORT=str(port), WARLOG_SMTP_FROM="warlog@example.org")
            assert done.returncode == 0, done.stderr[-3000:]
            [msg] = box.to("red@example.org")  # the confirmation, not the turn mail
            assert "Confirm this address" in msg["Subject"]
            [(_, code)] = LINK.findall(_body(msg))
            assert code not in done.stdout + done.stderr
            assert NotifyStore.for_service(app).deliveries(gid) == []

            assert access.confirm(code)[0] == "confirmed"
            app.submit_order(gid, "Red", "a2", {"kind": "advance"})
            app.submit_order(gid, "Blue", "a3", {"kind": "advance"})
            dispatcher.run_batch()
            done = run_worker(tmp_path, redis_url, rq_env.queue, WARLOG_SMTP_HOST="127.0.0.1",
                              WARLOG_SMTP_PORT=str(port), WARLOG_SMTP_FROM="warlog@example.org")
            assert done.returncode == 0, done.stderr[-3000:]
            turn = box.to("red@example.org")[-1]
            assert len(box.to("red@example.org")) == 2 and "Confirm" not in turn["Subject"]
    finally:
        app.close()
