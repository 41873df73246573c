"""The PostgreSQL recorder warlog saves events with: eventsourcing's, each save ONE statement.

eventsourcing's ``PostgresApplicationRecorder.insert_events`` sends ``SET LOCAL lock_timeout``,
``LOCK TABLE ... IN EXCLUSIVE MODE``, ``NOTIFY`` and the ``INSERT ... RETURNING`` in a pipeline,
waits for their results, then sends ``COMMIT``: two round trips, with the table lock held across
the first answer's way back to the client and the ``COMMIT``'s way to the server. That lock
keeps notification ids in commit order (the projector relies on it), so every writer of every
process waits while a web worker reads the answer and sends the ``COMMIT`` — which in a worker
serving many requests means waiting for its turn to run as well.

``OneTripRecorder`` runs the same statements in a server-side function (created with the tables)
called by one statement in autocommit mode: the lock is taken, the rows inserted and the
transaction committed without the client in between, and the rows go as four binary arrays
instead of an array of a composite type dumped as text. What is stored, in which order, with
which notification ids, is what eventsourcing's recorder stores; a version already stored is the
same ``IntegrityError``; the lock timeout is the calling process's (``WARLOG_LOCK_TIMEOUT``),
passed with the rows. The same statement checks the save's guards first (``storage.Guard``: the
stored rows a cached game was built from are still those rows, byte for byte, and none came
after them; domain/service.py says why at the save), before it takes the table's lock, and
fails with the games whose rows changed or grew (``StaleCopies``) having written nothing. Two
things differ:

- a lock not granted within the timeout, or no connection from the pool within the connect
  timeout (the database unreachable), fails the save, and a read, at once
  (``storage.retry_store``); eventsourcing's recorder tries ten times, so a request waited ten
  timeouts before its 503 ``store_unavailable``. A lost connection is tried again as
  eventsourcing tries it. The same goes for the reads of the notification log and for the
  snapshots (``SnapshotRecorder``); ``Factory`` is the persistence module that puts both
  recorders in place;
- a statement that reached the server is committed even if the process that sent it dies
  while it runs (eventsourcing's transaction would be rolled back, its ``COMMIT`` never sent).
  The client of that process gets no answer either way and sends the order again under the
  same Idempotency-Key (docs/api.md).
"""

from __future__ import annotations

import struct
from typing import Any, Sequence
from uuid import UUID

import psycopg
from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import (PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresDatastore,
                                   PostgresFactory)
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier, Literal

from domain.storage import PG_ROWS, Guard, StaleCopies, retry_store


# ------------------------------------------------------------------ rows as binary arrays ----
# A save sends its rows as four one-dimensional arrays in PostgreSQL's binary format, built here:
# psycopg's list dumper works out each list's element type and dumper at every execution, which
# cost more than the rest of turning the statement's parameters into bytes.
class _Array(bytes):
    """A one-dimensional array without NULLs, in PostgreSQL's binary format (``_array``), of the
    type with oid ``array_oid`` and elements of the type with oid ``element_oid``."""

    element_oid = array_oid = 0


class UuidArray(_Array):
    element_oid, array_oid = 2950, 2951


class BigintArray(_Array):
    element_oid, array_oid = 20, 1016


class TextArray(_Array):
    element_oid, array_oid = 25, 1009


class ByteaArray(_Array):
    element_oid, array_oid = 17, 1001


class IntegerArray(_Array):
    element_oid, array_oid = 23, 1007


for _cls in (UuidArray, BigintArray, TextArray, ByteaArray, IntegerArray):
    psycopg.adapters.register_dumper(_cls, type(f"{_cls.__name__}Dumper", (Dumper,), {
        "format": Format.BINARY, "oid": _cls.array_oid, "dump": lambda self, obj: obj}))

_HEAD = struct.Struct("!iiiii")  # dimensions, has NULLs, element type, length, lower bound
_SIZE = struct.Struct("!i")
_BIGINT = struct.Struct("!iq")  # an element's size (8), then the element


def _head(cls: type[_Array], length: int, nulls: bool = False) -> bytes:
    return _HEAD.pack(1, 1 if nulls else 0, cls.element_oid, length, 1)


_NULL = _SIZE.pack(-1)
_INTEGER = struct.Struct("!ii")  # an element's size (4), then the element


def _array(cls: type[_Array], elements: list[bytes | None]) -> _Array:
    """An array of ``elements``, each its binary form, None for NULL."""
    parts = [_head(cls, len(elements), None in elements)]
    for element in elements:
        if element is None:
            parts.append(_NULL)
        else:
            parts.append(_SIZE.pack(len(element)))
            parts.append(element)
    return cls(b"".join(parts))


def bigints(values: list[int]) -> BigintArray:
    """A ``bigint[]`` of ``values``."""
    return BigintArray(_head(BigintArray, len(values)) + b"".join(_BIGINT.pack(8, value) for value in values))


def ints(values: list[int]) -> IntegerArray:
    """An ``integer[]`` of ``values``."""
    return IntegerArray(_head(IntegerArray, len(values)) + b"".join(_INTEGER.pack(4, v) for v in values))


