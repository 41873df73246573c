"""Where the read models live: tables beside the event store (the SQLite file or the PostgreSQL
schema), written through the event store's own datastore.

- ``warlog_projection_views``: one row per (projection, game): the view as JSON (on SQLite in
  an LZ4 frame: ``dump_body``) and the seq it has folded up to (``version``). The ``history``,
  ``dice`` and ``vp`` views (``SPLIT``), which grow with the game, are kept whole there only
  while they are shorter than ``CHUNK`` seqs; from then on the row holds their head (what the
  fold carries from line to line) and their items are in
- ``warlog_projection_chunks``: a split view's items of ``CHUNK`` seqs at a time (chunk ``k``
  holds seqs ``k * CHUNK + 1`` to ``(k + 1) * CHUNK``), with the operations that start among
  them, each row at the version of the view that last wrote it. A batch writes only the chunks
  its new seqs fall in, and the older ones a dice reveal or a take-back changed (``folds.REACH``): writing a view
  that held the whole game cost time in proportion to its length at every batch
  (docs/projections.md).
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
import math
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, NamedTuple

import lz4.frame
import orjson

from domain.pgrecorder import bigints, compress_with_lz4, ints, texts
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
    """The chunk a seq's item is kept in (``CHUNKS``)."""
    return (seq - 1) // CHUNK


def split_view(name: str, view: dict, since: int = 0) -> tuple[dict, list[tuple[int, int, dict]]]:
    """A ``SPLIT`` view as it is stored: its head (the view less its items and what is kept
    with them) and (chunk, version, body) for each chunk that holds an item of a seq after
    ``since``, version the view's. ``view`` must hold every item of those chunks (the whole
    view, or what ``open_chunk`` kept of it, widened to what a fold may change, with what was
    folded onto it): a chunk is written whole, so one written from part of its items would lose
    the rest. Where there is an item for every seq, that is checked (ValueError)."""
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


def open_chunk(name: str, view: dict) -> dict:
    """What a projector keeps of a ``SPLIT`` view to fold the next seqs onto: its head and the
    items of the chunk the next seq falls in (``split_view`` rewrites that chunk whole), with
    what is kept with them, not the game's whole history."""
    spec = SPLIT[name]
    start = chunk_of(view["version"] + 1) * CHUNK + 1
    items = view[spec.items]
    if not items or items[0]["seq"] >= start:
        return view
    kept = items[bisect.bisect_left(items, start, key=_seq):]
    out = {**view, spec.items: kept}
    if spec.by_seq:
        by_seq = view[spec.by_seq]
        out[spec.by_seq] = {str(it["seq"]): by_seq[str(it["seq"])] for it in kept if str(it["seq"]) in by_seq}
    return out


