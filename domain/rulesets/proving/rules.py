"""The proving ground's rules (PG), numbered like a game's so that errors name them.

PG 1  Sides: Red and Blue, one seat each; either seat may give any order at any time, except
      where a rule below says otherwise; while a decision waits, its answer is the only order.
PG 2-7  One mechanism of the toolkit each; see the module that registers the order kind.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from domain.errors import InvalidSetup, RuleViolation
from domain.rulesets import Policy, Ruleset, Setup, core
from domain.rulesets.toolkit.engine import known_fields, unknown_kind
from domain.rulesets.toolkit.hidden import Secrets

SIDES = ["Red", "Blue"]
PHASES = ["Play"]
# A template's words for readers, which may come back with an order (as text: known_fields).
WORDS = ("kind", "title", "rule", "prompt")


class Kind(NamedTuple):
    """An order kind: ``handler(state, seat, order, dice) -> [outcome]``, the template
    ``legal_orders`` offers (``template(state, seat) -> dict | None``), the rule a refusal of its
    fields names and its fields ({name: one line}); any other field is refused (PG 1)."""
    handler: Callable[..., list]
    template: Callable[[dict, str], dict | None]
    rule: str
    fields: dict


KINDS: dict[str, Kind] = {}


# The order kinds that answer a pending decision: while one waits, nothing else is ordered (PG 1).
ANSWERS = ("decide", "declare")

# decision kind -> the standing orders a seat may leave for it (PG 5)
POLICIES: dict[str, Policy] = {}


class Scenario:
    """A start other than the standard one, registered by a mechanism's module (PG 4): the state it
    makes of the standard one, the server's opening rolls, and a check run before every order."""

    def __init__(self, start: Callable[[dict], dict], opening: Callable[[dict, Any], list],
                 check: Callable[[dict, str, dict], None]):
        self.start, self.opening, self.check = start, opening, check


# scenario name -> Scenario; a game records its scenario in ``state["scenario"]``
SCENARIOS: dict[str, Scenario] = {}

# What a viewer may see, per mechanism that hides something (PG 7's face-down markers): a state
# filter view(state, viewer) -> state, applied in turn, and the private fields of its events.
VIEWS: list[Callable[[dict, str | None], dict]] = []
SECRETS = Secrets()
# What a mechanism adds to the fold: fold(state, event) -> state, applied after the generic fold.
FOLDS: list[Callable[[dict, Any], dict]] = []


def kind(name: str, template: Callable[[dict, str], dict | None], *, rule: str, fields: dict | None = None):
    """Register the handler of order kind ``name``, the template ``legal_orders`` offers, its rule
    and its fields."""
    def register(fn):
        if name in KINDS:
            raise ValueError(f"proving: order kind {name!r} is registered twice")
        KINDS[name] = Kind(fn, template, rule, dict(fields or {}))
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
        if scenario not in (None, "standard", *SCENARIOS):  # a typo must not be recorded as the scenario
            raise InvalidSetup(f"the proving ground's scenarios are 'standard' and "
                               f"{', '.join(repr(name) for name in SCENARIOS)}, not {scenario!r}")
        state = core.base_state(SIDES, PHASES)
        if scenario in SCENARIOS:
            state = SCENARIOS[scenario].start({**state, "scenario": scenario})
        return Setup(seats=list(SIDES), state=state, scenario=scenario or "standard")

    def legal_orders(self, state: dict, seat: str) -> list[dict]:
        if state.get("ended") or seat not in self.actors(state):
            return []
        if state.get("pending"):  # a decision waits: its answer is the only order (PG 1)
            return [t for name in ANSWERS if name in KINDS and (t := KINDS[name].template(state, seat)) is not None]
        return [t for k in KINDS.values()
                if (t := k.template(state, seat)) is not None and self._allowed(state, seat, t)]

    def order_kinds(self) -> list[dict]:
        """Each registered kind, its help the first line of its handler's docstring ("PG n: …")."""
        out = []
        for name, k in KINDS.items():
            line = (k.handler.__doc__ or name).strip().splitlines()[0]
            _, _, text = line.partition(": ")
            out.append({"kind": name, "rule": k.rule, "help": text or line, "fields": dict(k.fields)})
        return out

    def decide(self, state: dict, seat: str, order: dict, dice: Any) -> list:
        entry = KINDS.get(order.get("kind"))
        if entry is None:
            raise unknown_kind(order.get("kind"), sorted(KINDS), self.sequence_rule)
        if state.get("pending") and order.get("kind") not in ANSWERS:
            d = state["pending"][0]
            raise RuleViolation(d.get("rule") or self.sequence_rule,
                                f"answer the pending decision first: {d.get('prompt', d['kind'])}")
        # "elit" for "elite" is refused naming it, not dropped in silence
        known_fields(order, list(entry.fields), entry.rule, f"'{order['kind']}'", WORDS)
        scenario = SCENARIOS.get(state.get("scenario"))
        if scenario is not None:
            scenario.check(state, seat, order)
        return entry.handler(state, seat, order, dice)

    def opening(self, state: dict, dice: Any) -> list:
        scenario = SCENARIOS.get(state.get("scenario"))
        return scenario.opening(state, dice) if scenario is not None else []

    def standing_policies(self) -> dict[str, Policy]:
        return POLICIES

    @staticmethod
    def _allowed(state: dict, seat: str, template: dict) -> bool:
        """Whether the scenario's check lets ``template``'s kind be ordered now."""
        scenario = SCENARIOS.get(state.get("scenario"))
        if scenario is None:
            return True
        try:
            scenario.check(state, seat, template)
        except RuleViolation:
            return False
        return True

    def evolve(self, state: dict | None, event: Any) -> dict:
        state = core.evolve(state, event)
        for fold in FOLDS:
            state = fold(state, event)
        return state

    def view(self, state: dict, viewer: str | None) -> dict:
        for hide in VIEWS:
            state = hide(state, viewer)
        return state

    def concealable(self, event_type: str, data: dict) -> tuple[str, ...]:
        return SECRETS.concealable(event_type, data)

    def hidden_fields(self, event_type: str, data: dict, viewer: str | None) -> set[str]:
        return SECRETS.hidden_fields(event_type, data, viewer)

    def board(self) -> dict:
        from domain.rulesets.proving import hexes  # PG 6's module; imported late, it imports this one
        return hexes.board()
