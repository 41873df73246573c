"""The application service: the one door to games for the API, the CLI, workers and tests.

It speaks plain types (ids, dicts, strings); loads a Game, calls one command, saves. A save that
loses a race on the game's version records nothing and becomes a Conflict, except for an order
whose id the winner recorded: that returns the winner's result (idempotency).
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
from collections import OrderedDict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Sequence
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, ProcessingEvent
from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import IntegrityError, InterfaceError, MapperDeserialisationError, OperationalError
from eventsourcing.utils import get_topic

from domain import chain, storable
from domain import verify as verifying
from domain.damage import Damage, DamageRecords
from domain.errors import Conflict, DamagedLog, GameNotFound, IntegrityFailure, StaleVersion, WarlogError
from domain.events import GameCreated, event_class
from domain.game import Game
from domain.storage import (GameEventStore, Guard, RowDigests, SeedStore, StaleCopies, StoreConfig, config_from_env,
                            fold_row, writer_lock)
from domain.transcoding import EventTranscoder


@contextmanager
def decoding(game_id):
    """A stored event that no longer decodes, or no longer follows its predecessor, is a
    DamagedLog naming the game, not an anonymous crash; check_integrity names the line."""
    try:
        yield
    except (MapperDeserialisationError, OriginatorVersionError, OriginatorIDError,
            TypeError, KeyError, AttributeError, ValueError, AssertionError) as exc:
        # AssertionError: eventsourcing's fold asserts the first event made the aggregate
        raise DamagedLog(f"the stored log of game {game_id} is damaged ({type(exc).__name__}); "
                         "its integrity check names the line") from exc


@dataclass(frozen=True)
class CommandResult:
    """What a command recorded: the events as export lines, the new version and chain head."""

    game_id: str
    ruleset: str
    events: list[dict]
    version: int
    chain_head: str
    replayed: bool = False
    order_id: str | None = None


@dataclass
class CachedGame:
    """A game as this process last saved (or loaded) it, with what it was built from: the
    snapshot at ``base`` (0: none) and the stored rows after it, as their number and a running
    digest (``storage.fold_row``)."""

    game: Game
    base: int
    rows: int = 0
    digest: Any = field(default_factory=hashlib.sha256)
    # The copy was behind the store when last used (another process records in this game too):
    # the next command checks it first (``Warlog._with_game``).
    check_first: bool = False
    # Its size as the cache accounts it: the stored bytes a load of it reads (its snapshot's and
    # those of the rows after it), which the state it holds grows with.
    nbytes: int = 0

    def add_row(self, state: bytes) -> None:
        self.rows += 1
        self.nbytes += len(state)
        fold_row(self.digest, state)

    def guard(self) -> Guard:
        """What a save of this copy asks of the store: the rows it was built from, unchanged."""
        return Guard(self.game.id, self.base, self.base + self.rows, self.rows, self.digest.digest())


class GameCache:
    """The games this process used last, so a command need not rebuild its game from a snapshot
    and up to a hundred decoded events (``Warlog._with_game`` says how a copy is checked).

    A command *takes* its game out (no two threads ever share one object: a command mutates it)
    and puts it back once saved, or untouched (a refused order). Least recently used games fall
    out beyond ``size`` games or ``max_bytes`` (the sum of the copies' ``nbytes``); a game larger
    than ``max_bytes`` alone is not kept."""

    def __init__(self, size: int, max_bytes: int = 0):
        self.size = size
        self.max_bytes = max_bytes
        self.nbytes = 0  # the sum of the kept copies' nbytes
        self._games: OrderedDict[UUID, CachedGame] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, game_id: UUID) -> CachedGame | None:
        with self._lock:
            cached = self._games.pop(game_id, None)
            if cached is not None:
                self.nbytes -= cached.nbytes
            return cached

    def put(self, cached: CachedGame) -> None:
        if cached.game.pending_events or self.size <= 0 or cached.nbytes > self.max_bytes:
            return  # unsaved events: this object is no longer the stored game; or it is too large
        with self._lock:
            old = self._games.pop(cached.game.id, None)
            if old is not None:
                self.nbytes -= old.nbytes
            self._games[cached.game.id] = cached
            self.nbytes += cached.nbytes
            while len(self._games) > self.size or self.nbytes > self.max_bytes:
                _, dropped = self._games.popitem(last=False)
                self.nbytes -= dropped.nbytes

    def __len__(self) -> int:
        return len(self._games)


@dataclass
class _Pending:
    game: Game
    guard: Guard | None = None
    lead: bool = False
    finished: bool = False
    recordings: list | None = None
    error: BaseException | None = None


class GroupCommit:
    """Saves of different games that arrive together are written in ONE transaction
    (``Application.save(*games)``): one commit, and on PostgreSQL one lock of the events table,
    for all of them.

    Nobody waits on purpose: the first save to arrive is written at once; saves arriving while
    it commits queue up, and the first of them then leads: it writes the whole queue in one go
    (at most ``limit`` games, at most one save per game). When a batch fails (one of its games
    lost a race on its version), its members are saved one by one, so one game's conflict never
    fails another's order: each thread gets its own recordings or its own error, exactly as
    without batching. A batch the store could not take (a lock not granted within the lock
    timeout, a connection lost: ``OperationalError``, ``InterfaceError``) fails each of its
    members with that error at once: saved one by one, each would wait out the timeout again.
    A save may carry a ``Guard`` (the rows its game was built from, checked by the same
    statement); a batch whose guards find changed rows fails those members with ``StaleCopies``
    and is written again without them."""

    def __init__(self, save: Callable[..., list], limit: int = 64,
                 exclusive: Callable[[], Any] = nullcontext):
        self._save = save
        self.exclusive = exclusive  # held around each batch (storage.writer_lock)
        self.limit = limit
        self._queue: list[_Pending] = []
        self._cond = threading.Condition()
        self._busy = False
        self.batches = 0  # transactions that saved more than one game
        self.fallbacks = 0  # batches that failed and were saved one by one

    def save(self, game: Game, guard: Guard | None = None) -> list:
        mine = _Pending(game, guard)
        with self._cond:
            self._queue.append(mine)
            if not self._busy:
                self._busy = mine.lead = True
            while not mine.finished:
                if mine.lead:
                    self._lead(mine)
                else:
                    self._cond.wait()
        if mine.error is not None:
            raise mine.error
        return mine.recordings

    def _lead(self, mine: _Pending) -> None:
        """Write the queue as one batch; called and returning with the condition's lock held."""
        batch, later, seen = [], [], set()
        for entry in self._queue:
            if entry.game.id in seen or len(batch) >= self.limit:
                later.append(entry)
            else:
                seen.add(entry.game.id)
                batch.append(entry)
        self._queue = later
        self._cond.release()
        try:
            with self.exclusive():
                self._commit(batch)
        finally:
            self._cond.acquire()
            for entry in batch:
                if entry.recordings is None and entry.error is None:
                    entry.error = RuntimeError("the batch holding this save was interrupted")
                entry.finished = True
            mine.lead = False
            if self._queue:
                self._queue[0].lead = True
            else:
                self._busy = False
            self._cond.notify_all()

    def _write(self, batch: list[_Pending]) -> list:
        return self._save(*(entry.game for entry in batch),
                          guards=[entry.guard for entry in batch if entry.guard is not None])

    def _commit(self, batch: list[_Pending]) -> None:
        if len(batch) == 1:
            self._one(batch[0])
            return
        pending = [(entry, list(entry.game.pending_events)) for entry in batch]
        try:
            recordings = self._write(batch)
        except (OperationalError, InterfaceError) as exc:  # the store, not a member: all fail alike
            for entry, events in pending:
                entry.game.pending_events[:] = events
                entry.error = copy.copy(exc)  # each thread raises its own
                entry.error.__cause__ = exc.__cause__
            return
        except StaleCopies as exc:  # those members fail; the others are written without them
            for entry, events in pending:
                entry.game.pending_events[:] = events
            stale = [entry for entry in batch if entry.game.id in exc.ids]
            for entry in stale:
                entry.error = StaleCopies([entry.game.id])
            rest = [entry for entry in batch if entry.game.id not in exc.ids]
            if stale and rest:
                self._commit(rest)
            elif not stale:  # not ids of this batch: a bug, failed as any other failure would be
                for entry in batch:
                    entry.error = exc
            return
        except Exception:
            self.fallbacks += 1
            for entry, events in pending:  # save() collected them: give each game its events back
                entry.game.pending_events[:] = events
                self._one(entry)
            return
        self.batches += 1
        by_game: dict[UUID, list] = {entry.game.id: [] for entry in batch}
        for recording in recordings:
            by_game[recording.domain_event.originator_id].append(recording)
        for entry in batch:
            entry.recordings = by_game[entry.game.id]

    def _one(self, entry: _Pending) -> None:
        try:
            entry.recordings = self._write([entry])
        except Exception as exc:  # handed to the thread whose save it was
            entry.error = exc


def _fold(game: Any, events: Iterable[Any]) -> Any:
    """eventsourcing's ``project_aggregate`` (the repository's fold of a snapshot and the events
    after it) without its ``assert isinstance(event, CanMutateProtocol)`` for every event: a
    runtime protocol check, 20 us an event on Python 3.11, 40% of loading a game of a hundred
    events. Every event of a game mutates (GameCreated, the snapshots, GameEvent)."""
    for event in events:
        game = event.mutate(game)
    return game


def damaged_log(game_id: Any, seq: int) -> DamagedLog:
    """The refusal of a command on a game whose stored log fails verification at line ``seq``."""
    return DamagedLog(f"the stored log of game {game_id} fails verification at this line; the game "
                      "takes no orders until an operator acts (docs/operations.md)", seq=seq)


def game_cache_bytes(default: int, environ: dict | None = None) -> int:
    """``WARLOG_GAME_CACHE_BYTES``: the most stored bytes of games a process keeps in memory
    (``GameCache``); 0 keeps none."""
    raw = (os.environ if environ is None else environ).get("WARLOG_GAME_CACHE_BYTES", "").strip()
    if not raw:
        return default
    if not raw.isdigit():
        raise ValueError(f"WARLOG_GAME_CACHE_BYTES must be a whole number of bytes, not {raw!r}")
    return int(raw)


def parse_game_id(game_id: str | UUID) -> UUID:
    if isinstance(game_id, UUID):
        return game_id
    try:
        return UUID(str(game_id))
    except ValueError:
        raise GameNotFound(f"no game {game_id!r}") from None


class Warlog(Application):
    """Games on an event store, plus the dice seeds beside it."""

    name = "Warlog"
    is_snapshotting_enabled = True
    snapshotting_intervals = {Game: 100}
    GAME_CACHE = 1000  # games kept in memory between commands, per process (GameCache)
    GAME_CACHE_BYTES = 64 * 2**20  # their stored bytes, at most (WARLOG_GAME_CACHE_BYTES)

    def __init__(self, config: StoreConfig | None = None, *, create_tables: bool = False):
        self.config = config or config_from_env()
        self.snapshotting_intervals = {Game: self.config.snapshot_interval}
        super().__init__(env=self.config.eventsourcing_env(create_table=create_tables))
        schema = (self.config.postgres or {}).get("POSTGRES_SCHEMA")
        self.seeds = SeedStore(self.recorder.datastore, self.config.kind, schema)
        self.damage = DamageRecords.for_service(self)
        if create_tables:
            self.seeds.create_table()
            self.damage.create_tables()
        self.games = GameCache(self.GAME_CACHE, game_cache_bytes(self.GAME_CACHE_BYTES))
        self._snapshot_bytes: dict[UUID, int] = {}  # a game's snapshot just taken: its stored size
        self.row_digests = RowDigests(self.recorder, self.config.kind)
        # Looked up at each save (not bound now), so a wrapper put on self.save sees every save.
        self.group_commit = GroupCommit(lambda *games, guards: self.save(*games, guards=guards),
                                        exclusive=lambda: writer_lock(self.config))

    def construct_transcoder(self) -> Any:
        """eventsourcing's JSON transcoder, with the usual event's state written by orjson
        (domain/transcoding.py); another transcoder when ``TRANSCODER_TOPIC`` names one."""
        if self.env.get(self.factory.TRANSCODER_TOPIC):
            return super().construct_transcoder()
        transcoder = EventTranscoder()
        self.register_transcodings(transcoder)
        return transcoder

    def construct_event_store(self) -> Any:
        """eventsourcing's event store, whose ``put`` skips the frozen dataclasses' ``__init__``
        (``storage.GameEventStore``)."""
        return GameEventStore(mapper=self.mapper, recorder=self.recorder)

    @classmethod
    def migrate(cls, config: StoreConfig | None = None) -> None:
        """Create the schema once (at start-up or by ``warlog migrate``), never per worker."""
        app = cls(config, create_tables=True)
        app.close()

    def save(self, *objs: Any, guards: Sequence[Guard] = (), **kwargs: Any) -> list:
        """``Application.save``, with the events of games collected without asking ``isinstance``
        of two runtime-checkable protocols per game, as eventsourcing's ``collect_events`` does:
        on Python 3.11 that took 30 us a game (about 5% of a freeform order's CPU). Anything but
        games goes to eventsourcing's. ``guards`` go to the recorder, which checks them in the
        statement or transaction that writes the rows (``StaleCopies``)."""
        if kwargs or not all(type(obj) is Game for obj in objs):
            assert not guards, "guards are for saves of games"
            return super().save(*objs, **kwargs)
        processing_event: ProcessingEvent = ProcessingEvent()
        if guards:
            processing_event.saved_kwargs["guards"] = guards
        for game in objs:
            processing_event.events.extend(game.collect_events())
            processing_event.aggregates[game.id] = game
        recordings = self._record(processing_event)
        self._take_snapshots(processing_event)
        self._notify(recordings)
        return recordings

    def _take_snapshots(self, processing_event: Any) -> None:
        """A snapshot of each game whose save reaches a multiple of the interval, taken from the
        game in memory at the end of that save (one ``put`` for the batch). eventsourcing snapshots
        at the multiple itself, which inside a save (an order of several events) means reading
        the game back from the store: its last snapshot and up to a hundred events decoded and
        applied, more than the rest of an order costs (docs/benchmarks.md). A snapshot is valid at
        any version; loads take the latest one at or before the version they want."""
        interval = self.config.snapshot_interval
        if not (self.snapshots and interval):
            return
        reached = {}
        for event in processing_event.events:
            if event.originator_version % interval == 0:
                game = processing_event.aggregates.get(event.originator_id)
                if game is not None:
                    reached[game.id] = game
        if reached:
            snapshots = [Game.Snapshot.take(game) for game in reached.values()]
            self.snapshots.put(snapshots)
            for snapshot in snapshots:  # its size, for the game cache's account (_keep)
                self._snapshot_bytes[snapshot.originator_id] = len(self.mapper.to_stored_event(snapshot).state)

    # ------------------------------------------------------------------------------ reads --
    HEALTH_TIMEOUT = 2.0  # seconds /healthz waits for a connection

    def store_head(self, timeout: float = HEALTH_TIMEOUT) -> int:
        """The notification log's head, read once on a connection got within ``timeout``
        seconds: what /healthz answers. The recorder's read waits up to the connect timeout for
        a connection (``storage.retry_store``); a health check answers sooner: OperationalError
        (503 store_unavailable) once ``timeout`` has passed."""
        if self.config.kind == "sqlite":  # in-process: a WAL reader never waits
            return self.recorder.max_notification_id() or 0
        import psycopg
        from psycopg.rows import tuple_row

        pool = self.recorder.datastore.pool
        try:
            pool.open()  # as eventsourcing's get_connection does; nothing when it is open already
            with pool.connection(timeout=timeout) as conn, conn.cursor(row_factory=tuple_row) as curs:
                curs.execute(self.recorder.max_notification_id_statement)
                row = curs.fetchone()
        except psycopg.Error as exc:
            raise OperationalError(f"{type(exc).__name__}: {exc}") from exc
        return (row[0] if row else 0) or 0

    def get_game(self, game_id: str | UUID, version: int | None = None) -> Game:
        with self.naming_damage(game_id), decoding(game_id):
            try:
                return self.repository.get(parse_game_id(game_id), version=version, projector_func=_fold)
            except AggregateNotFoundError:
                raise GameNotFound(f"no game {game_id}") from None

    def lines(self, game_id: str | UUID, after: int = 0, limit: int | None = None, *,
              strict: bool = True) -> list[dict]:
        """Stored events as export lines, from seq ``after + 1``; ``strict`` refuses a gap in the
        seqs (a deleted row) as a DamagedLog, which an export leaves for verify to name."""
        gid = parse_game_id(game_id)
        with self.naming_damage(gid), decoding(game_id):
            found = [verifying.to_line(e) for e in self.events.get(gid, gt=after or None, limit=limit)]
            if strict and found and [line["seq"] for line in found] != list(range(after + 1, after + 1 + len(found))):
                raise DamagedLog(f"the stored log of game {game_id} has a gap or a repeat after seq "
                                 f"{after}; its integrity check names the line")
        if not found and after == 0:
            raise GameNotFound(f"no game {game_id}")
        return found

    def export(self, game_id: str | UUID) -> Iterator[str]:
        """The game as JSON Lines (docs/dice.md), read in pages so long games stream."""
        after = 0
        while True:
            page = self.lines(game_id, after=after, limit=500, strict=False)
            if not page:
                return
            for line in page:
                yield verifying.dumps(line)
            after = page[-1]["seq"]

    def check_integrity(self, game_id: str | UUID) -> verifying.Report:
        """Verify the stored log of a game as an umpire would verify its export.

        Reads the stored rows one by one, so a row that no longer decodes (edited by hand) is
        reported at its seq like any other failure instead of stopping the check."""
        gid = parse_game_id(game_id)
        report = verifying.Report()
        lines = []
        for stored in self.recorder.select_events(gid):
            try:
                lines.append(verifying.to_line(self.mapper.to_domain_event(stored)))
            except Exception as exc:  # whatever a hand-edited row makes the decoder raise
                report.fail(stored.originator_version,
                            f"stored event {stored.originator_version} cannot be decoded: {exc!r}")
                lines.append(None)  # keeps later lines at their seq
        if not lines:
            raise GameNotFound(f"no game {game_id}")
        verifying.verify(lines, report)
        report.failures.sort(key=lambda f: f[0])
        if not report.ok:
            self.damage.record(gid, report.failures)
        return report

    def accept_damage(self, game_id: str | UUID, reason: str) -> Damage:
        """An operator's decision to play on from a damaged stored log as it is: every damaged
        line found (the stored log checked again now) is marked accepted with ``reason``. The
        log keeps failing verification at those lines; a failure at any other line stops the
        game again (domain/damage.py)."""
        if not reason.strip():
            raise IntegrityFailure("give the reason for accepting the damage")
        gid = parse_game_id(game_id)
        self.check_integrity(gid)
        self.damage.accept(gid, reason.strip())
        return self.damage.of(gid)

    def _refuse_if_damaged(self, gid: UUID) -> None:
        """A DamagedLog naming the first damaged line of the game's stored log that no operator
        has accepted, if there is one."""
        damage = self.damage.of(gid)
        if damage.open:
            raise damaged_log(gid, damage.open[0].seq)

    @contextmanager
    def naming_damage(self, game_id: str | UUID) -> Iterator[None]:
        """A DamagedLog that does not name its line (a stored event that no longer decodes, or a
        gap) names the first line the integrity check finds failing, which is recorded."""
        try:
            yield
        except DamagedLog as exc:
            if exc.seq is not None:
                raise
            report = self.check_integrity(game_id)
            if report.ok:
                raise
            raise damaged_log(game_id, report.failures[0][0]) from exc

    # ------------------------------------------------------------------------- commands ----
    def create_game(self, ruleset: str, scenario: str | None = None,
                    options: dict | None = None, umpire: str | None = None) -> CommandResult:
        cached = CachedGame(Game.create(ruleset, scenario, options, umpire=umpire), 0)
        try:
            result = self._save(cached)
        except IntegrityError:
            raise Conflict("another command was recorded first; reload and try again") from None
        self.games.put(cached)
        return result

    def join(self, game_id: str | UUID, seat: str, handle: str, client_seed: str = "") -> CommandResult:
        return self._command(game_id, lambda g: g.join(seat, handle, client_seed, self._seed_for(g)))

    def change_client_seed(self, game_id: str | UUID, seat: str, client_seed: str) -> CommandResult:
        return self._command(game_id, lambda g: g.change_client_seed(seat, client_seed))

    def request_take_back(self, game_id: str | UUID, seat: str, reason: str = "") -> CommandResult:
        return self._command(game_id, lambda g: g.request_take_back(seat, reason))

    def answer_take_back(self, game_id: str | UUID, seat: str, accept: bool) -> CommandResult:
        return self._command(game_id, lambda g: g.answer_take_back(seat, accept))

    def concede(self, game_id: str | UUID, seat: str) -> CommandResult:
        return self._command(game_id, lambda g: g.concede(seat, self._seed_for(g)))

    def propose_umpire(self, game_id: str | UUID, name: str, proposed_by: str) -> CommandResult:
        return self._command(game_id, lambda g: g.propose_umpire(name, proposed_by))

    def answer_umpire(self, game_id: str | UUID, seat: str, accept: bool) -> CommandResult:
        return self._command(game_id, lambda g: g.answer_umpire(seat, accept))

    def revoke_umpire(self, game_id: str | UUID, by: str, reason: str = "") -> CommandResult:
        return self._command(game_id, lambda g: g.revoke_umpire(by, reason))

    def umpire(self, game_id: str | UUID) -> dict | None:
        """The umpire appointed now, as the stored log says ({"name", "appointed"}), or None."""
        return self.get_game(game_id).umpire

    def submit_order(self, game_id: str | UUID, seat: str, order_id: str, order: dict,
                     expected_version: int | None = None) -> CommandResult:
        """Check and record one order. The same order id again returns the first result."""
        def attempt(cached: CachedGame, guard: Guard | None) -> CommandResult:
            game = cached.game
            known = game.order_range(order_id) if isinstance(order_id, str) else None
            if known is None and expected_version is not None and game.version != expected_version:
                raise StaleVersion(f"the game is at version {game.version}, not {expected_version}",
                                   current_version=game.version)
            first, last = game.submit(seat, order_id, order, self._seed_for(game))
            if known is not None:
                return self._replay(game, order_id, first, last)
            recordings = self.group_commit.save(game, guard)
            self._keep(cached, recordings)
            return self._result(game, recordings, order_id=order_id)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:
            winner = self.get_game(game_id)
            if winner.order_range(order_id) is not None:
                first, last = winner.submit(seat, order_id, order, self._seed_for(winner))
                return self._replay(winner, order_id, first, last)
            raise Conflict(f"another order was recorded first; the game is now at version "
                           f"{winner.version}", current_version=winner.version) from None

    def import_lines(self, text_lines: Iterable[str]) -> str:
        """Store a verified export as a game; refuses a file that does not verify, naming the line."""
        report, lines = verifying.verify_text(text_lines)
        if not report.ok:
            n, message = report.failures[0]
            raise IntegrityFailure(message, seq=n)
        if not lines:
            raise IntegrityFailure("the file holds no events")
        game_id = parse_game_id(lines[0]["game_id"])
        if next(iter(self.events.get(game_id, limit=1)), None) is not None:
            raise Conflict(f"game {game_id} already exists here")
        events = []
        for n, line in enumerate(lines, start=1):
            cls = event_class(line["type"])
            if cls is None:
                raise IntegrityFailure(f"unknown event type {line['type']!r}", seq=n)
            found = storable.problem(line["data"], "data")
            if found:  # a value no reader could take back from the log (domain/storable.py)
                raise IntegrityFailure(f"{found}; it cannot be stored", seq=n)
            kwargs = dict(line["data"], originator_id=game_id, originator_version=line["seq"],
                          timestamp=datetime.fromisoformat(line["timestamp"]),
                          prev_hash=line["prev_hash"], hash=line["hash"])
            if cls is GameCreated:
                kwargs["originator_topic"] = get_topic(Game)
            try:
                events.append(cls(**kwargs))
            except TypeError as exc:
                raise IntegrityFailure(f"{line['type']} does not fit this server's events: {exc}", seq=n) from None
        folded = None
        for n, event in enumerate(events, start=1):
            try:
                folded = event.mutate(folded)
            except Exception as exc:  # a ruleset that cannot fold the file names the line
                raise IntegrityFailure(f"{type(event).__name__} cannot be applied: {exc!r}", seq=n) from None
        try:
            self.save(*events)
        except IntegrityError:
            raise Conflict(f"game {game_id} already exists here") from None
        return str(game_id)

    # ------------------------------------------------------------------------------ helpers --
    def _seed_for(self, game: Game):
        game_id = str(game.id)
        return lambda epoch: self.seeds.seed_for(game_id, epoch)

    def _with_game(self, game_id: str | UUID, attempt: Callable[[CachedGame, Guard | None], CommandResult]
                   ) -> CommandResult:
        """Run a command (``attempt``) on the game and save what it records.

        This process's copy from its last command on the game is used as it is, and saved with
        a ``Guard``: the statement (PostgreSQL) or transaction (SQLite) that writes the new rows
        checks that the stored rows the copy was built from (those after its snapshot: what a
        load would read) are still byte for byte the same and that no other process has added
        rows after them (one that adds them while the save runs meets the new rows on the
        store's unique key: ``IntegrityError``). Checked there, a command costs no query before
        its save: a round trip to the database, which was a fifth of an order's CPU on
        PostgreSQL (docs/benchmarks.md). If the copy was behind or its rows changed, nothing
        was written, and the command runs again on the game loaded afresh (``_load``), so a log
        changed outside warlog is noticed (DamagedLog) exactly as without the copy. A command
        the copy refused is refused only once the copy has been checked (``_check``: one query):
        a copy that was behind is brought up to date and asked again.

        A copy found behind (another process records in this game too, as when its players'
        requests go to different web workers) is marked ``check_first``: its next command
        checks it before it runs, brings it up to date with the other process's rows and saves
        it without a guard, as a game just loaded is, instead of running on it, failing at the
        save and loading the game afresh every time. A check that finds it up to date unmarks it.

        A copy from the store (loaded, or checked just now) is saved without a guard; a save
        that loses a race on its version raises ``IntegrityError`` to the caller."""
        gid = parse_game_id(game_id)
        self._refuse_if_damaged(gid)
        cached = self.games.take(gid)
        behind = False
        if cached is not None and cached.check_first:
            version = cached.game.version
            cached = self._check(cached)
            behind = cached is None or cached.game.version != version
        elif cached is not None:
            try:
                return self._run(attempt, cached, cached.guard())
            except (StaleCopies, IntegrityError):
                cached, behind = None, True  # changed by the command and not as stored: from the store
            except WarlogError:  # refused by a copy nobody has checked yet
                version = cached.game.version
                cached = self._check(cached) if not cached.game.pending_events else None
                if cached is not None and cached.game.version == version:  # as stored: the refusal stands
                    self.games.put(cached)
                    raise
                behind = True
        current = cached if cached is not None else self._load(gid)
        current.check_first = behind
        return self._run(attempt, current, None)

    def _run(self, attempt: Callable[[CachedGame, Guard | None], CommandResult], cached: CachedGame,
             guard: Guard | None) -> CommandResult:
        """The command on ``cached``; the copy goes back to the cache once saved, or refused with
        nothing pending on it. After any other failure (its save's included) it is dropped: it
        may hold what was not stored."""
        try:
            result = attempt(cached, guard)
        except WarlogError:
            if guard is None:
                self.games.put(cached)  # kept only when the refusal left nothing pending on it
            raise
        self.games.put(cached)
        return result

    def _check(self, cached: CachedGame) -> CachedGame | None:
        """The copy brought up to date with the rows other processes added since it was built, if
        the stored rows it was built from (those after its snapshot: what a load would read) are
        still byte for byte the same (their number and digest, ``storage.RowDigests``: one
        query); None if they are not, and the game must be loaded afresh, so that a log changed
        outside warlog is noticed (DamagedLog) exactly as without the copy."""
        gid, version = cached.game.id, cached.game.version
        count, digest, top = self.row_digests(gid, cached.base, version)
        if not (count == cached.rows == version - cached.base and digest == cached.digest.digest()):
            return None
        if top > version:
            with self.naming_damage(gid), decoding(gid):
                rows = self.recorder.select_events(gid, gt=version)
                events = [self.mapper.to_domain_event(row) for row in rows]
            self._verify_rows(gid, events, cached.game.chain_head, version)
            for row, event in zip(rows, events):
                event.mutate(cached.game)
                cached.add_row(row.state)
        return cached

    def _load(self, gid: UUID) -> CachedGame:
        """As ``get_game`` (the latest snapshot, then the events after it), keeping a digest of
        each stored row read. The events read are verified as a chain following the snapshot's
        head (``_verify_rows``): a copy kept afterwards is guarded by its saves, so each stored
        row a command relies on has been verified once."""
        with self.naming_damage(gid), decoding(gid):
            stored = (next(iter(self.snapshots.recorder.select_events(gid, desc=True, limit=1)), None)
                      if self.snapshots else None)
            snapshot = self.snapshots.mapper.to_domain_event(stored) if stored is not None else None
            base = snapshot.originator_version if snapshot is not None else 0
            rows = self.recorder.select_events(gid, gt=base)
            game = snapshot.mutate(None) if snapshot is not None else None
            head = game.chain_head if game is not None else chain.GENESIS
            events = [self.mapper.to_domain_event(row) for row in rows]
            for event in events:
                game = event.mutate(game)
        if game is None:
            raise GameNotFound(f"no game {gid}")
        self._verify_rows(gid, events, head, base)
        cached = CachedGame(game, base, nbytes=len(stored.state) if stored is not None else 0)
        for row in rows:
            cached.add_row(row.state)
        return cached

    def _verify_rows(self, gid: UUID, events: list, head: str, after: int) -> None:
        """The stored events after seq ``after`` checked as a chain following ``head``; failures
        at lines an operator has not accepted are recorded and refuse the command."""
        failures = verifying.verify_chain((verifying.to_line(e) for e in events), head, after + 1)
        if failures:
            accepted = self.damage.of(gid).accepted_seqs
            failures = [(n, message) for n, message in failures if n not in accepted]
        if failures:
            self.damage.record(gid, failures)
            raise damaged_log(gid, failures[0][0])

    def _keep(self, cached: CachedGame, recordings: list) -> None:
        """Add the rows just written to a saved game's copy; a snapshot taken by the save (one
        that reached a multiple of the snapshot interval, ``_take_snapshots``) becomes its new
        base, as it would for a load."""
        interval = self.config.snapshot_interval
        rows = [recording.notification for recording in recordings]
        if interval and any(row.originator_version % interval == 0 for row in rows):
            cached.base, cached.rows, cached.digest = rows[-1].originator_version, 0, hashlib.sha256()
            # As a load would count it: the snapshot's bytes (none are known when another save
            # took it: the rows' then).
            cached.nbytes = self._snapshot_bytes.pop(cached.game.id, cached.nbytes + sum(len(r.state) for r in rows))
        else:
            for row in rows:
                cached.add_row(row.state)

    def _command(self, game_id: str | UUID, command) -> CommandResult:
        def attempt(cached: CachedGame, guard: Guard | None) -> CommandResult:
            command(cached.game)
            return self._save(cached, guard)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:
            raise Conflict("another command was recorded first; reload and try again") from None

    def _save(self, cached: CachedGame, guard: Guard | None = None) -> CommandResult:
        recordings = self.group_commit.save(cached.game, guard)
        self._keep(cached, recordings)
        return self._result(cached.game, recordings)

    @staticmethod
    def _result(game: Game, recordings: list, *, order_id: str | None = None) -> CommandResult:
        lines = [verifying.to_line(r.domain_event) for r in recordings]
        return CommandResult(game_id=str(game.id), ruleset=game.ruleset, events=lines,
                             version=game.version, chain_head=game.chain_head, order_id=order_id)

    def _replay(self, game: Game, order_id: str, first: int, last: int) -> CommandResult:
        """The first result again: its events, and the version and chain head it ended at."""
        lines = self.lines(game.id, after=first - 1, limit=last - first + 1)
        return CommandResult(game_id=str(game.id), ruleset=game.ruleset, events=lines, version=last,
                             chain_head=lines[-1]["hash"], replayed=True, order_id=order_id)