def widen(name: str, view: dict, older: Iterable[dict]) -> dict:
    """A view ``open_chunk`` kept, with the items of the chunks before its open one
    (``ProjectionStore.load_chunks``) put back in front: what a fold that changes older items
    needs (``folds.REACH``)."""
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
        with self._db.transaction(commit=True) as c:
            self._create(c)
            for statement in INDEXES:
                c.execute(self.sql(statement))
            if self.kind != "sqlite":
                self._compress_bodies_with_lz4(c)

    def _compress_bodies_with_lz4(self, c: Any) -> None:
        """PostgreSQL: the JSON bodies (views and checkpoints, kilobytes each) compressed with lz4
        rather than the default pglz, where the server has it (``compress_with_lz4``): pglz took
        about two thirds of the time of writing a batch's views."""
        for table in (VIEWS, CHECKPOINTS, CHUNKS):
            compress_with_lz4(c, f"{self._prefix}{table}", "body")

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
        (shorter than ``CHUNK``, or written by a version before views were split): it is loaded
        whole, and none of its chunks is stored yet, so its next write must write them all
        (``since`` 0)."""
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
                query = (f"SELECT v.projection, v.game_id, -1 AS chunk, v.body FROM {{t}}{VIEWS} v "
                         f"WHERE v.game_id IN ({marks}) AND v.projection IN ({names_marks})")
                params: tuple = (*chunk, *names)
                if split:
                    # The chunks in the same statement as their heads: one snapshot, so of one version.
                    which = (f"AND k.chunk = (SELECT v.version / {CHUNK} FROM {{t}}{VIEWS} v "
                             "WHERE v.projection = k.projection AND v.game_id = k.game_id)") if partial else ""
                    query += (f" UNION ALL SELECT k.projection, k.game_id, k.chunk, k.body FROM {{t}}{CHUNKS} k "
                              f"WHERE k.game_id IN ({marks}) AND k.projection IN ({', '.join([self._p] * len(split))}) "
                              f"{which} ORDER BY 2, 1, 3")
                    params += (*chunk, *split)
                c.execute(self.sql(query), params)
                for r in c.fetchall():
                    gid = r["game_id"]
                    if r["chunk"] == -1:
                        out[gid][r["projection"]] = load_body(r["body"], odd, gid)
                    else:
                        chunks.setdefault((gid, r["projection"]), []).append(load_body(r["body"], odd, gid))
        for gid, views in out.items():
            for name in split:
                if name in views:
                    if whole is not None and SPLIT[name].items in views[name]:
                        whole.add((gid, name))
                    views[name] = join_view(name, views[name], chunks.get((gid, name), ()))
        return out

    def load_chunks(self, game_id: str, name: str, low: int, high: int, odd: set | None = None) -> list[dict]:
        """The bodies of a ``SPLIT`` view's chunks ``low`` to ``high - 1`` that exist, in order."""
        with self._db.transaction(commit=False) as c:
            c.execute(self.sql(f"SELECT body FROM {{t}}{CHUNKS} WHERE projection = ? AND game_id = ? AND chunk >= ? "
                               "AND chunk < ? ORDER BY chunk"), (name, game_id, low, high))
            return [load_body(r["body"], odd, game_id) for r in c.fetchall()]

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
    def write_many(self, c: Any, *, views: Iterable[tuple[str, str, dict, int]] = (),
                   checkpoints: Iterable[tuple[str, dict]] = (), index: Iterable[dict] = (),
                   odd: Iterable[str] | None = None, position: tuple[Iterable[str], int] | None = None) -> None:
        """The rows of a batch, one statement a table (``_rows``). The guards: a view or an index
        row only moves forward (``WHERE version < excluded.version``), a checkpoint is written
        once (``ON CONFLICT DO NOTHING``: one already there is left as it is). An index row's seats are replaced only where the
        index row is now at that row's version (written by this statement, or by a racing writer
        at the same version, whose seats are the same: the folds are deterministic).

        ``views``: (name, game id, view, since), ``since`` the version stored before: a ``SPLIT``
        view of ``CHUNK`` seqs or more is written as its head and the chunks that hold a seq
        after ``since`` (0: all of them; ``split_view``), each guarded as a view is; a shorter one
        whole. ``odd``: when given, the games whose views may hold a value that is not plain
        JSON (``is_plain``); the views of the others are taken as plain without looking. None:
        every view is looked at. ``position``: (names, position) written last
        (``write_position``)."""
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
        body = dump_body if self.kind == "sqlite" else _json  # PostgreSQL compresses them itself
        checkpoints = [(gid, view["version"], body(view, plain(gid, view))) for gid, view in checkpoints]
        rows, chunks = [], []
        for name, gid, view, since in views:
            if name in SPLIT and view["version"] >= CHUNK:  # a view of fewer seqs is kept whole in its row
                view, parts = split_view(name, view, since)
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
        """The rows of a batch, table by table: on PostgreSQL one statement a table over all of
        them (``_rows_postgres``), on SQLite one executemany a statement (``_rows_each``)."""
        if self.kind == "sqlite":
            self._rows_each(c, checkpoints, views, index, seats, chunks)
        else:
            self._rows_postgres(c, checkpoints, views, index, seats, chunks)

    def _rows_postgres(self, c: Any, checkpoints: list, views: list, index: list, seats: list,
                       chunks: list = ()) -> None:
        """The same statements as ``_rows_each``, each over every row at once: the rows go as
        ``unnest`` of arrays in PostgreSQL's binary format, built here (``pgrecorder.texts``).
        psycopg's executemany sent one Bind and Execute a row, each row's parameters dumped in
        Python: a catch-up took 75.9 -> 66.8 us an event with this, 64.5 -> 53.5 us of the
        projector's CPU (bench/findings.md, item 34). A batch holds one row a key (a game's
        views, index row, chunks), so no upsert meets its own row twice."""
        t = self._prefix
        if chunks:
            c.execute(f"INSERT INTO {t}{CHUNKS} AS k (projection, game_id, chunk, version, body) "
                      "SELECT * FROM unnest(%s, %s, %s, %s, %s) " + self._UPSERT_CHUNK,
                      (texts([r[0] for r in chunks]), texts([r[1] for r in chunks]), bigints([r[2] for r in chunks]),
                       bigints([r[3] for r in chunks]), texts([r[4] for r in chunks])))
        if checkpoints:
            c.execute(f"INSERT INTO {t}{CHECKPOINTS} (game_id, version, body) SELECT * FROM unnest(%s, %s, %s) "
                      "ON CONFLICT (game_id, version) DO NOTHING",
                      (texts([r[0] for r in checkpoints]), bigints([r[1] for r in checkpoints]),
                       texts([r[2] for r in checkpoints])))
        if views:
            c.execute(f"INSERT INTO {t}{VIEWS} AS v (projection, game_id, version, body) "
                      "SELECT * FROM unnest(%s, %s, %s, %s) " + self._UPSERT_VIEW,
                      (texts([r[0] for r in views]), texts([r[1] for r in views]), bigints([r[2] for r in views]),
                       texts([r[3] for r in views])))
        if not index:
            return
        ids, versions = texts([r[0] for r in index]), bigints([r[4] for r in index])
        c.execute(f"INSERT INTO {t}{INDEX} AS i (game_id, ruleset, scenario, status, version, chain_head, "
                  "last_activity, ended) SELECT * FROM unnest(%s, %s, %s, %s, %s, %s, %s, %s) " + self._UPSERT_INDEX,
                  (ids, texts([r[1] for r in index]), texts([r[2] for r in index]), texts([r[3] for r in index]),
                   versions, texts([r[5] for r in index]), texts([r[6] for r in index]), texts([r[7] for r in index])))
        c.execute(f"DELETE FROM {t}{INDEX_SEATS} s USING unnest(%s, %s) AS u(game_id, version) "
                  f"WHERE s.game_id = u.game_id AND EXISTS (SELECT 1 FROM {t}{INDEX} i "
                  "WHERE i.game_id = u.game_id AND i.version = u.version)", (ids, versions))
        if seats:
            c.execute(f"INSERT INTO {t}{INDEX_SEATS} (game_id, seat, handle, to_move) "
                      "SELECT u.game_id, u.seat, u.handle, u.to_move FROM unnest(%s, %s, %s, %s, %s) "
                      "AS u(game_id, seat, handle, to_move, version) "
                      f"WHERE EXISTS (SELECT 1 FROM {t}{INDEX} i "
                      "WHERE i.game_id = u.game_id AND i.version = u.version)",
                      (texts([r[0] for r in seats]), texts([r[1] for r in seats]), texts([r[2] for r in seats]),
                       ints([r[3] for r in seats]), bigints([r[4] for r in seats])))

    def _rows_each(self, c: Any, checkpoints: list, views: list, index: list, seats: list, chunks: list = ()) -> None:
        """The rows, one executemany per statement (SQLite: in process, no round trips to save)."""
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

    def send(self, statements: "Deferred") -> None:
        """Run statements ``write_many`` made into a ``Deferred`` in one write transaction
        (``transaction``, pipelined), on whichever thread calls this."""
        with self.transaction(pipelined=True) as c:
            for many, sql, params in statements.made:
                if many:
                    c.executemany(sql, params)
                else:
                    c.execute(sql, params)

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


class Deferred:
    """Where ``write_many`` writes when its statements are to run later (``ProjectionStore.send``):
    each ``execute`` and ``executemany`` kept, in order, with its parameters made."""

    def __init__(self) -> None:
        self.made: list[tuple[bool, str, Any]] = []

    def execute(self, sql: str, params: Any = None) -> None:
        self.made.append((False, sql, params))

    def executemany(self, sql: str, params: Iterable[Any]) -> None:
        self.made.append((True, sql, list(params)))


def _chunks(items: list, size: int) -> Iterator[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
