"""The Game aggregate: one per game; every change is an appended, hash-chained event.

Commands check everything and roll every die *before* an event is triggered, because event
``apply`` bodies run again on every replay (eventsourcing's domain docs). A command either
records all of an order's events or nothing.

Seeds never enter the aggregate's state: commands that need one take ``seed_for(epoch) ->
bytes`` from the application service, which keeps seeds in their own table. A format-2 game
takes it at creation too: it commits to its first epoch's seed there (docs/dice.md, scheme 2).
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any, Callable
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from domain import chain, clock as clocks, dice, sealed as sealing, signatures, storable, visibility
from domain import events as ev
from domain.errors import (
    BadSignature,
    CommitmentMismatch,
    SignatureRequired,
    SignatureReused,
    UnknownHead,
    IdempotencyConflict,
    IntegrityFailure,
    InvalidOrder,
    RulesetBug,
    ForkHidden,
    InvalidFork,
    InvalidSetup,
    NotYourMove,
    RuleViolation,
    UnknownSeat,
)
from domain.rulesets import RESERVED_SEATS, SYSTEM, Ruleset, Setup, find_ruleset
from domain.rulesets.core import json_copy
from domain.visibility import view_state

SeedFor = Callable[[int], bytes]
# What a keyed seat sent with a command: (signature, the head it signed over, whether a hash is a
# line of this log); docs/dice.md, "Signed orders and heads".
Signed = tuple[str | None, str | None, Callable[[str], bool]]

# The rule an umpire refusal names: the role exists only by every seat's agreement (docs/api.md).
UMPIRE_RULE = "umpire"
APPOINTED_AT_CREATION = "named at creation"
APPOINTED_BY_EVERY_SEAT = "accepted by every seat"


def new_game_id() -> UUID:
    """A new game's id (one place, so that a replay of recorded work can seed it: bench/instructions.py)."""
    return uuid4()


def checked_signature(key: str | None, seat: str, signed: Signed | None, what: str,
                      message: Callable[[str], bytes]) -> tuple[str, str] | None:
    """(head, signature) of a command of the seat whose registered key is ``key``, checked against
    ``message(head)``, the bytes its key signed; None for a seat without a key."""
    if key is None:
        return None
    signature, head, in_log = signed or (None, None, None)
    if signature is None or head is None:
        raise SignatureRequired(f"seat {seat} registered a public key: each of its orders, seals, "
                                "reveals, (format 2) other commands, token replacements and notification "
                                "settings carries a signature and the head it was signed over "
                                "(Warlog-Signature, Warlog-Head)")
    if not signatures.is_hash(head) or in_log is None or not in_log(head):
        raise UnknownHead(f"head {str(head)[:80]!r} is not the hash of any line of this game's log")
    if not signatures.signature_valid(key, signature, message(head)):
        raise BadSignature(f"the signature is not seat {seat}'s key's signature of this game, {what} "
                           "and head (docs/dice.md, \"Signed orders and heads\")")
    return head, signature


def seat_request_checked(game_id: str, key: str | None, seat: str, kind: str, fields: dict,
                         signed: Signed | None) -> tuple[str, str] | None:
    """``Game.check_seat_request`` for the seat whose registered key is ``key`` (None: no key): also
    asked of a game whose stored log no longer folds (``Warlog.check_seat_request``)."""
    return checked_signature(key, seat, signed, f"{kind.replace('_', ' ')} command, "
                                                f"{', '.join(signatures.COMMAND_FIELDS[kind])}",
                             lambda head: signatures.command_message(game_id, kind, seat, fields, head))


FORMAT = 2  # the format of a game created now (docs/dice.md: line hash, dice scheme, concealed fields)
SEALED_SEED = -1  # the sealed dice stream's seed: epoch -1 of warlog_dice_seeds (docs/dice.md, "Sealed rolls")
MAX_ORDER_BYTES = 16 * 1024  # an order's JSON (UTF-8): a note of 4,000 characters and then some
MAX_REASON = 1000  # a take-back request's reason
MAX_POLICY_ID = 80  # a standing order's name
MAX_ANNOTATION = 4000  # an annotation's text, in characters: an after-action report of a page or two
MAX_ANNOTATION_ID = 200  # as an order id (api/games.py MAX_ORDER_ID)
ANNOTATION_RULE = "annotations"  # the rule an annotation's refusal names (docs/api.md, "Annotations")
ANNOTATION_ROLES = ("seat", "umpire", "spectator")
# Standing orders that may answer within one order, one after the other: past this the seat is
# asked (a ruleset whose policies keep raising decisions must not loop for ever).
MAX_STANDING_ANSWERS = 50

# Events that close the current dice epoch (docs/dice.md: by default one epoch is one game turn).
_CLOSES_EPOCH = (ev.TurnAdvanced, ev.GameEnded)


def _order_digest(seat: str, order: dict, salt: str) -> str:
    """What an order id is bound to: the seat and the order, salted (see OrderAccepted)."""
    return chain.digest({"seat": seat, "order": order, "salt": salt})


def _is_client_id(value: Any) -> bool:
    """An id a client chose (an annotation's, an Idempotency-Key): 1 to MAX_ANNOTATION_ID printable characters."""
    return isinstance(value, str) and 0 < len(value) <= MAX_ANNOTATION_ID and value.isprintable()


def _time_command_digest(seat: str, kind: str, fields: dict) -> str:
    """What a vacation's or extension's Idempotency-Key is bound to: the seat, the command and its fields."""
    return chain.digest({"seat": seat, "kind": kind, **fields})


SEALED_ID_PREFIX = "sealed:"  # the ids of revealed sealed orders (domain/sealed.py order_id)


def sealed_status(round_: dict | None) -> dict | None:
    """What anyone may see of an open sealed-orders round (the aggregate's or the map view's):
    who has committed and revealed, who must commit and, once all have, who must reveal."""
    if round_ is None:
        return None
    seats, committed, revealed = round_["seats"], round_["commitments"], round_["revealed"]
    must_commit = [s for s in seats if s not in committed]
    return {"round": round_["round"], "rule": round_["rule"], "seats": list(seats),
            "committed": [s for s in seats if s in committed], "revealed": [s for s in seats if s in revealed],
            "must_commit": must_commit,
            "must_reveal": [] if must_commit else [s for s in seats if s not in revealed]}


def _umpire_name(value: Any, error: type) -> str:
    """An umpire is named by 1 to 80 printable characters on one line, as a handle is (how the
    seats know who reads it all): no newline, tab, line separator or invisible format character."""
    if not isinstance(value, str) or not value.strip() or len(value) > 80 or not value.isprintable():
        raise error("an umpire is named by 1 to 80 printable characters on one line")
    return value.strip()


def _client_seed(value: Any) -> str:
    """A client seed is text of at most 200 characters; none is the empty string."""
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 200:
        raise InvalidOrder("a client seed is text of at most 200 characters", field="client_seed")
    return value


def _salted(fields: tuple[str, ...], data: dict, rules: Ruleset) -> dict | None:
    """{field: salt} for the concealed ``fields`` of a new event's ``data``, or None for none. A
    salt is 256 random bits from the operating system (``secrets``): like a dice seed it must not
    be guessable, but unlike one it is never derived again, so nothing needs to thread it through."""
    unknown = [f for f in fields if f not in data]
    if unknown:
        raise ValueError(f"ruleset {rules.name} conceals {', '.join(unknown)}, which the event does not have")
    return {f: secrets.token_hex(32) for f in fields} or None


def _storable(what: str, value: Any, field: str | None = None) -> None:
    """Refuse a value no reader could take back from the log (domain/storable.py)."""
    found = storable.problem(value, what)
    if found:
        raise InvalidOrder(f"{found}; it cannot be stored", field=field)


class Roll:
    """A roll made while deciding an order: its faces are fixed; target and outcome may be set
    once the ruleset has compared them. Becomes one DiceRolled event (a SealedDiceRolled when
    ``sealed``)."""

    def __init__(self, epoch: int, faces: list[dict], seat: str, purpose: str, rule: str | None,
                 units: list, replaces: int | None, notation: str, sealed: bool = False):
        self.sealed = sealed
        self.epoch = epoch
        self.dice = faces
        self.notation = notation
        self.seat = seat
        self.purpose = purpose
        self.rule = rule
        self.units = list(units)
        self.replaces = replaces
        self.target: dict | None = None
        self.outcome: str | None = None

    @property
    def values(self) -> list[int]:
        return [d["value"] for d in self.dice]

    @property
    def total(self) -> int:
        return sum(self.values)

    def resolve(self, target: dict | None = None, outcome: str | None = None) -> "Roll":
        self.target = target
        self.outcome = outcome
        return self

    def fields(self) -> dict:
        return {
            "epoch": self.epoch,
            "dice": self.dice,
            "notation": self.notation,
            "seat": self.seat,
            "purpose": self.purpose,
            "rule": self.rule,
            "units": self.units,
            "target": self.target,
            "outcome": self.outcome,
            "replaces": self.replaces,
        }


class SealedStream:
    """The sealed dice stream of a game while an order is decided (docs/dice.md, "Sealed rolls"):
    one seed S* for the whole game, committed at creation, kept under epoch ``SEALED_SEED`` and
    revealed when the game ends; its nonces count 0, 1, 2, … across the game."""

    def __init__(self, stream: dict | None, seed_for: SeedFor):
        self._stream = stream
        self._seed_for = seed_for
        self.nonce = stream["nonce"] if stream else 0
        self._seed: bytes | None = None

    @property
    def usable(self) -> bool:
        return self._stream is not None and not self._stream["revealed"]

    def faces(self, count: int, sides: int, game_id: str, epoch: int, entropy: str, input: str) -> list[dict]:
        """Scheme 2's faces (``dice.face2``) keyed by S*, in the open epoch with its client entropy."""
        if not self.usable:
            raise RulesetBug("a sealed roll needs the game's sealed dice stream: check Roller.sealable first")
        if self._seed is None:
            seed = self._seed_for(SEALED_SEED)
            if dice.commitment(seed) != self._stream["commitment"]:
                raise IntegrityFailure("this server does not hold the seed committed for the sealed dice "
                                       "(an imported game can be read and verified, not continued)")
            self._seed = seed
        faces = []
        for _ in range(count):
            value = dice.face2(self._seed, game_id, epoch, entropy, input, self.nonce, sides)
            faces.append({"nonce": self.nonce, "sides": sides, "value": value})
            self.nonce += 1
        return faces


