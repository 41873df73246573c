"""What legal-orders offers for each operation: the units and areas an order may name, or None
when the operation has nothing to act on now. The rules themselves are checked by ``ops``."""

from __future__ import annotations

from collections import defaultdict

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.combat import fires_at_any
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.ops import AIR_ATTACK_KIND, check_loads, loads_after, regroup_fits

UK, AR = S.UK, S.AR


def _ground_at(state, side, area):
    return [u for u in S.units_in(state, area, side=side, classes=["ground"])]


def _aboard_in(state, side, area):
    return [u for u in S.units_in_any(state, side=side, classes=["ground"])
            if state["units"][u]["aboard"] and S.where(state, u) == area]


def _air(state, side, area):
    grounded = "ar_air_mechanical" in state["effects"][AR]  # FS 11.3 4-6: the carrier may still fly
    aircraft = S.aircraft_in_range(state, area, refuelled=True) if side == AR and not grounded else []
    carriers = [c for c in S.carriers(state, side) if S.in_carrier_range(state, c, area)]
    return aircraft, carriers


def _able(state, op, aircraft, targets):
    """FS 10.2: the aircraft that can fire at one of the targets, the test ops.able_to_fire applies."""
    battle = {"kind": AIR_ATTACK_KIND[op]}
    return [u for u in aircraft if fires_at_any(state, battle, u, targets)]


def _may_load(state, side, u, ships) -> bool:
    """Can ground unit ``u`` go aboard one of ``ships`` within the load limits (FS 6.2, 6.5)?"""
    for ship in ships:
        aboard = {x: s for x, s in loads_after(state, side, {u: ship}).items() if s == ship}
        try:
            check_loads(aboard, "FS 6.2", state)
        except RuleViolation:
            continue
        return True
    return False


def _may_switch(state, u) -> bool:
    """FS 7.1 Op #12 with FS 6.2, 6.5: is there another UK vessel in ``u``'s sea area that may carry
    it (an A or T ship, the B&R's Elk, Fearless or Intrepid, a warship or Onyx for SF)? Its room is
    not asked: "load limits are observed" after all the switches, so a unit may move in a swap."""
    ship = state["units"][u]["aboard"]
    others = [s for s in S.units_in(state, S.where(state, ship), side=UK, classes=["ship", "submarine"]) if s != ship]
    for other in others:
        try:
            check_loads({u: other}, "FS 6.2", state)
        except RuleViolation:
            continue
        return True
    return False


def _refuel(state, side, areas: dict | None = None) -> list:
    """FS 9.4: the Argentina-based A-4s that may be designated as using aerial refuelling; given
    ``areas`` (each with its ``aircraft``), those among the aircraft of one of them."""
    if side != AR or "ar_air_mechanical" in state["effects"][AR]:
        return []
    a4s = [u for u in S.units_in(state, S.ARGENTINA, side=AR, classes=["aircraft"]) if DATA.units[u].get("range") == "a4"]
    return a4s if areas is None else [u for u in a4s if any(u in v["aircraft"] for v in areas.values())]


def _air_strikes(state, side, op, areas, targets_at) -> dict | None:
    """Op #18 and #19: each area holding a target (``targets_at``) that the side's aircraft or
    carriers reach, with who can strike it; None when there is none."""
    found = {}
    for a in areas:
        targets = targets_at(a)
        if targets:
            aircraft, carriers = _air(state, side, a)
            aircraft = _able(state, op, aircraft, targets)
            if aircraft or carriers:
                found[a] = {"aircraft": aircraft, "carriers": carriers, "targets": targets}
    return {"area": found, "refuel": _refuel(state, side, found)} if found else None


