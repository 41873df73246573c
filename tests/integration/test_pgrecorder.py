"""domain/pgrecorder.py: warlog's saves on PostgreSQL are one statement each, and store exactly
what eventsourcing's own recorder stores."""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder

from domain.pgrecorder import OneTripRecorder, SnapshotRecorder, bigints, ints, texts
from domain.service import Warlog
from tests.conftest import make_app, new_freeform_game
from tests.reliability.faults import pg_dsn, table, writes_blocked

pytestmark = pytest.mark.postgres


@pytest.fixture
def recorders(postgres_config):
    """warlog's recorder and eventsourcing's, each on its own table of one schema."""
    app = make_app(postgres_config)
    try:
        datastore = app.recorder.datastore
        theirs = PostgresApplicationRecorder(datastore, events_table_name="reference_events")
        theirs.create_table()
        yield app.recorder, theirs
    finally:
        app.close()


def events(n: int, originator: uuid.UUID | None = None, first: int = 1) -> list[StoredEvent]:
    originator = originator or uuid.uuid4()
    return [StoredEvent(originator, v, f"tests:Event{v % 3}", f'{{"n": {v}, "text": "\\u00e9\\u0000"}}'.encode())
            for v in range(first, first + n)]


def test_warlog_saves_on_postgresql_with_the_one_statement_recorder(postgres_config):
    app = make_app(postgres_config)
    try:
        assert isinstance(app.recorder, OneTripRecorder)
    finally:
        app.close()


def test_the_rows_and_notification_ids_are_those_eventsourcings_recorder_gives(recorders):
    ours, theirs = recorders
    batches = [events(1), events(7), events(3) + events(4), events(64)]
    for batch in batches:
        assert ours.insert_events(batch) == theirs.insert_events(batch)
    for batch in batches:
        for originator in {e.originator_id for e in batch}:
            assert ours.select_events(originator) == theirs.select_events(originator)
    assert ours.select_notifications(1, 1000) == theirs.select_notifications(1, 1000)
    assert ours.max_notification_id() == theirs.max_notification_id() == sum(len(b) for b in batches)


def test_snapshots_are_stored_as_eventsourcings_recorder_stores_them(postgres_config):
    """The snapshot recorder sends binary arrays instead of eventsourcing's composite text: the
    same rows, read back by either recorder; a version stored twice is an IntegrityError."""
    app = make_app(postgres_config)
    try:
        ours = app.snapshots.recorder
        assert isinstance(ours, SnapshotRecorder)
        theirs = PostgresAggregateRecorder(ours.datastore, events_table_name="reference_snapshots")
        theirs.create_table()
        big = StoredEvent(uuid.uuid4(), 100, "domain.game:Game.Snapshot", bytes(range(256)) * 400)
        batches = [events(1), events(3) + events(2), [big]]
        for batch in batches:
            assert ours.insert_events(batch) is theirs.insert_events(batch) is None
        for batch in batches:
            for originator in {e.originator_id for e in batch}:
                assert ours.select_events(originator) == theirs.select_events(originator)
                assert ours.select_events(originator) == [e for e in batch if e.originator_id == originator]
        with pytest.raises(IntegrityError):
            ours.insert_events([big])
        # The service's snapshots (every 20 events here) load back: a process without the game
        # in memory reads the latest and the events after it.
        game = new_freeform_game(app)
        for n in range(45):
            app.submit_order(game, "Blue", f"n{n}", {"kind": "note", "text": f"note {n}"})
        latest = ours.select_events(uuid.UUID(game), desc=True, limit=1)[0]
        assert latest.originator_version == 40
        other = Warlog(postgres_config)
        try:
            loaded, kept = other.get_game(game), app.get_game(game)
            assert (loaded.version, loaded.state, loaded.chain_head) == (kept.version, kept.state, kept.chain_head)
        finally:
            other.close()
    finally:
        app.close()


