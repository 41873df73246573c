"""The 25 operations of FS 7.1 (and the held land-launched Exocet of FS 11.3 6-4).

Each ``op_N(ctx, side, order)`` checks the order against its rule and either emits what happens at
once or returns the frames (battles, interceptions) that carry it out. Errors name the rule:
``RuleViolation("FS 7.1 Op #6", ...)``.
"""

from __future__ import annotations

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.combat import battle_frame, check_fire, eliminate, fires_at_any, sf_bonus
from domain.rulesets.falklands.data import DATA
from domain.rulesets.toolkit.engine import Ctx, flag, ids, need, text

UK, AR = S.UK, S.AR

TITLES = {
    1: "Strategic Airlift", 2: "Mobilize Additional Ground Forces", 3: "Rebase Aircraft",
    4: "Take Control of South Georgia", 5: "Repair Damaged Vessel", 6: "Enter Reinforcement Group",
    7: "SF Raid on a Falklands Airbase", 8: "Regroup Ground Unit", 9: "Operation Black Buck",
    10: "TEZ Temporarily Expanded", 11: "Aerial Interception of AR Aerial Op", 12: "Cross-Decking",
    13: "Air Attack on an Enemy Falklands Airbase", 14: "Surface Attack on Enemy Surface Vessels",
    15: "Ground Attack", 16: "Amphibious Landing", 17: "Amphibious Assault", 18: "Air-to-Sea Attack",
    19: "Air-to-Ground Attack", 20: "Naval Movement and/or Combat", 21: "Naval Shore Bombardment",
    22: "Helicopter Movement of Ground Units", 23: "Vessel Loading", 24: "Ground Movement and/or Attack",
    25: "SF vs. SF Combat", "exocet": "Land-Launched Exocet",
}
ONLY = {1: AR, 2: AR, 3: AR, 4: UK, 5: UK, 6: UK, 7: UK, 8: UK, 9: UK, 10: UK, 11: UK, 12: UK, 13: UK,
        "exocet": AR}
ONCE = (4, 7, 9, 10)  # FS 7.1: once per game (Op #2 once per unit)
# Operations that move units (FS 11.3 1-6 forbids them; 4-6 forbids AR aircraft; 5-1 attacks).
MOVES = {1, 3, 4, 6, 12, 16, 17, 18, 19, 22, 23}
AIR_ONLY = {1, 3, 18, 19}  # FS 11.3 5-6: ops involving only aircraft


def air_only(op, order: dict) -> bool:
    """FS 11.3 5-6 "ops involving only the moving and/or fighting of aircraft": Op #18/#19 with the
    25 de Mayo involve a ship (as for 4-6, which leaves the carrier free to strike)."""
    return op in AIR_ONLY and not (op in (18, 19) and order.get("carriers"))


def rule(op) -> str:
    return f"FS 7.1 Op #{op}" if op != "exocet" else "FS 11.3 6-4"


name, area_name = DATA.unit_name, DATA.area_name  # refusals say names, as the rules text does


def unit_ids(order: dict, key: str, op, *, required: bool = False, most: int | None = None) -> list[str]:
    got = ids(order, key, rule(op), required=required, most=most)
    for u in got:
        if u not in DATA.units:
            raise InvalidOrder(f"no unit {u!r} in this game{DATA.meant(u)}", rule=rule(op), field=key)
    return got


def area_of(order: dict, key: str, op, *, kinds: tuple = ()) -> str:
    """The area ``order[key]`` names, one of the map's (FS 9.8: so no move takes a unit off the map;
    the South Georgia box and Argentina are areas of it)."""
    a = text(order, key, rule(op))
    if a not in DATA.areas:
        raise InvalidOrder(f"no area {a!r} on the map{DATA.meant(a, 'areas')}", rule=rule(op), field=key)
    if kinds and DATA.areas[a]["kind"] not in kinds:
        raise RuleViolation(rule(op), f"{area_name(a)} is not a {' or '.join(kinds)} area")
    return a


def mine(ctx: Ctx, units: list[str], side: str, op, classes: tuple = ()) -> None:
    for u in units:
        need(DATA.units[u]["side"] == side, rule(op), f"{name(u)} is not {'an' if side == AR else 'a'} {side} unit")
        need(S.alive(ctx.state, u), rule(op), f"{name(u)} is not in play")
        if classes:
            need(S.kind(u) in classes, rule(op), f"{name(u)} is not a {' or '.join(classes)}")


def whole_force(ctx: Ctx, side: str, area: str, classes: tuple, named: list[str]) -> list[str]:
    """FS 10.2: the named units and every other unit of ``side`` in the battle's area of the classes
    the operation fights with; none may be withheld (carried units share their ship's fate, 6.5)."""
    present = S.units_in(ctx.state, area, side=side, classes=list(classes))
    return [*named, *[u for u in present if u not in named]]


def staff_work(ctx: Ctx, side: str, area: str, units: list[str]) -> None:
    """FS 11.3 1-6 "may not conduct any air, sea or land movement ... Battles may be fought in areas
    already contested": a UK battle under 1-6 is in a contested area, fought by units already in it
    (land areas lie in the Falkland Islands Sea Area, FS 9.3): a carrier strike or bombardment
    reaching into another area is air or sea movement."""
    if side != UK or "poor_uk_staff_work" not in ctx.state["effects"][UK]:
        return
    need(S.contested(ctx.state, area), "FS 11.3 1-6",
         f"no UK movement this Operations Phase: battles only in areas already contested ({area_name(area)} is not)")
    for u in units:
        need(S.where(ctx.state, u) in (area, S.sea_area_of(area)), "FS 11.3 1-6",
             f"no UK air or sea movement this Operations Phase: {name(u)} is not in {area_name(area)}")


def without_attack(order: dict, op) -> None:
    """Op #20, #22, #24 without ``"attack": true`` move only: a field that goes with the attack
    (those joining it, its shots, 3-2's target) is refused, never dropped in silence."""
    given = [k for k in ("support", "fire", "aircraft", "carriers", "refuel", "target_of_opportunity")
             if order.get(k) is not None and order.get(k) != []]
    if given:
        raise RuleViolation(rule(op), f"'{given[0]}' goes with 'attack': true (a move alone has none)")


def fire_of(order: dict):
    """The shots an order assigns; none given means automatic fire (FS 10.2, combat.auto_fire)."""
    fire = order.get("fire")
    return "auto" if fire is None else fire


