"""Turn notifications: the pure deciding and building, then real deliveries to a real SMTP
server (aiosmtpd) and a real HTTP receiver that checks the signature; idempotency per
(game, seq, seat), the opt-out, and FF 7 private notes kept out of the opponent's mail."""

from __future__ import annotations

import base64
import ipaddress
import json
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook, WebhookVerificationError

from domain.access import AccessStore
from api.app import migrate
from domain.rulesets import find_ruleset
from domain.service import Warlog
from tests.conftest import new_freeform_game
from tests.workers.notify_helpers import confirm_address, smtp_server, webhook_receiver
from workers import notify, webhook_target
from workers.dispatch import EMAIL, FAILED, SENT, STALE_CLAIM, WEBHOOK, Dispatcher, NotifyStore, deliver

SECRET_TEXT = "the 3rd Bde crosses at dawn"
PUBLIC = "https://warlog.example"


def line(seq, type_, **data):
    return {"game_id": "g", "seq": seq, "type": type_, "timestamp": "2026-01-01T00:00:00+00:00", "data": data,
            "prev_hash": "p", "hash": f"h{seq}"}


# ================================================================================== pure ====
def test_commands_split_at_each_command_head():
    lines = [line(1, "GameCreated", ruleset="freeform", scenario="x", seats=["A", "B"]),
             line(2, "SeatJoined", seat="A", handle="a"), line(3, "SeatJoined", seat="B", handle="b"),
             line(4, "DiceEpochOpened", epoch=0, commitment="c" * 64),
             line(5, "OrderAccepted", seat="A", order={"kind": "advance"}),
             line(6, "PhaseAdvanced", turn=1, phase="Fight")]
    found = notify.commands(lines)
    assert [(c.first, c.last, c.seat) for c in found] == [(1, 1, None), (2, 2, "A"), (3, 4, "B"), (5, 6, "A")]


def test_recipients_new_to_move_decisions_and_hand_overs():
    order = notify.Command(5, 6, "A", (line(5, "OrderAccepted", seat="A", order={"kind": "move"}),))
    # sequenced: B becomes the mover
    assert notify.recipients(order, ["A", "B"], ["A"], ["B"]) == {"B": "your_move"}
    # still A's move: nobody
    assert notify.recipients(order, ["A", "B"], ["A"], ["A"]) == {}
    # a decision waits for B
    pending = notify.Command(5, 6, "A", (line(5, "OrderAccepted", seat="A", order={}),
                                          line(6, "DecisionPending", decision={"seat": "B", "id": 1})))
    assert notify.recipients(pending, ["A", "B"], ["A"], ["B"]) == {"B": "decision"}
    # unsequenced (every seat may act): only an advance hands over, to the others
    note = notify.Command(5, 5, "A", (line(5, "OrderAccepted", seat="A", order={"kind": "note"}),))
    advance = notify.Command(5, 6, "A", (line(5, "OrderAccepted", seat="A", order={"kind": "advance"}),
                                          line(6, "PhaseAdvanced", turn=1, phase="Fight")))
    assert notify.recipients(note, ["A", "B"], ["A", "B"], ["A", "B"]) == {}
    assert notify.recipients(advance, ["A", "B", "C"], ["A", "B", "C"], ["A", "B", "C"]) == \
        {"B": "hand_over", "C": "hand_over"}
    # the game starts when the last seat joins: everyone to move is told
    join = notify.Command(3, 4, "B", (line(3, "SeatJoined", seat="B", handle="b"),))
    assert notify.recipients(join, ["A", "B"], [], ["A", "B"]) == {"A": "your_move", "B": "your_move"}


def test_a_decision_a_standing_order_answered_in_the_same_order_is_not_mailed():
    answered = notify.Command(5, 8, "A", (
        line(5, "OrderAccepted", seat="A", order={"kind": "advance"}),
        line(6, "DecisionPending", decision={"seat": "B", "id": "fire-1"}),
        line(7, "StandingOrderUsed", seat="B", decision_id="fire-1", choice="fire"),
        line(8, "DecisionResolved", decision_id="fire-1", seat="B", choice="fire")))
    assert notify.recipients(answered, ["A", "B"], ["A", "B"], ["A", "B"]) == {}
    asked = notify.Command(5, 6, "A", answered.lines[:2])
    assert notify.recipients(asked, ["A", "B"], ["A", "B"], ["B"]) == {"B": "decision"}


