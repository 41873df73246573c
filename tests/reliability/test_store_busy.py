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

import pytest
from eventsourcing.persistence import OperationalError

from tests.reliability.client import Game, Http, assert_no_secret_in_log, assert_sound_log
from tests.reliability.faults import CuttableLink, wait_until, writes_blocked

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


def test_a_database_that_goes_away_is_a_prompt_503_and_its_return_is_taken_up(pg_store):
    """PostgreSQL behind a link the test cuts (a network failure, a database restart): the
    health check, a read, an order (of a game the server holds in memory, then of one it has to
    load) and the games list each answer 503 store_unavailable within seconds, none hangs for
    the driver's retries; once the link is back, the order sent again under its
    Idempotency-Key is recorded once and the health check is 200 again."""
    link = CuttableLink.to_postgres(pg_store.config)
    url = link.database_url(pg_store.config)
    try:
        with pg_store.serve(WEB_CONCURRENCY="1", WARLOG_DATABASE_URL=url) as server:
            http = Http(server)
            game = Game(http)
            game.order("Blue", roll("before"))
            before = game.summary()["version"]
            link.cut()
            # The order twice: the first finds the server's copy of the game (its check fails),
            # which is then dropped, so the second loads the game (its latest snapshot, then its
            # events); the list catches the index up first (the head of the log).
            for name, call in (("health", lambda: http.call("GET", "/healthz")),
                               ("read", lambda: http.call("GET", game.path(), token=game.umpire)),
                               ("order", lambda: game.order("Blue", roll("while gone"), "gone-1", expect=None)),
                               ("order, no copy", lambda: game.order("Blue", roll("while gone"), "gone-1", expect=None)),
                               ("list", lambda: http.call("GET", "/api/v1/games", token=game.umpire))):
                started = time.monotonic()
                reply = call()
                assert reply.status == 503 and reply.body["code"] == "store_unavailable", (name, reply.raw)
                assert time.monotonic() - started < 15, (name, time.monotonic() - started)  # not minutes
            link.restore()
            deadline = time.monotonic() + 60  # the pool reconnects with a growing backoff
            while (reply := game.order("Blue", roll("while gone"), "gone-1", expect=None)).status == 503:
                assert time.monotonic() < deadline, "the service never took the database up again"
                time.sleep(float(reply.headers["Retry-After"]))
            assert reply.status == 201, reply.raw
            assert http.call("GET", "/healthz").status == 200
            lines = assert_sound_log(game)
            assert [line["data"]["order_id"] for line in lines[before:] if line["type"] == "OrderAccepted"] == ["gone-1"]
            assert "Traceback" not in server.log()
    finally:
        link.restore()
        link.close()


def test_after_a_long_outage_the_database_is_taken_up_within_seconds_of_its_return(postgres_config):
    """psycopg_pool replaces a lost connection with attempts 1, 2, 4, 8 ... seconds apart; with
    its default reconnect timeout (5 minutes) the attempt after an outage of 35 s is due at about
    63 s, and until then every command failed (measured: the first command recorded 20.8 s after
    the link was back). With warlog's (``pgrecorder.RECONNECT_TIMEOUT``, 10 s) the attempts give
    up and the next command starts new ones: 0.02 s. (In one process, on a link the test cuts.)"""
    from domain.pgrecorder import RECONNECT_TIMEOUT
    from domain.service import Warlog
    from domain.storage import StoreWaitedOut, config_from_env
    from tests.conftest import make_app

    not_answering = (OperationalError, StoreWaitedOut)  # a lost connection; none within the connect timeout
    make_app(postgres_config).close()  # the tables
    link = CuttableLink.to_postgres(postgres_config)
    url = link.database_url(postgres_config)
    app = Warlog(config_from_env({"WARLOG_DATABASE_URL": url}))
    try:
        assert app.recorder.datastore.pool.reconnect_timeout == RECONNECT_TIMEOUT
        game = app.create_game("freeform").game_id
        for seat in ("A", "B"):
            app.join(game, seat, seat.lower())
        app.submit_order(game, "A", "before", roll("before"))
        link.cut()
        cut = time.monotonic()
        while time.monotonic() - cut < 35:  # commands keep coming, and fail
            started = time.monotonic()
            with pytest.raises(not_answering):
                app.submit_order(game, "A", "after", roll("after"))
            assert time.monotonic() - started < 12  # the connect timeout, not ten of them
            time.sleep(1)
        link.restore()
        back = time.monotonic()
        while True:
            try:
                result = app.submit_order(game, "A", "after", roll("after"))
                break
            except not_answering:
                assert time.monotonic() - back < 20, "the pool did not take the database up again"
                time.sleep(0.5)
        taken_up = time.monotonic() - back
        assert taken_up < 8, taken_up
        assert result.order_id == "after" and not result.replayed
        assert [line["data"]["order_id"] for line in app.lines(game)
                if line["type"] == "OrderAccepted"] == ["before", "after"]
    finally:
        link.restore()
        app.close()
        link.close()


def test_the_projector_waits_out_a_database_outage_with_one_warning_and_catches_up(postgres_config, caplog):
    """The projector's loop on a link to PostgreSQL the test cuts for 8 s while orders go on
    being recorded on a direct connection: one warning when the store stops answering and one
    line when the projector goes on, no traceback (before: one every poll), and the views then
    catch up with every order."""
    import logging
    import threading

    from domain.service import Warlog
    from domain.storage import config_from_env
    from projections.runner import Projections, Projector
    from tests.conftest import make_app, new_freeform_game

    writer = make_app(postgres_config)
    link = CuttableLink.to_postgres(postgres_config)
    url = link.database_url(postgres_config)
    app = Warlog(config_from_env({"WARLOG_DATABASE_URL": url}))
    projections = Projections(app)
    projector = Projector(projections, poll_seconds=0.2)
    thread = threading.Thread(target=projector.run, daemon=True)
    game = new_freeform_game(writer)

    def caught_up() -> bool:
        return projections.position() == writer.recorder.max_notification_id()

    try:
        with caplog.at_level(logging.INFO, logger="warlog.projector"):
            thread.start()
            wait_until(caught_up, 20, "the projector never caught up before the outage")
            link.cut()
            for n in range(8):
                writer.submit_order(game, "Blue", f"during-{n}", roll(f"during {n}"))
                time.sleep(1)
            assert not [r for r in caplog.records if "going on again" in r.getMessage()]
            link.restore()
            wait_until(lambda: any("going on again" in r.getMessage() for r in caplog.records), 30,
                       "the projector never got through again")
            link_back = time.monotonic()
            wait_until(caught_up, 20, "the projector never caught up after the outage")
        records = [r for r in caplog.records if r.name == "warlog.projector"]
        warnings = [r.getMessage() for r in records if r.levelname == "WARNING"]
        assert len(warnings) == 2 and "projector: the store does not answer" in warnings[0], warnings
        assert warnings[1].startswith("projector: going on again"), warnings
        assert not [r for r in records if r.exc_info or r.levelname == "ERROR"]
        view = projections.store.load([game], ("map",))[game]["map"]  # as stored, not caught up here
        assert view["version"] == writer.get_game(game).version
        assert time.monotonic() - link_back < 20
    finally:
        projector.stop()
        link.restore()
        thread.join(timeout=30)
        app.close()
        writer.close()
        link.close()