def test_arrays_built_in_binary_read_back_as_postgresql_reads_them(postgres_config):
    """``texts``, ``ints`` and ``bigints`` (the projector's rows as ``unnest`` of arrays): NULLs,
    text past ASCII and NUL-free control characters, UTF-8 bytes as they are, ints as digits,
    the ends of each integer range, empty arrays."""
    values = ["plain", None, "caf\u00e9 \U0001f3b2", "", "tab\there", '{"a": [1, "\\""]}'.encode(), 42, -7]
    with psycopg.connect(pg_dsn(postgres_config), autocommit=True) as conn:
        got = conn.execute("SELECT %s::text[], %s::integer[], %s::bigint[], %s::text[], %s::bigint[]",
                           (texts(values), ints([0, -1, 2**31 - 1, -2**31]), bigints([0, -1, 2**63 - 1, -2**63]),
                            texts([]), bigints([]))).fetchone()
    assert got == (["plain", None, "caf\u00e9 \U0001f3b2", "", "tab\there", '{"a": [1, "\\""]}', "42", "-7"],
                   [0, -1, 2**31 - 1, -2**31], [0, -1, 2**63 - 1, -2**63], [], [])
    with pytest.raises(TypeError, match="not float"):
        texts(["a", 1.5])


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


def test_a_version_already_stored_is_an_integrity_error_and_writes_nothing_of_the_batch(recorders):
    ours, _ = recorders
    stored = events(3)
    ours.insert_events(stored)
    fresh = events(2)
    with pytest.raises(IntegrityError):
        ours.insert_events(fresh + [StoredEvent(stored[0].originator_id, 3, "tests:Again", b"{}")])
    assert ours.select_events(fresh[0].originator_id) == []
    assert ours.select_events(stored[0].originator_id) == stored
    assert ours.max_notification_id() == 3


def test_a_save_waits_for_the_events_table_lock_and_commits_without_the_client(postgres_config):
    """The statement takes the same EXCLUSIVE lock as eventsourcing's recorder (so notification
    ids follow commit order) and commits by itself: nothing is left for the client to send."""
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
            # The waiting backend runs one statement: the insert function, nothing after it.
            with psycopg.connect(pg_dsn(postgres_config), autocommit=True) as conn:
                queries = [q for (q,) in conn.execute(
                    "SELECT a.query FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                    "WHERE NOT l.granted AND l.relation = %s::regclass", (hold.relation,))]
            assert len(queries) == 1 and "warlog_events_insert" in queries[0], queries
        writer.join(10)
        assert done.is_set()
        assert app.get_game(game).version > before
        with psycopg.connect(pg_dsn(postgres_config)) as conn:
            ids = [n for (n,) in conn.execute(f"SELECT notification_id FROM {table(postgres_config, 'warlog_events')} "
                                              "ORDER BY notification_id")]
        assert ids == list(range(1, len(ids) + 1))
    finally:
        app.close()


def test_the_binary_arrays_hold_what_psycopg_would_send():
    """pgrecorder.binary_rows builds PostgreSQL's binary array format itself: the server reads
    back the same ids (uuid or text), versions (past 32 bits too), topics and states (any bytes)."""
    from domain.pgrecorder import binary_rows
    from tests.conftest import PG_URL, _dsn

    rows = events(3) + [StoredEvent(uuid.uuid4(), 2 ** 40, "tests:Ünïcode", b"\x00\xff" * 3000),
                        StoredEvent(uuid.uuid4(), 1, "", b"")]
    texts = [StoredEvent(f"game-{n}", e.originator_version, e.topic, e.state) for n, e in enumerate(rows)]
    with psycopg.connect(_dsn(PG_URL)) as conn:
        for batch, id_type in ((rows, "uuid"), (texts, "text")):
            got = conn.execute(f"SELECT * FROM unnest(%b::{id_type}[], %b::bigint[], %b::text[], %b::bytea[])",
                               binary_rows(batch)).fetchall()
            assert got == [(e.originator_id, e.originator_version, e.topic, e.state) for e in batch]
