"""The events that are Falklands Showdown's own (namespace "falklands"); the generic ones
(units entered, embarked, repaired, withdrawn, battles, effects...) are in domain/events.py.

Each records an outcome with the rule that caused it; the fold is in ``state.py``.
"""

from __future__ import annotations

from domain.events import ActionBegun, ActionCompleted


class OperationBegun(ActionBegun):
    """A side announced an operation (FS 7.1); ``op`` is its number, or "exocet" (FS 11.3 6-4)
    or "pass". ``free``: it costs no UK operation (FS 11.3 1-1, two for the price of one)."""

    RULESET = "falklands"

    op: object
    free: bool


class OperationCompleted(ActionCompleted):
    """An operation is over; ``uk_operations_left`` is the UK Operations Remaining track (FS 5.3)."""

    RULESET = "falklands"

    op: object
    uk_operations_left: int
