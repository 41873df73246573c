"""The air war: airbases, the GameSystem's air doctrine and land-based naval aviation (data/air.json).

STF 2.1    The Player's airbases fly no strike when the Ground Aviation Table gave him no squadron
           (``campaign["ground_aviation"]["Player"]`` 0); the GameSystem's airbase flies its number.
STF 2.6    Soviet land-based naval aviation (LBNA) in the GIUK and Mediterranean campaigns
           (``campaign["lbna_available"]``): 6 Backfire and 6 Badger, each used once
           (``state["lbna"]["used"]``).
STF 2.6.1  A Soviet Player flies at most one Backfire or Badger patrol a turn, in the Patrol phase:
           order ``lbna_patrol`` {unit, megahex, target?}: a Precise search report on every
           GameSystem group in that megahex.
STF 2.6.2  Its ASM waves (13.10) at one task force of that megahex lose 1 per 4 strength points (or
           part) of identified L and M aircraft within 6 megahexes not on strikes last turn nor on
           CAP this turn.
STF 2.6.3  The GameSystem's Soviet LBNA (step ``lbna_strike``, Strike phase): 1d6 on the "lbna unit"
           table: 1-3 a Backfire, 4-6 a Badger.
STF 2.6.4  Then 1d6 on the "lbna search" table: 1 locates the Player task force closest to the Soviet
           map edge and attacks it with SSMs (``SystemActs`` "LBNA missile attack"), whose result
           the Player is asked (a ``combat`` decision: which ship it sank); else the unit is
           removed. Used either way. With no Player task force on the map no search die is
           rolled (either face removes the unit).
STF 2.6.5  Each Precise identification of a US/NATO task force is -1 on that roll, at most -3.
STF 9.1    Land based aviation is never hidden: airbases may be struck without a search report.
STF 9.2    Only CV air units may attack land airbases (a Player air strike on an airbase comes from
           a CV task force; the GameSystem's airbase never strikes an airbase).
STF 9.3    An airbase is in ring 1 of the tactical display with AA 3 in rings 1-3 (in every strike
           on an airbase's detail).
STF 9.4    Hits on an airbase add up (``state["airbases"][name]["hits"]``, by ``hit_airbase``); at 3
           it cannot launch aircraft.
STF 9.5    An airbase repairs 1 hit a turn when not attacked that turn (step ``airbase_repair``,
           Terminal phase).
STF 9.6    Air attacks on airbases are by ordinary bombing only, to hit 5.
STF 9.7    Tomahawks may attack airbases: ``air_strike`` with ``"tomahawk": true``.
STF 9.8    A ship with an A or B gun may bombard an airbase from its hex or an adjacent one: order
           ``bombard``.
STF 10.1   The Player's air strike on a GameSystem task force needs an Accurate or Precise report:
           order ``air_strike`` {from, target} (the Strike phase).
STF 10.2   The GameSystem's CAP is half (round up) of its L and M strength not on strikes this turn
           or last (recorded with each strike it flies or meets).
STF 10.3   The GameSystem's air attacks (step ``air_attacks``, Strike phase): each of its task forces
           and its airbase within 6 megahexes of a Player CV task force or active airbase, or 2 of
           a Player surface action group (SAG).
STF 10.4   Its target: CVs first, airbases next, SAGs last (then the nearest; a die for a true tie).
STF 10.5   No chit, Enemy or Tracked: 1D6 odd then 1D6 6 places a Rear Admiral chit and goes to the
           Air Attack Table; the chit is the Accurate level of a large task force (1.13, 8.6), which
           8.12 counts in the deployment total.
STF 10.6   A Rear Admiral chit with no revealed air strength: 1D6 odd goes to the table (no die when
           10.8 could draw it no carrier: none of its nation left in the pool).
STF 10.7   Precise with a CV, or Accurate with a revealed air strength: the table.
STF 10.8   Before any Precise report the strike's nation is 1d6 (1-2 NATO, 3-6 US; the Caribbean
           US), and a CV of that nation is drawn at random from the pool and set aside for the
           task force.
STF 10.9   The GameSystem flies no ASW or RCN squadrons (none are picked).
STF 10.10  The best units for each job: H to strike, L to escort, M to fill; less damaged first.
STF 10.11  Strike squadrons are filled before escorts; the stronger of two alike strikes.
STF 10.12  A US strike takes an EW squadron; US and NATO keep their AEW on CAP.
STF 10.13  A task force does not strike on consecutive turns unless Precise with two CVs.
STF 10.14  Its aircraft attack CVs with diffusion bombs, else ASMs at freighters, BB, CG, DD, FF, PC;
           within a class (and among CVs) the highest VP first, equal ships in order by dice (11.2).
STF 10.15  The strike enters by a sector rolled 1D6 and departs by the opposite one.
STF 10.16  Two strike squadrons enter and depart by the same sectors.
STF 13.10  The Badger and Backfire Table: their values (data/air.json "aircraft").
STF 13.11  A-6 Intruder and Buccaneer ASM attacks: 3 waves of 8 Harpoons as SSM combat in the Strike
           segment after CAP, 1 wave fewer per point of permanent damage (the ``asm`` part of
           ``air_strike``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf.events import FOLD, GroupChanged, SystemActs, UnitsAssigned, CampaignFixed
from domain.events import GameEvent
from domain.rulesets.core import json_copy
from domain.rulesets.stf import composition
from domain.rulesets.stf.forces import AV8_KIND, alive, by_number
from domain.rulesets.stf.rules import DATA, STEPS, kind
from domain.rulesets.toolkit.engine import Ctx, known_fields
from domain.rulesets.toolkit.data import DataError
from domain.rulesets.toolkit.tables import Table, load_tables, roll_on

FILE = "air.json"
AIR = DATA.read(FILE)
TABLES = load_tables(DATA, FILE)


def _rows_said(table) -> str:
    """A one-column table's rows as a purpose says them: "1-2 NATO, 3-6 US" (STF 10.8)."""
    return ", ".join(f"{lo}-{hi} {results[0]}" if lo != hi else f"{lo} {results[0]}" for lo, hi, results in table.rows)
LBNA = AIR["lbna"]
CRAFT = AIR["aircraft"]
HARPOON = AIR["harpoon_asm"]
BASE = AIR["airbase"]
DOCTRINE = AIR["doctrine"]
GROUND = AIR["ground_squadron"]
for _field in GROUND["provisional"]:
    DATA.guess(FILE, "ground_squadron", _field, GROUND["why"])
DATA.guess(FILE, "doctrine", "asm_unlisted_after", DOCTRINE["asm_unlisted_why"])

SURFACE = ("CV", "BB", "CG", "CL", "DD", "FF", "PC", "FR")


# ---- the air war's own events ------------------------------------------------------------------
class AirbaseChanged(GameEvent):
    """Fields of airbase ``name`` changed (``hits``, ``attacked``: the turn it was last attacked,
    ``owner``): ``state["airbases"][name]`` (STF 9.4, 9.5)."""

    RULESET = "stf"

    name: str
    changes: dict
    rule: str
    why: str


class LbnaChanged(GameEvent):
    """STF 2.6's land-based naval aviation: ``state["lbna"]`` fields changed (``used``: {type:
    count}, ``patrol_turn``, ``located``: the Player task forces Precisely identified, 2.6.5)."""

    RULESET = "stf"

    changes: dict
    rule: str
    why: str


class StrikeFlown(GameEvent):
    """``group`` (a GameSystem task force or airbase) flew an air strike on ``turn`` with
    ``squadrons``: ``state["strikes"][group] = turn`` (STF 10.13) and each squadron's sortie turn
    in ``state["sorties"]`` (STF 10.2, 2.6.2)."""

    RULESET = "stf"

    group: str
    turn: int
    squadrons: list
    rule: str


class PlayerAirAction(GameEvent):
    """The Player's air strike, bombardment or LBNA patrol, checked and recorded: ``what`` and
    ``detail`` (what the base game resolves; its results come back by the ``report`` order)."""

    RULESET = "stf"

    what: str
    detail: dict
    rule: str


def _airbase(state: dict, e: Any) -> dict:
    base = {"owner": None, "hits": 0, **state["airbases"].get(e.name, {}), **json_copy(e.changes)}
    return {**state, "airbases": {**state["airbases"], e.name: base}}


