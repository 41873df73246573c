"""Where the read models live: tables beside the event store (the SQLite file or the PostgreSQL
schema), written through the event store's own datastore.

- ``warlog_projection_views``: one row per (projection, game): the view as JSON (``dump_body``)
  and the seq it has folded up to (``version``). The ``history``, ``dice`` and ``vp`` views
  (``SPLIT``) grow with the game: from ``CHUNK`` seqs on, the row holds their head (what the fold
  carries from line to line) and their items are in
- ``warlog_projection_chunks``: ``CHUNK`` seqs of a split view's items per row, so that a batch
  writes the chunks its new seqs fall in (and the older ones a reveal or a take-back changed,
  ``folds.REACH``), not the whole game again.
- ``warlog_games_index`` and ``warlog_games_index_seats``: the games list, in columns a query can
  filter and sort on, and when the game's clock next has something due (``next_due``, for the
  clock sweep: ``due_games``).
- ``warlog_projection_tracking``: per projection, the last notification id folded, written in
  the same transaction as the rows of that batch.
- ``warlog_projection_checkpoints``: the ``map`` view of a game right after every
  ``CHECKPOINT_EVERY``-th seq, for the state at a past seq (``Projections.map_at``).

Every view write is guarded (``WHERE version < new version``): a view only moves forward, so the
projector and a web process catching a game up can race without undoing each other (the folds
are deterministic). A checkpoint is written once (``ON CONFLICT DO NOTHING``).
"""

from __future__ import annotations

import bisect
import json
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, NamedTuple

import lz4.frame
import orjson

from domain import clock as clocks
from domain.storage import SqlTables

VIEWS = "warlog_projection_views"
INDEX = "warlog_games_index"
INDEX_SEATS = "warlog_games_index_seats"
TRACKING = "warlog_projection_tracking"
CHECKPOINTS = "warlog_projection_checkpoints"
CHUNKS = "warlog_projection_chunks"
CHUNK = 200  # seqs per chunk row; a split view of fewer seqs is stored whole


class Split(NamedTuple):
    """How a view is kept as a head plus chunks: the key of its list of items (each with its
    ``seq``, in seq order), the key of a dict of entries keyed by the seq of an item as text
    (kept with that item's chunk), and whether there is an item for every seq (``dense``)."""

    items: str
    by_seq: str | None
    dense: bool


# The views kept as a head plus chunks: only these keys grow with the game. The history has an
# item per seq and the operations keyed by their first seq; the dice view a roll per DiceRolled,
# the VP track an entry per VPScored.
SPLIT = {"history": Split("items", "ops", True), "dice": Split("rolls", None, False),
         "vp": Split("track", None, False)}

TABLES = {
    VIEWS: "projection TEXT NOT NULL, game_id TEXT NOT NULL, version BIGINT NOT NULL, body {body}, "
           "PRIMARY KEY (projection, game_id)",
    INDEX: "game_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT, status TEXT NOT NULL, "
           "version BIGINT NOT NULL, chain_head TEXT, last_activity TEXT, ended TEXT, next_due TEXT, sandbox INTEGER",
    INDEX_SEATS: "game_id TEXT NOT NULL, seat TEXT NOT NULL, handle TEXT, to_move INTEGER NOT NULL, "
                 "PRIMARY KEY (game_id, seat)",
    TRACKING: "name TEXT PRIMARY KEY, position BIGINT NOT NULL",
    CHECKPOINTS: "game_id TEXT NOT NULL, version BIGINT NOT NULL, body {body}, PRIMARY KEY (game_id, version)",
    CHUNKS: "projection TEXT NOT NULL, game_id TEXT NOT NULL, chunk BIGINT NOT NULL, version BIGINT NOT NULL, "
            "body {body}, PRIMARY KEY (projection, game_id, chunk)",
}
INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {INDEX}_status ON {{t}}{INDEX} (status, last_activity)",
    f"CREATE INDEX IF NOT EXISTS {INDEX_SEATS}_handle ON {{t}}{INDEX_SEATS} (handle, to_move)",
    f"CREATE INDEX IF NOT EXISTS {INDEX}_due ON {{t}}{INDEX} (status, next_due)",
)