# ----------------------------------------------------------------------------- availability ---
def restriction(state: dict, side: str, op) -> str | None:
    """Why ``side`` may not choose ``op`` now (the rule and why), or None."""
    r = rule(op)
    if op == 11:
        return f"{r}: interception is the UK's answer to an AR air operation, not an operation to choose"
    if op in ONLY and ONLY[op] != side:
        return f"{r}: {ONLY[op]} only"
    used = state["ops_log"][side]
    if op in ONCE and op in used or (op == 10 and state.get("op10_used")):
        return f"{r}: only once per game"
    effects = state["effects"][side]
    if op == 2 and len(state["op2_done"]) >= len(T.OP2_UNITS):
        return f"{r}: all three units have been mobilized"
    if op == 5 and 4 not in state["ops_log"][UK]:
        return f"{r}: not until after Op #4"
    if op == 6:
        if len(used) < 2:
            return f"{r}: never as either of the first two UK operations"
        if used and used[-1] == 6:
            return f"{r}: never twice in a row"
        if len(state["groups_entered"]) >= len(T.GROUPS):
            return f"{r}: every reinforcement group has entered"
    if op == 10:
        return f"{r}: Op #10 is tacked onto a combat operation (\"with_op_10\": true), not chosen alone"
    if op == "exocet" and state.get("exocet") != "held":
        return "FS 11.3 6-4: AR holds no land-launched Exocet"
    # FS 11.3 1-6: the ops that move units, and Op #9's Vulcans (an air mission from outside);
    # carrier strikes and bombardments stay, checked by staff_work (battles in contested areas).
    if side == UK and "poor_uk_staff_work" in effects and op in (MOVES - {18, 19}) | {9}:
        return f"FS 11.3 1-6: no air, sea or land movement this Operations Phase ({r})"
    # FS 11.3 4-6 grounds aircraft units; Op #3 moves nothing else. The 25 de Mayo is a ship: it
    # may still strike alone in Op #18/#19 as in Op #14/#20 (air_units refuses the aircraft).
    if side == AR and "ar_air_mechanical" in effects and op == 3:
        return f"FS 11.3 4-6: no AR aircraft may move or fight this Operations Phase ({r})"
    if side == AR and "poor_ar_logistics" in effects and op in (14, 15, 17, 18, 19, 21, 25, "exocet"):
        return f"FS 11.3 5-1: no AR attack this Operations Phase ({r})"
    # FS 11.3 5-6 "may conduct two ops ..., provided they're both ops involving only aircraft": a
    # first op of another kind stays possible and is the phase's only one (flow.after_op ends it).
    if side == AR and "ar_air_panache" in effects and op not in AIR_ONLY and state["phase_ops"]["done"] >= 1:
        return f"FS 11.3 5-6: both operations of this phase must involve only aircraft ({r})"
    return None


# ---------------------------------------------------------------------------------- ops ---
def op_1(ctx: Ctx, side: str, order: dict) -> list:
    """Strategic airlift: up to two ground units from Argentina to Port Stanley airfield."""
    units = unit_ids(order, "units", 1, required=True, most=2)
    mine(ctx, units, AR, 1, ("ground",))
    for u in units:
        need(S.where(ctx.state, u) == S.ARGENTINA and not ctx.state["units"][u]["aboard"], rule(1),
             f"{name(u)} is not in Argentina")
    # No control condition in Op #1: only a Port Stanley the UK holds alone is no AR airfield (FS 6.3);
    # a contested one takes the airlift whoever held it last, as it takes emergency rebasing (9.6).
    need(S.controlled_by(ctx.state, T.PORT_STANLEY) == AR or S.contested(ctx.state, T.PORT_STANLEY), rule(1),
         "Port Stanley is held by the UK: its airfield is no AR base (FS 6.3)")
    for u in units:
        ctx.emit(ev.UnitMoved, unit=u, origin=S.ARGENTINA, destination=T.PORT_STANLEY, rule=rule(1))
    return []


def op_2(ctx: Ctx, side: str, order: dict) -> list:
    u = text(order, "unit", rule(2))
    need(u in T.OP2_UNITS, rule(2), "the units to mobilize are "
                                    f"{', '.join(f'{name(x)} ({x!r})' for x in T.OP2_UNITS)}{DATA.meant(u)}")
    need(u not in ctx.state["op2_done"], rule(2), f"{name(u)} has already been mobilized")
    need(S.out_of_play(ctx.state, u), rule(2), f"{name(u)} is not out of play: it is not a unit to mobilize")
    ctx.emit(ev.EffectGained, side=AR, effect="op2", title=f"{name(u)} mobilized", rule=rule(2), detail={"unit": u})
    ctx.emit(ev.UnitEntered, unit=u, area=S.ARGENTINA, aboard=None, rule=rule(2))
    ctx.vp(S.TRACK, -1, f"AR mobilized {name(u)}", rule(2))  # FS 4.4(6): a negative VP (the UK's) each time
    return []


def op_3(ctx: Ctx, side: str, order: dict) -> list:
    aircraft = unit_ids(order, "aircraft", 3, required=True)
    mine(ctx, aircraft, AR, 3, ("aircraft",))
    origin = area_of(order, "origin", 3)
    dest = area_of(order, "destination", 3)
    need(origin != dest, rule(3), "origin and destination must differ")
    for u in aircraft:
        need(S.where(ctx.state, u) == origin, rule(3), f"{name(u)} is not at {area_name(origin)}")
    if origin != S.ARGENTINA:
        need(origin in DATA.land_areas and S.controlled_by(ctx.state, origin) == AR or S.contested(ctx.state, origin),
             rule(3), f"{area_name(origin)} is neither friendly nor contested")
    # FS 3.7, 6.4: the AR may have only submarines in the South Georgia box (the UK stacks anything there)
    need(dest != S.SOUTH_GEORGIA, "FS 3.7", "no AR units but submarines may be moved into the South Georgia "
                                            "Holding Box")
    need(dest == S.ARGENTINA or (dest in DATA.land_areas and S.controlled_by(ctx.state, dest) == AR
                                 and not S.contested(ctx.state, dest)),
         rule(3), f"{area_name(dest)} is not a friendly, uncontested area")
    # FS 9.4: a rebase from Argentina flies within the aircraft's range (A-4s: the Falklands with
    # aerial refuelling, "in any one operation in which they're involved"); FS 9.5 from the Falklands.
    refuel = refuelled(ctx, order, 3, aircraft)
    for u in aircraft:
        need(S.aircraft_reach(ctx.state, u, dest, u in refuel), "FS 9.4",
             f"{name(u)} cannot reach {area_name(dest)} from {area_name(origin)}{refuel_hint(ctx, u, dest, refuel)}")
    for u in aircraft:
        need(S.may_base(ctx.state, u, dest, aircraft), T.BASING_RULES.get(dest, "FS 6.2")
             if "black_buck" not in ctx.state["effects"][UK] or DATA.units[u]["type"] == "Puc" else "FS 7.1 Op #9",
             f"{name(u)} cannot base at {area_name(dest)} (capacity {DATA.airbases.get(dest, 0)}"
             f"{'; after Black Buck only Pucaras base in the Falklands' if 'black_buck' in ctx.state['effects'][UK] else ''})")
    return intercepted(ctx.state, aircraft, dest, 3,
                       {"step": "rebase_moves", "aircraft": aircraft, "origin": origin, "destination": dest, "rule": rule(3)})