def _text(value: Any) -> bytes | None:
    kind = type(value)
    if kind is str:
        return value.encode("utf-8")
    if kind is bytes or value is None:
        return value
    if kind is int:
        return str(value).encode()
    raise TypeError(f"a text array holds str, bytes, int or None, not {kind.__name__}")


def texts(values: list) -> TextArray:
    """A ``text[]`` of ``values``: str, UTF-8 bytes (orjson's output as it is), None for NULL,
    and an int as its digits (as PostgreSQL's assignment of a number to a text column writes it)."""
    return _array(TextArray, [_text(value) for value in values])


def binary_rows(stored_events: Sequence[StoredEvent]) -> tuple[_Array, _Array, _Array, _Array]:
    """The originator ids, versions, topics and states of ``stored_events`` as the four arrays
    of an ``unnest`` (ids of the ``uuid`` type as UuidArray, any other as TextArray)."""
    ids = [e.originator_id for e in stored_events]
    if all(type(i) is UUID for i in ids):
        id_array = _array(UuidArray, [i.bytes for i in ids])
    else:
        id_array = _array(TextArray, [str(i).encode() for i in ids])
    return (id_array, bigints([e.originator_version for e in stored_events]),
            _array(TextArray, [e.topic.encode() for e in stored_events]),
            _array(ByteaArray, [bytes(e.state) for e in stored_events]))


def binary_guards(guards: Sequence[Guard], text_ids: bool) -> tuple[_Array, _Array, _Array, _Array, _Array]:
    """The games, ``after``, ``upto``, row counts and digests of ``guards`` as five arrays (the
    games' ids of the ``uuid`` type unless ``text_ids``)."""
    if text_ids:
        id_array = _array(TextArray, [str(g.originator_id).encode() for g in guards])
    else:
        id_array = _array(UuidArray, [g.originator_id.bytes for g in guards])
    return (id_array, bigints([g.after for g in guards]), bigints([g.upto for g in guards]),
            bigints([g.rows for g in guards]), _array(ByteaArray, [g.digest for g in guards]))


# The SQLSTATE the insert function raises when a guard finds changed rows; the message's detail
# holds the (1-based) positions of those guards.
STALE_COPIES = "WL001"


