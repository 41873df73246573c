"""Keeping the read models current: catch-up from the notification log, per-game catch-up for
read-your-writes, rebuilds, and the ``warlog projector`` loop.

The projector polls the application's notification log on SQLite and PostgreSQL alike (the
same code; eventsourcing's PostgreSQL recorder locks the events table on insert, so notification
ids become visible in order and a poller never passes over a gap that is filled later). Each
batch of notifications is folded and written in ONE transaction together with the new tracking
position, so a crash resumes from the last committed batch: nothing skipped, nothing applied
twice (a fold also ignores a line at or below its view's version).

Beside the views, the ``map`` view right after every ``CHECKPOINT_EVERY``-th seq is kept as a
checkpoint, written in the same transaction as the views that passed that seq (by the projector,
a read-your-writes catch-up and a rebuild alike); ``map_at`` answers the state at a past seq from
the nearest one.
"""

from __future__ import annotations

import gc
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, TextIO

import orjson
from eventsourcing.persistence import (DatetimeAsISO, InterfaceError, JSONTranscoder, OperationalError,
                                       find_id_convertor, pass_through_convertor)
from eventsourcing.utils import resolve_topic

from domain.errors import DamagedLog, GameNotFound
from domain.service import decoding, parse_game_id
from domain.storage import NotificationReader, OutageLog
from projections import folds
from projections.store import SPLIT, Deferred, ProjectionStore, chunk_of, is_plain, open_chunk, widen

log = logging.getLogger("warlog.projector")

NAMES = tuple(folds.FOLDS)  # map, vp, history, dice; the games index is written with "map"
TRACKED = (*NAMES, "games")
BATCH = 500
CHECKPOINT_EVERY = 100  # a map checkpoint after every 100th seq: at most 99 events to fold for a past state