def op_4(ctx: Ctx, side: str, order: dict) -> list:
    ships = unit_ids(order, "ships", 4, required=True)
    sub = text(order, "submarine", rule(4))
    sf = unit_ids(order, "sf", 4, required=True)
    need(len(ships) == 3, rule(4), "the force is three surface vessels, a submarine and two SF units")
    need(len(sf) == 2, rule(4), "the force is three surface vessels, a submarine and two SF units")
    need(sub in DATA.units, rule(4), f"no unit {sub!r}{DATA.meant(sub)}")
    mine(ctx, ships, UK, 4, ("ship",))
    mine(ctx, [sub], UK, 4, ("submarine",))
    mine(ctx, sf, UK, 4, ("ground",))
    for u in sf:
        need(DATA.units[u]["type"] == "sf", rule(4), f"{name(u)} is not a special forces unit")
        need(ctx.state["units"][u]["aboard"] in [*ships, sub], rule(4), f"{name(u)} must be aboard one of the force's vessels")
    need(S.controlled_by(ctx.state, S.SOUTH_GEORGIA) == AR, rule(4), "South Georgia is already UK-held")
    for u in [*ships, sub]:
        if S.where(ctx.state, u) != S.SOUTH_GEORGIA:
            ctx.emit(ev.UnitMoved, unit=u, origin=S.where(ctx.state, u), destination=S.SOUTH_GEORGIA, rule=rule(4))
    # "thereby automatically gaining control of it": the box is the UK's as the force enters, and
    # the AR submarines there are then eliminated (their 4.4(3) VP may end the game, FS 4.5)
    ctx.emit(ev.ControlChanged, area=S.SOUTH_GEORGIA, side=UK, previous=AR, rule=rule(4))
    for u in S.units_in(ctx.state, S.SOUTH_GEORGIA, side=AR, classes=["submarine"]):
        eliminate(ctx, u, rule(4))
    return []


def op_5(ctx: Ctx, side: str, order: dict) -> list:
    u = text(order, "unit", rule(5))
    need(u in DATA.units, rule(5), f"no unit {u!r}{DATA.meant(u)}")
    mine(ctx, [u], UK, 5, ("ship", "submarine"))
    need(ctx.state["units"][u]["steps"] < DATA.units[u]["steps"], rule(5), f"{name(u)} is not damaged")
    need(S.where(ctx.state, u) == S.SOUTH_GEORGIA, rule(5), f"{name(u)} is not in the South Georgia Holding Box")
    ctx.emit(ev.UnitRepaired, unit=u, steps_left=DATA.units[u]["steps"], rule=rule(5))
    return []


def op_6(ctx: Ctx, side: str, order: dict) -> list:
    group = next(g for g in T.GROUPS if g not in ctx.state["groups_entered"])
    entry = order.get("entry")
    entry = {} if entry is None else entry  # all via Sea Area 4; 0, "" or [] is no map of ships
    if not isinstance(entry, dict) or not all(isinstance(v, str) for v in entry.values()):
        raise InvalidOrder(f"'entry' maps ship ids to the ids of {area_name('sa4')} or the "
                           f"{area_name(S.SOUTH_GEORGIA)}", rule=rule(6), field="entry")
    units = T.group_units(group)
    vessels = [u for u in units if S.kind(u) in ("ship", "submarine")]
    for ship, where in entry.items():
        need(ship in vessels, rule(6), f"{name(ship)} is not a vessel of group {group}, the lowest not yet entered")
        need(where in ("sa4", S.SOUTH_GEORGIA), rule(6), "a group enters via Sea Area 4 or a UK-held South Georgia")
        if where == S.SOUTH_GEORGIA:
            need(S.controlled_by(ctx.state, S.SOUTH_GEORGIA) == UK, rule(6), "South Georgia is not UK-held")
    ctx.emit(ev.EffectGained, side=UK, effect="reinforcement_group", title=f"group {group} entered",
             rule=rule(6), detail={"group": group})
    for u in units:
        if S.kind(u) in ("ship", "submarine"):
            ctx.emit(ev.UnitEntered, unit=u, area=entry.get(u, "sa4"), aboard=None, rule=rule(6))
    for u in units:
        if S.kind(u) not in ("ship", "submarine"):
            ctx.emit(ev.UnitEntered, unit=u, area=None, aboard=DATA.units[u]["aboard"], rule=rule(6))
    return []


def op_7(ctx: Ctx, side: str, order: dict) -> list:
    sf = text(order, "sf", rule(7))
    target = text(order, "target", rule(7))
    for uid in (sf, target):
        need(uid in DATA.units, rule(7), f"there is no unit {uid!r}{DATA.meant(uid)}")
    mine(ctx, [sf], UK, 7, ("ground",))
    need(DATA.units[sf]["type"] == "sf", rule(7), f"{name(sf)} is not a special forces unit")
    at = ctx.state["units"][sf]
    if not at["aboard"]:
        need(S.controlled_by(ctx.state, at["location"]) == UK and not S.contested(ctx.state, at["location"]),
             rule(7), f"{name(sf)} must be aboard a ship or in a friendly, uncontested land area")
    mine(ctx, [target], AR, 7, ("aircraft",))
    need(S.where(ctx.state, target) in DATA.land_areas, rule(7), f"{name(target)} is not on a Falklands airfield")
    return [{"step": "sf_raid", "sf": sf, "target": target, "stage": "remove"}]


def op_8(ctx: Ctx, side: str, order: dict) -> list:
    u = text(order, "unit", rule(8))
    need(u in DATA.units, rule(8), f"no unit {u!r}{DATA.meant(u)}")
    mine(ctx, [u], UK, 8, ("ground",))
    need(ctx.state["units"][u]["steps"] < DATA.units[u]["steps"], rule(8), f"{name(u)} bears no Hit marker")
    here = ctx.state["units"][u]
    if not here["aboard"]:
        need(S.controlled_by(ctx.state, here["location"]) == UK and not S.contested(ctx.state, here["location"]),
             rule(8), f"{name(u)} must be on a UK vessel or in a friendly, uncontested land area")
    else:
        regroup_fits(ctx.state, u, raising=True)
    ctx.emit(ev.UnitRepaired, unit=u, steps_left=DATA.units[u]["steps"], rule=rule(8))
    return []


def regroup_fits(state: dict, u: str, raising: bool = False) -> bool:
    """FS 6.2(2) with Op #8: a unit regrouped aboard counts its two steps again, and its ship's load
    limit is observed (as for Op #12 and #23): a full ship cannot take the step back."""
    ship = state["units"][u]["aboard"]
    if not ship:
        return True
    restored = {**state, "units": {**state["units"], u: {**state["units"][u], "steps": DATA.units[u]["steps"]}}}
    aboard = {x: s for x, s in loads_after(restored, UK, {}).items() if s == ship}
    try:
        check_loads(aboard, rule(8), restored)
    except RuleViolation:
        if raising:
            raise
        return False
    return True


def op_9(ctx: Ctx, side: str, order: dict) -> list:
    ctx.emit(ev.EffectGained, side=UK, effect="black_buck", title="Operation Black Buck", rule=rule(9), detail={})
    for u in S.units_in_any(ctx.state, side=AR, classes=["aircraft"]):
        if S.where(ctx.state, u) in DATA.land_areas and DATA.units[u]["type"] != "Puc":
            ctx.emit(ev.UnitMoved, unit=u, origin=S.where(ctx.state, u), destination=S.ARGENTINA, rule=rule(9))
    return []


def op_12(ctx: Ctx, side: str, order: dict) -> list:
    moves = shipping(ctx, order, "moves", 12, UK)
    for u, ship in moves.items():
        old = ctx.state["units"][u]["aboard"]
        need(old is not None, rule(12), f"{name(u)} is not aboard a ship")
        need(S.where(ctx.state, old) == S.where(ctx.state, ship), rule(12),
             f"{name(old)} and {name(ship)} are not in the same sea area")
        # "in the same sea area": the South Georgia box "is neither a sea nor a land area" (FS 3.7)
        need(S.where(ctx.state, ship) != S.SOUTH_GEORGIA, rule(12),
             "no cross-decking in the South Georgia Holding Box: it is not a sea area (FS 3.7)")
    # "switch around ground units ... to other naval vessels": an operation that moves no unit is none
    need(any(ctx.state["units"][u]["aboard"] != ship for u, ship in moves.items()), rule(12),
         "no unit changes ship: name another vessel in the same sea area")
    check_loads(loads_after(ctx.state, UK, moves), rule(12), ctx.state)
    for u, ship in moves.items():
        if ctx.state["units"][u]["aboard"] != ship:
            ctx.emit(ev.UnitEmbarked, unit=u, ship=ship, origin=ctx.state["units"][u]["aboard"], rule=rule(12))
    return []