def op_choices(state: dict, side: str, op) -> dict | None:
    enemy = S.other(side)
    if op == 1:
        units = [u for u in S.units_in(state, S.ARGENTINA, side=AR, classes=["ground"])]
        ok = units and (S.controlled_by(state, T.PORT_STANLEY) == AR or S.contested(state, T.PORT_STANLEY))
        return {"units": units, "most": 2} if ok else None
    if op == 2:
        left = [u for u in T.OP2_UNITS if u not in state["op2_done"] and S.out_of_play(state, u)]
        return {"unit": left} if left else None
    if op == 3:
        at: dict = {}
        dests = [a for a in DATA.airbases if S.controlled_by(state, a) == AR and not S.contested(state, a)]
        dests.append(S.ARGENTINA)
        used: set = set()
        for u in S.units_in_any(state, side=AR, classes=["aircraft"]):
            # only an aircraft with a base to go to (FS 6.2(3)(4) capacity, Op #9: after Black Buck
            # only Pucaras base in the Falklands), as op_3 checks with S.may_base
            fits = [d for d in dests if d != S.where(state, u) and S.may_base(state, u, d)]
            if fits:
                at.setdefault(S.where(state, u), []).append(u)
                used.update(fits)
        if not at:
            return None
        # FS 9.4: an Argentina-based A-4 reaches a Falklands base only with aerial refuelling
        refuel = [u for u in _refuel(state, side) if u in at.get(S.ARGENTINA, [])]
        return {"aircraft": at, "destinations": [d for d in dests if d in used], "refuel": refuel}
    if op == 4:
        if S.controlled_by(state, S.SOUTH_GEORGIA) != AR:
            return None
        ships = [u for u in S.units_in_any(state, side=UK, classes=["ship"]) if S.where(state, u)]
        subs = [u for u in S.units_in_any(state, side=UK, classes=["submarine"]) if S.where(state, u)]
        sf = [u for u in S.units_in_any(state, side=UK, classes=["ground"])
              if DATA.units[u]["type"] == "sf" and state["units"][u]["aboard"]]
        return {"ships": ships, "submarine": subs, "sf": sf} if len(ships) >= 3 and subs and len(sf) >= 2 else None
    if op == 5:
        units = [u for u in S.units_in(state, S.SOUTH_GEORGIA, side=UK, classes=["ship", "submarine"])
                 if state["units"][u]["steps"] < DATA.units[u]["steps"]]
        return {"unit": units} if units else None
    if op == 6:
        group = next((g for g in T.GROUPS if g not in state["groups_entered"]), None)
        if group is None:
            return None
        entries = ["sa4"] + ([S.SOUTH_GEORGIA] if S.controlled_by(state, S.SOUTH_GEORGIA) == UK else [])
        return {"group": group, "units": T.group_units(group), "entry": entries}
    if op == 7:
        sf = [u for u in S.units_in_any(state, side=UK, classes=["ground"]) if DATA.units[u]["type"] == "sf"
              and (state["units"][u]["aboard"] or (S.controlled_by(state, state["units"][u]["location"]) == UK
                                                   and not S.contested(state, state["units"][u]["location"])))]
        targets = [u for u in S.units_in_any(state, side=AR, classes=["aircraft"]) if S.where(state, u) in DATA.land_areas]
        return {"sf": sf, "target": targets} if sf and targets else None
    if op == 8:
        units = [u for u in S.units_in_any(state, side=UK, classes=["ground"])
                 if state["units"][u]["steps"] < DATA.units[u]["steps"]
                 and (state["units"][u]["aboard"] or (S.controlled_by(state, state["units"][u]["location"]) == UK
                                                      and not S.contested(state, state["units"][u]["location"])))]
        units = [u for u in units if regroup_fits(state, u)]  # FS 6.2(2): room aboard for the step
        return {"unit": units} if units else None
    if op == 9:
        return {}
    if op == 12:
        cargo = [u for u in S.units_in_any(state, side=UK, classes=["ground"]) if state["units"][u]["aboard"]
                 and S.where(state, state["units"][u]["aboard"]) != S.SOUTH_GEORGIA  # FS 3.7: no sea area
                 and _may_switch(state, u)]
        return {"units": cargo, "ships": "a UK vessel in the same sea area"} if cargo else None
    if op == 13:
        bases = {}
        for a in DATA.airbases:
            planes = S.units_in(state, a, side=AR, classes=["aircraft"])
            carriers = [c for c in S.carriers(state, UK) if S.in_carrier_range(state, c, a)]
            if planes and carriers:
                bases[a] = {"carriers": carriers, "targets": planes}
        return {"airbase": bases} if bases else None
    if op == 14:
        areas = {}
        for a in (*DATA.sea_areas, S.SOUTH_GEORGIA):
            mine = S.units_in(state, a, side=side, classes=["ship", "submarine"])
            targets = S.units_in(state, a, side=enemy, classes=["ship"])
            if mine and targets:
                areas[a] = {"units": mine, "targets": targets}
        return {"area": areas} if areas else None
    if op == 15:
        areas = {}
        for a in DATA.land_areas:
            if S.contested(state, a):
                mine = [u for u in _ground_at(state, side, a) if DATA.units[u]["type"] != "sf"]
                targets = [u for u in _ground_at(state, enemy, a) if DATA.units[u]["type"] != "sf"]
                if mine and targets:
                    aircraft, carriers = _air(state, side, a)
                    areas[a] = {"units": mine, "targets": targets, "aircraft": _able(state, 15, aircraft, targets),
                                "carriers": carriers if side == AR else []}
        return {"area": areas, "refuel": _refuel(state, side, areas)} if areas else None
    if op == 16:
        units = _aboard_in(state, side, S.TACTICAL)
        areas = [a for a in DATA.land_areas if S.controlled_by(state, a) == side or S.contested(state, a)
                 or not S.ground_sides(state, a)]
        return {"units": units, "area": areas} if units and areas else None
    if op == 17:
        ships = (T.UK_ASSAULT_SHIPS if side == UK else (T.AR_ASSAULT_SHIP,))
        present = [s for s in ships if S.alive(state, s) and S.where(state, s) == S.TACTICAL]
        wave = [u for u in _aboard_in(state, side, S.TACTICAL) if state["units"][u]["aboard"] in present]
        areas = [a for a in DATA.land_areas  # ops.op_17: not a contested area (FS 3.6)
                 if S.controlled_by(state, a) == enemy and not S.contested(state, a)]
        if not wave or not areas:
            return None
        return {"area": areas, "wave": wave, "bombard": _bombarding(state, side, enemy, areas),
                "second_wave": [u for u in _aboard_in(state, side, S.TACTICAL) if u not in wave
                                and DATA.units[state["units"][u]["aboard"]]["type"] in ("A", "T")] if side == UK else []}
    if op == 18:
        return _air_strikes(state, side, 18, (*DATA.sea_areas, S.SOUTH_GEORGIA),
                            lambda a: S.units_in(state, a, side=enemy, classes=["ship"]))
    if op == 19:
        return _air_strikes(state, side, 19, DATA.land_areas,
                            lambda a: [u for u in _ground_at(state, enemy, a) if DATA.units[u]["type"] != "sf"])
    if op == 20:
        at: dict = {}
        for u in S.units_in_any(state, side=side, classes=["ship", "submarine"]):
            if S.where(state, u):
                at.setdefault(S.where(state, u), []).append(u)
        dests = [*DATA.sea_areas, *([S.SOUTH_GEORGIA]), *([S.ARGENTINA] if side == AR else [])]
        # Op #20: "in-range land-based aircraft, and/or carriers in adjacent sea areas, may also be
        # involved in the attack": by destination (``aircraft_at``), those in range of it (FS 9.4,
        # refuelled A-4s included) that can fire at a vessel there (FS 10.2, ops.able_to_fire)
        grounded = "ar_air_mechanical" in state["effects"][AR]
        aircraft_at = {}
        for d in (dests if side == AR and not grounded else []):
            vessels = S.units_in(state, d, side=enemy, classes=["ship", "submarine"])
            able = _able(state, 20, S.aircraft_in_range(state, d, refuelled=True), vessels) if vessels else []
            if able:
                aircraft_at[d] = able
        aircraft = [u for u in S.units_in_any(state, side=AR, classes=["aircraft"])
                    if any(u in v for v in aircraft_at.values())]
        return {"units": at, "destination": dests, "aircraft": aircraft, "aircraft_at": aircraft_at,
                "carriers": [c for c in S.carriers(state, side) if S.where(state, c) != S.ARGENTINA],
                "refuel": _refuel(state, side)} if at else None
    if op == 21:
        areas = [a for a in DATA.land_areas if _bombarded(state, enemy, a)]
        ships = _bombarding(state, side, enemy, areas)
        return {"units": ships, "area": areas} if ships and areas else None
    if op == 22:
        origins = {}
        for a in DATA.land_areas:
            if S.controlled_by(state, a) == side and not S.contested(state, a):  # ops.op_22, FS 3.6
                movers = [u for u in _ground_at(state, side, a) if DATA.units[u]["type"] in ("infantry", "sf")]
                if movers:
                    origins[a] = movers
        dests = [a for a in DATA.land_areas if S.controlled_by(state, a) == side or S.contested(state, a)]
        dests = [a for a in dests if any(o != a for o in origins)]  # "to any other" area: not the only origin
        return {"origin": origins, "destination": dests, "most": 2 if side == UK else 1} if origins and dests else None
    if op == 23:
        # a unit with a vessel of its side that may take it aboard (FS 6.2, 6.5: the checks of
        # ops.op_23), Onyx included (FS 6.2(1): it carries the SBS)
        afloat = S.units_in(state, S.TACTICAL, side=side, classes=["ship", "submarine"])
        units = [u for a in DATA.land_areas for u in _ground_at(state, side, a) if _may_load(state, side, u, afloat)]
        if side == AR:
            in_port = S.units_in(state, S.ARGENTINA, side=AR, classes=["ship"])
            units += [u for u in _ground_at(state, AR, S.ARGENTINA) if _may_load(state, side, u, in_port)]
        return {"units": units, "ships": "a transport of yours where the unit is"} if units else None
    if op == 24:
        origins = {}
        for a in DATA.land_areas:
            mine = _ground_at(state, side, a)
            if mine:
                # in place: an attack, as Op #15 (FS 10.8: SF fall only to SF, Op #25; nor do they fire here)
                fight = (S.contested(state, a) and any(DATA.units[u]["type"] != "sf" for u in mine)
                         and any(DATA.units[u]["type"] != "sf" for u in _ground_at(state, enemy, a)))
                origins[a] = {"units": mine, "destination": sorted(DATA.land_adjacent(a)) + ([a] if fight else [])}
        origins = {a: o for a, o in origins.items() if o["destination"]}
        return {"origin": origins} if origins else None
    if op == 25:
        areas = [a for a in DATA.land_areas
                 if any(DATA.units[u]["type"] == "sf" for u in _ground_at(state, side, a))
                 and any(DATA.units[u]["type"] == "sf" for u in _ground_at(state, enemy, a))]
        return {"area": areas} if areas else None
    if op == "exocet":
        targets = S.units_in(state, S.TACTICAL, side=UK, classes=["ship"])
        return {"target": targets} if targets else None
    return None


