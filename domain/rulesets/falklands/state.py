"""The Falklands Showdown state, its fold and the questions the rules ask of it.

State is JSON. ``fold(state, name, data, seq)`` is the one fold: the aggregate calls it with each
recorded event, and ``decide`` calls it with each outcome as it goes, so a multi-step operation
always reasons about the position its own earlier outcomes made.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager
from contextvars import ContextVar
from types import SimpleNamespace
from typing import Any, Callable, Iterable, Iterator

from domain.rulesets import core
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

UK, AR = "UK", "AR"
SIDES = (UK, AR)
TRACK = "VP"  # one signed VP track: positive favours AR, negative UK (FS 4.1)
SETUP_PHASE = "Set-Up"
PHASES = ["UK Operations", "AR Operations", "UK Submarine", "AR Submarine", "Random Event"]
PHASE_SIDE = {SETUP_PHASE: UK, "UK Operations": UK, "AR Operations": AR, "UK Submarine": UK,
              "AR Submarine": AR, "Random Event": None}
TACTICAL = "falklands"  # the sea area the Tactical Map's land areas lie in (FS 9.3)
ARGENTINA = "argentina"
SOUTH_GEORGIA = "south_georgia"


def other(side: str) -> str:
    return AR if side == UK else UK


# ------------------------------------------------------------------------------- the start ---
def initial(uk_operations: int) -> dict:
    state = core.base_state([UK, AR], PHASES, vp_sides=[TRACK])
    state["phase"] = SETUP_PHASE
    state["active"] = [UK]  # FS 3.1: the AR sets up first (printed, placed below); then the UK places (3.3)
    state["vp"] = {TRACK: DATA.markers["vp"]["start"]}  # FS 3.5: the VP marker "in the \"8\" box" (units.json markers)
    units = {}
    for uid, u in DATA.units.items():
        setup = u.get("setup")
        in_play = setup is not None or (u.get("aboard") and DATA.units[u["aboard"]].get("setup") is not None)
        units[uid] = {"side": u["side"],
                      "location": setup if setup not in (None, "tez") and not u.get("aboard") else None,
                      "aboard": u.get("aboard") if in_play else None, "steps": u["steps"],
                      "eliminated": False, "in_play": bool(in_play) and setup != "tez"}
        if setup == "tez":
            units[uid]["in_play"] = False  # placed by the UK player at set-up (FS 3.3)
    state["units"] = units
    state["control"] = {a: AR for a in DATA.land_areas} | {SOUTH_GEORGIA: AR}  # FS 3.6
    state.update({
        "uk_operations": uk_operations, "uk_operations_left": uk_operations,
        "ops_log": {UK: [], AR: []}, "op2_done": [], "groups_entered": [],
        "phase_ops": {"allowed": 1, "done": 0, "free": 0},
        "effects": {UK: {}, AR: {}}, "stealth_attacks": 0, "exocet": None, "rendezvous": False,
        "order_rolls": [], "political_pressure": None,
    })
    # FS 5.4: event 1-1/1-5 is in effect at the start of the first turn.
    state["effects"][UK]["uk_operational_superiority"] = {"rule": "FS 5.4"}
    return state


# ------------------------------------------------------------------------------- the fold ---
def _units(state: dict, uid: str, **changes: Any) -> dict:
    units = dict(state["units"])
    units[uid] = {**units[uid], **changes}
    return {**state, "units": units}


def _moved(s, d, seq):
    return _units(s, d["unit"], location=d["destination"], aboard=None, in_play=True)


def _hit(s, d, seq):
    return _units(s, d["unit"], steps=d["steps_left"])


def _eliminated(s, d, seq):
    return _units(s, d["unit"], location=None, aboard=None, steps=0, eliminated=True)


def _entered(s, d, seq):
    return _units(s, d["unit"], location=d["area"], aboard=d["aboard"], in_play=True,
                  eliminated=False, steps=DATA.units[d["unit"]]["steps"])


def _embarked(s, d, seq):
    return _units(s, d["unit"], location=None, aboard=d["ship"])


def _disembarked(s, d, seq):
    return _units(s, d["unit"], location=d["area"], aboard=None)


def _repaired(s, d, seq):
    return _units(s, d["unit"], steps=d["steps_left"])


def _withdrawn(s, d, seq):
    s = _units(s, d["unit"], location=None, aboard=None, in_play=False, withdrawn=True)
    if d["unit"] == T.CONVEYOR:
        s = {**s, "rendezvous": True}
    return s


def _control(s, d, seq):
    return {**s, "control": {**s["control"], d["area"]: d["side"]}}


def _vp(s, d, seq):
    return {**s, "vp": {**s["vp"], d["side"]: d["total"]}}


def _phase(s, d, seq):
    side = PHASE_SIDE.get(d["phase"])
    return {**s, "turn": d["turn"], "phase": d["phase"], "active": [side] if side else [],
            "phase_ops": phase_allowance(s, d["phase"])}


def _op_begun(s, d, seq):
    log = {**s["ops_log"], d["side"]: [*s["ops_log"][d["side"]], d["op"]]}
    po = dict(s["phase_ops"])
    po["done"] += 1
    return {**s, "ops_log": log, "phase_ops": po, "leader_played_in_op": False}


def _op_completed(s, d, seq):
    return {**s, "uk_operations_left": d["uk_operations_left"], "leader_played_in_op": False}


def _marker_played(s, d, seq):
    """A Decisive Leader marker played in an operation keeps 4-1/4-3 in effect for all of it (FS 4.4(2))."""
    return {**_generic("MarkerPlayed")(s, d, seq), "leader_played_in_op": True}


def _battle(s, d, seq):
    if T.STEALTH_UNIT and T.STEALTH_UNIT in d["attackers"]:
        return {**s, "stealth_attacks": s["stealth_attacks"] + 1}
    return s


def _effect(s, d, seq):
    effects = {**s["effects"], d["side"]: {**s["effects"][d["side"]], d["effect"]: d["detail"]}}
    s = {**s, "effects": effects}
    if d["effect"] == "reinforcement_group":
        s["groups_entered"] = [*s["groups_entered"], d["detail"]["group"]]
    elif d["effect"] == "op2":
        s["op2_done"] = [*s["op2_done"], d["detail"]["unit"]]
    elif d["effect"] == "tez_expanded":
        s["op10_used"] = True
    elif d["effect"] == "exocet":
        s["exocet"] = d["detail"]["status"]
    elif d["effect"] == "political_pressure":
        s["political_pressure"] = d["detail"]
    return s


def _effect_spent(s, d, seq):
    mine = dict(s["effects"][d["side"]])
    mine.pop(d["effect"], None)
    s = {**s, "effects": {**s["effects"], d["side"]: mine}}
    if d["effect"] == "political_pressure":
        s["political_pressure"] = None
    return s


def _order(s, d, seq):
    return {**s, "order_rolls": []}


def _rolled(s, d, seq):
    roll = {"seq": seq, "seat": d["seat"], "values": [f["value"] for f in d["dice"]], "purpose": d["purpose"]}
    return {**s, "order_rolls": [*s.get("order_rolls", []), roll],
            "last_roll": {"seq": seq, "seat": d["seat"], "epoch": d["epoch"]}}


def _taken_back(s, d, seq):
    """The position before the order taken back, and what that position does not hold: how many
    take-backs the game has had (a decision asked again from it gets an id of its own:
    hooks.position, hooks.ask), and the decisions the order taken back had asked, which are
    waiting no more (an answer naming one is refused saying so: rules._decide)."""
    restored = _generic("TakeBackAccepted")(s, d, seq)
    still = {p["id"] for p in restored["pending"]}
    taken = [*s.get("taken_back_decisions", []), *(p["id"] for p in s["pending"] if p["id"] not in still)]
    # Those the restored position names itself (rules.restore: a decision asked again under a new id).
    taken += [i for i in restored.get("taken_back_decisions", []) if i not in taken]
    return {**restored, "take_backs": s.get("take_backs", 0) + 1, **({"taken_back_decisions": taken} if taken else {})}


def _generic(name: str) -> Callable:
    def apply(s, d, seq):
        return core.FOLD[name](s, SimpleNamespace(**d, originator_version=seq))
    return apply


FOLD: dict[str, Callable[[dict, dict, Any], dict]] = {
    "UnitMoved": _moved, "UnitHit": _hit, "UnitEliminated": _eliminated, "ControlChanged": _control,
    "VPScored": _vp, "PhaseAdvanced": _phase, "TurnAdvanced": _phase,
    "UnitEntered": _entered, "UnitEmbarked": _embarked, "UnitDisembarked": _disembarked,
    "UnitRepaired": _repaired, "UnitWithdrawn": _withdrawn, "OperationBegun": _op_begun,
    "OperationCompleted": _op_completed, "BattleBegun": _battle, "EffectGained": _effect,
    "EffectSpent": _effect_spent, "OrderAccepted": _order, "DiceRolled": _rolled,
    **{n: _generic(n) for n in ("GameCreated", "MarkerGained", "MarkerPlayed", "DecisionPending",
                                "DecisionResolved", "GameEnded")},
    "MarkerPlayed": _marker_played, "TakeBackAccepted": _taken_back,
}


def fold(state: dict | None, name: str, data: dict, seq: Any = None) -> dict:
    f = FOLD.get(name)
    return f(state, data, seq) if f else state


def phase_allowance(state: dict, phase: str) -> dict:
    """How many operations the phase's side conducts (FS 7.1; FS 11.3 1-1, 5-6)."""
    side = PHASE_SIDE.get(phase)
    effects = state["effects"].get(side, {}) if side else {}
    if phase == "UK Operations" and "uk_operational_superiority" in effects:
        return {"allowed": 2, "done": 0, "free": 1}
    if phase == "AR Operations" and "ar_air_panache" in effects:
        return {"allowed": 2, "done": 0, "free": 0}
    return {"allowed": 1, "done": 0, "free": 0}


