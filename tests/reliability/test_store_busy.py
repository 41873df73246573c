"""A store that does not answer in time, on a live gunicorn server on SQLite and PostgreSQL: a
write lock held outside warlog (a database shell's open transaction) for longer than
``WARLOG_LOCK_TIMEOUT`` (1 s here).

The order waiting for the lock answers 503 ``store_unavailable`` with ``Retry-After`` once the
timeout has passed, not a 500 and not after a multiple of it; the server logs a warning, no
traceback; nothing is recorded; and the same order sent again with its Idempotency-Key once the
lock is gone is recorded, once. Reads go on meanwhile, also those that catch views up to an
order the projector has not folded yet (read-your-writes): the views they fold cannot be stored
under the lock, and they answer with them all the same.
"""

from __future__ import annotations

import time

from tests.reliability.client import Game, Http, assert_no_secret_in_log, assert_sound_log
from tests.reliability.faults import writes_blocked

TIMEOUT = 1  # WARLOG_LOCK_TIMEOUT of the server under test, seconds


def roll(purpose: str) -> dict:
    return {"kind": "roll", "dice": "2d6", "purpose": purpose, "target": {"compare": ">=", "value": 7}}


def test_an_order_held_up_past_the_lock_timeout_is_a_503_and_its_retry_is_recorded_once(store):
    with store.serve(WEB_CONCURRENCY="1", WARLOG_LOCK_TIMEOUT=str(TIMEOUT)) as url:
        http = Http(url)
        game = Game(http)
        game.order("Blue", roll("warm-up"))  # the dice epoch's seed is drawn: only the save waits below
        game.summary()
        unread = game.order("Blue", roll("not read yet")).body["version"]  # no view has folded it
        before = unread
        order = roll("held up")
        with writes_blocked(store.config):
            # A read catching up to the order no view has folded: answered, its fold not stored.
            assert game.summary()["version"] == unread
            history = http.call("GET", game.path("/history"), token=game.umpire)
            assert history.status == 200 and history.headers["ETag"] == f'"{unread}"', history.raw
            started = time.monotonic()
            busy = game.order("Red", order, "held-1", expect=503)
            waited = time.monotonic() - started
            assert busy.body["code"] == "store_unavailable" and busy.body["status"] == 503, busy.body
            assert busy.headers["Retry-After"] == "2"
            assert "Idempotency-Key" in busy.body["detail"]
            # The lock timeout, once: not retried until a multiple of it has passed.
            assert TIMEOUT * 0.9 <= waited < TIMEOUT * 4, waited
            assert game.summary()["version"] == before  # a read goes on; nothing was recorded
        again = game.order("Red", order, "held-1", expect=201)
        assert again.headers.get("Idempotent-Replayed") is None and again.body["replayed"] is False
        lines = assert_sound_log(game)
        accepted = [line["data"]["order_id"] for line in lines if line["type"] == "OrderAccepted"]
        assert len(accepted) == 3 and accepted[-1] == "held-1"  # two before, then this order once
        log = url.log()
        assert "store unavailable on POST /api/v1/games/" in log
        if store.kind == "sqlite":  # PostgreSQL's lock on the events table leaves the views' tables free
            assert f"views caught up to version {unread} for a read, not stored" in log
        assert "Traceback" not in log
        assert_no_secret_in_log(http, log)
