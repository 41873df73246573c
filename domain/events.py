"""Every change to a game is one of these events: small, immutable, recording an outcome.

Each event carries ``prev_hash`` and ``hash``, the tamper-evident chain of docs/dice.md,
computed by the Game aggregate when the event is triggered. The event's *data* is every field
but the envelope (``originator_id``, ``originator_version``, ``timestamp``, ``originator_topic``)
and the two hashes; data holds JSON types only.

The events here are generic: every ruleset may emit them. A ruleset defines its own by
subclassing ``GameEvent`` (or a generic event) and setting ``RULESET`` to its name: its type
names then live in its own namespace, so two rulesets may both have a ``Foo``, but none may take
a generic name (docs/rulesets.md, "Events and namespaces"). The type name (the class name) is
what an export line's ``type`` holds and its hash covers: an event class is never renamed.
"""

from __future__ import annotations

import types
import typing
from typing import Any, ClassVar

from eventsourcing.domain import Aggregate
from eventsourcing.utils import register_topic

ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp", "originator_topic", "prev_hash", "hash"})

GENERIC = None  # the namespace of the generic events, shared by every ruleset

# (ruleset or GENERIC, type name) -> event class
EVENT_TYPES: dict[tuple[str | None, str], type] = {}


def register(cls: type) -> type:
    """Make an event class findable by its type name (the ``type`` of an export line) in its
    ruleset's namespace (``cls.RULESET``, None for a generic event)."""
    name, ruleset = cls.__name__, getattr(cls, "RULESET", GENERIC)
    generic = EVENT_TYPES.get((GENERIC, name))
    if ruleset is not GENERIC and generic is not None:
        raise TypeError(f"{ruleset}: event type name {name!r} is a generic event's ({generic!r}); "
                        "a ruleset's own event may not take it")
    taken = EVENT_TYPES.get((ruleset, name))
    if taken is not None and taken is not cls:
        raise TypeError(f"event type name {name!r} is already taken by {taken!r}")
    if ruleset is GENERIC:
        owners = sorted(r for r, n in EVENT_TYPES if n == name and r is not GENERIC)
        if owners:
            raise TypeError(f"generic event type name {name!r} is already a ruleset's ({', '.join(owners)})")
    EVENT_TYPES[(ruleset, name)] = cls
    return cls


def event_class(name: str, ruleset: str | None = None) -> type | None:
    """The event class of type ``name`` in a game of ``ruleset``: the ruleset's own first, then
    the generic one. Without a ruleset, a ruleset's event is found only when one ruleset alone
    has that name. Loads the built-in rulesets (which define their own events) on first miss,
    so a reader that meets a ruleset's event before any game of it knows it."""
    found = _lookup(name, ruleset)
    if found is None:
        from domain import rulesets

        rulesets.ruleset_names()
        found = _lookup(name, ruleset)
    return found


def _lookup(name: str, ruleset: str | None) -> type | None:
    found = EVENT_TYPES.get((ruleset, name)) or EVENT_TYPES.get((GENERIC, name))
    if found is None and ruleset is None:
        owned = [cls for (r, n), cls in EVENT_TYPES.items() if n == name]
        found = owned[0] if len(owned) == 1 else None
    return found


def register_moved(cls: type, *old_modules: str) -> type:
    """Keep the stored topics of an event class moved out of ``old_modules``
    (eventsourcing stores ``module:Class`` with every event), so stored games still load."""
    for module in old_modules:
        register_topic(f"{module}:{cls.__name__}", cls)
    return cls


_JSON_TYPES = {str: "text", int: "a whole number", float: "a number", bool: "true or false", dict: "an object",
               list: "a list", type(None): "null"}


def misfit_field(cls: type, data: dict) -> str | None:
    """The first field of ``data`` whose JSON type is not the one its event class declares
    (``handle`` a list where the class says text), named with what it should be; None when all
    fit. A line read from a file is checked so before it is stored: every reader of the log (the
    projections' tables, the summaries) takes a field's declared type for granted."""
    hints = typing.get_type_hints(cls)
    for name, value in data.items():
        allowed = _allowed_types(hints.get(name, Any))
        if allowed is None or type(value) in allowed or (float in allowed and type(value) is int):
            continue
        wanted = " or ".join(_JSON_TYPES[t] for t in allowed)
        return f"{name} is {_JSON_TYPES.get(type(value), type(value).__name__)}, not {wanted}"
    return None