def _lbna(state: dict, e: Any) -> dict:
    return {**state, "lbna": {**state.get("lbna", {}), **json_copy(e.changes)}}


def _strike(state: dict, e: Any) -> dict:
    sorties = {**state.get("sorties", {}), **{s: e.turn for s in e.squadrons}}
    return {**state, "strikes": {**state["strikes"], e.group: e.turn}, "sorties": sorties}


FOLD.update({"AirbaseChanged": _airbase, "LbnaChanged": _lbna, "StrikeFlown": _strike})


# ---- reading the state ---------------------------------------------------------------------------
def _maps():
    from domain.rulesets.stf import maps
    return maps


def map_name(state: dict) -> str:
    return state["campaign"]["map"]


def airbases(state: dict) -> dict[str, dict]:
    """Every airbase of the campaign, {name: {owner, hits, attacked?}}: the campaign's names
    (``system_airbase``, ``player_airbases``) with what ``state["airbases"]`` records."""
    camp = state["campaign"]
    out: dict[str, dict] = {}
    if camp.get("system_airbase"):
        out[camp["system_airbase"]] = {"owner": "system", "hits": 0}
    for name in camp.get("player_airbases") or []:
        out[name] = {"owner": "Player", "hits": 0}
    for name, rec in state.get("airbases", {}).items():
        out[name] = {**out.get(name, {"owner": None, "hits": 0}), **{k: v for k, v in rec.items() if v is not None}}
    return out


def airbase_active(state: dict, name: str) -> bool:
    """STF 9.4: an airbase with 3 hits cannot launch aircraft."""
    return airbases(state).get(name, {}).get("hits", 0) < BASE["hits_to_close"]


def airbase_hex(state: dict, name: str) -> str:
    return _maps().place_hex(map_name(state), name)


def afloat(state: dict, gid: str) -> list[dict]:
    """The units of group ``gid`` still in it (``forces.alive``)."""
    units = state["units"]
    return [units[u] for u in state["groups"][gid]["units"] if u in units and alive(units[u])]


def carriers(state: dict, gid: str) -> list[dict]:
    return [u for u in afloat(state, gid) if u.get("class") == "CV"]


def on_map(group: dict) -> bool:
    return group.get("hex") is not None and group.get("status", "on map") == "on map"


def squadrons(state: dict, owner: str) -> list[dict]:
    """The squadrons of a carrier unit (``owner`` a unit id) or of an airbase (``owner`` its name).

    A carrier's are its countermix ``air`` field, {type: strength} (one squadron, named
    ``<unit>:<type>``, as the combat helper's report names it) or {type: [strength, ...]} (several,
    ``<unit>:<type>1``, ``<unit>:<type>2``...; the Invincible's doubled AV8 of STF 13.3, marked
    ``extra_av8``, is two). Gone: one squadron of a type for each time the type is in the unit's
    ``air_lost`` (the report's ``squadrons_destroyed``), the last first; every squadron of a carrier
    sunk or with its flight deck inoperable (STF 12.7). The damage each has taken is the unit's
    ``air_damage`` {squadron: points} when recorded. An airbase's are the GameSystem's ground
    aviation squadrons (STF 2.1: ``campaign["ground_aviation"]["system"]`` of them, each
    data/air.json's provisional ``ground_squadron``), their damage in its ``air_damage``.
    ``left`` is strength less damage; a squadron with none left is gone."""
    if owner in state["units"]:
        unit = state["units"][owner]
        if unit.get("sunk") or unit.get("flight_deck_inoperable"):
            return []
        damage = unit.get("air_damage") or {}
        found = carrier_squadrons(unit, owner)
    else:
        count = (state["campaign"].get("ground_aviation") or {}).get("system", 0)
        damage = airbases(state).get(owner, {}).get("air_damage") or {}
        gone = set(airbases(state).get(owner, {}).get("air_lost") or [])  # reported destroyed (STF 12.3)
        found = [(f"{owner}:{GROUND['type']}{n}", GROUND["type"], GROUND["strength"]) for n in range(1, count + 1)
                 if f"{owner}:{GROUND['type']}{n}" not in gone]
    out = []
    for sid, typ, strength in found:
        left = strength - damage.get(sid, 0)
        if left > 0:
            out.append({"id": sid, "type": typ, "strength": strength, "damage": damage.get(sid, 0), "left": left})
    return out