def test_recipients_of_a_take_back_request_and_of_the_end():
    request = notify.Command(7, 7, "A", (line(7, "TakeBackRequested", seat="A", order_id="o"),))
    assert notify.recipients(request, ["A", "B"], ["A", "B"], ["B"]) == {}  # B could already act
    assert notify.recipients(request, ["A", "B"], ["A"], ["B"]) == {"B": "take_back"}
    end = notify.Command(8, 9, "A", (line(8, "OrderAccepted", seat="A", order={"kind": "end"}),
                                      line(9, "GameEnded", winner="A", reason="r")))
    assert notify.recipients(end, ["A", "B", "C"], ["A", "B", "C"], []) == {"B": "game_over", "C": "game_over"}


def test_since_last_acted_starts_after_the_seats_own_last_command():
    lines = [line(5, "OrderAccepted", seat="B", order={}), line(6, "DiceRolled"),
             line(7, "OrderAccepted", seat="A", order={}), line(8, "PhaseAdvanced")]
    assert [x["seq"] for x in notify.since_last_acted(lines, "B")] == [7, 8]
    assert [x["seq"] for x in notify.since_last_acted(lines, "C")] == [5, 6, 7, 8]
    assert [x["seq"] for x in notify.since_last_acted(lines, "C", after=6)] == [7, 8]


def test_the_builder_filters_for_the_reader_before_describing():
    rules = find_ruleset("freeform")
    lines = [line(5, "OrderAccepted", seat="Blue", order_id="o1", digest="d", salt="s",
                  order={"kind": "note", "text": SECRET_TEXT, "private": True}),
             line(6, "OrderAccepted", seat="Blue", order_id="o2", digest="d", salt="s",
                  order={"kind": "roll", "dice": "2d6", "purpose": "artillery"}),
             line(7, "DiceRolled", seat="Blue", epoch=0, dice=[{"nonce": 0, "sides": 6, "value": 4},
                                                               {"nonce": 1, "sides": 6, "value": 2}],
                  notation="2d6", purpose="artillery", rule=None, units=[], target=None, outcome=None,
                  replaces=None)]
    for viewer in ("Red", None):
        summary = notify.build_summary(rules, "g-1", lines, viewer=viewer, reason="hand_over", to_move=["Red"],
                                       chain_head="h7", seq=7, public_url=PUBLIC + "/", turn=1, phase="Fight")
        subject, body = notify.email_text(summary, "red")
        assert SECRET_TEXT not in body
        for fmt in notify.FORMATS:
            assert SECRET_TEXT not in notify.webhook_body(summary, fmt, "Freeform g-1").decode()
        assert "Blue gives an order (hidden)" in body
        assert "#7 Blue rolled 2d6 for artillery: 4, 2" in body
        assert summary.dice == [{"seq": 7, "text": "Blue rolled 2d6 for artillery: 4, 2"}]
        assert "h7" in body and f"{PUBLIC}/api/v1/games/g-1" in body
        assert "turn 1, Fight" in subject
    mine = notify.build_summary(rules, "g-1", lines, viewer="Blue", reason="x", to_move=[], chain_head="h7",
                                seq=7, public_url=PUBLIC)
    assert SECRET_TEXT in notify.email_text(mine)[1]