def under_staff_work(state: dict, side: str, op, c: dict | None) -> dict | None:
    """FS 11.3 1-6 (ops.staff_work): the UK's strikes and bombardments offered only into areas
    already contested, by carriers or ships already there; Op #20 and #24 only as attacks in place
    in a contested area (ops.op_20, op_24 refuse any movement)."""
    if side != UK or c is None or "poor_uk_staff_work" not in state["effects"][UK] or op not in (13, 18, 19, 20, 21, 24):
        return c
    if op == 20:  # no sea movement: an attack in place, in a sea area already contested
        at = {a: us for a, us in c["units"].items() if a in c["destination"] and S.contested(state, a)}
        return {**c, "units": at, "destination": [a for a in c["destination"] if a in at],
                "carriers": [u for u in c["carriers"] if S.where(state, u) in at]} if at else None
    if op == 24:  # no land movement: an attack in place, in a land area already contested
        origins = {a: {**v, "destination": [a]} for a, v in c["origin"].items() if a in v["destination"]}
        return {**c, "origin": origins} if origins else None
    if op == 21:
        areas = [a for a in c["area"] if S.contested(state, a)]
        ships = _bombarding(state, side, S.other(side), areas)
        return {**c, "units": ships, "area": areas} if areas and ships else None
    key = "airbase" if op == 13 else "area"
    found = {}
    for a, v in c[key].items():
        carriers = [u for u in v["carriers"] if S.where(state, u) in (a, S.sea_area_of(a))]
        if S.contested(state, a) and carriers:
            found[a] = {**v, "carriers": carriers}
    return {key: found} if found else None


