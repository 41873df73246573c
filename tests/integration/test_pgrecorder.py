"""domain/pgrecorder.py: eventsourcing's PostgreSQL persistence, with a wait run out not retried,
the snapshots compressed with lz4, and the arrays projections/store.py writes with."""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
import uuid

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder

from domain.pgrecorder import Datastore, SnapshotRecorder
from domain.storage import StoreWaitedOut, retry_store, store_not_answering
from tests.conftest import make_app, new_freeform_game
from tests.reliability.faults import pg_dsn, table, writes_blocked

pytestmark = pytest.mark.postgres


def events(n: int, originator: uuid.UUID | None = None, first: int = 1) -> list[StoredEvent]:
    originator = originator or uuid.uuid4()
    return [StoredEvent(originator, v, f"tests:Event{v % 3}", f'{{"n": {v}, "text": "\\u00e9\\u0000"}}'.encode())
            for v in range(first, first + n)]


def test_warlog_saves_with_eventsourcings_recorders_on_warlogs_datastore(postgres_config):
    app = make_app(postgres_config)
    try:
        assert type(app.recorder) is PostgresApplicationRecorder
        assert isinstance(app.snapshots.recorder, SnapshotRecorder)
        assert type(app.recorder.datastore) is Datastore
    finally:
        app.close()


def test_a_lock_not_granted_is_store_waited_out_after_one_wait(postgres_config):
    """eventsourcing's recorder retries an OperationalError ten times; a lock not granted within
    the lock timeout is ``StoreWaitedOut`` (a 503), raised after one timeout and not retried."""
    app = make_app(dataclasses.replace(postgres_config, lock_timeout=1))
    try:
        game = new_freeform_game(app)
        app.submit_order(game, "Blue", "o-0", {"kind": "roll", "dice": "1d6", "purpose": "seed drawn"})
        before = app.get_game(game).version
        with writes_blocked(postgres_config):
            started = time.monotonic()
            with pytest.raises(StoreWaitedOut) as raised:
                app.submit_order(game, "Blue", "o-1", {"kind": "roll", "dice": "1d6", "purpose": "waits"})
            assert time.monotonic() - started < 2.5
        assert store_not_answering(raised.value)
        assert app.get_game(game).version == before
        assert app.submit_order(game, "Blue", "o-1", {"kind": "roll", "dice": "1d6", "purpose": "waits"}).version > before
    finally:
        app.close()


def test_no_connection_within_the_connect_timeout_is_store_waited_out_and_not_retried():
    with socket.socket() as closed:  # a port nobody listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    datastore = Datastore("postgres", "127.0.0.1", port, "postgres", "", connect_timeout=0.5)
    calls = []

    @retry_store
    def read():
        calls.append(1)
        with datastore.get_connection() as conn:
            return conn.execute("SELECT 1").fetchone()

    try:
        with pytest.raises(StoreWaitedOut):
            read()
        assert len(calls) == 1
    finally:
        datastore.close()


def test_snapshots_are_compressed_with_lz4_and_a_migrate_moves_an_older_store_to_it(postgres_config):
    """A snapshot is tens of kilobytes: its column is lz4 (``compress_with_lz4``), not pglz, and
    a store made before (its column pglz, a snapshot stored that way) is moved by the next
    migrate; the older snapshot still reads back."""
    app = make_app(postgres_config)
    try:
        recorder = app.snapshots.recorder
        name = f"{recorder.datastore.schema}.{recorder.events_table_name}"
        with psycopg.connect(pg_dsn(postgres_config), autocommit=True) as conn:
            def column() -> str:
                return conn.execute("SELECT attcompression FROM pg_attribute WHERE attrelid = %s::regclass "
                                    "AND attname = 'state'", (name,)).fetchone()[0]

            def stored(originator: uuid.UUID) -> str:
                return conn.execute(f"SELECT pg_column_compression(state) FROM {name} WHERE originator_id = %s",
                                    (originator,)).fetchone()[0]

            big = b'{"units": [' + b", ".join(b'{"id": "u%d", "area": "a%d"}' % (n, n % 40) for n in range(2000)) + b"]}"
            assert column() == "l"
            older = StoredEvent(uuid.uuid4(), 20, "domain.game:Game.Snapshot", big)
            conn.execute(f"ALTER TABLE {name} ALTER COLUMN state SET COMPRESSION pglz")
            recorder.insert_events([older])
            assert stored(older.originator_id) == "pglz"
            make_app(postgres_config).close()  # the next migrate
            assert column() == "l"
            newer = StoredEvent(uuid.uuid4(), 20, "domain.game:Game.Snapshot", big)
            recorder.insert_events([newer])
            assert stored(newer.originator_id) == "lz4"
            assert recorder.select_events(older.originator_id) == [older]
            assert recorder.select_events(newer.originator_id) == [newer]
    finally:
        app.close()


def test_a_version_already_stored_is_an_integrity_error_and_writes_nothing_of_the_batch(postgres_config):
    app = make_app(postgres_config)
    try:
        ours = app.recorder
        stored = events(3)
        ours.insert_events(stored)
        fresh = events(2)
        with pytest.raises(IntegrityError):
            ours.insert_events(fresh + [StoredEvent(stored[0].originator_id, 3, "tests:Again", b"{}")])
        assert ours.select_events(fresh[0].originator_id) == []
        assert ours.select_events(stored[0].originator_id) == stored
        assert ours.max_notification_id() == 3
    finally:
        app.close()


def test_a_save_waits_for_the_events_table_lock(postgres_config):
    """A save waits for eventsourcing's EXCLUSIVE lock of the events table (so notification ids
    follow commit order), and goes through once it is released."""
    app = make_app(postgres_config)
    try:
        game = new_freeform_game(app)
        before = app.get_game(game).version
        done = threading.Event()

        def order():
            app.submit_order(game, "Blue", "o-1", {"kind": "roll", "dice": "1d6", "purpose": "waits"})
            done.set()

        with writes_blocked(postgres_config) as hold:
            writer = threading.Thread(target=order)
            writer.start()
            hold.wait_for_waiter()
            assert not done.wait(0.3), "the save went through a lock it must wait for"
        writer.join(10)
        assert done.is_set()
        assert app.get_game(game).version > before
        with psycopg.connect(pg_dsn(postgres_config)) as conn:
            ids = [n for (n,) in conn.execute(f"SELECT notification_id FROM {table(postgres_config, 'warlog_events')} "
                                              "ORDER BY notification_id")]
        assert ids == list(range(1, len(ids) + 1))
    finally:
        app.close()
