"""The SQLite recorder warlog saves events with: eventsourcing's, with a save's guards checked in
the transaction that writes its rows.

A game taken from a process's cache is saved with a ``storage.Guard``: the stored rows its copy
was built from must still be those rows, byte for byte (domain/service.py says why it is checked
at the save). Here the guards are read after the rows are inserted, so in the write transaction
that holds SQLite's write lock: eventsourcing begins its transaction deferred, and a read before
the first write would take a read snapshot that another connection's commit (the projector's,
in the same file) could make too old to write from (``SQLITE_BUSY_SNAPSHOT``, which SQLite's busy
handler does not wait out). Rows another process added after a guard's ``upto`` meet the
inserted rows on the table's primary key first: the save fails as a lost race does.
"""

from __future__ import annotations

from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor, SQLiteDatastore, SQLiteFactory

from domain.storage import Guard, StaleCopies, digest_rows


class GuardedRecorder(SQLiteApplicationRecorder):
    def __init__(self, datastore: SQLiteDatastore, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name)
        self.guard_statement = (f"SELECT originator_version, state FROM {self.events_table_name} "
                                "WHERE originator_id = ? AND originator_version > ? AND originator_version <= ? "
                                "ORDER BY originator_version")

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], *,
                       guards: Sequence[Guard] = (), **kwargs: Any) -> Sequence[int] | None:
        notification_ids = super()._insert_events(c, stored_events, **kwargs)
        stale = []
        for guard in guards:
            oid = guard.originator_id
            c.execute(self.guard_statement, (oid.hex if isinstance(oid, UUID) else oid, guard.after, guard.upto))
            count, digest, _ = digest_rows(((row[0], row[1]) for row in c.fetchall()), guard.after, guard.upto)
            if count != guard.rows or digest != guard.digest:
                stale.append(oid)
        if stale:
            raise StaleCopies(stale)  # the transaction is rolled back: nothing of the save is written
        return notification_ids


class Factory(SQLiteFactory):
    """eventsourcing's SQLite persistence with warlog's recorder (``PERSISTENCE_MODULE``)."""

    application_recorder_class = GuardedRecorder
