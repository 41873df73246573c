"""Every change to a game is one of these events: small, immutable, recording an outcome.

Each event carries ``prev_hash`` and ``hash``, the tamper-evident chain of docs/dice.md,
computed by the Game aggregate when the event is triggered. The event's *data* is every field
but the envelope (``originator_id``, ``originator_version``, ``timestamp``, ``originator_topic``)
and the two hashes; data holds JSON types only.

Rulesets may define their own events by subclassing ``GameEvent``; ``register`` makes the type
name known to ``warlog import``.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.domain import Aggregate

ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp", "originator_topic", "prev_hash", "hash"})

EVENT_TYPES: dict[str, type] = {}


def register(cls: type) -> type:
    """Make an event class findable by its type name (the ``type`` of an export line)."""
    name = cls.__name__
    if name in EVENT_TYPES and EVENT_TYPES[name] is not cls:
        raise TypeError(f"event type name {name!r} is already taken by {EVENT_TYPES[name]!r}")
    EVENT_TYPES[name] = cls
    return cls


def event_class(name: str) -> type | None:
    """The event class of a type name, loading the built-in rulesets (which define their own
    events) on first miss, so a reader that meets a ruleset's event before any game of it knows it."""
    if name not in EVENT_TYPES:
        from domain import rulesets

        rulesets.ruleset_names()
    return EVENT_TYPES.get(name)


def event_data(event: Any) -> dict:
    """The data of an event: its fields less the envelope and the chain hashes."""
    return {k: v for k, v in event.__dict__.items() if k not in ENVELOPE}


class GameEvent(Aggregate.Event):
    prev_hash: str
    hash: str

    def apply(self, aggregate: Any) -> None:
        aggregate.evolve_with(self)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        register(cls)


class GameCreated(Aggregate.Created):
    """A game of ``ruleset`` was set up; ``setup`` is the initial state, recorded so that later
    corrections of provisional data files never change how an existing game replays."""

    prev_hash: str
    hash: str
    ruleset: str
    scenario: str
    options: dict
    seats: list
    setup: dict

    def apply(self, aggregate: Any) -> None:
        aggregate.evolve_with(self)


register(GameCreated)


# Seats -----------------------------------------------------------------------------------------
class SeatJoined(GameEvent):
    seat: str
    handle: str
    client_seed: str


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


# Commands other than orders: each ends the run of the order before it, so neither they nor what
# they cause belong to an order (take-back ranges, history operations, superseded marks).
COMMAND_EVENTS = (SeatJoined, ClientSeedChanged, TakeBackRequested, TakeBackAccepted, TakeBackDeclined, Conceded,
                  UmpireProposed, UmpireAccepted, UmpireDeclined, UmpireRevoked)
COMMAND_TYPES = frozenset(cls.__name__ for cls in COMMAND_EVENTS)