def _allowed_types(hint: Any) -> tuple[type, ...] | None:
    """The JSON types a field of type ``hint`` may hold (``str | None``: text or null), or None
    for any (``Any``, ``object``, a type that is no JSON type)."""
    parts = typing.get_args(hint) if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union \
        else (hint,)
    allowed = tuple(typing.get_origin(part) or part for part in parts)
    return allowed if all(part in _JSON_TYPES for part in allowed) else None


def event_data(event: Any) -> dict:
    """The data of an event: its fields less the envelope and the chain hashes (and less an
    added field at its old value: ``added_fields``)."""
    return data_of(type(event), event.__dict__)


def data_of(cls: type, fields: dict) -> dict:
    """The data of an event of class ``cls`` with these fields: a field added to the class after
    events of it were stored (``ADDED_FIELDS``) is left out while it holds the value those events
    implicitly had, so they hash as they always did and new ones without it look the same."""
    added = getattr(cls, "ADDED_FIELDS", {})
    return {k: v for k, v in fields.items()
            if k not in ENVELOPE and not (k in added and v == added[k])}


def fields_from_data(cls: type, data: dict) -> dict:
    """The constructor's fields of an event of class ``cls`` read back from its line's ``data``:
    an added field absent from it (an older line) takes its old value."""
    return {**getattr(cls, "ADDED_FIELDS", {}), **data}


def added_fields(cls: type) -> type:
    """Give ``cls`` its added fields' old values as class attributes, which answer for an event
    loaded from a row stored before the field existed (such a row has no value for it)."""
    for name, old in cls.ADDED_FIELDS.items():
        setattr(cls, name, old)
    return cls