def under_poor_logistics(state: dict, side: str, op, c: dict | None) -> dict | None:
    """FS 11.3 5-1 "The AR player may not conduct any kind of attack during his next Operations
    Phase" (rules._operation refuses one): Op #20, #22 and #24 are offered as moves only - no
    attack, nothing that only joins one, no fight in place (Op #24)."""
    if side != AR or c is None or "poor_ar_logistics" not in state["effects"][AR] or op not in (20, 22, 24):
        return c
    if op == 20:
        return {**c, "aircraft": [], "aircraft_at": {}, "carriers": [], "refuel": [], "moves_only": True}
    if op == 24:
        origins = {a: {**v, "destination": [d for d in v["destination"] if d != a]} for a, v in c["origin"].items()}
        origins = {a: v for a, v in origins.items() if v["destination"]}
        return {"origin": origins, "moves_only": True} if origins else None
    return {**c, "moves_only": True}


def under_panache(state: dict, side: str, op, c: dict | None) -> dict | None:
    """FS 11.3 5-6: the second of two air operations (rules._operation refuses another) is Op #18
    or #19 flown by aircraft alone, the 25 de Mayo being a ship (ops.air_only)."""
    if (side != AR or c is None or op not in (18, 19) or "ar_air_panache" not in state["effects"][AR]
            or state["phase_ops"]["done"] < 1):
        return c
    areas = {a: {**v, "carriers": []} for a, v in c["area"].items() if v["aircraft"]}
    return {**c, "area": areas} if areas else None


