"""Declared results: a value the rules texts do not give (a chart printed on a map we lack, a
rule book a text amends), supplied by a seat and recorded as ``ResultDeclared`` (docs/rulesets.md,
"Declared results").

A ruleset describes each value a seat may declare in its data (``load_declarable(entry)``)::

    {"what": "search value", "rule": "PG 3", "stands_for": "Task Force (Victory Games): search values",
     "type": "integer", "min": 1, "max": 10}

(``"type": "choice"`` with ``"choices": [...]`` for a value read off a list). The seat gives the
value inside its order (``declare(spec, seat, value)``) or, when the value is needed mid-order
(after a die the server rolled), as the answer to a pending decision of kind "declare"
(``ask(spec, seat, key, prompt, context)``, then ``answer(spec, seat, decision, value)``).
A value of the wrong type is ``InvalidOrder``, one outside the range ``RuleViolation``: both name
the rule. The server still rolls every die and applies everything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation

TYPES = ("integer", "choice")


@dataclass(frozen=True)
class Declarable:
    what: str
    rule: str
    stands_for: str
    type: str
    min: int | None = None
    max: int | None = None
    choices: tuple = ()

    def options(self) -> dict:
        """What a client offers (a pending decision's ``options``, a template's field)."""
        if self.type == "choice":
            return {"type": "choice", "choices": list(self.choices), "stands_for": self.stands_for}
        return {"type": "integer", "min": self.min, "max": self.max, "stands_for": self.stands_for}

    def describe(self) -> str:
        if self.type == "choice":
            return f"one of {', '.join(map(str, self.choices))}"
        return f"a whole number from {self.min} to {self.max}"


def load_declarable(entry: dict, source: str = "data") -> Declarable:
    """A declarable value from its data entry; a malformed entry raises ValueError naming it."""
    where = f"{source}: declarable {entry.get('what')!r}"
    for key in ("what", "rule", "stands_for"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ValueError(f"{where}: '{key}' is a non-empty text")
    kind = entry.get("type")
    if kind == "integer":
        lo, hi = entry.get("min"), entry.get("max")
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo, hi)) or lo > hi:
            raise ValueError(f"{where}: an integer has whole 'min' <= 'max'")
        return Declarable(entry["what"], entry["rule"], entry["stands_for"], kind, lo, hi)
    if kind == "choice":
        choices = entry.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ValueError(f"{where}: a choice has a non-empty list 'choices'")
        return Declarable(entry["what"], entry["rule"], entry["stands_for"], kind, choices=tuple(choices))
    raise ValueError(f"{where}: 'type' is one of {', '.join(TYPES)}")


def check(spec: Declarable, value: Any, field: str = "value") -> Any:
    """``value`` if the spec allows it; InvalidOrder (wrong type) or RuleViolation (out of range),
    each naming the rule and what the value stands for."""
    if spec.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOrder(f"the {spec.what} declared is {spec.describe()}", rule=spec.rule, field=field)
        if not spec.min <= value <= spec.max:
            raise RuleViolation(spec.rule, f"the {spec.what} declared is {spec.describe()} "
                                           f"(it stands for {spec.stands_for}), not {value}")
        return value
    if value not in spec.choices:
        raise RuleViolation(spec.rule, f"the {spec.what} declared is {spec.describe()} "
                                       f"(it stands for {spec.stands_for}), not {value!r}")
    return value


def declare(spec: Declarable, seat: str, value: Any, decision: str | None = None, field: str = "value") -> tuple:
    """The ``ResultDeclared`` outcome of a checked value."""
    value = check(spec, value, field)
    return (ev.ResultDeclared, {"seat": seat, "rule": spec.rule, "stands_for": spec.stands_for,
                                "what": spec.what, "value": value, "decision": decision})


def ask(spec: Declarable, seat: str, key: str, prompt: str, context: dict) -> tuple:
    """The ``DecisionPending`` outcome asking ``seat`` to declare mid-order; ``key`` makes its id
    unique in the game (e.g. the epoch and first nonce of the die just rolled); ``context`` keeps
    what the rest of the order needs."""
    decision = {"id": f"declare-{key}", "seat": seat, "kind": "declare", "rule": spec.rule,
                "prompt": prompt, "options": spec.options(), "context": context}
    return (ev.DecisionPending, {"decision": decision})


def pending_declaration(state: dict, seat: str) -> dict | None:
    """The first pending "declare" decision owed by ``seat``, or None."""
    return next((d for d in state.get("pending") or [] if d.get("kind") == "declare" and d.get("seat") == seat), None)


def answer(spec: Declarable, seat: str, decision: dict, value: Any) -> list:
    """The outcomes of answering ``decision``: it is resolved, and the value declared."""
    return [(ev.DecisionResolved, {"decision_id": decision["id"], "seat": seat, "choice": {"value": value}}),
            declare(spec, seat, value, decision["id"])]