def dump_text(value: Any) -> str:
    """A view as strict JSON text (orjson: a NaN or an infinity, which only a log stored before
    the aggregate refused them can hold, is written as null)."""
    return orjson.dumps(value).decode("utf-8")


def dump_body(value: Any) -> bytes:
    """A view or checkpoint as SQLite stores it: its JSON in one LZ4 frame (a BLOB in the TEXT
    column), so that each commit has fewer pages to write. PostgreSQL stores ``dump_text`` and
    compresses it itself (lz4, ``create_tables``)."""
    return lz4.frame.compress(orjson.dumps(value))


def load_body(body: str | bytes) -> Any:
    """A stored body read back: JSON text, or an LZ4 frame of it (``dump_body``). Read with the
    standard library, which also reads what earlier versions wrote (NaN, ints past 64 bits)."""
    if isinstance(body, bytes):
        body = lz4.frame.decompress(body)
    return json.loads(body)


def chunk_of(seq: int) -> int:
    """The chunk a seq's item is kept in (``CHUNKS``)."""
    return (seq - 1) // CHUNK


def split_view(name: str, view: dict, since: int = 0) -> tuple[dict, list[tuple[int, int, dict]]]:
    """A ``SPLIT`` view as it is stored: its head (the view less its items and what is kept
    with them) and (chunk, version, body) for each chunk that holds an item of a seq after
    ``since``, version the view's. ``view`` must hold every item of those chunks (the whole
    view, or its open chunk as ``ProjectionStore.load(partial=True)`` reads it, widened to what
    a fold may change, with what was folded onto it): a chunk is written whole, so one written
    from part of its items would lose the rest. Where there is an item for every seq, that is
    checked (ValueError)."""
    spec = SPLIT[name]
    items_key, by_key = spec.items, spec.by_seq
    head = {k: v for k, v in view.items() if k != items_key and k != by_key}
    items, version = view[items_key], view["version"]
    first = chunk_of(since + 1)
    start = first * CHUNK + 1
    if not items or items[-1]["seq"] < start:
        return head, []
    at = bisect.bisect_left(items, start, key=_seq)
    by_seq = view[by_key] if by_key else {}
    keys = []  # the entries from ``start`` on: the last ones (kept in seq order)
    for key in reversed(by_seq):
        if int(key) < start:
            break
        keys.append(key)
    chunks: list[tuple[int, int, dict]] = []
    while at < len(items):
        k = chunk_of(items[at]["seq"])
        low, high = k * CHUNK + 1, (k + 1) * CHUNK
        end = bisect.bisect_right(items, high, lo=at, key=_seq)
        part = items[at:end]
        if spec.dense and (part[0]["seq"] != low or part[-1]["seq"] != low + len(part) - 1
                           or (not chunks and k != first)):
            short = first if not chunks and k != first else k
            raise ValueError(f"{name} view of version {version}: chunk {short} would be written without all "
                             f"its items (the view holds seqs {part[0]['seq']} to {part[-1]['seq']} of chunk {k})")
        body: dict[str, Any] = {items_key: part}
        if by_key:
            entries = body[by_key] = {}
            while keys and int(keys[-1]) <= high:
                key = keys.pop()
                entries[key] = by_seq[key]
        chunks.append((k, version, body))
        at = end
    return head, chunks


def _seq(item: dict) -> int:
    return item["seq"]


def join_view(name: str, head: dict, chunks: Iterable[dict]) -> dict:
    """A ``SPLIT`` view from its head and its chunks' bodies in order (``split_view``). A head
    that holds its items itself (written before the views were split) is the whole view."""
    spec = SPLIT[name]
    if spec.items in head:
        return head
    items: list[dict] = []
    by_seq: dict[str, Any] = {}
    for body in chunks:
        items.extend(body[spec.items])
        if spec.by_seq:
            by_seq.update(body[spec.by_seq])
    if spec.by_seq:  # the keys in the order of the fold's empty view: items last
        return {**head, spec.by_seq: by_seq, spec.items: items}
    return {**head, spec.items: items}