TARGET_OF_OPPORTUNITY_OPS = (14, 18, 20)  # FS 11.3 3-2/3-3: an AR attack on ships


def with_target_of_opportunity(state: dict, side: str, op, c: dict | None) -> dict | None:
    """FS 11.3 3-2/3-3 "As his next operation, the AR player may choose to attack any one protected
    UK surface vessel" (ops.waiver): the AR's attacks on ships offer the protected UK ships."""
    if side != AR or c is None or "ar_target_of_opportunity" not in state["effects"][AR] \
            or op not in TARGET_OF_OPPORTUNITY_OPS:
        return c
    # the South Georgia box too: AR submarines there fight ships there (Op #14, #20; FS 3.7)
    protected = [u for u in S.units_in_any(state, side=UK, classes=["ship"])
                 if DATA.units[u].get("protected") and S.where(state, u) in (*DATA.sea_areas, S.SOUTH_GEORGIA)]
    return {**c, "target_of_opportunity": protected} if protected else c


# ------------------------------------------------------------------------- form fields ---
# A form-friendly description of each operation's fields (docs/pages.md: a list is a select; an
# object {choices, multiple, optional, type, description}). The choices above say what is
# possible; these say how to ask for it.
FIRE = {"type": "json", "optional": True,
        "description": 'leave empty for automatic fire, or a list of {"unit": …, "at": …} (FS 10.2); a UK '
                       "carrier's shots not listed are aimed as it fires them (FS 10.9)"}
OP10 = {"type": "boolean", "optional": True, "description": "true to tack Op #10 (TEZ expanded) onto this attack"}


def _flat(value) -> list:
    """Every id in a choices value: a list, {key: list}, or {key: {units|aircraft|…: list}}."""
    if isinstance(value, list):
        return list(value)
    out: list = []
    if isinstance(value, dict):
        for v in value.values():
            for x in _flat(v):
                if isinstance(x, str) and x not in out:
                    out.append(x)
    return out


def _many(items, optional: bool = False, description: str = "") -> dict:
    return {"choices": sorted(set(items)), "multiple": True, "optional": optional, "description": description}


def _attackers_example(fields: dict, first_area: dict) -> None:
    """Op #18 and #19 attack with aircraft and/or carriers, at least one, so both fields are
    optional: the first aircraft (else carrier) of the first area is the example a command line
    fills in (``warlog legal``), which the operation then takes."""
    for key in ("aircraft", "carriers"):
        if first_area.get(key):
            fields[key]["example"] = _flat(first_area[key])[:1]
            return


