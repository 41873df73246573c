"""The application service: the one door to games for the API, the CLI, workers and tests.

It speaks plain types (ids, dicts, strings); loads a Game, calls one command, saves. A save that
loses a race on the game's version records nothing and becomes a Conflict, except for an order
whose id the winner recorded: that returns the winner's result (idempotency).
"""

from __future__ import annotations

import copy
import os
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import IntegrityError, InterfaceError, MapperDeserialisationError, OperationalError
from eventsourcing.utils import get_topic

from domain import chain, storable
from domain import verify as verifying
from domain.damage import Damage, DamageRecords
from domain.errors import (Conflict, DamagedLog, GameNotFound, IntegrityFailure, InvalidFork, StaleVersion,
                           WarlogError)
from domain.events import GameCreated, event_class, fields_from_data, misfit_field
from domain.game import Game, new_game_id, seat_request_checked
from domain.storage import SeedStore, SqlTables, StoreConfig, StoreWaitedOut, config_from_env, writer_lock


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
    """A game as this process last saved or loaded it, and its size as the cache counts it: the
    stored bytes a load of it reads (its latest snapshot's and those of the rows after it)."""

    game: Game
    nbytes: int = 0


class GameCache:
    """The games this process used last, so a command need not rebuild its game from a snapshot
    and up to a hundred decoded events. (eventsourcing's aggregate cache deep-copies the game at
    every command, a large part of an order's CPU, and has no bound in bytes.)

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


class GroupCommit:
    """Saves of different games that arrive together, written in ONE transaction: one commit,
    and on PostgreSQL one lock of the events table, for all of them.

    Nobody waits on purpose: a save that finds no batch being written writes the queue at once
    (its own save and any queued); saves arriving meanwhile queue up for the next batch. A batch
    that fails is saved member by member, so a game that lost a race fails alone; a store that
    did not answer fails every member with its error."""

    def __init__(self, save: Callable[..., list], exclusive: Callable[[], Any]):
        self._save = save  # Application.save of domain events
        self.exclusive = exclusive  # held around each batch (storage.writer_lock)
        self._queue: list[_Save] = []
        self._busy = False
        self._cond = threading.Condition()

    def save(self, events: list) -> list:
        """Save one game's new events; its recordings, or the error its save met."""
        mine = _Save(events)
        with self._cond:
            self._queue.append(mine)
            while not mine.done:
                if self._busy:
                    self._cond.wait()
                    continue
                batch, self._queue, self._busy = self._queue, [], True
                self._cond.release()
                try:
                    with self.exclusive():
                        self._write(batch)
                finally:
                    self._cond.acquire()
                    for entry in batch:
                        entry.done = True
                    self._busy = False
                    self._cond.notify_all()
        if mine.error is not None:
            raise mine.error
        return mine.recordings

    def _write(self, batch: list[_Save]) -> None:
        try:
            recordings = self._save(*(event for entry in batch for event in entry.events))
        except (OperationalError, InterfaceError, StoreWaitedOut) as exc:  # the store, not a member
            for entry in batch:
                entry.error = copy.copy(exc)  # each thread raises its own
                entry.error.__cause__ = exc.__cause__
            return
        except Exception as exc:
            if len(batch) == 1:
                batch[0].error = exc
                return
            for entry in batch:
                self._write([entry])
            return
        at = 0
        for entry in batch:
            entry.recordings, at = recordings[at:at + len(entry.events)], at + len(entry.events)


@dataclass
class _Save:
    events: list
    done: bool = False
    recordings: list | None = None
    error: BaseException | None = None


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
    if not (raw.isascii() and raw.isdigit()):
        raise ValueError(f"WARLOG_GAME_CACHE_BYTES must be a whole number of bytes, not {raw!r}")
    return int(raw)


def parse_game_id(game_id: str | UUID) -> UUID:
    if isinstance(game_id, UUID):
        return game_id
    try:
        return UUID(str(game_id))
    except ValueError:
        # A game id cut short (the page's title shows its first 8 characters) is said to be one.
        raise GameNotFound(f"no game {game_id!r}: a game id is its 36 characters, as in the game's link "
                           f"(/games/ID)") from None


