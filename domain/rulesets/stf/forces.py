"""The countermix and the Player's forces (STF 1.4, 1.7, 1.8, 1.12-1.14, 13.1-13.9, 13.12).

The countermix (data/countermix.json: Task Force's page 17 is not in the text, so its counters
are provisional, what the text states is not) is copied into the game by ``PoolSet`` at the first
order of the Forces phase, so a later correction of the file never changes a game under way.

STF 1.4   A counter's value is its cost; a US carrier costs 25 points (data).
STF 1.7   The Player's carriers are drawn at random from his side's pool (``draw_carriers``); the
          first drawn fixes the nationality grouping the rest is bought from (Caribbean: US only).
STF 1.8   A US Player may buy up to 6 SOSUS units at 1 point for each 2.
STF 1.12  Each carrier has at least three ASW ships of frigate level or higher and, US only, one
          free fast resupply freighter (no invasion VP); an invader's 8 free freighters (1.11).
STF 1.13  The GameSystem's leaders only mark size (search.py's chits): nothing to do here.
STF 1.14  The Player's leaders by the points of each task force (the commitment points spent on
          it, 13.7's upgrade points too): 21+ Rear Admiral, 11+ Commodore, else Captain.
STF 13.1-13.9  Values and loads of the units (``unit_from_counter``: Iowa 10 VP, Kirov 8 VP, the
          Invincible's second AV8 squadron, (x2) SSM on CV and CG, (x4)/(x3) torpedoes on subs),
          the Player's (x2) SSM upgrades of DD and FF (never PC), no Tomahawk on a FF (data check).
"""

from __future__ import annotations

from typing import Any

from domain.errors import InvalidOrder
from domain.events import PhaseAdvanced
from domain.rulesets.stf import composition
from domain.rulesets.stf.events import CampaignFixed, GroupPlaced, PoolSet, UnitsAssigned
from domain.rulesets.stf.rules import DATA, kind
from domain.rulesets.toolkit.data import DataError, Dataset, check_choice, check_fields, freeze, thaw
from domain.rulesets.toolkit.engine import Ctx, ids, known_fields, need

COUNTERMIX_FILE = "countermix.json"
NATIONS = ("US", "NATO", "Soviet")
CLASSES = ("CV", "BB", "CG", "CL", "DD", "FF", "PC", "SSN", "SS", "FR")
SUBS = ("SSN", "SS")
GUNS = ("A", "B", "C", "D", None)
AIR_KINDS = ("L", "M", "H", "EW", "AEW")
ROLES = (None, "fast resupply", "invasion")
OPT_STR = (str, type(None))
COUNTER_FIELDS = {
    "name": str, "nation": str, "country": str, "class": str, "ship_class": str, "value": int, "vp": int,
    "speed": int, "gun": OPT_STR, "asw": int, "aa": int, "ssm": int, "ssm_loads": int, "ssm_type": OPT_STR,
    "torpedoes": int, "flotation": int, "air": (dict, type(None)), "aircraft": (dict, type(None)),
    "role": OPT_STR, "source": str, "provisional": list,
}
FILE_FIELDS = {"title": str, "source": str, "provisional": str, "fields": dict, "counters": dict}

# What the text states about the counters (checked against the file, applied by unit_from_counter).
US_CARRIER_COST = 25            # STF 1.4
CLASS_VP = {"Iowa": 10, "Kirov": 8}  # STF 13.1
CV_CG_SSM_LOADS = 2             # STF 13.4
SUB_TORPEDOES = {"US": 4, "NATO": 4, "Soviet": 3}  # STF 13.5, 13.6
EXTRA_AV8_SHIP = "Invincible"     # STF 13.3 (the squadron kind its AV8 flies as: AV8_KIND, from the data)
TOMAHAWK = "Tomahawk"           # STF 13.9
SUB_SPEED = {"SSN": 2, "SS": 1}  # STF 7.1