def template_fields(op, choices: dict, side: str) -> dict:
    c = choices
    fields: dict = {"op": [op]}
    uk = side == UK
    if op == 1:
        fields["units"] = _many(c["units"], description="up to two ground units")
    elif op in (2, 5, 8):
        fields["unit"] = c["unit"]
    elif op == 3:
        fields.update(origin=sorted(c["aircraft"]), aircraft=_many(_flat(c["aircraft"])), destination=c["destinations"])
        fields["refuel"] = _many(c["refuel"], True, "up to four Argentina-based A-4s flying to a Falklands base (FS 9.4)")
    elif op == 4:
        fields.update(ships=_many(c["ships"], description="three surface vessels"), submarine=c["submarine"],
                      sf=_many(c["sf"], description="two SF units aboard the force"))
    elif op == 6:
        fields["entry"] = {"type": "json", "optional": True,
                           "description": f'group {c["group"]} enters via sa4; {{"ship": "south_georgia"}} for others'}
    elif op == 7:
        fields.update(sf=c["sf"], target=c["target"])
    elif op == 12:
        fields["moves"] = {"type": "json", "description": '{"unit": "ship in the same sea area", …}'}
    elif op == 13:
        fields.update(airbase=sorted(c["airbase"]), carriers=_many(_flat({a: v["carriers"] for a, v in c["airbase"].items()})),
                      fire=FIRE)
    elif op == 14:
        fields.update(area=sorted(c["area"]), units=_many(_flat({a: v["units"] for a, v in c["area"].items()})), fire=FIRE)
    elif op == 15:
        areas = c["area"]
        fields.update(area=sorted(areas), units=_many(_flat({a: v["units"] for a, v in areas.items()})),
                      aircraft=_many(_flat({a: v["aircraft"] for a, v in areas.items()}), True),
                      carriers=_many(_flat({a: v["carriers"] for a, v in areas.items()}), True), fire=FIRE)
        if not uk:
            fields["refuel"] = _many(c["refuel"], True, "up to four Argentina-based A-4s (FS 9.4)")
    elif op == 16:
        fields.update(units=_many(c["units"]), area=c["area"])
    elif op == 17:
        fields.update(area=c["area"], wave=_many(c["wave"], description="the first wave, from the assault ships"),
                      bombard=_many(c["bombard"], True), bombard_fire=FIRE, fire=FIRE)
        if uk:
            fields["second_wave"] = _many(c["second_wave"], True, "1-10 steps, if a first-wave unit survives")
    elif op in (18, 19):
        areas = c["area"]
        fields.update(area=sorted(areas), aircraft=_many(_flat({a: v["aircraft"] for a, v in areas.items()}), True,
                                                         "aircraft from one land area"),
                      carriers=_many(_flat({a: v["carriers"] for a, v in areas.items()}), True), fire=FIRE)
        _attackers_example(fields, areas[min(areas)] if areas else {})
        if not uk:
            fields["refuel"] = _many(c.get("refuel", []), True, "up to four Argentina-based A-4s (FS 9.4)")
    elif op == 20:
        fields.update(units=_many(_flat(c["units"]), True, "vessels from one area"), destination=c["destination"],
                      attack={"type": "boolean", "optional": True, "description": "true to attack there"},
                      support=_many(_flat(c["units"]), True, "vessels already there"), fire=FIRE,
                      carriers=_many(c["carriers"], True, "carriers in or next to the destination, to join the attack"))
        if not uk:
            fields.update(aircraft=_many(c["aircraft"], True, "in-range land-based aircraft, to join the attack "
                                                              "(by destination: the choices' aircraft_at)"),
                          refuel=_many(c["refuel"], True, "up to four Argentina-based A-4s (FS 9.4)"))
    elif op == 21:
        fields.update(units=_many(c["units"]), area=c["area"], fire=FIRE)
    elif op in (22, 24):
        origins = c["origin"]
        units = _flat({a: (v if isinstance(v, list) else v["units"]) for a, v in origins.items()})
        dests = c["destination"] if op == 22 else sorted({d for v in origins.values() for d in v["destination"]})
        fields.update(origin=sorted(origins), units=_many(units), destination=dests,
                      attack={"type": "boolean", "optional": True, "description": "true to attack there"},
                      support=_many(units, True, "units already there"), fire=FIRE)
    elif op == 23:
        fields["loads"] = {"type": "json", "description": '{"unit": "ship", …}: units of one land area'}
    elif op == 25:
        fields.update(area=c["area"], fire=FIRE)
    elif op == "exocet":
        fields["target"] = c["target"]
    if c.get("target_of_opportunity"):  # FS 11.3 3-2 (with_target_of_opportunity)
        fields["target_of_opportunity"] = {
            "choices": sorted(c["target_of_opportunity"]), "multiple": False, "optional": True,
            "description": "one protected UK ship attacked without the unprotected ones there (FS 11.3 3-2)"}
    if c.get("moves_only"):  # FS 11.3 5-1: no attack this phase (under_poor_logistics)
        for key in ("attack", "support", "fire", "carriers", "aircraft", "refuel"):
            fields.pop(key, None)
    if uk and op in (14, 18, 20):
        fields["with_op_10"] = OP10
    return fields


def _first_example(state: dict, side: str, op, choices: dict) -> dict | None:
    """Op #3, #20, #22 and #24 move units from one area: the first origin, its first unit and a
    destination that unit reaches (where it may only attack in place, FS 11.3 1-6 and 5-1, an
    attack there). The fields alone offer every origin's units and destinations, so their first
    choices could name a unit not at the first origin, a destination out of its reach, or no unit
    at all (Op #20's units are optional: an attack in place needs none)."""
    c = choices
    if op == 3:
        for origin in sorted(c["aircraft"]):
            for u in c["aircraft"][origin]:
                refuel = u in c["refuel"]  # FS 9.4: an Argentina-based A-4, refuelled
                for dest in c["destinations"]:
                    if dest != origin and S.may_base(state, u, dest) and S.aircraft_reach(state, u, dest, refuel):
                        return {"origin": origin, "aircraft": [u], "destination": dest,
                                **({"refuel": [u]} if refuel and dest != S.ARGENTINA else {})}
        return None
    if op == 20:
        origin = min(c["units"]) if c["units"] else None
        unit = c["units"][origin][0] if origin and c["units"][origin] else None
        if unit is None:
            return None
        dests = [d for d in c["destination"] if d != origin and not (d == S.ARGENTINA and side == UK)
                 and not (d == S.SOUTH_GEORGIA and side == AR and S.kind(unit) != "submarine")]
        if side == UK and "poor_uk_staff_work" in state["effects"][UK]:
            dests = []  # FS 11.3 1-6: no UK sea movement; an attack in place
        if dests:
            return {"units": [unit], "destination": dests[0]}
        return {"units": [unit], "destination": origin, "attack": True} if origin in c["destination"] else None
    if op in (22, 24):
        origin = min(c["origin"]) if c["origin"] else None
        if origin is None:
            return None
        at = c["origin"][origin]
        units = at if isinstance(at, list) else at["units"]
        reach = c["destination"] if op == 22 else at["destination"]
        dests = [d for d in reach if d != origin]
        if not units:
            return None
        if dests:
            return {"origin": origin, "units": units[:1], "destination": dests[0]}
        return {"origin": origin, "units": units[:1], "destination": origin, "attack": True} if origin in reach else None
    return None


