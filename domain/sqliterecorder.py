"""The SQLite recorder warlog saves events with: eventsourcing's, with a save's guards checked in
the transaction that writes its rows.

A game taken from a process's cache is saved with a ``storage.Guard``: the stored rows its copy
was built from must still be those rows, byte for byte, and none may have come after them
(domain/service.py says why it is checked at the save). Here the guards are checked once the
rows are inserted, so in the write transaction that holds SQLite's write lock: eventsourcing
begins its transaction deferred, and a read before the first write would take a read snapshot
that another connection's commit (the projector's, in the same file) could make too old to write
from (``SQLITE_BUSY_SNAPSHOT``, which SQLite's busy handler does not wait out). A row another
process added after a guard's ``upto`` meets the game's new rows on the table's primary key (the
failed statement alone is undone, and the game is stale), or is counted among the rows after
``upto``; any stale game is named by ``StaleCopies``, and the whole transaction is rolled back,
as on PostgreSQL.
"""

from __future__ import annotations

import itertools
import sqlite3
from typing import Any, Sequence
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor, SQLiteDatastore, SQLiteFactory

from domain.storage import Guard, RowDigests, StaleCopies, digest_rows


class GuardedRecorder(SQLiteApplicationRecorder):
    def __init__(self, datastore: SQLiteDatastore, events_table_name: str = "stored_events"):
        super().__init__(datastore, events_table_name)
        # The rows after a guard's ``after``, as the cache's check reads them (digest_rows' input).
        self.guard_statement = RowDigests.SQLITE.format(table=self.events_table_name)

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], *,
                       guards: Sequence[Guard] = (), **kwargs: Any) -> Sequence[int] | None:
        if not guards:
            return super()._insert_events(c, stored_events, **kwargs)
        guarded = {guard.originator_id for guard in guards}
        stale, inserted, notification_ids = [], {}, []
        # A save's events come game by game (Warlog.save collects each game's together).
        for oid, group in itertools.groupby(stored_events, key=lambda event: event.originator_id):
            rows = list(group)
            if oid not in guarded:
                notification_ids += super()._insert_events(c, rows, **kwargs)
                continue
            try:
                notification_ids += super()._insert_events(c, rows, **kwargs)
                inserted[oid] = len(rows)
            except sqlite3.IntegrityError:  # a row after the guard's upto: another process's
                stale.append(oid)
        for guard in guards:
            oid = guard.originator_id
            if oid in stale:
                continue
            c.execute(self.guard_statement, (oid.hex if isinstance(oid, UUID) else oid, guard.after))
            found = [(row[0], row[1]) for row in c.fetchall()]
            count, digest, _ = digest_rows(found, guard.after, guard.upto)
            if count != guard.rows or digest != guard.digest or len(found) - count != inserted.get(oid, 0):
                stale.append(oid)
        if stale:
            raise StaleCopies(stale)  # the transaction is rolled back: nothing of the save is written
        return notification_ids


class Factory(SQLiteFactory):
    """eventsourcing's SQLite persistence with warlog's recorder (``PERSISTENCE_MODULE``)."""

    application_recorder_class = GuardedRecorder
