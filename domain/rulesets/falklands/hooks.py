"""Falklands Showdown on the toolkit's step engine (domain/rulesets/toolkit/engine.py): its step
registry, its hooks (its fold; FS 4.5 sudden death on the one signed VP track) and its one roll,
a d6 against a hit number.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator

from domain import events as ev
from domain.rulesets.falklands.state import PHASES, TRACK, fold
from domain.rulesets.toolkit.engine import Ctx, Hooks, Steps

STEPS = Steps("falklands")
step = STEPS.step

SUDDEN_DEATH_AR, SUDDEN_DEATH_UK = 20, -5  # FS 4.5


class FalklandsHooks(Hooks):
    def fold(self, state: dict, name: str, fields: dict, seq: Any) -> dict:
        return fold(state, name, fields, seq)

    def begin(self, state: dict) -> dict:
        """``order_rolls`` counts this order's rolls (a re-roll names one of the order before,
        read from ``ctx.before``), as the fold does from the OrderAccepted on."""
        return {**state, "order_rolls": []}

    def on_vp(self, ctx: Ctx, track: str, total: int) -> None:
        """FS 4.5: the game ends at once when the VP track reaches +20 (AR) or -5 (UK); while a
        battle's hits take effect, once all of them have (``simultaneous``)."""
        if getattr(ctx, "simultaneous_hits", False):
            return
        if total >= SUDDEN_DEATH_AR:
            ctx.emit(ev.GameEnded, winner="AR", level="sudden death",
                     reason=f"the VP track reached {total} (+{SUDDEN_DEATH_AR})", rule="FS 4.5")
        elif total <= SUDDEN_DEATH_UK:
            ctx.emit(ev.GameEnded, winner="UK", level="sudden death",
                     reason=f"the VP track reached {total} ({SUDDEN_DEATH_UK})", rule="FS 4.5")


HOOKS = FalklandsHooks(STEPS)


@contextmanager
def simultaneous(ctx: Ctx) -> Iterator[None]:
    """FS 10.2: "All fire in a given battle is considered to be taking place simultaneously ...
    There's no advantage to rolling your combat resolution die rolls before the other player":
    the hits of one battle take effect at one instant, so the VP they score (4.4) are judged for
    sudden death (4.5) once, when all of them are in, not after the first side's shots."""
    held = getattr(ctx, "simultaneous_hits", False)
    ctx.simultaneous_hits = True
    start = ctx.state["vp"][TRACK]
    try:
        yield
    finally:
        ctx.simultaneous_hits = held
    if not held and ctx.state["vp"][TRACK] != start:
        HOOKS.on_vp(ctx, TRACK, ctx.state["vp"][TRACK])


def new_ctx(state: dict, dice: Any) -> Ctx:
    """The context of one Falklands order."""
    return Ctx(state, dice, HOOKS)


def d6(ctx: Ctx, seat: str, purpose: str, rule: str, units: list, hit_number: int | None = None,
       modifiers: list | None = None, replaces: int | None = None):
    """One die (every roll in this game is one d6); with a hit number, resolved hit or miss (FS 10.2)."""
    if hit_number is None:
        return ctx.roll(1, 6, seat=seat, purpose=purpose, rule=rule, units=units, replaces=replaces)
    return ctx.roll(1, 6, seat=seat, purpose=purpose, rule=rule, units=units, replaces=replaces,
                    target={"hit_number": hit_number, "modifiers": modifiers or []},
                    outcome=lambda values: "hit" if values[0] <= hit_number else "miss")


# ---- asking a seat: a decision id unique in the game --------------------------------------------
KEYED = re.compile(r"^[a-z_]+-(\d+\.\d+\.\d+(?:\.\d+)?)-(\d+)(?:\.\d+)?$")  # <kind>-<position>-<n>[.<k>]


def position(state: dict) -> str:
    """Where in the game an order is given: ``<turn>.<phase>.<operations>``, the phase by its
    number (0 the set-up, 1 UK Operations ... 5 Random Event) and the operations begun so far in
    the game (each operation or pass order begins one, FS 5.3); after a take-back, ``.<k>`` for
    the k take-backs accepted so far, since a take-back returns to a position already played."""
    phase = PHASES.index(state["phase"]) + 1 if state["phase"] in PHASES else 0
    taken_back = f".{state['take_backs']}" if state.get("take_backs") else ""
    return f"{state['turn']}.{phase}.{sum(len(ops) for ops in state['ops_log'].values())}{taken_back}"


def ask(ctx: Ctx, stack: list, seat: str, kind: str, rule: str, prompt: str, options: Any) -> None:
    """Ask ``seat`` (``Ctx.ask``) under an id unique in the game, ``<kind>-<position>-<n>``: the
    position the order that began this chain of decisions was given in, and n counts the
    decisions asked since (the chain goes on through each answer's order: ``resume``). No two
    orders that begin a chain are given in one position (an operation or pass begins an operation;
    the submarines order ends its phase), so an answer naming an earlier decision never answers a
    later one of the same kind. A chain begun before a take-back goes on after it when the order
    taken back was an answer: the n-th decision asked again then ends ``.<k>``, the take-backs
    so far, as the one taken back did not. A replay reads each decision from its DecisionPending."""
    chain, n = ctx.state.get("fs_chain") or position(ctx.before), ctx.state.get("fs_asked", 0) + 1
    ctx.state = {**ctx.state, "fs_chain": chain, "fs_asked": n}
    taken_back = ctx.state.get("take_backs", 0)
    since = f".{taken_back}" if taken_back != take_backs_before(chain) else ""
    ctx.ask(stack, seat, kind, rule, prompt, options, key=f"{chain}-{n}{since}")


def asked_again(decision_id: str, take_backs: int) -> str:
    """The id of a decision waiting again once the answer it had is taken back, the game's
    ``take_backs``-th: its own with ``.<take_backs>`` after its count (in place of an earlier
    take-back's), so an answer sent for it before the take-back is not taken for it after."""
    return re.sub(r"(-\d+)(?:\.\d+)?$", rf"\g<1>.{take_backs}", decision_id, count=1)


def take_backs_before(chain: str) -> int:
    """How many take-backs the game had when the order that began ``chain`` was given (``position``)."""
    parts = chain.split(".")
    return int(parts[3]) if len(parts) == 4 else 0


def resume(ctx: Ctx, decision_id: str) -> None:
    """An answer's order goes on with the chain of the decision it answers, read from its id (one
    asked before decisions had keys, ``<kind>-1``, has none: the answer's order begins a chain)."""
    keyed = KEYED.match(decision_id)
    if keyed:
        ctx.state = {**ctx.state, "fs_chain": keyed.group(1), "fs_asked": int(keyed.group(2))}