def carrier_squadrons(unit: dict, owner: str) -> list[tuple[str, str, int]]:
    """(id, type, strength) of each squadron of carrier ``unit`` (id ``owner``) not destroyed, its
    flight deck and sinking aside. An ``air_lost`` entry that is a type ("M") takes that type's last
    squadron; one that names a squadron ("M1", as the report gave it) takes that one (STF 13.3's
    two AV8s: the other keeps its own name, damage and sorties)."""
    air, lost = unit.get("air") or {}, list(unit.get("air_lost") or [])
    found = []
    for typ in sorted(air):
        strengths = air[typ] if isinstance(air[typ], list) else [air[typ]]
        if unit.get("extra_av8") and typ == AV8_KIND and len(strengths) == 1 and strengths[0]:
            strengths = [strengths[0] // 2, strengths[0] - strengths[0] // 2]  # STF 13.3's two AV8s
        strengths = [n for n in strengths if n]
        kept = [(f"{owner}:{typ}" if len(strengths) == 1 else f"{owner}:{typ}{n}", strength)
                for n, strength in enumerate(strengths, start=1)]
        named = {f"{owner}:{e}" for e in lost if e != typ and e.rstrip("0123456789") == typ}
        kept = [k for k in kept if k[0] not in named]
        kept = kept[:max(0, len(kept) - lost.count(typ))]
        found += [(sid, typ, strength) for sid, strength in kept]
    return found


def group_squadrons(state: dict, origin: str) -> list[dict]:
    """The squadrons a GameSystem group (its carriers') or airbase can fly."""
    if origin in state["groups"]:
        return [s for cv in carriers(state, origin) for s in squadrons(state, cv["id"])]
    return squadrons(state, origin)


def _rested(state: dict, sq: dict, turns: tuple) -> bool:
    return state.get("sorties", {}).get(sq["id"]) not in turns


def cap(state: dict, origin: str) -> dict:
    """STF 10.2: the CAP of a GameSystem task force or airbase: half (round up) the strength of its
    L and M squadrons not on strikes this turn or last; 10.12: US and NATO add their AEW."""
    turn = state["turn"]
    if origin not in state["groups"] and not airbase_active(state, origin):
        # STF 9.4: an airbase with 3 hits cannot launch aircraft, so it flies no CAP
        return {"strength": 0, "of": 0, "squadrons": [], "aew": [], "rule": "STF 9.4",
                "why": f"{origin} has {BASE['hits_to_close']} hits or more: it cannot launch aircraft"}
    fresh = [s for s in group_squadrons(state, origin)
             if s["type"] in DOCTRINE["cap_types"] and _rested(state, s, (turn, turn - 1))]
    points = sum(s["left"] for s in fresh)
    nation = system_nation(state)
    aew = [s["id"] for s in group_squadrons(state, origin)
           if s["type"] == "AEW" and nation in DOCTRINE["aew_nations"] and _rested(state, s, (turn,))]
    return {"strength": math.ceil(points / 2), "of": points, "squadrons": [s["id"] for s in fresh], "aew": aew,
            "rule": "STF 10.2"}


def system_nation(state: dict) -> str | None:
    camp = state["campaign"]
    if camp.get("system_side"):
        return camp["system_side"]
    return "Soviet" if camp.get("player_side") == "US" else None


def _intel(group: dict) -> str:
    return group.get("intel") or "unknown"


def air_known(group: dict) -> bool:
    """A GameSystem task force's air strength is revealed once it has flown a strike (it is then set
    in ``air_known`` by this module; the search helper's composition reads the same field)."""
    return bool(group.get("air_known"))


# ---- STF 10.3, 10.4: who is in range of what -----------------------------------------------------
def player_targets(state: dict) -> list[dict]:
    """The Player's possible targets: CV task forces, active airbases (10.3: one that can launch
    aircraft, ``player_airbase_flies``: not 3 hits, 9.4, and squadrons, 2.1) and SAGs."""
    out = []
    for gid, g in by_number(state["groups"]):
        if g["owner"] != "Player" or g.get("kind") != "tf" or not on_map(g) or not afloat(state, gid):
            continue
        out.append({"id": gid, "kind": "CV" if carriers(state, gid) else "SAG", "hex": g["hex"]})
    for name, rec in sorted(airbases(state).items()):
        if rec.get("owner") == "Player" and player_airbase_flies(state, name):
            out.append({"id": name, "kind": "airbase", "hex": airbase_hex(state, name)})
    return out


def in_range(state: dict, origin_hex: str, targets: list[dict], *, airbases_too: bool) -> list[dict]:
    """STF 10.3: the targets within range (6 megahexes of a CV or airbase, 2 of a SAG), each with
    its megahex distance."""
    maps, name = _maps(), map_name(state)
    out = []
    for t in targets:
        if t["kind"] == "airbase" and not airbases_too:
            continue
        d = maps.megahex_distance(name, origin_hex, t["hex"])
        if d <= DOCTRINE["range_megahexes"][t["kind"]]:
            out.append({**t, "megahexes": d})
    return out


def choose_target(ctx: Ctx, origin: str, found: list[dict]) -> dict:
    """STF 10.4: CVs first, airbases next, SAGs last; then the nearest; a die for a true tie."""
    rank = DOCTRINE["target_priority"]
    best = min((rank.index(t["kind"]), t["megahexes"]) for t in found)
    tied = [t for t in found if (rank.index(t["kind"]), t["megahexes"]) == best]
    if len(tied) == 1:
        return tied[0]
    r = ctx.roll(1, len(tied), seat="system", rule="STF 10.4",
                 purpose=f"{origin}'s air strike: which of {', '.join(t['id'] for t in tied)} (equally near)",
                 outcome=lambda v: tied[v[0] - 1]["id"])
    return tied[r.values[0] - 1]


# ---- STF 10.5-10.7: does the task force strike? -------------------------------------------------
def _odd(ctx: Ctx, gid: str, rule: str, purpose: str) -> bool:
    r = ctx.roll(1, 6, seat="system", rule=rule, purpose=f"{gid}: {purpose}",
                 outcome=lambda v: "odd" if v[0] % 2 else "even")
    return r.values[0] % 2 == 1


def launches(ctx: Ctx, gid: str) -> tuple[bool, str, str]:
    """(strikes?, rule, why) for GameSystem task force ``gid`` with a target in range."""
    state = ctx.state
    g = state["groups"][gid]
    intel, chit = _intel(g), g.get("chit")
    if intel == "precise":
        if carriers(state, gid):
            return True, "STF 10.7", "Precisely identified with a CV"
        return False, "STF 10.7", "Precisely identified without a CV: it has no aircraft"
    if intel == "accurate" and air_known(g):
        return True, "STF 10.7", "Accurate with a revealed air strength"
    if chit == "Rear Admiral":
        if air_known(g):
            return True, "STF 10.7", "a Rear Admiral with a revealed air strength"
        nation = system_nation(state)
        if not carriers(state, gid) and nation and not pool_carriers(state, nation):
            # 10.8 would find it no carrier: odd or even it flies nothing, so 10.6's die decides nothing
            return False, "STF 10.8", f"a Rear Admiral with no revealed air strength, but no {nation} CV is left to fly it"
        if _odd(ctx, gid, "STF 10.6", "a Rear Admiral with no revealed air strength strikes on odd"):
            return True, "STF 10.6", "a Rear Admiral with no revealed air strength rolled odd"
        return False, "STF 10.6", "a Rear Admiral with no revealed air strength rolled even"
    if chit in (None, "Enemy", "Tracked"):
        if not _odd(ctx, gid, "STF 10.5", f"{chit or 'no chit'}: odd, then a 6, strikes"):
            return False, "STF 10.5", "rolled even: no effect"
        r = ctx.roll(1, 6, seat="system", rule="STF 10.5", purpose=f"{gid}: a 6 places a Rear Admiral chit and strikes",
                     outcome=lambda v: "Rear Admiral" if v[0] == 6 else "no effect")
        if r.values[0] != 6:
            return False, "STF 10.5", "rolled odd, then less than 6: no effect"
        # A leader chit marks the size of an Accurately identified task force (1.13, 8.6): the chit
        # is its Accurate level, so 10.7 ("is Accurate and has a previously revealed air strength")
        # takes it next turn, and 8.12 counts it once its strike's nation is fixed (_consider).
        ctx.emit(GroupChanged, group=gid, changes={"chit": "Rear Admiral", "size": "large", "intel": "accurate"},
                 rule="STF 10.5", why="rolled odd, then 6: a Rear Admiral chit (a large task force, Accurate: "
                                      "STF 1.13, 8.6), and the task force goes to the Air Attack Table")
        return True, "STF 10.5", "rolled odd, then 6"
    return False, "STF 10.5", f"a {chit} chit: a small or medium task force flies no strikes"


def consecutive_barred(state: dict, gid: str) -> bool:
    """STF 10.13: a task force that struck last turn does not strike now, unless Precise with 2 CVs."""
    if state["strikes"].get(gid) != state["turn"] - 1:
        return False
    g = state["groups"].get(gid)
    return not (g is not None and _intel(g) == "precise" and len(carriers(state, gid)) >= 2)


# ---- STF 10.8: the strike's nation and its carrier ------------------------------------------------
def fix_nation(ctx: Ctx) -> str:
    state = ctx.state
    nation = system_nation(state)
    if nation:
        return nation
    fixed = composition.FIXED_ENEMY.get(map_name(state))
    if fixed:  # data/campaign.json's soviet_player_enemy: the Caribbean's "all forces are US"
        nation, why = fixed, f"the {composition.MAP_TITLES[map_name(state)]}'s GameSystem is all {fixed}"
    else:
        made, reading = roll_on(ctx.dice, TABLES["strike nationality"], seat="system",
                                purpose=f"the nation of the GameSystem's first air strike ({_rows_said(TABLES['strike nationality'])})")
        _record_roll(ctx, made)
        nation, why = reading.result, f"rolled {reading.roll}: {reading.result}"
    ctx.emit(CampaignFixed, key="system_side", value=nation, rule="STF 10.8")
    ctx.emit(SystemActs, what="nation fixed", detail={"nation": nation}, rule="STF 10.8",
             why=f"an air strike is launched before any Precise report: {why}")
    return nation


def pool_carriers(state: dict, nation: str) -> list[str]:
    """STF 10.8: the CVs of ``nation`` left in the pool, a carrier can be drawn from."""
    return sorted(c for c, v in state["pool"].items() if v.get("class") == "CV" and v.get("nation") == nation)


def set_aside_carrier(ctx: Ctx, gid: str, nation: str) -> bool:
    """STF 10.8: a CV of ``nation`` drawn at random from the pool, set aside for task force ``gid``
    (joined to it, ``set_aside``, costing nothing yet: its Precise composition readjusts the
    points, STF 8.12). False when the pool has none."""
    pool = ctx.state["pool"]
    cvs = pool_carriers(ctx.state, nation)
    if not cvs:
        return False
    if len(cvs) == 1:
        pick = cvs[0]
    else:
        r = ctx.roll(1, len(cvs), seat="system", rule="STF 10.8",
                     purpose=f"{gid}'s air strike: the {nation} CV drawn from the pool ({', '.join(cvs)})",
                     outcome=lambda v: cvs[v[0] - 1])
        pick = cvs[r.values[0] - 1]
    unit = {**_unit_from_counter(ctx.state, pick), "group": gid, "set_aside": True}
    ctx.emit(UnitsAssigned, group=gid, units={pick: unit}, points=0, rule="STF 10.8",
             why=f"{gid} launched an air strike with no CV known: {pool[pick].get('name', pick)} drawn at random "
                 f"from the {nation} CVs and set aside as its carrier")
    return True


def composition_drawn(state: dict, gid: str) -> bool:
    """Whether GameSystem group ``gid``'s ships are drawn (STF 8.7): it has a unit afloat besides a
    CV set aside for its air strike (10.8), which is no composition yet."""
    return any(not u.get("set_aside") for u in afloat(state, gid))


def _unit_from_counter(state: dict, cid: str) -> dict:
    """The unit of pool counter ``cid`` (its id the counter's): the forces helper's
    ``unit_from_counter`` when present (STF 13.1-13.6 applied), else the pool entry itself."""
    try:
        from domain.rulesets.stf.forces import unit_from_counter
    except ImportError:
        unit = {k: json_copy(v) for k, v in state["pool"][cid].items() if k not in ("source", "provisional")}
        return {**unit, "id": cid, "counter": cid, "group": None, "hits": 0, "sunk": False}
    return unit_from_counter(state, cid, cid)


# ---- STF 10.10-10.12: the package ---------------------------------------------------------------
def _best(sqs: list[dict], types: list[str]) -> list[dict]:
    """Best first: by the job's type preference, then the least damaged, the strongest, the id."""
    return sorted((s for s in sqs if s["type"] in types),
                  key=lambda s: (types.index(s["type"]), s["damage"], -s["left"], s["id"]))


def package(state: dict, origin: str, strike: int, escort: int, nation: str) -> dict:
    turn = state["turn"]
    ready = [s for s in group_squadrons(state, origin) if _rested(state, s, (turn, turn - 1))]
    strikers = _best(ready, DOCTRINE["strike_types"])[:strike]
    taken = {s["id"] for s in strikers}
    escorts = _best([s for s in ready if s["id"] not in taken], DOCTRINE["escort_types"])[:escort]
    taken |= {s["id"] for s in escorts}
    ew = []
    if nation in DOCTRINE["ew_nations"]:
        ew = _best([s for s in ready if s["id"] not in taken], ["EW"])[:1]
    return {"strike": [s["id"] for s in strikers], "escort": [s["id"] for s in escorts], "ew": [s["id"] for s in ew],
            "short": {"strike": strike - len(strikers), "escort": escort - len(escorts)}}


def attack_plan(ctx: Ctx, origin: str, target: dict) -> dict:
    """STF 10.14 (a task force) or 9.3, 9.6 (an airbase): how the strike attacks. The ships in the
    order they are attacked: the CVs, else the class order; within it the highest VP first and
    equal ships put in order by dice, as 11.2 aims its missiles in the same order (11.3: "resolve
    the choice of same-value ship targets at random")."""
    from domain.rulesets.stf.combat import order_by  # imported late: combat imports this module
    if target["kind"] == "airbase":
        return {"attack": BASE["attack"], "to_hit": BASE["to_hit"], "airbase_ring": BASE["ring"],
                "airbase_aa": BASE["aa"], "aa_rings": list(BASE["aa_rings"]), "rule": "STF 9.3, 9.6"}
    ships = afloat(ctx.state, target["id"])
    cvs = [u for u in ships if u.get("class") == "CV"]
    if cvs:
        ranked = order_by(ctx, cvs, lambda u: u.get("vp", 0), rule="STF 10.14",
                          purpose=f"{origin}'s air strike: the CV attacked first among equal values")
        return {"attack": "diffusion bombs", "targets": [u["id"] for u in ranked], "rule": "STF 10.14"}
    order = list(DOCTRINE["asm_targets"])
    for cls, after in DOCTRINE.get("asm_unlisted_after", {}).items():  # a CL, which the text does not name
        order.insert(order.index(after) + 1, cls)
    ranked = order_by(ctx, [u for u in ships if u.get("class") in order],
                      lambda u: (-order.index(u["class"]), u.get("vp", 0)), rule="STF 10.14",
                      purpose=f"{origin}'s air strike: the ASM target order among equal ships")
    return {"attack": "ASM", "targets": [u["id"] for u in ranked], "target_order": list(order), "rule": "STF 10.14"}


def harpoon_squadrons(state: dict, origin: str, strike: list[str]) -> list[dict]:
    """STF 13.11: the GameSystem's A-6 Intruder and Buccaneer strike squadrons on an ASM attack
    fire 3 waves of 8 Harpoons (1 fewer per point of permanent damage) as SSM combat in the Strike
    segment, off the tactical display, after CAP. Their aircraft: the carrier counter's ``aircraft``."""
    out = []
    for sq in group_squadrons(state, origin):
        if sq["id"] not in strike:
            continue
        unit = state["units"].get(sq["id"].split(":")[0], {})
        name = str((unit.get("aircraft") or {}).get(sq["type"]) or "")
        if any(a in name for a in HARPOON["aircraft"]):
            waves = max(0, HARPOON["waves"] - HARPOON["waves_lost_per_damage"] * sq["damage"])
            out.append({"squadron": sq["id"], "aircraft": name, "waves": waves,
                        "missiles_per_wave": HARPOON["missiles_per_wave"], "missile": HARPOON["missile"],
                        "rule": "STF 13.11"})
    return out


COUNTS = re.compile(r"(\d+) strike, (\d+) escort")


def parse_counts(result: str) -> tuple[int, int]:
    """An Air Attack Table result, "<n> strike, <m> escort", as (n, m) (``check_air_attack`` has
    checked every result at load)."""
    m = COUNTS.fullmatch(result)
    return int(m.group(1)), int(m.group(2))


def check_air_attack(table: Table) -> Table:
    """The Air Attack Table as the strike step reads it: every result "<n> strike, <m> escort" with
    n at least 1, as every cell the text prints ("1 Strike" or more). So a task force found to have
    a strike squadron ready before the die (STF 10.11) flies it, whatever the die shows."""
    results = [r for _, _, row in table.rows for r in row]
    if isinstance(table.off_table, dict):
        results.append(table.off_table.get("result"))
    for result in results:
        m = COUNTS.fullmatch(result) if isinstance(result, str) else None
        if m is None or int(m.group(1)) < 1:
            raise DataError(FILE, f"tables.{table.name}", f"{result!r}: each result is '<n> strike, <m> escort' "
                                                          "with at least 1 strike, as the text's table prints (STF 10.3)")
    return table


check_air_attack(TABLES["air attack"])


# ---- the GameSystem's step: air attacks ----------------------------------------------------------
@STEPS.step("air_attacks")
def air_attacks(ctx: Ctx, stack: list) -> None:
    """STF 10.3-10.16: each GameSystem task force (in id order) and its airbase decide a strike."""
    stack.pop()
    state = ctx.state
    if not state["campaign"].get("map"):
        return
    origins = [g for g, v in by_number(state["groups"])
               if v["owner"] == "system" and v.get("kind") == "tf" and on_map(v)]
    base = state["campaign"].get("system_airbase")
    if base:
        origins.append(base)
    for origin in origins:
        _consider(ctx, origin)


def _consider(ctx: Ctx, origin: str) -> None:
    state = ctx.state
    is_tf = origin in state["groups"]
    if is_tf:
        g = state["groups"][origin]
        if not on_map(g):
            return
        where = g["hex"]
    else:
        if not airbase_active(state, origin) or not group_squadrons(state, origin):
            return  # STF 9.4: three hits, it cannot launch; or it has no ground aviation (STF 2.1)
        where = airbase_hex(state, origin)
    found = in_range(state, where, player_targets(state), airbases_too=is_tf)  # STF 9.2
    if not found:
        return
    if is_tf:
        if consecutive_barred(state, origin):
            return
        go, rule, why = launches(ctx, origin)
        if not go:
            return
    else:
        rule, why = "STF 9.1", "the GameSystem's airbase, never hidden, has a target in range"
    nation = fix_nation(ctx)
    if is_tf and rule == "STF 10.5":
        g = ctx.state["groups"][origin]
        points = composition.estimate(ctx.state, g)
        composition.add_estimate(ctx, origin, "STF 8.12",
                                 f"STF 8.12: {origin} increases to Accurate (STF 10.5's Rear Admiral chit), a large "
                                 f"task force: the total increases by {points}")
    if is_tf and not carriers(ctx.state, origin):
        if not set_aside_carrier(ctx, origin, nation):
            ctx.emit(SystemActs, what="no air strike", detail={"group": origin, "targets": [t["id"] for t in found]},
                     rule="STF 10.8", why=f"{why}, but the {nation} pool has no CV left to fly it")
            return
    if not package(ctx.state, origin, 1, 0, nation)["strike"]:
        ctx.emit(SystemActs, what="no air strike", detail={"group": origin, "targets": [t["id"] for t in found]},
                 rule="STF 10.11", why=f"{why}, but no strike squadron is ready (none left, refuelling, or its deck "
                                       f"inoperable)")
        return
    if is_tf and not air_known(ctx.state["groups"][origin]):  # only a strike that flies reveals it
        ctx.emit(GroupChanged, group=origin, changes={"air_known": True}, rule="STF 10.7",
                 why="it launched an air strike: its air strength is revealed")
    # the target only once the strike can fly: a die for a tie (10.4) decides nothing otherwise
    target = choose_target(ctx, origin, found)
    column = nation if nation in TABLES["air attack"].columns else "US"
    made, reading = roll_on(ctx.dice, TABLES["air attack"], seat="system", column=column,
                            purpose=f"{origin}'s air strike on {target['id']}: the Air Attack Table ({column})")
    _record_roll(ctx, made)
    strike, escort = parse_counts(reading.result)
    pack = package(ctx.state, origin, strike, escort, nation)  # 1 strike or more (check_air_attack): the one ready flies
    made, sectors = roll_on(ctx.dice, TABLES["strike sectors"], seat="system",
                            purpose=f"{origin}'s air strike: the entry sector (it departs by the opposite one)")
    _record_roll(ctx, made)
    enter, depart = (int(n) for n in re.findall(r"\d+", sectors.result))
    flown = pack["strike"] + pack["escort"] + pack["ew"]
    ctx.emit(StrikeFlown, group=origin, turn=ctx.state["turn"], squadrons=flown, rule="STF 10.13")
    detail = {"group": origin, "target": target["id"], "target_kind": target["kind"], "megahexes": target["megahexes"],
              "nation": nation, "table": reading.result, **{k: pack[k] for k in ("strike", "escort", "ew")},
              "short": pack["short"], "entry_sector": enter, "exit_sector": depart,
              "cap": cap(ctx.state, origin), "plan": attack_plan(ctx, origin, target)}
    harpoons = harpoon_squadrons(ctx.state, origin, pack["strike"]) if detail["plan"]["attack"] == "ASM" else []
    if harpoons:
        detail["harpoons"] = harpoons
    ctx.emit(SystemActs, what="air strike", detail=detail, rule=rule,
             why=f"{why}; {target['kind']} {target['id']} {target['megahexes']} megahexes away is its first target "
                 f"(STF 10.4); the table gives {reading.result}")
    if target["kind"] == "airbase":
        ctx.emit(AirbaseChanged, name=target["id"], changes={"owner": "Player", "attacked": ctx.state["turn"]},
                 rule="STF 9.5", why=f"struck by {origin}: no repair this turn")
    else:
        located(ctx, target["id"], f"{origin}'s air strike found it")


def _record_roll(ctx: Ctx, made: Any) -> None:
    """A roll made through toolkit.tables.roll_on with the game's roller, recorded as ctx.roll does."""
    ctx.out.append(made)
    ctx.state = ctx.hooks.fold(ctx.state, "DiceRolled", made.fields(), None)


def located(ctx: Ctx, gid: str, why: str) -> None:
    """STF 2.6.5: a Player (US/NATO) task force found by the GameSystem (its aviation or its LBNA)
    counts once toward the LBNA search modifier."""
    state = ctx.state
    if state["campaign"].get("player_side") != "US":
        return
    seen = list(state.get("lbna", {}).get("located", []))
    if gid in seen:
        return
    ctx.emit(LbnaChanged, changes={"located": [*seen, gid]}, rule="STF 2.6.5",
             why=f"{why}: a Precise identification of a US/NATO task force")


# ---- STF 2.6.3-2.6.5: the GameSystem's LBNA -------------------------------------------------------
def lbna_left(state: dict) -> dict[str, int]:
    used = state.get("lbna", {}).get("used", {})
    return {t: n - used.get(t, 0) for t, n in LBNA["units"].items()}


def lbna_available(state: dict) -> bool:
    camp = state["campaign"]
    flag = camp.get("lbna_available")
    if flag is None:
        flag = camp.get("map") in LBNA["maps"]
    return bool(flag)


def _use(ctx: Ctx, unit: str, rule: str, why: str) -> None:
    used = dict(ctx.state.get("lbna", {}).get("used", {}))
    used[unit] = used.get(unit, 0) + 1
    ctx.emit(LbnaChanged, changes={"used": used}, rule=rule, why=why)


@STEPS.step("lbna_strike")
def lbna_strike(ctx: Ctx, stack: list) -> None:
    stack.pop()
    state = ctx.state
    if not lbna_available(state) or system_nation(state) != "Soviet":
        return
    left = lbna_left(state)
    if not any(left.values()):
        return
    types = [t for t, n in left.items() if n]
    if len(types) == 1:
        unit = types[0]  # the other type all spent: this one flies whatever a die showed, so none is rolled
    else:
        made, reading = roll_on(ctx.dice, TABLES["lbna unit"], seat="system",
                                purpose="the GameSystem's land-based naval aviation this turn (1-3 Backfire, 4-6 Badger)")
        _record_roll(ctx, made)
        unit = reading.result
    tfs = locatable(state)
    if not tfs:
        # either face of the search die removes the unit: it decides nothing, so none is rolled
        _use(ctx, unit, "STF 2.6.4", f"the {CRAFT[unit]['name']} has no Player task force on the map to locate: "
                                     f"it fails to locate one and is removed from the game")
        return
    found = len(state.get("lbna", {}).get("located", []))
    drm = max(LBNA["drm_most"], LBNA["drm_per_precise"] * found)
    mods = [{"value": drm, "reason": f"{found} US/NATO task force(s) Precisely identified (STF 2.6.5)"}] if drm else []
    made, search = roll_on(ctx.dice, TABLES["lbna search"], seat="system", modifiers=mods,
                           purpose=f"does the {CRAFT[unit]['name']} locate a Player task force? (1 locates)")
    _record_roll(ctx, made)
    if search.result != "locates":
        _use(ctx, unit, "STF 2.6.4", f"the {CRAFT[unit]['name']} found no Player task force: removed from the game")
        return
    target = closest_to_soviet_edge(ctx, tfs)
    _use(ctx, unit, "STF 2.6", f"the {CRAFT[unit]['name']} is used (once only)")
    c = CRAFT[unit]
    ctx.emit(SystemActs, what="LBNA missile attack",
             detail={"unit": unit, "name": c["name"], "target": target, "missile": c["ssm"], "counter": c["counter"],
                     "waves": c["waves"], "missiles_per_wave": c["missiles_per_wave"], "air_to_air": c["air_to_air"],
                     "strength": c["strength"], "values": "STF 13.10"},
             rule="STF 2.6.4",
             why=f"the {c['name']} located {target}, the Player task force closest to the Soviet map edge, "
                 f"and attacks it with SSMs, resolved normally")
    located(ctx, target, f"the {c['name']} located it")
    # "resolved normally": the base game resolves it, and the Player is asked what it sank, as for
    # each SSM wave of the GameSystem's (STF 11.2)
    from domain.rulesets.stf import combat  # imported late: combat imports this module
    combat.ask_results(ctx, stack, "STF 2.6.4",
                       f"the {c['name']}'s SSM attack on {target} ({c['waves']} waves of {c['missiles_per_wave']} "
                       f"{c['ssm']})", [u["id"] for u in combat.units_of(ctx.state, target, ships=True)],
                       f"lbna-{target}", alone=True)


def edge_distance(state: dict, hex_name: str) -> int:
    """How far a hex is from the Soviet map edge (the movement helper's maps.side_edge and
    maps.edge_distance: rows or columns to that edge)."""
    maps, name = _maps(), map_name(state)
    return maps.edge_distance(name, hex_name, maps.side_edge(name, "Soviet"))


def locatable(state: dict) -> list[tuple[int, str]]:
    """STF 2.6.4: (distance from the Soviet map edge, task force) of each Player task force on the
    map with a ship afloat, the ones the LBNA may locate."""
    return [(edge_distance(state, v["hex"]), g) for g, v in by_number(state["groups"])
            if v["owner"] == "Player" and v.get("kind") == "tf" and on_map(v) and afloat(state, g)]


def closest_to_soviet_edge(ctx: Ctx, tfs: list[tuple[int, str]]) -> str:
    """STF 2.6.4: of ``tfs`` (``locatable``), the task force closest to the Soviet map edge (a die
    between equally close ones)."""
    best = min(d for d, _ in tfs)
    tied = [g for d, g in tfs if d == best]
    if len(tied) == 1:
        return tied[0]
    r = ctx.roll(1, len(tied), seat="system", rule="STF 2.6.4",
                 purpose=f"which task force the LBNA locates: {', '.join(tied)} are equally close to the Soviet edge",
                 outcome=lambda v: tied[v[0] - 1])
    return tied[r.values[0] - 1]


# ---- STF 9.4, 9.5: airbase hits and repair ---------------------------------------------------------
def hit_airbase(ctx: Ctx, name: str, hits: int, rule: str) -> None:
    """Hits reported on airbase ``name`` (the combat helper's ``report`` order calls this): they add
    up (STF 9.4: at 3 it cannot launch) and the airbase is attacked this turn (no repair, 9.5)."""
    bases = airbases(ctx.state)
    if name not in bases:
        raise InvalidOrder(f"no airbase {name!r} in this campaign ({', '.join(sorted(bases)) or 'none'})",
                           rule="STF 9.4", field="airbase")
    if not isinstance(hits, int) or isinstance(hits, bool) or hits < 0:
        raise InvalidOrder("the hits on an airbase are a whole number, 0 or more", rule="STF 9.4", field="hits")
    total = bases[name].get("hits", 0) + hits
    closed = total >= BASE["hits_to_close"]
    ctx.emit(AirbaseChanged, name=name, changes={"owner": bases[name].get("owner"), "hits": total,
                                                 "attacked": ctx.state["turn"]}, rule=rule,
             why=f"{hits} hit(s) reported: {total} in all (STF 9.4)"
                 + ("; with 3 hits it cannot launch aircraft" if closed else ""))


@STEPS.step("airbase_repair")
def airbase_repair(ctx: Ctx, stack: list) -> None:
    stack.pop()
    turn = ctx.state["turn"]
    for name, rec in sorted(airbases(ctx.state).items()):
        if rec.get("hits", 0) > 0 and rec.get("attacked") != turn:
            hits = max(0, rec["hits"] - BASE["repair_per_turn"])
            ctx.emit(AirbaseChanged, name=name, changes={"owner": rec.get("owner"), "hits": hits}, rule="STF 9.5",
                     why=f"not attacked on turn {turn}: one hit repaired, {hits} left")


# ---- the Player's orders -------------------------------------------------------------------------
def _need(cond: bool, rule: str, message: str) -> None:
    if not cond:
        raise RuleViolation(rule, message)


def _text(order: dict, key: str, rule: str) -> str:
    value = order.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidOrder(f"'{key}' is required: a group id or an airbase's name", rule=rule, field=key)
    return value


# owner -> (whose, what else it could have been): the words of a refusal
_OWNED = {"Player": ("the Player's", "a Player group nor a Player airbase"),
          "system": ("the GameSystem's", "a GameSystem group nor the GameSystem's airbase")}


def _group_or_airbase(state: dict, name: str, owner: str, rule: str) -> tuple[str, str]:
    """("group" or "airbase", hex) of ``owner``'s group on the map or airbase called ``name``."""
    whose, neither = _OWNED[owner]
    if name in state["groups"]:
        g = state["groups"][name]
        _need(g["owner"] == owner, rule, f"{name} is not {whose}")
        _need(on_map(g), rule, f"{name} is not on the map")
        return "group", g["hex"]
    bases = airbases(state)
    _need(name in bases and bases[name].get("owner") == owner, rule, f"{name!r} is neither {neither}")
    return "airbase", airbase_hex(state, name)


def player_ground_aviation(state: dict) -> int | None:
    """STF 2.1: the number of squadrons available to the Player for ground aviation (None before
    the campaign rolls it)."""
    return (state["campaign"].get("ground_aviation") or {}).get("Player")


def player_airbase_flies(state: dict, name: str) -> bool:
    """A Player airbase can launch aircraft: not closed by 3 hits (STF 9.4), and the Player has
    ground aviation squadrons (STF 2.1: none when the Ground Aviation Table gave him 0)."""
    return airbase_active(state, name) and player_ground_aviation(state) != 0


def _player_origin(state: dict, origin: str, rule: str) -> tuple[str, str]:
    """(kind, hex) of the Player's strike origin: a CV task force or an airbase of the Player's."""
    kind_, where = _group_or_airbase(state, origin, "Player", rule)
    if kind_ == "airbase":
        _need(airbase_active(state, origin), "STF 9.4", f"{origin} has 3 hits: it cannot launch aircraft")
    return kind_, where


def _system_target(state: dict, target: str, rule: str) -> tuple[str, str]:
    return _group_or_airbase(state, target, "system", rule)


def _asm(state: dict, order: dict, origin: str) -> list[dict]:
    """STF 13.11: the A-6 Intruder and Buccaneer squadrons of the strike firing Harpoons (a carrier
    whose counter names its aircraft must carry that one)."""
    cvs = carriers(state, origin) if origin in state["groups"] else []
    flown = [str(a) for cv in cvs for a in (cv.get("aircraft") or {}).values() if a]
    named = any("aircraft" in cv for cv in cvs)
    raw = order.get("asm", [])
    if not isinstance(raw, list):
        raise InvalidOrder("'asm' is a list of {aircraft, damage}", rule="STF 13.11", field="asm")
    out = []
    for item in raw:
        if not isinstance(item, dict) or item.get("aircraft") not in HARPOON["aircraft"]:
            raise InvalidOrder(f"each 'asm' entry names an aircraft: {' or '.join(HARPOON['aircraft'])}",
                               rule="STF 13.11", field="asm")
        known_fields(item, ["aircraft", "damage"], "STF 13.11", "an 'asm' entry", words=())
        _need(not named or any(item["aircraft"] in a for a in flown), "STF 13.11",
              f"{origin}'s carriers fly no {item['aircraft']}")
        if named:  # each squadron fires its waves once: no more entries than squadrons of it left
            left = _harpoon_squadrons(state, cvs, item["aircraft"])
            given = sum(1 for i in raw if isinstance(i, dict) and i.get("aircraft") == item["aircraft"])
            _need(given <= left, "STF 13.11", f"{origin}'s carriers have {left} {item['aircraft']} squadron(s) left, "
                                             f"not {given} to fire Harpoons")
        damage = item.get("damage", 0)
        if not isinstance(damage, int) or isinstance(damage, bool) or damage < 0:
            raise InvalidOrder("'damage' is the squadron's permanent damage, 0 or more", rule="STF 13.11", field="asm")
        waves = HARPOON["waves"] - HARPOON["waves_lost_per_damage"] * damage
        _need(waves > 0, "STF 13.11", f"a {item['aircraft']} with {damage} point(s) of permanent damage has no wave left")
        out.append({"aircraft": item["aircraft"], "damage": damage, "waves": waves,
                    "missiles_per_wave": HARPOON["missiles_per_wave"], "missile": HARPOON["missile"],
                    "resolved": "as SSM combat in the Strike segment, after CAP, off the tactical display"})
    return out


def _harpoon_squadrons(state: dict, cvs: list[dict], aircraft: str) -> int:
    """How many squadrons of ``aircraft`` the carriers ``cvs`` have left to fly (squadrons())."""
    return sum(1 for cv in cvs for s in squadrons(state, cv["id"])
               if aircraft in str((cv.get("aircraft") or {}).get(s["type"]) or ""))


def carries_tomahawks(u: dict) -> bool:
    """STF 9.7 with 13.9: the unit's counter names Tomahawk among its SSMs (data/countermix.json's
    ``ssm_type``, provisional; its loader refuses one on a FF)."""
    return u.get("class") in SURFACE and u.get("class") != "FF" and "tomahawk" in str(u.get("ssm_type") or "").lower()


def may_fire_tomahawks(state: dict, gid: str) -> bool:
    """STF 9.7: the group has a ship afloat that carries Tomahawks."""
    return any(carries_tomahawks(u) for u in afloat(state, gid))


# STF 9.7, 13.11: an air strike is the Strike phase's; Tomahawks are SSM combat, the Combat phase's
# (13.11's Harpoons are "treated exactly as SSM combat, but in the Strike Segment": the exception)
STRIKE_PHASE, TOMAHAWK_PHASE = "Strike", "Combat"


def _strike_templates(state: dict) -> list[dict]:
    if not state["campaign"].get("map"):
        return []
    if state["phase"] == TOMAHAWK_PHASE:
        return _tomahawk_templates(state)
    out = []
    origins = [g for g, v in sorted(state["groups"].items()) if v["owner"] == "Player" and on_map(v) and carriers(state, g)]
    origins += [n for n, b in sorted(airbases(state).items()) if b.get("owner") == "Player" and player_airbase_flies(state, n)]
    targets = [g for g, v in sorted(state["groups"].items())
               if v["owner"] == "system" and on_map(v) and _intel(v) in ("accurate", "precise")]
    targets += [n for n, b in sorted(airbases(state).items()) if b.get("owner") == "system"]
    for o in origins:
        for t in targets:
            if t in state["groups"] or o in state["groups"]:
                out.append({"kind": "air_strike", "from": o, "target": t})
            if o in state["groups"] and t in state["groups"]:  # STF 13.11: its A-6s or Buccaneers fire Harpoons
                cvs = carriers(state, o)  # while a squadron of them is left (one lost is not offered, as refused)
                out += [{"kind": "air_strike", "from": o, "target": t, "asm": [{"aircraft": a, "damage": 0}]}
                        for a in HARPOON["aircraft"] if _harpoon_squadrons(state, cvs, a)]
    return out


def _tomahawk_templates(state: dict) -> list[dict]:
    """STF 9.7: Tomahawks at a land airbase, from a task force with a ship that carries them (13.9)."""
    return [{"kind": "air_strike", "from": g, "target": n, "tomahawk": True}
            for g, v in sorted(state["groups"].items()) if v["owner"] == "Player" and on_map(v)
            and may_fire_tomahawks(state, g)
            for n, b in sorted(airbases(state).items()) if b.get("owner") == "system"]


@kind("air_strike", rule="STF 10.1", phases=(STRIKE_PHASE, TOMAHAWK_PHASE), templates=_strike_templates,
      help="a Player air strike (Strike phase) on a GameSystem group (Accurate or Precise, 10.1) or airbase (from a "
           "CV only, 9.2), or Tomahawks at an airbase (Combat phase, 9.7); the base game resolves it and 'report' "
           "gives its results",
      fields={"from": "the Player's CV task force or airbase", "target": "a GameSystem group or airbase",
              "tomahawk": "optional: true: Tomahawk missiles at an airbase (STF 9.7), in the Combat phase",
              "asm": "optional: [{aircraft: 'A-6 Intruder'|'Buccaneer', damage}] firing Harpoons (STF 13.11)"})
def air_strike(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    _need(bool(state["campaign"].get("map")), "STF 10.1", "the campaign has no map yet")
    origin = _text(order, "from", "STF 10.1")
    target = _text(order, "target", "STF 10.1")
    tomahawk = order.get("tomahawk", False)
    if not isinstance(tomahawk, bool):
        raise InvalidOrder("'tomahawk' is true or false", rule="STF 9.7", field="tomahawk")
    if tomahawk:
        _need(state["phase"] == TOMAHAWK_PHASE, "STF 9.7",
              f"Tomahawks are SSM combat, fired in the {TOMAHAWK_PHASE} phase, not in the {state['phase']} phase "
              f"(only 13.11's Harpoons are SSM combat in the Strike segment)")
    else:
        _need(state["phase"] == STRIKE_PHASE, "STF 10.1",
              f"an air strike is flown in the {STRIKE_PHASE} phase, not in the {state['phase']} phase "
              f"(in the {TOMAHAWK_PHASE} phase only Tomahawks, STF 9.7)")
    # Tomahawks are no aircraft: an airbase's 3 hits (STF 9.4) are not why one fires none (9.7)
    okind, _ = (_group_or_airbase(state, origin, "Player", "STF 10.1") if tomahawk
                else _player_origin(state, origin, "STF 10.1"))
    tkind, _ = _system_target(state, target, "STF 10.1")
    detail: dict = {"from": origin, "target": target}
    struck_unseen = False  # an Accurate task force whose ships are not drawn yet
    if tomahawk:
        if order.get("asm") not in (None, []):  # refused, not dropped: Harpoons fly with an air strike
            raise InvalidOrder("a Tomahawk attack fires no Harpoons: 'asm' (the A-6 Intruder and Buccaneer "
                               "waves) belongs to an air strike", rule="STF 13.11", field="asm")
        _need(tkind == "airbase", "STF 9.7", "the Tomahawk attack of STF 9.7 is on a land airbase "
                                             "(at ships, Tomahawks are SSM combat)")
        _need(okind == "group", "STF 9.7", "Tomahawks are fired by ships of a task force")
        only_ff = all(u.get("class") == "FF" for u in afloat(state, origin) if u.get("class") in SURFACE)
        _need(may_fire_tomahawks(state, origin), "STF 13.9" if only_ff else "STF 9.7",
              f"{origin} has no ship whose counter carries Tomahawks (its SSMs; never an FF: STF 13.9)")
        detail.update({"weapon": "Tomahawk", "plan": {"airbase_ring": BASE["ring"], "airbase_aa": BASE["aa"],
                                                     "aa_rings": list(BASE["aa_rings"])}})
        rule = "STF 9.7"
    else:
        # a strike on an airbase is 9.2's ("CV air units ... can attack land air bases"); on ships, 10.1's
        _need(okind == "group" and bool(carriers(state, origin)) or okind == "airbase",
              "STF 9.2" if tkind == "airbase" else "STF 10.1",
              f"{origin} has no carrier: a task force's air strike flies from a CV")
        if tkind == "airbase":
            _need(okind == "group", "STF 9.2", "only CV air units may attack land airbases, not aircraft of an airbase")
            detail["plan"] = {"attack": BASE["attack"], "to_hit": BASE["to_hit"], "airbase_ring": BASE["ring"],
                              "airbase_aa": BASE["aa"], "aa_rings": list(BASE["aa_rings"]), "rule": "STF 9.3, 9.6"}
            rule = "STF 9.2"
        else:
            g = state["groups"][target]
            _need(_intel(g) in ("accurate", "precise"), "STF 10.1",
                  f"{target} is {_intel(g)}: an air strike needs an Accurate or Precise search report on it")
            rule = "STF 10.1"
            struck_unseen = _intel(g) == "accurate" and not composition_drawn(state, target)
        _need(okind == "group" or player_ground_aviation(state) != 0, "STF 2.1",
              f"the Ground Aviation Table gave the Player no squadron available for ground aviation: "
              f"nothing flies from {origin}")
        if struck_unseen:
            # An Accurate task force has a size, no ships yet. The strike is fought on the tactical
            # display, where the GameSystem places its ships (STF 11.7): it draws them first, by 8.7's
            # procedure, as a long-range SSM hit does (11.1). The CAP below then counts their aircraft.
            composition.reveal(ctx, target, rule="STF 11.7",
                               why=f"{origin}'s air strike puts {target}'s ships on the tactical display")
            state = ctx.state
        detail["cap"] = cap(state, target)
        asm = _asm(state, order, origin)
        if asm:
            _need(tkind == "group", "STF 9.6", "an airbase is attacked by ordinary bombing only")
            detail["asm"] = asm
    ctx.emit(PlayerAirAction, what="Tomahawk attack" if tomahawk else "air strike", detail=detail, rule=rule)
    if tkind == "airbase":
        ctx.emit(AirbaseChanged, name=target, changes={"owner": "system", "attacked": state["turn"]}, rule="STF 9.5",
                 why=f"attacked by {origin}: no repair this turn")


def _bombard_templates(state: dict) -> list[dict]:
    if not state["campaign"].get("map"):
        return []
    maps, name = _maps(), map_name(state)
    return [{"kind": "bombard", "from": g, "target": n}
            for g, v in sorted(state["groups"].items()) if v["owner"] == "Player" and on_map(v)
            and any(u.get("gun") in BASE["bombard_guns"] for u in afloat(state, g))
            for n, b in sorted(airbases(state).items()) if b.get("owner") == "system"
            and maps.distance(name, v["hex"], airbase_hex(state, n)) <= BASE["bombard_range_hexes"]]


@kind("bombard", rule="STF 9.8", phases=("Combat",), templates=_bombard_templates,
      help="ships with A or B guns bombard the GameSystem's airbase from its hex or an adjacent one",
      fields={"from": "the Player's task force", "target": "the GameSystem's airbase"})
def bombard(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    _need(bool(state["campaign"].get("map")), "STF 9.8", "the campaign has no map yet")
    origin = _text(order, "from", "STF 9.8")
    target = _text(order, "target", "STF 9.8")
    # ships bombard (STF 9.8): an airbase is refused for that, whatever its hits (9.4)
    okind, where = _group_or_airbase(state, origin, "Player", "STF 9.8")
    _need(okind == "group", "STF 9.8", "an airbase is bombarded by ships")
    tkind, base_hex = _system_target(state, target, "STF 9.8")
    _need(tkind == "airbase", "STF 9.8", "STF 9.8 bombards an airbase; gunnery at ships is surface combat")
    guns = [u["id"] for u in afloat(state, origin) if u.get("gun") in BASE["bombard_guns"]]
    _need(bool(guns), "STF 9.8", f"{origin} has no ship with an A or B gunnery factor")
    d = _maps().distance(map_name(state), where, base_hex)
    _need(d <= BASE["bombard_range_hexes"], "STF 9.8",
          f"{origin} is {d} hexes from {target}: bombardment is from the same or an adjacent hex")
    ctx.emit(PlayerAirAction, what="bombardment", detail={"from": origin, "target": target, "ships": guns,
                                                          "airbase_ring": BASE["ring"], "airbase_aa": BASE["aa"]},
             rule="STF 9.8")
    ctx.emit(AirbaseChanged, name=target, changes={"owner": "system", "attacked": state["turn"]}, rule="STF 9.5",
             why=f"bombarded by {origin}: no repair this turn")


# ---- STF 2.6.1, 2.6.2: the Soviet Player's LBNA patrol -------------------------------------------
def identified_air(state: dict, megahex: int) -> dict:
    """STF 2.6.2: the GameSystem's identified L and M strength within 6 megahexes of ``megahex``
    not on strikes last turn nor on CAP this turn (each group's CAP, 10.2, is half round up of its
    fresh L and M: what counts is the rest). Identified: the carriers of task forces Precisely
    identified or whose air strength is revealed (``air_known``: 10.7's "previously revealed air
    strength", 8.11's "known air strength"; the text says "identified", not "Precisely
    identified"), and the airbase's squadrons (9.1)."""
    maps, name, turn = _maps(), map_name(state), state["turn"]
    centre = maps.megahex_hexes(name, megahex)[0]
    origins = [(g, v["hex"]) for g, v in sorted(state["groups"].items())
               if v["owner"] == "system" and on_map(v) and (_intel(v) == "precise" or air_known(v))]
    origins += [(n, airbase_hex(state, n)) for n, b in sorted(airbases(state).items())
                if b.get("owner") == "system" and airbase_active(state, n)]  # STF 9.4: 3 hits, grounded
    counted, points = [], 0
    for origin, where in origins:
        if maps.megahex_distance(name, centre, where) > LBNA["patrol_range_megahexes"]:
            continue
        fresh = sum(s["left"] for s in group_squadrons(state, origin)
                    if s["type"] in DOCTRINE["cap_types"] and _rested(state, s, (turn, turn - 1)))
        if fresh:
            on_cap = math.ceil(fresh / 2)
            counted.append({"origin": origin, "fresh": fresh, "cap": on_cap, "counted": fresh - on_cap})
            points += fresh - on_cap
    return {"points": points, "by": counted}


def _patrol_templates(state: dict) -> list[dict]:
    if state["campaign"].get("player_side") != "Soviet" or not lbna_available(state):
        return []
    if state.get("lbna", {}).get("patrol_turn") == state["turn"]:
        return []
    maps, name = _maps(), map_name(state)
    seen = sorted({maps.megahex_number(name, g["hex"]) for g in state["groups"].values()
                   if g["owner"] == "system" and on_map(g)} - {None})
    # STF 2.6.1 "against any Megahex": every megahex holding a GameSystem group (the three lowest
    # numbers alone left out the contacts nearest the Player); with none, the first megahex
    megahexes = seen or maps.megahex_numbers(name)[:1]
    out = []
    for u, n in lbna_left(state).items():
        if n:
            for m in megahexes:
                out.append({"kind": "lbna_patrol", "unit": u, "megahex": m})
                # STF 2.6.2: the unit may also fire at a single task force in that megahex
                out += [{"kind": "lbna_patrol", "unit": u, "megahex": m, "target": g}
                        for g, v in by_number(state["groups"])
                        if v["owner"] == "system" and on_map(v) and v.get("kind") == "tf"
                        and maps.megahex_number(name, v["hex"]) == m]
    return out


@kind("lbna_patrol", rule="STF 2.6.1", phases=("Patrol",), templates=_patrol_templates,
      help="a Soviet Player's Backfire or Badger patrol (one a turn) for a Precise search report on a megahex, "
           "and optionally its AS-6 waves at one task force there (STF 2.6.2)",
      fields={"unit": "backfire or badger", "megahex": "the megahex's number",
              "target": "optional: a GameSystem task force in that megahex for its missiles"})
def lbna_patrol(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    _need(state["campaign"].get("player_side") == "Soviet", "STF 2.6.1", "only a Soviet Player flies LBNA patrols")
    _need(lbna_available(state), "STF 2.6", "land-based naval aviation is in the GIUK and Mediterranean campaigns only")
    unit = order.get("unit")
    if not isinstance(unit, str) or unit not in LBNA["units"]:
        raise InvalidOrder("'unit' is 'backfire' or 'badger'", rule="STF 2.6.1", field="unit")
    megahex = order.get("megahex")
    if not isinstance(megahex, int) or isinstance(megahex, bool):
        raise InvalidOrder("'megahex' is a megahex number", rule="STF 2.6.1", field="megahex")
    _need(state.get("lbna", {}).get("patrol_turn") != state["turn"], "STF 2.6.1",
          "one Backfire or Badger patrol a turn: this turn's is flown")
    _need(lbna_left(state)[unit] > 0, "STF 2.6", f"the six {CRAFT[unit]['name']} units are all used")
    maps, name = _maps(), map_name(state)
    if megahex not in maps.megahex_numbers(name):
        raise InvalidOrder(f"the {name} map has no megahex {megahex}", rule="STF 2.6.1", field="megahex")
    there = [g for g, v in by_number(state["groups"])
             if v["owner"] == "system" and on_map(v) and str(maps.megahex_number(name, v["hex"])) == str(megahex)]
    target = order.get("target")
    c = CRAFT[unit]
    if target is not None:
        _need(target in there and state["groups"][target].get("kind") == "tf", "STF 2.6.2",
              f"the {c['name']} fires at a single task force in megahex {megahex}")
    used = dict(state.get("lbna", {}).get("used", {}))
    used[unit] = used.get(unit, 0) + 1
    ctx.emit(LbnaChanged, changes={"used": used, "patrol_turn": state["turn"]}, rule="STF 2.6.1",
             why=f"a {c['name']} patrols megahex {megahex} (each unit flies once)")
    _precise_reports(ctx, there)
    detail: dict = {"unit": unit, "name": c["name"], "megahex": megahex, "groups": there, "report": "precise",
                    "false_contacts": [g for g in there if not on_map(ctx.state["groups"][g])]}
    if target is not None and on_map(ctx.state["groups"][target]):
        air = identified_air(ctx.state, megahex)
        lost = math.ceil(air["points"] / LBNA["strength_per_wave"])
        waves = max(0, c["waves"] - lost)
        detail["missiles"] = {"target": target, "missile": c["ssm"], "counter": c["counter"], "waves": waves,
                              "missiles_per_wave": c["missiles_per_wave"], "waves_lost": c["waves"] - waves,
                              "identified_air": air, "rule": "STF 2.6.2"}
    elif target is not None:
        detail["missiles"] = None  # its target was a false contact: nothing to fire at
    ctx.emit(PlayerAirAction, what="LBNA patrol", detail=detail, rule="STF 2.6.1")


def _precise_reports(ctx: Ctx, groups: list[str]) -> None:
    """STF 2.6.1: a Precise search report on each group of the megahex, by the search part's
    procedure for a Precise result (STF 8.7: a group with no chit may prove a false contact; a
    hostile one is revealed, its composition drawn)."""
    from domain.rulesets.stf import search
    for gid in groups:
        search.RESULTS["precise"](ctx, gid)