class Roller:
    """The only source of dice: derives faces from the open epoch's seed (docs/dice.md).

    ``order_id``: the order about to be accepted, whose rolls these are (its OrderAccepted is
    recorded before them); None for rolls made after the latest OrderAccepted was recorded (a
    standing order's answer inside that order) or before any (the opening). In a format-2 game
    a roll's input is that order's id (scheme 2), and the order counts towards the next epoch's
    client entropy."""

    def __init__(self, game: "Game", seed_for: SeedFor, order_id: str | None = None):
        self._game_id = str(game.id)
        self._seed_for = seed_for
        self.epoch = game.dice["epoch"]
        self.entropy = game.dice["entropy"]
        self.nonce = game.dice["nonce"]
        self._commitment = game.dice["commitment"]
        self._seeds = game.client_seeds()
        self._scheme2 = game.format >= 2
        if self._scheme2:
            self.input = game.roll_input if order_id is None else order_id
            # The orders of the next epoch's client entropy, hashed only if this order closes the
            # epoch (close_epoch): hashing them at every order cost a fifth of an order's CPU.
            self._next_orders = list(game.epoch_orders) + ([] if order_id is None else [order_id])
            ahead = game.open_committed or {}
            self._next_commitment = ahead.get("commitment") if ahead.get("epoch") == self.epoch + 1 else None
        else:
            self.input = ""
            self._next_orders = []
            self._next_commitment = None
        self._seed: bytes | None = None
        self.rolls: list[Roll] = []
        self._sealed = SealedStream(game.sealed_dice, seed_for)
        self._sealed_rolls = game.sealed_rolls or {}

    def _current_seed(self) -> bytes:
        if self._seed is None:
            seed = self._seed_for(self.epoch)
            if self._commitment is not None and dice.commitment(seed) != self._commitment:
                raise IntegrityFailure(
                    f"this server does not hold the seed committed for dice epoch {self.epoch} "
                    "(an imported game can be read and verified, not continued)"
                )
            self._seed = seed
        return self._seed

    def roll(self, count: int, sides: int, *, seat: str, purpose: str, rule: str | None = None,
             units: list | tuple = (), replaces: int | None = None, notation: str | None = None,
             sealed: bool = False) -> Roll:
        if sealed:  # the sealed stream's (docs/dice.md, "Sealed rolls"): check ``sealable`` first
            faces = self._sealed.faces(count, sides, self._game_id, self.epoch, self.entropy, self.input)
            made = Roll(self.epoch, faces, seat, purpose, rule, list(units), replaces,
                        notation or f"{count}d{sides}", sealed=True)
            self.rolls.append(made)
            return made
        seed = self._current_seed()
        faces = []
        for _ in range(count):
            if self._scheme2:
                value = dice.face2(seed, self._game_id, self.epoch, self.entropy, self.input, self.nonce, sides)
            else:
                value = dice.face(seed, self._game_id, self.epoch, self.entropy, self.nonce, sides)
            faces.append({"nonce": self.nonce, "sides": sides, "value": value})
            self.nonce += 1
        made = Roll(self.epoch, faces, seat, purpose, rule, list(units), replaces,
                    notation or f"{count}d{sides}")
        self.rolls.append(made)
        return made

    def sealed_roll(self, seq: Any) -> dict | None:
        """The sealed roll recorded at ``seq`` ({"seat", "public"}: whether it is already public,
        shown or revealed with the sealed stream), or None if there is none."""
        roll = self._sealed_rolls.get(str(seq)) if isinstance(seq, int) and not isinstance(seq, bool) else None
        return None if roll is None else {"seat": roll["seat"], "public": roll["shown"] or not self._sealed.usable}

    def show(self, seq: int, *, rule: str) -> tuple:
        """The outcome that makes sealed roll ``seq`` public now, under ``rule`` (docs/dice.md,
        "Sealed rolls"): a SealedRollShown opening each of its concealed fields. A ruleset calls
        it when its rules say the information became public; check ``sealed_roll`` first."""
        roll = self._sealed_rolls.get(str(seq))
        if roll is None or roll["shown"] or not self._sealed.usable:
            raise RulesetBug(f"seq {seq} is no sealed roll that can still be shown: check sealed_roll first")
        return ev.SealedRollShown, {"roll": seq, "seat": roll["seat"], "rule": rule, "fields": roll["fields"]}

    @property
    def sealable(self) -> bool:
        """Whether this game has a sealed dice stream to roll in now (format 2: committed at
        creation, and not yet revealed)."""
        return self._sealed.usable

    def close_epoch(self) -> None:
        """For a ruleset that ends a turn and rolls again within one order: later rolls belong to
        the next epoch, which the aggregate opens right after the TurnAdvanced outcome. In a
        format-2 game its seed was committed one epoch ahead, and the orders of its client entropy
        are those accepted in the epoch closed (none, for an epoch opened later in this order)."""
        self.epoch += 1
        self.entropy = (dice.client_entropy_v2(self._next_orders, self._seeds) if self._scheme2
                        else dice.client_entropy(self._seeds))
        self.nonce = 0
        self._commitment = self._next_commitment  # None: not known here, not checked (scheme 1)
        self._next_commitment = None
        self._next_orders = []
        self._seed = None


