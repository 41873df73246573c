"""PG 5 Standing orders: an interrupt owed by the seat not to move, answered by what it left.

PG 5.1  Red orders ``advance`` into a hex, named by a column letter and a row number (``K5``): Red's
        patrol moves there. Only Red advances.
PG 5.2  Each hex Red's patrol enters gives Blue an opportunity fire decision
        (``opportunity_fire``): fire or hold. The game waits for Blue's answer, a ``decide`` order
        with the choice ``"fire"`` or ``"hold"``.
PG 5.3  Fire: Blue rolls 1d6; a 5 or 6 hits the patrol and scores Blue 1 VP.
PG 5.4  Blue may leave a standing order for its opportunity fire at any time, its move or not:
        ``{"fire": "always"}`` or ``{"fire": "never"}``, and ``"ask_at": [hexes]``, the hexes where
        Blue wants to be asked instead. Each answer given by it is recorded (``StandingOrderUsed``)
        and carried out as Blue's ``decide`` order would be, within Red's order.
"""

from __future__ import annotations

import re
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets import Policy
from domain.rulesets.proving.rules import POLICIES, kind

PATROL = "red_patrol"
DECISION = "opportunity_fire"
CHOICES = ("fire", "hold")
HEX = re.compile(r"[A-Z][1-9][0-9]?")
HIT_ON = 5  # PG 5.3: a 5 or 6 hits
MAX_ASK_AT = 50


def _hex(value: Any, rule: str, field: str) -> str:
    if not isinstance(value, str) or not HEX.fullmatch(value):
        raise InvalidOrder("a hex is a column letter A-Z and a row 1-99, e.g. K5", rule=rule, field=field)
    return value


def _pending(state: dict) -> dict | None:
    return state["pending"][0] if state.get("pending") else None


# --------------------------------------------------------------------------------- advance ---
def _advance_template(state: dict, seat: str) -> dict | None:
    if seat != "Red" or _pending(state):
        return None
    return {"kind": "advance", "rule": "PG 5.1", "fields": {"hex": "hex name, e.g. K5"}}  # the player names it: a field, not a fixed value


@kind("advance", _advance_template, rule="PG 5.1", fields={"hex": "the hex entered, e.g. K5"})
def advance(state: dict, seat: str, order: dict, dice: Any) -> list:
    if seat != "Red":
        raise RuleViolation("PG 5.1", "only Red advances")
    into = _hex(order.get("hex"), "PG 5.1", "hex")
    origin = state["units"].get(PATROL, {}).get("location")
    if origin == into:
        raise RuleViolation("PG 5.1", f"the patrol is in {into} already")
    # One decision waits at a time, so the hex names it well enough.
    decision = {"id": f"{DECISION}-{into}", "seat": "Blue", "kind": DECISION, "rule": "PG 5.2",
                "prompt": f"Red's patrol enters {into}: opportunity fire?", "options": list(CHOICES),
                "context": {"hex": into}}
    return [(ev.UnitMoved, {"unit": PATROL, "origin": origin, "destination": into, "rule": "PG 5.1"}),
            (ev.DecisionPending, {"decision": decision})]


# ---------------------------------------------------------------------------------- decide ---
def _decide_template(state: dict, seat: str) -> dict | None:
    d = _pending(state)
    if d is None or d["seat"] != seat or d["kind"] != DECISION:
        return None
    return {"kind": "decide", "decision": d["id"], "decision_kind": d["kind"], "rule": d["rule"],
            "prompt": d["prompt"], "options": d["options"]}


@kind("decide", _decide_template, rule="PG 5.2",
      fields={"decision": "the id of the decision waiting", "choice": "\"fire\" or \"hold\""})
def decide(state: dict, seat: str, order: dict, dice: Any) -> list:
    d = _pending(state)
    if d is None or d["kind"] != DECISION:
        raise RuleViolation("PG 5.2", "no opportunity fire decision is waiting")
    if order.get("decision") != d["id"]:
        raise InvalidOrder(f"the decision waiting is {d['id']!r}", rule="PG 5.2", field="decision")
    choice = order.get("choice")
    if choice not in CHOICES:
        raise InvalidOrder("'choice' is \"fire\" or \"hold\"", rule="PG 5.2", field="choice")
    out: list = [(ev.DecisionResolved, {"decision_id": d["id"], "seat": seat, "choice": choice})]
    if choice == "fire":
        roll = dice.roll(1, 6, seat=seat, purpose=f"opportunity fire at the patrol in {d['context']['hex']}",
                         rule="PG 5.3", units=[PATROL])
        hit = roll.values[0] >= HIT_ON
        out.append(roll.resolve({"compare": ">=", "value": HIT_ON, "modifiers": [], "result": roll.total},
                                "success" if hit else "failure"))
        if hit:
            out.append((ev.VPScored, {"side": "Blue", "delta": 1, "total": state["vp"]["Blue"] + 1,
                                      "reason": "opportunity fire hit Red's patrol", "rule": "PG 5.3"}))
    return out


# -------------------------------------------------------------------------- standing order ---
def check_policy(state: dict, seat: str, policy: Any) -> dict:
    """PG 5.4: ``{"fire": "always" | "never", "ask_at": [hexes]}``, as recorded."""
    if seat != "Blue":
        raise RuleViolation("PG 5.4", "only Blue is asked to fire at Red's advance")
    if not isinstance(policy, dict):
        raise InvalidOrder("a policy is {\"fire\": \"always\" or \"never\", \"ask_at\": [hexes]}",
                           rule="PG 5.4", field="policy")
    unknown = sorted(set(policy) - {"fire", "ask_at"})
    if unknown:  # "ask" for "ask_at" is refused naming it, not taken for a policy without it
        raise InvalidOrder(f"'{unknown[0]}' is not a field of a policy (its fields: fire, ask_at)",
                           rule="PG 5.4", field=f"policy.{unknown[0]}")
    if policy.get("fire") not in ("always", "never"):
        raise InvalidOrder("'fire' is \"always\" or \"never\"", rule="PG 5.4", field="policy.fire")
    ask_at = policy.get("ask_at", [])
    if not isinstance(ask_at, list) or len(ask_at) > MAX_ASK_AT:
        raise InvalidOrder(f"'ask_at' lists at most {MAX_ASK_AT} hexes", rule="PG 5.4", field="policy.ask_at")
    return {"fire": policy["fire"], "ask_at": sorted({_hex(h, "PG 5.4", "policy.ask_at") for h in ask_at})}


def policy_answer(state: dict, decision: dict, policy: dict) -> str | None:
    """Fire or hold as the policy says; None (ask Blue) in a hex it lists."""
    if decision["context"]["hex"] in policy["ask_at"]:
        return None
    return "fire" if policy["fire"] == "always" else "hold"


POLICIES[DECISION] = Policy(rule="PG 5.4", check=check_policy, answer=policy_answer,
                            description='{"fire": "always" or "never", "ask_at": [hexes where Blue is asked]}')
