"""Where the read models live: tables beside the event store (the SQLite file or the PostgreSQL
schema), written through the event store's own datastore.

- ``warlog_projection_views``: one row per (projection, game): the view as JSON (on SQLite in
  an LZ4 frame: ``dump_body``) and the seq it has folded up to (``version``). The ``history``
  view, which grows by an item per event, keeps only its head there (what the fold carries
  from line to line); its items and operations are in
- ``warlog_projection_chunks``: the ``history`` items of ``CHUNK`` seqs at a time (chunk ``k``
  holds seqs ``k * CHUNK + 1`` to ``(k + 1) * CHUNK``) with the operations that start in them. A
  batch rewrites only the chunks its new seqs fall in, not the whole game's history: writing a
  view that holds the whole history cost time in proportion to the game's length on every
  batch (``SPLIT``; docs/projections.md).
- ``warlog_games_index`` and ``warlog_games_index_seats``: the games list, in columns a query can
  filter and sort on (status, ruleset, handles, whose move, last activity).
- ``warlog_projection_tracking``: per projection, the last notification id the projector has
  folded. It is written in the same transaction as the rows of that batch.
- ``warlog_projection_checkpoints``: the ``map`` view of a game right after every
  ``CHECKPOINT_EVERY``-th seq (the ruleset state and what the map view keeps beside it), written
  with the views that passed that seq; the state at a past seq is the nearest checkpoint at or
  before it plus the map fold of the few events after it (``Projections.map_at``).

Every view write is guarded (``WHERE version < new version``): a view only ever moves forward, so
two writers (the projector and a web process catching a game up for read-your-writes) can race
without either undoing the other; the folds are deterministic, so a view at a given version is
the same whoever wrote it. A checkpoint is written once (``ON CONFLICT DO NOTHING``): the map
view at a seq never changes.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
from contextlib import contextmanager
from typing import Any, Iterable, Iterator

import lz4.frame
import orjson

from domain.storage import SqlTables

log = logging.getLogger("warlog.projections")

VIEWS = "warlog_projection_views"
INDEX = "warlog_games_index"
INDEX_SEATS = "warlog_games_index_seats"
TRACKING = "warlog_projection_tracking"
CHECKPOINTS = "warlog_projection_checkpoints"
CHUNKS = "warlog_projection_chunks"
CHUNK = 200  # history items per chunk row

# The views kept as a head plus chunks: (the list of items, one per seq; the dict of operations,
# keyed by their first seq as text). Only these keys grow with the game.
SPLIT = {"history": ("items", "ops")}

TABLES = {
    VIEWS: "projection TEXT NOT NULL, game_id TEXT NOT NULL, version BIGINT NOT NULL, body TEXT NOT NULL, "
           "PRIMARY KEY (projection, game_id)",
    INDEX: "game_id TEXT PRIMARY KEY, ruleset TEXT NOT NULL, scenario TEXT, status TEXT NOT NULL, "
           "version BIGINT NOT NULL, chain_head TEXT, last_activity TEXT, ended TEXT",
    INDEX_SEATS: "game_id TEXT NOT NULL, seat TEXT NOT NULL, handle TEXT, to_move INTEGER NOT NULL, "
                 "PRIMARY KEY (game_id, seat)",
    TRACKING: "name TEXT PRIMARY KEY, position BIGINT NOT NULL",
    CHECKPOINTS: "game_id TEXT NOT NULL, version BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (game_id, version)",
    CHUNKS: "projection TEXT NOT NULL, game_id TEXT NOT NULL, chunk BIGINT NOT NULL, version BIGINT NOT NULL, "
            "body TEXT NOT NULL, PRIMARY KEY (projection, game_id, chunk)",
}
INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {INDEX}_status ON {{t}}{INDEX} (status, last_activity)",
    f"CREATE INDEX IF NOT EXISTS {INDEX_SEATS}_handle ON {{t}}{INDEX_SEATS} (handle, to_move)",
)


def dumps(value: Any, plain: bool | None = None) -> str:
    """A view as JSON text: ``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``.

    Written by orjson (about 8 times faster on views) when ``value`` is ``plain`` (said by the
    caller, else looked at here): then orjson writes the same text, or at least text that
    ``json.loads`` reads as the same values. Otherwise, and whenever orjson refuses a value (an
    int past 64 bits, a key that is not a string), by the standard library, which writes
    NaN and Infinity where orjson would write null."""
    out = _json(value, plain)
    return out if type(out) is str else out.decode("utf-8")


def _json(value: Any, plain: bool | None) -> bytes | str:
    """``dumps(value, plain)``: orjson's UTF-8 bytes, or the standard library's text."""
    if plain is None:
        plain = is_plain(value)
    if plain:
        try:
            return orjson.dumps(value)
        except TypeError:  # orjson.JSONEncodeError
            pass
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_SCALARS = frozenset({str, int, bool, type(None)})
_isfinite = math.isfinite


def is_plain(value: Any) -> bool:
    """Made of dicts, lists, strings, ints, booleans, None and finite floats only (exact types):
    what orjson writes as json.dumps does. A non-finite float (orjson writes null) or any other
    type (orjson writes a datetime, a UUID, a dataclass, an enum, where json.dumps refuses it)
    is not."""
    t = type(value)
    if t is dict:
        for v in value.values():
            if type(v) not in _SCALARS and not is_plain(v):
                return False
        return True
    if t is list:
        for v in value:
            if type(v) not in _SCALARS and not is_plain(v):
                return False
        return True
    if t in _SCALARS:
        return True
    return t is float and _isfinite(value)


class NotPlain(ValueError):
    """JSON text holding NaN, Infinity or a number too large for a float."""


def _no_constant(text: str) -> Any:
    raise NotPlain(text)


def _finite(text: str) -> float:
    value = float(text)
    if not _isfinite(value):  # 1e999
        raise NotPlain(text)
    return value


def strict_json_decoder(**options: Any) -> json.JSONDecoder:
    """A JSON decoder that raises ``NotPlain`` where json.loads would make a non-finite float."""
    return json.JSONDecoder(parse_constant=_no_constant, parse_float=_finite, **options)


_PLAIN = strict_json_decoder()


def loads(text: str, odd: set | None = None, key: Any = None) -> Any:
    """``json.loads(text)``; a text holding NaN, Infinity or a number too large for a float
    (nothing ``dumps`` writes with orjson) adds ``key`` to ``odd``."""
    try:
        return _PLAIN.decode(text)
    except NotPlain:
        if odd is not None:
            odd.add(key)
        return json.loads(text)


_compress, _decompress = lz4.frame.compress, lz4.frame.decompress


def dump_body(value: Any, plain: bool | None = None) -> bytes:
    """A view or checkpoint as SQLite stores it: its JSON (``dumps``), UTF-8, in one LZ4 frame
    (a BLOB in the TEXT column: SQLite keeps a value's own type).

    The bodies are JSON of kilobytes each, written again as games move on; LZ4 makes them
    several times smaller for about 2 µs a body, and SQLite has that many fewer pages to write
    at each commit (docs/projections.md). PostgreSQL compresses them itself (``_compress_bodies_with_lz4``):
    compressing them here as well measured no faster there."""
    out = _json(value, plain)
    return _compress(out if type(out) is bytes else out.encode("utf-8"))


def load_body(body: str | bytes, odd: set | None = None, key: Any = None) -> Any:
    """A stored body read back (``loads``): JSON text, or an LZ4 frame of it (``dump_body``; on
    SQLite, where a body written before they were compressed is text)."""
    if type(body) is not str:
        body = _decompress(body).decode("utf-8")
    return loads(body, odd, key)


def chunk_of(seq: int) -> int:
    """The chunk a seq's history item is kept in (``CHUNKS``)."""
    return (seq - 1) // CHUNK


def split_view(name: str, view: dict, since: int = 0) -> tuple[dict, list[tuple[int, int, dict]]]:
    """A ``SPLIT`` view as it is stored: its head (the view less its items and operations) and
    (chunk, version, body) for each chunk that holds a seq after ``since``, body ``{"items",
    "ops"}``, version its last seq. ``view`` must hold every item of those chunks (the whole
    view, or what ``open_chunk`` keeps of it and what was folded onto that), one per seq: a
    chunk is written whole, so one written from part of its items would lose the rest
    (ValueError)."""
    items_key, ops_key = SPLIT[name]
    head = {k: v for k, v in view.items() if k != items_key and k != ops_key}
    items, ops = view[items_key], view[ops_key]
    first = chunk_of(since + 1)
    start = first * CHUNK + 1
    if not items or items[-1]["seq"] < start:
        return head, []
    at = bisect.bisect_left(items, start, key=_seq)
    new_ops = []  # the operations that start from ``start`` on: the last ones (kept in seq order)
    for key in reversed(ops):
        if int(key) < start:
            break
        new_ops.append(key)
    chunks: list[tuple[int, int, dict]] = []
    k = first
    while at < len(items):
        part = items[at:at + CHUNK]
        low = k * CHUNK + 1
        if part[0]["seq"] != low or part[-1]["seq"] != low + len(part) - 1:
            raise ValueError(f"{name} view of version {view['version']}: chunk {k} would be written "
                             f"without all its items (seqs {part[0]['seq']} to {part[-1]['seq']})")
        high = low + len(part) - 1
        body_ops = {}
        while new_ops and int(new_ops[-1]) <= high:
            key = new_ops.pop()
            body_ops[key] = ops[key]
        chunks.append((k, high, {items_key: part, ops_key: body_ops}))
        at += CHUNK
        k += 1
    return head, chunks


def _seq(item: dict) -> int:
    return item["seq"]


def join_view(name: str, head: dict, chunks: Iterable[dict]) -> dict:
    """A ``SPLIT`` view from its head and its chunks' bodies in order (``split_view``); items and
    operations after the head's version (a chunk written after the head was read) left out. A
    head that holds its items itself (written before the views were split) is the whole view."""
    items_key, ops_key = SPLIT[name]
    if items_key in head:
        return head
    version = head["version"]
    items: list[dict] = []
    ops: dict[str, Any] = {}
    for body in chunks:
        items.extend(body[items_key])
        ops.update(body[ops_key])
    if items and items[-1]["seq"] > version:
        items = [it for it in items if it["seq"] <= version]
        ops = {k: v for k, v in ops.items() if int(k) <= version}
    return {**head, ops_key: ops, items_key: items}  # the keys in the order of folds.history_empty


def open_chunk(name: str, view: dict) -> dict:
    """What a projector keeps of a ``SPLIT`` view to fold the next seqs onto: its head and the
    items and operations of the chunk the next seq falls in (``split_view`` rewrites that chunk
    whole), not the game's whole history."""
    items_key, ops_key = SPLIT[name]
    start = chunk_of(view["version"] + 1) * CHUNK + 1
    items = view[items_key]
    if not items or items[0]["seq"] >= start:
        return view
    kept = items[bisect.bisect_left(items, start, key=_seq):]
    ops = view[ops_key]
    return {**view, items_key: kept,
            ops_key: {str(it["seq"]): ops[str(it["seq"])] for it in kept if it.get("op") == it["seq"] and str(it["seq"]) in ops}}


class ProjectionStore(SqlTables):
    """The read models' views, the games index and the tracked positions."""

    TABLES = TABLES

    # ---------------------------------------------------------------------------- schema ----
    def create_tables(self) -> None:
        with self._db.transaction(commit=True) as c:
            self._create(c)
            for statement in INDEXES:
                c.execute(self.sql(statement))
            if self.kind != "sqlite":
                self._compress_bodies_with_lz4(c)
            self._split_whole_views(c)

    def _split_whole_views(self, c: Any) -> None:
        """Views of a ``SPLIT`` projection written whole (before they were split: no chunk row),
        rewritten as a head and chunks. Run by every migrate; finds nothing after the first."""
        for name in SPLIT:
            c.execute(self.sql(f"SELECT v.game_id, v.body FROM {{t}}{VIEWS} v WHERE v.projection = ? AND NOT EXISTS "
                               f"(SELECT 1 FROM {{t}}{CHUNKS} k WHERE k.projection = v.projection "
                               "AND k.game_id = v.game_id)"), (name,))
            whole = [(r["game_id"], load_body(r["body"])) for r in c.fetchall()]
            found = [(gid, view) for gid, view in whole if SPLIT[name][0] in view]
            if found:
                log.info("splitting %s stored %s view(s) into chunks", len(found), name)
                # A whole view replaces itself: the version guard would skip a write at the same version.
                c.executemany(self.sql(f"DELETE FROM {{t}}{VIEWS} WHERE projection = ? AND game_id = ?"),
                              [(name, gid) for gid, _ in found])
                self._write_many(c, [(name, gid, view) for gid, view in found], (), (), None)

    def _compress_bodies_with_lz4(self, c: Any) -> None:
        """PostgreSQL: the JSON bodies (views and checkpoints, kilobytes each) compressed with lz4
        rather than the default pglz, where the server has it (PostgreSQL 14 and later, built with
        lz4): pglz took about two thirds of the time of writing a batch's views. Values already
        stored keep their compression; both are read alike."""
        c.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")
        if c.fetchone() is None:
            return
        for table in (VIEWS, CHECKPOINTS, CHUNKS):
            c.execute("SELECT a.attcompression FROM pg_attribute a WHERE a.attrelid = %s::regclass "
                      "AND a.attname = 'body'", (f"{self._prefix}{table}",))
            row = c.fetchone()
            if row is not None and row["attcompression"] != "l":
                c.execute(f"ALTER TABLE {self._prefix}{table} ALTER COLUMN body SET COMPRESSION lz4")

    @contextmanager
    def transaction(self, pipelined: bool = False) -> Iterator[Any]:
        """A write transaction of read-model rows, committed without waiting for the disk.

        Everything written here is derived from the event log and is written in the same
        transaction as the tracked position it was folded up to (or is a view that only moves
        forward), so a commit lost to a power cut or an operating-system crash only means those
        events are folded again; the database stays consistent. So the commit does not wait for
        the disk: SQLite's ``synchronous=NORMAL`` on this connection for this transaction (WAL
        mode: no fsync at commit), PostgreSQL's ``SET LOCAL synchronous_commit = off``. The
        event log's own writes are untouched and wait for the disk as before.

        ``pipelined``: on PostgreSQL its statements go in one pipeline, sent as they come and
        answered when the block ends (one wait for the server, not one per statement); an error
        of one of them is raised then. SQLite has no round trips to save."""
        if self.kind == "sqlite":
            with self._sqlite_relaxed() as c:
                yield c
            return
        with self._db.transaction(commit=True) as c:
            c.execute("SET LOCAL synchronous_commit = off")
            pipeline = getattr(getattr(c, "connection", None), "pipeline", None)
            if not pipelined or pipeline is None:
                yield c
                return
            with pipeline():
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

    def load(self, game_ids: Iterable[str], names: Iterable[str], odd: set | None = None, *,
             partial: bool = False, whole: set | None = None) -> dict[str, dict[str, dict]]:
        """{game_id: {projection: view}} for the rows that exist; the games of a view that is not
        plain JSON (NaN, …: see ``loads``) are added to ``odd``. ``partial``: a ``SPLIT`` view
        with only its open chunk (``open_chunk``: what a fold of the next seqs needs), not its
        whole history. ``whole`` gets (game id, projection) of a ``SPLIT`` view found stored whole
        (by a version before views were split, and not yet split by ``create_tables``): it is
        loaded whole, and its next write must write all its chunks (``since`` 0)."""
        game_ids, names = list(game_ids), list(names)
        out: dict[str, dict[str, dict]] = {g: {} for g in game_ids}
        if not game_ids:
            return out
        split = [n for n in names if n in SPLIT]
        chunks: dict[tuple[str, str], list[dict]] = {}
        with self._db.transaction(commit=False) as c:
            for chunk in _chunks(game_ids, 500):
                marks = ", ".join([self._p] * len(chunk))
                names_marks = ", ".join([self._p] * len(names))
                where = f"v.game_id IN ({marks}) AND v.projection IN ({names_marks})"
                if partial and split:  # the open chunk in the same statement: of the same version as its head
                    c.execute(self.sql(f"SELECT v.projection, v.game_id, v.body, k.body AS chunk FROM {{t}}{VIEWS} v "
                                       f"LEFT JOIN {{t}}{CHUNKS} k ON k.projection = v.projection "
                                       f"AND k.game_id = v.game_id AND k.chunk = v.version / {CHUNK} WHERE {where}"),
                              (*chunk, *names))
                else:
                    c.execute(self.sql(f"SELECT v.projection, v.game_id, v.body FROM {{t}}{VIEWS} v WHERE {where}"),
                              (*chunk, *names))
                for r in c.fetchall():
                    gid = r["game_id"]
                    out[gid][r["projection"]] = load_body(r["body"], odd, gid)
                    if partial and split and r["chunk"] is not None:
                        chunks[gid, r["projection"]] = [load_body(r["chunk"], odd, gid)]
                if split and not partial:
                    # Read after the heads: a chunk is written with its head, so none is older than its head.
                    c.execute(self.sql(f"SELECT projection, game_id, body FROM {{t}}{CHUNKS} WHERE game_id IN ({marks}) "
                                       f"AND projection IN ({', '.join([self._p] * len(split))}) "
                                       "ORDER BY game_id, projection, chunk"), (*chunk, *split))
                    for r in c.fetchall():
                        chunks.setdefault((r["game_id"], r["projection"]), []).append(
                            load_body(r["body"], odd, r["game_id"]))
        for gid, views in out.items():
            for name in split:
                if name in views:
                    if whole is not None and SPLIT[name][0] in views[name]:
                        whole.add((gid, name))
                    views[name] = join_view(name, views[name], chunks.get((gid, name), ()))
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
    def write_many(self, c: Any, *, views: Iterable[tuple[str, str, dict] | tuple[str, str, dict, int]] = (),
                   checkpoints: Iterable[tuple[str, dict]] = (), index: Iterable[dict] = (),
                   odd: Iterable[str] | None = None, position: tuple[Iterable[str], int] | None = None) -> None:
        """The rows of a batch, one executemany per statement (psycopg pipelines it: one round
        trip, not one per row). The guards: a view or an index row only moves forward (``WHERE
        version < excluded.version``), a checkpoint is written once (``ON CONFLICT DO NOTHING``:
        one already there is left as it is). An index row's seats are replaced only where the
        index row is now at that row's version (written by this statement, or by a racing writer
        at the same version, whose seats are the same: the folds are deterministic).

        ``views``: (name, game id, view) or (name, game id, view, since): a ``SPLIT`` view is
        written as its head and the chunks that hold a seq after ``since`` (0: all of them;
        ``split_view``), each guarded as a view is. ``odd``: when given, the games whose views may
        hold a value that is not plain JSON (``is_plain``); the views of the others are taken as
        plain without looking. None: every view is looked at. ``position``: (names, position)
        written last (``write_position``)."""
        self._write_many(c, views, checkpoints, index, odd)
        if position is not None:
            self.write_position(c, *position)

    def _write_many(self, c: Any, views: Iterable[tuple], checkpoints: Iterable[tuple[str, dict]],
                    index: Iterable[dict], odd: Iterable[str] | None) -> None:
        if odd is None:
            def plain(gid: str, view: dict) -> bool | None:
                return None
        else:
            odd = set(odd)

            def plain(gid: str, view: dict) -> bool | None:
                return gid not in odd
        body = dump_body if self.kind == "sqlite" else dumps  # PostgreSQL compresses them itself
        checkpoints = [(gid, view["version"], body(view, plain(gid, view))) for gid, view in checkpoints]
        rows, chunks = [], []
        for name, gid, view, *since in views:
            if name in SPLIT:
                view, parts = split_view(name, view, since[0] if since else 0)
                chunks.extend((name, gid, k, version, body(part, plain(gid, part))) for k, version, part in parts)
            rows.append((name, gid, view["version"], body(view, plain(gid, view))))
        index = [(r["game_id"], r["ruleset"], r["scenario"], r["status"], r["version"], r["chain_head"],
                  r["last_activity"], dumps(r["ended"]), r["seats"]) for r in index]
        seats = [(row[0], s["seat"], s["handle"], 1 if s["to_move"] else 0, row[4]) for row in index for s in row[8]]
        self._rows(c, checkpoints, rows, index, seats, chunks)

    _UPSERT_VIEW = ("ON CONFLICT (projection, game_id) DO UPDATE SET version = excluded.version, body = excluded.body "
                    "WHERE v.version < excluded.version")
    _UPSERT_INDEX = ("ON CONFLICT (game_id) DO UPDATE SET ruleset = excluded.ruleset, scenario = excluded.scenario, "
                     "status = excluded.status, version = excluded.version, chain_head = excluded.chain_head, "
                     "last_activity = excluded.last_activity, ended = excluded.ended WHERE i.version < excluded.version")

    _UPSERT_CHUNK = ("ON CONFLICT (projection, game_id, chunk) DO UPDATE SET version = excluded.version, "
                     "body = excluded.body WHERE k.version < excluded.version")

    def _rows(self, c: Any, checkpoints: list, views: list, index: list, seats: list, chunks: list = ()) -> None:
        """The rows, one executemany per statement. (On PostgreSQL, one statement over every row
        at once, by unnest of arrays, measured no faster: the server's work is what remains.)"""
        if chunks:
            c.executemany(self.sql(f"INSERT INTO {{t}}{CHUNKS} AS k (projection, game_id, chunk, version, body) "
                                   "VALUES (?, ?, ?, ?, ?) " + self._UPSERT_CHUNK), chunks)
        if checkpoints:
            c.executemany(self.sql(f"INSERT INTO {{t}}{CHECKPOINTS} (game_id, version, body) VALUES (?, ?, ?) "
                                   "ON CONFLICT (game_id, version) DO NOTHING"), checkpoints)
        if views:
            c.executemany(self.sql(f"INSERT INTO {{t}}{VIEWS} AS v (projection, game_id, version, body) "
                                   "VALUES (?, ?, ?, ?) " + self._UPSERT_VIEW), views)
        if not index:
            return
        c.executemany(self.sql(f"INSERT INTO {{t}}{INDEX} AS i (game_id, ruleset, scenario, status, version, "
                               "chain_head, last_activity, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                               + self._UPSERT_INDEX), [row[:8] for row in index])
        at = f"EXISTS (SELECT 1 FROM {{t}}{INDEX} i WHERE i.game_id = ? AND i.version = ?)"
        c.executemany(self.sql(f"DELETE FROM {{t}}{INDEX_SEATS} WHERE game_id = ? AND {at}"),
                      [(row[0], row[0], row[4]) for row in index])
        if seats:
            c.executemany(self.sql(f"INSERT INTO {{t}}{INDEX_SEATS} (game_id, seat, handle, to_move) "
                                   f"SELECT ?, ?, ?, ? WHERE {at}"), [(*row[:4], row[0], row[4]) for row in seats])

    def write_position(self, c: Any, names: Iterable[str], position: int) -> None:
        c.executemany(self.sql(f"INSERT INTO {{t}}{TRACKING} AS k (name, position) VALUES (?, ?) "
                               "ON CONFLICT (name) DO UPDATE SET position = excluded.position "
                               "WHERE k.position < excluded.position"), [(name, position) for name in names])

    def drop(self, game_id: str | None = None, names: Iterable[str] = ()) -> None:
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
