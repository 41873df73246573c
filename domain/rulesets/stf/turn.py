"""The turn (data/sequence.json, provisional: the order is Task Force's), the Player's answers to
pending decisions, and the end.

STF 5.1  Random events are applied normally for squalls and the Player's command control loss:
         the Player declares the base game's result each turn (data/declared.json), when the
         Random Events phase ends.
STF 5.2  A GameSystem command control loss limits its groups to one hex of movement that turn:
         ``campaign["system_ccl_turn"]`` is set to the turn, so ``command_control_lost(state)``
         (read by movement.py) holds for that turn only.
STF 6.7  The Player always goes first in each phase: the Player's orders of a phase, then
         ``{"kind": "end_phase"}``, after which the GameSystem's steps of that phase run as
         outcomes of that order, and the next phase begins (the ``advance`` step). After the
         last phase of the last turn the campaign ends, its level read off the net VP (STF 12.4).
"""

from __future__ import annotations

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.core import json_copy
from domain.rulesets.stf.events import CampaignFixed
from domain.rulesets.stf.rules import DATA, SEQUENCE, STEPS, TURN, kind
from domain.rulesets.toolkit import declared
from domain.rulesets.toolkit.data import DataError, check_fields
from domain.rulesets.toolkit.engine import Ctx, answer, run

DECLARABLE = {key: declared.load_declarable(entry, "declared.json")
              for key, entry in DATA.read("declared.json")["declarable"].items()}
PHASE = {p["phase"]: p for p in SEQUENCE["turn"]}
WINNERS = ("Player", "system", None)


def _check_sequence(doc: dict) -> None:
    """data/sequence.json's shape, checked at import so a bad correction never reaches a game;
    its guesses (the game's length, the victory levels, the order of the phases) are listed."""
    f = "sequence.json"
    check_fields(f, "(file)", doc, {"title": str, "source": str, "provisional": str, "set_up": list,
                                     "turn": list, "length": dict, "victory": dict})
    DATA.guess(f, "turn", None, doc["provisional"])
    seen: set = set()
    for part in ("set_up", "turn"):
        for n, p in enumerate(doc[part]):
            check_fields(f, f"{part}.{n}", p, {"phase": str, "rule": str, "player": str, "system": list},
                         optional=("system",) if part == "set_up" else ())
            if p["phase"] in seen:
                raise DataError(f, f"{part}.{n}", f"phase {p['phase']!r} is named twice")
            seen.add(p["phase"])
            if not all(isinstance(s, str) and s for s in p.get("system", [])):
                raise DataError(f, f"{part}.{n}", "'system' is a list of step names")
    DATA.check_entry(f, "length", doc["length"], {"turns": int, "source": str, "provisional": list})
    if doc["length"]["turns"] < 1:
        raise DataError(f, "length", "a campaign lasts at least one turn")
    DATA.check_entry(f, "victory", doc["victory"], {"rule": str, "levels": list, "source": str,
                                                      "provisional": list})
    levels = doc["victory"]["levels"]
    for n, lv in enumerate(levels):
        check_fields(f, f"victory.levels.{n}", lv, {"net_vp_at_least": int, "winner": (str, type(None)),
                                                      "level": str})
        if lv["winner"] not in WINNERS:
            raise DataError(f, f"victory.levels.{n}", f"'winner' is Player, system or null, not {lv['winner']!r}")
        if n and lv["net_vp_at_least"] >= levels[n - 1]["net_vp_at_least"]:
            raise DataError(f, f"victory.levels.{n}", "the levels go from the highest net VP down")
    if not levels or levels[-1]["net_vp_at_least"] > -1000:
        raise DataError(f, "victory.levels", "the last level takes any net VP (net_vp_at_least -1000000)")


_check_sequence(SEQUENCE)


# ---- asking the Player ---------------------------------------------------------------------------
def ask_declare(ctx: Ctx, stack: list, what: str, prompt: str, key: str | None = None) -> None:
    """Wait for the Player to declare the base game's value ``what`` (a key of declared.json);
    the answer comes back to the asking frame as ``frame["answer"]``. ``key`` makes the decision's
    id unique in the game (``declare-<key>``)."""
    spec = DECLARABLE[what]
    ctx.ask(stack, "Player", "declare", spec.rule, prompt, {**spec.options(), "what": what}, key=key)


