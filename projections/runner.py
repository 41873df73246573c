"""Keeping the read models current: catch-up from the notification log, per-game catch-up for
read-your-writes, rebuilds, time travel from map checkpoints, and the ``warlog projector`` loop.

The projector polls the application's notification log on SQLite and PostgreSQL alike
(eventsourcing's PostgreSQL recorder locks the events table on insert, so notification ids
become visible in order). Each batch is folded and written in one transaction with the new
tracking position, so a crash resumes from the last committed batch: nothing skipped, nothing
applied twice (a fold also skips a line at or below its view's version).

Beside the views, the ``map`` view right after every ``CHECKPOINT_EVERY``-th seq is kept as a
checkpoint, written in the same transaction as the views that passed that seq; ``map_at``
answers the state at a past seq from the nearest one.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any, Callable, Iterable, TextIO

from domain.errors import DamagedLog, GameNotFound, IntegrityFailure
from domain.rulesets import UMPIRE, find_ruleset
from domain.service import decoding, parse_game_id
from domain.storage import OutageLog, store_not_answering
from domain.verify import to_line
from projections import folds
from projections.store import ProjectionStore, chunk_of, widen

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
        self.every = every  # map checkpoints after every ``every``-th seq
        self.last_position = 0  # the position the last batch of this object wrote

    # ------------------------------------------------------------------------ the projector ----
    def position(self) -> int:
        return self.store.position(TRACKED)

    def head(self) -> int:
        return self.service.recorder.max_notification_id() or 0

    def run_batch(self, limit: int = BATCH, start: int | None = None) -> int:
        """Fold the next ``limit`` notifications (after ``start``, else after the stored position)
        and write them with the new position; returns how many were read (0: caught up)."""
        if start is None:
            start = self.position()
        notifications = self.service.recorder.select_notifications(start + 1, limit)
        if not notifications:
            return 0
        self._commit(self._fold_batch(notifications))
        return len(notifications)

    def catch_up(self, limit: int = BATCH, progress: Callable[[int, int], None] | None = None,
                 stop: Callable[[], bool] | None = None) -> int:
        """Run batches until the log's head is reached, or until ``stop()`` says so (asked between
        batches); returns the notifications read. The stored position is read once: each batch
        starts after the one before (a position another projector moved further only means lines
        folded again, which a fold skips)."""
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

    def _fold_batch(self, notifications: list) -> Batch:
        """The notifications decoded (the application's mapper), grouped by game and folded onto
        the stored views into the rows to write. A row that does not decode (changed outside
        warlog) stops its game's views before this batch; the other games go on."""
        by_game: dict[str, tuple[list[dict], list[Any]]] = {}
        damaged: set[str] = set()
        for notification in notifications:
            gid = str(notification.originator_id)
            if gid in damaged:
                continue
            try:
                event = self.service.mapper.to_domain_event(notification)
                line = to_line(event)
            except Exception as exc:
                log.error("game %s: notification %s does not decode (%r); its views stay at the last good "
                          "event until the log is repaired", gid, notification.id, exc)
                damaged.add(gid)
                by_game.pop(gid, None)
                continue
            lines, events = by_game.setdefault(gid, ([], []))
            lines.append(line)
            events.append(event)
        # The stored views, a split view with its open chunk only: what a fold of the next seqs needs.
        whole: set[tuple[str, str]] = set()
        views = self.store.load(list(by_game), NAMES, partial=True, whole=whole)
        batch = Batch(notifications[-1].id)
        for gid, (lines, events) in by_game.items():
            marks: list[dict] = []
            since = _versions(gid, views[gid], whole)
            try:
                folded = self._fold(gid, views[gid], lines, events, marks=marks, since=since, kept=True)
            except DamagedLog as exc:
                log.error("game %s: %s", gid, exc)
                continue
            batch.add(gid, folded, marks, since)
        return batch

    def _commit(self, batch: Batch) -> None:
        """A folded batch's rows and its position, in one transaction."""
        with self.store.transaction() as c:
            batch.write(self.store, c, position=(TRACKED, batch.last))
        self.last_position = batch.last

    # ------------------------------------------------------------------------------ per game ----
    def current_version(self, game_id: str) -> int:
        found = self.service.recorder.select_events(parse_game_id(game_id), desc=True, limit=1)
        if not found:
            raise GameNotFound(f"no game {game_id}")
        return found[0].originator_version

    def current(self, game_id: str, names: Iterable[str] = NAMES) -> dict[str, dict]:
        """The views of one game, caught up to the game's current version when they are behind it
        (read-your-writes), and stored for the next reader (``_keep_for_next_read``)."""
        gid = str(parse_game_id(game_id))
        names = tuple(names)
        version = self.current_version(gid)
        whole: set[tuple[str, str]] = set()
        views = self.store.load([gid], names, whole=whole)[gid]
        if all(views.get(n, {}).get("version", 0) >= version for n in names):
            return views
        marks: list[dict] = []
        since = _versions(gid, views, whole)
        folded = self._fold(gid, views, [], [], names=names, upto=version, marks=marks, since=since)
        batch = Batch()
        batch.add(gid, folded, marks, since)
        self._keep_for_next_read(gid, f"views caught up to version {version}", lambda c: batch.write(self.store, c))
        return folded

    def _keep_for_next_read(self, gid: str, what: str, write: Callable[[Any], None]) -> None:
        """Store what a read folded, so the next read need not fold it again. A store that cannot
        take it now (a write lock held past the lock timeout, no free connection) costs only that:
        the read still answers, and the projector or a later read stores it."""
        try:
            with self.store.transaction() as c:
                write(c)
        except Exception as exc:
            if not store_not_answering(exc):
                raise
            log.warning("game %s: %s for a read, not stored (%s: %s)", gid, what, type(exc).__name__, exc)

    def map_at(self, game_id: str, seq: int) -> dict:
        """The ``map`` view right after seq ``seq`` (unfiltered; ``folds.render_state`` filters it):
        the nearest checkpoint at or before ``seq`` plus the map fold of the events after it. The
        checkpoints passed on the way (missing ones: a game not yet caught up) are written, so the
        next read is short."""
        gid = str(parse_game_id(game_id))
        view = self.store.checkpoint(gid, seq) or folds.map_empty()
        if view["version"] >= seq:
            return view
        lines, events = self._stored(gid, view["version"], seq - view["version"])
        marks: list[dict] = []
        with self.service.folding(gid):
            view = self._fold_views({"map": view}, lines, events, ("map",), marks)["map"]
        if marks:
            self._keep_for_next_read(gid, f"map checkpoints up to seq {seq}",
                                     lambda c: self.store.write_many(c, checkpoints=[(gid, mark) for mark in marks]))
        return view

    def ensure_current(self, game_ids: Iterable[str]) -> set[str]:
        """Catch up every game of ``game_ids`` that is behind; returns the ids left out because
        their log is damaged. Cheap when the projector is current (one query); behind, only the
        games with events after its position are looked at (one query finds them): looking at
        each, a list of every public game cost a query or two per game at every read."""
        damaged: set[str] = set()
        position = self.position()
        if position >= self.head():
            return damaged
        changed = self.service.games_changed_after(position)
        for gid in (g for g in game_ids if g in changed):
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
        after = 0
        while after < version:
            page, events = self._stored(gid, after, BATCH)
            if not page:
                break
            marks: list[dict] = []
            since = _versions(gid, views, set())
            views = self._fold(gid, views, page, events, marks=marks, since=since)
            batch = Batch()
            batch.add(gid, views, marks, since)
            with self.store.transaction() as c:
                batch.write(self.store, c)
            after = page[-1]["seq"]
            if progress is not None:
                progress(after, version)
        return after

    # ------------------------------------------------------------------------------ helpers ----
    def _stored(self, gid: str, after: int, limit: int) -> tuple[list[dict], list[Any]]:
        """Seqs ``after + 1`` to ``after + limit`` of a game's log: its export lines and their
        events (the map fold is given the events, not made to rebuild them from the lines). As
        ``service.lines``: a gap or a row that does not decode is a DamagedLog, no game a
        GameNotFound."""
        with decoding(gid):
            events = list(self.service.events.get(parse_game_id(gid), gt=after or None, limit=limit))
            lines = [to_line(event) for event in events]
        if [line["seq"] for line in lines] != list(range(after + 1, after + 1 + len(lines))):
            raise DamagedLog(f"the stored log of game {gid} has a gap or a repeat after seq {after}; "
                             "its integrity check names the line")
        if not lines and after == 0:
            raise GameNotFound(f"no game {gid}")
        return lines, events

    def _fold(self, gid: str, views: dict[str, dict], lines: list[dict], events: list[Any], *,
              names: Iterable[str] = NAMES, upto: int | None = None, marks: list[dict] | None = None,
              since: dict[str, int] | None = None, kept: bool = False) -> dict[str, dict]:
        """Fold one game's ``lines`` (in seq order) and their ``events`` into its views. The seqs the views lack before them (or up to ``upto``) are read from the
        log first, so a view never skips a seq.

        A fold that changes items a view already holds (``folds.REACH``: a dice reveal, a
        take-back) lowers that view's ``since`` below the first of them, so their chunks are
        written again; ``kept``: the views hold their open chunk only, and the older
        chunks such a fold changes are read back first (``store.widen``)."""
        names = tuple(names)
        low = min(views.get(n, {}).get("version", 0) for n in names)
        first = lines[0]["seq"] if lines else (upto or 0) + 1
        if first > low + 1:
            earlier, earlier_events = self._stored(gid, low, first - 1 - low)
            lines, events = [*earlier, *lines], [*earlier_events, *events]
        for name, reach_of in folds.REACH.items():
            view = views.get(name)
            if name not in names or not view:
                continue
            reach = reach_of(view, lines)
            if reach is None:
                continue
            if since is not None:
                since[name] = min(since.get(name, 0), reach - 1)
            start = chunk_of(view["version"] + 1)
            if kept and chunk_of(reach) < start:
                older = self.store.load_chunks(gid, name, chunk_of(reach), start)
                views = {**views, name: widen(name, view, older)}
        with self.service.folding(gid):
            return self._fold_views(views, lines, events, names, marks)

    def _fold_views(self, views: dict[str, dict], lines: list[dict], events: list[Any], names: Iterable[str],
                    marks: list[dict] | None) -> dict[str, dict]:
        """``folds.fold`` of each named view over ``lines``; the map fold is given the lines'
        events, and its view after every ``self.every``-th seq is appended to ``marks``."""
        out = {}
        for name in names:
            if name != "map":
                out[name] = folds.fold(name, lines, views.get(name) or None)
                continue
            view = views.get("map") or folds.map_empty()
            for line, event in zip(lines, events):
                folded = folds.map_apply(view, line, event)
                if marks is not None and folded is not view and folded["version"] % self.every == 0:
                    marks.append(folded)
                view = folded
            out[name] = view
        return out


def _versions(gid: str, views: dict[str, dict], whole: set[tuple[str, str]]) -> dict[str, int]:
    """{projection: version} of the views a fold starts from: what is stored already (0 for a
    view stored whole, ``ProjectionStore.load``'s ``whole``, whose chunks are all still to be written)."""
    return {name: 0 if (gid, name) in whole else view.get("version", 0) for name, view in views.items()}


class Batch:
    """The rows one transaction writes (``ProjectionStore.write_many``): views as (name, game id,
    view, the version stored before), map checkpoints, index rows; for a projector's batch, the
    last notification id read."""

    def __init__(self, last: int = 0) -> None:
        self.last = last
        self.rows: list[tuple[str, str, dict, int]] = []
        self.checkpoints: list[tuple[str, dict]] = []
        self.index: list[dict] = []

    def add(self, gid: str, views: dict[str, dict], marks: Iterable[dict] = (),
            since: dict[str, int] | None = None) -> None:
        """A game's folded views, its index row and its map checkpoints. ``since``: by projection,
        the version stored before the fold: a split view's chunks up to it are not written again."""
        self.checkpoints.extend((gid, mark) for mark in marks)
        for name, view in views.items():
            if view["version"] == 0:
                continue
            self.rows.append((name, gid, view, (since or {}).get(name, 0)))
            if name == "map":
                self.index.append(folds.index_row(view))

    def write(self, store: ProjectionStore, c: Any, position: tuple[Iterable[str], int] | None = None) -> None:
        store.write_many(c, views=self.rows, checkpoints=self.checkpoints, index=self.index, position=position)


# ================================================================================ the loop ====
def check_foldable(lines: list[dict], events: list[Any]) -> None:
    """Fold a game's lines (a file being imported, with their events) as the projector folds them
    and show the views to the umpire, each seat and a spectator as the reads do: where they fail,
    an IntegrityFailure naming the first line they fail at. A file that verifies but that the
    readers cannot take (a set-up whose pending decisions are text) is so refused before it is
    stored, instead of answering 500 to every read and stalling the projector on every batch."""
    views = {name: folds.FOLDS[name][0]() for name in NAMES}
    for line, event in zip(lines, events):
        try:
            views = {name: folds.map_apply(view, line, event) if name == "map" else folds.FOLDS[name][1](view, line)
                     for name, view in views.items()}
        except Exception as exc:
            raise IntegrityFailure(f"{line['type']} cannot be folded into the game's views: {exc!r}",
                                   seq=line["seq"]) from None
    if _shown(lines, views) is None:
        return
    low, high = 1, len(lines)  # the first prefix of the file whose views cannot be shown
    while low < high:
        mid = (low + high) // 2
        if _shown(lines[:mid], _folded(lines[:mid], events[:mid])) is None:
            low = mid + 1
        else:
            high = mid
    raise IntegrityFailure(f"{lines[low - 1]['type']} leaves views the reads cannot show: "
                           f"{_shown(lines, views)!r}", seq=lines[low - 1]["seq"])


def _folded(lines: list[dict], events: list[Any]) -> dict[str, dict]:
    return {name: folds.fold(name, lines) for name in NAMES if name != "map"} | {
        "map": _fold_map(lines, events)}


def _fold_map(lines: list[dict], events: list[Any]) -> dict:
    view = folds.map_empty()
    for line, event in zip(lines, events):
        view = folds.map_apply(view, line, event)
    return view


def _shown(lines: list[dict], views: dict[str, dict]) -> Exception | None:
    """What showing ``views`` to each reader raises (state, history, VP track, dice audit), or None."""
    created = lines[0]["data"]
    game_id = lines[0]["game_id"]
    try:
        rules = find_ruleset(created["ruleset"])
        for viewer in (UMPIRE, None, *created.get("seats", ())):
            folds.render_state(views["map"], viewer)
            folds.render_history(views["history"], rules, viewer, game_id)
            folds.render_vp(views["vp"], rules, viewer, game_id)
            folds.render_dice(views["dice"], rules, viewer, game_id)
    except Exception as exc:
        return exc
    return None


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
