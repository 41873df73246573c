"""How an order is carried out: a context that folds each outcome as it is made, and a stack of
steps that can stop to wait for the other side (a pending decision) and go on when it answers.

A step is a JSON frame ``{"step": name, ...}``. ``run`` calls the handler of the top frame until
the stack is empty or a handler asks a seat to decide; the asking frame and everything under it
are saved in the decision's ``context``, so the answer resumes exactly there (docs/rulesets.md).
"""

from __future__ import annotations

from typing import Any, Callable

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.core import json_copy
from domain.rulesets.falklands import events as fe
from domain.rulesets.falklands.state import TRACK, fold

STEPS: dict[str, Callable[["Ctx", list], None]] = {}

SUDDEN_DEATH_AR, SUDDEN_DEATH_UK = 20, -5  # FS 4.5


def step(name: str):
    def register(fn):
        STEPS[name] = fn
        return fn
    return register


class Ctx:
    """The outcomes of one order so far, and the state they make."""

    def __init__(self, state: dict, dice: Any):
        self.previous_rolls = state.get("order_rolls", [])  # with seqs: the rolls of the last order
        self.state = {**state, "order_rolls": []}
        self.dice = dice
        self.out: list = []
        self.waiting = False

    # --------------------------------------------------------------------------- outcomes --
    def emit(self, cls: type, **fields: Any) -> None:
        if self.state.get("ended"):
            return
        self.out.append((cls, fields))
        self.state = fold(self.state, cls.__name__, fields)
        if cls is ev.TurnAdvanced:
            self.dice.close_epoch()
        if cls is ev.VPScored:
            self._sudden_death(fields["total"])

    def roll(self, seat: str, purpose: str, rule: str, units: list, hit_number: int | None = None,
             modifiers: list | None = None, replaces: int | None = None):
        """One die (every roll in this game is one d6); with a hit number, resolved hit or miss."""
        made = self.dice.roll(1, 6, seat=seat, purpose=purpose, rule=rule, units=list(units),
                              replaces=replaces, notation="d6")
        if hit_number is not None:
            made.resolve({"hit_number": hit_number, "modifiers": modifiers or []},
                         "hit" if made.values[0] <= hit_number else "miss")
        self.out.append(made)
        self.state = fold(self.state, "DiceRolled", {**made.fields()}, None)
        return made

    def ask(self, stack: list, seat: str, kind: str, rule: str, prompt: str, options: Any) -> None:
        """Stop here until ``seat`` decides; ``options`` describe the legal choices."""
        number = self.state.get("decisions", 0) + 1
        self.state = {**self.state, "decisions": number}
        decision = {"id": f"{kind}-{number}", "seat": seat, "kind": kind, "rule": rule,
                    "prompt": prompt, "options": options, "context": {"stack": json_copy(stack)}}
        self.emit(ev.DecisionPending, decision=decision)
        self.waiting = True

    def vp(self, delta: int, reason: str, rule: str) -> None:
        if delta:
            self.emit(ev.VPScored, side=TRACK, delta=delta, total=self.state["vp"][TRACK] + delta,
                      reason=reason, rule=rule)

    def _sudden_death(self, total: int) -> None:
        if total >= SUDDEN_DEATH_AR:
            self.emit(ev.GameEnded, winner="AR", level="sudden death",
                      reason=f"the VP track reached {total} (+{SUDDEN_DEATH_AR})", rule="FS 4.5")
        elif total <= SUDDEN_DEATH_UK:
            self.emit(ev.GameEnded, winner="UK", level="sudden death",
                      reason=f"the VP track reached {total} ({SUDDEN_DEATH_UK})", rule="FS 4.5")


def run(ctx: Ctx, stack: list) -> None:
    """Carry out frames from the top of ``stack`` until it is empty, the game ends, or a seat must decide."""
    guard = 0
    while stack and not ctx.waiting and not ctx.state.get("ended"):
        guard += 1
        if guard > 10_000:
            raise RuntimeError("falklands engine: a step did not finish")
        STEPS[stack[-1]["step"]](ctx, stack)


def answer(stack: list, choice: Any) -> None:
    """Hand a decision's answer to the frame that asked for it."""
    stack[-1]["answer"] = choice


# --------------------------------------------------------------------------- input checks ---
def need(cond: bool, rule: str, message: str) -> None:
    if not cond:
        raise RuleViolation(rule, message)


def ids(order: dict, key: str, rule: str, *, required: bool = False, most: int | None = None) -> list[str]:
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
    value = order.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidOrder(f"'{key}' is required", rule=rule, field=key)
    return value


def flag(order: dict, key: str, rule: str) -> bool:
    value = order.get(key, False)
    if not isinstance(value, bool):
        raise InvalidOrder(f"'{key}' is true or false", rule=rule, field=key)
    return value


__all__ = ["Ctx", "run", "step", "answer", "need", "ids", "text", "flag", "fe", "ev"]