def shipping(ctx: Ctx, order: dict, key: str, op, side: str) -> dict[str, str]:
    """An order's ``{ground unit: ship}`` map (Op #12 moves, Op #23 loads): the side's own units in play."""
    value = order.get(key)
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise InvalidOrder(f"'{key}' maps ground unit ids to ship ids", rule=rule(op), field=key)
    for u, ship in value.items():
        need(u in DATA.units, rule(op), f"there is no unit {u!r}{DATA.meant(u)}")
        need(ship in DATA.units, rule(op), f"there is no ship {ship!r}")
        mine(ctx, [u], side, op, ("ground",))
        mine(ctx, [ship], side, op, ("ship", "submarine"))
    return value


def loads_after(state: dict, side: str, changes: dict[str, str]) -> dict[str, str]:
    """Who would be aboard which ship once ``changes`` are made."""
    aboard = {u: state["units"][u]["aboard"] for u in S.units_in_any(state, side=side, classes=["ground"])
              if state["units"][u]["aboard"]}
    return {**aboard, **changes}


def check_loads(aboard: dict[str, str], r: str, state: dict | None = None) -> None:
    """FS 6.2 / 6.5: who may carry what, within each ship's capacity."""
    by_ship: dict[str, list[str]] = {}
    for u, ship in aboard.items():
        by_ship.setdefault(ship, []).append(u)
    for ship, units in by_ship.items():
        d = DATA.units[ship]
        sf = [u for u in units if DATA.units[u]["type"] == "sf"]
        others = [u for u in units if DATA.units[u]["type"] != "sf"]
        if d["class"] == "submarine":
            need(d.get("carries_sbs") and all(DATA.units[u].get("id", u) == "sbs" for u in units) and len(units) <= 1,
                 "FS 6.2(1)", f"{d['name']}: no submarine carries ground units, except Onyx the SBS")
            continue
        if ship == T.CONVEYOR:
            need(not units, "FS 6.2(2)", "the Atlantic Conveyor never carries any units")
        need(d.get("capacity", 0) > 0 or not others, "FS 6.5",
             f"{d['name']} is not a transport: it may carry one SF unit only (FS 6.2(1))")
        # FS 6.2(1): a surface ship that is no transport (capacity 0) carries one SF unit; on an A or
        # T ship every unit, SF too, counts against the maximum printed on it (6.2(2): "The
        # maximums those vessels may transport"; Cabo San Antonio "up to two units (only infantry,
        # heavy machinegun and SF)"; 6.5 makes 6.2(1) the exception to "only ... 'A' or 'T'").
        counted = others + (sf if d.get("capacity", 0) > 0 else sf[1:])
        need(len(sf) <= 1 or d.get("capacity", 0) > 0, "FS 6.2(1)", f"{d['name']} may carry one SF unit only")
        for u in others:
            if DATA.units[u].get("armor"):
                need(d.get("carries_armor"), "FS 6.2(2)", f"only Elk, Fearless and Intrepid carry {DATA.units[u]['name']}")
            if d["side"] == AR:
                need(DATA.units[u]["type"] in ("infantry", "hmg", "sf"), "FS 6.2(2)",
                     f"{d['name']} carries only infantry, heavy machinegun and SF units")
        # UK loads count the steps each unit has now: a Hit unit has one (FS 2.8, 6.2(2)).
        load = (len(counted) if d["side"] == AR else
                sum((state["units"][u]["steps"] if state else DATA.units[u]["steps"]) for u in counted))
        need(load <= d.get("capacity", 0), "FS 6.2(2)",
             f"{d['name']} carries at most {d.get('capacity', 0)} {'units' if d['side'] == AR else 'steps'}")


def _targets(ctx: Ctx, area: str, enemy: str, classes: tuple, *, no_sf: bool = False) -> list[str]:
    units = S.units_in(ctx.state, area, side=enemy, classes=list(classes))
    if no_sf:
        units = [u for u in units if DATA.units[u]["type"] != "sf"]
    return units


def op_13(ctx: Ctx, side: str, order: dict) -> list:
    carriers = unit_ids(order, "carriers", 13, required=True)
    mine(ctx, carriers, UK, 13, ("ship",))
    base = area_of(order, "airbase", 13, kinds=("land",))
    need(DATA.airbases.get(base, 0) > 0, rule(13), f"{area_name(base)} has no airbase")
    for c in carriers:
        need(c in T.UK_CARRIERS, rule(13), f"{name(c)} is not an aircraft carrier")
        need(S.in_carrier_range(ctx.state, c, base), "FS 9.3", f"{name(c)} is out of range of {area_name(base)}")
    targets = _targets(ctx, base, AR, ("aircraft",))
    need(targets, rule(13), f"no AR aircraft at {area_name(base)}")
    staff_work(ctx, UK, base, carriers)
    b = battle_frame(base, UK, "airbase", rule(13), carriers, targets, [], return_fire=False)
    b["fire"] = check_fire(ctx.state, b, UK, fire_of(order), carriers, targets, rule(13))
    need(b["fire"], rule(13), "an attack needs at least one shot ('fire')")
    return [b]


# the battle kind of each attack aircraft may be flown into: what they may fire at (combat.can_fire_at)
AIR_ATTACK_KIND = {15: "ground", 18: "air_sea", 19: "air_ground", 20: "naval"}


def able_to_fire(ctx: Ctx, b: dict, aircraft, targets: list[str]) -> None:
    """FS 10.2 "Units participate in combat ... by 'firing'", and a unit without the factor for a
    type of target "may not fire at that type": an aircraft flown into an attack that can fire at
    none of its targets (the stealth aircraft's anti-ground 0 in Op #19), or a ship named for a
    bombardment (Op #17, #21) that can fire at nothing there, may not join it."""
    for u in aircraft:
        need(fires_at_any(ctx.state, b, u, targets), "FS 10.2",
             f"{name(u)} cannot fire at any target in {area_name(b['area'])}: it may not join this attack")


def _sea_battle(ctx, side, order, op, area, units, classes, kind, extra_air=(), carriers_from=(), **kw):
    enemy = S.other(side)
    targets = _targets(ctx, area, enemy, classes)
    need(targets, rule(op), f"no enemy {' or '.join(classes)} in {area_name(area)}")
    attackers = [*units, *extra_air, *carriers_from]
    exposed = [u for u in attackers if S.where(ctx.state, u) == area or S.kind(u) == "aircraft"]
    b = battle_frame(area, side, kind, rule(op), attackers, targets, [], exposed=exposed, **kw)
    able_to_fire(ctx, b, extra_air, targets)
    b["fire"] = check_fire(ctx.state, b, side, fire_of(order), attackers, targets, rule(op))
    need(b["fire"], rule(op), "an attack needs at least one shot ('fire')")
    return b