def widen(name: str, view: dict, older: Iterable[dict]) -> dict:
    """A view read with its open chunk only (``ProjectionStore.load(partial=True)``), with the
    items of the chunks before it (``ProjectionStore.load_chunks``) put back in front: what a
    fold that changes older items needs (``folds.REACH``)."""
    spec = SPLIT[name]
    start = chunk_of(view["version"] + 1) * CHUNK + 1
    items: list[dict] = []
    by_seq: dict[str, Any] = {}
    for body in older:
        items.extend(it for it in body[spec.items] if it["seq"] < start)
        if spec.by_seq:
            by_seq.update((k, v) for k, v in body[spec.by_seq].items() if int(k) < start)
    out = {**view, spec.items: [*items, *view[spec.items]]}
    if spec.by_seq:
        out[spec.by_seq] = {**by_seq, **view[spec.by_seq]}
    return out


class ProjectionStore(SqlTables):
    """The read models' views, the games index and the tracked positions."""

    TABLES = TABLES

    # ---------------------------------------------------------------------------- schema ----
    def create_tables(self) -> None:
        """The tables and indexes; on PostgreSQL the bodies compressed with lz4 where the server
        has it (faster to write than the default pglz). An index made before ``next_due`` gains
        the column, filled from the active games' map views (``_fill_next_due``)."""
        with self._db.transaction(commit=True) as c:
            body = "TEXT NOT NULL"
            if self.kind != "sqlite":
                c.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
                          "AND 'lz4' = ANY(enumvals)")
                if c.fetchone() is not None:
                    body = "TEXT COMPRESSION lz4 NOT NULL"
            for name, columns in TABLES.items():
                c.execute(f"CREATE TABLE IF NOT EXISTS {self._prefix}{name} ({columns.format(body=body)})")
            added = not self.has_column(c, INDEX, "next_due")
            if added:
                c.execute(f"ALTER TABLE {self._prefix}{INDEX} ADD COLUMN next_due TEXT")
            # An index made before ``sandbox``: its rows say NULL (not known) until the projector
            # writes them again; the games list reads such a row's view to tell (api/games.py).
            if not self.has_column(c, INDEX, "sandbox"):
                c.execute(f"ALTER TABLE {self._prefix}{INDEX} ADD COLUMN sandbox INTEGER")
            for statement in INDEXES:
                c.execute(self.sql(statement))
            if added:
                self._fill_next_due(c)

    def _fill_next_due(self, c: Any) -> None:
        """``next_due`` of the active games' index rows, from their map views at the row's version,
        in ``create_tables``'s transaction ``c`` (with the column it adds: both or neither)."""
        c.execute(self.sql(f"SELECT game_id FROM {{t}}{INDEX} WHERE status = 'active' ORDER BY game_id"))
        ids = [r["game_id"] for r in c.fetchall()]
        for part in _chunks(ids, 200):
            c.execute(self.sql(f"SELECT v.game_id, v.body FROM {{t}}{VIEWS} v JOIN {{t}}{INDEX} i "
                               "ON i.game_id = v.game_id AND i.version = v.version WHERE v.projection = 'map' "
                               f"AND v.game_id IN ({', '.join('?' * len(part))})"), tuple(part))
            rows = [(clocks.next_due(load_body(r["body"]).get("clock")), r["game_id"]) for r in c.fetchall()]
            rows = [row for row in rows if row[0] is not None]
            if rows:
                c.executemany(self.sql(f"UPDATE {{t}}{INDEX} SET next_due = ? WHERE game_id = ?"), rows)

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """A write transaction of read-model rows, committed without waiting for the disk: they
        are derived from the log and written with the position they were folded up to, so a
        commit lost to a crash only means those events are folded again. SQLite's
        ``synchronous=NORMAL`` (WAL: no fsync at commit), PostgreSQL's ``synchronous_commit = off``,
        for this transaction only: the event log's writes still wait for the disk."""
        if self.kind == "sqlite":
            with self._sqlite_relaxed() as c:
                yield c
            return
        with self._db.transaction(commit=True) as c:
            c.execute("SET LOCAL synchronous_commit = off")
            yield c

    @contextmanager
    def _sqlite_relaxed(self) -> Iterator[Any]:
        """An SQLite write transaction with ``synchronous=NORMAL``, the connection's own setting
        put back after it (the event store writes on the same pooled connections)."""
        with self._db.get_connection(commit=True) as conn:
            pragma = conn.cursor()
            pragma.execute("PRAGMA synchronous")
            before = int(pragma.fetchone()[0])
            pragma.execute("PRAGMA synchronous = NORMAL")
            try:
                with conn.transaction(commit=True) as c:
                    yield c
            finally:
                pragma.execute(f"PRAGMA synchronous = {before}")

    # ------------------------------------------------------------------------------ reads ----
    def position(self, names: Iterable[str]) -> int:
        """The lowest tracked position of ``names`` (0 when one was never run)."""
        names = list(names)
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT name, position FROM {{t}}{TRACKING}"))
            found = {r["name"]: r["position"] for r in c.fetchall()}
        return min(int(found.get(n, 0)) for n in names)

    def load(self, game_ids: Iterable[str], names: Iterable[str], *, partial: bool = False,
             whole: set | None = None) -> dict[str, dict[str, dict]]:
        """{game_id: {projection: view}} for the rows that exist. ``partial``: a ``SPLIT`` view
        with only its open chunk (the one the next seq falls in), what a fold of the next seqs needs. ``whole``
        gets (game id, projection) of a ``SPLIT`` view stored whole (shorter than ``CHUNK``): none
        of its chunks is stored yet, so its next write must write them all (``since`` 0)."""
        game_ids, names = list(game_ids), list(names)
        out: dict[str, dict[str, dict]] = {g: {} for g in game_ids}
        if not game_ids:
            return out
        split = [n for n in names if n in SPLIT]
        chunks: dict[tuple[str, str], list[dict]] = {}
        with self._db.transaction(commit=False) as c:
            for part in _chunks(game_ids, 500):
                marks = ", ".join([self._p] * len(part))
                names_marks = ", ".join([self._p] * len(names))
                query = (f"SELECT v.projection, v.game_id, -1 AS chunk, v.body FROM {{t}}{VIEWS} v "
                         f"WHERE v.game_id IN ({marks}) AND v.projection IN ({names_marks})")
                params: tuple = (*part, *names)
                if split:
                    # The chunks in the same statement as their heads: one snapshot, so of one version.
                    which = (f"AND k.chunk = (SELECT v.version / {CHUNK} FROM {{t}}{VIEWS} v "
                             "WHERE v.projection = k.projection AND v.game_id = k.game_id)") if partial else ""
                    query += (f" UNION ALL SELECT k.projection, k.game_id, k.chunk, k.body FROM {{t}}{CHUNKS} k "
                              f"WHERE k.game_id IN ({marks}) AND k.projection IN ({', '.join([self._p] * len(split))}) "
                              f"{which} ORDER BY 2, 1, 3")
                    params += (*part, *split)
                c.execute(self.sql(query), params)
                for r in c.fetchall():
                    gid = r["game_id"]
                    if r["chunk"] == -1:
                        out[gid][r["projection"]] = load_body(r["body"])
                    else:
                        chunks.setdefault((gid, r["projection"]), []).append(load_body(r["body"]))
        for gid, views in out.items():
            for name in split:
                if name in views:
                    if whole is not None and SPLIT[name].items in views[name]:
                        whole.add((gid, name))
                    views[name] = join_view(name, views[name], chunks.get((gid, name), ()))
        return out

    def load_chunks(self, game_id: str, name: str, low: int, high: int) -> list[dict]:
        """The bodies of a ``SPLIT`` view's chunks ``low`` to ``high - 1`` that exist, in order."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT body FROM {{t}}{CHUNKS} WHERE projection = ? AND game_id = ? AND chunk >= ? "
                               "AND chunk < ? ORDER BY chunk"), (name, game_id, low, high))
            return [load_body(r["body"]) for r in c.fetchall()]

    def query_index(self, game_ids: Iterable[str], *, status: str | None = None, ruleset: str | None = None,
                    player: str | None = None, turn_of: str | None = None, sandboxes: bool = True) -> list[dict]:
        """Index rows of ``game_ids`` that match the filters, newest activity first (in SQL);
        ``sandboxes`` False leaves out the rows known to be sandboxes (``sandbox`` NULL: not known)."""
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
            if not sandboxes:
                where.append("(i.sandbox IS NULL OR i.sandbox = 0)")
            with self._db.transaction(commit=False) as c:
                c.execute(f"SELECT i.* FROM {self._prefix}{INDEX} i WHERE {' AND '.join(where)}", tuple(params))
                rows.extend(dict(r) for r in c.fetchall())
        rows.sort(key=lambda r: r["game_id"])
        rows.sort(key=lambda r: r["last_activity"] or "", reverse=True)
        return rows

    def due_games(self, now: str) -> list[str]:
        """The ids of the active games whose clock has something due at ``now`` (a ``clock.stamp``):
        ``next_due`` at or before it, earliest first. One indexed query; no view is read."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT game_id FROM {{t}}{INDEX} WHERE status = 'active' AND next_due IS NOT NULL "
                               "AND next_due <= ? ORDER BY next_due, game_id"), (now,))
            return [r["game_id"] for r in c.fetchall()]

    def checkpoint(self, game_id: str, at: int) -> dict | None:
        """The map view of the nearest checkpoint at or before seq ``at``, or None."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT body FROM {{t}}{CHECKPOINTS} WHERE game_id = ? AND version <= ? "
                               "ORDER BY version DESC LIMIT 1"), (game_id, at))
            row = c.fetchone()
        return load_body(row["body"]) if row is not None else None

    def checkpoints(self, game_id: str) -> dict[int, dict]:
        """{seq: map view} of every checkpoint of a game."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT version, body FROM {{t}}{CHECKPOINTS} WHERE game_id = ?"), (game_id,))
            return {int(r["version"]): load_body(r["body"]) for r in c.fetchall()}

    def game_ids(self) -> list[str]:
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT DISTINCT game_id FROM {{t}}{VIEWS}"))
            return [r["game_id"] for r in c.fetchall()]

    # ----------------------------------------------------------------------------- writes ----
    def write_many(self, c: Any, *, views: Iterable[tuple[str, str, dict, int]] = (),
                   checkpoints: Iterable[tuple[str, dict]] = (), index: Iterable[dict] = (),
                   position: tuple[Iterable[str], int] | None = None) -> None:
        """The rows of a batch in transaction ``c``, one executemany a statement. A view, a chunk
        and an index row only move forward (``WHERE version < excluded.version``); a checkpoint is
        written once; an index row's seats are replaced only where the index row is now at their
        version (written here, or by a racing writer at the same version: the same seats).

        ``views``: (name, game id, view, since), ``since`` the version stored before: a ``SPLIT``
        view of ``CHUNK`` seqs or more is written as its head and the chunks that hold a seq after
        ``since`` (``split_view``); a shorter one whole. ``position``: (names, notification id),
        written last (``write_position``)."""
        body = dump_body if self.kind == "sqlite" else dump_text
        rows, chunks = [], []
        for name, gid, view, since in views:
            if name in SPLIT and view["version"] >= CHUNK:
                view, parts = split_view(name, view, since)
                chunks.extend((name, gid, k, version, body(part)) for k, version, part in parts)
            rows.append((name, gid, view["version"], body(view)))
        if chunks:
            c.executemany(self.sql(f"INSERT INTO {{t}}{CHUNKS} AS k (projection, game_id, chunk, version, body) "
                                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT (projection, game_id, chunk) DO UPDATE "
                                   "SET version = excluded.version, body = excluded.body "
                                   "WHERE k.version < excluded.version"), chunks)
        checkpoints = [(gid, view["version"], body(view)) for gid, view in checkpoints]
        if checkpoints:
            c.executemany(self.sql(f"INSERT INTO {{t}}{CHECKPOINTS} (game_id, version, body) VALUES (?, ?, ?) "
                                   "ON CONFLICT (game_id, version) DO NOTHING"), checkpoints)
        if rows:
            c.executemany(self.sql(f"INSERT INTO {{t}}{VIEWS} AS v (projection, game_id, version, body) "
                                   "VALUES (?, ?, ?, ?) ON CONFLICT (projection, game_id) DO UPDATE "
                                   "SET version = excluded.version, body = excluded.body "
                                   "WHERE v.version < excluded.version"), rows)
        index = list(index)
        if index:
            self._write_index(c, index)
        if position is not None:
            self.write_position(c, *position)

    def _write_index(self, c: Any, index: list[dict]) -> None:
        c.executemany(self.sql(f"INSERT INTO {{t}}{INDEX} AS i (game_id, ruleset, scenario, status, version, "
                               "chain_head, last_activity, ended, next_due, sandbox) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                               "ON CONFLICT (game_id) DO UPDATE SET ruleset = excluded.ruleset, "
                               "scenario = excluded.scenario, status = excluded.status, version = excluded.version, "
                               "chain_head = excluded.chain_head, last_activity = excluded.last_activity, "
                               "ended = excluded.ended, next_due = excluded.next_due, sandbox = excluded.sandbox "
                               "WHERE i.version < excluded.version"),
                      [(r["game_id"], r["ruleset"], r["scenario"], r["status"], r["version"], r["chain_head"],
                        r["last_activity"], dump_text(r["ended"]), r["next_due"], 1 if r["sandbox"] else 0)
                       for r in index])
        at = f"EXISTS (SELECT 1 FROM {{t}}{INDEX} i WHERE i.game_id = ? AND i.version = ?)"
        c.executemany(self.sql(f"DELETE FROM {{t}}{INDEX_SEATS} WHERE game_id = ? AND {at}"),
                      [(r["game_id"], r["game_id"], r["version"]) for r in index])
        seats = [(r["game_id"], s["seat"], s["handle"], 1 if s["to_move"] else 0, r["game_id"], r["version"])
                 for r in index for s in r["seats"]]
        if seats:
            c.executemany(self.sql(f"INSERT INTO {{t}}{INDEX_SEATS} (game_id, seat, handle, to_move) "
                                   f"SELECT ?, ?, ?, ? WHERE {at}"), seats)

    def write_position(self, c: Any, names: Iterable[str], position: int) -> None:
        c.executemany(self.sql(f"INSERT INTO {{t}}{TRACKING} AS k (name, position) VALUES (?, ?) "
                               "ON CONFLICT (name) DO UPDATE SET position = excluded.position "
                               "WHERE k.position < excluded.position"), [(name, position) for name in names])

    def drop(self, game_id: str | None = None) -> None:
        """Forget the views (index rows, checkpoints) of one game, or of every game and the positions."""
        with self._db.transaction(commit=True) as c:
            if game_id is None:
                for table in (VIEWS, CHUNKS, INDEX, INDEX_SEATS, CHECKPOINTS, TRACKING):
                    c.execute(f"DELETE FROM {self._prefix}{table}")
            else:
                for table in (VIEWS, CHUNKS, INDEX, INDEX_SEATS, CHECKPOINTS):
                    c.execute(self.sql(f"DELETE FROM {{t}}{table} WHERE game_id = ?"), (game_id,))


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