# ------------------------------------------------------------------------------ questions ---
def unit(state: dict, uid: str) -> dict:
    return state["units"][uid]


def alive(state: dict, uid: str) -> bool:
    u = state["units"].get(uid)
    return bool(u) and u["in_play"] and not u["eliminated"] and not u.get("withdrawn")


def out_of_play(state: dict, uid: str) -> bool:
    """Never brought into play (nor withdrawn from it): a unit an operation may bring in (FS 7.1 Op #2)."""
    u = state["units"][uid]
    return not u["in_play"] and not u.get("withdrawn")


def where(state: dict, uid: str) -> str | None:
    """The area a unit is in; a carried unit is where its ship is (FS 6.5)."""
    u = state["units"][uid]
    if u.get("aboard"):
        return state["units"][u["aboard"]]["location"]
    return u["location"]


def sea_area_of(area: str | None) -> str | None:
    """Land areas of the Tactical Map lie within the Falkland Islands Sea Area (FS 9.3)."""
    if area in DATA.land_areas:
        return TACTICAL
    return area


def kind(uid: str) -> str:
    return DATA.units[uid]["class"]


_POSITIONS: ContextVar[tuple[dict, dict[str, list[str]]] | None] = ContextVar("falklands_positions", default=None)


@contextmanager
def positions_indexed(state: dict) -> Iterator[None]:
    """While the block runs, ``units_in`` on this state looks its area up in an index of where
    every alive unit is, built once, instead of scanning every unit. For a block that only asks
    questions of ``state`` (legal-orders asks units_in about fifty times per set); any other
    state, or a change to this state's units table itself, is answered by the scan."""
    index: dict[str, list[str]] = {}
    units = state["units"]
    for uid, u in units.items():  # ``alive`` and ``where``, inline: built at every legal-orders
        if u and u["in_play"] and not u["eliminated"] and not u.get("withdrawn"):
            ship = u.get("aboard")
            index.setdefault(units[ship]["location"] if ship else u["location"], []).append(uid)
    token = _POSITIONS.set((units, index))
    try:
        yield
    finally:
        _POSITIONS.reset(token)