def op_14(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 14, kinds=("sea", "box"))
    units = unit_ids(order, "units", 14, required=True)
    mine(ctx, units, side, 14, ("ship", "submarine"))
    for u in units:
        need(S.where(ctx.state, u) == area, rule(14), f"{name(u)} is not in {area_name(area)}")
    tez = tez_expansion(ctx, side, order, 14)
    units = whole_force(ctx, side, area, ("ship", "submarine"), units)
    return [_sea_battle(ctx, side, order, 14, area, units, ("ship",), "surface", tez_expanded=tez,
                        protected_waiver=waiver(ctx, side, order, area))]  # FS 11.3 3-2: any attack on ships


def tez_expansion(ctx: Ctx, side: str, order: dict, op) -> bool:
    """Op #10 tacked onto a UK combat op (FS 7.1 Op #10)."""
    if not flag(order, "with_op_10", rule(10)):
        return False
    need(side == UK, rule(10), "UK only")
    need(not ctx.state.get("op10_used"), rule(10), "only once per game")
    ctx.emit(ev.EffectGained, side=UK, effect="tez_expanded", title="TEZ temporarily expanded", rule=rule(10),
             detail={"op": op})
    return True


def refuel_hint(ctx: Ctx, u: str, area: str, refuel: list[str]) -> str:
    """What a refusal of an A-4 out of range adds when aerial refuelling would bring it there (FS 9.4:
    "up to four Argentina-based A-4 units may be designated as using aerial refueling"): the field."""
    if u in refuel or not S.aircraft_reach(ctx.state, u, area, True):
        return ""
    return " without aerial refuelling: name it in 'refuel' too (up to four A-4s an operation)"


def air_units(ctx: Ctx, side: str, order: dict, op, target_area: str) -> tuple[list, list, list]:
    """Aircraft (AR, land-based, in range) and carriers (in range) committed to an attack."""
    aircraft = unit_ids(order, "aircraft", op)
    carriers = unit_ids(order, "carriers", op)
    if aircraft:
        need(side == AR, rule(op), "the UK has no land-based aircraft; its air power is its carriers")
        mine(ctx, aircraft, AR, op, ("aircraft",))
        need("ar_air_mechanical" not in ctx.state["effects"][AR], "FS 11.3 4-6", "no AR aircraft may move or fight this phase")
    refuel = refuelled(ctx, order, op, aircraft)
    for u in aircraft:
        need(S.where(ctx.state, u) in (*DATA.land_areas, S.ARGENTINA), rule(op), f"{name(u)} is not at a base")
        need(S.aircraft_reach(ctx.state, u, target_area, u in refuel),
             "FS 3.7" if target_area == S.SOUTH_GEORGIA else "FS 9.4",  # 3.7/9.5: never into the box
             f"{name(u)} cannot reach {area_name(target_area)} from {area_name(S.where(ctx.state, u))}"
             f"{refuel_hint(ctx, u, target_area, refuel)}")
    for c in carriers:
        need(c in T.CARRIERS[side], rule(op), f"{name(c)} is not {'an' if side == AR else 'a'} {side} aircraft carrier")
        mine(ctx, [c], side, op, ("ship",))
        need(S.in_carrier_range(ctx.state, c, target_area), "FS 9.3", f"{name(c)} is out of range of {area_name(target_area)}")
    return aircraft, carriers, refuel


def refuelled(ctx: Ctx, order: dict, op, aircraft: list[str]) -> list[str]:
    """FS 9.4: "in any one operation in which they're involved, up to four Argentina-based A-4
    units may be designated as using aerial refueling" - the order's ``refuel``."""
    refuel = unit_ids(order, "refuel", op)
    need(len(refuel) <= 4, "FS 9.4", "at most four A-4s use aerial refuelling in one operation")
    for u in refuel:
        need(u in aircraft and DATA.units[u].get("range") == "a4" and S.where(ctx.state, u) == S.ARGENTINA,
             "FS 9.4", f"{name(u)}: aerial refuelling is for Argentina-based A-4s in this operation")
    return refuel


def one_base(ctx: Ctx, op, aircraft: list[str]) -> None:
    """Op #18/#19 "move a force of friendly aircraft from a land area": one force from one area
    (FS 9.9); carriers join from elsewhere, as the operation says, other aircraft do not."""
    bases = list(dict.fromkeys(S.where(ctx.state, u) for u in aircraft))
    need(len(bases) <= 1, rule(op), "the aircraft fly from one land area (FS 9.9), not from "
                                    f"{' and '.join(area_name(b) for b in bases)}")


def op_18(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 18, kinds=("sea", "box"))
    aircraft, carriers, _ = air_units(ctx, side, order, 18, area)
    one_base(ctx, 18, aircraft)
    need(aircraft or carriers, rule(18), "name the aircraft and/or carriers that attack")
    staff_work(ctx, side, area, carriers)
    tez = tez_expansion(ctx, side, order, 18)
    b = _sea_battle(ctx, side, order, 18, area, [], ("ship",), AIR_ATTACK_KIND[18], aircraft, carriers, tez_expanded=tez,
                    protected_waiver=waiver(ctx, side, order, area))
    return intercepted(ctx.state, aircraft, area, 18, b)


def waiver(ctx: Ctx, side: str, order: dict, area: str) -> str | None:
    """FS 11.3 3-2/3-3: AR may attack one protected UK ship without the unprotected ones (in
    ``area``, the battle's: "without having to also engage unprotected targets in that same area")."""
    t = order.get("target_of_opportunity")
    if t is None:
        return None
    need(side == AR and "ar_target_of_opportunity" in ctx.state["effects"][AR], "FS 11.3 3-2",
         "'target_of_opportunity' is the AR's while event 3-2/3-3 is in effect, as his next operation")
    need(isinstance(t, str) and t in DATA.units and DATA.units[t]["side"] == UK and DATA.units[t].get("protected")
         and S.kind(t) == "ship", "FS 11.3 3-2", "'target_of_opportunity' names one protected UK surface vessel")
    need(S.alive(ctx.state, t) and S.where(ctx.state, t) == area, "FS 11.3 3-2",
         f"{name(t)} is not in {area_name(area)}, where this attack is")
    return t


def op_19(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 19, kinds=("land",))
    aircraft, carriers, _ = air_units(ctx, side, order, 19, area)
    one_base(ctx, 19, aircraft)
    need(aircraft or carriers, rule(19), "name the aircraft and/or carriers that attack")
    staff_work(ctx, side, area, carriers)
    targets = _targets(ctx, area, S.other(side), ("ground",), no_sf=True)
    need(targets, rule(19), f"no enemy ground units that may be attacked from the air in {area_name(area)} (FS 7.1 Op #19: never SF)")
    attackers = [*aircraft, *carriers]
    b = battle_frame(area, side, AIR_ATTACK_KIND[19], rule(19), attackers, targets, [], exposed=list(aircraft))
    able_to_fire(ctx, b, aircraft, targets)
    b["fire"] = check_fire(ctx.state, b, side, fire_of(order), attackers, targets, rule(19))
    need(b["fire"], rule(19), "an attack needs at least one shot ('fire')")
    return intercepted(ctx.state, aircraft, area, 19, b)