def load_countermix(dataset: Dataset, name: str = COUNTERMIX_FILE) -> dict:
    """The countermix file checked: every counter against its schema and the text's facts; the
    guesses recorded in ``dataset.provisional()``. Returns the frozen file."""
    doc = dataset.read(name)
    check_fields(name, "(file)", doc, FILE_FIELDS)
    dataset.guess(name, "(file)", None, doc["provisional"])
    counters = dataset.entries(name, doc, "counters", COUNTER_FIELDS)
    for cid, c in counters.items():
        entry = f"counters.{cid}"
        check_choice(name, entry, "nation", c["nation"], NATIONS)
        check_choice(name, entry, "class", c["class"], CLASSES)
        check_choice(name, entry, "gun", c["gun"], GUNS)
        check_choice(name, entry, "role", c["role"], ROLES)
        for f in ("value", "vp", "speed", "asw", "aa", "ssm", "ssm_loads", "torpedoes", "flotation"):
            if c[f] < 0:
                raise DataError(name, entry, f"'{f}' is negative")
        if c["class"] == "CV":
            if not isinstance(c["air"], dict) or sorted(c["air"]) != sorted(AIR_KINDS):
                raise DataError(name, entry, f"a carrier's 'air' gives the strength of {', '.join(AIR_KINDS)}")
            if any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in c["air"].values()):
                raise DataError(name, entry, "'air' strengths are whole numbers, 0 or more")
        elif c["air"] is not None:
            raise DataError(name, entry, "only a carrier has 'air'")
        if (c["role"] is not None) != (c["class"] == "FR"):
            raise DataError(name, entry, "a freighter, and only a freighter, has a 'role' (STF 1.11, 1.12)")
        problem = text_conflict(c)
        if problem:
            raise DataError(name, entry, problem)
    return freeze(doc)


def text_conflict(c: dict) -> str | None:
    """What in a counter contradicts the text (a correction may change a guess, never the text)."""
    cls = c["class"]
    if cls == "CV" and c["nation"] == "US" and c["value"] != US_CARRIER_COST:
        return f"a US carrier costs {US_CARRIER_COST} points (STF 1.4)"
    if c["ship_class"] in CLASS_VP and c["vp"] != CLASS_VP[c["ship_class"]]:
        return f"a {c['ship_class']}-class ship is worth {CLASS_VP[c['ship_class']]} VP (STF 13.1)"
    if cls in ("CV", "CG") and c["ssm_loads"] != CV_CG_SSM_LOADS:
        return "CV and CG carry (x2) SSM (STF 13.4)"
    if cls in SUBS and c["torpedoes"] != SUB_TORPEDOES[c["nation"]]:
        return (f"{c['nation']} subs carry (x{SUB_TORPEDOES[c['nation']]}) torpedoes "
                f"(STF {'13.6' if c['nation'] == 'Soviet' else '13.5'})")
    if cls == "FF" and TOMAHAWK in (c["ssm_type"] or ""):
        return "no Tomahawk on a FF (STF 13.9)"
    if cls in ("DD", "FF") and c["ssm_loads"] > 2:
        return "a DD or FF carries at most (x2) SSM (STF 13.7)"
    if cls == "FR" and c["value"] != 0:
        return "freighters come free (STF 1.11, 1.12)"
    if cls in ("CG", "FR") and c["ship_class"] not in CLASS_VP and c["vp"] != 5:
        return "a CG and a freighter are worth 5 VP each (STF 11.8)"
    if cls == "DD" and c["value"] != 4:
        return "a DD costs 4 deployment points (STF 8.9)"
    if cls in SUBS and c["speed"] != SUB_SPEED[cls]:
        return f"an SSN moves {SUB_SPEED['SSN']} hexes a turn, a conventional sub {SUB_SPEED['SS']} (STF 7.1)"
    return None


COUNTERMIX: Any = load_countermix(DATA)
COUNTERS = COUNTERMIX["counters"]
# STF 13.3 names the AV8, not the squadron kind it flies as: that is the Invincible counter's
# (its "aircraft", provisional in countermix.json, Task Force's counter).
_AV8 = [k for c in COUNTERS.values() if c["name"] == EXTRA_AV8_SHIP and c.get("aircraft")
        for k, a in c["aircraft"].items() if a and "AV8" in a]
if len(set(_AV8)) != 1:
    raise DataError(COUNTERMIX_FILE, EXTRA_AV8_SHIP, "the Invincible's 'aircraft' must name its AV8 under one kind (STF 13.3)")
AV8_KIND = _AV8[0]
POOL_FIELDS = tuple(k for k in COUNTER_FIELDS if k not in ("source", "provisional"))


def pool_from_countermix() -> dict:
    """The pool a game starts from: every counter of the countermix, without its notes."""
    return {cid: {k: thaw(c[k]) for k in POOL_FIELDS} for cid, c in COUNTERS.items()}