class Warlog(Application):
    """Games on an event store, plus the dice seeds beside it."""

    name = "Warlog"
    is_snapshotting_enabled = True  # snapshots are taken by ``_save``, from the game in memory
    GAME_CACHE = 1000  # games kept in memory between commands, per process (GameCache)
    GAME_CACHE_BYTES = 64 * 2**20  # their stored bytes, at most (WARLOG_GAME_CACHE_BYTES)

    def __init__(self, config: StoreConfig | None = None, *, create_tables: bool = False,
                 clock: Callable[[], datetime] | None = None):
        self.config = config or config_from_env()
        # The server's clock (time controls, domain/clock.py); tests give a fixed one.
        self.now: Callable[[], datetime] = clock or (lambda: datetime.now(timezone.utc))
        super().__init__(env=self.config.eventsourcing_env(create_table=create_tables))
        schema = (self.config.postgres or {}).get("POSTGRES_SCHEMA")
        self.seeds = SeedStore(self.recorder.datastore, self.config.kind, schema)
        self.damage = DamageRecords.for_service(self)
        if create_tables:
            self.seeds.create_table()
            self.damage.create_tables()
        self.games = GameCache(self.GAME_CACHE, game_cache_bytes(self.GAME_CACHE_BYTES))
        self.group_commit = GroupCommit(lambda *events: self.save(*events), lambda: writer_lock(self.config))

    @classmethod
    def migrate(cls, config: StoreConfig | None = None) -> None:
        """Create the schema once (at start-up or by ``warlog migrate``), never per worker."""
        app = cls(config, create_tables=True)
        app.close()

    # ------------------------------------------------------------------------------ reads --
    HEALTH_TIMEOUT = 2.0  # seconds /healthz waits for a connection

    def store_head(self, timeout: float = HEALTH_TIMEOUT) -> int:
        """The notification log's head, read once on a connection got within ``timeout``
        seconds: what /healthz answers. The recorder's read waits up to the connect timeout for
        a connection (the connect timeout); a health check answers sooner: OperationalError
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
                return self.repository.get(parse_game_id(game_id), version=version)
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

    def export(self, game_id: str | UUID, *, header: bool = False) -> Iterator[str]:
        """The game as JSON Lines (docs/dice.md), read in pages so long games stream. With
        ``header``, as an export file: a format-2 game's begins with its header line (export
        version 2; this store holds no server key)."""
        after = 0
        while True:
            page = self.lines(game_id, after=after, limit=500, strict=False)
            if not page:
                return
            if header and after == 0 and page[0]["type"] == "GameCreated":
                version = verifying.export_version(page[0]["data"].get("format", 1))
                if version is not None:
                    yield verifying.header_line(version=version)
            for line in page:
                yield verifying.dumps(line)
            after = page[-1]["seq"]

    def game_ids_starting(self, prefix: str) -> list[str]:
        """The ids of the stored games that start with ``prefix`` (hex digits, dashes as in an id
        or not), read from the event store: the games whose first event is stored, in id order.
        The prefix is an id range, so the events table's primary key finds them."""
        digits = prefix.replace("-", "").lower()
        if not digits or len(digits) > 32 or any(ch not in "0123456789abcdef" for ch in digits):
            return []
        low, high = UUID(digits.ljust(32, "0")), UUID(digits.ljust(32, "f"))
        bounds = (low.hex, high.hex) if self.config.kind == "sqlite" else (low, high)  # as each stores an id
        table = SqlTables.for_service(self)
        rows = table._run(f"SELECT originator_id FROM {{t}}{self.recorder.events_table_name} "
                          "WHERE originator_id >= ? AND originator_id <= ? AND originator_version = 1 "
                          "ORDER BY originator_id", bounds, fetch="all")
        return [str(UUID(str(r["originator_id"]))) for r in rows]

    def games_changed_after(self, notification_id: int) -> set[str]:
        """The ids of the games with an event stored after ``notification_id`` (the event store's
        own order: SQLite's rowid, PostgreSQL's notification_id, both its key), in one query."""
        column = "rowid" if self.config.kind == "sqlite" else "notification_id"
        rows = SqlTables.for_service(self)._run(f"SELECT DISTINCT originator_id FROM {{t}}{self.recorder.events_table_name} "
                                                f"WHERE {column} > ?", (notification_id,), fetch="all")
        return {str(UUID(str(r["originator_id"]))) for r in rows}

    def check_integrity(self, game_id: str | UUID) -> verifying.Report:
        """Verify the stored log of a game as an umpire would verify its export.

        Reads the stored rows one by one, so a row that no longer decodes (edited by hand) is
        reported at its seq like any other failure instead of stopping the check."""
        gid = parse_game_id(game_id)
        report = verifying.Report()
        lines = self._stored_lines(gid, report)
        if not lines:
            raise GameNotFound(f"no game {game_id}")
        verifying.verify(lines, report)
        report.failures.sort(key=lambda f: f[0])
        if not report.ok:
            self.damage.record(gid, report.failures)
            self.games.take(gid)  # this process's copy goes: the game's next command loads it from the store
        return report

    def _stored_lines(self, gid: UUID, report: verifying.Report) -> list[dict | None]:
        """The stored rows of a game as lines, read one by one: a row that no longer decodes (edited
        by hand) is None, at its seq, and a failure of ``report``."""
        lines: list[dict | None] = []
        for stored in self.recorder.select_events(gid):
            try:
                lines.append(verifying.to_line(self.mapper.to_domain_event(stored)))
            except Exception as exc:  # whatever a hand-edited row makes the decoder raise
                report.fail(stored.originator_version,
                            f"stored event {stored.originator_version} cannot be decoded: {exc!r}")
                lines.append(None)  # keeps later lines at their seq
        return lines

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

    @contextmanager
    def folding(self, game_id: str | UUID) -> Iterator[None]:
        """A fold of the stored log that fails is a DamagedLog naming the first line the integrity
        check finds failing, which is recorded: a row changed outside warlog that still decodes
        (another event's fields under this event's type). On a log that verifies, the fold's own
        error goes on: a bug, not damage."""
        try:
            yield
        except WarlogError:
            raise
        except Exception as exc:
            report = self.check_integrity(game_id)
            if report.ok:
                raise
            raise damaged_log(game_id, report.failures[0][0]) from exc

    # ------------------------------------------------------------------------- commands ----
    def create_game(self, ruleset: str, scenario: str | None = None, options: dict | None = None,
                    umpire: str | None = None, position: str | None = None,
                    time_control: dict | None = None) -> CommandResult:
        game_id = new_game_id()
        return self._create(Game.create(ruleset, scenario, options, game_id=game_id, umpire=umpire,
                                        position=position, seed_for=self._seeds_of(game_id),
                                        time_control=time_control))

    def fork_game(self, game_id: str | UUID, at: int, viewer: str | None,
                  umpire: str | None = None) -> CommandResult:
        """A sandbox of game ``game_id``: a new game from its state right after event ``at``,
        forked by ``viewer`` (a seat, "umpire", or None: a spectator). Refused (InvalidFork) past
        the log's end, inside an order's outcome or once the game has ended, and (ForkHidden) where
        the state holds anything ``viewer`` may not see: only the umpire forks there."""
        gid = parse_game_id(game_id)
        self._refuse_if_damaged(gid)
        current = self.get_game(gid)
        if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= current.version:
            raise InvalidFork(f"'at' is the seq of an event of game {gid}, 1 to {current.version}; not {at!r}")
        inside = current.order_around(at)
        if inside is not None:
            _, first, last = inside
            raise InvalidFork(f"event {at} is inside an order's outcome (events {first}-{last}): a sandbox "
                              f"starts between orders, e.g. at {first - 1} or {last}")
        source = current if at == current.version else self.get_game(gid, version=at)
        fork_id = new_game_id()
        return self._create(Game.fork(source, viewer, game_id=fork_id, umpire=umpire, seed_for=self._seeds_of(fork_id)))

    def _create(self, game: Game) -> CommandResult:
        cached = CachedGame(game)
        try:
            result = self._save(cached)
        except IntegrityError:
            raise Conflict("another command was recorded first; reload and try again") from None
        self.games.put(cached)
        return result

    def join(self, game_id: str | UUID, seat: str, handle: str, client_seed: str = "",
             public_key: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.join(seat, handle, client_seed, self._seed_for(g), public_key))

    def change_client_seed(self, game_id: str | UUID, seat: str, client_seed: str, signature: str | None = None,
                           head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.change_client_seed(seat, client_seed,
                                                                     self._signed(g, signature, head)))

    # ``signature`` and ``head`` of the commands below: a keyed seat's signature of the command and the
    # head it saw (format 2; docs/dice.md, "Signed orders and heads").
    def request_take_back(self, game_id: str | UUID, seat: str, reason: str = "", signature: str | None = None,
                          head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.request_take_back(seat, reason, self._signed(g, signature, head)))

    def answer_take_back(self, game_id: str | UUID, seat: str, accept: bool, signature: str | None = None,
                         head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.answer_take_back(seat, accept, self._signed(g, signature, head)))

    def concede(self, game_id: str | UUID, seat: str, signature: str | None = None,
                head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.concede(seat, self._seed_for(g), self._signed(g, signature, head)))

    def propose_umpire(self, game_id: str | UUID, name: str, proposed_by: str) -> CommandResult:
        return self._command(game_id, lambda g: g.propose_umpire(name, proposed_by))

    def answer_umpire(self, game_id: str | UUID, seat: str, accept: bool, signature: str | None = None,
                      head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.answer_umpire(seat, accept, self._signed(g, signature, head)))

    def revoke_umpire(self, game_id: str | UUID, by: str, reason: str = "") -> CommandResult:
        return self._command(game_id, lambda g: g.revoke_umpire(by, reason))

    def set_standing_order(self, game_id: str | UUID, seat: str, policy_id: str, decision_kind: str,
                           policy: Any, signature: str | None = None, head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.set_standing_order(seat, policy_id, decision_kind, policy,
                                                                     self._signed(g, signature, head)))

    def cancel_standing_order(self, game_id: str | UUID, seat: str, policy_id: str, signature: str | None = None,
                              head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.cancel_standing_order(seat, policy_id,
                                                                        self._signed(g, signature, head)))

    def annotate(self, game_id: str | UUID, role: str, author: str | None, annotation_id: str, about_seq: int,
                 text: str, private: bool = False, signature: str | None = None,
                 head: str | None = None) -> CommandResult:
        """Record an annotation (``Game.annotate``); the same annotation id again returns its first result."""
        return self._keyed_command(
            game_id, lambda g: annotation_id in (g.annotations or {}),
            lambda g: g.annotate(role, author, annotation_id, about_seq, text, private,
                                 self._signed(g, signature, head)))

    # Time control (domain/clock.py): the server's clock, ``self.now``, is passed in.
    # A vacation or extension sent with an Idempotency-Key (``command_id``) is recorded once.
    def take_vacation(self, game_id: str | UUID, seat: str, days: int, signature: str | None = None,
                      head: str | None = None, command_id: str | None = None) -> CommandResult:
        return self._keyed_command(
            game_id, lambda g: command_id is not None and command_id in (g.time_commands or {}),
            lambda g: g.take_vacation(seat, days, self.now(), self._signed(g, signature, head), command_id))

    def grant_extension(self, game_id: str | UUID, seat: str, days: int, signature: str | None = None,
                        head: str | None = None, command_id: str | None = None) -> CommandResult:
        return self._keyed_command(
            game_id, lambda g: command_id is not None and command_id in (g.time_commands or {}),
            lambda g: g.grant_extension(seat, days, self.now(), self._signed(g, signature, head), command_id))

    def claim_win(self, game_id: str | UUID, seat: str, signature: str | None = None,
                  head: str | None = None) -> CommandResult:
        return self._command(game_id, lambda g: g.claim_win(seat, self.now(), self._seed_for(g),
                                                            self._signed(g, signature, head)))

    def sweep_game(self, game_id: str | UUID) -> CommandResult | None:
        """Record what the server's clock sees in the game now (a reminder due, a deadline passed:
        ``Game.sweep``); None when nothing is due. An imported game's clock does not run here:
        its deadlines were set where it was played, and nobody can act on it here (its dice
        seeds are not held here: ``Game.dice_held``), so nothing is recorded on it."""
        def attempt(cached: CachedGame) -> CommandResult | None:
            gid = str(cached.game.id)
            if not cached.game.dice_held(lambda epoch: self.seeds.held(gid, epoch)):
                return None
            cached.game.sweep(self.now(), self._seed_for(cached.game))
            return self._save(cached) if cached.game.pending_events else None

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:
            raise Conflict("another command was recorded first; the next sweep looks again") from None

    def clock_runs_here(self, game_id: str | UUID) -> bool:
        """Whether the game's clock runs on this server: False for a game imported from a file.
        A game whose clock counts has opened its first dice epoch, and a game played here holds
        that epoch's seed (drawn when it was committed); an imported game's seeds are held where it
        was played (``sweep_game`` asks the same of the open epoch). One look-up in the seed
        table, not a load of the game: summaries of many games ask it."""
        return self.seeds.held(str(parse_game_id(game_id)), 0) is not None

    def umpire(self, game_id: str | UUID) -> dict | None:
        """The umpire appointed now, as the stored log says ({"name", "appointed"}), or None."""
        return self.get_game(game_id).umpire

    def submit_order(self, game_id: str | UUID, seat: str, order_id: str, order: dict,
                     expected_version: int | None = None, signature: str | None = None,
                     head: str | None = None) -> CommandResult:
        """Check and record one order. The same order id again returns the first result.
        ``signature`` and ``head``: a keyed seat's signature of the order and the head it saw."""
        def attempt(cached: CachedGame) -> CommandResult:
            game = cached.game
            known = game.order_range(order_id) if isinstance(order_id, str) else None
            if known is None and expected_version is not None and game.version != expected_version:
                raise StaleVersion(f"the game is at version {game.version}, not {expected_version}",
                                   current_version=game.version)
            first, last = game.submit(seat, order_id, order, self._seed_for(game), self._signed(game, signature, head))
            if known is not None:
                return self._replay(game, order_id, first, last)
            return self._save(cached, order_id=order_id)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:  # another process recorded first: the winner's result if it was this order
            winner = self.get_game(game_id)
            if winner.order_range(order_id) is not None:
                first, last = winner.submit(seat, order_id, order, self._seed_for(winner), self._signed(winner, signature, head))
                return self._replay(winner, order_id, first, last)
            raise Conflict(f"another order was recorded first; the game is now at version "
                           f"{winner.version}", current_version=winner.version) from None

    def seal(self, game_id: str | UUID, seat: str, commitment: str, signature: str | None = None,
             head: str | None = None) -> CommandResult:
        """Record ``seat``'s commitment to its orders of the open sealed round (docs/dice.md,
        "Sealed orders"); the same commitment again returns the first result. ``signature`` and
        ``head``: a keyed seat's signature of the seal and the head it saw."""
        return self._sealed(game_id, lambda game: game.seal(seat, commitment, self._signed(game, signature, head)))

    def reveal(self, game_id: str | UUID, seat: str, orders: list, salt: str, signature: str | None = None,
               head: str | None = None) -> CommandResult:
        """Record ``seat``'s reveal, checked against its commitment; the last reveal of a round
        carries the round's orders out. The same reveal again returns the first result.
        ``signature`` and ``head``: a keyed seat's signature of the reveal and the head it saw."""
        return self._sealed(game_id, lambda game: game.reveal(seat, orders, salt, self._seed_for(game),
                                                              self._signed(game, signature, head)))

    def check_seat_request(self, game_id: str | UUID, seat: str, kind: str, fields: dict,
                           signature: str | None = None, head: str | None = None) -> tuple[str, str] | None:
        """Refuse a keyed seat's request that records nothing in the log (a new token, its notification
        settings: ``kind`` and its ``fields``, domain/signatures.py) that its key did not sign; returns
        (head, signature) checked, None for a seat without a key."""
        try:
            game = self.get_game(game_id)
        except DamagedLog as exc:
            # Such a request records nothing: the damage, which guards the log, does not stop it
            # (docs/api.md, "Damaged logs"); the seat's key is read from the stored lines instead.
            key, hashes = self._seat_key_in_stored(parse_game_id(game_id), seat, exc)
            return seat_request_checked(str(parse_game_id(game_id)), key, seat, kind, fields,
                                        (signature, head, hashes.__contains__))
        return game.check_seat_request(seat, kind, fields, self._signed(game, signature, head))

    def _seat_key_in_stored(self, gid: UUID, seat: str, damaged: DamagedLog) -> tuple[str | None, set[str]]:
        """The key ``seat`` registered, read from a stored log that no longer folds, and the hashes of
        its lines that still decode. A key is registered on the line right after its seat's
        SeatJoined (docs/dice.md, "Seats' keys"): where that line, or the SeatJoined, no longer
        decodes or is missing, whether the seat has a key is unknown, and ``damaged`` is raised."""
        lines = self._stored_lines(gid, verifying.Report())
        by_seq = {line["seq"]: line for line in lines if line is not None}
        joined = next((line["seq"] for line in by_seq.values() if line["type"] == "SeatJoined"
                       and line["data"].get("seat") == seat), None)
        if joined is not None and lines[-1] is not None and lines[-1]["seq"] == joined:
            return None, {line["hash"] for line in by_seq.values()}  # the join is the last line: no key yet
        after = by_seq.get(joined + 1) if joined is not None else None
        if after is None:
            raise damaged
        key = after["data"].get("public_key") if after["type"] == "SeatKeyRegistered" \
            and after["data"].get("seat") == seat else None
        return key, {line["hash"] for line in by_seq.values()}

    def _signed(self, game: Game, signature: str | None, head: str | None) -> tuple:
        """What a keyed seat sent with a command, for the game to check (domain/game.py ``Signed``)."""
        return signature, head, lambda h: self._in_log(game, h)

    def _sealed(self, game_id: str | UUID, command) -> CommandResult:
        def attempt(cached: CachedGame) -> CommandResult:
            seen = command(cached.game)
            if seen is not None:  # recorded before: that line again
                return self._replay(cached.game, None, seen, seen)
            return self._save(cached)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:  # another process recorded first: the winner's line if it was this same seal or reveal
            winner = self.get_game(game_id)
            try:
                seen = command(winner)  # on a copy read for this answer alone, never saved
            except WarlogError:
                seen = None
            if seen is not None:
                return self._replay(winner, None, seen, seen)
            raise Conflict("another command was recorded first; reload and try again") from None

    def _in_log(self, game: Game, hash_: str) -> bool:
        """Whether ``hash_`` is the hash of a line of ``game``'s stored log up to its version: the
        current head at once, an older one by reading the log (a seat that saw an older head)."""
        if hash_ == game.chain_head:
            return True
        end = game.version  # read backwards a page at a time: a head a seat saw is most likely recent
        while end > 0:
            start = max(0, end - 500)
            if any(line["hash"] == hash_ for line in self.lines(game.id, after=start, limit=end - start)):
                return True
            end = start
        return False

    def import_lines(self, text_lines: Iterable[str],
                     check: Callable[[list[dict], list[Any]], None] | None = None) -> str:
        """Store a verified export as a game; refuses a file that does not verify, naming the line.
        ``check(lines, events)``, called before anything is stored, may refuse it too (the read
        models' fold: projections.runner.check_foldable, which this layer cannot import)."""
        report, lines = verifying.verify_text(text_lines)
        if not report.ok:
            n, message = report.failures[0]
            raise IntegrityFailure(message, seq=n)
        if not lines:
            raise IntegrityFailure("the file holds no events")
        for n, line in enumerate(lines, start=1):
            withheld = chain.withheld(line["data"])
            if withheld:  # a game stored without its salts could never show these fields again
                raise IntegrityFailure(
                    f"this is a seat's or spectator's copy: {', '.join(sorted(withheld))} of this {line['type']} "
                    "is a commitment without its value and salt; only a full export (the umpire's) can be "
                    "imported", seq=n)
        game_id = parse_game_id(lines[0]["game_id"])
        if next(iter(self.events.get(game_id, limit=1)), None) is not None:
            raise Conflict(f"game {game_id} already exists here")
        ruleset = lines[0]["data"].get("ruleset") if lines[0]["type"] == "GameCreated" else None
        ruleset = ruleset if isinstance(ruleset, str) else None  # another type is refused as GameCreated's
        events = []
        for n, line in enumerate(lines, start=1):
            cls = event_class(line["type"], ruleset)  # the game's ruleset's own events first
            if cls is None:
                raise IntegrityFailure(f"unknown event type {line['type']!r}", seq=n)
            found = storable.problem(line["data"], "data")
            if found:  # a value no reader could take back from the log (domain/storable.py)
                raise IntegrityFailure(f"{found}; it cannot be stored", seq=n)
            misfit = misfit_field(cls, line["data"])
            if misfit:  # a value of another type than the event's field: the readers would fail on it
                raise IntegrityFailure(f"{line['type']}'s {misfit}", seq=n)
            kwargs = dict(fields_from_data(cls, line["data"]), originator_id=game_id, originator_version=line["seq"],
                          timestamp=_line_time(line["timestamp"], n),
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
                moving = folded.whose_move()
            except Exception as exc:  # a ruleset that cannot fold the file names the line
                raise IntegrityFailure(f"{type(event).__name__} cannot be applied: {exc!r}", seq=n) from None
            if not isinstance(moving, list) or not all(isinstance(s, str) and s in folded.seats for s in moving):
                # the workers ask every game whose move it is (turn mails): a set-up of other values breaks them
                raise IntegrityFailure(f"{type(event).__name__} leaves {moving!r} to move, not seats of the game",
                                       seq=n)
        if check is not None:
            check(lines, events)
        try:
            self.save(*events)
        except IntegrityError:
            raise Conflict(f"game {game_id} already exists here") from None
        return str(game_id)

    # ------------------------------------------------------------------------------ helpers --
    def _seed_for(self, game: Game):
        return self._seeds_of(game.id)

    def _seeds_of(self, game_id: UUID) -> Callable[[int], bytes]:
        """The seed source of game ``game_id`` (a command's ``seed_for``): get-or-create in the seed table."""
        gid = str(game_id)
        return lambda epoch: self.seeds.seed_for(gid, epoch)

    def _with_game(self, game_id: str | UUID, attempt: Callable[[CachedGame], CommandResult]) -> CommandResult:
        """Run a command (``attempt``) on the game and save what it records.

        The game is this process's copy, brought up to date with any events another process
        recorded since (``_catch_up``: one query), or else loaded from the store (``_load``).
        The copy goes back to the cache once saved, or once refused with nothing pending on it;
        after any other failure (a save that lost a race: ``IntegrityError``) it is dropped."""
        gid = parse_game_id(game_id)
        self._refuse_if_damaged(gid)
        cached = self.games.take(gid)
        if cached is None:
            cached = self._load(gid)
        else:
            self._catch_up(cached)
        try:
            result = attempt(cached)
        except WarlogError:
            self.games.put(cached)  # kept only when the refusal left nothing pending on it
            raise
        self.games.put(cached)
        return result

    def _catch_up(self, cached: CachedGame) -> None:
        """Apply to a cached copy the events stored after its version (another process's)."""
        game = cached.game
        _, nbytes = self._apply_stored(game.id, game, game.version, game.chain_head)
        cached.nbytes += nbytes

    def _load(self, gid: UUID) -> CachedGame:
        """As ``get_game``: the latest snapshot, then the events after it."""
        with self.naming_damage(gid), decoding(gid):
            stored = next(iter(self.snapshots.recorder.select_events(gid, desc=True, limit=1)), None)
            game = self.snapshots.mapper.to_domain_event(stored).mutate(None) if stored is not None else None
        if game is not None and "command_signatures" not in vars(game):
            # Snapshotted before the game kept its signed commands' signatures: the whole log
            # tells them, so that none is recorded twice (Game.command_signatures).
            game, stored = None, None
        base, head = (game.version, game.chain_head) if game is not None else (0, chain.GENESIS)
        game, nbytes = self._apply_stored(gid, game, base, head)
        if game is None:
            raise GameNotFound(f"no game {gid}")
        return CachedGame(game, (len(stored.state) if stored is not None else 0) + nbytes)

    def _apply_stored(self, gid: UUID, game: Game | None, after: int, head: str) -> tuple[Game | None, int]:
        """``game`` with the events stored after seq ``after`` applied, once they are verified as a
        chain following ``head`` (``_verify_rows``); and the stored bytes of those events."""
        with self.naming_damage(gid), decoding(gid):
            rows = self.recorder.select_events(gid, gt=after)
            events = [self.mapper.to_domain_event(row) for row in rows]
        fmt = game.format if game is not None else getattr(events[0], "format", 1) if events else 1
        self._verify_rows(gid, events, head, after, fmt)
        with self.naming_damage(gid), decoding(gid):
            for event in events:
                game = event.mutate(game)
        return game, sum(len(row.state) for row in rows)

    def _verify_rows(self, gid: UUID, events: list, head: str, after: int, fmt: int = 1) -> None:
        """The stored events after seq ``after`` checked as a chain following ``head``; failures
        at lines an operator has not accepted are recorded and refuse the command."""
        failures = verifying.verify_chain((verifying.to_line(e) for e in events), head, after + 1, fmt)
        if failures:
            accepted = self.damage.of(gid).accepted_seqs
            failures = [(n, message) for n, message in failures if n not in accepted]
        if failures:
            self.damage.record(gid, failures)
            raise damaged_log(gid, failures[0][0])

    def _command(self, game_id: str | UUID, command) -> CommandResult:
        def attempt(cached: CachedGame) -> CommandResult:
            command(cached.game)
            return self._save(cached)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:
            raise Conflict("another command was recorded first; reload and try again") from None

    def _keyed_command(self, game_id: str | UUID, known, command) -> CommandResult:
        """Run a command that a client's key makes idempotent (an annotation, a vacation, an
        extension): ``command(game)`` records it, or returns the (first, last) seqs the same key
        recorded before, which are answered again. A process that loses the race to record the
        same key (``known(winner)``) answers with the winner's result."""
        def attempt(cached: CachedGame) -> CommandResult:
            seen = command(cached.game)
            return self._replay(cached.game, None, *seen) if seen is not None else self._save(cached)

        try:
            return self._with_game(game_id, attempt)
        except IntegrityError:
            winner = self.get_game(game_id)
            if known(winner):
                seen = command(winner)
                if seen is not None:
                    return self._replay(winner, None, *seen)
            raise Conflict("another command was recorded first; reload and try again") from None

    def _save(self, cached: CachedGame, order_id: str | None = None) -> CommandResult:
        """Save what a command recorded (``Application.save``; on SQLite the processes take turns,
        ``storage.writer_lock``), and snapshot the game when its save crosses a multiple of the
        snapshot interval."""
        game = cached.game
        game.keep_time(self.now())  # a command that changed who is to move starts their clock
        first = game.version - len(game.pending_events) + 1
        recordings = self.group_commit.save(game.collect_events())
        cached.nbytes += sum(len(r.notification.state) for r in recordings)
        interval = self.config.snapshot_interval
        if interval and game.version // interval > (first - 1) // interval:
            # Taken from the game in memory: take_snapshot() would load it again from the store.
            snapshot = Game.Snapshot.take(game)
            with writer_lock(self.config):
                self.snapshots.put([snapshot])
            cached.nbytes = len(self.snapshots.mapper.to_stored_event(snapshot).state)
        return self._result(game, recordings, order_id=order_id)

    @staticmethod
    def _result(game: Game, recordings: list, *, order_id: str | None = None) -> CommandResult:
        lines = [verifying.to_line(r.domain_event) for r in recordings]
        return CommandResult(game_id=str(game.id), ruleset=game.ruleset, events=lines,
                             version=game.version, chain_head=game.chain_head, order_id=order_id)

    def _replay(self, game: Game, order_id: str | None, first: int, last: int) -> CommandResult:
        """The first result again: its events, and the version and chain head it ended at."""
        lines = self.lines(game.id, after=first - 1, limit=last - first + 1)
        return CommandResult(game_id=str(game.id), ruleset=game.ruleset, events=lines, version=last,
                             chain_head=lines[-1]["hash"], replayed=True, order_id=order_id)


def _line_time(value: Any, n: int) -> datetime:
    """The timestamp of line ``n`` of a file being imported: ISO 8601 with its UTC offset, as an
    export writes it (a time without one could not be compared with the clock's)."""
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise IntegrityFailure(f"timestamp {value!r} is not an ISO 8601 time with its UTC offset "
                               "(e.g. 2026-11-29T06:52:07.230759+00:00)", seq=n)
    return when