def op_20(ctx: Ctx, side: str, order: dict) -> list:
    units = unit_ids(order, "units", 20)
    dest = area_of(order, "destination", 20, kinds=("sea", "box", "mainland"))
    support = unit_ids(order, "support", 20)
    attack = flag(order, "attack", rule(20))  # FS 10.1: combat is voluntary; without it the force only moves
    mine(ctx, units + support, side, 20, ("ship", "submarine"))
    origins = {S.where(ctx.state, u) for u in units}
    need(len(origins) <= 1, "FS 9.9", "a force moves from one area")
    need(units or attack, rule(20), "move some vessels, or attack where they already are")
    if units and not attack:
        need(dest not in origins, rule(20), "the force is already there")
    if side == UK and units and "poor_uk_staff_work" in ctx.state["effects"][UK]:
        need(dest in origins, "FS 11.3 1-6", "no UK sea movement this Operations Phase")
    if dest == S.ARGENTINA:
        need(side == AR, "FS 9.7", "no UK movement or combat may take place in Argentina")
        need(not attack, "FS 9.7", "no combat in Argentina")
    if dest == S.SOUTH_GEORGIA and side == AR:
        need(all(S.kind(u) == "submarine" for u in units), "FS 3.7", "only AR submarines may enter South Georgia")
    for u in support:
        need(u not in units, rule(20), f"{name(u)} is named in 'units' and in 'support'")
        need(S.where(ctx.state, u) == dest, rule(20), f"{name(u)} is not already in {area_name(dest)}")
    for u in units:
        here = S.where(ctx.state, u)
        if here != dest:
            ctx.emit(ev.UnitMoved, unit=u, origin=here, destination=dest, rule=rule(20))
    if not attack:
        without_attack(order, 20)
        return []
    aircraft, carriers, _ = air_units(ctx, side, order, 20, dest)
    # "carriers in adjacent sea areas": a carrier already in the final area fights as one of the
    # ships there (FS 10.2), once
    carriers = [c for c in carriers if S.where(ctx.state, c) != dest]
    staff_work(ctx, side, dest, carriers)
    tez = tez_expansion(ctx, side, order, 20)
    force = whole_force(ctx, side, dest, ("ship", "submarine"), [*units, *support])
    # naval combat: your vessels moved into the final area or "already in the contested sea area";
    # aircraft and carriers next door "may also be involved", never the whole attack (Op #18 is that)
    need(force, rule(20), f"no ship or submarine of yours moves into or is in {area_name(dest)}: aircraft "
                          "and carriers in adjacent sea areas only join a naval attack")
    b = _sea_battle(ctx, side, order, 20, dest, force, ("ship", "submarine"), AIR_ATTACK_KIND[20],
                    aircraft, carriers, tez_expanded=tez, protected_waiver=waiver(ctx, side, order, dest))
    return intercepted(ctx.state, aircraft, dest, 20, b)


def op_21(ctx: Ctx, side: str, order: dict) -> list:
    units = unit_ids(order, "units", 21, required=True)
    mine(ctx, units, side, 21, ("ship",))
    area = area_of(order, "area", 21, kinds=("land",))
    for u in units:
        need(S.where(ctx.state, u) == S.TACTICAL, rule(21), f"{name(u)} is not in the Falkland Islands Sea Area")
    targets = _targets(ctx, area, S.other(side), ("ground", "aircraft"), no_sf=True)
    need(targets, rule(21), f"no enemy ground units or aircraft to bombard in {area_name(area)} (never SF)")
    staff_work(ctx, side, area, units)
    b = battle_frame(area, side, "bombard", rule(21), units, targets, [], return_fire=False)
    able_to_fire(ctx, b, units, targets)  # FS 10.2: a ship that can fire at nothing there is no part of it
    b["fire"] = check_fire(ctx.state, b, side, fire_of(order), units, targets, rule(21))
    need(b["fire"], rule(21), "a bombardment needs at least one shot ('fire')")
    return [b]


def ground_battle(ctx, side, op, area, ground, aircraft=(), carriers=(), mods=None, kind="ground", fire=None):
    enemy = S.other(side)
    defenders = S.units_in(ctx.state, area, side=enemy, classes=["ground"])
    targets = [u for u in defenders if DATA.units[u]["type"] != "sf"]
    # FS 10.8: an enemy SF team alone contests the area, but SF fall only to Op #25, Op #7 or 2-4
    need(targets, rule(op), f"no enemy ground units to attack in {area_name(area)}" + (
        " but SF, which only SF fight (Op #25; FS 10.8)" if defenders else ""))
    attackers = [*ground, *aircraft, *carriers]
    b = battle_frame(area, side, kind, rule(op), attackers, defenders, [], mods=mods or {},
                     exposed=[*ground, *aircraft], sf_bonus=sf_bonus([*ground, *defenders]))
    able_to_fire(ctx, b, aircraft, targets)
    b["fire"] = check_fire(ctx.state, b, side, fire, attackers, targets, rule(op))
    need(b["fire"], rule(op), "an attack needs at least one shot ('fire')")
    return b


def op_15(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 15, kinds=("land",))
    ground = unit_ids(order, "units", 15, required=True)
    mine(ctx, ground, side, 15, ("ground",))
    for u in ground:
        need(S.where(ctx.state, u) == area and not ctx.state["units"][u]["aboard"], rule(15),
             f"{name(u)} is not in {area_name(area)}")
    need(S.contested(ctx.state, area), rule(15), f"{area_name(area)} is not contested")
    ground = whole_force(ctx, side, area, ("ground",), ground)
    # "(AR carrier only)": a UK carrier is refused for that, before its range is looked at (FS 9.3)
    if side == UK:
        need(not unit_ids(order, "carriers", 15), rule(15), "only the AR carrier may join a ground attack")
    aircraft, carriers, _ = air_units(ctx, side, order, 15, area)
    return [ground_battle(ctx, side, 15, area, ground, aircraft, carriers, kind=AIR_ATTACK_KIND[15], fire=fire_of(order))]


def op_16(ctx: Ctx, side: str, order: dict) -> list:
    units = unit_ids(order, "units", 16, required=True)
    area = area_of(order, "area", 16, kinds=("land",))
    mine(ctx, units, side, 16, ("ground",))
    for u in units:
        ship = ctx.state["units"][u]["aboard"]
        need(ship is not None and S.where(ctx.state, ship) == S.TACTICAL, rule(16),
             f"{name(u)} is not aboard a ship in the Falkland Islands Sea Area")
    ok = (S.controlled_by(ctx.state, area) == side or S.contested(ctx.state, area)
          or not S.ground_sides(ctx.state, area))
    need(ok, rule(16), f"{area_name(area)} is enemy-held: that takes an amphibious assault (Op #17)")
    for u in units:
        ctx.emit(ev.UnitDisembarked, unit=u, ship=ctx.state["units"][u]["aboard"], area=area, rule=rule(16))
    return [{"step": "ground_settle"}]  # FS 3.6: landing alone in an area takes it at once