class Projections:
    """The read models of one Warlog application service."""

    def __init__(self, service: Any, store: ProjectionStore | None = None, every: int = CHECKPOINT_EVERY):
        self.service = service
        self.store = store or ProjectionStore.for_service(service)
        self.every = every  # map checkpoints after every ``every``-th seq (any set of them gives the same states)
        self.last_position = 0  # the position the last batch of this object wrote
        self._carried: Batch | None = None  # that batch (its views stand for the stored ones after it)
        self._fast: Any = False  # not yet made (_fast_decoder)
        self._read = NotificationReader(service.recorder, service.config.kind)

    # ------------------------------------------------------------------------ the projector ----
    def position(self) -> int:
        return self.store.position(TRACKED)

    def head(self) -> int:
        return self.service.recorder.max_notification_id() or 0

    def run_batch(self, limit: int = BATCH, start: int | None = None) -> int:
        """Fold the next ``limit`` notifications (after ``start``, else after the stored position)
        and write them; returns how many were read (0: caught up)."""
        if start is None:
            start = self.position()
        notifications = self._read(start + 1, limit)
        if not notifications:
            return 0
        with _gc_paused():
            self._commit(self._fold_batch(notifications, start))
        return len(notifications)

    def catch_up(self, limit: int = BATCH, progress: Callable[[int, int], None] | None = None,
                 stop: Callable[[], bool] | None = None) -> int:
        """Run batches until the log's head is reached, or until ``stop()`` says so (asked between
        batches); returns the notifications read. The stored position is read once: each batch
        starts after the one before (a position another projector has moved further only means
        lines folded again, which a fold skips).

        On PostgreSQL a batch's rows are sent by a second thread while this one reads and folds
        the next batch (``_overlapped``); on SQLite, in process, batch after batch."""
        with _gc_paused():
            if self.store.kind == "sqlite":
                return self._one_by_one(limit, progress, stop)
            return self._overlapped(limit, progress, stop)

    def _one_by_one(self, limit: int, progress: Callable[[int, int], None] | None,
                    stop: Callable[[], bool] | None) -> int:
        total, start = 0, None
        while stop is None or not stop():
            done = self.run_batch(limit, start)
            total += done
            if done:
                start = self.last_position
            if progress is not None and (done or not total):
                progress(self.position(), self.head())
            if done == 0:
                break
        return total

    def _overlapped(self, limit: int, progress: Callable[[int, int], None] | None,
                    stop: Callable[[], bool] | None) -> int:
        """``catch_up`` with each batch's write overlapped with the reading and folding of the
        next: the rows' statements are made here (``store.Deferred``), and sent in one
        transaction by the writer thread (``ProjectionStore.send``), which mostly waits on the
        server, so the server's work on a batch runs on the other core. A batch's views stand for
        the stored ones in the next batch's fold as before (``_carry``); the next batch's write
        is sent only once the one before is stored, so positions are written in order. A write
        that fails is raised here before the next is sent, the batch folded after it is dropped,
        and the views carried forgotten (the next catch-up reads them from the store): what is
        stored is then what it would be had the failure stopped a catch-up one batch at a time.
        A catch-up took 73.6 -> 64.6 us an event this way (bench/findings.md, item 35)."""
        total, start, sent = 0, self.position(), None
        try:
            with ThreadPoolExecutor(1, thread_name_prefix="projector-write") as writer:
                while stop is None or not stop():
                    notifications = self._read(start + 1, limit)
                    if not notifications:
                        break
                    batch = self._fold_batch(notifications, start)
                    statements = Deferred()
                    self._write_all(statements, batch.writes, (TRACKED, batch.last))
                    if sent is not None:
                        sent.result()  # the batch before is stored (or its failure raised here)
                        self.last_position = start
                        if progress is not None:
                            progress(self.position(), self.head())
                    sent = writer.submit(self.store.send, statements)
                    self._carry(batch)
                    start = batch.last
                    total += len(notifications)
                if sent is not None:
                    sent.result()
                    self.last_position = start
        except BaseException:
            self._carried = None
            raise
        if progress is not None:
            progress(self.position(), self.head())
        return total

    def _fold_batch(self, notifications: list, start: int) -> "Batch":
        """The notifications after ``start`` decoded and folded into the rows to write."""
        by_id: dict[Any, list[tuple]] = {}  # by originator id (str() once per game, not per event)
        damaged: set[Any] = set()
        odd_ids: set[Any] = set()  # games whose views may hold a value that is not plain JSON (store.dumps)
        decode, step_of, plain = self.service.mapper.to_domain_event, folds.step_of_event, _plain_step
        fast = self._fast_decoder()
        for notification in notifications:
            oid = notification.originator_id
            if damaged and oid in damaged:
                continue
            try:
                event = fast(notification) if fast is not None else None
                if event is None:  # not plain JSON, or not the usual row: the mapper, and a look at the step
                    step = step_of(decode(notification))
                    if not plain(step):
                        odd_ids.add(oid)
                else:
                    step = step_of(event)
            except Exception as exc:  # a row changed outside warlog: the game's views stop before it
                log.error("game %s: notification %s does not decode (%r); its views stay at the last good "
                          "event until the log is repaired", oid, notification.id, exc)
                damaged.add(oid)
                by_id.pop(oid, None)
                continue
            steps = by_id.get(oid)
            if steps is None:
                by_id[oid] = [step]
            else:
                steps.append(step)
        by_game = {str(oid): steps for oid, steps in by_id.items()}
        odd = {str(oid) for oid in odd_ids}
        whole: set[tuple[str, str]] = set()
        views = self._views_before(by_game, start, odd, whole)
        batch = Batch(len(notifications), notifications[-1].id, Writes(odd))
        for gid, steps in by_game.items():
            marks: list[dict] = []
            since = _versions(gid, views[gid], whole)
            try:
                folded = self._fold(gid, views[gid], steps, marks=marks, odd=odd, since=since, kept=True)
            except DamagedLog as exc:
                log.error("game %s: %s", gid, exc)
                continue
            batch.views[gid] = folded
            self._add(batch.writes, gid, folded, marks, since)
        return batch

    def _fast_decoder(self) -> Callable[[Any], Any] | None:
        """A decoder of the usual stored event, or None when the application's mapper is not
        eventsourcing's JSON one on plain bytes (a cipher, a compressor, another transcoder).

        It gives what the mapper gives (tests/projections/test_batch.py compares them), about
        three times faster: the JSON is parsed by orjson, and the one transcoded object of a
        usual event, its timestamp, is made as ``DatetimeAsISO`` makes it. It answers None, and
        the mapper is used instead, wherever the row is not plain JSON or not the usual event:
        orjson refuses NaN, Infinity and a number too large for a float; a number of 19 or more
        digits (an int that orjson would read as a float) is not taken; nor a row with another
        transcoded object, nor an event class that upcasts. So an event it decodes holds plain
        JSON only (``store.is_plain``), and its game's views are written by orjson
        (``store.dumps``)."""
        if self._fast is False:
            self._fast = None
            mapper = self.service.mapper
            transcoder = getattr(mapper, "transcoder", None)
            if (type(transcoder) is JSONTranscoder and getattr(mapper, "cipher", None) is None
                    and getattr(mapper, "compressor", None) is None
                    and transcoder.names.get("datetime_iso").__class__ is DatetimeAsISO):
                self._fast = _decode_usual
        return self._fast

    def _views_before(self, by_game: dict[str, list[tuple]], start: int, odd: set[str],
                      whole: set[tuple[str, str]]) -> dict[str, dict]:
        """The views to fold each game's steps onto. Any views that are the fold of the game's
        log up to some seq before its first step give the same views after the steps (the folds
        are deterministic, and a write only moves a stored view forward), so the store is read
        only for the games that need it: a game whose steps start at seq 1 starts from empty
        views, and a game of the batch just written by this object, when this batch follows it,
        from the views that batch wrote. (From views older than the stored ones the map fold
        passes checkpoints that are stored already: written again with ON CONFLICT DO NOTHING.)
        A ``SPLIT`` view (history, dice, vp) is read with its open chunk only (``store.open_chunk``),
        and kept so between batches; ``whole`` gets what ``ProjectionStore.load`` puts in it."""
        carried = self._carried if self._carried is not None and self._carried.last == start else None
        views: dict[str, dict] = {}
        wanted = []
        for gid, steps in by_game.items():
            if carried is not None and gid in carried.views:
                views[gid] = carried.views[gid]
                if gid in carried.writes.odd:
                    odd.add(gid)
            elif steps[0][0] == 1:
                views[gid] = {}
            else:
                wanted.append(gid)
        if wanted:
            views.update(self.store.load(wanted, NAMES, odd, partial=True, whole=whole))
        return views

    def _commit(self, batch: "Batch") -> None:
        """A folded batch's rows and its position, in one transaction; then its views stand for
        its games' stored views in the next batch (``_views_before``)."""
        with self.store.transaction(pipelined=True) as c:
            self._write_all(c, batch.writes, (TRACKED, batch.last))
        self.last_position = batch.last
        self._carry(batch)

    def _carry(self, batch: "Batch") -> None:
        """Keep a written (or sent) batch's views for the next batch: a split view's open chunk only."""
        for views in batch.views.values():
            for name in SPLIT:
                if name in views:
                    views[name] = open_chunk(name, views[name])
        self._carried = batch

    # ------------------------------------------------------------------------------ per game ----
    def current_version(self, game_id: str) -> int:
        found = self.service.recorder.select_events(parse_game_id(game_id), desc=True, limit=1)
        if not found:
            raise GameNotFound(f"no game {game_id}")
        return found[0].originator_version

    def current(self, game_id: str, names: Iterable[str] = NAMES) -> dict[str, dict]:
        """The views of one game, caught up synchronously to the game's current version when
        they are behind it (read-your-writes): bounded by what the projector has not yet done.
        The caught-up views are stored for the next reader (``_keep_for_next_read``)."""
        gid = str(parse_game_id(game_id))
        names = tuple(names)
        version = self.current_version(gid)
        odd: set[str] = set()
        whole: set[tuple[str, str]] = set()
        views = self.store.load([gid], names, odd, whole=whole)[gid]
        if all(views.get(n, {}).get("version", 0) >= version for n in names):
            return views
        marks: list[dict] = []
        since = _versions(gid, views, whole)
        folded = self._fold(gid, views, [], names=names, upto=version, marks=marks, odd=odd, since=since)
        self._keep_for_next_read(gid, f"views caught up to version {version}",
                                 lambda c: self._write(c, gid, folded, marks, odd, since), pipelined=True)
        return folded

    def _keep_for_next_read(self, gid: str, what: str, write: Callable[[Any], None], pipelined: bool = False) -> None:
        """Store what a read folded, so the next read need not fold it again. A store that cannot
        take it now (a write lock held past the lock timeout, no free connection) costs only that:
        the read still answers, and the projector or a later read stores it."""
        try:
            with self.store.transaction(pipelined=pipelined) as c:
                write(c)
        except (OperationalError, InterfaceError) as exc:
            log.warning("game %s: %s for a read, not stored (%s: %s)", gid, what, type(exc).__name__, exc)

    def map_at(self, game_id: str, seq: int) -> dict:
        """The ``map`` view right after seq ``seq`` (unfiltered; ``folds.render_state`` filters it
        for a viewer): the nearest checkpoint at or before ``seq`` plus the map fold of the events
        after it (``stored_steps``), the same fold as live. A game whose checkpoints are missing (projected before
        they existed, or not yet caught up) is folded from the last one there is, and the
        checkpoints passed on the way are written, so the next read is short."""
        gid = str(parse_game_id(game_id))
        view = self.store.checkpoint(gid, seq) or folds.map_empty()
        if view["version"] >= seq:
            return view
        steps = self.stored_steps(gid, view["version"], seq - view["version"], set())
        marks: list[dict] = []
        view = folds.fold_steps({"map": view}, steps, ("map",), every=self.every, marks=marks)["map"]
        if marks:  # each looked at before it is written (odd=None): the checkpoint may hold older values
            self._keep_for_next_read(gid, f"map checkpoints up to seq {seq}",
                                     lambda c: self.store.write_many(c, checkpoints=[(gid, mark) for mark in marks]))
        return view

    def stored_steps(self, gid: str, after: int, limit: int, odd: set[str]) -> list[tuple]:
        """Seqs ``after + 1`` to ``after + limit`` of a game's stored log as steps
        (``folds.step_of_event``): what ``service.lines`` reads, without making export lines of
        the events only for the folds to make events of them again. The rows are decoded as a
        batch of the projector's is (``_fast_decoder``, else the mapper); ``odd`` gets ``gid``
        when one is not plain JSON. As ``service.lines(strict=True)``: a gap in the seqs or a row
        that does not decode is a DamagedLog, a game with no events a GameNotFound."""
        rows = self.service.recorder.select_events(parse_game_id(gid), gt=after or None, limit=limit)
        if not rows and after == 0:
            raise GameNotFound(f"no game {gid}")
        fast, decode, step_of = self._fast_decoder(), self.service.mapper.to_domain_event, folds.step_of_event
        steps = []
        with decoding(gid):
            for row in rows:
                event = fast(row) if fast is not None else None
                if event is None:
                    step = step_of(decode(row))
                    if not _plain_step(step):
                        odd.add(gid)
                else:
                    step = step_of(event)
                steps.append(step)
        if [step[0] for step in steps] != list(range(after + 1, after + 1 + len(steps))):
            raise DamagedLog(f"the stored log of game {gid} has a gap or a repeat after seq {after}; "
                             "its integrity check names the line")
        return steps

    def ensure_current(self, game_ids: Iterable[str]) -> set[str]:
        """Catch up every game of ``game_ids`` that is behind; returns the ids left out because
        their log is damaged. Cheap when the projector is current (one query)."""
        damaged = set()
        if self.position() >= self.head():
            return damaged
        for gid in game_ids:
            try:
                self.current(gid, ("map",))
            except (DamagedLog, GameNotFound):
                damaged.add(gid)
        return damaged

    def rebuild(self, game_id: str | None = None, progress: Callable[[int, int], None] | None = None) -> int:
        """Drop and refold from the log: every projection of every game, or one game's."""
        if game_id is None:
            self.store.drop()
            return self.catch_up(progress=progress)
        gid = str(parse_game_id(game_id))
        version = self.current_version(gid)
        self.store.drop(gid)
        views: dict[str, dict] = {}
        odd: set[str] = set()  # once a line is not plain JSON, the views keep it
        after = 0
        while after < version:
            page = self.service.lines(gid, after=after, limit=BATCH)
            if not page:
                break
            marks: list[dict] = []
            since = _versions(gid, views, set())
            views = self._fold(gid, views, [*map(folds.step_of_line, page)], marks=marks, odd=odd, since=since)
            with self.store.transaction(pipelined=True) as c:
                self._write(c, gid, views, marks, odd, since)
            after = page[-1]["seq"]
            if progress is not None:
                progress(after, version)
        return after

    # ------------------------------------------------------------------------------ helpers ----
    def _fold(self, gid: str, views: dict[str, dict], steps: list, *, names: Iterable[str] = NAMES,
              upto: int | None = None, marks: list[dict] | None = None, odd: set[str],
              since: dict[str, int] | None = None, kept: bool = False) -> dict[str, dict]:
        """Fold ``steps`` (one game's, in seq order: ``folds.step_of_event``/``step_of_line``) into
        its views; the seqs the views lack before them (or up to ``upto``) are read from the log
        first (``stored_steps``), so a view never skips a seq. The map view after every
        ``self.every``-th seq folded here is appended to ``marks``. ``odd`` gets ``gid`` when an
        event read here, or a step of ``steps`` made from a line, is not plain JSON
        (``store.is_plain``).

        A fold that changes items a view already holds (``folds.REACH``: a dice reveal, a
        take-back) lowers that view's ``since`` (``_add``) below the first of them, so their
        chunks are written again; ``kept``: the views are what ``store.open_chunk`` keeps, and
        the older chunks such a fold changes are read back first (``store.widen``)."""
        names = tuple(names)
        low = min(views.get(n, {}).get("version", 0) for n in names)
        first = steps[0][0] if steps else (upto or 0) + 1
        if first > low + 1:
            steps = [*self.stored_steps(gid, low, first - 1 - low, odd), *steps]
        if gid not in odd and not all(_plain_step(s) for s in steps if s[5] is not None):
            odd.add(gid)
        for name, reach_of in folds.REACH.items():
            view = views.get(name)
            if name not in names or not view:
                continue
            reach = reach_of(view, steps)
            if reach is None:
                continue
            if since is not None:
                since[name] = min(since.get(name, 0), reach - 1)
            start = chunk_of(view["version"] + 1)
            if kept and chunk_of(reach) < start:
                older = self.store.load_chunks(gid, name, chunk_of(reach), start, odd)
                views = {**views, name: widen(name, view, older)}
        return folds.fold_steps(views, steps, names, every=self.every, marks=marks)

    def _add(self, writes: "Writes", gid: str, views: dict[str, dict], marks: Iterable[dict] = (),
             since: dict[str, int] | None = None) -> None:
        """Queue a game's folded views, its index row and its map checkpoints. ``since``: by
        projection, the version stored before the fold (``_versions``): a ``SPLIT`` view's
        chunks up to it are not written again."""
        for mark in marks:
            writes.checkpoints.append((gid, mark))
        for name, view in views.items():
            if view["version"] == 0:
                continue
            writes.views.append((name, gid, view, (since or {}).get(name, 0)))
            if name == "map":
                writes.index.append(folds.index_row(view))

    def _write(self, c: Any, gid: str, views: dict[str, dict], marks: Iterable[dict], odd: set[str],
               since: dict[str, int] | None = None) -> None:
        writes = Writes(odd)
        self._add(writes, gid, views, marks, since)
        self._write_all(c, writes)

    def _write_all(self, c: Any, writes: "Writes", position: tuple[Iterable[str], int] | None = None) -> None:
        """Every row of ``writes`` in transaction ``c``, one statement per table, and
        the tracked ``position`` (names, notification id) when given."""
        self.store.write_many(c, views=writes.views, checkpoints=writes.checkpoints, index=writes.index,
                              odd=writes.odd, position=position)