class OneTripRecorder(PostgresApplicationRecorder):
    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        schema, table = Identifier(self.datastore.schema), Identifier(events_table_name)
        function = Identifier(f"{events_table_name}_insert")
        id_type = Identifier(self.datastore.originator_id_type)
        # The guards' digest is RowDigests' (storage.PG_ROWS), over each guard's rows after..upto.
        # The function's statements are planned once per connection (plan_cache_mode): left to
        # choose, PL/pgSQL planned the guards' statement again at every call, and a guarded save
        # took 0.80 ms instead of 0.59 (one process, one save after another). A save without
        # guards (a game just loaded, a new one) skips that statement, which cost it 0.2 ms.
        self.sql_create_statements.append(SQL(
            "CREATE OR REPLACE FUNCTION {schema}.{function}("
            "ids {id_type}[], versions bigint[], topics text[], states bytea[], wait text, "
            "guard_ids {id_type}[], guard_after bigint[], guard_upto bigint[], guard_rows bigint[], "
            "guard_digests bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan "
            "AS $body$ DECLARE stale text; BEGIN "
            "IF cardinality(guard_ids) > 0 THEN "
            "SELECT string_agg(g.pos::text, ' ') INTO stale "
            "FROM unnest(guard_ids, guard_after, guard_upto, guard_rows, guard_digests) "
            "WITH ORDINALITY AS g(gid, gafter, gupto, grows, gdigest, pos), "
            "LATERAL (SELECT count(*) AS n, sha256(coalesce({rows}, ''::bytea)) AS digest FROM {schema}.{table} e "
            "WHERE e.originator_id = g.gid AND e.originator_version > g.gafter "
            "AND e.originator_version <= g.gupto) AS s "
            "WHERE s.n <> g.grows OR s.digest <> g.gdigest OR EXISTS (SELECT 1 FROM {schema}.{table} e "
            "WHERE e.originator_id = g.gid AND e.originator_version > g.gupto); "
            "IF stale IS NOT NULL THEN "
            "RAISE EXCEPTION USING ERRCODE = {stale_code}, MESSAGE = 'stored rows changed under cached copies', "
            "DETAIL = stale; END IF; END IF; "
            "PERFORM set_config('lock_timeout', wait, true); "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
            "END $body$").format(
                schema=schema, function=function, table=table, id_type=id_type,
                stale_code=Literal(STALE_COPIES), channel=Identifier(self.channel_name), rows=SQL(PG_ROWS)))
        # Rendered once: a composed statement is rendered again at every execution.
        self.insert_statement = SQL(
            "SELECT {schema}.{function}(%b, %b::bigint[], %b, %b, %s, %b, %b::bigint[], %b::bigint[], "
            "%b::bigint[], %b)").format(schema=schema, function=function).as_string()

    # eventsourcing's reads, with warlog's retry instead of its own: a game's events, and the
    # head of the log (a read of the games list catches the index up to it first).
    select_events = retry_store(PostgresApplicationRecorder.select_events.__wrapped__)
    select_notifications = retry_store(PostgresApplicationRecorder.select_notifications.__wrapped__)
    max_notification_id = retry_store(PostgresApplicationRecorder.max_notification_id.__wrapped__)

    @retry_store  # a lost connection is tried again; a lock or a connection waited out is not
    def insert_events(self, stored_events: Sequence[StoredEvent], *, guards: Sequence[Guard] = (),
                      **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        params = (*binary_rows(stored_events), f"{self.datastore.lock_timeout}s",
                  *binary_guards(guards, self.datastore.originator_id_type == "text"))
        with self.datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            assert conn.autocommit  # the statement is its own transaction
            try:
                curs.execute(self.insert_statement, params, prepare=True)
            except psycopg.Error as exc:
                if exc.sqlstate != STALE_COPIES:
                    raise
                raise StaleCopies(guards[int(pos) - 1].originator_id for pos in exc.diag.message_detail.split()) from None
            return [row[0] for row in curs.fetchall()]


# ------------------------------------------------------------------ lz4 for large columns ----
def compress_with_lz4(curs: Any, table: str, column: str) -> None:
    """``ALTER TABLE table ALTER COLUMN column SET COMPRESSION lz4`` where the server has lz4
    (PostgreSQL 14 and later, built with it) and the column is not lz4 already; ``table`` as
    written in SQL (schema-qualified where it has to be).

    The default, pglz, is the slower by far: a 27 KB Falklands snapshot cost the database 0.87 ms
    of CPU to insert with it against 0.47 with lz4 (bench/findings.md, item 33), and pglz took
    about two thirds of the time of writing a batch of read-model views. Values already stored
    keep their compression; both are read alike."""
    curs.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
    if curs.fetchone() is None:
        return
    curs.execute("SELECT a.attcompression FROM pg_attribute a WHERE a.attrelid = %s::regclass AND a.attname = %s",
                 (table, column))
    row = curs.fetchone()  # a dict: eventsourcing's datastore reads rows as dicts
    if row is not None and row["attcompression"] != "l":
        curs.execute(SQL("ALTER TABLE {} ALTER COLUMN {} SET COMPRESSION lz4").format(
            SQL(table), Identifier(column)))


class SnapshotRecorder(PostgresAggregateRecorder):
    """eventsourcing's recorder of the games' snapshots, with warlog's retry instead of its own,
    and the rows sent as binary arrays.

    A game not in a process's cache is loaded from its latest snapshot: with the database gone,
    eventsourcing's ten attempts, each waiting the connect timeout for a connection, held that
    request for about half a minute before its 503.

    eventsourcing sends the rows as an array of a composite type, dumped as text: the snapshot's
    bytes hex-escaped in Python. An insert of a Falklands snapshot of 29 KB (one is taken every
    100 events: every 15 orders or so) took 1.43-1.67 ms of CPU that way, and takes 0.24-0.26 ms
    with the rows as four binary arrays, as ``OneTripRecorder`` sends events. The same rows in
    the same table, in one statement."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name=events_table_name)
        self.insert_statement = SQL(
            "INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(%b, %b::bigint[], %b, %b)").format(
                schema=Identifier(self.datastore.schema), table=Identifier(events_table_name)).as_string()

    select_events = retry_store(PostgresAggregateRecorder.select_events.__wrapped__)

    def _create_table(self, curs: Any) -> None:
        """eventsourcing's table, its ``state`` (a snapshot is tens of kilobytes) compressed with
        lz4 (``compress_with_lz4``); run by every ``warlog migrate``, so a store made before
        takes it too (its stored snapshots stay as they are)."""
        super()._create_table(curs)
        compress_with_lz4(curs, SQL("{}.{}").format(Identifier(self.datastore.schema),
                                                   Identifier(self.events_table_name)).as_string(), "state")

    @retry_store
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if stored_events:
            params = binary_rows(stored_events)
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                assert conn.autocommit  # the statement is its own transaction
                curs.execute(self.insert_statement, params, prepare=True)
        return None


# Seconds psycopg_pool goes on trying to replace a lost connection before it gives up on it.
RECONNECT_TIMEOUT = 10.0


class Factory(PostgresFactory):
    """eventsourcing's PostgreSQL persistence with warlog's recorders (``PERSISTENCE_MODULE``),
    and a pool that takes a database that comes back up within seconds.

    psycopg_pool replaces a lost connection with attempts 1, 2, 4, 8 ... seconds apart for its
    ``reconnect_timeout`` (5 minutes by default), and while they run a request that finds no
    connection waits for them: after an outage of a minute the next attempt could be a minute
    away, and every request until then answered 503. Once the attempts give up, the next request
    that finds no connection starts a new one at once; ``RECONNECT_TIMEOUT`` (10 s) keeps the
    gaps between attempts under 5 s."""

    aggregate_recorder_class = SnapshotRecorder
    application_recorder_class = OneTripRecorder

    def __init__(self, env: Any):
        super().__init__(env)
        self.datastore.pool.reconnect_timeout = RECONNECT_TIMEOUT