def op_17(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 17, kinds=("land",))
    enemy = S.other(side)
    # "into any enemy controlled land area": a contested area is controlled by neither side (FS 3.6),
    # whoever held it last; Op #16 lands there and Op #15 fights there
    need(S.controlled_by(ctx.state, area) == enemy and not S.contested(ctx.state, area), rule(17),
         f"{area_name(area)} is not enemy-controlled"
         f"{' (it is contested: Op #16 lands there)' if S.contested(ctx.state, area) else ''}")
    assault = T.UK_ASSAULT_SHIPS if side == UK else (T.AR_ASSAULT_SHIP,)
    present = [s for s in assault if S.alive(ctx.state, s) and S.where(ctx.state, s) == S.TACTICAL]
    need(present, rule(17), "an assault ship must be in the Falkland Islands Sea Area")
    wave = unit_ids(order, "wave", 17, required=True)
    mine(ctx, wave, side, 17, ("ground",))
    per_ship: dict[str, list[str]] = {}
    for u in wave:
        ship = ctx.state["units"][u]["aboard"]
        need(ship in present, rule(17), f"{name(u)} is not aboard {' or '.join(name(s) for s in present)} there")
        per_ship.setdefault(ship, []).append(u)
    for ship, us in per_ship.items():
        if side == UK:
            need(sum(ctx.state["units"][u]["steps"] for u in us) <= 5, rule(17),  # a Hit marker: one step left
                 f"at most five steps land from {name(ship)} in the first wave")
        else:
            need(len(us) <= 2, rule(17), "at most two units land from Cabo San Antonio")
    bombard = unit_ids(order, "bombard", 17)
    mine(ctx, bombard, side, 17, ("ship",))
    for u in bombard:
        need(S.where(ctx.state, u) == S.TACTICAL, rule(17), f"{name(u)} is not in the Falkland Islands Sea Area")
    second = unit_ids(order, "second_wave", 17)
    if second:
        need(side == UK, rule(17), "only a UK assault lands a second wave")
        mine(ctx, second, side, 17, ("ground",))
        for u in second:
            ship = ctx.state["units"][u]["aboard"]
            # "aboard any transport vessels": the A and T ships of FS 6.5, not an SF team's destroyer
            need(ship is not None and S.where(ctx.state, ship) == S.TACTICAL and u not in wave
                 and DATA.units[ship]["type"] in ("A", "T"), rule(17),
                 f"{name(u)} is not aboard a transport vessel (A or T) in the Falkland Islands Sea Area")
        steps = sum(ctx.state["units"][u]["steps"] for u in second)
        need(1 <= steps <= 10, rule(17), "the second wave is one to ten steps")
    # The first wave's shots are checked now, with the order, as any attack's are (FS 10.2), not
    # after the bombardment's dice (a refusal then would follow dice, or leave a decision no
    # answer gets past); the step drops shots at targets the bombardment removed (flow.assault).
    fire = fire_of(order)
    ashore = _targets(ctx, area, enemy, ("ground",), no_sf=True)
    if fire != "auto":
        landing = battle_frame(area, side, "assault", rule(17), wave, ashore, [])
        fire = check_fire(ctx.state, landing, side, fire, wave, ashore, rule(17))
    bombard_fire = order.get("bombard_fire")
    need(bombard or bombard_fire in (None, "auto"), rule(17), "'bombard_fire' goes with the ships of 'bombard'")
    frames = []
    if bombard:  # its shots are checked even with nothing there to hit ("AUTO" or 0 is no fire)
        targets = _targets(ctx, area, enemy, ("ground", "aircraft"), no_sf=True)
        b = battle_frame(area, side, "bombard", rule(17), bombard, targets, [], return_fire=False)
        if targets:  # FS 10.2, as in Op #21: a ship that can fire at nothing there is no part of it
            able_to_fire(ctx, b, bombard, targets)
        b["fire"] = check_fire(ctx.state, b, side, "auto" if bombard_fire is None else bombard_fire, bombard,
                               targets, rule(17))
        if b["fire"]:
            frames.append(b)
    frames.append({"step": "assault", "area": area, "side": side, "wave": wave, "second": second,
                   "fire": fire, "stage": "land"})
    return frames


def op_22(ctx: Ctx, side: str, order: dict) -> list:
    most = 2 if side == UK else 1
    units = unit_ids(order, "units", 22, required=True, most=most)
    mine(ctx, units, side, 22, ("ground",))
    origin = area_of(order, "origin", 22, kinds=("land",))
    dest = area_of(order, "destination", 22, kinds=("land",))
    need(origin != dest, rule(22), "origin and destination must differ")
    for u in units:
        need(DATA.units[u]["type"] in ("infantry", "sf"), rule(22), f"{name(u)} is not infantry or SF")
        need(ctx.state["units"][u]["location"] == origin, rule(22), f"{name(u)} is not in {area_name(origin)}")
    # "from one friendly controlled land area ... to any other friendly controlled or contested
    # land area": a contested area is controlled by neither side (FS 3.6), whoever held it last
    need(S.controlled_by(ctx.state, origin) == side and not S.contested(ctx.state, origin), rule(22),
         f"{area_name(origin)} is not friendly-controlled"
         f"{' (it is contested)' if S.contested(ctx.state, origin) else ''}")
    need(S.controlled_by(ctx.state, dest) == side or S.contested(ctx.state, dest), rule(22),
         f"{area_name(dest)} is neither friendly-controlled nor contested")
    attack = flag(order, "attack", rule(22))
    was_contested = S.contested(ctx.state, dest)
    if not attack:
        without_attack(order, 22)
    for u in units:
        ctx.emit(ev.UnitMoved, unit=u, origin=origin, destination=dest, rule=rule(22))
    if not attack:
        return [{"step": "ground_settle"}]
    need(was_contested, rule(22), "helicoptered units attack only in a contested area")
    support = unit_ids(order, "support", 22)
    mine(ctx, support, side, 22, ("ground",))
    for u in support:
        need(u not in units, rule(22), f"{name(u)} is named in 'units' and in 'support'")
        need(ctx.state["units"][u]["location"] == dest, rule(22), f"{name(u)} is not in {area_name(dest)}")
    mods = {u: [[-1, "helicoptered in (FS 7.1 Op #22)"]] for u in units}
    return [ground_battle(ctx, side, 22, dest, [*units, *support], mods=mods, fire=fire_of(order))]


def op_23(ctx: Ctx, side: str, order: dict) -> list:
    loads = shipping(ctx, order, "loads", 23, side)
    for u, ship in loads.items():
        here = ctx.state["units"][u]
        need(not here["aboard"], rule(23), f"{name(u)} is already aboard")
        ship_at = S.where(ctx.state, ship)
        if here["location"] == S.ARGENTINA:
            need(side == AR and ship_at == S.ARGENTINA, rule(23), "loading in Argentina is for AR ships in port")
        else:
            need(here["location"] in DATA.land_areas and ship_at == S.TACTICAL, rule(23),
                 f"{name(u)} loads from a land area onto a ship in the Falkland Islands Sea Area")
    # "load ground units from a land area": one area's units, as Op #18's "from a land area" (FS 9.9)
    areas = list(dict.fromkeys(ctx.state["units"][u]["location"] for u in loads))
    need(len(areas) == 1, rule(23), f"the units load from one land area, not from {' and '.join(area_name(a) for a in areas)}")
    check_loads(loads_after(ctx.state, side, loads), rule(23), ctx.state)
    for u, ship in loads.items():
        ctx.emit(ev.UnitEmbarked, unit=u, ship=ship, origin=ctx.state["units"][u]["location"], rule=rule(23))
    return [{"step": "ground_settle"}]


