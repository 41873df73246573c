"""A seat's notification choices (issue 35): which reasons reach it, by mail, by its own webhook or
both, a daily digest instead of one mail per event (with an injected clock), and the link that
opens the replay at the seat's last order. Real deliveries: aiosmtpd and a local receiver that
checks the signature."""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from api.app import migrate
from domain.access import AccessStore
from domain.rulesets import find_ruleset
from domain.service import Warlog
from tests.conftest import new_freeform_game
from tests.workers.notify_helpers import confirm_address, smtp_server, webhook_receiver
from tests.workers.test_notify import PUBLIC, SECRET_TEXT, Harness, hooks_example, line  # noqa: F401 (fixture)
from workers import notify
from workers.dispatch import DIGEST, EMAIL, SENT, WEBHOOK, NotifyStore, digest_boundary

UTC = timezone.utc


# ================================================================================== pure ====
def test_a_hand_over_counts_as_your_move_and_the_defaults_want_every_reason():
    assert all(notify.Prefs().wants(r) for r in ("your_move", "hand_over", "decision", "take_back", "game_over"))
    ends_only = notify.Prefs(events=frozenset({"game_over"}))
    assert ends_only.wants("game_over") and not ends_only.wants("hand_over") and not ends_only.wants("decision")
    assert notify.Prefs(events=frozenset({"your_move"})).wants("hand_over")


def test_the_replay_link_starts_at_the_last_event_of_the_seats_last_command():
    lines = [line(1, "GameCreated"), line(2, "SeatJoined", seat="A"), line(3, "SeatJoined", seat="B"),
             line(4, "DiceEpochOpened"), line(5, "OrderAccepted", seat="A", order={}), line(6, "DiceRolled"),
             line(7, "OrderAccepted", seat="B", order={}), line(8, "PhaseAdvanced")]
    assert notify.last_acted(lines, ["A"]) == 6
    assert notify.last_acted(lines, ["B"]) == 8
    assert notify.last_acted(lines, ["A", "B"]) == 6  # the game webhook: the earliest of the movers
    assert notify.last_acted(lines, ["C"]) == 0
    assert notify.replay_link(PUBLIC + "/", "g-1", 6) == f"{PUBLIC}/games/g-1/replay?from=6"


def test_the_digest_boundary_is_the_last_digest_hour_at_or_before_now():
    at = datetime(2026, 3, 5, 9, 30, tzinfo=UTC)
    assert digest_boundary(at, 7) == datetime(2026, 3, 5, 7, tzinfo=UTC)
    assert digest_boundary(at, 10) == datetime(2026, 3, 4, 10, tzinfo=UTC)
    assert digest_boundary(datetime(2026, 3, 5, 7, tzinfo=UTC), 7) == datetime(2026, 3, 5, 7, tzinfo=UTC)


def test_the_digest_hour_setting():
    from workers.notify_jobs import digest_hour

    assert digest_hour({}) == 7 and digest_hour({"WARLOG_DIGEST_HOUR": "18"}) == 18
    for bad in ("24", "-1", "noon"):
        with pytest.raises(ValueError, match="WARLOG_DIGEST_HOUR is an hour of the day"):
            digest_hour({"WARLOG_DIGEST_HOUR": bad})


# ======================================================================= real deliveries ====
@pytest.fixture
def mail():
    with smtp_server() as (box, port):
        yield box, notify.SmtpSettings(host="127.0.0.1", port=port, sender="warlog@example.org", timeout=5)


def _game(h: Harness) -> str:
    gid = new_freeform_game(h.app)
    confirm_address(h.access, gid, "Blue", "blue@example.org")
    confirm_address(h.access, gid, "Red", "red@example.org")
    h.dispatch()
    return gid


def _body(msg) -> str:
    return msg.get_payload(decode=True).decode()


