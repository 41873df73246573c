"""Where the read models live: tables beside the event store (the SQLite file or the PostgreSQL
schema), written through the event store's own datastore.

- ``warlog_projection_views``: one row per (projection, game): the view as JSON and the seq it
  has folded up to (``version``).
- ``warlog_games_index`` and ``warlog_games_index_seats``: the games list, in columns a query can
  filter and sort on (status, ruleset, handles, whose move, last activity).
- ``warlog_projection_tracking``: per projection, the last notification id the projector has
  folded. It is written in the same transaction as the rows of that batch.
- ``warlog_projection_checkpoints``: the ``map`` view of a game right after every
  ``CHECKPOINT_EVERY``-th seq (the ruleset state and what the map view keeps beside it), written
  with the views that passed that seq; the state at a past seq is the nearest checkpoint at or
  before it plus the map fold of the few lines after it (``Projections.map_at``).

Every view write is guarded (``WHERE version < new version``): a view only ever moves forward, so
two writers (the projector and a web process catching a game up for read-your-writes) can race
without either undoing the other; the folds are deterministic, so a view at a given version is
the same whoever wrote it. A checkpoint is written once (``ON CONFLICT DO NOTHING``): the map
view at a seq never changes.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

from domain.storage import SqlTables, rowcount

VIEWS = "warlog_projection_views"
INDEX = "warlog_games_index"
INDEX_SEATS = "warlog_games_index_seats"
TRACKING = "warlog_projection_tracking"
CHECKPOINTS = "warlog_projection_checkpoints"

TABLES = {
    VIEWS: "projection TEXT NOT NULL, game_id TEXT NOT NULL, version BIGINT NOT NULL, body TEXT NOT NULL, "
           "PRIMARY KEY (projection, game_id)",
    INDEX: "game_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT, status TEXT NOT NULL, "
           "version BIGINT NOT NULL, chain_head TEXT, last_activity TEXT, ended TEXT",
    INDEX_SEATS: "game_id TEXT NOT NULL, seat TEXT NOT NULL, handle TEXT, to_move INTEGER NOT NULL, "
                 "PRIMARY KEY (game_id, seat)",
    TRACKING: "name TEXT PRIMARY KEY, position BIGINT NOT NULL",
    CHECKPOINTS: "game_id TEXT NOT NULL, version BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (game_id, version)",
}
INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {INDEX}_status ON {{t}}{INDEX} (status, last_activity)",
    f"CREATE INDEX IF NOT EXISTS {INDEX_SEATS}_handle ON {{t}}{INDEX_SEATS} (handle, to_move)",
)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class ProjectionStore(SqlTables):
    """The read models' views, the games index and the tracked positions."""

    TABLES = TABLES

    # ---------------------------------------------------------------------------- schema ----
    def create_tables(self) -> None:
        with self._db.transaction(commit=True) as c:
            self._create(c)
            for statement in INDEXES:
                c.execute(self.sql(statement))

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self._db.transaction(commit=True) as c:
            yield c

    # ------------------------------------------------------------------------------ reads ----
    def position(self, names: Iterable[str]) -> int:
        """The lowest tracked position of ``names`` (0 when one was never run)."""
        names = list(names)
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT name, position FROM {{t}}{TRACKING}"))
            found = {r["name"]: r["position"] for r in c.fetchall()}
        return min(int(found.get(n, 0)) for n in names)

    def load(self, game_ids: Iterable[str], names: Iterable[str]) -> dict[str, dict[str, dict]]:
        """{game_id: {projection: view}} for the rows that exist."""
        game_ids, names = list(game_ids), list(names)
        out: dict[str, dict[str, dict]] = {g: {} for g in game_ids}
        if not game_ids:
            return out
        with self._db.transaction(commit=False) as c:
            for chunk in _chunks(game_ids, 500):
                marks = ", ".join([self._p] * len(chunk))
                names_marks = ", ".join([self._p] * len(names))
                c.execute(self.sql(f"SELECT projection, game_id, body FROM {{t}}{VIEWS} WHERE game_id IN ({marks}) "
                                   f"AND projection IN ({names_marks})"),
                          (*chunk, *names))
                for r in c.fetchall():
                    out[r["game_id"]][r["projection"]] = json.loads(r["body"])
        return out

    def query_index(self, game_ids: Iterable[str], *, status: str | None = None, ruleset: str | None = None,
                    player: str | None = None, turn_of: str | None = None) -> list[dict]:
        """Index rows of ``game_ids`` that match the filters, newest activity first (in SQL)."""
        game_ids = list(game_ids)
        rows: list[dict] = []
        for chunk in _chunks(game_ids, 500):
            where = [f"i.game_id IN ({', '.join([self._p] * len(chunk))})"]
            params: list[Any] = list(chunk)
            if status is not None:
                where.append(f"i.status = {self._p}")
                params.append(status)
            if ruleset is not None:
                where.append(f"i.ruleset = {self._p}")
                params.append(ruleset)
            if player is not None:
                where.append(f"EXISTS (SELECT 1 FROM {self._prefix}{INDEX_SEATS} s WHERE s.game_id = i.game_id "
                             f"AND s.handle = {self._p})")
                params.append(player)
            if turn_of is not None:
                where.append(f"EXISTS (SELECT 1 FROM {self._prefix}{INDEX_SEATS} s WHERE s.game_id = i.game_id "
                             f"AND s.handle = {self._p} AND s.to_move = 1)")
                params.append(turn_of)
            with self._db.transaction(commit=False) as c:
                c.execute(f"SELECT i.* FROM {self._prefix}{INDEX} i WHERE {' AND '.join(where)}", tuple(params))
                rows.extend(dict(r) for r in c.fetchall())
        rows.sort(key=lambda r: r["game_id"])
        rows.sort(key=lambda r: r["last_activity"] or "", reverse=True)
        return rows

    def checkpoint(self, game_id: str, at: int) -> dict | None:
        """The map view of the nearest checkpoint at or before seq ``at``, or None."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT body FROM {{t}}{CHECKPOINTS} WHERE game_id = ? AND version <= ? "
                               "ORDER BY version DESC LIMIT 1"), (game_id, at))
            row = c.fetchone()
        return json.loads(row["body"]) if row is not None else None

    def checkpoints(self, game_id: str) -> dict[int, dict]:
        """{seq: map view} of every checkpoint of a game."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT version, body FROM {{t}}{CHECKPOINTS} WHERE game_id = ?"), (game_id,))
            return {int(r["version"]): json.loads(r["body"]) for r in c.fetchall()}

    def game_ids(self) -> list[str]:
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT DISTINCT game_id FROM {{t}}{VIEWS}"))
            return [r["game_id"] for r in c.fetchall()]

    # ----------------------------------------------------------------------------- writes ----
    def write_view(self, c: Any, name: str, game_id: str, view: dict) -> bool:
        """Upsert one view, only forward; True when the row was written."""
        c.execute(self.sql(f"INSERT INTO {{t}}{VIEWS} AS v (projection, game_id, version, body) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (projection, game_id) DO UPDATE SET version = excluded.version, "
                           "body = excluded.body WHERE v.version < excluded.version"),
                  (name, game_id, view["version"], dumps(view)))
        return rowcount(c) == 1

    def write_checkpoint(self, c: Any, game_id: str, view: dict) -> None:
        """Keep the map view at its version; a checkpoint already there is left as it is."""
        c.execute(self.sql(f"INSERT INTO {{t}}{CHECKPOINTS} (game_id, version, body) VALUES (?, ?, ?) "
                           "ON CONFLICT (game_id, version) DO NOTHING"), (game_id, view["version"], dumps(view)))

    def write_index(self, c: Any, row: dict) -> bool:
        c.execute(self.sql(f"INSERT INTO {{t}}{INDEX} AS i (game_id, ruleset, scenario, status, version, chain_head, "
                           "last_activity, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
                           "ruleset = excluded.ruleset, scenario = excluded.scenario, status = excluded.status, "
                           "version = excluded.version, chain_head = excluded.chain_head, "
                           "last_activity = excluded.last_activity, ended = excluded.ended "
                           "WHERE i.version < excluded.version"),
                  (row["game_id"], row["ruleset"], row["scenario"], row["status"], row["version"], row["chain_head"],
                   row["last_activity"], dumps(row["ended"])))
        if rowcount(c) != 1:
            return False
        c.execute(self.sql(f"DELETE FROM {{t}}{INDEX_SEATS} WHERE game_id = ?"), (row["game_id"],))
        for seat in row["seats"]:
            c.execute(self.sql(f"INSERT INTO {{t}}{INDEX_SEATS} (game_id, seat, handle, to_move) VALUES (?, ?, ?, ?)"),
                      (row["game_id"], seat["seat"], seat["handle"], 1 if seat["to_move"] else 0))
        return True

    def write_position(self, c: Any, names: Iterable[str], position: int) -> None:
        for name in names:
            c.execute(self.sql(f"INSERT INTO {{t}}{TRACKING} AS k (name, position) VALUES (?, ?) "
                               "ON CONFLICT (name) DO UPDATE SET position = excluded.position "
                               "WHERE k.position < excluded.position"), (name, position))

    def drop(self, game_id: str | None = None, names: Iterable[str] = ()) -> None:
        """Forget the views (index rows, checkpoints) of one game, or of every game and the positions."""
        with self._db.transaction(commit=True) as c:
            if game_id is None:
                for table in (VIEWS, INDEX, INDEX_SEATS, CHECKPOINTS, TRACKING):
                    c.execute(f"DELETE FROM {self._prefix}{table}")
            else:
                for table in (VIEWS, INDEX, INDEX_SEATS, CHECKPOINTS):
                    c.execute(self.sql(f"DELETE FROM {{t}}{table} WHERE game_id = ?"), (game_id,))


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
