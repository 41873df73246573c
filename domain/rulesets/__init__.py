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
- ``view(state, viewer) -> state``: the state a seat, an umpire (``"umpire"``) or a spectator
  (``None``) may see. For events, ``concealable(event_type, data) -> fields``: the fields of a new
  event some viewer may not see (a format-2 game conceals each: salted, its commitment hashed),
  and ``hidden_fields(event_type, data, viewer) -> fields``: those ``viewer`` may not see
  (domain/visibility.py applies both; toolkit/hidden.py makes them from a table).
- ``timeout_pass(state, seat) -> order | None`` with ``pass_rule``: the order the server gives for a
  seat that let its deadline pass, in a game whose time control passes (domain/clock.py); default
  none (no pass: a time control of the game lets the opponent claim the win instead).
- ``opening(state, dice) -> list[outcome]``: the rolls the server makes for the ``system`` seat
  as soon as dice epoch 0 opens (set-up by dice); default none.
- ``sealed_phase(state, options) -> {"rule", "seats"} | None``: whether a sealed-orders round
  opens now (each of ``seats`` commits to its orders, then reveals them; docs/dice.md, "Sealed
  orders"), and ``sealed_sequence(state, seats, revealed) -> [(seat, index)]``: the order the
  revealed orders are carried out in; defaults: none, and seat order.
- ``standing_policies() -> {decision_kind: Policy}``: the standing orders a seat may leave for
  decisions it may be asked while it is not to move; default none (``check_policy``,
  ``policy_answer`` and ``answer_order`` read it).
- ``positions()`` / ``position(name)``: the named positions kept in ``data/positions/*.json``
  beside the ruleset's code (domain/rulesets/positions.py), each checked by ``check_position``.
- ``coverage() -> dict``: its rules coverage manifest (``coverage.json`` in its package), and
  ``rule_text()`` / ``rule_numbers(text)``: the rule numbers of its text it must cover.
"""

from __future__ import annotations

import ast
import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from domain.errors import InvalidOrder, InvalidSetup, RuleViolation, UnknownRuleset
from domain.rulesets import core
from domain.rulesets import positions as positions_module

SYSTEM = "system"
UMPIRE = "umpire"
RESERVED_SEATS = frozenset({SYSTEM, UMPIRE})

# Built-in rulesets, imported on first use (python-chess style: found by name).
BUILTIN = ("freeform", "falklands", "proving", "stf")

_REGISTRY: dict[str, "Ruleset"] = {}


@dataclass
class Setup:
    """What a ruleset makes of a scenario and options: the seats and the initial state."""

    seats: list[str]
    state: dict
    scenario: str = "standard"
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Policy:
    """The standing orders a ruleset accepts for one decision kind (docs/rulesets.md, Standing orders).

    ``check(state, seat, policy) -> policy`` returns the policy as it is recorded, or raises
    InvalidOrder/RuleViolation naming ``rule``; ``answer(state, decision, policy) -> choice or
    None`` answers a pending decision by the policy, None meaning: ask the seat."""

    rule: str
    check: Callable[[dict, str, Any], Any]
    answer: Callable[[dict, dict, Any], Any]
    description: str = ""


class Ruleset:
    """Defaults shared by every ruleset; a game's package overrides what its rules need."""

    name = ""
    title = ""
    prefix = ""
    sequence_rule = ""  # the rule that says whose move it is
    take_back_rule: str | None = None  # None: this game allows no take-backs
    # The rule of the game's pass (a time control's on_timeout "pass", domain/clock.py TC 4); None:
    # the game defines no pass, and a time control of it can only let the opponent claim the win.
    pass_rule: str | None = None
    end_rule = ""
    concede_rule = ""  # the rule a concession ends the game under; "" : end_rule
    vp_note: str | None = None  # what the VP numbers mean, when the track's name does not say it
    # The game's own word for what one command records (the replay's step between event and phase):
    # a Falklands operation (FS 7.1), an STF action (STF 8.14); an order where the game names none.
    unit_of_play = "order"

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

    # Hidden information in events (docs/rulesets.md, "Hidden information"): none by default.
    def concealable(self, event_type: str, data: dict) -> tuple[str, ...]:
        """The top-level fields of a new event's ``data`` that some viewer may not see, now or
        later; in a format-2 game each gets a salt and the line hashes its commitment."""
        return ()

    def hidden_fields(self, event_type: str, data: dict, viewer: str | None) -> set[str]:
        """Which fields of a recorded event ``viewer`` (a seat, or None: a spectator) may not
        see: a subset of ``concealable``; all of them for an event it may not know of at all.
        Never asked for the umpire."""
        return set()

    def board(self) -> dict | None:
        """What a page needs to draw this game: maps, areas with shapes, units' labels (docs/rulesets.md).
        None for a game without a map (freeform)."""
        return None

    def names(self) -> dict[str, str]:
        """{id: the game's own name} of the units, areas and other pieces its events name by id
        (``unit``, ``area``, …), for readable lines; empty for a game whose ids are the names."""
        return {}

    def timeout_pass(self, state: dict, seat: str) -> dict | None:
        """The order the server gives for ``seat`` when it lets a deadline pass in a game whose
        time control passes (domain/clock.py TC 4), or None: no pass for it now. Only a ruleset
        with a ``pass_rule`` is asked."""
        return None

    def opening(self, state: dict, dice: Any) -> list:
        """Outcomes the server records as soon as dice epoch 0 opens (the last seat joined), before
        any order: the rolls a set-up by dice makes for ``system`` (docs/rulesets.md). Default none."""
        return []

    # Sealed orders (docs/dice.md, "Sealed orders"): none by default.
    def sealed_phase(self, state: dict, options: dict) -> dict | None:
        """``{"rule": rule, "seats": [seats]}`` when a sealed-orders round must open in ``state``
        (checked whenever no round is open: after the game starts, after each order and after
        each round is carried out); None (the default) for none."""
        return None

    def sealed_sequence(self, state: dict, seats: list[str], revealed: dict[str, list]) -> list[tuple[str, int]]:
        """The order the revealed orders of a round are carried out in, as ``(seat, index)`` pairs
        naming every order once; the default: the round's seats in their order, each seat's
        orders in the order it sealed them."""
        return [(seat, index) for seat in seats for index in range(len(revealed.get(seat, [])))]

    # Standing orders (docs/rulesets.md): a table of Policy by decision kind; none by default.
    def standing_policies(self) -> dict[str, Policy]:
        return {}

    def check_policy(self, state: dict, seat: str, decision_kind: str, policy: Any) -> Any:
        """``policy`` as recorded; refuses a kind that takes no standing orders, naming the kinds."""
        table = self.standing_policies()
        if not table:
            raise RuleViolation(self.prefix or self.name, "this game takes no standing orders")
        if decision_kind not in table:
            raise InvalidOrder(f"standing orders are taken for {', '.join(sorted(table))}, not {decision_kind!r}",
                               rule=self.prefix or self.name, field="decision_kind")
        return table[decision_kind].check(state, seat, policy)

    def standing_rule(self, decision_kind: str) -> str:
        found = self.standing_policies().get(decision_kind)
        return found.rule if found else (self.prefix or self.name)

    def policy_answer(self, state: dict, decision: dict, policy: Any) -> Any:
        """The choice ``policy`` makes for the pending ``decision``, or None: ask the seat."""
        found = self.standing_policies().get(decision.get("kind"))
        return found.answer(state, decision, policy) if found else None

    def answer_order(self, decision: dict, choice: Any) -> dict:
        """The order a seat gives to answer ``decision`` with ``choice``."""
        return {"kind": "decide", "decision": decision["id"], "choice": choice}

    def describe(self, event_type: str, data: dict) -> str | None:
        """This game's own readable line of an event (``data`` with ids already replaced by names),
        or None to leave it to the generic lines (projections/narrate.py)."""
        return None

    def order_kinds(self) -> list[dict]:
        """The kinds of order this game takes: ``[{kind, rule, help, fields}]``, where ``fields``
        is ``{name: one-line description}``; ``head`` (optional) formats a legal order's first
        line from its template (e.g. "operation Op #{op}")."""
        return []

    def restore(self, before: dict, now: dict) -> dict:
        """The state a take-back returns to, recorded in its TakeBackAccepted: ``before``, the state
        before the order taken back, as it was (``now``: the state the take-back leaves)."""
        return before

    def concession_winner(self, state: dict, seat: str) -> str | None:
        others = [s for s in state.get("sides", []) if s != seat]
        return others[0] if len(others) == 1 else None

    # ------------------------------------------------------------------ named positions --
    def positions(self) -> dict[str, positions_module.Position]:
        """The named positions of ``data/positions/`` beside the ruleset's code, read and checked
        once; a bad file raises PositionError naming the file."""
        found = self.__dict__.get("_positions")
        if found is None:
            where = self.package_dir() / "data" / "positions"
            found = self._positions = positions_module.load(where, self.check_position)
        return found

    def position(self, name: Any) -> positions_module.Position:
        """The named position ``name``; InvalidSetup naming the known ones otherwise."""
        found = self.positions().get(name) if isinstance(name, str) else None
        if found is None:
            known = ", ".join(sorted(self.positions())) or "none"
            raise InvalidSetup(f"ruleset {self.name} has no position {name!r}; its positions: {known}")
        return found

    def check_position(self, state: dict) -> None:
        """Raise ValueError when a named position's ``state`` is not one this ruleset can play on.
        The default: every key of the standard set-up's state is there with a value of the same
        JSON kind, the sides are the set-up's, and the game has not ended."""
        standard = self.setup(None, {}).state
        for key, value in standard.items():
            if key not in state:
                raise ValueError(f"the state lacks {key!r}")
            if value is not None and type(state[key]) is not type(value):
                raise ValueError(f"{key!r} is a {type(value).__name__} in this ruleset's states")
        if state["sides"] != standard["sides"]:
            raise ValueError(f"the sides are {standard['sides']}, not {state['sides']}")
        if state.get("ended"):
            raise ValueError("the game has ended in this state: a position is one to play on")
    # ---- rules coverage (domain/rulesets/toolkit/coverage.py) ----------------------------------
    text_file: str | None = None  # its rules text in the shared rules folder; None: its modules' docstrings

    def package_dir(self) -> Path:
        """The folder of its package (its coverage.json, its data/)."""
        return Path(sys.modules[type(self).__module__].__file__).parent

    def coverage(self) -> dict:
        """Its rules coverage manifest: every rule number of its text with its status (read-only)."""
        from domain.rulesets.toolkit import coverage

        return coverage.load(self.package_dir() / coverage.MANIFEST)

    def rule_text(self, rules_dir: Path | None = None) -> str | None:
        """The text its rule numbers come from: ``text_file`` in ``rules_dir`` (None when that is
        not at hand), or else the docstrings of its package's modules, where FF 1-7 and PG 1-7 are
        (a mechanism's module of the proving ground writes its rule in its own docstring)."""
        if self.text_file is None:
            docs = [ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or ""
                    for p in sorted(self.package_dir().glob("*.py"))]
            return "\n\n".join(docs)
        path = rules_dir / self.text_file if rules_dir else None
        return path.read_text(encoding="utf-8") if path and path.exists() else None

    def rule_numbers(self, text: str) -> list[str]:
        """The rule numbers of ``text`` its manifest must cover; by default lines ``PREFIX n``."""
        from domain.rulesets.toolkit import coverage

        return coverage.numbered_lines(text, self.prefix)


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
