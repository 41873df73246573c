"""The turn (data/sequence.json, provisional: the order is Task Force's), the Player's answers to
pending decisions, and the end.

STF 5.1  Random events are applied normally for squalls and the Player's command control loss:
         the Player declares the base game's result each turn (data/declared.json).
STF 5.2  A GameSystem command control loss limits its groups to one hex of movement that turn
         (``campaign["system_ccl_turn"]``, read by movement.py).
STF 6.7  The Player always goes first in each phase: the Player's orders of a phase, then
         ``{"kind": "end_phase"}``, after which the GameSystem's steps of that phase run as
         outcomes of that order, and the next phase begins.
"""

from __future__ import annotations

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.core import json_copy
from domain.rulesets.stf.events import CampaignFixed
from domain.rulesets.stf.rules import DATA, SEQUENCE, STEPS, TURN, kind
from domain.rulesets.toolkit import declared
from domain.rulesets.toolkit.engine import Ctx, answer, run

DECLARABLE = {key: declared.load_declarable(entry, "declared.json")
              for key, entry in DATA.read("declared.json")["declarable"].items()}
PHASE = {p["phase"]: p for p in SEQUENCE["turn"]}


# ---- asking the Player ---------------------------------------------------------------------------
def ask_declare(ctx: Ctx, stack: list, what: str, prompt: str) -> None:
    """Wait for the Player to declare the base game's value ``what`` (a key of declared.json);
    the answer comes back to the asking frame as ``frame["answer"]``."""
    spec = DECLARABLE[what]
    ctx.ask(stack, "Player", "declare", spec.rule, prompt, {**spec.options(), "what": what})


def _declare_templates(state: dict) -> list[dict]:
    d = state["pending"][0] if state.get("pending") else None
    if d is None or d["kind"] != "declare":
        return []
    choices = d["options"].get("choices") or [d["options"].get("min")]
    return [{"kind": "declare", "decision": d["id"], "value": c} for c in choices]


@kind("declare", rule="STF 5.1", help="declare the base game's value a pending decision asks for",
      templates=_declare_templates, fields={"decision": "the pending decision's id", "value": "the value"})
def declare(ctx: Ctx, order: dict) -> None:
    d = _pending(ctx.state, order, "declare")
    spec = DECLARABLE[d["options"]["what"]]
    value = declared.check(spec, order.get("value"))
    stack = json_copy(d["context"]["stack"])
    ctx.emit(ev.DecisionResolved, decision_id=d["id"], seat="Player", choice={"value": value})
    ctx.emit(ev.ResultDeclared, seat="Player", rule=spec.rule, stands_for=spec.stands_for, what=spec.what,
             value=value, decision=d["id"])
    answer(stack, value)
    run(ctx, stack)


def _decide_templates(state: dict) -> list[dict]:
    d = state["pending"][0] if state.get("pending") else None
    if d is None or d["kind"] == "declare":
        return []
    return [{"kind": "decide", "decision": d["id"], "choice": c} for c in d["options"].get("choices", [])]


@kind("decide", rule="STF 6.7", help="answer a pending decision of the GameSystem's procedure",
      templates=_decide_templates, fields={"decision": "the pending decision's id", "choice": "the answer"})
def decide(ctx: Ctx, order: dict) -> None:
    """The asking step checks the choice (and refuses it naming its rule) when it resumes."""
    d = _pending(ctx.state, order, None)
    stack = json_copy(d["context"]["stack"])
    ctx.emit(ev.DecisionResolved, decision_id=d["id"], seat="Player", choice=order.get("choice"))
    answer(stack, order.get("choice"))
    run(ctx, stack)


def _pending(state: dict, order: dict, kind_: str | None) -> dict:
    if not state.get("pending"):
        raise RuleViolation("STF 6.7", "no decision is pending")
    d = state["pending"][0]
    if order.get("decision") != d["id"]:
        raise InvalidOrder(f"'decision' is the pending decision's id, {d['id']!r}", rule=d["rule"], field="decision")
    if kind_ is not None and d["kind"] != kind_:
        raise RuleViolation(d["rule"], f"the pending decision {d['id']} is answered by a 'decide' order")
    if kind_ is None and d["kind"] == "declare":
        raise RuleViolation(d["rule"], f"the pending decision {d['id']} is answered by a 'declare' order")
    return d


# ---- the phases of a turn ------------------------------------------------------------------------
@kind("end_phase", rule="STF 6.7", help="end the Player's part of this phase: the GameSystem's part follows",
      templates=lambda state: [{"kind": "end_phase"}], phases=TURN)
def end_phase(ctx: Ctx, order: dict) -> None:
    stack = [{"step": "advance"}] + [{"step": s} for s in reversed(PHASE[ctx.state["phase"]]["system"])]
    run(ctx, stack)


@STEPS.step("advance")
def advance(ctx: Ctx, stack: list) -> None:
    """The next phase, or the next turn after the last phase; the end after the last turn."""
    stack.pop()
    state = ctx.state
    at = TURN.index(state["phase"])
    if at + 1 < len(TURN):
        ctx.emit(ev.PhaseAdvanced, turn=state["turn"], phase=TURN[at + 1], rule=PHASE[TURN[at + 1]]["rule"])
    elif state["turn"] >= SEQUENCE["length"]["turns"]:
        end(ctx, f"the campaign's {SEQUENCE['length']['turns']} turns are played")
    else:
        ctx.emit(ev.TurnAdvanced, turn=state["turn"] + 1, phase=TURN[0], rule="STF 6.7")


def start_turn_one(ctx: Ctx) -> None:
    """The set-up is complete: turn 1 begins, which closes dice epoch 0 and reveals its seed, so the
    whole generated campaign can be checked before the first move."""
    ctx.emit(ev.TurnAdvanced, turn=1, phase=TURN[0], rule="STF 6.7")


def end(ctx: Ctx, reason: str) -> None:
    """The campaign ends: the level by the net VP (STF 12.4: the GameSystem's losses less the Player's)."""
    net = ctx.state["vp"]["Player"] - ctx.state["vp"]["system"]
    victory = SEQUENCE["victory"]
    level = next(lv for lv in victory["levels"] if net >= lv["net_vp_at_least"])
    ctx.emit(ev.GameEnded, winner=level["winner"], level=level["level"],
             reason=f"{reason}; net VP {net:+d}", rule=victory["rule"])


# ---- STF 5: random events ------------------------------------------------------------------------
@STEPS.step("random_events")
def random_events(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    if "answer" not in f:
        ask_declare(ctx, stack, "random_events", f"Turn {ctx.state['turn']}: the base game's random event")
        return
    stack.pop()
    if f["answer"] == "GameSystem command control loss":
        ctx.emit(CampaignFixed, key="system_ccl_turn", value=ctx.state["turn"], rule="STF 5.2")