def _a4_refuel(state: dict, aircraft: list) -> dict:
    """FS 9.4: the Argentina-based A-4s of a flight, designated for aerial refuelling (four at most)."""
    a4s = [u for u in aircraft if DATA.units[u].get("range") == "a4" and S.where(state, u) == S.ARGENTINA][:4]
    return {"refuel": a4s} if a4s else {}


def example_candidates(state: dict, side: str, op, choices: dict):
    """Whole orders (their fields but ``op``) for operation ``op`` built from its choices, the
    likeliest first; ``rules.operation_template`` keeps the first the operation takes as the
    template's ``example`` (the choices alone leave out capacities, ranges and stacking)."""
    c = choices
    first = _first_example(state, side, op, c)
    if first is not None:
        yield first
    auto = {"fire": "auto"}
    if op == 1:
        for u in c["units"]:
            yield {"units": [u]}
    elif op in (2, 5, 8):
        for u in c["unit"]:
            yield {"unit": u}
    elif op == 3:
        for origin, aircraft in sorted(c["aircraft"].items()):
            for u in aircraft:
                for dest in c["destinations"]:
                    if dest != origin:
                        yield {"origin": origin, "aircraft": [u], "destination": dest,
                               **(_a4_refuel(state, [u]) if dest != S.ARGENTINA else {})}
    elif op == 4:
        # FS 7.1 Op #4: three surface vessels, a submarine and two SF units aboard the force's vessels
        for i, a in enumerate(c["sf"]):
            for b in c["sf"][i + 1:]:
                carriers = list(dict.fromkeys(state["units"][u]["aboard"] for u in (a, b)))
                for sub in c["submarine"]:
                    ships = [s for s in carriers if s in c["ships"]]
                    if any(s not in c["ships"] and s != sub for s in carriers):
                        continue
                    ships += [s for s in c["ships"] if s not in ships][:3 - len(ships)]
                    if len(ships) == 3:
                        yield {"ships": ships, "submarine": sub, "sf": [a, b]}
    elif op == 6:
        yield {}
    elif op == 7:
        for sf in c["sf"]:
            for t in c["target"]:
                yield {"sf": sf, "target": t}
    elif op == 9:
        yield {}
    elif op == 12:
        for u in c["units"]:
            here, old = S.where(state, u), state["units"][u]["aboard"]
            for ship in S.units_in(state, here, side=side, classes=["ship", "submarine"]):
                if ship != old:
                    yield {"moves": {u: ship}}
            # load limits are observed after all the switches: between full ships, a swap
            for v in c["units"]:
                other = state["units"][v]["aboard"]
                if other != old and S.where(state, v) == here:
                    yield {"moves": {u: other, v: old}}
    elif op == 13:
        for base, v in sorted(c["airbase"].items()):
            yield {"airbase": base, "carriers": v["carriers"], **auto}
            for carrier in v["carriers"]:
                yield {"airbase": base, "carriers": [carrier], **auto}
    elif op == 14:
        for area, v in sorted(c["area"].items()):
            yield {"area": area, "units": v["units"], **auto}
    elif op == 15:
        for area, v in sorted(c["area"].items()):
            yield {"area": area, "units": v["units"], **auto}
    elif op == 16:
        for area in c["area"]:
            for u in c["units"]:
                yield {"units": [u], "area": area}
    elif op == 17:
        for area in c["area"]:
            for u in c["wave"]:
                yield {"area": area, "wave": [u], **auto}
    elif op in (18, 19):
        for area, v in sorted(c["area"].items()):
            for base in dict.fromkeys(S.where(state, u) for u in v["aircraft"]):
                for u in [u for u in v["aircraft"] if S.where(state, u) == base]:
                    yield {"area": area, "aircraft": [u], **_a4_refuel(state, [u]), **auto}
            for carrier in v["carriers"]:
                yield {"area": area, "carriers": [carrier], **auto}
    elif op == 20:
        for origin, units in sorted(c["units"].items()):
            for u in units:
                for dest in c["destination"]:
                    if dest != origin:
                        yield {"units": [u], "destination": dest}
                if not c.get("moves_only"):
                    yield {"units": [u], "destination": origin, "attack": True, **auto}
    elif op == 21:
        for area in c["area"]:
            for ship in c["units"]:
                yield {"units": [ship], "area": area, **auto}
    elif op in (22, 24):
        for origin, at in sorted(c["origin"].items()):
            units = at if isinstance(at, list) else at["units"]
            reach = c["destination"] if op == 22 else at["destination"]
            for u in units:
                for dest in reach:
                    if dest != origin:
                        yield {"origin": origin, "units": [u], "destination": dest}
                    elif not c.get("moves_only"):
                        yield {"origin": origin, "units": [u], "destination": dest, "attack": True, **auto}
    elif op == 23:
        for u in c["units"]:
            sea = S.ARGENTINA if S.where(state, u) == S.ARGENTINA else S.TACTICAL
            for ship in S.units_in(state, sea, side=side, classes=["ship", "submarine"]):
                yield {"loads": {u: ship}}
    elif op == 25:
        for area in c["area"]:
            yield {"area": area, **auto}
    elif op == "exocet":
        for t in c["target"]:
            yield {"target": t}


