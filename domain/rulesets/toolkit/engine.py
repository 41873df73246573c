"""The step engine: how an order is carried out, for any ruleset.

A ``Ctx`` folds each outcome as it is made, so a multi-step order always reasons about the
position its own earlier outcomes made. The work is a stack of JSON frames ``{"step": name, ...}``;
``run`` calls the handler of the top frame until the stack is empty, the game ends, or a handler
asks a seat to decide. The asking frame and everything under it are saved in the decision's
``context``, so the answer resumes exactly there (docs/rulesets.md, "The step engine").

Each ruleset keeps its own step registry (``Steps``) and its own hooks (``Hooks``: its fold, and
what happens after an outcome, e.g. a sudden-death check on a VP change), so two rulesets may
name their steps alike.
"""

from __future__ import annotations

import difflib
from types import SimpleNamespace
from typing import Any, Callable

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets import core
from domain.rulesets.core import json_copy

Handler = Callable[["Ctx", list], None]
MAX_STEPS = 10_000  # a guard against a step that never pops its frame


class Steps:
    """One ruleset's step handlers by name; ``@steps.step("name")`` registers one."""

    def __init__(self, ruleset: str):
        self.ruleset = ruleset
        self.handlers: dict[str, Handler] = {}

    def step(self, name: str) -> Callable[[Handler], Handler]:
        def register(fn: Handler) -> Handler:
            if name in self.handlers:
                raise ValueError(f"{self.ruleset}: step {name!r} is registered twice")
            self.handlers[name] = fn
            return fn
        return register

    def __getitem__(self, name: str) -> Handler:
        try:
            return self.handlers[name]
        except KeyError:
            raise KeyError(f"{self.ruleset}: no step {name!r}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.handlers


class Hooks:
    """What the engine asks of a ruleset. The defaults fold the generic events only and do
    nothing after an outcome; a ruleset overrides ``fold`` with its own and ``after`` or
    ``on_vp`` for what its rules check whenever an outcome is made."""

    def __init__(self, steps: Steps):
        self.steps = steps

    def fold(self, state: dict, name: str, fields: dict, seq: Any) -> dict:
        """The state after an event of type ``name`` with ``fields`` (``seq`` None while deciding)."""
        apply = core.FOLD.get(name)
        return apply(state, SimpleNamespace(**fields, originator_version=seq)) if apply else state

    def begin(self, state: dict) -> dict:
        """The state an order's outcomes start from (a ruleset's per-order bookkeeping reset)."""
        return state

    def after(self, ctx: "Ctx", cls: type, fields: dict) -> None:
        """Called after each event outcome is folded; by default hands a VP change to ``on_vp``."""
        if issubclass(cls, ev.VPScored):
            self.on_vp(ctx, fields["side"], fields["total"])

    def on_vp(self, ctx: "Ctx", track: str, total: int) -> None:
        """A VP track now stands at ``total``: where sudden death and victory levels are checked."""


class Ctx:
    """The outcomes of one order so far, and the state they make."""

    def __init__(self, state: dict, dice: Any, hooks: Hooks):
        self.before = state  # the position the order was given in
        self.state = hooks.begin(state)
        self.dice = dice
        self.hooks = hooks
        self.out: list = []
        self.waiting = False

    # --------------------------------------------------------------------------- outcomes --
    def emit(self, cls: type, **fields: Any) -> None:
        """Record an event outcome and fold it; nothing more is recorded once the game has ended."""
        if self.state.get("ended"):
            return
        self.out.append((cls, fields))
        self.state = self.hooks.fold(self.state, cls.__name__, fields, None)
        if issubclass(cls, ev.TurnAdvanced):
            self.dice.close_epoch()  # the aggregate opens the next epoch right after it
        self.hooks.after(self, cls, fields)

    def roll(self, count: int, sides: int, *, seat: str, purpose: str, rule: "str | None | Callable[[list[int]], str]",
             units: list | tuple = (), replaces: int | None = None, notation: str | None = None,
             target: Any = None, outcome: Any = None):
        """Roll ``count`` dice of ``sides`` faces (``notation`` defaults to "2d10", "d6"...).

        ``target`` (a dict: what the roll is compared with or read on) and ``outcome`` (a
        string: what it means) are recorded with the roll; either may be a function of the
        rolled values, for a result that depends on the dice. So may ``rule``: a roll read on a
        ladder whose rungs are rules of their own (STF 8.3-8.7) names the rung it read."""
        made = self.dice.roll(count, sides, seat=seat, purpose=purpose, rule=None if callable(rule) else rule,
                              units=list(units), replaces=replaces, notation=notation or dice_notation(count, sides))
        if callable(rule):
            made.rule = rule(made.values)
        if callable(target):
            target = target(made.values)
        if callable(outcome):
            outcome = outcome(made.values)
        if target is not None or outcome is not None:
            made.resolve(target, outcome)
        self.out.append(made)
        self.state = self.hooks.fold(self.state, "DiceRolled", made.fields(), None)
        return made

    def ask(self, stack: list, seat: str, kind: str, rule: str, prompt: str, options: Any,
            key: str | None = None) -> None:
        """Stop here until ``seat`` decides; ``options`` describe the legal choices. The decision's
        id is ``kind-key``: ``key`` makes it unique in the game (the caller's to choose, from what
        the question is about); without one it is a count kept in this order's state only, which
        no event folds, so it starts again at 1 in the next order."""
        number = self.state.get("decisions", 0) + 1
        self.state = {**self.state, "decisions": number}
        decision = {"id": f"{kind}-{key if key is not None else number}", "seat": seat, "kind": kind, "rule": rule,
                    "prompt": prompt, "options": options, "context": {"stack": json_copy(stack)}}
        self.emit(ev.DecisionPending, decision=decision)
        self.waiting = True

    def vp(self, track: str, delta: int, reason: str, rule: str | None) -> None:
        """Move VP track ``track`` (a side's, or a game's one signed track) by ``delta``."""
        if delta:
            self.emit(ev.VPScored, side=track, delta=delta, total=self.state["vp"][track] + delta,
                      reason=reason, rule=rule)


def dice_notation(count: int, sides: int) -> str:
    return f"d{sides}" if count == 1 else f"{count}d{sides}"


def run(ctx: Ctx, stack: list) -> None:
    """Carry out frames from the top of ``stack`` until it is empty, the game ends, or a seat must decide."""
    steps = ctx.hooks.steps
    done = 0
    while stack and not ctx.waiting and not ctx.state.get("ended"):
        done += 1
        if done > MAX_STEPS:
            raise RuntimeError(f"{steps.ruleset} engine: a step did not finish")
        steps[stack[-1]["step"]](ctx, stack)


def answer(stack: list, choice: Any) -> None:
    """Hand a decision's answer to the frame that asked for it."""
    stack[-1]["answer"] = choice


# --------------------------------------------------------------------------- input checks ---
def need(cond: bool, rule: str, message: str) -> None:
    """Refuse an illegal order naming the rule it breaks."""
    if not cond:
        raise RuleViolation(rule, message)


def unknown_kind(kind: Any, kinds, rule: str, listed: str = "is one of") -> InvalidOrder:
    """The refusal of an order of a kind the ruleset does not take, naming its rule and its kinds;
    a mistyped kind ("campain") gets the nearest one: "did you mean 'campaign'?" (difflib)."""
    kinds = list(kinds)
    message = f"'kind' {listed} {', '.join(kinds) or 'nothing yet'}"
    meant = difflib.get_close_matches(kind, kinds, n=1) if isinstance(kind, str) and kind else []
    if meant:
        message += f"; {kind!r} is not one: did you mean {meant[0]!r}?"
    return InvalidOrder(message, rule=rule, field="kind")


def known_fields(order: dict, fields, rule: str, what: str, words=("kind", "title", "rule"),
                 accepted=()) -> None:
    """Refuse a field the order's kind does not have, naming it: a misspelt optional field would
    otherwise be dropped in silence. ``fields`` in the order the message lists them; ``words``: a
    template's words for readers, which may come back with the order, as text only (they are
    recorded with the order: a number or an object there is no word of a template); ``accepted``:
    fields any kind takes, not listed, whose values the kind checks itself (freeform's "private")."""
    unknown = sorted(set(order) - set(fields) - set(words) - set(accepted))
    if unknown:
        raise InvalidOrder(f"'{unknown[0]}' is not a field of {what} (its fields: {', '.join(fields) or 'none'})",
                           rule=rule, field=unknown[0])
    for word in sorted(set(words) - set(fields) - {"kind"}):
        if word in order and not isinstance(order[word], str):
            raise InvalidOrder(f"'{word}' is text (a template's word for readers)",
                               rule=rule, field=word)


def ids(order: dict, key: str, rule: str, *, required: bool = False, most: int | None = None) -> list[str]:
    """The list of unit ids under ``key`` (each once), at most ``most`` of them."""
    value = order.get(key, [])
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidOrder(f"'{key}' is a list of unit ids", rule=rule, field=key)
    if len(set(value)) != len(value):
        raise InvalidOrder(f"'{key}' names a unit twice", rule=rule, field=key)
    if required and not value:
        raise InvalidOrder(f"'{key}' names at least one unit", rule=rule, field=key)
    if most is not None and len(value) > most:
        raise RuleViolation(rule, f"at most {most} units may be named in '{key}'")
    return value


def text(order: dict, key: str, rule: str, *, required: bool = True) -> str | None:
    """A non-empty string under ``key`` (None when absent and not required)."""
    value = order.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidOrder(f"'{key}' is required", rule=rule, field=key)
    return value


def flag(order: dict, key: str, rule: str) -> bool:
    """A true/false under ``key`` (false when absent)."""
    value = order.get(key, False)
    if not isinstance(value, bool):
        raise InvalidOrder(f"'{key}' is true or false", rule=rule, field=key)
    return value


__all__ = ["Steps", "Hooks", "Ctx", "run", "answer", "need", "ids", "text", "flag", "dice_notation"]
