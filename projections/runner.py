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

import logging
import sys
import threading
from typing import Any, Callable, Iterable, TextIO

from domain import verify as verifying
from domain.errors import DamagedLog, GameNotFound
from domain.service import parse_game_id
from projections import folds
from projections.store import ProjectionStore

log = logging.getLogger("warlog.projector")

NAMES = tuple(folds.FOLDS)  # map, vp, history, dice; the games index is written with "map"
TRACKED = (*NAMES, "games")
BATCH = 500
CHECKPOINT_EVERY = 100  # a map checkpoint after every 100th seq: at most 99 lines to fold for a past state


class Projections:
    """The read models of one Warlog application service."""

    def __init__(self, service: Any, store: ProjectionStore | None = None, every: int = CHECKPOINT_EVERY):
        self.service = service
        self.store = store or ProjectionStore.for_service(service)
        self.every = every  # map checkpoints after every ``every``-th seq (any set of them gives the same states)

    # ------------------------------------------------------------------------ the projector ----
    def position(self) -> int:
        return self.store.position(TRACKED)

    def head(self) -> int:
        return self.service.recorder.max_notification_id() or 0

    def run_batch(self, limit: int = BATCH) -> int:
        """Fold the next ``limit`` notifications; returns how many were read (0: caught up)."""
        start = self.position()
        notifications = self.service.recorder.select_notifications(start + 1, limit)
        if not notifications:
            return 0
        by_game: dict[str, list[dict]] = {}
        damaged: set[str] = set()
        for notification in notifications:
            gid = str(notification.originator_id)
            if gid in damaged:
                continue
            try:
                line = verifying.to_line(self.service.mapper.to_domain_event(notification))
            except Exception as exc:  # a row changed outside warlog: the game's views stop before it
                log.error("game %s: notification %s does not decode (%r); its views stay at the last good "
                          "event until the log is repaired", gid, notification.id, exc)
                damaged.add(gid)
                by_game.pop(gid, None)
                continue
            by_game.setdefault(gid, []).append(line)
        views = self.store.load(by_game, NAMES)
        updated = {}
        for gid, lines in by_game.items():
            marks: list[dict] = []
            try:
                updated[gid] = self._fold(gid, views[gid], lines, marks=marks), marks
            except DamagedLog as exc:
                log.error("game %s: %s", gid, exc)
        with self.store.transaction() as c:
            for gid, (game_views, marks) in updated.items():
                self._write(c, gid, game_views, marks)
            self.store.write_position(c, TRACKED, notifications[-1].id)
        return len(notifications)

    def catch_up(self, limit: int = BATCH, progress: Callable[[int, int], None] | None = None) -> int:
        """Run batches until the log's head is reached; returns the notifications read."""
        total = 0
        while True:
            done = self.run_batch(limit)
            total += done
            if progress is not None and (done or not total):
                progress(self.position(), self.head())
            if done == 0:
                return total

    # ------------------------------------------------------------------------------ per game ----
    def current_version(self, game_id: str) -> int:
        found = self.service.recorder.select_events(parse_game_id(game_id), desc=True, limit=1)
        if not found:
            raise GameNotFound(f"no game {game_id}")
        return found[0].originator_version

    def current(self, game_id: str, names: Iterable[str] = NAMES) -> dict[str, dict]:
        """The views of one game, caught up synchronously to the game's current version when
        they are behind it (read-your-writes): bounded by what the projector has not yet done."""
        gid = str(parse_game_id(game_id))
        names = tuple(names)
        version = self.current_version(gid)
        views = self.store.load([gid], names)[gid]
        if all(views.get(n, {}).get("version", 0) >= version for n in names):
            return views
        marks: list[dict] = []
        folded = self._fold(gid, views, [], names=names, upto=version, marks=marks)
        with self.store.transaction() as c:
            self._write(c, gid, folded, marks)
        return folded

    def map_at(self, game_id: str, seq: int) -> dict:
        """The ``map`` view right after seq ``seq`` (unfiltered; ``folds.render_state`` filters it
        for a viewer): the nearest checkpoint at or before ``seq`` plus the map fold of the lines
        after it, the same fold as live. A game whose checkpoints are missing (projected before
        they existed, or not yet caught up) is folded from the last one there is, and the
        checkpoints passed on the way are written, so the next read is short."""
        gid = str(parse_game_id(game_id))
        view = self.store.checkpoint(gid, seq) or folds.map_empty()
        if view["version"] >= seq:
            return view
        marks: list[dict] = []
        for line in self.service.lines(gid, after=view["version"], limit=seq - view["version"]):
            view = folds.map_apply(view, line)
            if view["version"] % self.every == 0:
                marks.append(view)
        if marks:
            with self.store.transaction() as c:
                for mark in marks:
                    self.store.write_checkpoint(c, gid, mark)
        return view

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
        after = 0
        while after < version:
            page = self.service.lines(gid, after=after, limit=BATCH)
            if not page:
                break
            marks: list[dict] = []
            views = self._fold(gid, views, page, marks=marks)
            with self.store.transaction() as c:
                self._write(c, gid, views, marks)
            after = page[-1]["seq"]
            if progress is not None:
                progress(after, version)
        return after

    # ------------------------------------------------------------------------------ helpers ----
    def _fold(self, gid: str, views: dict[str, dict], lines: list[dict], *, names: Iterable[str] = NAMES,
              upto: int | None = None, marks: list[dict] | None = None) -> dict[str, dict]:
        """Fold ``lines`` (one game's, in seq order) into its views; lines the views lack before
        them (or up to ``upto``) are read from the log first, so a view never skips a seq. The
        map view after every ``self.every``-th seq folded here is appended to ``marks``."""
        names = tuple(names)
        out = {}
        low = min(views.get(n, {}).get("version", 0) for n in names)
        first = lines[0]["seq"] if lines else (upto or 0) + 1
        missing: list[dict] = []
        if first > low + 1:
            missing = self.service.lines(gid, after=low, limit=first - 1 - low)
        for name in names:
            empty, apply = folds.FOLDS[name]
            view = views.get(name) or empty()
            checkpoints = marks if name == "map" and marks is not None else None
            for line in (*missing, *lines):
                before = view["version"]
                view = apply(view, line)
                if checkpoints is not None and view["version"] != before and view["version"] % self.every == 0:
                    checkpoints.append(view)
            out[name] = view
        return out

    def _write(self, c: Any, gid: str, views: dict[str, dict], marks: Iterable[dict] = ()) -> None:
        for mark in marks:
            self.store.write_checkpoint(c, gid, mark)
        for name, view in views.items():
            if view["version"] == 0:
                continue
            self.write_view(c, name, gid, view)
            if name == "map":
                self.store.write_index(c, folds.index_row(view))

    def write_view(self, c: Any, name: str, gid: str, view: dict) -> bool:
        return self.store.write_view(c, name, gid, view)


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
        while not self.stopping.is_set():
            try:
                done = 0
                while not self.stopping.is_set():
                    n = self.projections.run_batch()
                    if n == 0:
                        break
                    done += n
                if done:
                    log.info("projected %s notification(s); now at %s", done, self.projections.position())
            except Exception:  # a store that is briefly away must not end the process
                log.exception("projector batch failed; retrying in %ss", self.poll_seconds)
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
