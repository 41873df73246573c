"""The events Falklands Showdown adds to the generic ones (domain/events.py).

Each records an outcome with the rule that caused it; the fold is in ``state.py``.
"""

from __future__ import annotations

from domain.events import GameEvent


class OperationBegun(GameEvent):
    """A side announced an operation (FS 7.1); ``op`` is its number, or "exocet" (FS 11.3 6-4)
    or "pass". ``free``: it costs no UK operation (FS 11.3 1-1, two for the price of one)."""

    side: str
    op: object
    title: str
    rule: str
    free: bool


class OperationCompleted(GameEvent):
    """An operation is over; ``uk_operations_left`` is the UK Operations Remaining track (FS 5.3)."""

    side: str
    op: object
    uk_operations_left: int
    rule: str


class UnitEntered(GameEvent):
    """A unit came into play: a reinforcement (FS 3.4, Op #6), an Op #2 unit, Peru's aircraft."""

    unit: str
    area: str | None
    aboard: str | None
    rule: str


class UnitEmbarked(GameEvent):
    unit: str
    ship: str
    origin: str | None
    rule: str


class UnitDisembarked(GameEvent):
    unit: str
    ship: str
    area: str
    rule: str


class UnitRepaired(GameEvent):
    """A Hit marker removed (Op #5 ships, Op #8 ground units)."""

    unit: str
    steps_left: int
    rule: str


class UnitWithdrawn(GameEvent):
    """A unit leaves play without being eliminated (the Conveyor, FS 10.9; the Super Etendard
    after five attacks, FS 10.5)."""

    unit: str
    reason: str
    rule: str


class BattleBegun(GameEvent):
    """A battle: who attacks whom where; its dice and hits follow (FS 10.2)."""

    area: str
    attacker: str
    kind: str
    rule: str
    attackers: list
    defenders: list


class EffectGained(GameEvent):
    """A lasting effect: a random event's (FS 11.3), Black Buck (Op #9), the TEZ expansion (Op #10)."""

    side: str
    effect: str
    title: str
    rule: str
    detail: dict


class EffectSpent(GameEvent):
    side: str
    effect: str
    rule: str
