"""Rulesets: one package per game, pure functions over state plus data, found by name.

The contract (docs/rulesets.md says more):

- ``setup(scenario, options) -> Setup``: the seats and the initial state; raises InvalidSetup.
- ``actors(state) -> list[str]``: the seats that may act now (a pending decision's owner first).
- ``legal_orders(state, seat) -> list[dict]``: what ``seat`` may order now, as order templates.
- ``decide(state, seat, order, dice) -> list[outcome]``: check an order and say what happens;
  raises InvalidOrder or RuleViolation and never mutates ``state``. An outcome is a ``Roll`` made
  with ``dice`` or a pair ``(EventClass, fields)``. Dice are rolled before outcomes are recorded,
  so simultaneous fire is: roll every die, then emit the hits.
- ``evolve(state, event) -> state``: the fold; returns a new state and never mutates the old one.
- ``board() -> dict | None``: the game's static drawing data (maps, areas, unit labels), or None.
- ``names() -> dict``: {id: display name} of the pieces events name by id (readable lines).
- ``describe(event_type, data) -> str | None``: the ruleset's own readable line of an event (its
  ids already named), or None for the generic line of projections/narrate.py.
- ``order_kinds() -> list[dict]``: the kinds of order the game takes ({kind, rule, help, fields}),
  for clients (the CLI's help and legal lines) and ``GET /rulesets/<name>``.
- ``view(state, viewer) -> state`` and ``redact(event_type, data, viewer) -> data | None``:
  what a seat, an umpire (``"umpire"``) or a spectator (``None``) may see.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from domain.errors import UnknownRuleset
from domain.rulesets import core

SYSTEM = "system"
UMPIRE = "umpire"
RESERVED_SEATS = frozenset({SYSTEM, UMPIRE})

# Built-in rulesets, imported on first use (python-chess style: found by name).
BUILTIN = ("freeform", "falklands", "proving")

_REGISTRY: dict[str, "Ruleset"] = {}


@dataclass
class Setup:
    """What a ruleset makes of a scenario and options: the seats and the initial state."""

    seats: list[str]
    state: dict
    scenario: str = "standard"
    options: dict = field(default_factory=dict)


class Ruleset:
    """Defaults shared by every ruleset; a game's package overrides what its rules need."""

    name = ""
    title = ""
    prefix = ""
    sequence_rule = ""  # the rule that says whose move it is
    take_back_rule: str | None = None  # None: this game allows no take-backs
    end_rule = ""

    def setup(self, scenario: str | None, options: dict) -> Setup:
        raise NotImplementedError

    def human_seats(self, seats: list[str]) -> list[str]:
        return [s for s in seats if s != SYSTEM]

    def actors(self, state: dict) -> list[str]:
        return core.actors(state)

    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        raise NotImplementedError

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        raise NotImplementedError

    def evolve(self, state: dict | None, event: Any) -> dict:
        return core.evolve(state, event)

    def view(self, state: dict, viewer: str | None) -> dict:
        return state

    def redact(self, event_type: str, data: dict, viewer: str | None) -> dict | None:
        return data

    def board(self) -> dict | None:
        """What a page needs to draw this game: maps, areas with shapes, units' labels (docs/rulesets.md).
        None for a game without a map (freeform)."""
        return None

    def names(self) -> dict[str, str]:
        """{id: the game's own name} of the units, areas and other pieces its events name by id
        (``unit``, ``area``, …), for readable lines; empty for a game whose ids are the names."""
        return {}

    def describe(self, event_type: str, data: dict) -> str | None:
        """This game's own readable line of an event (``data`` with ids already replaced by names),
        or None to leave it to the generic lines (projections/narrate.py)."""
        return None

    def order_kinds(self) -> list[dict]:
        """The kinds of order this game takes: ``[{kind, rule, help, fields}]``, where ``fields``
        is ``{name: one-line description}``; ``head`` (optional) formats a legal order's first
        line from its template (e.g. "operation Op #{op}")."""
        return []

    def concession_winner(self, state: dict, seat: str) -> str | None:
        others = [s for s in state.get("sides", []) if s != seat]
        return others[0] if len(others) == 1 else None


def register(ruleset: Ruleset) -> Ruleset:
    _REGISTRY[ruleset.name] = ruleset
    return ruleset


def _load_builtins() -> None:
    for name in BUILTIN:
        if name not in _REGISTRY:
            importlib.import_module(f"domain.rulesets.{name}")


def find_ruleset(name: str) -> Ruleset:
    """The ruleset registered under ``name``; raises UnknownRuleset naming the known ones."""
    _load_builtins()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_REGISTRY))
        raise UnknownRuleset(f"unknown ruleset {name!r}; known rulesets: {known}") from None


def ruleset_names() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)
