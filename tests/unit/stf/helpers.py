"""Shared helpers for the Solitaire Task Force rule tests (pure unit tests, no DB).

Seven helpers write tests against this module at once: only APPEND to it (in your own branch,
below a comment naming your part), never change what is already here.

    st = initial()                        # the state at creation: Campaign phase, nothing rolled
    st = at_phase(st, "Movement", turn=2) # put a built state in a phase of a turn
    dice = FixedDice(3, 5)                # the next rolls come up 3, then 5 (any die size)
    out, st2 = play(st, {"kind": "campaign", "map": "giuk", "side": "US"}, dice)
    assert names(out)[:2] == ["Roll", "CampaignFixed"]
    assert events_of(out, "CampaignFixed")[0] == {"key": "map", ...}
    run_step(st, "system_movement", dice)  # one GameSystem step of data/sequence.json, alone
"""

from __future__ import annotations

import copy
from typing import Any

from domain.game import Roll
from domain.rulesets import find_ruleset
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx, run
# the dice doubles and outcome readers are Falklands' (any ruleset's outcomes), re-exported
from tests.unit.falklands.helpers import DiceExhausted, FixedDice, NoDice, events_of, names, rolls_of  # noqa: F401

R = find_ruleset("stf")


def fold_all(state: dict, outcomes: list) -> dict:
    """Fold outcomes into a state as the ruleset's hooks do while deciding (a Roll as DiceRolled)."""
    st = state
    for seq, o in enumerate(outcomes, start=1):
        if isinstance(o, Roll):
            st = stf_rules.HOOKS.fold(st, "DiceRolled", o.fields(), seq)
        else:
            st = stf_rules.HOOKS.fold(st, o[0].__name__, o[1], seq)
    return st


def play(state: dict, order: dict, dice: Any = None) -> tuple[list, dict]:
    """Decide the Player's ``order`` on ``state`` (never changed) and fold what it emits."""
    dice = dice if dice is not None else NoDice()
    out = R.decide(copy.deepcopy(state), "Player", order, dice)
    return out, fold_all(state, out)


def run_step(state: dict, step: str, dice: Any = None, **frame: Any) -> tuple[list, dict]:
    """Run one GameSystem step (``@STEPS.step(step)``) alone on ``state``: (outcomes, state after)."""
    ctx = Ctx(copy.deepcopy(state), dice if dice is not None else NoDice(), stf_rules.HOOKS)
    run(ctx, [{"step": step, **frame}])
    return ctx.out, ctx.state


def answer_waves(state: dict, dice: Any = None, most: int = 10) -> tuple[list, dict]:
    """The Player answers each SSM wave put to him (nothing sunk) until none is pending, at most
    ``most`` of them: (outcomes, state after)."""
    out: list = []
    for _ in range(most):
        if not state.get("pending"):
            break
        more, state = play(state, {"kind": "decide", "decision": state["pending"][0]["id"], "choice": {"sunk": None}},
                           dice)
        out += more
    return out, state


def pending(state: dict) -> dict | None:
    return state["pending"][0] if state.get("pending") else None


def initial() -> dict:
    """The state at creation: the Campaign phase, nothing rolled."""
    return copy.deepcopy(R.setup(None, {}).state)


def at_phase(state: dict, phase: str, *, turn: int = 1) -> dict:
    st = copy.deepcopy(state)
    st["phase"], st["turn"] = phase, turn
    return st


# ---- search (stf-search: STF 1.9, 1.10, 8.1-8.13) ------------------------------------------------
def counter(cid: str, nation: str, cls: str, value: int, **more: Any) -> dict:
    """A countermix counter with every field the units are made from (data/countermix.json's format)."""
    subs = cls in ("SSN", "SS")
    return {"name": more.pop("name", cid), "nation": nation, "country": nation, "class": cls,
            "ship_class": more.pop("ship_class", cls), "value": value, "vp": more.pop("vp", value),
            "speed": 2 if cls != "SS" else 1, "gun": None, "asw": 1, "aa": 1, "ssm": 0,
            "ssm_loads": 2 if cls in ("CV", "CG") else 0, "ssm_type": None,
            "torpedoes": ({"US": 4, "NATO": 4, "Soviet": 3}[nation] if subs else 0), "flotation": 2,
            "air": ({"L": 2, "M": 2, "H": 1, "EW": 0, "AEW": 0} if cls == "CV" else None), "aircraft": None,
            "role": more.pop("role", None), **more}