def _declare_templates(state: dict) -> list[dict]:
    d = state["pending"][0] if state.get("pending") else None
    if d is None or d["kind"] != "declare":
        return []
    choices = d["options"].get("choices") or [d["options"].get("min")]
    return [{"kind": "declare", "decision": d["id"], "value": c, "title": f"declare: {c}", "rule": d["rule"]}
            for c in choices]


@kind("declare", rule="STF 5.1", help="declare the base game's value a pending decision asks for",
      templates=_declare_templates, fields={"decision": "the pending decision's id", "value": "the value"},
      head="declare {value} for {decision}")
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
    # Plain orders (no title): the parts' tests find them in the offer as they are.
    return [{"kind": "decide", "decision": d["id"], "choice": c} for c in d["options"].get("choices", [])]


@kind("decide", rule="STF 6.7", help="answer a pending decision of the GameSystem's procedure",
      templates=_decide_templates, fields={"decision": "the pending decision's id", "choice": "the answer"},
      head="decide {decision}")
def decide(ctx: Ctx, order: dict) -> None:
    """The asking step checks the choice (and refuses it naming its rule) when it resumes: a
    decision's ``choices`` are the answers offered, not always every answer it takes (a pair of
    airbases in either order, any ships sunk)."""
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
# What the Player must still do before a phase may end: {phase: [check(state) -> (rule, why) or None]},
# registered by the mechanisms (movement.py: STF 1.12's withdrawal in the Movement phase).
PHASE_DUTIES: dict[str, list] = {}


def phase_duty(state: dict) -> tuple[str, str] | None:
    """The first thing the Player must still do in this phase (rule, why), or None."""
    for check in PHASE_DUTIES.get(state["phase"], []):
        found = check(state)
        if found:
            return found
    return None


def _end_phase_templates(state: dict) -> list[dict]:
    if phase_duty(state):
        return []
    return [{"kind": "end_phase", "title": f"end the {state['phase']} phase", "rule": "STF 6.7"}]


@kind("end_phase", rule="STF 6.7", help="end the Player's part of this phase: the GameSystem's part follows",
      templates=_end_phase_templates, phases=TURN, head="end_phase: {title}")
def end_phase(ctx: Ctx, order: dict) -> None:
    """STF 6.7: the Player has gone first; the GameSystem's steps of the phase run, in the order
    data/sequence.json lists them, then the ``advance`` step."""
    duty = phase_duty(ctx.state)
    if duty:
        raise RuleViolation(*duty)
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


def level(net: int) -> dict:
    """The victory level (data/sequence.json, provisional) of a net VP (STF 12.4)."""
    return next(lv for lv in SEQUENCE["victory"]["levels"] if net >= lv["net_vp_at_least"])


def end(ctx: Ctx, reason: str) -> None:
    """The campaign ends: the level by the net VP (STF 12.4: the GameSystem's losses less the Player's)."""
    net = ctx.state["vp"]["Player"] - ctx.state["vp"]["system"]
    lv = level(net)
    ctx.emit(ev.GameEnded, winner=lv["winner"], level=lv["level"],
             reason=f"{reason}; net VP {net:+d}", rule=SEQUENCE["victory"]["rule"])


# ---- STF 5: random events ------------------------------------------------------------------------
def command_control_lost(state: dict) -> bool:
    """STF 5.2: the GameSystem suffered command control loss in this turn's random events, so its
    task forces and subrons move at most one hex this turn (movement.py reads this)."""
    turn = state["campaign"].get("system_ccl_turn")
    return turn is not None and turn == state.get("turn")


@STEPS.step("random_events")
def random_events(ctx: Ctx, stack: list) -> None:
    """STF 5.1: the Player rolls the base game's random events and declares the result; STF 5.2:
    the GameSystem's command control loss is recorded for this turn."""
    f = stack[-1]
    if "answer" not in f:
        ask_declare(ctx, stack, "random_events",
                    f"Turn {ctx.state['turn']}: declare the random event Task Force's Random Events "
                    "Table gives (STF 5.1)", key=str(ctx.state["turn"]))  # one a turn: declare-<turn>
        return
    stack.pop()
    if f["answer"] == "GameSystem command control loss":
        ctx.emit(CampaignFixed, key="system_ccl_turn", value=ctx.state["turn"], rule="STF 5.2")