def test_deliveries_are_signed_as_standard_webhooks_and_the_library_verifies_them():
    secret, body = notify.new_secret(), '{"a":"é"}'.encode()
    headers = notify.signed_headers(secret, "g:7:webhook:", body)
    assert headers["webhook-id"] == "g:7:webhook:" and headers["webhook-signature"].startswith("v1,")
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 5
    assert Webhook(secret).verify(body, headers) == {"a": "é"}
    for bad in ({**headers, "webhook-id": "g:8:webhook:"},  # another delivery's id
                {**headers, "webhook-timestamp": str(int(headers["webhook-timestamp"]) + 1)}):  # replayed ts
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(body, bad)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(b'{"a":2}', headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(notify.new_secret()).verify(body, headers)
    old = notify.signed_headers(secret, "g:7:webhook:", body, now=time.time() - 3600)
    with pytest.raises(WebhookVerificationError, match="too old"):
        Webhook(secret).verify(body, old)


@pytest.mark.parametrize("secret, problem", [
    ("whsec_" + "k" * 40, None),  # 30 bytes
    ("whsec_" + base64.b64encode(b"x" * 24).decode().rstrip("="), None),  # unpadded is fine
    ("k" * 40, "starts with 'whsec_'"),
    ("whsec_" + "k-" * 20, "standard base64"),  # urlsafe base64 is not the spec's
    ("whsec_" + base64.b64encode(b"x" * 16).decode(), "24 to 64 bytes"),
    ("whsec_" + base64.b64encode(b"x" * 65).decode(), "24 to 64 bytes"),
])
def test_a_secret_is_whsec_and_the_base64_of_24_to_64_bytes(secret, problem):
    found = notify.secret_problem(secret)
    assert (found is None) if problem is None else (problem in found)
    assert notify.secret_problem(notify.new_secret()) is None


def _summary(reason="your_move", events=3, text="Blue moves"):
    lines = [line(i, "OrderAccepted", seat="Blue", order_id=f"o{i}", digest="d", salt="s",
                  order={"kind": "note", "text": f"{text} {i}"}) for i in range(5, 5 + events)]
    return notify.build_summary(find_ruleset("freeform"), "0123456789abcdef", lines, viewer=None, reason=reason,
                                to_move=["Red"], chain_head="h", seq=4 + events, public_url=PUBLIC, turn=2,
                                phase="Orders")


def test_the_chat_presets_name_the_game_the_seat_to_move_and_link_the_replay_and_the_game_page():
    rules = find_ruleset("freeform")
    name = notify.game_name(rules, "0123456789abcdef")
    assert name == "Freeform 01234567"
    page = f"{PUBLIC}/games/0123456789abcdef"
    discord = json.loads(notify.webhook_body(_summary(), "discord", name))
    slack = json.loads(notify.webhook_body(_summary(), "slack", name))
    assert set(discord) == {"content", "allowed_mentions"} and discord["allowed_mentions"] == {"parse": []}
    assert set(slack) == {"text"}
    for text in (discord["content"], slack["text"]):
        first, *middle, replay, last = text.split("\n")
        assert first == "Freeform 01234567 (turn 2, Orders): Red to move."
        assert middle == [f"#{e['seq']} {e['text']}" for e in _summary().events]
        assert replay == f"Replay from the last order: {page}/replay?from=0"  # the summary's start: event 0
        assert [m.split()[0] for m in middle] == ["#5", "#6", "#7"] and "Blue moves 7" in middle[-1]
        assert last == page
    over = json.loads(notify.webhook_body(_summary("game_over,your_move"), "discord", name))["content"]
    assert over.startswith("Freeform 01234567 (turn 2, Orders): the game is over.")
    own = json.loads(notify.webhook_body(_summary(), "warlog", name))
    assert own["event"] == "turn" and own["game_id"] == "0123456789abcdef" and own["to_move"] == ["Red"]
    with pytest.raises(ValueError, match="unknown webhook format"):
        notify.webhook_body(_summary(), "teams", name)


def test_a_chat_message_fits_its_limit_dropping_the_oldest_events_and_slack_text_is_escaped():
    long = json.loads(notify.webhook_body(_summary(events=40, text="x" * 150), "discord", "G"))["content"]
    assert len(long) <= 2000 and long.endswith(f"{PUBLIC}/games/0123456789abcdef")
    assert "#44 " in long and "#5 " not in long  # the latest kept, the oldest dropped
    sly = json.loads(notify.webhook_body(_summary(text="<!channel> & <@U1>"), "slack", "G"))["text"]
    assert "<!channel>" not in sly and "&lt;!channel&gt; &amp; &lt;@U1&gt;" in sly


def test_smtp_settings_from_the_environment_never_show_the_password():
    assert notify.SmtpSettings.from_env({}) is None
    s = notify.SmtpSettings.from_env({"WARLOG_SMTP_HOST": "mail", "WARLOG_SMTP_PORT": "587",
                                      "WARLOG_SMTP_USER": "u", "WARLOG_SMTP_PASSWORD": "hunter2",
                                      "WARLOG_SMTP_STARTTLS": "true", "WARLOG_SMTP_FROM": "w@example.org"})
    assert (s.host, s.port, s.user, s.starttls, s.sender) == ("mail", 587, "u", True, "w@example.org")
    assert "hunter2" not in repr(s) and "hunter2" not in str(s)


# ======================================================================= real deliveries ====
class Harness:
    def __init__(self, app: Warlog, smtp: notify.SmtpSettings | None):
        self.app, self.smtp = app, smtp
        self.rows: list[dict] = []
        self.store = NotifyStore.for_service(app)
        self.access = AccessStore.for_service(app)
        self.dispatcher = Dispatcher(app, self.rows.append, email_enabled=smtp is not None)

    def dispatch(self) -> list[dict]:
        before = len(self.rows)
        while self.dispatcher.run_batch():
            pass
        return self.rows[before:]

    def deliver(self, row: dict) -> str:
        return deliver(self.app, row["game_id"], row["seq"], row["channel"], row["seat"], smtp=self.smtp,
                       public_url=PUBLIC, webhook_timeout=5)

    def order(self, gid, seat, order):
        return self.app.submit_order(gid, seat, uuid.uuid4().hex, order)

    def hand_over(self, gid, seat="Blue") -> dict:
        """``seat`` advances the phase: the one delivery row it makes (the other seat's)."""
        self.order(gid, seat, {"kind": "advance"})
        [row] = self.dispatch()
        return row


@pytest.fixture
def mail():
    with smtp_server() as (box, port):
        yield box, notify.SmtpSettings(host="127.0.0.1", port=port, sender="warlog@example.org", timeout=5)


def _started_game(h: Harness) -> str:
    gid = new_freeform_game(h.app)
    confirm_address(h.access, gid, "Blue", "blue@example.org")
    confirm_address(h.access, gid, "Red", "red@example.org")
    return gid


def test_a_hand_over_mails_the_opponent_once_without_the_private_note(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    for row in h.dispatch():  # the contacts were set after the joins: nothing for the start
        h.deliver(row)
    box.messages.clear()

    h.order(gid, "Blue", {"kind": "note", "text": SECRET_TEXT, "private": True})
    h.order(gid, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "artillery on the bridge"})
    assert h.dispatch() == []  # nobody's turn began
    advanced = h.order(gid, "Blue", {"kind": "advance"})
    rows = h.dispatch()
    assert [(r["channel"], r["seat"], r["seq"]) for r in rows] == [(EMAIL, "Red", advanced.version)]
    assert h.deliver(rows[0]) == "sent"

    [msg] = box.to("red@example.org")
    body = msg.get_payload(decode=True).decode()
    assert SECRET_TEXT not in msg.as_string()
    assert "Blue gives an order (hidden)" in body
    assert "Blue rolled 2d6 for artillery on the bridge" in body and "The dice:" in body
    assert advanced.chain_head in body
    assert f"{PUBLIC}/api/v1/games/{gid}" in body
    assert msg["From"] == "warlog@example.org" and msg["X-Warlog-Seq"] == str(advanced.version)

    # the same (game, seq, seat) again: the job, the dispatcher, a re-recorded row: one mail
    assert h.deliver(rows[0]) == "already sent"
    assert h.dispatch() == []
    assert h.store.record(gid, advanced.version, [(advanced.version, EMAIL, "Red", "hand_over")]) == 0
    assert h.deliver(rows[0]) == "already sent"
    assert len(box.to("red@example.org")) == 1
    assert h.store.delivery(gid, advanced.version, EMAIL, "Red")["status"] == SENT

    # Red's next mail starts after what the first one said
    h.order(gid, "Blue", {"kind": "note", "text": "second"})
    assert h.dispatch() == []
    nxt = h.order(gid, "Blue", {"kind": "advance"})
    [row] = h.dispatch()
    h.deliver(row)
    second = box.to("red@example.org")[-1].get_payload(decode=True).decode()
    assert "artillery" not in second and "Blue orders note: second" in second
    assert nxt.chain_head in second


def test_a_dispatcher_restarted_from_scratch_mails_nobody_twice(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    h.dispatch()
    row = h.hand_over(gid, "Red")
    h.deliver(row)
    # forget every progress mark (a crash before they were written): the same rows, no new mail
    with sqlite_app.recorder.datastore.transaction(commit=True) as c:
        c.execute("DELETE FROM warlog_notify_games")
        c.execute("UPDATE warlog_notify_tracking SET position = 0")
    again = Harness(sqlite_app, smtp)
    for r in again.dispatch():
        again.deliver(r)
    assert len(box.to("blue@example.org")) == 1


def test_an_opted_out_seat_gets_no_mail(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    h.dispatch()
    h.access.set_contact(gid, "Red", "red@example.org", notify=False)
    h.order(gid, "Blue", {"kind": "advance"})
    assert h.dispatch() == []
    # opted out between dispatch and delivery: the job skips it
    h.access.set_contact(gid, "Red", "red@example.org", notify=True)
    row = h.hand_over(gid, "Blue")
    h.access.set_contact(gid, "Red", "red@example.org", notify=False)
    assert h.deliver(row) == "skipped: the seat opted out"
    assert box.messages == []


def test_the_webhook_is_signed_public_and_retried_until_it_answers(sqlite_app, trusted_receivers):
    h = Harness(sqlite_app, None)  # no SMTP configured: webhooks only
    gid = _started_game(h)
    h.dispatch()
    secret = "whsec_" + "k" * 40
    with webhook_receiver(secret, statuses=[500]) as (receiver, url):
        h.store.set_webhook(gid, url, secret)
        h.order(gid, "Blue", {"kind": "note", "text": SECRET_TEXT, "private": True})
        advanced = h.order(gid, "Blue", {"kind": "advance"})
        [row] = h.dispatch()
        assert (row["channel"], row["seat"]) == (WEBHOOK, "")
        with pytest.raises(notify.WebhookFailed, match="500"):
            h.deliver(row)
        assert h.store.delivery(gid, advanced.version, WEBHOOK, "")["status"] == FAILED
        assert "500" in h.store.delivery(gid, advanced.version, WEBHOOK, "")["error"]
        assert h.deliver(row) == "sent"  # the retry
        assert h.deliver(row) == "already sent"
    assert [p["status"] for p in receiver.posts] == [500, 204]
    post = receiver.posts[-1]
    assert post["valid"]
    assert post["body"]["game_id"] == gid and post["body"]["seq"] == advanced.version
    assert post["body"]["chain_head"] == advanced.chain_head and post["body"]["reason"] == "hand_over"
    assert SECRET_TEXT not in str(post["body"])
    # The retry is the same message: the same webhook-id, so a receiver can drop a duplicate.
    assert [p["headers"][notify.ID_HEADER] for p in receiver.posts] == [f"{gid}:{advanced.version}:webhook:"] * 2


def test_a_webhook_whose_secret_predates_standard_webhooks_is_skipped_not_sent(sqlite_app, trusted_receivers):
    h = Harness(sqlite_app, None)
    gid = _started_game(h)
    h.dispatch()
    with webhook_receiver("whsec_" + "k" * 40) as (receiver, url):
        h.store.set_webhook(gid, url, "an-old-hmac-key-" * 2)  # stored by the home-made scheme
        row = h.hand_over(gid, "Blue")
        assert "set the webhook again" in h.deliver(row)
    assert receiver.posts == []
    assert h.store.delivery(gid, row["seq"], WEBHOOK, "")["status"] == "skipped"


def test_an_unreachable_webhook_fails_within_its_timeout(sqlite_app, trusted_receivers):
    h = Harness(sqlite_app, None)
    gid = _started_game(h)
    h.dispatch()
    from tests.workers.notify_helpers import free_port

    h.store.set_webhook(gid, f"http://127.0.0.1:{free_port()}/nobody", "whsec_" + "x" * 40)
    row = h.hand_over(gid, "Blue")
    started = time.monotonic()
    with pytest.raises(notify.WebhookFailed, match="unreachable"):
        h.deliver(row)
    assert time.monotonic() - started < 6


# ========================================================================== the settings API ====
@pytest.fixture
def hooks_example(monkeypatch):
    """hooks.example resolves to a public address (never connected to), without asking DNS."""
    real = webhook_target.resolve
    monkeypatch.setattr(webhook_target, "resolve", lambda host, port: (
        [ipaddress.ip_address("93.184.216.34")] if host == "hooks.example" else real(host, port)))


def test_the_settings_endpoints(client, hooks_example):
    from tests.api.conftest import make_game

    c, service = client
    game = make_game(c)
    url = f"/api/v1/games/{game.game_id}"
    r = c.put(f"{url}/notifications", json={"notify": True}, headers=game.seats["Red"])
    assert r.status_code == 422  # no address yet
    r = c.put(f"{url}/notifications", json={"email": "red@example.org", "notify": True}, headers=game.seats["Red"])
    assert r.status_code == 200 and r.json == {"game_id": game.game_id, "seat": "Red", "email": "red@example.org",
                                               "email_confirmed": False, "confirmation_mail": True,
                                               "notify": True, "events": list(notify.CHOICES),
                                               "channels": ["email"], "digest": False, "webhook_url": None,
                                               "webhook_format": "warlog", "webhook_secret": None}
    r = c.put(f"{url}/notifications", json={"notify": False}, headers=game.seats["Red"])
    assert r.json["notify"] is False and r.json["email"] == "red@example.org"
    assert AccessStore.for_service(service).contacts(game.game_id)["Red"] == {"email": "red@example.org",
                                                                              "notify": False, "confirmed": False}
    assert c.put(f"{url}/notifications", json={"notify": False}, headers=game.admin).status_code == 403
    assert c.put(f"{url}/notifications", json={"notify": False}).status_code == 404  # private game

    r = c.put(f"{url}/webhook", json={"url": "https://hooks.example/warlog"}, headers=game.admin)
    assert r.status_code == 200 and notify.secret_problem(r.json["secret"]) is None and r.json["format"] == "warlog"
    assert "standardwebhooks" in r.json["signature"]
    assert NotifyStore.for_service(service).webhook(game.game_id) == {"url": "https://hooks.example/warlog",
                                                                      "secret": r.json["secret"], "format": "warlog"}
    mine = "whsec_" + base64.b64encode(b"m" * 32).decode()
    r = c.put(f"{url}/webhook", json={"url": "https://hooks.example/2", "secret": mine, "format": "discord"},
              headers=game.admin)
    assert r.status_code == 200 and r.json["secret"] is None and r.json["format"] == "discord"
    assert NotifyStore.for_service(service).webhook(game.game_id)["format"] == "discord"
    r = c.put(f"{url}/webhook", json={"url": "https://hooks.example/2", "secret": "mine-" * 4}, headers=game.admin)
    assert r.status_code == 422 and "whsec_" in r.json["errors"]["secret"][0]
    r = c.put(f"{url}/webhook", json={"url": "https://hooks.example/2", "format": "teams"}, headers=game.admin)
    assert r.status_code == 422 and "format" in r.json["errors"]
    assert NotifyStore.for_service(service).webhook(game.game_id)["format"] == "discord"  # refusals change nothing
    assert c.put(f"{url}/webhook", json={"url": "ftp://x"}, headers=game.admin).status_code == 422
    assert c.put(f"{url}/webhook", json={"url": "https://x.example"}, headers=game.seats["Red"]).status_code == 403
    assert c.put(f"{url}/webhook", json={"url": None}, headers=game.admin).status_code == 200
    assert NotifyStore.for_service(service).webhook(game.game_id) is None


@pytest.mark.parametrize("target, reason", [
    ("http://127.0.0.1:5432/", "127.0.0.1 is a loopback address"),
    ("http://localhost:6379/", "localhost is a loopback name"),
    ("http://[::1]/", "::1 is a loopback address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("http://2130706433/", "2130706433 (127.0.0.1) is a loopback address"),
    ("http://0x7f000001/", "0x7f000001 (127.0.0.1) is a loopback address"),
    ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a loopback address"),
    ("http://127.0.0.1:8000/api/v1/games", "warlog's own API"),
])
def test_an_internal_webhook_target_is_refused_at_the_door(client, monkeypatch, target, reason):
    from tests.api.conftest import make_game

    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    monkeypatch.delenv("WARLOG_PUBLIC_URL", raising=False)
    monkeypatch.delenv("PORT", raising=False)  # warlog's own API is then http://127.0.0.1:8000
    c, service = client
    game = make_game(c)
    r = c.put(f"/api/v1/games/{game.game_id}/webhook", json={"url": target}, headers=game.admin)
    assert r.status_code == 422 and r.json["code"] == "invalid_request", r.json
    assert reason in r.json["detail"] and r.json["errors"]["url"] == [r.json["detail"]]
    if "own API" not in reason:
        assert "refused (operator allow-list: WARLOG_WEBHOOK_ALLOW)" in r.json["detail"]
    assert NotifyStore.for_service(service).webhook(game.game_id) is None


def test_a_stored_internal_target_is_refused_at_delivery_without_a_request(sqlite_app, monkeypatch):
    """A webhook stored before the door checked (or allowed then, and no longer) is checked again."""
    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    h = Harness(sqlite_app, None)
    gid = _started_game(h)
    h.dispatch()
    secret = "whsec_" + "i" * 40
    with webhook_receiver(secret) as (receiver, url):
        h.store.set_webhook(gid, url, secret)
        advanced = h.order(gid, "Blue", {"kind": "advance"})
        [row] = h.dispatch()
        with pytest.raises(notify.WebhookFailed, match="loopback address; refused"):
            h.deliver(row)
    assert receiver.requests == []
    failed = h.store.delivery(gid, advanced.version, WEBHOOK, "")
    assert failed["status"] == FAILED and "127.0.0.1 is a loopback address" in failed["error"]


def test_a_name_that_rebinds_to_loopback_after_the_door_is_refused_at_delivery(client, monkeypatch):
    """DNS rebinding: the name resolved to a public address when the admin set it, to
    127.0.0.1 when the worker delivers; the delivery checks again and sends nothing."""
    from tests.api.conftest import make_game

    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    answers = {"rebind.example": ["93.184.216.34"]}
    real = webhook_target.resolve
    monkeypatch.setattr(webhook_target, "resolve", lambda host, port: (
        [ipaddress.ip_address(a) for a in answers[host]] if host in answers else real(host, port)))
    c, service = client
    game = make_game(c)
    h = Harness(service, None)
    h.dispatch()
    secret = "whsec_" + "d" * 40
    with webhook_receiver(secret) as (receiver, url):
        rebinding = url.replace("127.0.0.1", "rebind.example")
        r = c.put(f"/api/v1/games/{game.game_id}/webhook", json={"url": rebinding, "secret": secret},
                  headers=game.admin)
        assert r.status_code == 200, r.json
        answers["rebind.example"] = ["127.0.0.1"]
        c.post(f"/api/v1/games/{game.game_id}/orders", json={"kind": "advance"},
               headers={**game.seats["Blue"], "Idempotency-Key": "rebind-1"})
        rows = [row for row in h.dispatch() if row["channel"] == WEBHOOK]
        assert rows
        for row in rows:
            with pytest.raises(notify.WebhookFailed, match=r"rebind.example \(127.0.0.1\) is a loopback address"):
                h.deliver(row)
    assert receiver.requests == []


def test_an_smtp_failure_is_recorded_without_the_address_and_retried(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    h.dispatch()
    row = h.hand_over(gid, "Blue")
    from tests.workers.notify_helpers import free_port
    from workers.dispatch import MailFailed

    h.smtp = notify.SmtpSettings(host="127.0.0.1", port=free_port(), timeout=2)  # nobody listens
    with pytest.raises(MailFailed) as failed:
        h.deliver(row)
    stored = h.store.delivery(gid, row["seq"], EMAIL, "Red")
    assert stored["status"] == FAILED and "red@example.org" not in stored["error"]
    assert "red@example.org" not in str(failed.value) and failed.value.__cause__ is None
    h.smtp = smtp
    assert h.deliver(row) == "sent" and len(box.to("red@example.org")) == 1


def test_a_mail_whose_worker_died_mid_send_goes_out_once_its_claim_is_stale(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    h.dispatch()
    row = h.hand_over(gid, "Blue")
    assert h.store.claim(gid, row["seq"], EMAIL, "Red")  # a job took the row; its worker was then killed
    # rq's retry of that job finds the row claimed, and the dispatcher leaves it while the claim is fresh
    assert h.deliver(row) == "already sending" and h.dispatch() == []
    late = datetime.now(timezone.utc) + STALE_CLAIM + timedelta(minutes=1)
    h.dispatcher.clock = lambda: late
    assert row in h.dispatch()  # handed to rq again (with the start's rows, queued and never taken here)
    assert h.store.delivery(gid, row["seq"], EMAIL, "Red")["status"] == "queued"
    assert h.deliver(row) == "sent" and len(box.to("red@example.org")) == 1
    assert h.dispatch() == [] and h.deliver(row) == "already sent"


def test_a_mail_whose_job_was_lost_with_redis_goes_out_once_its_queueing_is_stale(sqlite_app, mail):
    """Redis restarted without its data (or replaced) loses the jobs waiting in it: a row handed to
    rq ('queued') whose job is gone was never handed again, and its mail never went."""
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    start = h.dispatch()
    row = h.hand_over(gid, "Blue")  # queued; then Redis is lost, and the jobs with it
    assert h.dispatch() == []  # fresh: rq may still hold them
    late = datetime.now(timezone.utc) + STALE_CLAIM + timedelta(minutes=1)
    h.dispatcher.clock = lambda: late
    assert sorted(h.dispatch(), key=str) == sorted([*start, row], key=str)  # handed to rq again
    assert h.deliver(row) == "sent" and len(box.to("red@example.org")) == 1
    assert h.deliver(row) == "already sent"  # the first job, had it been there after all, sends nothing


def test_the_end_of_the_game_is_mailed_to_the_others(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _started_game(h)
    h.dispatch()
    h.order(gid, "Red", {"kind": "end", "winner": "Red", "reason": "Blue's army is broken"})
    rows = h.dispatch()
    assert [(r["seat"]) for r in rows] == ["Blue"]
    h.deliver(rows[0])
    [msg] = box.to("blue@example.org")
    assert msg["Subject"].startswith("[warlog] The game is over")
    assert "Game over: Red wins" in msg.get_payload(decode=True).decode()


def test_a_webhooks_table_made_before_formats_gets_its_column_and_keeps_its_webhooks(store_config):
    """The format column is added by the next migrate; the webhooks stored before get warlog's JSON."""
    migrate(store_config)
    service = Warlog(store_config)
    try:
        store = NotifyStore.for_service(service)
        store._run("DROP TABLE {t}warlog_webhooks")
        store._run("CREATE TABLE {t}warlog_webhooks (game_id TEXT PRIMARY KEY, url TEXT NOT NULL, "
                   "secret TEXT NOT NULL, created_at TEXT NOT NULL)")
        store._run("INSERT INTO {t}warlog_webhooks VALUES (?, ?, ?, ?)", ("g1", "https://x.example/", "whsec_k", "t"))
        migrate(store_config)
        migrate(store_config)  # and again: nothing left to add
        assert store.webhook("g1") == {"url": "https://x.example/", "secret": "whsec_k", "format": "warlog"}
        store.set_webhook("g2", "https://y.example/", "whsec_k", "slack")
        assert store.webhook("g2")["format"] == "slack"
    finally:
        service.close()