class GameEvent(Aggregate.Event):
    RULESET: ClassVar[str | None] = GENERIC  # a ruleset's own event sets its ruleset's name
    # field -> the value every event stored before the field was added implicitly had (data_of)
    ADDED_FIELDS: ClassVar[dict] = {"concealed": None}

    prev_hash: str
    hash: str
    # {field: salt} of the fields some viewer may not see, in a format-2 game; None (and left out
    # of the data) otherwise. Game.trigger_event always passes it.
    concealed: dict | None

    def apply(self, aggregate: Any) -> None:
        aggregate.evolve_with(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        register(cls)


added_fields(GameEvent)


class GameCreated(Aggregate.Created):
    """A game of ``ruleset`` was set up; ``setup`` is the initial state, recorded so that later
    corrections of provisional data files never change how an existing game replays."""

    ADDED_FIELDS: ClassVar[dict] = {"format": 1, "concealed": None}

    prev_hash: str
    hash: str
    ruleset: str
    scenario: str
    options: dict
    seats: list
    setup: dict
    # 2 for a game created since format 2 (docs/dice.md: RFC 8785 line hashes, dice scheme 2,
    # concealed fields); a stored GameCreated without it is format 1.
    format: int
    # As GameEvent.concealed: format 2's {field: salt}, here for a set-up holding hidden information.
    concealed: dict | None

    def apply(self, aggregate: Any) -> None:
        aggregate.evolve_with(self)


added_fields(GameCreated)
register(GameCreated)


# Where a game starts: right after GameCreated, when not the ruleset's standard set-up ------------
class PositionSet(GameEvent):
    """The game starts from the named position ``position`` of its ruleset (``title``); its state
    is GameCreated's ``setup``, and ``digest`` (chain.digest of it) lets anyone see whether the
    ruleset's data file still holds the same state."""

    position: str
    title: str
    digest: str


class SandboxForked(GameEvent):
    """This game is a sandbox: its set-up is the state of game ``source`` right after event
    ``at``, whose line hash is ``at_hash`` (check it against the source's export). Its dice are
    its own; it is left out of the games index and of statistics across games unless asked.
    ``by`` is what the forker could see: a seat of the source, ``umpire``, or ``spectator`` (an
    admin token or none)."""

    source: str
    at: int
    at_hash: str
    by: str


# Seats -----------------------------------------------------------------------------------------
class SeatJoined(GameEvent):
    seat: str
    handle: str
    client_seed: str


class SeatKeyRegistered(GameEvent):
    """The seat's Ed25519 public key (unpadded base64url of its 32 bytes), recorded right after its
    SeatJoined: from now on every order of the seat carries its signature (docs/dice.md)."""

    seat: str
    public_key: str


class ClientSeedChanged(GameEvent):
    """A seat's client seed; it enters the client entropy of the next epoch opened."""

    seat: str
    client_seed: str


# Orders ----------------------------------------------------------------------------------------
class OrderAccepted(GameEvent):
    """What the player asked for, as accepted; the events that follow are its outcome.

    ``salt`` is 128 random bits covered by ``digest`` and by the line's hash, so that an order
    hidden from some viewers (redacted with its salt) cannot be guessed from either."""

    order_id: str
    seat: str
    order: dict
    digest: str
    salt: str


class OrderSigned(GameEvent):
    """The signature of the OrderAccepted right before it, by its seat's registered key: Ed25519
    over the canonical JSON of ``{"game", "order_id", "order", "head"}`` (docs/dice.md), where
    ``head`` is the hash of a line of this log the seat saw before it gave the order."""

    order_id: str
    seat: str
    head: str
    signature: str


# Dice ------------------------------------------------------------------------------------------
class DiceEpochOpened(GameEvent):
    epoch: int
    commitment: str
    client_entropy: str


class DiceRolled(GameEvent):
    """One roll: ``dice`` is ``[{nonce, sides, value}, …]``; ``seat`` is who rolled (or "system");
    ``notation`` says how the dice are read ("2d6", or "d66": two ordered d6, tens and units)."""

    epoch: int
    dice: list
    notation: str
    seat: str
    purpose: str
    rule: str | None
    units: list
    target: dict | None
    outcome: str | None
    replaces: int | None


class DiceEpochRevealed(GameEvent):
    epoch: int
    seed: str


class DiceCommitted(GameEvent):
    """Format 2: the commitment (sha256 of the seed, hex) to the seed of ``epoch`` of ``stream``,
    recorded before any input mixed with that seed exists: the open stream's epoch N+1 right after
    epoch N opens (epoch 0 at creation), the sealed stream's one seed at creation."""

    stream: str  # "open" or "sealed"
    epoch: int
    commitment: str


class SealedDiceRolled(GameEvent):
    """A roll of the sealed stream (format 2): fields as DiceRolled's; its nonces are the sealed
    stream's own, its dice, target and outcome concealed until the sealed seed is revealed."""

    epoch: int
    dice: list
    notation: str
    seat: str
    purpose: str
    rule: str | None
    units: list
    target: dict | None
    outcome: str | None
    replaces: int | None


class SealedDiceRevealed(GameEvent):
    """The sealed stream's seed, hex, recorded when the game ends (format 2)."""

    seed: str


class SealedRollShown(GameEvent):
    """A sealed roll made public before the game ends, because the ruleset says so under ``rule``
    (freeform FF 9: its seat shows it). ``roll`` is the seq of its SealedDiceRolled, ``seat`` the
    seat that rolled it; ``fields`` opens each of that line's concealed fields ({name: {value,
    salt}}), so a copy that holds only their commitments can check the values (docs/dice.md,
    "Sealed rolls"). From here on every reader sees the roll in full."""

    roll: int
    seat: str
    rule: str | None
    fields: dict


class RandomEventDrawn(GameEvent):
    table: str
    result: str
    title: str
    rule: str | None
    roll: int | None


# The map ---------------------------------------------------------------------------------------
class UnitMoved(GameEvent):
    unit: str
    origin: str | None
    destination: str
    rule: str | None


class UnitHit(GameEvent):
    unit: str
    steps_lost: int
    steps_left: int
    rule: str | None
    roll: int | None


class UnitEliminated(GameEvent):
    unit: str
    rule: str | None
    roll: int | None


class ControlChanged(GameEvent):
    area: str
    side: str | None
    previous: str | None
    rule: str | None


# Units coming and going, battles, lasting effects ---------------------------------------------
# Moved here from domain/rulesets/falklands/events.py (issue 31); their old topics stay resolvable.
_FALKLANDS_EVENTS = "domain.rulesets.falklands.events"


class UnitEntered(GameEvent):
    """A unit came into play (a reinforcement, a unit raised by an event) in ``area`` or
    ``aboard`` a carrying unit."""

    unit: str
    area: str | None
    aboard: str | None
    rule: str


class UnitEmbarked(GameEvent):
    """A unit went aboard a ship (or any carrier) from ``origin``."""

    unit: str
    ship: str
    origin: str | None
    rule: str


class UnitDisembarked(GameEvent):
    """A unit left ``ship`` into ``area``."""

    unit: str
    ship: str
    area: str
    rule: str


class UnitRepaired(GameEvent):
    """A unit regained strength: it now has ``steps_left`` steps."""

    unit: str
    steps_left: int
    rule: str


class UnitWithdrawn(GameEvent):
    """A unit left play without being eliminated, for ``reason``."""

    unit: str
    reason: str
    rule: str


class BattleBegun(GameEvent):
    """A battle: ``attacker`` attacks in ``area`` with ``attackers`` against ``defenders``;
    ``kind`` says what sort (air, naval, ground, interception...). Its dice and hits follow."""

    area: str
    attacker: str
    kind: str
    rule: str
    attackers: list
    defenders: list


class EffectGained(GameEvent):
    """A lasting effect on ``side`` (an event's, a card's, an operation's), named ``effect``;
    ``detail`` is what the ruleset needs to remember of it."""

    side: str
    effect: str
    title: str
    rule: str
    detail: dict


class EffectSpent(GameEvent):
    """A lasting effect is over (used, or expired)."""

    side: str
    effect: str
    rule: str


for _moved in (UnitEntered, UnitEmbarked, UnitDisembarked, UnitRepaired, UnitWithdrawn, BattleBegun,
               EffectGained, EffectSpent):
    register_moved(_moved, _FALKLANDS_EVENTS)


# Actions: one side's unit of play (an operation, an activation, an impulse) ---------------------
class ActionBegun(GameEvent):
    """``side`` began an action; its outcomes follow until the ActionCompleted. A ruleset that
    names or counts its actions subclasses it in its namespace with the fields it needs
    (Falklands' OperationBegun adds ``op`` and ``free``)."""

    side: str
    title: str
    rule: str | None


class ActionCompleted(GameEvent):
    """``side``'s action is over (Falklands' OperationCompleted adds ``op`` and the UK track)."""

    side: str
    rule: str | None


# Score and sequence ----------------------------------------------------------------------------
class VPScored(GameEvent):
    side: str
    delta: int
    total: int
    reason: str
    rule: str | None


class PhaseAdvanced(GameEvent):
    turn: int
    phase: str
    rule: str | None


class TurnAdvanced(GameEvent):
    turn: int
    phase: str
    rule: str | None


class MarkerGained(GameEvent):
    side: str
    marker: str
    rule: str | None


class MarkerPlayed(GameEvent):
    side: str
    marker: str
    rule: str | None


# Pending decisions: interrupts and choices owned by one seat -----------------------------------
class DecisionPending(GameEvent):
    """The game waits for ``seat`` to answer; ``decision`` = {id, seat, kind, rule, prompt, options}."""

    decision: dict


class DecisionResolved(GameEvent):
    decision_id: str
    seat: str
    choice: Any


# Standing orders: what a seat leaves for decisions it may be asked while it is not to move ------
class StandingOrderSet(GameEvent):
    """``seat`` leaves ``policy`` (the ruleset's form, checked by it) to answer its decisions of
    ``decision_kind`` under ``rule``; a policy of the same id replaces the one before. Private to
    the seat and the umpire: ``salt`` (128 random bits, removed with the policy when redacted) keeps
    a short policy from being guessed from the line's hash."""

    seat: str
    policy_id: str
    decision_kind: str
    policy: Any
    rule: str
    salt: str


class StandingOrderCancelled(GameEvent):
    seat: str
    policy_id: str
    decision_kind: str
    rule: str


class StandingOrderUsed(GameEvent):
    """A standing order answered decision ``decision_id`` for ``seat``: ``order`` (a decide order
    with ``choice``) was carried out as if the seat had given it, inside the order that raised the
    decision; the events after this one are its outcome."""

    seat: str
    decision_id: str
    decision_kind: str
    policy_id: str
    choice: Any
    order: dict
    rule: str


# Declared results: a value the texts do not give, supplied by a seat (docs/rulesets.md) -----------
class ResultDeclared(GameEvent):
    """``seat`` declared ``value`` for ``what``, standing for ``stands_for`` (the chart or rule book
    the texts lack); ``rule`` is the rule of the text that needed it; ``decision`` is the id of the
    pending "declare" decision it answers, or None when it came inside the order."""

    seat: str
    rule: str
    stands_for: str
    what: str
    value: Any
    decision: str | None


# Take-backs, concession, the end ---------------------------------------------------------------
class TakeBackRequested(GameEvent):
    seat: str
    order_id: str
    reason: str
    rule: str


class TakeBackAccepted(GameEvent):
    """Restores the state before ``order_id``; events ``superseded_from``…``superseded_to`` stay in
    the log, and their rolls (``superseded_rolls``, by seq) are marked superseded in the audit."""

    seat: str
    order_id: str
    superseded_from: int
    superseded_to: int
    superseded_rolls: list
    restored: dict
    rule: str


class TakeBackDeclined(GameEvent):
    seat: str
    order_id: str
    rule: str


class Conceded(GameEvent):
    seat: str


class GameEnded(GameEvent):
    winner: str | None
    level: str | None
    reason: str
    rule: str | None


# The umpire: a role the seats agree to (docs/api.md), so it is in the log every seat reads ----------
class UmpireProposed(GameEvent):
    """The admin proposes ``umpire`` (a name); appointed once every seat has accepted."""

    umpire: str
    proposed_by: str


class UmpireAccepted(GameEvent):
    seat: str
    umpire: str


class UmpireDeclined(GameEvent):
    """One seat said no: the proposal ends, nobody is appointed."""

    seat: str
    umpire: str


class UmpireAppointed(GameEvent):
    """``umpire`` may now read everything, hidden information included. ``agreement`` says how the
    seats agreed: "named at creation" (every seat joined knowing it) or "accepted by every seat"
    (``seats``, each of whom accepted in an UmpireAccepted before this)."""

    umpire: str
    agreement: str
    seats: list


class UmpireRevoked(GameEvent):
    """The umpire's role ends; every umpire token of the game stops working."""

    umpire: str
    by: str
    reason: str


# Sealed orders (docs/dice.md, "Sealed orders"): every seat of a round commits, then reveals ----
class SealedRoundOpened(GameEvent):
    """A sealed-orders round opens under ``rule``: each of ``seats`` commits to its orders, then
    reveals them; until the round is carried out, ordinary orders are refused."""

    round: int
    rule: str
    seats: list


class OrderSealed(GameEvent):
    """``seat`` committed to its orders of ``round``: ``commitment`` is SHA-256 of the orders and a
    client-chosen salt (domain/sealed.py); the server never sees the orders before the reveal."""

    seat: str
    round: int
    commitment: str


class OrderRevealed(GameEvent):
    """``seat`` revealed its orders of ``round`` and the salt; they hash to its commitment."""

    seat: str
    round: int
    orders: list
    salt: str


class SealedOrdersSigned(GameEvent):
    """The signature of the OrderSealed (``kind`` "seal") or OrderRevealed (``kind`` "reveal") right
    before it, by its seat's registered key (format 2): Ed25519 over the canonical JSON of the
    seal's or reveal's content, its kind, seat, round and ``head`` (docs/dice.md, "Signed orders
    and heads"). Not part of OrderSealed or OrderRevealed: those lines hash as they always did."""

    kind: str
    seat: str
    round: int
    head: str
    signature: str


class CommandSigned(GameEvent):
    """The signature of a keyed seat's other command (format 2), right after the command's line:
    ``kind`` names it (domain/signatures.py ``COMMAND_FIELDS``); Ed25519 over the canonical JSON of
    the game, kind, seat, the command's fields as recorded on that line and ``head`` (docs/dice.md,
    "Signed orders and heads")."""

    kind: str
    seat: str
    head: str
    signature: str


class SealedOrdersCarriedOut(GameEvent):
    """Every seat of ``round`` revealed: its orders are carried out in ``sequence`` (a list of
    ``{seat, index, order_id}``, the order ``rule`` says), each as an OrderAccepted and its
    outcome, or a SealedOrderRefused."""

    round: int
    rule: str
    sequence: list


class SealedOrderRefused(GameEvent):
    """A revealed order the rules refused when its turn came (the rest went on): ``rule`` and
    ``reason`` as an ordinary order's refusal would give them."""

    seat: str
    round: int
    index: int
    order_id: str
    order: dict
    rule: str | None
    reason: str


# Annotations: comments on the log, by a seat, the umpire or (after the end) a spectator ----------
class AnnotationAdded(GameEvent):
    """``author`` comments ``text`` on event ``about_seq`` (docs/api.md, "Annotations"). ``role`` is
    "seat" (then ``seat`` names it), "umpire" (its name) or "spectator" (the name its token was
    given). A ``private`` annotation's text is read by its seat and the umpire only. Not an order:
    it neither rolls nor enters the dice, and it is accepted after the game has ended."""

    annotation_id: str
    seat: str | None
    author: str
    role: str
    about_seq: int
    text: str
    private: bool


# Time control (domain/clock.py, TC 1-5): deadlines, reminders, vacations, extensions, timeouts, claims
class TimeControlSet(GameEvent):
    """The game's time control, recorded at creation right after GameCreated: the seats to move have
    ``days`` per ``per`` ("move" or "turn"), are reminded ``reminders`` hours before a deadline, may
    take ``vacation_days`` days of vacation each, and a deadline passed is met by ``on_timeout``
    ("claim": another seat may claim the win; "pass": the ruleset's pass is given)."""

    days: int
    per: str
    reminders: list
    vacation_days: int
    on_timeout: str
    rule: str


class DeadlineSet(GameEvent):
    """The clock starts for ``seats`` (those to move): they have until ``deadline`` (ISO 8601, UTC)."""

    seats: list
    deadline: str
    rule: str


class DeadlineExtended(GameEvent):
    """The deadline of ``seats`` moves on to ``deadline``, for ``reason`` (a vacation)."""

    seats: list
    deadline: str
    reason: str
    rule: str


class ExtensionGranted(GameEvent):
    """``seat``, not to move, gives the seats to move ``days`` more days (the DeadlineExtended follows).
    ``command_id``: the Idempotency-Key it was sent with, or None (and left out of the data)."""

    ADDED_FIELDS: ClassVar[dict] = {**GameEvent.ADDED_FIELDS, "command_id": None}

    seat: str
    days: int
    rule: str
    command_id: str | None


added_fields(ExtensionGranted)


class DeadlineReminder(GameEvent):
    """``seats`` are reminded: ``hours`` hours or less are left before ``deadline`` (the server's sweep)."""

    seats: list
    deadline: str
    hours: int
    rule: str


class VacationTaken(GameEvent):
    """``seat`` announced ``days`` days of vacation, from ``start`` to ``until``; it has used ``used``
    days of its allowance in all. ``command_id``: as ExtensionGranted's."""

    ADDED_FIELDS: ClassVar[dict] = {**GameEvent.ADDED_FIELDS, "command_id": None}

    seat: str
    days: int
    start: str
    until: str
    used: int
    rule: str
    command_id: str | None


added_fields(VacationTaken)


class TimedOut(GameEvent):
    """``seats`` let ``deadline`` pass without acting; ``on_timeout`` says what follows."""

    seats: list
    deadline: str
    on_timeout: str
    rule: str


class WinClaimed(GameEvent):
    """``seat`` claims the win because ``against`` ran out of time (deadline ``deadline``); the
    GameEnded follows."""

    seat: str
    against: list
    deadline: str
    rule: str


# Commands other than orders: each ends the run of the order before it, so neither they nor what
# they cause belong to an order (take-back ranges, history operations, superseded marks).
COMMAND_EVENTS = (SeatJoined, SeatKeyRegistered, ClientSeedChanged, TakeBackRequested, TakeBackAccepted, TakeBackDeclined, Conceded,
                  UmpireProposed, UmpireAccepted, UmpireDeclined, UmpireRevoked,
                  StandingOrderSet, StandingOrderCancelled, AnnotationAdded,
                  SealedRoundOpened, OrderSealed, OrderRevealed, SealedOrdersCarriedOut, SealedOrderRefused,
                  DeadlineSet, DeadlineReminder, VacationTaken, ExtensionGranted, TimedOut, WinClaimed)
COMMAND_TYPES = frozenset(cls.__name__ for cls in COMMAND_EVENTS)
