"""The application service: the one door to games for the API, the CLI, workers and tests.

It speaks plain types (ids, dicts, strings); loads a Game, calls one command, saves. A save that
loses a race on the game's version records nothing and becomes a Conflict, except for an order
whose id the winner recorded: that returns the winner's result (idempotency).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable, Iterator
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import OriginatorIDError, OriginatorVersionError
from eventsourcing.persistence import IntegrityError, MapperDeserialisationError
from eventsourcing.utils import get_topic

from domain import verify as verifying
from domain.errors import Conflict, DamagedLog, GameNotFound, IntegrityFailure, StaleVersion
from domain.events import EVENT_TYPES, GameCreated
from domain.game import Game
from domain.storage import SeedStore, StoreConfig, config_from_env


@contextmanager
def _decoding(game_id):
    """A stored event that no longer decodes, or no longer follows its predecessor, is a
    DamagedLog naming the game, not an anonymous crash; check_integrity names the line."""
    try:
        yield
    except (MapperDeserialisationError, OriginatorVersionError, OriginatorIDError,
            TypeError, KeyError, AttributeError, ValueError) as exc:
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

    def __init__(self, config: StoreConfig | None = None, *, create_tables: bool = False):
        self.config = config or config_from_env()
        self.snapshotting_intervals = {Game: self.config.snapshot_interval}
        super().__init__(env=self.config.eventsourcing_env(create_table=create_tables))
        schema = (self.config.postgres or {}).get("POSTGRES_SCHEMA")
        self.seeds = SeedStore(self.recorder.datastore, self.config.kind, schema)
        if create_tables:
            self.seeds.create_table()

    @classmethod
    def migrate(cls, config: StoreConfig | None = None) -> None:
        """Create the schema once (at start-up or by ``warlog migrate``), never per worker."""
        app = cls(config, create_tables=True)
        app.close()

    # ------------------------------------------------------------------------------ reads --
    def get_game(self, game_id: str | UUID, version: int | None = None) -> Game:
        with _decoding(game_id):
            try:
                return self.repository.get(parse_game_id(game_id), version=version)
            except AggregateNotFoundError:
                raise GameNotFound(f"no game {game_id}") from None

    def lines(self, game_id: str | UUID, after: int = 0, limit: int | None = None, *,
              strict: bool = True) -> list[dict]:
        """Stored events as export lines, from seq ``after + 1``; ``strict`` refuses a gap in the
        seqs (a deleted row) as a DamagedLog, which an export leaves for verify to name."""
        gid = parse_game_id(game_id)
        with _decoding(game_id):
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
        return report

    # ------------------------------------------------------------------------- commands ----
    def create_game(self, ruleset: str, scenario: str | None = None,
                    options: dict | None = None) -> CommandResult:
        game = Game.create(ruleset, scenario, options)
        return self._save(game)

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

    def submit_order(self, game_id: str | UUID, seat: str, order_id: str, order: dict,
                     expected_version: int | None = None) -> CommandResult:
        """Check and record one order. The same order id again returns the first result."""
        game = self.get_game(game_id)
        known = game.order_range(order_id) if isinstance(order_id, str) else None
        if known is None and expected_version is not None and game.version != expected_version:
            raise StaleVersion(f"the game is at version {game.version}, not {expected_version}",
                               current_version=game.version)
        first, last = game.submit(seat, order_id, order, self._seed_for(game))
        if known is not None:
            return self._replay(game, order_id, first, last)
        try:
            recordings = self.save(game)
        except IntegrityError:
            winner = self.get_game(game_id)
            if winner.order_range(order_id) is not None:
                first, last = winner.submit(seat, order_id, order, self._seed_for(winner))
                return self._replay(winner, order_id, first, last)
            raise Conflict(f"another order was recorded first; the game is now at version "
                           f"{winner.version}", current_version=winner.version) from None
        return self._result(game, recordings, order_id=order_id)

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
            cls = EVENT_TYPES.get(line["type"])
            if cls is None:
                raise IntegrityFailure(f"unknown event type {line['type']!r}", seq=n)
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

    def _command(self, game_id: str | UUID, command) -> CommandResult:
        game = self.get_game(game_id)
        command(game)
        return self._save(game)

    def _save(self, game: Game) -> CommandResult:
        try:
            recordings = self.save(game)
        except IntegrityError:
            raise Conflict("another command was recorded first; reload and try again") from None
        return self._result(game, recordings)

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
