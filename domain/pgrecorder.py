"""warlog's PostgreSQL persistence: eventsourcing's, with three settings of its own.

- A wait run out (a lock not granted within ``WARLOG_LOCK_TIMEOUT``, no connection within the
  connect timeout: the database unreachable) fails at once with ``StoreWaitedOut`` (a 503): the
  recorders' retries would otherwise wait as long again, ten times. A lost connection is still
  tried again as eventsourcing tries it.
- The snapshots' ``state`` column is compressed with lz4 where the server has it.
- The pool takes a database that comes back up within seconds (``RECONNECT_TIMEOUT``).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from eventsourcing.persistence import OperationalError
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresDatastore, PostgresFactory
from psycopg.errors import LockNotAvailable
from psycopg.sql import SQL, Identifier
from psycopg_pool import PoolTimeout

from domain.storage import StoreWaitedOut


class Datastore(PostgresDatastore):
    """eventsourcing's datastore; a connection or a lock waited for as long as allowed is ``StoreWaitedOut``."""

    @contextmanager
    def get_connection(self) -> Iterator[Any]:
        try:
            with super().get_connection() as conn:
                yield conn
        except OperationalError as exc:
            if isinstance(exc.__cause__, (LockNotAvailable, PoolTimeout)):
                raise StoreWaitedOut(str(exc)) from exc.__cause__
            raise


def compress_with_lz4(curs: Any, table: str, column: str) -> None:
    """``ALTER TABLE table ALTER COLUMN column SET COMPRESSION lz4`` where the server has lz4
    (PostgreSQL 14 and later, built with it) and the column is not lz4 already; ``table`` as
    written in SQL (schema-qualified where it has to be). lz4 is much cheaper than the default
    pglz for large values; values already stored keep their compression, both read alike."""
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
    """eventsourcing's recorder of the games' snapshots, its table's ``state`` (a snapshot is
    tens of kilobytes) compressed with lz4; run by every ``warlog migrate``."""

    def _create_table(self, curs: Any) -> None:
        super()._create_table(curs)
        compress_with_lz4(curs, SQL("{}.{}").format(Identifier(self.datastore.schema),
                                                   Identifier(self.events_table_name)).as_string(), "state")


# Seconds psycopg_pool goes on trying to replace a lost connection before it gives up on it.
RECONNECT_TIMEOUT = 10.0


class Factory(PostgresFactory):
    """eventsourcing's PostgreSQL persistence (``PERSISTENCE_MODULE``) with warlog's datastore
    and snapshot recorder.

    psycopg_pool replaces a lost connection with attempts 1, 2, 4, 8 ... seconds apart for its
    ``reconnect_timeout`` (5 minutes by default), and a request that finds no connection waits
    for them; once they give up, the next request starts new ones at once. ``RECONNECT_TIMEOUT``
    keeps the gaps short, so a database back up after an outage is taken up within seconds."""

    aggregate_recorder_class = SnapshotRecorder

    def __init__(self, env: Any):
        super().__init__(env)
        # eventsourcing's factory names no datastore class to build: its datastore becomes warlog's.
        self.datastore.__class__ = Datastore
        self.datastore.pool.reconnect_timeout = RECONNECT_TIMEOUT