# ---- units: what other parts use ------------------------------------------------------------------
def unit_from_counter(state: dict, counter_id: str, uid: str) -> dict:
    """The unit dict of pool counter ``counter_id`` (``state["pool"]``, else the countermix before
    the pool is set), with id ``uid``, not yet in a group, undamaged, per STF 13.1-13.6: Iowa 10 VP,
    Kirov 8 VP, the Invincible's second AV8 squadron, CV and CG (x2) SSM, US/NATO subs (x4)
    torpedoes, Soviet subs (x3); a freighter's ``invasion`` (STF 1.11, 1.12). ``ssm_left`` counts
    missiles (``ssm`` a load times ``ssm_loads``: what combat.ssm_left reads and spends, STF 11.2),
    ``torpedoes_left`` torpedo loads."""
    pool = state.get("pool") or {}
    counter = pool.get(counter_id)
    if counter is None:
        if pool or counter_id not in COUNTERS:
            raise KeyError(f"counter {counter_id!r} is not in the pool")
        counter = COUNTERS[counter_id]
    unit = {k: thaw(v) for k, v in counter.items() if k not in ("source", "provisional")}
    cls = unit["class"]
    if cls in ("CV", "CG"):
        unit["ssm_loads"] = CV_CG_SSM_LOADS                       # STF 13.4
    if cls in SUBS:
        unit["torpedoes"] = SUB_TORPEDOES[unit["nation"]]         # STF 13.5, 13.6
    if unit.get("ship_class") in CLASS_VP:
        unit["vp"] = CLASS_VP[unit["ship_class"]]                 # STF 13.1
    if cls == "CV" and unit["nation"] == "US":
        unit["value"] = US_CARRIER_COST                           # STF 1.4
    if cls == "CV" and unit["name"] == EXTRA_AV8_SHIP and unit.get("air"):
        # STF 13.3: a second AV8 squadron of the same strength as the standard complement's
        unit["air"] = {**unit["air"], AV8_KIND: unit["air"][AV8_KIND] * 2}
        unit["extra_av8"] = True
    unit.update({"id": uid, "counter": counter_id, "group": None, "hits": 0, "sunk": False,
                 "ssm_left": unit["ssm"] * unit["ssm_loads"], "torpedoes_left": unit["torpedoes"]})
    if cls == "FR":
        unit["invasion"] = unit.get("role") == "invasion"
    return unit


def value(unit: dict) -> int:
    """The unit's deployment / commitment points (STF 1.4: a US carrier 25)."""
    if unit.get("class") == "CV" and unit.get("nation") == "US":
        return US_CARRIER_COST
    return int(unit.get("value", 0))


def cost(unit: dict) -> int:
    """The commitment points the Player spent on ``unit``: its value and, for a DD or FF whose SSM
    went to (x2), the point that cost (STF 13.7); a task force's points for its leader (1.14)."""
    return value(unit) + (SSM_UPGRADE_COST if unit.get("ssm_upgraded") else 0)


def vp(unit: dict) -> int:
    """The VP the unit is worth when sunk (STF 13.1: Iowa 10, Kirov 8; STF 11.8: CG, freighter 5)."""
    return CLASS_VP.get(unit.get("ship_class"), int(unit.get("vp", 0)))


def group_order(group: dict) -> tuple:
    """The one order of groups, for moving, flying and fighting in turn: task forces before subrons,
    each by its number (TF1, TF2, ..., TF10, SR1, ...; the Player's P1, P2, ..., P10), not the text
    order of their ids (which puts SR1 before TF1 and TF10 before TF2)."""
    gid = group["id"]
    digits = "".join(ch for ch in gid if ch.isdigit())
    return (0 if group.get("kind", "tf") == "tf" else 1, gid.rstrip("0123456789"), int(digits) if digits else 0)


def by_number(groups: dict) -> list[tuple[str, dict]]:
    """``state["groups"]``'s (id, group) pairs in ``group_order``."""
    return sorted(groups.items(), key=lambda kv: group_order(kv[1]))


def alive(unit: dict) -> bool:
    """A unit still in its group: not sunk (STF 12.4), not a squadron reported destroyed (12.3), not
    retired off the map at a base (12.9). The one test of it: combat, retirement and 1.12 read this."""
    return not unit.get("sunk") and not unit.get("retired") and not unit.get("destroyed")


def is_escort(unit: dict) -> bool:
    """STF 1.12: a ship of frigate level or higher with ASW capability (a counter's class and
    rating; whether a unit is still in its group is ``alive``'s question)."""
    return unit.get("class") in ESCORT_CLASSES and unit.get("asw", 0) > 0