def _versions(gid: str, views: dict[str, dict], whole: set[tuple[str, str]]) -> dict[str, int]:
    """{projection: version} of the views a fold starts from: what is stored already (0 for a
    view loaded from a row written whole, ``ProjectionStore.load``'s ``whole``, whose chunks are
    all still to be written)."""
    return {name: 0 if (gid, name) in whole else view.get("version", 0) for name, view in views.items()}


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a batch is folded and written, and across the
    batches of a catch-up. A batch keeps every event it decodes, and what the folds make of
    them, until its views are written: thousands of new objects, none in a reference cycle, that
    the collector would otherwise go through again and again (it took 15 to 25% of a catch-up).
    Between batches the last batch's views are kept for the next (``_views_before``): with the
    collector on there, its first pass went through all of them, and now and then a full pass
    through every object of the process (20 to 47 ms of a 0.46 s catch-up of 61 batches on
    SQLite; with the collector off throughout, a median of 3 to 6% less CPU time). A whole
    catch-up leaves no cyclic garbage (``gc.collect()`` after one found none, on either store);
    refcounting frees everything as usual, and the collector runs again when the catch-up ends.
    Left alone when it is already off (another thread's batch)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _plain_step(step: tuple) -> bool:
    """What a step brings into the views is plain JSON (``store.is_plain``): its data, and its
    chain hash, time and game id (strings, from an event)."""
    if step[5] is not None:
        return is_plain(step[5])
    return type(step[4].hash) is str and is_plain(step[3])


# A number in JSON text stands after ":", "," or "[" (white space allowed): mapped to "<", a digit
# or minus sign to "0", anything else to " ", "<" and 19 "0"s is a number of 19 or more digits.
# (A string that holds such a run is taken for one too: it only sends the row to the mapper.)
_NUMBERS = bytes(48 if 48 <= b <= 57 or b == 45 else 60 if b in b":,[ \t\n\r" else 32 for b in range(256))
_LONG_NUMBER = b"<" + b"0" * 19


def _decode_usual(notification: Any) -> Any:
    """``Mapper.to_domain_event`` of a usual stored event (``Projections._fast_decoder``), or
    None when the row is not one."""
    state = notification.state
    if state.count(b'"_type_"') != 1 or _LONG_NUMBER in state.translate(_NUMBERS):
        return None
    try:
        data = orjson.loads(state)
    except orjson.JSONDecodeError:
        return None
    oid = notification.originator_id
    usual = _USUAL.get((notification.topic, type(oid)))
    if usual is None:
        usual = _usual_class(notification.topic, type(oid))
    cls, convert = usual
    stamp = data.get("timestamp")
    if (cls is None or type(stamp) is not dict or len(stamp) != 2 or stamp.get("_type_") != "datetime_iso"
            or type(stamp.get("_data_")) is not str or "class_version" in data):
        return None
    data["timestamp"] = datetime.fromisoformat(stamp["_data_"])
    data["originator_id"] = oid if convert is None else convert(oid)
    data["originator_version"] = notification.originator_version
    event = object.__new__(cls)  # as eventsourcing's Mapper.to_domain_event makes the event it reads back
    object.__setattr__(event, "__dict__", data)
    return event


# (topic, type of the originator id) -> (event class, or None when it upcasts; the id's
# convertor, or None when it passes the id through), as resolve_topic and find_id_convertor
# answer them (both keep their answers for the process too).
_USUAL: dict[tuple[str, type], tuple[Any, Any]] = {}


def _usual_class(topic: str, id_type: type) -> tuple[Any, Any]:
    cls = resolve_topic(topic)
    if getattr(cls, "class_version", 1) != 1:
        found: tuple[Any, Any] = (None, None)
    else:
        convert = find_id_convertor(cls, id_type)
        found = (cls, None if convert is pass_through_convertor else convert)
    _USUAL[(topic, id_type)] = found
    return found


class Batch:
    """Notifications read and folded: how many, the last one's id, the rows to write and the
    views folded, by game."""

    __slots__ = ("count", "last", "writes", "views")

    def __init__(self, count: int, last: int, writes: "Writes") -> None:
        self.count, self.last, self.writes = count, last, writes
        self.views: dict[str, dict[str, dict]] = {}


class Writes:
    """The rows one transaction writes: (name, game id, view, the version it was folded from:
    ``ProjectionStore.write_many``), (game id, map view), index rows;
    ``odd``: the games whose views may hold a value that is not plain JSON."""

    __slots__ = ("views", "checkpoints", "index", "odd")

    def __init__(self, odd: set[str]) -> None:
        self.views: list[tuple[str, str, dict, int]] = []
        self.checkpoints: list[tuple[str, dict]] = []
        self.index: list[dict] = []
        self.odd = odd


# ================================================================================ the loop ====
class Projector:
    """``warlog projector``: catch up, sleep, repeat; stops cleanly between batches."""

    def __init__(self, projections: Projections, poll_seconds: float = 0.5):
        self.projections = projections
        self.poll_seconds = poll_seconds
        self.stopping = threading.Event()

    def stop(self, *args: Any) -> None:
        self.stopping.set()

    def run(self) -> None:
        log.info("projector started at notification %s of %s", self.projections.position(), self.projections.head())
        outage = OutageLog(log, "projector")
        while not self.stopping.is_set():
            try:
                done = self.projections.catch_up(stop=self.stopping.is_set)
                outage.got_through()
                if done:
                    log.info("projected %s notification(s); now at %s", done, self.projections.position())
            except Exception as exc:  # a store that is briefly away must not end the process
                outage.failed(exc, self.poll_seconds)
            self.stopping.wait(self.poll_seconds)
        log.info("projector stopped at notification %s", self.projections.position())


class ProgressBar:
    """A plain text progress bar on stderr: ``[#####.....] 1234/5678 events``."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30, what: str = "events"):
        self.stream, self.width, self.what = stream, width, what

    def __call__(self, done: int, total: int) -> None:
        total = max(total, 1)
        filled = min(self.width, self.width * done // total)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {self.what}")
        self.stream.flush()

    def close(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