def test_the_turn_mail_links_the_replay_at_the_seats_last_order(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _game(h)
    red_last = h.order(gid, "Red", {"kind": "note", "text": "Red holds"})
    h.order(gid, "Blue", {"kind": "note", "text": "Blue moves up"})
    h.order(gid, "Blue", {"kind": "advance"})
    [row] = h.dispatch()
    assert h.deliver(row) == "sent"
    body = _body(box.to("red@example.org")[-1])
    assert f"Step through it from your last order: {PUBLIC}/games/{gid}/replay?from={red_last.version}" in body


def test_a_seat_told_only_of_the_end_gets_no_turn_mail(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _game(h)
    h.store.set_prefs(gid, "Red", notify.Prefs(events=frozenset({"game_over"})))
    h.order(gid, "Blue", {"kind": "advance"})
    assert h.dispatch() == []  # Blue's hand-over is a "your move" Red did not choose
    h.order(gid, "Blue", {"kind": "end", "winner": "Blue", "reason": "the bridge is held"})
    [row] = h.dispatch()
    assert (row["channel"], row["seat"]) == (EMAIL, "Red") and h.deliver(row) == "sent"
    [msg] = box.to("red@example.org")
    assert msg["Subject"].startswith("[warlog] The game is over")


def test_a_seat_webhook_carries_the_seats_view_signed_and_no_mail(app, mail, trusted_receivers):
    """On SQLite and on PostgreSQL."""
    box, smtp = mail
    h = Harness(app, smtp)
    gid = _game(h)
    secret = "whsec_" + "r" * 40
    with webhook_receiver(secret) as (receiver, url):
        h.store.set_prefs(gid, "Red", notify.Prefs(channels=frozenset({"webhook"}), webhook_url=url), secret)
        red_last = h.order(gid, "Red", {"kind": "note", "text": "Red's own secret plan", "private": True})
        h.order(gid, "Blue", {"kind": "note", "text": SECRET_TEXT, "private": True})
        advanced = h.order(gid, "Blue", {"kind": "advance"})
        [row] = h.dispatch()
        assert (row["channel"], row["seat"]) == (WEBHOOK, "Red")
        assert h.store.delivery(gid, advanced.version, WEBHOOK, "Red")["reason"] == "hand_over"
        assert h.deliver(row) == "sent" and h.deliver(row) == "already sent"
    [post] = receiver.posts
    assert post["valid"] and post["body"]["seq"] == advanced.version
    assert post["headers"][notify.ID_HEADER] == f"{gid}:{advanced.version}:webhook:Red"
    assert SECRET_TEXT not in str(post["body"])  # Blue's private note: hidden from Red
    assert "Blue gives an order (hidden)" in str(post["body"]["events"])
    assert post["body"]["replay_url"] == f"{PUBLIC}/games/{gid}/replay?from={red_last.version}"
    assert box.messages == []  # Red chose the webhook only
    assert h.store.delivery(gid, advanced.version, WEBHOOK, "Red")["status"] == SENT


def test_a_seat_webhook_in_discord_format_posts_a_discord_message_of_the_seats_view_signed(app, trusted_receivers):
    """On SQLite and on PostgreSQL: Discord takes {"content", "allowed_mentions"} and refuses
    warlog's JSON; the message names the game as the game's chat messages do and shows Red what
    Red may see, no more."""
    h = Harness(app, None)
    gid = _game(h)
    secret = "whsec_" + "d" * 40
    with webhook_receiver(secret) as (receiver, url):
        h.store.set_prefs(gid, "Red", notify.Prefs(channels=frozenset({"webhook"}), webhook_url=url,
                                                   webhook_format="discord"), secret)
        red_last = h.order(gid, "Red", {"kind": "note", "text": "Red waits"})
        h.order(gid, "Blue", {"kind": "note", "text": SECRET_TEXT, "private": True})
        advanced = h.order(gid, "Blue", {"kind": "advance"})
        [row] = h.dispatch()
        assert (row["channel"], row["seat"]) == (WEBHOOK, "Red") and h.deliver(row) == "sent"
    [post] = receiver.posts
    assert post["valid"] and post["headers"][notify.ID_HEADER] == f"{gid}:{advanced.version}:webhook:Red"
    assert set(post["body"]) == {"content", "allowed_mentions"} and post["body"]["allowed_mentions"] == {"parse": []}
    content = post["body"]["content"]
    assert content.startswith(notify.game_name(find_ruleset("freeform"), gid) + " (turn ")
    assert "Blue gives an order (hidden)" in content
    assert SECRET_TEXT not in post["raw"].decode()  # Blue's private note: hidden from Red
    assert f"Replay from the last order: {PUBLIC}/games/{gid}/replay?from={red_last.version}" in content
    assert content.endswith(f"{PUBLIC}/games/{gid}") and len(content) <= notify.CHAT_LIMIT["discord"]


def test_the_game_webhook_links_the_replay_at_the_movers_last_order(sqlite_app, trusted_receivers):
    h = Harness(sqlite_app, None)
    gid = _game(h)
    secret = "whsec_" + "g" * 40
    with webhook_receiver(secret) as (receiver, url):
        h.store.set_webhook(gid, url, secret)
        red_last = h.order(gid, "Red", {"kind": "note", "text": "waiting"})
        h.order(gid, "Blue", {"kind": "advance"})
        [row] = h.dispatch()
        h.deliver(row)
    assert receiver.posts[-1]["body"]["replay_url"] == f"{PUBLIC}/games/{gid}/replay?from={red_last.version}"


def test_a_digest_seat_gets_one_mail_a_day_with_what_happened(app, mail):
    """On SQLite and on PostgreSQL."""
    box, smtp = mail
    h = Harness(app, smtp)
    gid = _game(h)
    h.store.set_prefs(gid, "Red", notify.Prefs(digest=True))
    first = h.order(gid, "Blue", {"kind": "advance"})
    h.order(gid, "Blue", {"kind": "roll", "dice": "2d6", "purpose": "shelling the town"})
    second = h.order(gid, "Blue", {"kind": "advance"})
    assert h.dispatch() == []  # no mail per event: the items wait for the digest
    happened = datetime.now(UTC)
    # The digests go out at a time of day half a day away from now, so none is due yet...
    h.dispatcher.digest_hour = (happened.hour + 12) % 24
    assert h.dispatcher.sweep_digests(happened) == 0
    # ...and a day later one is, made once however often the sweep runs that day.
    day = happened + timedelta(days=1)
    assert h.dispatcher.sweep_digests(day) == 1
    assert h.dispatcher.sweep_digests(day) == 0 and h.dispatcher.sweep_digests(day + timedelta(hours=1)) == 0
    [row] = h.rows[-1:]
    assert (row["channel"], row["seat"], row["seq"]) == (DIGEST, "Red", second.version)
    assert h.deliver(row) == "sent" and h.deliver(row) == "already sent"
    [msg] = box.to("red@example.org")
    body = _body(msg)
    assert msg["Subject"].startswith("[warlog] Your daily digest")
    assert f"#{first.version} The phase has moved on" in body and f"#{second.version} The phase has moved on" in body
    assert "Blue rolled 2d6 for shelling the town" in body

    # What happens after that day's digest waits for the next day's, which holds only it.
    third = h.order(gid, "Blue", {"kind": "advance"})
    assert h.dispatch() == []
    assert h.dispatcher.sweep_digests(day) == 0  # that day's digest was made already
    assert h.dispatcher.sweep_digests(day + timedelta(days=1)) == 1
    h.deliver(h.rows[-1])
    later = _body(box.to("red@example.org")[-1])
    assert f"#{third.version} The phase has moved on" in later and "shelling the town" not in later
    assert len(box.to("red@example.org")) == 2 and box.to("blue@example.org") == []


def test_a_digest_seat_that_opts_out_before_the_digest_gets_none(sqlite_app, mail):
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _game(h)
    h.store.set_prefs(gid, "Red", notify.Prefs(digest=True))
    h.order(gid, "Blue", {"kind": "advance"})
    h.dispatch()
    assert h.dispatcher.sweep_digests(datetime.now(UTC) + timedelta(days=1)) == 1
    h.access.set_contact(gid, "Red", "red@example.org", notify=False)
    assert h.deliver(h.rows[-1]) == "skipped: the seat opted out"
    assert box.messages == []


# ========================================================================== the settings API ====
def test_a_seat_sets_and_reads_its_own_choices(client, hooks_example):
    from tests.api.conftest import make_game

    c, service = client
    game = make_game(c)
    url = f"/api/v1/games/{game.game_id}/notifications"
    red = game.seats["Red"]
    r = c.put(url, json={"email": "red@example.org", "events": ["game_over", "decision"], "digest": True,
                         "channels": ["email", "webhook"], "webhook_url": "https://hooks.example/red"}, headers=red)
    assert r.status_code == 200, r.json
    secret = r.json["webhook_secret"]
    assert secret.startswith("whsec_")
    assert r.json["events"] == ["decision", "game_over"] and r.json["channels"] == ["email", "webhook"]
    assert r.json["digest"] is True and r.json["notify"] is True
    store = NotifyStore.for_service(service)
    assert store.seat_webhook(game.game_id, "Red") == {"url": "https://hooks.example/red", "secret": secret,
                                                       "format": "warlog"}

    # a field left out keeps its value; the secret is never read back
    r = c.put(url, json={"digest": False}, headers=red)
    assert r.json["events"] == ["decision", "game_over"] and r.json["webhook_secret"] is None
    got = c.get(url, headers=red).json
    assert got == {**r.json, "digest": False, "webhook_url": "https://hooks.example/red"}
    assert store.seat_webhook(game.game_id, "Red")["secret"] == secret

    # another seat reads its own (the defaults), never Red's; the admin and strangers read nothing
    blue = c.get(url, headers=game.seats["Blue"]).json
    assert blue["seat"] == "Blue" and blue["email"] is None and blue["webhook_url"] is None
    assert blue["events"] == list(notify.CHOICES) and blue["channels"] == ["email"]
    assert c.get(url, headers=game.admin).status_code == 403
    assert c.get(url).status_code == 404

    # removing the webhook while it is a channel is refused; removing both is fine
    r = c.put(url, json={"webhook_url": None}, headers=red)
    assert r.status_code == 422 and "webhook_url" in r.json["errors"]
    r = c.put(url, json={"webhook_url": None, "channels": ["email"]}, headers=red)
    assert r.status_code == 200 and store.seat_webhook(game.game_id, "Red") is None


def test_a_seat_chooses_its_webhooks_format_and_a_change_that_leaves_it_out_keeps_it(each_store_client,
                                                                                     hooks_example):
    from tests.api.conftest import make_game

    c, service = each_store_client
    game = make_game(c)
    url = f"/api/v1/games/{game.game_id}/notifications"
    red = game.seats["Red"]
    store = NotifyStore.for_service(service)
    assert c.get(url, headers=red).json["webhook_format"] == "warlog"  # the default: warlog's JSON, as before
    r = c.put(url, json={"channels": ["webhook"], "webhook_url": "https://hooks.example/red",
                         "webhook_format": "discord"}, headers=red)
    assert r.status_code == 200 and r.json["webhook_format"] == "discord", r.json
    assert store.seat_webhook(game.game_id, "Red")["format"] == "discord"

    r = c.put(url, json={"events": ["game_over"]}, headers=red)  # left out: kept
    assert r.json["webhook_format"] == "discord" and c.get(url, headers=red).json["webhook_format"] == "discord"
    r = c.put(url, json={"webhook_format": "slack"}, headers=red)  # given alone: changed
    assert r.status_code == 200 and c.get(url, headers=red).json["webhook_format"] == "slack"
    assert c.get(url, headers=red).json["events"] == ["game_over"]

    r = c.put(url, json={"webhook_format": "teams"}, headers=red)
    assert r.status_code == 422 and r.json["errors"] == {"webhook_format": ["Must be one of: warlog, discord, slack."]}
    assert store.seat_webhook(game.game_id, "Red")["format"] == "slack"  # a refusal changes nothing
    assert c.get(url, headers=game.seats["Blue"]).json["webhook_format"] == "warlog"  # Red's choice is Red's


@pytest.mark.parametrize("body, field", [
    ({"events": ["my_birthday"]}, "events"),
    ({"channels": ["pigeon"]}, "channels"),
    ({"events": "your_move"}, "events"),
    ({"digest": "daily"}, "digest"),
    ({"channels": ["webhook"]}, "webhook_url"),
    ({"webhook_url": "ftp://hooks.example/"}, "webhook_url"),
    ({"webhook_url": "http://127.0.0.1:6379/"}, "webhook_url"),
    ({"webhook_url": "https://hooks.example/x", "webhook_secret": "short"}, "webhook_secret"),
    ({"notify": True, "channels": ["email"]}, "email"),
    ({"webhook_url": "https://hooks.example/x", "webhook_format": "teams"}, "webhook_format"),
    ({"webhook_format": None}, "webhook_format"),
])
def test_bad_choices_are_a_422_naming_the_field(client, hooks_example, monkeypatch, body, field):
    from tests.api.conftest import make_game

    monkeypatch.delenv("WARLOG_WEBHOOK_ALLOW", raising=False)
    c, service = client
    game = make_game(c)
    r = c.put(f"/api/v1/games/{game.game_id}/notifications", json=body, headers=game.seats["Red"])
    assert r.status_code == 422 and field in r.json["errors"], r.json
    assert NotifyStore.for_service(service).prefs(game.game_id) == {}
    assert AccessStore.for_service(service).contacts(game.game_id) == {}


def test_the_settings_never_reach_the_log_or_the_export(client, hooks_example):
    from tests.api.conftest import make_game

    c, service = client
    game = make_game(c)
    r = c.put(f"/api/v1/games/{game.game_id}/notifications", headers=game.seats["Red"],
              json={"email": "red-secret@example.org", "channels": ["webhook"], "digest": True,
                    "webhook_url": "https://hooks.example/red-secret-hook"})
    assert r.status_code == 200
    exported = "".join(service.export(game.game_id, header=True))
    for private in ("red-secret", r.json["webhook_secret"], "hooks.example"):
        assert private not in exported
    state = c.get(f"/api/v1/games/{game.game_id}", headers=game.seats["Blue"]).get_data(as_text=True)
    assert "red-secret" not in state and "hooks.example" not in state


def test_mail_ids_differ_between_a_turn_mail_and_a_digest(sqlite_app, mail):
    """A digest and a turn mail at the same seq are two messages, not one deduplicated by a mail client."""
    box, smtp = mail
    h = Harness(sqlite_app, smtp)
    gid = _game(h)
    advanced = h.order(gid, "Blue", {"kind": "advance"})
    [row] = h.dispatch()
    h.deliver(row)
    h.store.record(gid, advanced.version, [(advanced.version, DIGEST, "Red", "digest")])
    h.deliver({"game_id": gid, "seq": advanced.version, "channel": DIGEST, "seat": "Red"})
    ids = [m["Message-ID"] for m in box.to("red@example.org")]
    assert len(ids) == 2 and len(set(ids)) == 2 and re.search(r"warlog\.digest\.", ids[1])


def test_the_replay_start_read_backwards_by_pages_is_the_one_of_the_whole_log(sqlite_app):
    """A command split across two pages still ends where it ends; a seat that never acted reads it all."""
    from workers.dispatch import _replay_start

    gid = new_freeform_game(sqlite_app)
    for n in range(6):
        sqlite_app.submit_order(gid, "Red", uuid.uuid4().hex, {"kind": "roll", "dice": "2d6", "purpose": f"r{n}"})
        sqlite_app.submit_order(gid, "Blue", uuid.uuid4().hex, {"kind": "note", "text": f"b{n}"})
    lines = sqlite_app.lines(gid)
    head = lines[-1]["seq"]
    for seats in (["Red"], ["Blue"], ["Red", "Blue"], ["Nobody"], []):
        whole = notify.last_acted(lines, seats)
        for page in (1, 2, 3, 500):
            assert _replay_start(sqlite_app, gid, head, seats, page=page) == whole, (seats, page)
    assert notify.last_acted(lines, ["Red"]) == lines[-2]["seq"]  # Red's roll and its dice, then Blue's note


def test_a_prefs_table_made_before_seat_webhook_formats_gets_its_column_and_keeps_its_choices(store_config):
    """The webhook_format column is added by the next migrate; a seat webhook stored before gets warlog's JSON."""
    migrate(store_config)
    service = Warlog(store_config)
    try:
        store = NotifyStore.for_service(service)
        store._run("DROP TABLE {t}warlog_notify_prefs")
        store._run("CREATE TABLE {t}warlog_notify_prefs (game_id TEXT NOT NULL, seat TEXT NOT NULL, "
                   "events TEXT NOT NULL, channels TEXT NOT NULL, digest INTEGER NOT NULL, webhook_url TEXT, "
                   "webhook_secret TEXT, PRIMARY KEY (game_id, seat))")
        store._run("INSERT INTO {t}warlog_notify_prefs VALUES (?, ?, ?, ?, ?, ?, ?)",
                   ("g1", "Red", "game_over", "webhook", 0, "https://x.example/", "whsec_k"))
        migrate(store_config)
        migrate(store_config)  # and again: nothing left to add
        assert store.prefs("g1") == {"Red": notify.Prefs(frozenset({"game_over"}), frozenset({"webhook"}), False,
                                                         "https://x.example/", "warlog")}
        assert store.seat_webhook("g1", "Red") == {"url": "https://x.example/", "secret": "whsec_k", "format": "warlog"}
        store.set_prefs("g1", "Blue", notify.Prefs(channels=frozenset({"webhook"}), webhook_url="https://y.example/",
                                                   webhook_format="discord"), "whsec_k")
        assert store.seat_webhook("g1", "Blue")["format"] == "discord"
    finally:
        service.close()
