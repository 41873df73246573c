"""The confirmation mail limits hold under concurrent requests: counted and inserted as one step,
so requests racing past the count together cannot each add their mail (a seat token holder
sending a burst of PUTs to mail one victim address more often than CONFIRM_PER_ADDRESS allows)."""

from __future__ import annotations

import threading

import pytest

from domain.access import CONFIRM_PER_ADDRESS, CONFIRM_PER_SEAT, AccessStore, TooManyConfirmations

RACERS = 16


def _race(asks) -> int:
    """Run every ``ask`` at once (a barrier lets them go together); how many were not refused."""
    barrier, granted, lock = threading.Barrier(len(asks)), [], threading.Lock()

    def run(ask):
        barrier.wait()
        try:
            ask()
        except TooManyConfirmations:
            return
        with lock:
            granted.append(1)

    threads = [threading.Thread(target=run, args=(ask,)) for ask in asks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(granted)


def test_racing_requests_to_one_address_send_no_more_than_its_limit(app):
    access = AccessStore.for_service(app)
    asks = [lambda i=i: access.request_confirmation(f"game-{i}", "Red", "victim@example.org")
            for i in range(RACERS)]
    assert _race(asks) == CONFIRM_PER_ADDRESS
    assert len(access.confirmations_to_queue()) == CONFIRM_PER_ADDRESS


def test_racing_requests_of_one_seat_ask_no_more_than_its_limit(app):
    access = AccessStore.for_service(app)
    asks = [lambda i=i: access.request_confirmation("game-1", "Red", f"r{i}@example.org") for i in range(RACERS)]
    assert _race(asks) == CONFIRM_PER_SEAT
    assert len(access.confirmations_to_queue()) == CONFIRM_PER_SEAT


def test_the_address_limit_counts_plus_tagged_variants_of_an_address_as_one(app):
    """victim+1@, victim+2@, … reach one mailbox at most providers: counted apart, a creator of
    games (20 an hour per client address, a seat token each) mailed one inbox without bound."""
    access = AccessStore.for_service(app)
    for i in range(CONFIRM_PER_ADDRESS):
        access.request_confirmation(f"game-{i}", "Red", f"Victim+{i}@Example.org")
    for other in ("victim+x@example.org", "victim@example.org", "VICTIM+@EXAMPLE.ORG"):
        with pytest.raises(TooManyConfirmations, match="this address"):
            access.request_confirmation("game-x", "Red", other)
    access.request_confirmation("game-y", "Red", "victim2@example.org")  # another address is its own


def test_the_address_limit_counts_gmail_dotted_and_googlemail_variants_of_an_address_as_one(app):
    """Gmail ignores dots in the local part and googlemail.com is gmail.com: v.ictim@gmail.com,
    vic.tim@googlemail.com and victim@gmail.com reach one inbox, and count as one address. Other
    domains keep their dots (first.last@example.org is not firstlast@)."""
    access = AccessStore.for_service(app)
    for i, variant in enumerate(("v.ictim@gmail.com", "Vic.Tim+{i}@googlemail.com", "victim.@GMail.com")):
        access.request_confirmation(f"game-{i}", "Red", variant.format(i=i))
    for other in ("victim@gmail.com", "v.i.c.t.i.m@googlemail.com"):
        with pytest.raises(TooManyConfirmations, match="this address"):
            access.request_confirmation("game-x", "Red", other)
    for i in range(CONFIRM_PER_ADDRESS):
        access.request_confirmation(f"game-d{i}", "Red", f"first.last+{i}@example.org")
    access.request_confirmation("game-y", "Red", "firstlast@example.org")  # dots count elsewhere


def test_racing_puts_of_new_addresses_for_one_seat_each_get_a_mail_or_a_429(each_store_client):
    """The limits' check and the address stored are one step: checked apart, PUTs racing past the
    check together were all stored, and those beyond the seat's limit were answered 200 with no
    mail (``confirmation_mail: false``), leaving the seat an address that would never be confirmed."""
    from tests.api.conftest import make_game

    c, service = each_store_client
    access = AccessStore.for_service(service)
    game = make_game(c)
    url, headers = f"/api/v1/games/{game.game_id}/notifications", game.seats["Red"]
    answers, lock = [], threading.Lock()

    def put(i):
        r = c.put(url, json={"email": f"r{i}@example.org"}, headers=headers)
        with lock:
            answers.append((r.status_code, (r.json or {}).get("confirmation_mail"), (r.json or {}).get("code")))

    asks = [lambda i=i: put(i) for i in range(RACERS)]
    assert _race(asks) == RACERS
    assert sorted(answers, key=str) == sorted([(200, True, None)] * CONFIRM_PER_SEAT
                                              + [(429, None, "too_many_confirmations")] * (RACERS - CONFIRM_PER_SEAT),
                                              key=str)
    stored = access.contacts(game.game_id)["Red"]["email"]
    assert stored in {r["email"] for r in access._run("SELECT email FROM {t}warlog_email_confirmations", fetch="all")}