def units_in(state: dict, area: str, side: str | None = None, classes: Iterable[str] | None = None,
             aboard_too: bool = False) -> list[str]:
    """The units in ``area`` that are alive (``alive``), of ``side`` and ``classes`` when given;
    carried units only with ``aboard_too``, where their ship is (``where``). Asked dozens of
    times for each set of legal orders, so those questions are answered inline here (and from
    an index inside ``positions_indexed``)."""
    classes = set(classes) if classes else None
    units, info = state["units"], DATA.units
    indexed = _POSITIONS.get()
    if indexed is not None and indexed[0] is units:
        return [uid for uid in indexed[1].get(area, ())
                if not (side and units[uid]["side"] != side) and not (classes and info[uid]["class"] not in classes)
                and (aboard_too or not units[uid].get("aboard"))]
    out = []
    for uid, u in units.items():
        if not u or not u["in_play"] or u["eliminated"] or u.get("withdrawn") or (side and u["side"] != side):
            continue
        if classes and info[uid]["class"] not in classes:
            continue
        ship = u.get("aboard")
        if ship:
            if not aboard_too:
                continue
            if units[ship]["location"] == area:
                out.append(uid)
        elif u["location"] == area:
            out.append(uid)
    return out


def units_in_any(state: dict, side: str | None = None, classes: Iterable[str] | None = None) -> list[str]:
    """The alive units (``alive``, inline here: asked at every operation) of ``side`` and
    ``classes`` when given, wherever they are, in the state's order.

    Asked mostly for one side's units of one class (AR aircraft stranded after every operation):
    the units of the classes are a set made once, so most units are passed over with one lookup
    (3.9 instead of 7.5 us a call, on the states of 600 recorded Falklands orders)."""
    wanted = _units_of_classes(tuple(classes)) if classes else None
    return [uid for uid, u in state["units"].items()
            if (wanted is None or uid in wanted) and u and (not side or u["side"] == side)
            and u["in_play"] and not u["eliminated"] and not u.get("withdrawn")]


# The ids of the units of some classes, by the classes; for the units table it was made from
# (a test may swap DATA.units for a copy with other factors).
_CLASS_IDS: dict[tuple[str, ...], frozenset[str]] = {}
_CLASS_IDS_OF: list[Any] = [None]