class Game(Aggregate):
    """A game of any ruleset: seats, state, dice epochs, orders and the chain head."""

    # The umpire appointed ({"name", "appointed": its UmpireAppointed seq}) and the proposal
    # waiting for the seats ({"umpire", "accepted": [seats]}). Class defaults, so a snapshot
    # taken before umpires were events still loads.
    umpire: dict | None = None
    umpire_proposal: dict | None = None
    # The game's format (GameCreated.format; 1 for a snapshot taken before formats existed).
    format: int = 1
    # Standing orders: {seat: {policy_id: {decision_kind, policy, rule, set}}}, replaced, never
    # changed in place (a class default, for snapshots taken before standing orders existed).
    standing_orders: dict | None = None
    # Annotations: {annotation_id: {seq, about_seq, digest}}, and the seqs of their lines (with their
    # signatures'), replaced, never changed in place (class defaults, for older snapshots).
    annotations: dict | None = None
    annotation_lines: tuple | list = ()
    # The vacations and extensions sent with an Idempotency-Key: {key: {digest, seq, last}}, the
    # seqs of the first and last lines each recorded, so that one sent again is answered with its
    # first result; replaced, never changed in place (a class default, for older snapshots).
    time_commands: dict | None = None
    # The signatures of the keyed seats' other commands but annotations (CommandSigned), so that
    # none is recorded twice; replaced, never changed in place. Set by GameCreated too, so a
    # snapshot without it was taken before signatures were kept: Warlog._load folds such a game
    # from its first line instead.
    command_signatures: tuple | list = ()
    # Where the game started, when not from the standard set-up: {"position", "title"} of a named
    # position; {"source", "at", "at_hash", "by"} of a sandbox. Class defaults, for old snapshots.
    position: dict | None = None
    sandbox: dict | None = None
    # The sealed-orders round open now ({"round", "rule", "seats", "commitments": {seat: {commitment,
    # seq}}, "revealed": {seat: {orders, salt, seq}}}) and the number of the last round opened.
    sealed: dict | None = None
    sealed_rounds: int = 0
    # The reveals of the last round carried out ({seat: {round, orders, salt, seq}}), so that one
    # sent again once its round is over is answered as a replay; a class default, for older snapshots.
    closed_reveals: dict | None = None
    # The seats' registered public keys ({seat: base64url}), replaced, never changed in place (a
    # class default, for snapshots taken before seats had keys).
    seat_keys: dict | None = None
    # Dice scheme 2 (format 2; docs/dice.md): the open stream's seed committed ahead ({"epoch",
    # "commitment"} of the last DiceCommitted), the ids of the orders accepted since the last
    # DiceEpochOpened (the next epoch's client entropy), and the latest accepted order's id (the
    # input of the rolls that follow it). Replaced, never changed in place.
    open_committed: dict | None = None
    epoch_orders: tuple | list = ()
    roll_input: str = ""
    # The sealed dice stream ({"commitment", "nonce": the next, "revealed"}) once committed at
    # creation (format 2; docs/dice.md, "Sealed rolls"), else None. Class default, for old snapshots.
    sealed_dice: dict | None = None
    # The sealed rolls, by seq as text: {"seat", "fields": {name: {value, salt}} of its concealed
    # fields, "shown": bool}, so a roll can be shown (SealedRollShown) before the game ends.
    # Replaced, never changed in place; a class default, for snapshots taken before it existed.
    sealed_rolls: dict | None = None
    # The time control's clock (domain/clock.py: its fold), None for a game without one. Class
    # default, for snapshots taken before time controls existed.
    clock: dict | None = None

    def __init__(self) -> None:
        # Everything is set by GameCreated; see _on_GameCreated.
        pass

    # ---------------------------------------------------------------------------- creation --
    @classmethod
    def create(cls, ruleset: str, scenario: str | None = None, options: dict | None = None,
               game_id: UUID | None = None, umpire: str | None = None, position: str | None = None,
               seed_for: SeedFor | None = None, time_control: dict | None = None) -> "Game":
        """A new game; ``umpire`` names its umpire from the start (recorded right after the
        creation, so every seat joins knowing it); ``position`` starts it from a named position
        of its ruleset instead of the standard set-up (recorded by PositionSet). ``seed_for``
        gives the game's seeds (``game_id`` names whose): its first dice epoch is committed to
        at creation. ``time_control`` (domain/clock.py) is recorded right after the creation."""
        rules = find_ruleset(ruleset)
        if options is not None and not isinstance(options, dict):
            raise InvalidSetup("options must be a JSON object")
        control = None if time_control is None else clocks.check_control(time_control, rules.pass_rule is not None)
        if position is None:
            made = rules.setup(scenario, dict(options or {}))
            return cls._start(rules, made, game_id, umpire, seed_for, control=control)
        if options:
            raise InvalidSetup("a game starts from a named position or from options, not both")
        found = rules.position(position)
        made = rules.setup(scenario, {})
        made.state = json_copy(found.state)  # the event's own copy, never the ruleset's cached one
        return cls._start(rules, made, game_id, umpire, seed_for, (ev.PositionSet, {
            "position": found.name, "title": found.title, "digest": chain.digest(found.state)}), control)

    @classmethod
    def fork(cls, source: "Game", viewer: str | None, game_id: UUID | None = None,
             umpire: str | None = None, seed_for: SeedFor | None = None) -> "Game":
        """A sandbox of ``source`` as it stands (loaded at the fork's event), forked by ``viewer``
        (a seat, "umpire", or None: a spectator): its seats, scenario, options and state, marked
        by SandboxForked. Nothing else carries over: not the source's dice, handles, orders or
        umpire. Refused once the game has ended, and where the state holds anything ``viewer``
        may not see (a seat must not learn hidden state through a fork; the umpire sees all)."""
        if source.is_ended:
            raise InvalidFork(f"the game had ended by event {source.version}: a sandbox starts from a "
                              "position still in play")
        if view_state(source.rules, source.state, viewer) != source.state:
            raise ForkHidden(f"the state right after event {source.version} holds information hidden from "
                             f"{viewer or 'spectators'}: only the umpire may fork there")
        made = Setup(seats=list(source.seats), state=json_copy(source.state), scenario=source.scenario,
                     options=json_copy(source.options))
        return cls._start(source.rules, made, game_id, umpire, seed_for, (ev.SandboxForked, {
            "source": str(source.id), "at": source.version, "at_hash": source.chain_head,
            "by": viewer or "spectator"}))

    @classmethod
    def _start(cls, rules: Ruleset, made: Setup, game_id: UUID | None, umpire: str | None,
               seed_for: SeedFor | None, start: tuple[type, dict] | None = None,
               control: dict | None = None) -> "Game":
        """GameCreated of ``made``, then what marks where the game starts (``start``), then its time
        control (``control``, as clock.check_control made it), then the commitment to the seed of
        dice epoch 0 (format 2: before any seat has joined and given its client seed), then the
        umpire named at creation."""
        if umpire is not None:
            umpire = _umpire_name(umpire, InvalidSetup)
        for seat in made.seats:
            if seat in RESERVED_SEATS and seat != SYSTEM:
                raise InvalidSetup(f"{seat!r} is a reserved name and cannot be a seat")
        game_id = game_id or new_game_id()
        data = {
            "ruleset": rules.name,
            "scenario": made.scenario,
            "options": made.options,
            "seats": made.seats,
            "setup": made.state,
        }
        found = storable.problem(data, "game")
        if found:
            raise InvalidSetup(f"{found}; it cannot be stored")
        data["format"] = FORMAT
        data["concealed"] = None if FORMAT < 2 else _salted(
            visibility.concealable(rules, "GameCreated", data, [*rules.human_seats(made.seats), None]), data, rules)
        timestamp = ev.GameCreated.create_timestamp()
        digest = chain.line_hash({"game_id": str(game_id), "seq": cls.INITIAL_VERSION, "type": "GameCreated",
                                  "timestamp": timestamp.isoformat(), "data": ev.data_of(ev.GameCreated, data),
                                  "prev_hash": chain.GENESIS}, FORMAT)
        game = cls._create(ev.GameCreated, id=game_id, timestamp=timestamp,
                           prev_hash=chain.GENESIS, hash=digest, **data)
        if start is not None:
            game.trigger_event(start[0], **start[1])
        if control is not None:
            game.trigger_event(ev.TimeControlSet, **control)
        if game.format >= 2:
            if seed_for is None:
                raise TypeError("a format-2 game commits to its first dice seed when it is created: "
                                "give Game.create (or fork) the game's seed_for")
            game._commit_open(seed_for, 0)
            game._commit_sealed_dice(seed_for)  # right after the open stream's epoch-0 commitment
        if umpire is not None:
            game.trigger_event(ev.UmpireAppointed, umpire=umpire, agreement=APPOINTED_AT_CREATION, seats=[])
        return game

    def trigger_event(self, event_class: type, **kwargs: Any) -> None:
        """eventsourcing's trigger_event, with the event's place in the hash chain: its
        ``prev_hash`` and its ``hash``, computed as docs/dice.md defines it. An event holding a
        value no reader could take back is refused before it exists."""
        _storable(event_class.__name__, kwargs)
        before = self.pending_events[-1] if self.pending_events else None
        kwargs["concealed"] = self._salts(event_class.__name__, kwargs, before and (
            type(before).__name__, ev.event_data(before)))
        timestamp = event_class.create_timestamp()
        digest = chain.line_hash({"game_id": str(self.id), "seq": self.version + 1, "type": event_class.__name__,
                                  "timestamp": timestamp.isoformat(), "data": ev.data_of(event_class, kwargs),
                                  "prev_hash": self.chain_head}, self.format)
        super().trigger_event(event_class, timestamp=timestamp, prev_hash=self.chain_head, hash=digest, **kwargs)

    def _salts(self, event_type: str, data: dict, before: tuple[str, dict] | None = None) -> dict | None:
        """Format 2: a fresh salt for each field of the new event some viewer may not see
        (domain/visibility.py, docs/dice.md "Concealed fields"), or None when there is none."""
        if self.format < 2:
            return None
        viewers = [*self.rules.human_seats(list(self.seats)), None]
        return _salted(visibility.concealable(self.rules, event_type, data, viewers, before), data, self.rules)

    # ------------------------------------------------------------------------------ queries --
    @property
    def rules(self) -> Ruleset:
        return find_ruleset(self.ruleset)

    def human_seats(self) -> list[str]:
        return self.rules.human_seats(list(self.seats))

    def client_seeds(self) -> dict[str, str]:
        return {name: seat["client_seed"] for name, seat in self.seats.items() if name != SYSTEM}

    @property
    def started(self) -> bool:
        return all(self.seats[s]["handle"] for s in self.human_seats())

    @property
    def is_ended(self) -> bool:
        return self.ended is not None

    @property
    def sealed_revealed(self) -> bool:
        """Whether the sealed dice stream's seed is revealed: every sealed roll is public then."""
        return self.sealed_dice is not None and self.sealed_dice["revealed"]

    @property
    def shown_rolls(self) -> frozenset[int]:
        """The seqs of the sealed rolls shown before the end (SealedRollShown): public now."""
        return frozenset(int(seq) for seq, roll in (self.sealed_rolls or {}).items() if roll["shown"])

    def order_around(self, seq: int) -> tuple[str, int, int] | None:
        """(order id, first, last) of the order whose events run on past event ``seq``: a fork
        there would start from half an order's outcome. None when ``seq`` ends what it is in."""
        for order_id, found in self.orders.items():
            if found["first"] <= seq < found["last"]:
                return order_id, found["first"], found["last"]
        return None

    def order_range(self, order_id: str) -> tuple[int, int] | None:
        found = self.orders.get(order_id)
        return (found["first"], found["last"]) if found else None

    def whose_move(self) -> list[str]:
        if not self.started or self.is_ended:
            return []
        if self.take_back is not None:
            return [s for s in self.human_seats() if s != self.take_back["seat"]]
        if self.sealed is not None:
            found = self.sealed_status()
            return found["must_commit"] or found["must_reveal"]
        return self.rules.actors(self.state)

    def sealed_status(self) -> dict | None:
        """The sealed-orders round open now: its number, rule and seats, who has committed and who
        revealed, and who must still commit (or, once all have, reveal); None when none is open."""
        return sealed_status(self.sealed)

    def legal_orders(self, seat: str) -> list[dict]:
        """What ``seat`` may order now, computed from the state as the seat sees it: an order's
        template never shows what the seat may not see (issue 34, section 5)."""
        if seat not in self.whose_move() or self.take_back is not None:
            return []
        return self.rules.legal_orders(view_state(self.rules, self.state, seat), seat)

    def view(self, viewer: str | None) -> dict:
        return self.rules.view(self.state, viewer)

    def standing_orders_of(self, seat: str) -> list[dict]:
        """A seat's standing orders, in the order they were set."""
        return [{"policy_id": pid, **entry} for pid, entry in self._standing().get(seat, {}).items()]

    def _key_taken(self, public_key: str) -> str | None:
        """Why ``public_key`` cannot be a new seat's: another seat of this game registered it
        (docs/dice.md, "Seats' keys"); None when no seat did."""
        other = next((seat for seat, key in (self.seat_keys or {}).items() if key == public_key), None)
        if other is None:
            return None
        return (f"seat {other} of this game already registered this public key: an order's signature does not "
                "name its seat, so two seats' signed orders could not be told apart; make a key for this seat")

    # ----------------------------------------------------------------------------- commands --
    def join(self, seat: str, handle: str, client_seed: str, seed_for: SeedFor,
             public_key: str | None = None) -> None:
        """Take ``seat``; with ``public_key`` (docs/dice.md, "Signed orders") every later order of
        the seat must be signed by it."""
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat is played by the server")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule, "the game has ended; no seat can be joined")
        if self.seats[seat]["handle"]:
            raise RuleViolation("seats", f"seat {seat!r} is already taken")
        if not isinstance(handle, str) or not handle.strip() or len(handle) > 80 or not handle.isprintable():
            raise InvalidOrder("a handle (1-80 printable characters, on one line) is required to join",
                               field="handle")
        client_seed = _client_seed(client_seed)
        if public_key is not None:
            found = signatures.public_key_problem(public_key) or self._key_taken(public_key)
            if found:
                raise InvalidOrder(found, field="public_key")
        self.trigger_event(ev.SeatJoined, seat=seat, handle=handle.strip(), client_seed=client_seed)
        if public_key is not None:
            self.trigger_event(ev.SeatKeyRegistered, seat=seat, public_key=public_key)
        if self.started and self.dice["commitment"] is None and not self.is_ended:
            # The last seat joined: epoch 0 opens, then the server's set-up rolls, if any.
            self._open_epoch(seed_for)
            self._opening(seed_for)
            self._open_sealed_round()

    def change_client_seed(self, seat: str, client_seed: str, signed: Signed | None = None) -> None:
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat has no client seed")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule, "the game has ended; no dice remain to be rolled")
        client_seed = _client_seed(client_seed)
        signature = self._check_command_signature(seat, signatures.CLIENT_SEED, {"client_seed": client_seed}, signed)
        self.trigger_event(ev.ClientSeedChanged, seat=seat, client_seed=client_seed)
        self._record_command_signature(seat, signatures.CLIENT_SEED, signature)

    def submit(self, seat: str, order_id: str, order: dict, seed_for: SeedFor,
               signed: Signed | None = None) -> tuple[int, int]:
        """Check ``order`` and record it with its outcome; returns the (first, last) seq recorded.

        An order id seen before is not recorded again: the caller looks up ``order_range``.
        ``signed`` is ``(signature, head, in_log)``: the order's signature, the head it was signed
        over, and whether a hash is a line of this log; a seat with a key must sign (docs/dice.md).
        """
        if not isinstance(order_id, str) or not order_id or len(order_id) > 200:
            raise InvalidOrder("an order id (1-200 characters) is required", field="order_id")
        if not isinstance(order, dict):
            raise InvalidOrder("an order is a JSON object", field="order")
        _storable("order", order, "order")  # before the order is digested or read by the rules
        if len(chain.canonical(order)) > MAX_ORDER_BYTES:
            raise InvalidOrder(f"an order is at most {MAX_ORDER_BYTES} bytes of JSON", field="order")
        signature = self._check_signature(seat, order_id, order, signed)
        seen = self.orders.get(order_id)
        if seen is not None:
            if seen["digest"] != _order_digest(seat, order, seen["salt"]):
                raise IdempotencyConflict(
                    f"order id {order_id!r} was already used for a different order")
            return seen["first"], seen["last"]
        if order_id.startswith(SEALED_ID_PREFIX):
            raise InvalidOrder(f"order ids starting {SEALED_ID_PREFIX!r} are the server's, for revealed "
                               "sealed orders", field="order_id")
        if order_id.startswith(clocks.TIMEOUT_ID_PREFIX):
            raise InvalidOrder(f"order ids starting {clocks.TIMEOUT_ID_PREFIX!r} are the server's, for the "
                               "passes it gives at a timeout (TC 4)", field="order_id")
        if self.sealed is not None and not self.is_ended:
            raise RuleViolation(self.sealed["rule"], f"sealed-orders round {self.sealed['round']} is open: "
                                "orders are sealed and revealed (POST .../sealed), not given one by one")
        self._check_may_act(seat)
        roller = Roller(self, seed_for, order_id)
        outcomes = self.rules.decide(self.state, seat, order, roller)
        first = self.version + 1
        self._accept(seat, order_id, order, outcomes, roller, seed_for, signature)
        self._open_sealed_round()
        return first, self.version

    def _accept(self, seat: str, order_id: str, order: dict, outcomes: list, roller: Roller, seed_for: SeedFor,
                signature: tuple[str, str] | None = None) -> None:
        """Record an order the rules accepted (a seat's, a revealed sealed one, the server's pass at a
        timeout): OrderAccepted with its salted digest, the seat's signature, the outcomes, then
        the answers the seats' standing orders give to what it left pending."""
        self._check_outcomes(outcomes, roller)
        salt = secrets.token_hex(16)
        self.trigger_event(ev.OrderAccepted, order_id=order_id, seat=seat, order=order,
                           digest=_order_digest(seat, order, salt), salt=salt)
        if signature is not None:
            self.trigger_event(ev.OrderSigned, order_id=order_id, seat=seat, head=signature[0],
                               signature=signature[1])
        self._record(outcomes, seed_for)
        self._answer_by_standing_orders(seed_for)

    # ------------------------------------------------------------------------ sealed orders --
    def seal(self, seat: str, commitment: str, signed: Signed | None = None) -> int | None:
        """``seat`` commits to its orders of the open round (docs/dice.md, "Sealed orders").
        The same commitment again records nothing and returns the seq of the first; a different
        one is refused (a commitment is never changed). ``signed`` as for ``submit``."""
        round_ = self._check_sealed_seat(seat)
        found = sealing.commitment_problem(commitment)
        if found:
            raise InvalidOrder(found, rule=round_["rule"], field="commitment")
        signature = self._check_sealed_signature(seat, signatures.SEAL, signed, lambda head: signatures.seal_message(
            str(self.id), seat, round_["round"], commitment, head))
        held = round_["commitments"].get(seat)
        if held is not None:
            if held["commitment"] == commitment:
                return held["seq"]
            raise RuleViolation(round_["rule"], f"{seat} has sealed its orders for round {round_['round']} "
                                                "already; a commitment cannot be changed")
        self.trigger_event(ev.OrderSealed, seat=seat, round=round_["round"], commitment=commitment)
        self._record_sealed_signature(seat, signatures.SEAL, round_["round"], signature)
        return None

    def reveal(self, seat: str, orders: Any, salt: Any, seed_for: SeedFor, signed: Signed | None = None) -> int | None:
        """``seat`` reveals its sealed orders and salt; checked against its commitment. The last
        reveal of the round carries every revealed order out, in the ruleset's order. The same
        reveal again records nothing and returns the seq of the first, also once its round is over
        (the last round's). ``signed`` as for ``submit``."""
        past = (self.closed_reveals or {}).get(seat)
        if past is not None and past["orders"] == orders and past["salt"] == salt and not self._sealed_now(seat, orders, salt):
            self._check_sealed_signature(seat, signatures.REVEAL, signed, lambda head: signatures.reveal_message(
                str(self.id), seat, past["round"], orders, salt, head))
            return past["seq"]
        round_ = self._check_sealed_seat(seat)
        rule = round_["rule"]
        if seat not in round_["commitments"]:
            raise RuleViolation(rule, f"{seat} has not sealed its orders for round {round_['round']}: "
                                      "seal them first, then reveal")
        waiting = [s for s in round_["seats"] if s not in round_["commitments"]]
        if waiting:
            raise RuleViolation(rule, f"the reveal waits until every seat has sealed its orders; "
                                      f"waiting for {', '.join(waiting)}")
        found = sealing.salt_problem(salt)
        if found:
            raise InvalidOrder(found, rule=rule, field="salt")
        found = sealing.orders_problem(orders, MAX_ORDER_BYTES)
        if found:
            raise InvalidOrder(found, rule=rule, field="orders")
        _storable("orders", orders, "orders")
        signature = self._check_sealed_signature(seat, signatures.REVEAL, signed, lambda head: signatures.reveal_message(
            str(self.id), seat, round_["round"], orders, salt, head))
        shown = round_["revealed"].get(seat)
        if shown is not None:
            if shown["orders"] == orders and shown["salt"] == salt:
                return shown["seq"]
            raise RuleViolation(rule, f"{seat} has revealed its orders for round {round_['round']} already")
        want = round_["commitments"][seat]["commitment"]
        if sealing.commitment(str(self.id), seat, round_["round"], orders, salt) != want:
            raise CommitmentMismatch(f"the orders and salt revealed do not hash to {seat}'s commitment for "
                                     f"round {round_['round']} ({want}); nothing was recorded", rule=rule)
        self.trigger_event(ev.OrderRevealed, seat=seat, round=round_["round"], orders=orders, salt=salt)
        self._record_sealed_signature(seat, signatures.REVEAL, round_["round"], signature)
        if all(s in self.sealed["revealed"] for s in round_["seats"]):
            self._carry_out_sealed(seed_for)
        return None

    def _sealed_now(self, seat: str, orders: list, salt: str) -> bool:
        """Whether ``orders`` and ``salt`` are what ``seat`` committed to in the round open now (a
        client that sealed the same orders with the same salt again reveals them, not the last round's)."""
        held = (self.sealed or {}).get("commitments", {}).get(seat)
        return held is not None and held["commitment"] == sealing.commitment(
            str(self.id), seat, self.sealed["round"], orders, salt)

    def _check_sealed_seat(self, seat: str) -> dict:
        """The open round, once ``seat`` may seal or reveal in it."""
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat is played by the server")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule, "the game has ended")
        if not self.started:
            waiting = [s for s in self.human_seats() if not self.seats[s]["handle"]]
            raise RuleViolation("seats", f"the game starts when every seat has joined; waiting for {', '.join(waiting)}")
        if self.sealed is None:
            raise RuleViolation(self.rules.sequence_rule or self.ruleset, "no sealed-orders round is open: "
                                                                          "give orders one by one")
        if seat not in self.sealed["seats"]:
            raise NotYourMove(self.sealed["rule"], f"{seat} has no orders to seal in round {self.sealed['round']}; "
                                                   f"its seats are {', '.join(self.sealed['seats'])}")
        return self.sealed

    def _carry_out_sealed(self, seed_for: SeedFor) -> None:
        """Every seat revealed: carry the orders out in the ruleset's order, each as an ordinary
        order (OrderAccepted and its outcome, dice included) or, if the rules refuse it now, a
        SealedOrderRefused naming the rule; then the next round opens if the rules say so."""
        round_, rules = self.sealed, self.rules
        revealed = {seat: round_["revealed"][seat]["orders"] for seat in round_["seats"]}
        pairs = [tuple(p) for p in rules.sealed_sequence(self.state, list(round_["seats"]), revealed)]
        every = [(seat, index) for seat in round_["seats"] for index in range(len(revealed[seat]))]
        if sorted(pairs) != sorted(every):
            raise RulesetBug(f"ruleset {self.ruleset}'s sealed_sequence must name every revealed order once")
        sequence = [{"seat": seat, "index": index, "order_id": sealing.order_id(round_["round"], seat, index)}
                    for seat, index in pairs]
        self.trigger_event(ev.SealedOrdersCarriedOut, round=round_["round"], rule=round_["rule"], sequence=sequence)
        for entry in sequence:
            seat, index, order_id = entry["seat"], entry["index"], entry["order_id"]
            order = revealed[seat][index]
            refused = None
            if self.is_ended:
                refused = (rules.end_rule or None, "the game ended before this order's turn came")
            else:
                roller = Roller(self, seed_for, order_id)
                try:
                    outcomes = rules.decide(self.state, seat, order, roller)
                except InvalidOrder as exc:
                    refused = (exc.rule, exc.message)
                except RuleViolation as exc:
                    refused = (exc.rule, exc.message)
            if refused is not None:
                self.trigger_event(ev.SealedOrderRefused, seat=seat, round=round_["round"], index=index,
                                   order_id=order_id, order=order, rule=refused[0], reason=refused[1])
                continue
            self._accept(seat, order_id, order, outcomes, roller, seed_for)
        self._open_sealed_round()

    def _open_sealed_round(self) -> None:
        """Open a sealed-orders round when none is open and the ruleset says one opens now."""
        if self.sealed is not None or not self.started or self.is_ended or self.take_back is not None:
            return
        found = self.rules.sealed_phase(self.state, self.options or {})
        if not found:
            return
        seats = list(found["seats"])
        if not seats or not set(seats) <= set(self.human_seats()) or len(set(seats)) != len(seats):
            raise RulesetBug(f"ruleset {self.ruleset}'s sealed_phase names seats {seats}, not some of "
                             f"{self.human_seats()}")
        self.trigger_event(ev.SealedRoundOpened, round=self.sealed_rounds + 1, rule=found["rule"], seats=seats)

    def _check_signature(self, seat: str, order_id: str, order: dict, signed: Signed | None) -> tuple[str, str] | None:
        """(head, signature) of a keyed seat's order, checked; None for a seat without a key
        (whatever it sent is ignored: it plays as before keys existed)."""
        return self._checked(seat, signed, "order id, order",
                             lambda head: signatures.order_message(str(self.id), order_id, order, head))

    def _check_sealed_signature(self, seat: str, kind: str, signed: Signed | None,
                                message: Callable[[str], bytes]) -> tuple[str, str] | None:
        """(head, signature) of a keyed seat's seal or reveal (``kind``), checked; None in a format-1
        game, whose seals and reveals stay unsigned as they always were (docs/dice.md)."""
        if self.format < 2:
            return None
        what = "seal, round, commitment" if kind == signatures.SEAL else "reveal, round, orders, salt"
        return self._checked(seat, signed, what, message)

    def _checked(self, seat: str, signed: Signed | None, what: str,
                 message: Callable[[str], bytes]) -> tuple[str, str] | None:
        """(head, signature) of a keyed seat's command, checked against ``message(head)``, the bytes
        its key signed; None for a seat without a key."""
        return checked_signature((self.seat_keys or {}).get(seat), seat, signed, what, message)

    def _check_command_signature(self, seat: str, kind: str, fields: dict, signed: Signed | None,
                                 resend: bool = False) -> tuple[str, str] | None:
        """(head, signature) of a keyed seat's other command (``kind``, its ``fields`` as they will be
        recorded), checked; None in a format-1 game, whose commands stay unsigned as they always were.
        ``resend``: the command's key is in the log already, so its signature may be too."""
        if self.format < 2:
            return None
        checked = self._checked(seat, signed, f"{kind.replace('_', ' ')} command, "
                                              f"{', '.join(signatures.COMMAND_FIELDS[kind]) or 'no fields'}",
                                lambda head: signatures.command_message(str(self.id), kind, seat, fields, head))
        # A signature binds a command to a head, and a head stays a line of the log: the same
        # signature again (a take-back accepted, a standing order set: kept and sent again for a
        # later request, or after its cancel) is refused. An annotation's resend, or a keyed
        # command's, returns its first result by its id before anything is recorded, so it is not
        # refused here.
        if checked is not None and not resend and kind not in signatures.ANNOTATIONS \
                and checked[1] in self.command_signatures:
            raise SignatureReused(f"this signature of seat {seat}'s {kind.replace('_', ' ')} command is already in "
                                  "the log: a signed command is recorded once; sign the command again over the "
                                  "current head (docs/dice.md, \"Signed orders and heads\")")
        return checked

    def check_seat_request(self, seat: str, kind: str, fields: dict, signed: Signed | None) -> tuple[str, str] | None:
        """A keyed seat's request that records nothing in the log (a new token, kind "seat_token"; its
        notification settings, kind "notifications") carries its signature, as its commands do, in
        every format: no recorded game changes. A seat without a key needs none. Returns (head,
        signature) checked, None for a seat without a key."""
        return seat_request_checked(str(self.id), (self.seat_keys or {}).get(seat), seat, kind, fields, signed)

    def _record_command_signature(self, seat: str, kind: str, signature: tuple[str, str] | None) -> None:
        """The command's signature, right after the command's line (docs/dice.md, "Signed orders and heads")."""
        if signature is not None:
            self.trigger_event(ev.CommandSigned, kind=kind, seat=seat, head=signature[0], signature=signature[1])

    def _record_sealed_signature(self, seat: str, kind: str, round_no: int, signature: tuple[str, str] | None) -> None:
        """The seal's or reveal's signature, right after it (docs/dice.md, "Signed orders and heads")."""
        if signature is not None:
            self.trigger_event(ev.SealedOrdersSigned, kind=kind, seat=seat, round=round_no, head=signature[0],
                               signature=signature[1])

    # ---------------------------------------------------------------------- standing orders --
    def set_standing_order(self, seat: str, policy_id: str, decision_kind: str, policy: Any,
                           signed: Signed | None = None) -> None:
        """Leave ``policy`` to answer ``seat``'s decisions of ``decision_kind`` (docs/rulesets.md,
        Standing orders). Allowed whoever is to move: that is what it is for. Setting the same
        policy again records nothing."""
        self._check_standing_seat(seat)
        if not isinstance(policy_id, str) or not policy_id.strip() or len(policy_id) > MAX_POLICY_ID \
                or not policy_id.isprintable():
            raise InvalidOrder(f"a standing order is named by 1 to {MAX_POLICY_ID} printable characters",
                               field="policy_id")
        if not isinstance(decision_kind, str) or not decision_kind:
            raise InvalidOrder("a standing order names the kind of decision it answers", field="decision_kind")
        _storable("policy", policy, "policy")
        if len(chain.canonical(policy)) > MAX_ORDER_BYTES:
            raise InvalidOrder(f"a policy is at most {MAX_ORDER_BYTES} bytes of JSON", field="policy")
        rules = self.rules
        sent, policy = policy, rules.check_policy(self.state, seat, decision_kind, policy)
        rule = rules.standing_rule(decision_kind)
        mine = self._standing().get(seat, {})
        for other, entry in mine.items():
            if other != policy_id and entry["decision_kind"] == decision_kind:
                raise RuleViolation(rule, f"standing order {other!r} answers {seat}'s {decision_kind} decisions "
                                          "already; cancel it first, or set it again under its name")
        # Signed over the policy as the rules record it, the line that verify checks the signature against.
        try:
            signature = self._check_command_signature(seat, signatures.STANDING_ORDER, {
                "policy_id": policy_id, "decision_kind": decision_kind, "policy": policy}, signed)
        except BadSignature as exc:
            if sent == policy:
                raise
            raise BadSignature(f"{exc}; a standing order is signed as the rules record it: "
                               f"{chain.canonical(policy).decode('utf-8')}") from None
        same = mine.get(policy_id)
        if same is not None and same["decision_kind"] == decision_kind and same["policy"] == policy:
            return
        self.trigger_event(ev.StandingOrderSet, seat=seat, policy_id=policy_id, decision_kind=decision_kind,
                           policy=policy, rule=rule, salt=secrets.token_hex(16))
        self._record_command_signature(seat, signatures.STANDING_ORDER, signature)

    def cancel_standing_order(self, seat: str, policy_id: str, signed: Signed | None = None) -> None:
        self._check_standing_seat(seat)
        entry = self._standing().get(seat, {}).get(policy_id)
        if entry is None:
            held = ", ".join(self._standing().get(seat, {})) or "none"
            raise RuleViolation(self.rules.prefix or self.ruleset,
                                f"{seat} has no standing order {policy_id!r} (it has: {held})")
        signature = self._check_command_signature(seat, signatures.STANDING_ORDER_CANCEL, {"policy_id": policy_id},
                                                  signed)
        self.trigger_event(ev.StandingOrderCancelled, seat=seat, policy_id=policy_id,
                           decision_kind=entry["decision_kind"], rule=entry["rule"])
        self._record_command_signature(seat, signatures.STANDING_ORDER_CANCEL, signature)

    def _standing(self) -> dict:
        return self.standing_orders or {}

    def _check_standing_seat(self, seat: str) -> None:
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat is played by the server")
        if not self.seats[seat]["handle"]:
            raise RuleViolation("seats", f"seat {seat!r} has not joined")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule, "the game has ended")

    def _standing_order_for(self, decision: dict) -> tuple[str, dict] | None:
        for policy_id, entry in self._standing().get(decision.get("seat"), {}).items():
            if entry["decision_kind"] == decision.get("kind"):
                return policy_id, entry
        return None

    def _answer_by_standing_orders(self, seed_for: SeedFor) -> None:
        """While the order just recorded leaves a decision pending for a seat whose standing order
        covers it, and the ruleset answers by that order, carry out the answer as that seat's
        decide order: same rules, same dice, inside this order (so a take-back of the order takes
        the answer back with it). ``StandingOrderUsed`` records each use before its outcome."""
        rules = self.rules
        for _ in range(MAX_STANDING_ANSWERS):
            pending = (self.state or {}).get("pending") or []
            if self.is_ended or not pending:
                return
            decision = pending[0]
            found = self._standing_order_for(decision)
            if found is None:
                return
            policy_id, entry = found
            choice = rules.policy_answer(self.state, decision, entry["policy"])
            if choice is None:
                return  # the policy says: ask the seat
            order = rules.answer_order(decision, choice)
            roller = Roller(self, seed_for)
            try:
                outcomes = rules.decide(self.state, decision["seat"], order, roller)
            except (InvalidOrder, RuleViolation):
                return  # the rules refuse the policy's answer now: the seat answers itself
            self._check_outcomes(outcomes, roller)
            self.trigger_event(ev.StandingOrderUsed, seat=decision["seat"], decision_id=decision["id"],
                               decision_kind=decision["kind"], policy_id=policy_id, choice=choice,
                               order=order, rule=entry["rule"])
            self._record(outcomes, seed_for)

    # -------------------------------------------------------------------------- annotations --
    def annotate(self, role: str, author: str | None, annotation_id: str, about_seq: Any, text: Any, private: Any,
                 signed: Signed | None = None) -> tuple[int, int] | None:
        """``author`` (a seat for role "seat"; the spectator's name for role "spectator"; ignored for
        the umpire, whose name the log holds) comments ``text`` on event ``about_seq``, during the
        game or after it. Not an order: no dice, no turn, nobody's move. The same annotation id
        again with the same content records nothing and returns the (first, last) seqs it recorded."""
        if role not in ANNOTATION_ROLES:
            raise InvalidOrder(f"an annotation's author is a seat, the umpire or a spectator, not {role!r}",
                               rule=ANNOTATION_RULE)
        seat = None
        if role == "seat":
            self._check_seat(author)
            if author == SYSTEM:
                raise RuleViolation("seats", "the system seat is played by the server")
            if not self.seats[author]["handle"]:
                raise RuleViolation("seats", f"seat {author!r} has not joined")
            seat = author
        elif role == "umpire":
            if self.umpire is None:
                raise RuleViolation(UMPIRE_RULE, "no umpire is appointed")
            author = self.umpire["name"]
        else:
            if not self.is_ended:
                raise RuleViolation(ANNOTATION_RULE, "spectators annotate a game once it has ended")
            if private:
                raise InvalidOrder("a spectator's annotations are public: only seats and the umpire keep "
                                   "private ones", rule=ANNOTATION_RULE, field="private")
            if not isinstance(author, str) or not author.strip():
                raise InvalidOrder("a spectator annotates under the name its token was given", rule=ANNOTATION_RULE)
        if not _is_client_id(annotation_id):
            raise InvalidOrder(f"an annotation id is 1 to {MAX_ANNOTATION_ID} printable characters",
                               rule=ANNOTATION_RULE, field="annotation_id")
        if isinstance(about_seq, bool) or not isinstance(about_seq, int) or not 1 <= about_seq <= self.version:
            raise InvalidOrder(f"'about_seq' is the seq of an event of this game, 1 to {self.version}; "
                               f"not {about_seq!r}", rule=ANNOTATION_RULE, field="about_seq")
        if about_seq in self.annotation_lines:
            raise InvalidOrder(f"event {about_seq} is an annotation: annotate the event it is about",
                               rule=ANNOTATION_RULE, field="about_seq")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_ANNOTATION:
            raise InvalidOrder(f"an annotation is text of 1 to {MAX_ANNOTATION} characters",
                               rule=ANNOTATION_RULE, field="text")
        _storable("annotation", text, "text")
        if not isinstance(private, bool):
            raise InvalidOrder("'private' is true or false", rule=ANNOTATION_RULE, field="private")
        # A keyed seat's signature is checked before the id is looked up, as an order's: a resend is checked too.
        kind = signatures.PRIVATE_ANNOTATION if private else signatures.ANNOTATION
        signature = None if seat is None else self._check_command_signature(
            seat, kind, {"annotation_id": annotation_id, "about_seq": about_seq, "text": text}, signed)
        digest = chain.digest({"author": author, "role": role, "about_seq": about_seq, "text": text,
                               "private": private})
        known = (self.annotations or {}).get(annotation_id)
        if known is not None:
            if known["digest"] != digest:
                raise IdempotencyConflict(f"annotation id {annotation_id!r} was used for another annotation")
            return known["seq"], known["last"]
        self.trigger_event(ev.AnnotationAdded, annotation_id=annotation_id, seat=seat, author=author, role=role,
                           about_seq=about_seq, text=text, private=private)
        self._record_command_signature(seat, kind, signature)
        return None

    def _opening(self, seed_for: SeedFor) -> None:
        """The ruleset's opening outcomes, right after dice epoch 0 opens (set-up by dice)."""
        roller = Roller(self, seed_for)
        outcomes = self.rules.opening(self.state, roller)
        self._check_outcomes(outcomes, roller)
        self._record(outcomes, seed_for)

    def may_take_back(self, seat: str) -> bool:
        """Whether ``seat`` may ask now to take back its last order (what ``legal`` offers)."""
        rule = self.rules.take_back_rule
        return rule is not None and seat in self.human_seats() and self._take_back_refused(seat, rule) is None

    def _take_back_refused(self, seat: str, rule: str) -> RuleViolation | None:
        """Why ``seat`` may not ask now to take back its last order, or None when it may."""
        if self.sealed is not None and not self.is_ended:
            return RuleViolation(self.sealed["rule"], "no take-backs while a sealed-orders round is open: "
                                                      "the other seats sealed their orders against this position")
        last = self.last_order
        if self.is_ended:
            # The ending closed the last dice epoch and settled the result: nothing to go back to.
            return RuleViolation(rule, "the game has ended; nothing can be taken back")
        if self.take_back is not None:
            return RuleViolation(rule, "a take-back request is already waiting for an answer")
        if last is None or last["seat"] != seat:
            return RuleViolation(rule, "a player may take back only his own last order, "
                                       "before anything else has been ordered")
        if not [s for s in self.human_seats() if s != seat]:
            return RuleViolation(rule, "a take-back needs an opponent to accept it")
        return None

    def request_take_back(self, seat: str, reason: str = "", signed: Signed | None = None) -> None:
        rule = self._take_back_rule()
        self._check_seat(seat)
        refused = self._take_back_refused(seat, rule)
        if refused is not None:
            raise refused
        last = self.last_order
        reason = reason or ""
        if not isinstance(reason, str) or len(reason) > MAX_REASON:
            raise InvalidOrder(f"a take-back's reason is text of at most {MAX_REASON} characters",
                               rule=rule, field="reason")
        signature = self._check_command_signature(seat, signatures.TAKE_BACK, {"reason": reason}, signed)
        self.trigger_event(ev.TakeBackRequested, seat=seat, order_id=last["order_id"],
                           reason=reason, rule=rule)
        self._record_command_signature(seat, signatures.TAKE_BACK, signature)

    def answer_take_back(self, seat: str, accept: bool, signed: Signed | None = None) -> None:
        rule = self._take_back_rule()
        self._check_seat(seat)
        pending = self.take_back
        if self.is_ended:
            # A request left waiting when the game ended (a concession) lapsed with it.
            raise RuleViolation(self.rules.end_rule or rule, "the game has ended; a take-back request "
                                                             "waiting then lapsed, nothing can be taken back")
        if pending is None:
            raise RuleViolation(rule, "no take-back request is waiting for an answer")
        if seat == pending["seat"] or seat == SYSTEM:
            raise RuleViolation(rule, "only the opponent may answer a take-back request")
        signature = self._check_command_signature(seat, signatures.TAKE_BACK_ANSWER, {"accept": bool(accept)}, signed)
        if not accept:
            self.trigger_event(ev.TakeBackDeclined, seat=seat, order_id=pending["order_id"], rule=rule)
        else:
            last = self.last_order
            self.trigger_event(
                ev.TakeBackAccepted, seat=seat, order_id=last["order_id"],
                superseded_from=last["first"], superseded_to=last["last"],
                superseded_rolls=list(last["rolls"]),
                restored=self.rules.restore(last["state_before"], self.state), rule=rule)
        self._record_command_signature(seat, signatures.TAKE_BACK_ANSWER, signature)

    def concede(self, seat: str, seed_for: SeedFor, signed: Signed | None = None) -> None:
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat cannot concede")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule, "the game has already ended")
        winner = self.rules.concession_winner(self.state, seat)
        signature = self._check_command_signature(seat, signatures.CONCEDE, {}, signed)
        self.trigger_event(ev.Conceded, seat=seat)
        self._record_command_signature(seat, signatures.CONCEDE, signature)
        self.trigger_event(ev.GameEnded, winner=winner, level="concession",
                           reason=f"{seat} conceded", rule=self.rules.concede_rule or self.rules.end_rule or None)
        self._close_epoch(seed_for, reopen=False)

    # ------------------------------------------------------------------------ time control --
    # domain/clock.py: TC 1-5. ``now`` is the server's clock, passed in by the service.
    def keep_time(self, now: datetime) -> None:
        """After a command: start the clock again when TC 1 says so (a DeadlineSet for the seats
        to move now). The service calls it before every save."""
        if self.clock is None or not self.started or self.is_ended:
            return
        seats = self.whose_move()
        if clocks.needs_deadline(self.clock, seats):
            self.trigger_event(ev.DeadlineSet, seats=seats, deadline=clocks.next_deadline(self.clock, seats, now),
                               rule=clocks.RULE)

    def dice_held(self, held: Callable[[int], bytes | None]) -> bool:
        """Whether this server holds the seed committed for the game's open dice epoch (or, none
        open yet, the one committed ahead): ``held(epoch)`` reads a seed without drawing one. A
        game imported from a file holds none here: it is a record, not continued (docs/dice.md)."""
        epoch, commitment = self.dice["epoch"], self.dice["commitment"]
        if commitment is None and self.open_committed:
            epoch, commitment = self.open_committed.get("epoch"), self.open_committed.get("commitment")
        if commitment is None:
            return True  # nothing committed yet: nothing that another server could hold
        seed = held(epoch)
        return seed is not None and dice.commitment(seed) == commitment

    def sweep(self, now: datetime, seed_for: SeedFor) -> None:
        """What the server's clock sees at ``now``: a reminder due (TC 2) or a deadline passed
        (TC 4) is recorded; nothing when neither."""
        if self.clock is None or self.is_ended:
            return
        hours = clocks.reminder_due(self.clock, now)
        if hours is not None:
            self.trigger_event(ev.DeadlineReminder, seats=self.clock["seats"], deadline=self.clock["deadline"],
                               hours=hours, rule=clocks.RULE)
        self._time_out(now, seed_for)

    def _time_out(self, now: datetime, seed_for: SeedFor) -> None:
        """TC 4: the deadline running has passed; record it and, with on_timeout "pass", give the
        ruleset's pass for the first late seat that has one the rules accept now."""
        if self.clock is None or self.is_ended or not clocks.timed_out(self.clock, now):
            return
        late, control = list(self.clock["seats"]), self.clock["control"]
        self.trigger_event(ev.TimedOut, seats=late, deadline=self.clock["deadline"],
                           on_timeout=control["on_timeout"], rule=clocks.RULE)
        if control["on_timeout"] != "pass" or self.take_back is not None or self.sealed is not None:
            return
        rules = self.rules
        for seat in late:
            order = rules.timeout_pass(self.state, seat)
            if order is None:
                continue
            order_id = f"{clocks.TIMEOUT_ID_PREFIX}{self.version + 1}"
            roller = Roller(self, seed_for, order_id)
            try:
                outcomes = rules.decide(self.state, seat, order, roller)
            except (InvalidOrder, RuleViolation):
                continue  # no pass the rules accept now: the flag stands
            self._accept(seat, order_id, order, outcomes, roller, seed_for)
            self._open_sealed_round()
            return

    def _check_time_seat(self, seat: str) -> dict:
        """The clock, once ``seat`` may use it: a joined human seat of a running game with a time control."""
        self._check_seat(seat)
        if self.clock is None:
            raise RuleViolation(clocks.RULE, "this game has no time control")
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat is played by the server")
        if not self.seats[seat]["handle"]:
            raise RuleViolation("seats", f"seat {seat!r} has not joined")
        if self.is_ended:
            raise RuleViolation(self.rules.end_rule or clocks.RULE, "the game has ended")
        return self.clock

    def _time_command_seen(self, seat: str, kind: str, fields: dict, signed: Signed | None,
                           command_id: str | None) -> tuple[int, int] | None:
        """The (first, last) seqs that a vacation or extension sent before with ``command_id`` (its
        Idempotency-Key) recorded, when this is the same command again; None for a new key. The
        same key with another command is refused. A keyed seat's resend is checked as signed."""
        if command_id is None:
            return None
        if not _is_client_id(command_id):
            raise InvalidOrder(f"an Idempotency-Key is 1 to {MAX_ANNOTATION_ID} printable characters",
                               rule=clocks.RULE, field="Idempotency-Key")
        known = (self.time_commands or {}).get(command_id)
        if known is None:
            return None
        self._check_seat(seat)
        self._check_command_signature(seat, kind, fields, signed, resend=True)
        if known["digest"] != _time_command_digest(seat, kind, fields):
            raise IdempotencyConflict(f"Idempotency-Key {command_id!r} was used for another command")
        return known["seq"], known["last"]

    def take_vacation(self, seat: str, days: Any, now: datetime, signed: Signed | None = None,
                      command_id: str | None = None) -> tuple[int, int] | None:
        """TC 3: ``seat`` announces ``days`` days of vacation from now (or from the end of one it
        is on), within its allowance; a deadline of the seat running moves on by as many days.
        Sent again with the same ``command_id``: nothing recorded, its first (first, last) seqs."""
        seen = self._time_command_seen(seat, signatures.VACATION, {"days": days}, signed, command_id)
        if seen is not None:
            return seen
        clock = self._check_time_seat(seat)
        left = clocks.vacation_left(clock, seat)
        if isinstance(days, bool) or not isinstance(days, int) or days < 1:
            raise InvalidOrder("a vacation is a whole number of days, at least 1", rule=clocks.RULE, field="days")
        if days > left:
            raise RuleViolation(clocks.RULE, f"{seat} has {left} of its {clock['control']['vacation_days']} "
                                             f"vacation days left, not {days}")
        if seat in clock["seats"] and (clock["timed_out"] or clocks.timed_out(clock, now)):
            raise RuleViolation(clocks.RULE, f"{seat}'s deadline {clock['deadline']} has passed: a vacation "
                                             "is announced before it")
        signature = self._check_command_signature(seat, signatures.VACATION, {"days": days}, signed)
        start = clocks.on_vacation_until(clock, [seat], now)
        until = start + timedelta(days=days)
        used = clock["vacations"].get(seat, {}).get("used", 0) + days
        self.trigger_event(ev.VacationTaken, seat=seat, days=days, start=clocks.stamp(start),
                           until=clocks.stamp(until), used=used, rule=clocks.RULE, command_id=command_id)
        self._record_command_signature(seat, signatures.VACATION, signature)
        if seat in clock["seats"] and clock["deadline"] is not None:
            later = clocks.parse(clock["deadline"]) + timedelta(days=days)
            self.trigger_event(ev.DeadlineExtended, seats=clock["seats"], deadline=clocks.stamp(later),
                               reason=f"{seat} is on vacation for {days} day{'s' if days > 1 else ''}",
                               rule=clocks.RULE)
        return None

    def grant_extension(self, seat: str, days: Any, now: datetime, signed: Signed | None = None,
                        command_id: str | None = None) -> tuple[int, int] | None:
        """TC 5: ``seat``, not to move, gives the seats to move ``days`` more days, from their
        deadline or, once it has passed, from now (which lifts the flag). Sent again with the same
        ``command_id``: nothing recorded, its first (first, last) seqs."""
        seen = self._time_command_seen(seat, signatures.EXTENSION, {"days": days}, signed, command_id)
        if seen is not None:
            return seen
        clock = self._check_time_seat(seat)
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= clocks.MAX_DAYS:
            raise InvalidOrder(f"an extension is a whole number of days from 1 to {clocks.MAX_DAYS}",
                               rule=clocks.RULE, field="days")
        if clock["deadline"] is None:
            raise RuleViolation(clocks.RULE, "no deadline is running")
        if seat in clock["seats"]:
            raise RuleViolation(clocks.RULE, f"{seat} is to move itself: another seat gives it more time")
        try:  # extensions add up without a bound: some 48,700 of 60 days reach the last day there is
            later = max(clocks.parse(clock["deadline"]), now) + timedelta(days=days)
        except OverflowError:
            raise RuleViolation(clocks.RULE, f"{days} more day{'s' if days > 1 else ''} would take the deadline "
                                             f"({clock['deadline']}) past the year 9999") from None
        signature = self._check_command_signature(seat, signatures.EXTENSION, {"days": days}, signed)
        self.trigger_event(ev.ExtensionGranted, seat=seat, days=days, rule=clocks.RULE, command_id=command_id)
        self._record_command_signature(seat, signatures.EXTENSION, signature)
        self.trigger_event(ev.DeadlineExtended, seats=clock["seats"], deadline=clocks.stamp(later),
                           reason=f"{seat} gave {days} more day{'s' if days > 1 else ''}", rule=clocks.RULE)
        return None

    def claim_win(self, seat: str, now: datetime, seed_for: SeedFor, signed: Signed | None = None) -> None:
        """TC 4: ``seat`` claims the win because the seats to move let their deadline pass (with
        on_timeout "claim", or "pass" when no pass was possible). Refused before the deadline."""
        clock = self._check_time_seat(seat)
        if seat in clock["seats"]:
            raise RuleViolation(clocks.RULE, f"{seat} is to move itself: only another seat may claim the win")
        if clock["deadline"] is None:
            raise RuleViolation(clocks.RULE, "no deadline is running")
        if not clock["timed_out"] and not clocks.timed_out(clock, now):
            raise RuleViolation(clocks.RULE, f"{', '.join(clock['seats'])} ha{'s' if len(clock['seats']) == 1 else 've'}"
                                             f" until {clock['deadline']}: the win is claimed only after it")
        signature = self._check_command_signature(seat, signatures.CLAIM_WIN, {}, signed)
        self._time_out(now, seed_for)
        if not self.clock["timed_out"]:
            # on_timeout "pass" and the rules accept the late seat's pass now: the server gives it
            # (its sweep records it), so there is nothing to claim. This refusal records nothing.
            raise RuleViolation(clocks.RULE, "on_timeout is 'pass': the server gives the late seat's pass, at "
                                             "its next sweep of the clock, and the game goes on; no win is claimed")
        late, deadline = list(self.clock["seats"]), self.clock["deadline"]
        self.trigger_event(ev.WinClaimed, seat=seat, against=late, deadline=deadline, rule=clocks.RULE)
        self._record_command_signature(seat, signatures.CLAIM_WIN, signature)
        self.trigger_event(ev.GameEnded, winner=seat, level="timeout",
                           reason=f"{', '.join(late)} let the deadline {deadline} pass; {seat} claimed the win",
                           rule=clocks.RULE)
        self._close_epoch(seed_for, reopen=False)

    # ------------------------------------------------------------------------------ umpire --
    def propose_umpire(self, name: str, proposed_by: str) -> None:
        """Propose an umpire; appointed only once every seat has accepted (``answer_umpire``)."""
        name = _umpire_name(name, lambda message: InvalidOrder(message, rule=UMPIRE_RULE, field="umpire"))
        if self.umpire is not None:
            raise RuleViolation(UMPIRE_RULE, f"{self.umpire['name']} is the umpire already; revoke the role first")
        if self.umpire_proposal is not None:
            raise RuleViolation(UMPIRE_RULE, f"the proposal of {self.umpire_proposal['umpire']} as umpire is "
                                             "waiting for the seats' answers")
        self.trigger_event(ev.UmpireProposed, umpire=name, proposed_by=proposed_by)

    def answer_umpire(self, seat: str, accept: bool, signed: Signed | None = None) -> None:
        """A seat accepts or declines the waiting proposal; the last acceptance appoints. With no
        proposal waiting, a seat that declines withdraws its agreement: the umpire's role ends."""
        self._check_seat(seat)
        if seat == SYSTEM:
            raise RuleViolation("seats", "the system seat has no say in the umpire")
        if not self.seats[seat]["handle"]:
            raise RuleViolation("seats", f"seat {seat!r} has not joined; it answers once it has")
        proposal = self.umpire_proposal
        answer = {"accept": bool(accept)}
        if proposal is None:
            if self.umpire is None:
                raise RuleViolation(UMPIRE_RULE, "no umpire proposal is waiting for an answer")
            if accept:
                raise RuleViolation(UMPIRE_RULE, f"{self.umpire['name']} is the umpire already; nothing waits "
                                                 "for an answer")
            signature = self._check_command_signature(seat, signatures.UMPIRE_ANSWER, answer, signed)
            self.revoke_umpire(seat, "the seat withdrew its agreement")
            self._record_command_signature(seat, signatures.UMPIRE_ANSWER, signature)
            return
        if accept and seat in proposal["accepted"]:
            raise RuleViolation(UMPIRE_RULE, f"{seat} has accepted {proposal['umpire']} already")
        signature = self._check_command_signature(seat, signatures.UMPIRE_ANSWER, answer, signed)
        if not accept:
            self.trigger_event(ev.UmpireDeclined, seat=seat, umpire=proposal["umpire"])
            self._record_command_signature(seat, signatures.UMPIRE_ANSWER, signature)
            return
        self.trigger_event(ev.UmpireAccepted, seat=seat, umpire=proposal["umpire"])
        self._record_command_signature(seat, signatures.UMPIRE_ANSWER, signature)
        if set(self.human_seats()) <= set(self.umpire_proposal["accepted"]):
            self.trigger_event(ev.UmpireAppointed, umpire=proposal["umpire"], agreement=APPOINTED_BY_EVERY_SEAT,
                               seats=self.human_seats())

    def revoke_umpire(self, by: str, reason: str = "") -> None:
        """End the umpire's role (its tokens stop working: the API revokes them)."""
        if self.umpire is None:
            raise RuleViolation(UMPIRE_RULE, "no umpire is appointed")
        self.trigger_event(ev.UmpireRevoked, umpire=self.umpire["name"], by=by, reason=str(reason or ""))

    # ------------------------------------------------------------------------------ helpers --
    def _check_seat(self, seat: str) -> None:
        if seat not in self.seats:
            raise UnknownSeat(f"this game has no seat {seat!r}; its seats are {', '.join(self.seats)}")

    def _check_may_act(self, seat: str) -> None:
        rules = self.rules
        self._check_seat(seat)
        if self.is_ended:
            raise RuleViolation(rules.end_rule, "the game has ended")
        if not self.started:
            waiting = [s for s in self.human_seats() if not self.seats[s]["handle"]]
            raise RuleViolation("seats", f"the game starts when every seat has joined; waiting for {', '.join(waiting)}")
        if self.take_back is not None:
            raise RuleViolation(self._take_back_rule(), "a take-back request is waiting for an answer")
        actors = rules.actors(self.state)
        if seat not in actors:
            pending = self.state.get("pending") or []
            if pending:
                d = pending[0]
                raise NotYourMove(d.get("rule") or rules.sequence_rule,
                                  f"the game waits for {d['seat']} to decide: {d.get('prompt', d.get('kind'))}")
            raise NotYourMove(rules.sequence_rule, f"it is not {seat}'s move; waiting for {', '.join(actors) or 'nobody'}")

    def _take_back_rule(self) -> str:
        rule = self.rules.take_back_rule
        if rule is None:
            raise RuleViolation(self.rules.prefix or self.ruleset, "this game allows no take-backs")
        return rule

    def _check_outcomes(self, outcomes: list, roller: Roller) -> None:
        """Before anything is triggered: every roll made is emitted once, in the order made, and
        each lands in the epoch open at that point of the order."""
        emitted = [o for o in outcomes if isinstance(o, Roll)]
        if emitted != roller.rolls:
            raise RulesetBug(f"ruleset {self.ruleset} made {len(roller.rolls)} rolls but emitted "
                             f"{len(emitted)}: every roll must be recorded, in the order made")
        epoch, is_open = self.dice["epoch"], self.dice["commitment"] is not None
        for outcome in outcomes:
            if isinstance(outcome, Roll):
                if not is_open or outcome.epoch != epoch:
                    raise RulesetBug(f"ruleset {self.ruleset} rolled in epoch {outcome.epoch} where "
                                     f"{f'epoch {epoch} is open' if is_open else 'no epoch is open'}: "
                                     "call dice.close_epoch() right after a TurnAdvanced outcome, "
                                     "and never roll after GameEnded")
            elif issubclass(outcome[0], _CLOSES_EPOCH):
                epoch += 1
                is_open = not issubclass(outcome[0], ev.GameEnded)

    def _record(self, outcomes: list, seed_for: SeedFor) -> None:
        """Trigger an order's outcomes in order, closing and opening dice epochs between them."""
        for outcome in outcomes:
            if isinstance(outcome, Roll):
                self.trigger_event(ev.SealedDiceRolled if outcome.sealed else ev.DiceRolled, **outcome.fields())
                continue
            event_class, fields = outcome
            self.trigger_event(event_class, **fields)
            if issubclass(event_class, _CLOSES_EPOCH):
                self._close_epoch(seed_for, reopen=not issubclass(event_class, ev.GameEnded))

    def _open_epoch(self, seed_for: SeedFor) -> None:
        """DiceEpochOpened of the next epoch. Format 1: committed now, its client entropy the
        seats' client seeds. Format 2: the commitment recorded one epoch ahead, the client
        entropy the orders accepted since the last epoch opened and the client seeds, and at once
        the commitment to the epoch after it (docs/dice.md, scheme 2)."""
        epoch, seed = self.dice["epoch"], seed_for(self.dice["epoch"])
        if self.format < 2:
            self.trigger_event(ev.DiceEpochOpened, epoch=epoch, commitment=dice.commitment(seed),
                               client_entropy=dice.client_entropy(self.client_seeds()))
            return
        committed = self.open_committed or {}
        if committed.get("epoch") != epoch or dice.commitment(seed) != committed.get("commitment"):
            raise IntegrityFailure(f"this server does not hold the seed committed for dice epoch {epoch} "
                                   "(an imported game can be read and verified, not continued)")
        self.trigger_event(ev.DiceEpochOpened, epoch=epoch, commitment=committed["commitment"],
                           client_entropy=dice.client_entropy_v2(self.epoch_orders, self.client_seeds()))
        self._commit_open(seed_for, epoch + 1)

    def _commit_open(self, seed_for: SeedFor, epoch: int) -> None:
        """Format 2: commit to the seed of open-stream ``epoch`` before any input mixed with it
        exists (its seed is stored, in its own table, before this event is saved)."""
        self.trigger_event(ev.DiceCommitted, stream="open", epoch=epoch,
                           commitment=dice.commitment(seed_for(epoch)))

    def _close_epoch(self, seed_for: SeedFor, *, reopen: bool) -> None:
        if self.dice["commitment"] is not None:
            epoch = self.dice["epoch"]
            seed = seed_for(epoch)
            if dice.commitment(seed) != self.dice["commitment"]:
                raise IntegrityFailure(f"the seed held for dice epoch {epoch} does not match its commitment")
            self.trigger_event(ev.DiceEpochRevealed, epoch=epoch, seed=seed.hex())
        if reopen:
            self._open_epoch(seed_for)
        else:
            self._reveal_sealed_dice(seed_for)  # the game ended: after the open stream's last reveal

    # ------------------------------------------------------------------ the sealed dice stream --
    def _commit_sealed_dice(self, seed_for: SeedFor) -> None:
        """The sealed stream's commitment H(S*), in the command that creates the game (format 2)."""
        if self.format >= 2:
            self.trigger_event(ev.DiceCommitted, stream="sealed", epoch=0,
                               commitment=dice.commitment(seed_for(SEALED_SEED)))

    def _reveal_sealed_dice(self, seed_for: SeedFor) -> None:
        """S*, once the game has ended: every sealed face can then be checked by anyone."""
        stream = self.sealed_dice
        if stream is None or stream["revealed"]:
            return
        seed = seed_for(SEALED_SEED)
        if dice.commitment(seed) != stream["commitment"]:
            raise IntegrityFailure("the seed held for the sealed dice does not match its commitment")
        self.trigger_event(ev.SealedDiceRevealed, seed=seed.hex())

    # ------------------------------------------------------------------------ the fold ----
    def evolve_with(self, event: Any) -> None:
        """Apply one event: the aggregate's own bookkeeping, then the ruleset's fold."""
        handler = getattr(self, "_on_" + type(event).__name__, None)
        if handler is not None:
            handler(event)
        if self.clock is not None or isinstance(event, ev.TimeControlSet):
            self.clock = clocks.apply(self.clock, type(event).__name__, ev.event_data(event), event.originator_version)
        if isinstance(event, ev.COMMAND_EVENTS):
            self.current_order = None
        elif self.current_order is not None and not isinstance(event, ev.OrderAccepted):
            self.orders[self.current_order]["last"] = event.originator_version
            if self.last_order is not None:
                self.last_order["last"] = event.originator_version
                if isinstance(event, (ev.DiceRolled, ev.SealedDiceRolled)):
                    self.last_order["rolls"].append(event.originator_version)
        self.state = self.rules.evolve(self.state, event)
        self.chain_head = event.hash

    def _on_GameCreated(self, e: ev.GameCreated) -> None:
        self.format = e.format
        self.ruleset = e.ruleset
        self.scenario = e.scenario
        self.options = e.options
        self.seats = {s: {"handle": "" if s != SYSTEM else SYSTEM, "client_seed": ""} for s in e.seats}
        self.state = None
        self.dice = {"epoch": 0, "commitment": None, "entropy": "", "nonce": 0}
        self.orders = {}
        self.current_order = None
        self.last_order = None
        self.take_back = None
        self.ended = None
        self.chain_head = chain.GENESIS
        self.command_signatures = []

    def _on_PositionSet(self, e: ev.PositionSet) -> None:
        self.position = {"position": e.position, "title": e.title}

    def _on_SandboxForked(self, e: ev.SandboxForked) -> None:
        self.sandbox = {"source": e.source, "at": e.at, "at_hash": e.at_hash, "by": e.by}

    def _on_SeatJoined(self, e: ev.SeatJoined) -> None:
        self.seats[e.seat] = {"handle": e.handle, "client_seed": e.client_seed}

    def _on_SeatKeyRegistered(self, e: ev.SeatKeyRegistered) -> None:
        self.seat_keys = {**(self.seat_keys or {}), e.seat: e.public_key}

    def _on_ClientSeedChanged(self, e: ev.ClientSeedChanged) -> None:
        self.seats[e.seat] = {**self.seats[e.seat], "client_seed": e.client_seed}

    def _on_OrderAccepted(self, e: ev.OrderAccepted) -> None:
        self.orders[e.order_id] = {"digest": e.digest, "salt": e.salt, "seat": e.seat,
                                   "first": e.originator_version, "last": e.originator_version}
        if self.format >= 2:
            self.epoch_orders = [*self.epoch_orders, e.order_id]
            self.roll_input = e.order_id
        self.current_order = e.order_id
        self.last_order = {"order_id": e.order_id, "seat": e.seat, "first": e.originator_version,
                           "last": e.originator_version, "rolls": [],
                           # By reference: evolve never changes a state it is given (rulesets/core.py).
                           "state_before": self.state}

    def _on_DiceEpochOpened(self, e: ev.DiceEpochOpened) -> None:
        self.dice = {"epoch": e.epoch, "commitment": e.commitment, "entropy": e.client_entropy, "nonce": 0}
        if self.format >= 2:
            self.epoch_orders = []

    def _on_DiceCommitted(self, e: ev.DiceCommitted) -> None:
        if e.stream == "open":
            self.open_committed = {"epoch": e.epoch, "commitment": e.commitment}
        elif e.stream == "sealed":
            self.sealed_dice = {"commitment": e.commitment, "nonce": 0, "revealed": False}

    def _on_DiceRolled(self, e: ev.DiceRolled) -> None:
        self.dice = {**self.dice, "nonce": self.dice["nonce"] + len(e.dice)}

    def _on_DiceEpochRevealed(self, e: ev.DiceEpochRevealed) -> None:
        self.dice = {"epoch": e.epoch + 1, "commitment": None, "entropy": "", "nonce": 0}

    def _on_SealedDiceRolled(self, e: ev.SealedDiceRolled) -> None:
        # A copy whose dice are concealed (a seat's export, imported) cannot be rolled on anyway.
        taken = len(e.dice) if isinstance(e.dice, list) else 0
        self.sealed_dice = {**self.sealed_dice, "nonce": self.sealed_dice["nonce"] + taken}
        salts = e.concealed or {}
        if salts and all(salts.values()):  # every field opened here (not a seat's copy): it can be shown later
            fields = {name: {"value": json_copy(getattr(e, name)), "salt": salt} for name, salt in salts.items()}
            self.sealed_rolls = {**(self.sealed_rolls or {}),
                                 str(e.originator_version): {"seat": e.seat, "fields": fields, "shown": False}}

    def _on_SealedRollShown(self, e: ev.SealedRollShown) -> None:
        key = str(e.roll)
        if key in (self.sealed_rolls or {}):
            self.sealed_rolls = {**self.sealed_rolls, key: {**self.sealed_rolls[key], "shown": True}}

    def _on_SealedDiceRevealed(self, e: ev.SealedDiceRevealed) -> None:
        self.sealed_dice = {**self.sealed_dice, "revealed": True}

    def _on_TakeBackRequested(self, e: ev.TakeBackRequested) -> None:
        self.take_back = {"seat": e.seat, "order_id": e.order_id}

    def _on_TakeBackAccepted(self, e: ev.TakeBackAccepted) -> None:
        self.take_back = None
        self.last_order = None

    def _on_TakeBackDeclined(self, e: ev.TakeBackDeclined) -> None:
        self.take_back = None

    def _on_UmpireProposed(self, e: ev.UmpireProposed) -> None:
        self.umpire_proposal = {"umpire": e.umpire, "accepted": []}

    def _on_UmpireAccepted(self, e: ev.UmpireAccepted) -> None:
        self.umpire_proposal = {**self.umpire_proposal, "accepted": [*self.umpire_proposal["accepted"], e.seat]}

    def _on_UmpireDeclined(self, e: ev.UmpireDeclined) -> None:
        self.umpire_proposal = None

    def _on_UmpireAppointed(self, e: ev.UmpireAppointed) -> None:
        self.umpire = {"name": e.umpire, "appointed": e.originator_version}
        self.umpire_proposal = None

    def _on_UmpireRevoked(self, e: ev.UmpireRevoked) -> None:
        self.umpire = None

    def _on_StandingOrderSet(self, e: ev.StandingOrderSet) -> None:
        entry = {"decision_kind": e.decision_kind, "policy": e.policy, "rule": e.rule, "set": e.originator_version}
        self.standing_orders = {**self._standing(), e.seat: {**self._standing().get(e.seat, {}),
                                                                 e.policy_id: entry}}

    def _on_AnnotationAdded(self, e: ev.AnnotationAdded) -> None:
        digest = chain.digest({"author": e.author, "role": e.role, "about_seq": e.about_seq, "text": e.text,
                               "private": e.private})
        seq = e.originator_version
        self.annotations = {**(self.annotations or {}), e.annotation_id: {"seq": seq, "last": seq,
                                                                          "about_seq": e.about_seq, "digest": digest}}
        self.annotation_lines = (*self.annotation_lines, seq)

    def _on_VacationTaken(self, e: ev.VacationTaken) -> None:
        self._keep_time_command(e.command_id, e.seat, signatures.VACATION, {"days": e.days}, e.originator_version)

    def _on_ExtensionGranted(self, e: ev.ExtensionGranted) -> None:
        self._keep_time_command(e.command_id, e.seat, signatures.EXTENSION, {"days": e.days}, e.originator_version)

    def _keep_time_command(self, command_id: str | None, seat: str, kind: str, fields: dict, seq: int) -> None:
        if command_id is not None:
            entry = {"digest": _time_command_digest(seat, kind, fields), "seq": seq, "last": seq}
            self.time_commands = {**(self.time_commands or {}), command_id: entry}

    def _extend_time_command(self, seq: int) -> None:
        """A line a vacation or extension records right after its own (its signature, the
        DeadlineExtended) is part of its result."""
        self.time_commands = {k: ({**v, "last": seq} if v["last"] == seq - 1 else v)
                              for k, v in (self.time_commands or {}).items()} or None

    def _on_DeadlineExtended(self, e: ev.DeadlineExtended) -> None:
        self._extend_time_command(e.originator_version)  # only a vacation or an extension records one

    def _on_CommandSigned(self, e: ev.CommandSigned) -> None:
        if e.kind in (signatures.VACATION, signatures.EXTENSION):
            self._extend_time_command(e.originator_version)
        if e.kind not in signatures.ANNOTATIONS:
            self.command_signatures = [*self.command_signatures, e.signature]
        else:  # the line after its annotation's
            seq = e.originator_version
            self.annotations = {k: ({**v, "last": seq} if v["seq"] == seq - 1 else v)
                                for k, v in (self.annotations or {}).items()}
            self.annotation_lines = (*self.annotation_lines, seq)

    def _on_StandingOrderCancelled(self, e: ev.StandingOrderCancelled) -> None:
        mine = {k: v for k, v in self._standing().get(e.seat, {}).items() if k != e.policy_id}
        self.standing_orders = {**self._standing(), e.seat: mine}

    def _on_SealedRoundOpened(self, e: ev.SealedRoundOpened) -> None:
        self.sealed = {"round": e.round, "rule": e.rule, "seats": list(e.seats), "commitments": {}, "revealed": {}}
        self.sealed_rounds = e.round

    def _on_OrderSealed(self, e: ev.OrderSealed) -> None:
        held = {**self.sealed["commitments"], e.seat: {"commitment": e.commitment, "seq": e.originator_version}}
        self.sealed = {**self.sealed, "commitments": held}
        if self.format >= 2:  # the seat's input to the next client entropy (its orders' ids are the server's)
            self.epoch_orders = [*self.epoch_orders, e.commitment]

    def _on_OrderRevealed(self, e: ev.OrderRevealed) -> None:
        shown = {**self.sealed["revealed"], e.seat: {"orders": e.orders, "salt": e.salt, "seq": e.originator_version}}
        self.sealed = {**self.sealed, "revealed": shown}

    def _on_SealedOrdersCarriedOut(self, e: ev.SealedOrdersCarriedOut) -> None:
        self.closed_reveals = {seat: {**shown, "round": self.sealed["round"]}
                               for seat, shown in self.sealed["revealed"].items()}
        self.sealed = None

    def _on_GameEnded(self, e: ev.GameEnded) -> None:
        self.sealed = None
        self.ended = {"winner": e.winner, "level": e.level, "reason": e.reason, "rule": e.rule}