def op_24(ctx: Ctx, side: str, order: dict) -> list:
    units = unit_ids(order, "units", 24, required=True)
    mine(ctx, units, side, 24, ("ground",))
    origin = area_of(order, "origin", 24, kinds=("land",))
    dest = area_of(order, "destination", 24, kinds=("land",))
    attack = flag(order, "attack", rule(24))
    if not attack:
        without_attack(order, 24)
    for u in units:
        need(ctx.state["units"][u]["location"] == origin, rule(24), f"{name(u)} is not in {area_name(origin)}")
    if origin == dest:
        need(attack and S.contested(ctx.state, dest), rule(24), "without moving, the force attacks in its contested area")
    else:
        need(dest in DATA.land_adjacent(origin), "FS 9.2", f"{area_name(dest)} does not adjoin {area_name(origin)}")
        need(side != UK or "poor_uk_staff_work" not in ctx.state["effects"][UK], "FS 11.3 1-6",
             "no UK land movement this Operations Phase")
        for u in units:
            ctx.emit(ev.UnitMoved, unit=u, origin=origin, destination=dest, rule=rule(24))
    if not attack:
        return [{"step": "ground_settle"}]
    support = unit_ids(order, "support", 24)
    mine(ctx, support, side, 24, ("ground",))
    for u in support:
        need(ctx.state["units"][u]["location"] == dest and u not in units, rule(24), f"{name(u)} is not already in {area_name(dest)}")
    force = whole_force(ctx, side, dest, ("ground",), [*units, *support])
    battle = ground_battle(ctx, side, 24, dest, force, fire=fire_of(order))
    if origin == dest:
        return [battle]
    # The area left behind changes hands "the instant" one side is alone there (FS 3.6), its VP
    # "instantly" (4.4, 4.5) and its stranded aircraft rebase "immediately" (9.6): before the attack.
    return [{"step": "ground_settle"}, {"step": "rebase"}, battle]


def op_25(ctx: Ctx, side: str, order: dict) -> list:
    area = area_of(order, "area", 25, kinds=("land",))
    mine_sf = [u for u in S.units_in(ctx.state, area, side=side, classes=["ground"]) if DATA.units[u]["type"] == "sf"]
    theirs = [u for u in S.units_in(ctx.state, area, side=S.other(side), classes=["ground"]) if DATA.units[u]["type"] == "sf"]
    need(mine_sf, rule(25), f"no {side} SF units in {area_name(area)}")
    need(theirs, rule(25), f"no enemy SF units in {area_name(area)}")
    b = battle_frame(area, side, "sf", rule(25), mine_sf, theirs, [], no_modifiers=True)
    b["fire"] = check_fire(ctx.state, b, side, fire_of(order), mine_sf, theirs, rule(25))
    need(b["fire"], rule(25), "an attack needs at least one shot ('fire')")
    return [b]


def op_exocet(ctx: Ctx, side: str, order: dict) -> list:
    target = text(order, "target", "FS 11.3 6-4")
    return exocet_frames(ctx, target, held=True)


def exocet_frames(ctx: Ctx, target: str, held: bool) -> list:
    need(target in DATA.units and DATA.units[target]["side"] == UK and S.kind(target) == "ship"
         and S.alive(ctx.state, target) and S.where(ctx.state, target) == S.TACTICAL, "FS 11.3 6-4",
         "the Exocet's target is one UK surface vessel in the Falkland Islands Sea Area")
    ctx.emit(ev.EffectGained, side=AR, effect="exocet", title="land-launched Exocet fired", rule="FS 11.3 6-4",
             detail={"status": "used"})
    return [{"step": "exocet", "target": target, "stage": "fire"}]


def flight_paths(origin: str, destination: str) -> list[list[str]]:
    """The shortest routes over the strategic map's borders from ``origin`` to ``destination``
    (sea areas, Argentina), each the areas entered in turn; ``[[destination]]`` within one area."""
    if origin == destination:
        return [[destination]]
    paths, frontier, seen = [], [[origin]], {origin}
    while frontier and not paths:
        step_seen, nxt = set(), []
        for path in frontier:
            for a in sorted(DATA.sea_adjacent(path[-1])):
                if a in seen:
                    continue
                (paths if a == destination else nxt).append(path + [a])
                step_seen.add(a)
        seen |= step_seen
        frontier = nxt
    return [p[1:] for p in paths] or [[destination]]


def carriers_on_route(state: dict, aircraft: str, destination: str) -> list[str]:
    """FS 7.1 Op #11 "If the movement of those AR aircraft takes them into or adjacent to one or
    more sea areas containing UK aircraft carriers": the carriers in or next to an area the flight
    enters on its way (FS 10.9's example: halted in the sea area next to the target's). The AR
    flies the shortest route it likes, so a carrier counts only when every such route passes it.
    Argentina, where a flight home ends, is no place on it: "no UK movement or combat may ever
    take place in that area" (FS 9.7), so a carrier next to Argentina alone does not intercept."""
    routes = [[a for a in route if a != S.ARGENTINA]
              for route in flight_paths(S.sea_area_of(S.where(state, aircraft)), S.sea_area_of(destination))]
    near = [c for c in S.carriers(state, UK) if S.where(state, c) != S.SOUTH_GEORGIA]  # FS 3.7: no sea area
    return [c for c in near if all(any(a == S.where(state, c) or a in DATA.sea_adjacent(S.where(state, c))
                                           for a in route) for route in routes)]


def interception_frame(state: dict, aircraft: list[str], area: str, op,
                       destinations: dict[str, str] | None = None) -> dict | None:
    """FS 7.1 Op #11: AR ops 3, 17-20 (land-based aircraft) may be intercepted by UK carriers the
    flight comes into or next to on its route, or, over the Tactical Map, carriers in range of it.
    Not Pucaras, not stealth aircraft, not the AR carrier. ``destinations`` gives each aircraft
    its own (emergency rebasing, FS 9.6); otherwise all fly to ``area``."""
    eligible = [u for u in aircraft if DATA.units[u]["type"] != "Puc" and not DATA.units[u].get("stealth")]
    reach: dict[str, list[str]] = {}
    for u in eligible:
        for c in carriers_on_route(state, u, (destinations or {}).get(u, area)):
            reach.setdefault(c, []).append(u)
    if not reach:
        return None
    carriers = [c for c in S.carriers(state, UK) if c in reach]
    eligible = [u for u in eligible if any(u in us for us in reach.values())]
    # shots_as_fired: its battle's carrier shots are aimed as fired (FS 10.9, combat.battle_frame)
    return {"step": "intercept", "aircraft": eligible, "carriers": carriers, "area": area, "op": op, "reach": reach,
            "shots_as_fired": True}


def intercepted(state: dict, aircraft: list[str], area: str, op, *then: dict) -> list:
    """The frames of an air operation: the UK's chance to intercept first (Op #11), then ``then``.
    Only AR aircraft can be intercepted, so a UK operation (no aircraft) goes straight on."""
    first = interception_frame(state, aircraft, area, op)
    return ([first] if first else []) + list(then)


OPS: dict = {1: op_1, 2: op_2, 3: op_3, 4: op_4, 5: op_5, 6: op_6, 7: op_7, 8: op_8, 9: op_9,
             12: op_12, 13: op_13, 14: op_14, 15: op_15, 16: op_16, 17: op_17, 18: op_18, 19: op_19,
             20: op_20, 21: op_21, 22: op_22, 23: op_23, 24: op_24, 25: op_25, "exocet": op_exocet}
GROUND_ACTION = {15, 16, 17}  # FS 11.3 4-5: a landing or ground attack (22 and 24 when attacking)