def _units_of_classes(classes: tuple[str, ...]) -> frozenset[str]:
    info = DATA.units
    if _CLASS_IDS_OF[0] is not info:
        _CLASS_IDS.clear()
        _CLASS_IDS_OF[0] = info
    ids = _CLASS_IDS.get(classes)
    if ids is None:
        ids = _CLASS_IDS[classes] = frozenset(uid for uid, entry in info.items() if entry["class"] in classes)
    return ids


def cargo(state: dict, ship: str) -> list[str]:
    return [uid for uid, u in state["units"].items() if u.get("aboard") == ship and alive(state, uid)]


def ground_sides(state: dict, area: str) -> set[str]:
    return {state["units"][u]["side"] for u in units_in(state, area, classes=["ground"])}


def ground_sides_everywhere(state: dict) -> dict[str, set[str]]:
    """``ground_sides`` of every area that has ground units, from one pass over the units (an
    area with none is absent): asked of every land area after each ground change."""
    out: dict[str, set[str]] = {}
    for uid in units_in_any(state, classes=["ground"]):
        u = state["units"][uid]
        if not u.get("aboard"):
            out.setdefault(u["location"], set()).add(u["side"])
    return out


def contested(state: dict, area: str) -> bool:
    """Both sides have ground units in a land area, or units in a sea area (FS 3.6)."""
    if area in DATA.land_areas:
        return ground_sides(state, area) == {UK, AR}
    present = {state["units"][u]["side"] for u in units_in(state, area, classes=["ship", "submarine"])}
    return present == {UK, AR}


def controlled_by(state: dict, area: str) -> str | None:
    return state["control"].get(area)


def friendly(state: dict, area: str, side: str) -> bool:
    return controlled_by(state, area) == side


def carriers(state: dict, side: str) -> list[str]:
    return [u for u in T.CARRIERS.get(side, ()) if alive(state, u) and where(state, u)]


def in_carrier_range(state: dict, carrier: str, area: str) -> bool:
    """A carrier strikes its own sea area or an adjacent one (FS 9.3, 10.1); land areas lie in the
    Falkland Islands Sea Area. The South Georgia box is no sea area (FS 3.7): no strike goes into
    it or out of it, though it borders Sea Area 5 for ships' movement (FS 9.1)."""
    at = where(state, carrier)
    target = sea_area_of(area)
    if at != target and SOUTH_GEORGIA in (at, target):
        return False
    return at is not None and at != ARGENTINA and (at == target or target in DATA.sea_adjacent(at))


def aircraft_reach(state: dict, uid: str, area: str, refuelled: bool = False) -> bool:
    """Can this AR aircraft reach ``area`` from its base (FS 9.4, 9.5)?"""
    base = where(state, uid)
    if area == SOUTH_GEORGIA:
        return False
    if base in DATA.land_areas:
        return True  # FS 9.5: unlimited from the Falklands
    target = sea_area_of(area)
    rng = DATA.units[uid].get("range")
    if rng == "a4":
        return target in DATA.a4_reach or (refuelled and target in DATA.a4_refuelled_reach)
    return target in DATA.range_line


def aircraft_in_range(state: dict, area: str, refuelled: bool = False) -> list[str]:
    """The AR aircraft at a base (a Falklands airbase or Argentina) that can reach ``area``; with
    ``refuelled``, A-4s count with the reach aerial refuelling gives them (FS 9.4)."""
    return [u for u in units_in_any(state, side=AR, classes=["aircraft"])
            if where(state, u) in (*DATA.land_areas, ARGENTINA) and aircraft_reach(state, u, area, refuelled)]


def may_base(state: dict, uid: str, area: str, arriving: Iterable[str] = (), *, contested_ok: bool = False) -> bool:
    """FS 6.2(3)(4), 6.3, Op #9: can this AR aircraft base in ``area`` with ``arriving`` also coming?
    (FS 6.1: airbases and ships' holds are the only stacking limits; vessels in a sea area and land
    units in a land area have none, so nothing checks them.)
    ``contested_ok``: a contested area qualifies whoever held it last (FS 9.6's destinations)."""
    if area == ARGENTINA:
        return True  # FS 9.7: infinite
    cap = DATA.airbases.get(area, 0)
    if not cap:
        return False
    if "black_buck" in state["effects"][UK] and DATA.units[uid]["type"] != "Puc":
        return False
    if controlled_by(state, area) != AR and not (contested_ok and contested(state, area)):
        return False
    present = [u for u in units_in(state, area, side=AR, classes=["aircraft"]) if u != uid]
    extra = [u for u in arriving if u != uid and u not in present]
    return len(present) + len(extra) + 1 <= cap


def deepcopy(x):
    return copy.deepcopy(x)