def field_names(op) -> set[str]:
    """Every field an order of operation ``op`` may carry: what its template declares for either
    side, whatever the choices are now; ``with_op_10`` (FS 7.1 Op #10 says where it rides) and
    3-2/3-3's ``target_of_opportunity`` in an AR attack on ships. Who may use which is the
    operation's own check, which names its rule."""
    names = set(template_fields(op, defaultdict(dict), UK)) | set(template_fields(op, defaultdict(dict), AR))
    names.add("with_op_10")
    if op in TARGET_OF_OPPORTUNITY_OPS:
        names.add("target_of_opportunity")
    return names


def decision_fields(decision: dict) -> dict:
    """The answers a form can offer for a pending decision, as ready-made choices."""
    kind, opts = decision["kind"], decision["options"]
    if kind == "defensive_fire":
        answers = [{"fire": "auto"}]
    elif kind == "interception":
        answers = [{"fire": "auto"}, {"fire": []}]
    elif kind == "carrier_shot":
        answers = [{"at": t} for t in opts["at"]]
    elif kind == "leadership":
        answers = [{"reroll": None}] + [{"reroll": o["die"]} for o in opts["reroll"]]
    elif kind == "emergency_rebase":
        answers = [{"destinations": {u: "argentina" for u in opts["destinations"]}}]
    elif kind == "free_attack":
        answers = [
            ({"area": a, "units": v["units"], "target": t} if "carriers" not in v else
             {"area": a, "units": v["units"], "carriers": v["carriers"], "aircraft": v["aircraft"], "fire": "auto"})
            for a, v in opts["areas"].items() for t in (v["targets"] if "carriers" not in v else [None])]
    elif kind == "exocet":
        answers = [{"target": t} for t in opts["target"]]
    elif kind == "peru_replacement":
        answers = [{"unit": u} for u in opts["unit"]]
    elif kind == "sf_compromised":
        answers = [{"unit": u} for u in opts["unit"]]
    else:
        answers = [{}]
    return {"decision": [decision["id"]], "choice": answers}


def _bombarded(state: dict, enemy: str, area: str) -> list[str]:
    """What a bombardment of ``area`` may hit (Op #21): enemy ground units and aircraft, never SF (10.8)."""
    return [u for u in S.units_in(state, area, side=enemy, classes=["ground", "aircraft"]) if DATA.units[u]["type"] != "sf"]


def _bombarding(state: dict, side: str, enemy: str, areas: list[str]) -> list[str]:
    """FS 10.2: the ships in the Falkland Islands Sea Area that can fire at something in one of
    ``areas`` (ops.able_to_fire: a ship that can fire at nothing there joins no bombardment)."""
    battle = {"kind": "bombard"}
    return [u for u in S.units_in(state, S.TACTICAL, side=side, classes=["ship"])
            if any(fires_at_any(state, battle, u, _bombarded(state, enemy, a)) for a in areas)]
