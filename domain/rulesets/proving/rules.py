"""The proving ground's rules (PG), numbered like a game's so that errors name them.

PG 1  Sides: Red and Blue, one seat each; either seat may give any order at any time, except
      where a rule below says otherwise.
PG 2-7  One mechanism of the toolkit each; see the module that registers the order kind.
"""

from __future__ import annotations

from typing import Any, Callable

from domain.errors import InvalidOrder, InvalidSetup
from domain.rulesets import Ruleset, Setup, core

SIDES = ["Red", "Blue"]
PHASES = ["Play"]

# kind -> (handler(state, seat, order, dice) -> [outcome], template(state, seat) -> dict | None)
KINDS: dict[str, tuple[Callable[..., list], Callable[[dict, str], dict | None]]] = {}


def kind(name: str, template: Callable[[dict, str], dict | None]):
    """Register the handler of order kind ``name`` and the template ``legal_orders`` offers."""
    def register(fn):
        if name in KINDS:
            raise ValueError(f"proving: order kind {name!r} is registered twice")
        KINDS[name] = (fn, template)
        return fn
    return register


class Proving(Ruleset):
    name = "proving"
    title = "Proving ground: the rules toolkit's mechanisms (a test ruleset, not a wargame)"
    prefix = "PG"
    sequence_rule = "PG 1"
    take_back_rule = None
    end_rule = "PG 1"

    def setup(self, scenario: str | None, options: dict) -> Setup:
        if options:
            raise InvalidSetup(f"the proving ground takes no options, not {', '.join(sorted(options))}")
        return Setup(seats=list(SIDES), state=core.base_state(SIDES, PHASES), scenario=scenario or "standard")

    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        if state.get("ended") or seat not in self.actors(state):
            return []
        return [t for _, template in KINDS.values() if (t := template(state, seat)) is not None]

    def order_kinds(self) -> list[dict]:
        """Each registered kind, its help the first line of its handler's docstring ("PG n: …")."""
        out = []
        for name, (fn, _) in KINDS.items():
            line = (fn.__doc__ or name).strip().splitlines()[0]
            rule, _, text = line.partition(": ")
            out.append({"kind": name, "rule": rule if text else self.prefix, "help": text or line, "fields": {}})
        return out

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        entry = KINDS.get(order.get("kind"))
        if entry is None:
            raise InvalidOrder(f"'kind' is one of {', '.join(sorted(KINDS)) or 'nothing yet'}",
                               rule=self.sequence_rule, field="kind")
        return entry[0](state, seat, order, dice)