def pool_of(nation: str, **counts: int) -> dict:
    """``pool_of("Soviet", PC=3, DD=2)``: counters sov-pc-1.. with each class's usual value
    (data/countermix.json: CV 10, US CV 25, BB 10, CG 6, CL 5, DD 4, FF 3, PC 2, SSN 5, SS 3, FR 0)."""
    values = {"CV": 25 if nation == "US" else 10, "BB": 10, "CG": 6, "CL": 5, "DD": 4, "FF": 3, "PC": 2,
              "SSN": 5, "SS": 3, "FR": 0}
    out = {}
    for cls, n in counts.items():
        for i in range(1, n + 1):
            cid = f"{nation.lower()[:3]}-{cls.lower()}-{i}"
            out[cid] = counter(cid, nation, cls, values[cls], **({"role": "invasion"} if cls == "FR" else {}))
    return out


def system_group(gid: str, kind: str = "tf", **fields: Any) -> dict:
    """A GameSystem task force (``kind`` "tf") or subron on the map, unknown, no chit."""
    return {"id": gid, "owner": "system", "kind": kind, "hex": fields.pop("hex", "0505"), "units": [],
            "status": "on map", "intel": "unknown", "chit": None, "size": None,
            "mode": "deep" if kind == "subron" else None, "emcon": True, "retiring": False, **fields}


def search_state(*groups: dict, pool: dict | None = None, phase: str = "Patrol", **campaign: Any) -> dict:
    """A turn-1 state in ``phase`` with a US Player against a Soviet GameSystem (commitment 45,
    GIUK, a battle) unless ``campaign`` says otherwise, the ``groups`` given and the ``pool``."""
    st = at_phase(initial(), phase, turn=1)
    st["campaign"] = {"map": "giuk", "player_side": "US", "system_side": "Soviet", "mission": "Battle",
                      "invader": None, "commitment": {"Player": {"points": 14, "carriers": 1}, "system": 45},
                      **campaign}
    st["groups"] = {g["id"]: g for g in groups}
    st["groups"].setdefault("P1", {"id": "P1", "owner": "Player", "kind": "tf", "hex": "0101", "units": [],
                                   "status": "on map"})
    st["pool"] = pool if pool is not None else {}
    return st


# ---- combat (stf-combat): built states of groups and units for STF 11 and 12 ---------------------
def ship(cls: str, vp: int, **fields: Any) -> dict:
    """A unit with the countermix's fields (class, VP, gun, ratings, loads) and ``fields`` over them."""
    unit = {"name": fields.pop("name", cls), "nation": "Soviet", "class": cls, "vp": vp, "value": vp, "speed": 3,
            "gun": None, "asw": 0, "aa": 0, "ssm": 0, "ssm_loads": 1, "torpedoes": 0, "flotation": 2,
            "air": None, "role": None}
    unit.update(fields)
    return unit


def combat_state(phase: str = "Combat", *, commitment: int = 52, **campaign: Any) -> dict:
    """A campaign under way (GIUK, a US Player against the Soviet GameSystem, a battle) in ``phase``."""
    st = at_phase(initial(), phase, turn=2)
    st["campaign"].update({"map": "giuk", "player_side": "US", "system_side": "Soviet", "mission": "Battle",
                           "invader": None, "commitment": {"Player": {"points": 21, "carriers": 1}, "system": commitment},
                           **campaign})
    return st


def add_group(st: dict, gid: str, owner: str, hex_: str | None, units: dict, kind: str = "tf", **fields: Any) -> dict:
    """Put group ``gid`` with ``units`` ({id: unit}) in ``st`` (changed in place and returned)."""
    group = {"id": gid, "owner": owner, "kind": kind, "hex": hex_, "units": list(units), "status": "on map"}
    if owner == "system":
        group.update({"intel": "precise", "chit": None, "size": None, "mode": "deep" if kind == "subron" else None,
                      "emcon": False, "retiring": False})
    group.update(fields)
    st["groups"][gid] = group
    for uid, unit in units.items():
        st["units"][uid] = {**unit, "id": uid, "counter": uid, "group": gid}
    return st