def escort_shortfall(state: dict, group_id: str) -> str | None:
    """Why the carriers of task force ``group_id`` break STF 1.12 (None when they do not, or it
    has no carrier): at least three ASW ships of frigate level or higher per carrier and, US only,
    a fast resupply freighter per carrier. Only units still in the group count (``alive``: what
    combat counts too; sunk, destroyed or retired units accompany nothing). A task force that
    breaks it must withdraw toward the nearest friendly base (movement and retirement read this)."""
    units = [state["units"][u] for u in state["groups"][group_id]["units"] if u in state["units"]]
    units = [u for u in units if alive(u)]
    carriers = [u for u in units if u.get("class") == "CV"]
    if not carriers:
        return None
    escorts = sum(1 for u in units if is_escort(u))
    need_escorts = ESCORTS_PER_CARRIER * len(carriers)
    if escorts < need_escorts:
        return (f"{len(carriers)} carrier(s) need {need_escorts} ASW ships of frigate level or higher, "
                f"the task force has {escorts}")
    us = sum(1 for u in carriers if u.get("nation") in composition.COMPOSITION["fast_resupply"]["nations"])
    resupply = sum(1 for u in units if u.get("class") == "FR" and u.get("role") == "fast resupply")
    if resupply < us:
        return f"{us} US carrier(s) need {us} fast resupply freighter(s), the task force has {resupply}"
    return None


def system_withdrawal(state: dict, group_id: str) -> str | None:
    """STF 1.12 for the GameSystem: why its task force ``group_id`` must withdraw (its carriers
    short of escorts, ``escort_shortfall``), known only once the task force is Precise (before, its
    known units may be only a carrier set aside by 10.8); None when it need not. It withdraws
    toward its nearest base (movement) and engages in no surface combat (combat): "however it may
    continue to conduct air operations"."""
    group = state["groups"][group_id]
    if group.get("owner") != "system" or group.get("kind", "tf") != "tf" or group.get("intel") != "precise":
        return None
    return escort_shortfall(state, group_id)


def leader_for(points: int) -> str:
    """STF 1.14: the highest leader a task force of ``points`` may have."""
    return next(name for least, name in LEADERS if points >= least)


# STF 1.12's "ships of frigate level (or higher)": the classes from the FF up in the class order by
# value, carriers aside. The order is Task Force's (page 17), provisional in data/composition.json.
_CLASS_ORDER = DATA.read("composition.json")["class_order"]["surface"]
ESCORT_CLASSES = tuple(c for c in _CLASS_ORDER[:_CLASS_ORDER.index("FF") + 1] if c != "CV")
ESCORTS_PER_CARRIER = 3           # STF 1.12
SOSUS_MAX, SOSUS_PER_POINT = 6, 2  # STF 1.8
LEADERS = ((21, "Rear Admiral"), (11, "Commodore"), (0, "Captain"))  # STF 1.14
LEADER_RANK = {"Captain": 0, "Commodore": 1, "Rear Admiral": 2}
UPGRADE_CLASSES = ("DD", "FF")    # STF 13.7
SSM_UPGRADE_COST = 1              # STF 13.7: "at the cost of one commitment point per ship"


# ---- the Forces phase -----------------------------------------------------------------------------
def _campaign(state: dict) -> dict:
    return state.get("campaign") or {}


def _commitment(state: dict) -> tuple[int, int]:
    c = (_campaign(state).get("commitment") or {}).get("Player") or {}
    return int(c.get("points", 0)), int(c.get("carriers", 0))


def _pool(state: dict) -> dict:
    return state.get("pool") or pool_from_countermix()


def groupings(state: dict) -> tuple[str, ...]:
    """STF 1.7: the nationality groupings the Player may draw from: US or NATO for a US Player
    (US only on the Caribbean map), Soviet for a Soviet Player."""
    camp = _campaign(state)
    if camp.get("player_side") == "Soviet":
        return ("Soviet",)
    return ("US",) if camp.get("map") == "caribbean" else ("US", "NATO")


def _ensure_pool(ctx: Ctx) -> None:
    """STF 1.7: the countermix becomes the game's pool at the first order of the Forces phase."""
    if not ctx.state.get("pool"):
        ctx.emit(PoolSet, pool=pool_from_countermix(), rule="STF 1.7")


def _need_campaign(state: dict) -> None:
    camp = _campaign(state)
    need(camp.get("player_side") in ("US", "Soviet") and isinstance(camp.get("commitment"), dict),
         "STF 1.5", "the campaign (side and commitment limits) is generated before the forces")


def _draw_templates(state: dict) -> list[dict]:
    camp = _campaign(state)
    if "player_carriers" in camp or not camp.get("commitment") or _commitment(state)[1] == 0:
        return []
    return [{"kind": "draw_carriers"}]


@kind("draw_carriers", rule="STF 1.7", phases=("Forces",), templates=_draw_templates,
      help="draw your commitment's carriers at random (the first fixes your nationality grouping)")
def draw_carriers(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    _need_campaign(state)
    camp = _campaign(state)
    need("player_carriers" not in camp, "STF 1.7", "the carriers are drawn once")
    _, wanted = _commitment(state)
    need(wanted > 0, "STF 1.5", "the commitment limit gives no aircraft carrier to draw")
    _ensure_pool(ctx)
    drawn: list[str] = []
    nations = groupings(ctx.state)
    for n in range(1, wanted + 1):
        cands = sorted(cid for cid, c in ctx.state["pool"].items()
                       if c["class"] == "CV" and c["nation"] in nations and cid not in drawn)
        need(bool(cands), "STF 1.7", f"no {'/'.join(nations)} carrier is left in the countermix to draw")
        names = [ctx.state["pool"][c]["name"] for c in cands]
        if len(cands) == 1:
            pick = cands[0]
        else:
            r = ctx.roll(1, len(cands), seat="Player", rule="STF 1.7",
                         purpose=f"STF 1.7: the Player draws carrier {n} of {wanted} at random from the "
                                 f"{len(cands)} {'/'.join(nations)} carriers",
                         target={"carriers": names},
                         outcome=lambda v, cands=cands: ctx.state["pool"][cands[v[0] - 1]]["name"])
            pick = cands[r.values[0] - 1]
        drawn.append(pick)
        if n == 1:
            nation = ctx.state["pool"][pick]["nation"]
            nations = (nation,)
            ctx.emit(CampaignFixed, key="player_nation", value=nation, rule="STF 1.7")
    units = {cid: unit_from_counter(ctx.state, cid, cid) for cid in drawn}
    ctx.emit(UnitsAssigned, group=None, units=units, points=0, rule="STF 1.7",
             why="the carriers drawn at random; they count against the carrier limit, not the points (STF 1.5)")
    ctx.emit(CampaignFixed, key="player_carriers", value=drawn, rule="STF 1.7")


def _count(order: dict, key: str, rule: str) -> int:
    v = order.get(key, 0)
    if v is None:
        v = 0
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise InvalidOrder(f"'{key}' is a whole number, 0 or more", rule=rule, field=key)
    return v


def purchase_cost(pool: dict, units: list[str], sosus: int, upgrades: list[str]) -> int:
    """STF 1.5, 1.8, 13.7: the points a purchase spends."""
    return (sum(value(pool[c]) for c in units) + -(-sosus // SOSUS_PER_POINT) + SSM_UPGRADE_COST * len(upgrades))


def _buy_templates(state: dict) -> list[dict]:
    camp = _campaign(state)
    if not camp.get("commitment") or "player_purchase" in camp:
        return []
    points, carriers = _commitment(state)
    if carriers and "player_carriers" not in camp:
        return []
    nation = camp.get("player_nation") or groupings(state)[0]
    pool = _pool(state)
    escorts = sorted((c for c, u in pool.items() if u["nation"] == nation and is_escort(u)),
                     key=lambda c: (value(pool[c]), c))[:ESCORTS_PER_CARRIER * carriers]
    if len(escorts) < ESCORTS_PER_CARRIER * carriers or purchase_cost(pool, escorts, 0, []) > points:
        return []
    out = [{"kind": "buy", "units": escorts, "sosus": 0, "ssm_upgrades": []}]
    # A fuller force: the escorts, then one of each class the points still buy (the dearest first),
    # then SOSUS (US) and (x2) SSM on its destroyers and frigates with what is left.
    full, left = list(escorts), points - purchase_cost(pool, escorts, 0, [])
    for cls in ("BB", "CG", "CL", "DD", "FF", "SSN", "SS", "PC"):
        for cid in sorted(c for c, u in pool.items() if u["nation"] == nation and u["class"] == cls):
            if cid not in full and value(pool[cid]) <= left:
                full.append(cid)
                left -= value(pool[cid])
                break
    sosus = 2 if camp.get("player_side") == "US" and left >= 1 else 0
    left -= sosus // SOSUS_PER_POINT
    upgrades = [c for c in full if pool[c]["class"] in UPGRADE_CLASSES and pool[c]["ssm"] and pool[c]["ssm_loads"] < 2]
    upgrades = upgrades[:max(left, 0)]
    if full != escorts or sosus:
        out.append({"kind": "buy", "units": full, "sosus": sosus, "ssm_upgrades": upgrades})
        if not escorts:
            out.pop(0)  # without a carrier the cheapest force is no force: offer the fuller one
    return out


@kind("buy", rule="STF 1.5", phases=("Forces",), templates=_buy_templates,
      fields={"units": "optional (default none): counter ids of the pool to buy",
              "sosus": "optional (default 0): SOSUS units (US Player: up to 6, 1 point per 2)",
              "ssm_upgrades": "optional: DD/FF bought here whose SSM goes to (x2), 1 point each",
              "groups": "optional: the task forces and subrons at once (as form_groups)"},
      help="buy the rest of your force within the commitment limit, from your nationality grouping")
def buy(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    _need_campaign(state)
    camp = _campaign(state)
    points, carriers = _commitment(state)
    need(not carriers or "player_carriers" in camp, "STF 1.7", "draw the carriers first: they fix the "
         "nationality grouping the rest is bought from")
    need("player_purchase" not in camp, "STF 1.7", "the force is bought once")
    units = ids(order, "units", "STF 1.5")
    sosus = _count(order, "sosus", "STF 1.8")
    upgrades = ids(order, "ssm_upgrades", "STF 13.7")
    _ensure_pool(ctx)
    pool = ctx.state["pool"]
    allowed = groupings(ctx.state)
    for cid in units:
        if cid not in pool:
            raise InvalidOrder(f"{cid!r} is no counter left in the countermix", rule="STF 1.4", field="units")
        c = pool[cid]
        need(c["class"] != "CV", "STF 1.5", f"{c['name']} is an aircraft carrier: the points buy units other "
             "than carriers, which are drawn at random (STF 1.7)")
        need(c["class"] != "FR", "STF 1.11", f"{c['name']} is a freighter: freighters are not bought, they come "
             "free with a US carrier (STF 1.12) or an invasion (STF 1.11)")
        need(c["nation"] in allowed, "STF 1.7", f"{c['name']} is {c['nation']}: a {camp['player_side']} Player "
             f"buys from {' or '.join(allowed)} counters")
    nation = camp.get("player_nation")
    if nation is None:
        bought = sorted({pool[c]["nation"] for c in units})
        need(len(bought) <= 1, "STF 1.7", f"the force mixes {' and '.join(bought)} counters: all come from one "
             "nationality grouping")
        nation = bought[0] if bought else allowed[0]
        ctx.emit(CampaignFixed, key="player_nation", value=nation, rule="STF 1.7")
    for cid in units:
        need(pool[cid]["nation"] == nation, "STF 1.7", f"{pool[cid]['name']} is {pool[cid]['nation']}: the "
             f"carrier drawn makes this a {nation} force, whose support comes from {nation} counters")
    need(sosus == 0 or camp["player_side"] == "US", "STF 1.8", "only a US Player may buy SOSUS units")
    need(sosus <= SOSUS_MAX, "STF 1.8", f"at most {SOSUS_MAX} SOSUS units, not {sosus}")
    for cid in upgrades:
        if cid not in units:
            raise InvalidOrder(f"{cid!r} is upgraded but not bought in this order", rule="STF 13.7",
                               field="ssm_upgrades")
        c = pool[cid]
        need(c["class"] != "PC", "STF 13.8", f"{c['name']} is a PC: a PC never carries more SSM than its "
             "original loads")
        need(c["class"] in UPGRADE_CLASSES, "STF 13.7", f"{c['name']} is a {c['class']}: only destroyers and "
             "frigates may buy more SSM")
        need(c["ssm"] > 0, "STF 13.7", f"{c['name']} carries no SSM whose complement could be increased")
        need(c["ssm_loads"] < 2, "STF 13.7", f"{c['name']} already carries (x2) SSM, the maximum")
    cost = purchase_cost(pool, units, sosus, upgrades)
    need(cost <= points, "STF 1.5", f"the purchase costs {cost} points, over the commitment limit of {points}")
    escorts = sum(1 for c in units if is_escort(pool[c]))
    need(escorts >= ESCORTS_PER_CARRIER * carriers, "STF 1.12",
         f"{carriers} carrier(s) need {ESCORTS_PER_CARRIER * carriers} ASW ships of frigate level or higher; "
         f"the purchase has {escorts}")
    bought = {}
    for cid in units:
        u = unit_from_counter(ctx.state, cid, cid)
        if cid in upgrades:
            u.update({"ssm_loads": 2, "ssm_left": u["ssm"] * 2, "ssm_upgraded": True})
        bought[cid] = u
    ctx.emit(UnitsAssigned, group=None, units=bought, points=cost - -(-sosus // SOSUS_PER_POINT),
             rule="STF 1.5", why=f"bought within the commitment limit of {points} points"
                                 + (f", {len(upgrades)} of them for (x2) SSM (STF 13.7)" if upgrades else ""))
    if sosus:
        ctx.emit(UnitsAssigned, group=None, points=-(-sosus // SOSUS_PER_POINT), rule="STF 1.8",
                 why="SOSUS bought at 1 point for each 2; deployed in a megahex with shallow water",
                 units={f"SOSUS{n}": {"id": f"SOSUS{n}", "class": "SOSUS", "nation": "US", "counter": None,
                                       "megahex": None} for n in range(1, sosus + 1)})
    free = _free_freighters(ctx.state, nation)
    if free:
        ctx.emit(UnitsAssigned, group=None, units=free, points=0, rule="STF 1.12" if not any(
            u["invasion"] for u in free.values()) else "STF 1.11",
            why=_free_why(free))
    ctx.emit(CampaignFixed, key="player_purchase", rule="STF 1.5",
             value={"units": units, "sosus": sosus, "ssm_upgrades": upgrades, "freighters": list(free),
                    "points": cost, "limit": points})
    if order.get("groups") is not None:
        _form(ctx, order)


def _free_freighters(state: dict, nation: str) -> dict:
    """STF 1.12: a fast resupply freighter per US carrier; STF 1.11: 8 freighters for an invader.
    Taken in the countermix's order (which freighter is which makes no difference)."""
    pool = state["pool"]
    carriers = [state["units"][u] for u in _campaign(state).get("player_carriers", [])]
    out: dict = {}
    # data/composition.json's fast_resupply (1.12: "for the US only") and invasion_freighters (1.11:
    # "adds 8 freighters 'for free'"), the copies the GameSystem's side reads too
    us = sum(1 for u in carriers if u.get("nation") in composition.COMPOSITION["fast_resupply"]["nations"])
    invasion = composition.FREIGHTERS["count"] if _campaign(state).get("invader") == "Player" else 0
    for role, count in (("fast resupply", us), ("invasion", invasion)):
        cands = [c for c, u in pool.items() if u["class"] == "FR" and u["nation"] == nation and u["role"] == role]
        need(len(cands) >= count, "STF 1.12" if role == "fast resupply" else "STF 1.11",
             f"the countermix has {len(cands)} {nation} {role} freighters, {count} are needed")
        for cid in cands[:count]:
            out[cid] = unit_from_counter(state, cid, cid)
    return out


def _free_why(free: dict) -> str:
    resupply = sum(1 for u in free.values() if not u["invasion"])
    invasion = len(free) - resupply
    parts = []
    if resupply:
        parts.append(f"{resupply} fast resupply freighter(s), free, one per US carrier, worth no invasion VP "
                     "(STF 1.12)")
    if invasion:
        parts.append(f"{invasion} invasion freighters, free, 3 VP each that reaches the target (STF 1.11)")
    return "; ".join(parts)


def player_force(state: dict) -> list[str]:
    """The Player's ships and subs (carriers, purchase, free freighters), in the order they came."""
    return [u for u, unit in state["units"].items()
            if unit.get("counter") is not None and u in _player_units(state)]


def _player_units(state: dict) -> set:
    camp = _campaign(state)
    purchase = camp.get("player_purchase") or {}
    bought = {*camp.get("player_carriers", []), *purchase.get("units", []), *purchase.get("freighters", [])}
    grouped = {u for g in state["groups"].values() if g.get("owner") == "Player" for u in g["units"]}
    return bought | grouped


def _form_templates(state: dict) -> list[dict]:
    camp = _campaign(state)
    if "player_purchase" not in camp or any(g.get("owner") == "Player" for g in state["groups"].values()):
        return []
    units = {u: state["units"][u] for u in player_force(state)}
    carriers = [u for u, x in units.items() if x["class"] == "CV"]
    escorts = [u for u, x in units.items() if is_escort(x)]
    resupply = [u for u, x in units.items() if x["class"] == "FR" and not x.get("invasion")]
    groups, used = [], set()
    for n, cv in enumerate(carriers):
        members = [cv] + escorts[ESCORTS_PER_CARRIER * n:ESCORTS_PER_CARRIER * (n + 1)]
        if units[cv]["nation"] == "US" and resupply:
            members.append(resupply.pop(0))
        groups.append({"kind": "tf", "units": members})
        used |= set(members)
    rest = [u for u, x in units.items() if u not in used and x["class"] not in SUBS]
    subs = [u for u, x in units.items() if x["class"] in SUBS]
    if rest:
        groups.append({"kind": "tf", "units": rest})
    if subs:
        groups.append({"kind": "subron", "units": subs})
    return [{"kind": "form_groups", "groups": groups}]


@kind("form_groups", rule="STF 1.14", phases=("Forces",), templates=_form_templates,
      fields={"groups": "[{kind: 'tf' or 'subron', units: [unit ids], leader: optional}]: every ship and sub once"},
      help="form your task forces and subrons; each gets the leader its points allow (STF 1.14)")
def form_groups(ctx: Ctx, order: dict) -> None:
    need("player_purchase" in _campaign(ctx.state), "STF 1.7", "buy the force before forming its groups")
    need(not any(g.get("owner") == "Player" for g in ctx.state["groups"].values()), "STF 1.14",
         "the task forces and subrons are formed once, before deployment")
    _form(ctx, order)


def _form(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    groups = order.get("groups")
    force = player_force(state)
    if not isinstance(groups, list) or not (groups or not force) or not all(isinstance(g, dict) for g in groups):
        raise InvalidOrder("'groups' is a list of {kind, units, leader}", rule="STF 1.14", field="groups")
    seen: list[str] = []
    plan = []
    for n, g in enumerate(groups, start=1):
        known_fields(g, ["kind", "units", "leader"], "STF 1.14", "a group", words=())
        gkind = g.get("kind")
        if gkind not in ("tf", "subron"):
            raise InvalidOrder("a group's 'kind' is 'tf' or 'subron'", rule="STF 6.1", field="groups")
        members = ids(g, "units", "STF 6.1", required=True)
        for u in members:
            if u not in force:
                raise InvalidOrder(f"{u!r} is not one of your ships or subs", rule="STF 6.1", field="groups")
            if u in seen:
                raise InvalidOrder(f"{u!r} is in two groups", rule="STF 6.1", field="groups")
            seen.append(u)
        units = [state["units"][u] for u in members]
        if gkind == "subron":
            need(all(u["class"] in SUBS for u in units), "STF 6.1", "a subron holds submarines only")
        else:
            need(not any(u["class"] in SUBS for u in units), "STF 6.1", "submarines form subrons, not task forces")
        points = sum(cost(u) for u in units)  # STF 1.14: the points spent on it, 13.7's upgrades too
        leader = None
        if gkind == "tf":
            best = leader_for(points)
            leader = g.get("leader") or best
            if not isinstance(leader, str) or leader not in LEADER_RANK:
                raise InvalidOrder(f"'leader' is one of {', '.join(LEADER_RANK)}", rule="STF 1.14", field="groups")
            need(LEADER_RANK[leader] <= LEADER_RANK[best], "STF 1.14",
                 f"a task force of {points} points may have a {best} at most, not a {leader}")
        plan.append((gkind, members, points, leader))
    missing = [u for u in force if u not in seen]
    if missing:
        raise InvalidOrder(f"every ship and sub joins a group; missing: {', '.join(missing)}",
                           rule="STF 6.1", field="groups")
    number = 1 + sum(1 for g in state["groups"].values() if g.get("owner") == "Player")
    for gkind, members, points, leader in plan:
        gid = f"P{number}"
        number += 1
        group = {"id": gid, "owner": "Player", "kind": gkind, "hex": None, "units": [], "status": "off map",
                 "nation": _campaign(ctx.state).get("player_nation"), "points": points}
        if gkind == "tf":
            group["leader"] = leader
        ctx.emit(GroupPlaced, group=group, rule="STF 1.14" if gkind == "tf" else "STF 6.1")
        ctx.emit(UnitsAssigned, group=gid, units={u: {**ctx.state["units"][u], "group": gid} for u in members},
                 points=0, rule="STF 6.1",
                 why=f"the Player's {'task force' if gkind == 'tf' else 'subron'} of {points} points"
                     + (f" under a {leader} (STF 1.14: 21+ Rear Admiral, 11+ Commodore, else Captain)"
                        if leader else ""))
        problem = escort_shortfall(ctx.state, gid)
        need(problem is None, "STF 1.12", f"task force {gid}: {problem}")
    ctx.emit(PhaseAdvanced, turn=0, phase="Deployment", rule="STF 6.1")
