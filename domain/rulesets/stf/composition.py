"""What a GameSystem force is made of once Precisely identified, and the GameSystem's deployment
point total (docs/rulesets.md, "Solitaire Task Force: searching and composition").

STF 8.7   The Precise Composition Table of the GameSystem's nation (data/composition.json; NATO
          reads the US table), column by leader (size) and TF or Sub, one d10 (rows 1-10; a
          modified roll off the table reads row 1 or 10), +5 (US) / +4 (Soviet) with a revealed
          air strength, Captain and Commodore only -3/-5/-7 within 15/10/5 of the commitment.
STF 8.8   A Soviet Player's first Precise report fixes the enemy's nation on 1d6 (Caribbean: US).
STF 8.9   A class the countermix cannot supply: the next lower class at the replaced class's
          cost, else the next higher at its own; a subron is all SSN or all SS.
STF 8.10  Each unit drawn at random: one die among the class's remaining counters.
STF 10.8  A CV set aside for a task force's air strike fills a CV of its composition (``set_aside``).
STF 8.12, 8.13  The deployment total: an estimate each time a group increases to Accurate, readjusted to the exact
          cost at Precise (``DeploymentChanged``).
STF 1.10  One third of the commitment (round down) is kept for submarines: surface points above
          the rest are ignored.
STF 1.9   Once the total reaches the commitment, no further counters deploy
          (``campaign["commitment_reached"]``) and every group at Good or lower leaves play; once
          the surface points reach 1.10's share (1.11's "surface commitment limit"), the same for
          task forces (``campaign["surface_limit_reached"]``, rule STF 1.10).
STF 1.11  An invading GameSystem's 8 freighters join the first revealed CV task force (the
          tables' * footnote: or the starred task force revealed while no CV group is Precise).

``reveal(ctx, group_id)`` is what others call (the movement helper for STF 8.14, 8.15; combat
for 11.1): it makes a GameSystem group Precise with everything above.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from domain import dice as dicemod
from domain.events import GameEvent
from domain.rulesets.stf import events as stf_events
from domain.rulesets.stf.events import CampaignFixed, GroupChanged, GroupRemoved, UnitChanged, UnitsAssigned
from domain.rulesets.stf.rules import DATA
from domain.rulesets.toolkit import tables
from domain.rulesets.toolkit.engine import Ctx

try:  # the forces helper's unit maker (STF 13.1-13.6 applied to a counter)
    from domain.rulesets.stf.forces import unit_from_counter as _forces_unit
except ImportError:  # pragma: no cover - before the forces branch is merged
    _forces_unit = None

COMPOSITION = DATA.read("composition.json")
COMPOSITION_TABLES = tables.load_tables(DATA, "composition.json")
SEARCH = DATA.read("search.json")
SEARCH_TABLES = tables.load_tables(DATA, "search.json")
DATA.guess("composition.json", "class_order", None, COMPOSITION["class_order"]["provisional"])

LEVELS = SEARCH["levels"]
LEADERS = SEARCH["leaders"]                          # size -> leader chit
SIZE_OF_LEADER = {v: k for k, v in LEADERS.items()}
INCREMENTS = SEARCH["deployment_increments"]
CLASSES = COMPOSITION["class_order"]
SUB_CLASSES = tuple(CLASSES["subs"])
SHARE = COMPOSITION["submarine_share"]
FREIGHTERS = COMPOSITION["invasion_freighters"]
# STF 8.8, 10.8: "If playing in the Caribbean, all forces are automatically US": the map's fixed
# GameSystem nation against a Soviet Player, data/campaign.json's soviet_player_enemy (None: rolled)
_MAPS = DATA.read("campaign.json")["maps"]
FIXED_ENEMY = {m: v["soviet_player_enemy"] for m, v in _MAPS.items()}
MAP_TITLES = {m: v["name"] for m, v in _MAPS.items()}
_LINE = re.compile(r"(\d+)([A-Z]+)(\*?)")


# ---- the deployment point total (STF 8.12, 8.13, 1.9, 1.10) ---------------------------------------
class DeploymentChanged(GameEvent):
    """The GameSystem's deployment point total changed (STF 8.12, 8.13): ``group`` now counts
    ``points`` in ``part`` ("surface" or "subs"; an Accurate estimate, or the exact cost once
    Precise); ``total`` is the new total against the commitment (STF 1.10: surface points beyond
    two thirds of the commitment are ignored), ``delta`` its change."""

    RULESET = "stf"

    group: str
    part: str
    points: int
    total: int
    delta: int
    rule: str
    why: str


def _deployment(state: dict, e: Any) -> dict:
    d = state.get("deployment") or {}
    groups = {**d.get("groups", {}), e.group: {"part": e.part, "points": e.points}}
    return {**state, "deployment": {**d, "total": e.total, "groups": groups}}


stf_events.FOLD["DeploymentChanged"] = _deployment


def commitment(state: dict) -> int | None:
    """The GameSystem's commitment limit (after STF 1.6), None before the campaign fixes it."""
    c = (state.get("campaign") or {}).get("commitment") or {}
    return c.get("system") if isinstance(c, dict) else None


def sub_share(limit: int) -> int:
    """STF 1.10: the points kept for submarines, one third of the commitment rounded down."""
    return limit * SHARE["numerator"] // SHARE["denominator"]


def _parts(groups: dict) -> tuple[int, int]:
    surface = sum(g["points"] for g in groups.values() if g["part"] == "surface")
    subs = sum(g["points"] for g in groups.values() if g["part"] == "subs")
    return surface, subs


def total_of(state: dict, groups: dict) -> int:
    """The deployment total of per-group ``groups``: surface points capped at the commitment less
    the submarines' share (STF 1.10: the excess is ignored), plus the submarines' points."""
    surface, subs = _parts(groups)
    limit = commitment(state)
    if limit is not None:
        surface = min(surface, limit - sub_share(limit))
    return surface + subs


def contribution(state: dict, gid: str) -> int:
    return ((state.get("deployment") or {}).get("groups") or {}).get(gid, {}).get("points", 0)


def set_points(ctx: Ctx, gid: str, points: int, rule: str, why: str) -> None:
    """Group ``gid`` now counts ``points`` in the deployment total; then STF 1.9 and 1.11 are checked."""
    state = ctx.state
    group = state["groups"][gid]
    part = "subs" if group["kind"] == "subron" else "surface"
    groups = {**((state.get("deployment") or {}).get("groups") or {}), gid: {"part": part, "points": points}}
    old = (state.get("deployment") or {}).get("total", 0)
    new = total_of(state, groups)
    ctx.emit(DeploymentChanged, group=gid, part=part, points=points, total=new, delta=new - old, rule=rule, why=why)
    check_commitment(ctx)


def add_estimate(ctx: Ctx, gid: str, rule: str, why: str) -> int:
    """STF 8.12, 8.13: "Each time" group ``gid`` increases to Accurate the total increases by its
    estimate, on top of any it counted before (a task force degraded by 8.11 and Accurate again
    counts a second one; Precise readjusts them all to the exact cost). The points added."""
    points = estimate(ctx.state, ctx.state["groups"][gid])
    set_points(ctx, gid, contribution(ctx.state, gid) + points, rule, why)
    return points


def surface_limit_reached(state: dict) -> bool:
    """STF 1.10, 1.11: whether the surface commitment limit is reached: recorded
    (``campaign["surface_limit_reached"]``), or read off the total, whose surface points may fill
    the share with no flag in a game recorded before the flag was (the next ``check_commitment``
    records it)."""
    campaign = state.get("campaign") or {}
    if campaign.get("surface_limit_reached"):
        return True
    limit = commitment(state)
    if not isinstance(limit, int):
        return False
    surface, _ = _parts((state.get("deployment") or {}).get("groups") or {})
    return surface >= limit - sub_share(limit)


def check_commitment(ctx: Ctx) -> None:
    """STF 1.9: once the total reaches the commitment, no further task force or subron counters
    deploy and every counter at Good or lower leaves play. STF 1.10 with 1.11 (a reading): once the
    surface points reach the surface share, "the surface commitment limit", 1.9 applies to the
    surface part: no further task force counters deploy (``surface_limit_reached``) and every task
    force at Good or lower leaves play. STF 1.11: an invasion whose freighters found no revealed CV
    by the time the surface share is reached does not take place."""
    state = ctx.state
    limit = commitment(state)
    if limit is None:
        return
    campaign = state["campaign"]
    surface, _ = _parts((state.get("deployment") or {}).get("groups") or {})
    share = limit - sub_share(limit)
    if (campaign.get("invader") == "system" and not campaign.get("invasion_freighters")
            and surface >= share):
        ctx.emit(CampaignFixed, key="invader", value=None, rule="STF 1.11")
        ctx.emit(CampaignFixed, key="invasion_cancelled", value=True, rule="STF 1.11")
    total = state["deployment"].get("total", 0)
    if surface >= share and not campaign.get("surface_limit_reached") and not campaign.get("commitment_reached"):
        ctx.emit(CampaignFixed, key="surface_limit_reached", value=True, rule="STF 1.10")
        if total < limit:  # the whole commitment reached at once: 1.9's removal below takes them all
            _remove_low(ctx, "tf", "STF 1.10",
                        f"the GameSystem's surface points {surface} have reached its surface commitment limit "
                        f"{share} (STF 1.10, 1.11), so STF 1.9 applies to task forces")
    if campaign.get("commitment_reached") or total < limit:
        return
    ctx.emit(CampaignFixed, key="commitment_reached", value=True, rule="STF 1.9")
    _remove_low(ctx, None, "STF 1.9", f"the GameSystem's deployment total {total} has reached its commitment {limit}")


def _remove_low(ctx: Ctx, kind: str | None, rule: str, why: str) -> None:
    """STF 1.9's removal: every GameSystem counter (of ``kind``, or any) on the map at Good or lower."""
    groups = ctx.state["groups"]
    for gid in sorted_ids(groups):
        g = groups[gid]
        if (g["owner"] == "system" and kind in (None, g["kind"]) and g.get("status", "on map") == "on map"
                and _level(g) <= LEVELS.index("good")):
            ctx.emit(GroupRemoved, group=gid, status="off map", rule=rule,
                     why=f"{why}: a counter at {g.get('intel') or 'unknown'} (Good or lower) is removed from play")


def _level(group: dict) -> int:
    return LEVELS.index(group.get("intel") or "unknown")


def sorted_ids(groups: dict) -> list[str]:
    """Group ids in their natural order (TF2 before TF10)."""
    def key(gid: str):
        m = re.fullmatch(r"([A-Za-z]*)(\d+)", gid)
        return (m.group(1), int(m.group(2)), "") if m else (gid, 0, gid)
    return sorted(groups, key=key)


def estimate(state: dict, group: dict) -> int:
    """STF 8.12, 8.13: the points a group adds when it becomes Accurate, by its kind and size
    (a large US task force 50)."""
    by = INCREMENTS["tf" if group["kind"] == "tf" else "subron"]
    size = group["size"]
    if group["kind"] == "tf" and size == "large" and nation_of(state, group) == "US":
        return by["large US"]
    return by[size]


def nation_of(state: dict, group: dict) -> str | None:
    """The group's nation once known; else the GameSystem's side (None while STF 8.8 has not
    fixed it for a Soviet Player)."""
    return group.get("nation") or (state.get("campaign") or {}).get("system_side")


# ---- rolls on the GameSystem's tables ------------------------------------------------------------
def roll_table(ctx: Ctx, table: tables.Table, *, purpose: str, column: Any = None,
               modifiers: list | tuple = (), seat: str = "system", units: list | tuple = (),
               rule: Any = None) -> tables.Reading:
    """Roll ``table``'s dice through ``ctx`` and read it; the roll records the reading (``rule``:
    the rule the roll is made for, by default the table's; or a function of the rolled values)."""
    expr = dicemod.parse(table.dice)
    mods = [dict(m) for m in modifiers]
    made = ctx.roll(expr.count, expr.sides, seat=seat, purpose=purpose, rule=rule or table.rule or None, units=units,
                    target=lambda v: tables.read(table, sum(v), column, mods).target,
                    outcome=lambda v: str(tables.read(table, sum(v), column, mods).result))
    return tables.read(table, made.total, column, mods)


def roll_size(ctx: Ctx, gid: str, rule: str) -> str:
    """STF 8.6: 1d6, 1-2 small (Captain), 3-4 medium (Commodore), 5-6 large (Rear Admiral)."""
    reading = roll_table(ctx, SEARCH_TABLES["size"], purpose=f"{gid}: its size (STF 8.6)", units=[gid])
    size = reading.result
    ctx.emit(GroupChanged, group=gid, changes={"size": size, "chit": LEADERS[size]}, rule=rule,
             why=f"STF 8.6: a {reading.modified} on 1d6, a {size} force: a {LEADERS[size]} chit marks it")
    return size


def fix_nationality(ctx: Ctx) -> str:
    """The GameSystem's nation; STF 8.8 fixes it for a Soviet Player at the first Precise report
    (1d6: 1-2 NATO, 3-6 US; in the Caribbean all US, no roll)."""
    campaign = ctx.state["campaign"]
    side = campaign.get("system_side")
    if side:
        return side
    if campaign.get("player_side") != "Soviet":
        side = "Soviet"
        ctx.emit(CampaignFixed, key="system_side", value=side, rule="STF 1.7")
        return side
    if FIXED_ENEMY.get(campaign.get("map")):
        side = FIXED_ENEMY[campaign["map"]]
    else:
        side = roll_table(ctx, SEARCH_TABLES["nationality"],
                          purpose="the enemy's nation at the first Precise report (STF 8.8)").result
    ctx.emit(CampaignFixed, key="system_side", value=side, rule="STF 8.8")
    return side


# ---- the Precise Composition Table (STF 8.7) -----------------------------------------------------
def column(group: dict) -> str:
    c = COMPOSITION["column"]
    return f"{c['leader'][group['size']]} {c['kind'][group['kind']]}"


def modifiers(state: dict, group: dict, nation: str) -> list[dict]:
    """The table's modifiers: a revealed air strength (task forces), the commitment bands
    (Captain and Commodore only: the nearest band, measured as the commitment less the total)."""
    out = []
    mods = COMPOSITION["modifiers"]
    if group["kind"] == "tf" and group.get("air_known"):
        out.append({"value": mods["air_strength"][nation],
                    "reason": "the task force already has a revealed air strength"})
    limit = commitment(state)
    leader = LEADERS[group["size"]]
    if limit is not None and leader in mods["commitment"]["leaders"]:
        room = limit - (state.get("deployment") or {}).get("total", 0)
        band = next((b for b in mods["commitment"]["bands"] if room <= b["within"]), None)
        if band is not None:
            out.append({"value": band["value"],
                        "reason": f"{leader}: within {band['within']} of the commitment limit "
                                  f"({state['deployment']['total']} of {limit})"})
    return out


def parse_line(result: str) -> list[tuple[int, str, bool]]:
    """'1BB* 2CG 3DD' -> [(1, 'BB', True), (2, 'CG', False), (3, 'DD', False)]."""
    out = [(int(n), cls, bool(star)) for n, cls, star in _LINE.findall(result)]
    if not out:
        raise ValueError(f"composition.json: cannot read {result!r}")
    return out


def roll_composition(ctx: Ctx, gid: str, nation: str) -> tables.Reading:
    group = ctx.state["groups"][gid]
    table = COMPOSITION_TABLES[COMPOSITION["table_by_nation"][nation]]
    col = column(group)
    return roll_table(ctx, table, column=col, modifiers=modifiers(ctx.state, group, nation), units=[gid],
                      purpose=f"{gid}: its composition, {table.name}, column {col} (STF 8.7)")


# ---- drawing the units (STF 8.9, 8.10) -----------------------------------------------------------
def remaining(state: dict, nation: str, cls: str, role: str | None = None) -> list[str]:
    """The pool's counters of ``nation`` and ``cls`` not yet drawn, in id order."""
    return sorted(cid for cid, c in state["pool"].items() if c.get("nation") == nation and c.get("class") == cls
                  and (role is None or c.get("role") in (None, role)))


def _countermix(state: dict, nation: str) -> list[dict]:
    """Every counter of the nation, drawn or not (the pool and the units made from it)."""
    drawn = [u for u in state.get("units", {}).values() if u.get("counter")]
    return [c for c in [*state["pool"].values(), *drawn] if c.get("nation") == nation]


def class_value(state: dict, nation: str, cls: str) -> int:
    """What a unit of ``cls`` costs (STF 8.9: a substitute costs what it replaces): the value
    most of the nation's counters of the class have (the higher on a tie); for a class the nation
    has no counter of at all, the value most counters of the class have, whatever their nation."""
    values = Counter(int(c.get("value", 0)) for c in _countermix(state, nation) if c.get("class") == cls)
    if not values:  # a class the nation never had (NATO's BB of the US table): what the class costs
        drawn = [u for u in state.get("units", {}).values() if u.get("counter")]
        values = Counter(int(c.get("value", 0)) for c in [*state["pool"].values(), *drawn] if c.get("class") == cls)
    if not values:
        return 0
    return max(values.items(), key=lambda kv: (kv[1], kv[0]))[0]


def _neighbours(state: dict, nation: str, cls: str) -> tuple[str | None, str | None]:
    """(next lower, next higher) class by value among those the nation's countermix has."""
    order = CLASSES["subs"] if cls in SUB_CLASSES else CLASSES["surface"]
    has = {c.get("class") for c in _countermix(state, nation)}
    at = order.index(cls)
    lower = next((c for c in order[at + 1:] if c in has), None)
    higher = next((c for c in reversed(order[:at]) if c in has), None)
    return lower, higher


def pick_class(state: dict, nation: str, cls: str, need: int = 1) -> tuple[str | None, str]:
    """STF 8.9: the class to draw ``need`` units of ``cls`` from: itself; else the next lower;
    else the next higher; (None, why) when none can. ``need`` > 1 for a subron, all of one class."""
    if len(remaining(state, nation, cls)) >= need:
        return cls, ""
    lower, higher = _neighbours(state, nation, cls)
    if lower and len(remaining(state, nation, lower)) >= need:
        return lower, f"no {cls} left in the countermix: the next lower class, {lower}, at the {cls}'s cost (STF 8.9)"
    if higher and len(remaining(state, nation, higher)) >= need:
        return higher, (f"no {cls} left and no {lower or 'lower class'}: the next higher class, {higher}, "
                        f"at its own cost (STF 8.9)")
    return None, f"the countermix has no {cls} left, nor a {lower or 'lower'} or {higher or 'higher'} class (STF 8.9)"


def make_unit(state: dict, cid: str) -> dict:
    """The unit of pool counter ``cid`` (id = the counter's id): the forces helper's maker when
    present, else the pool entry itself."""
    if _forces_unit is not None:
        return _forces_unit(state, cid, cid)
    counter = state["pool"][cid]
    unit = {k: v for k, v in counter.items() if k not in ("source", "provisional")}
    return {**unit, "id": cid, "counter": cid, "group": None, "hits": 0, "sunk": False}


def draw(ctx: Ctx, gid: str, nation: str, cls: str, count: int = 1, *, rule: str = "STF 8.10",
         role: str | None = None) -> list[str]:
    """STF 8.10: ``count`` counters of ``cls`` drawn at random among the remaining ones, one die
    a draw (a die of as many faces as counters are left); when no more are left than are wanted,
    all of them, without a roll. Returns their ids in the order drawn."""
    left = remaining(ctx.state, nation, cls, role)
    if count >= len(left):
        return left
    names = ctx.state["pool"]
    out = []
    for _ in range(count):
        made = ctx.roll(1, len(left), seat="system", rule=rule, units=[gid],
                        purpose=f"{gid}: draw one of the {len(left)} remaining {nation} {cls} counters (STF 8.10)",
                        target={"counters": list(left)},
                        outcome=lambda v, left=list(left): f"{left[v[0] - 1]} ({names[left[v[0] - 1]].get('name')})")
        out.append(left.pop(made.total - 1))
    return out


def assign(ctx: Ctx, gid: str, cid: str, points: int, rule: str, why: str) -> None:
    unit = make_unit(ctx.state, cid)
    ctx.emit(UnitsAssigned, group=gid, units={unit["id"]: unit}, points=points, rule=rule, why=why)


def _cost(state: dict, nation: str, wanted: str, actual: str, cid: str) -> int:
    """STF 8.9: a lower substitute costs what the wanted class costs; the class itself or a
    higher substitute costs its own value."""
    if actual in _lower(wanted):
        return class_value(state, nation, wanted)
    return int(state["pool"][cid]["value"])


def place_line(ctx: Ctx, gid: str, nation: str, count: int, cls: str, row: str) -> int:
    """Draw one line of the table (``count`` units of ``cls``); returns the points they cost."""
    spent = 0
    line = f"{row}: {count}{cls}"
    if cls in SUB_CLASSES:  # one class for the whole subron (STF 8.9)
        actual, note = pick_class(ctx.state, nation, cls, count)
        if actual is None:
            options = [c for c in (cls, *_neighbours(ctx.state, nation, cls)) if c]
            actual = max(options, key=lambda c: len(remaining(ctx.state, nation, c)))
            note = (f"the countermix cannot give {count} {cls} nor {count} of a neighbouring class: "
                    f"{actual}, as many as are left (STF 8.9: SSN and SS never in one subron)")
        for cid in draw(ctx, gid, nation, actual, count):
            cost = _cost(ctx.state, nation, cls, actual, cid)
            assign(ctx, gid, cid, cost, "STF 8.9" if actual != cls else "STF 8.10", line + (f"; {note}" if note else ""))
            spent += cost
        return spent
    need = count
    while need > 0:
        actual, note = pick_class(ctx.state, nation, cls)
        if actual is None:
            ctx.emit(GroupChanged, group=gid, changes={}, rule="STF 8.9",
                     why=f"{line}: {need} {cls} not placed: {note}")
            break
        for cid in draw(ctx, gid, nation, actual, min(need, len(remaining(ctx.state, nation, actual)))):
            cost = _cost(ctx.state, nation, cls, actual, cid)
            assign(ctx, gid, cid, cost, "STF 8.9" if note else "STF 8.10", line + (f"; {note}" if note else ""))
            spent += cost
            need -= 1
    return spent


def _lower(cls: str) -> tuple:
    order = CLASSES["subs"] if cls in SUB_CLASSES else CLASSES["surface"]
    return tuple(order[order.index(cls) + 1:])


def _has_cv(state: dict, gid: str) -> bool:
    return any(state["units"][u].get("class") == "CV" for u in state["groups"][gid]["units"] if u in state["units"])


def freighters(ctx: Ctx, gid: str, nation: str, starred: bool) -> None:
    """STF 1.11 and the tables' * footnote: an invading GameSystem's 8 freighters join the first
    revealed CV task force, or a starred task force revealed while no CV group is Precise."""
    state = ctx.state
    campaign = state["campaign"]
    if campaign.get("invader") != "system" or campaign.get("invasion_freighters"):
        return
    cv = _has_cv(state, gid)
    cv_precise = any(g["owner"] == "system" and g.get("intel") == "precise" and _has_cv(state, g["id"])
                     for g in state["groups"].values() if g["id"] != gid)
    if not (cv or (starred and not cv_precise)):
        return
    why = ("STF 1.11: the first revealed CV task force carries the invasion freighters" if cv else
           "the Precise Composition Table's *: no CV group is Precise yet, so the invasion freighters are in "
           "this task force")
    for cid in draw(ctx, gid, nation, FREIGHTERS["class"], FREIGHTERS["count"], rule="STF 1.11", role="invasion"):
        unit = make_unit(ctx.state, cid)
        unit["invasion"] = True
        ctx.emit(UnitsAssigned, group=gid, units={cid: unit}, points=FREIGHTERS["points"], rule="STF 1.11",
                 why=f"{why} (free: no commitment points)")
    ctx.emit(CampaignFixed, key="invasion_freighters", value=gid, rule="STF 1.11")
    # revealed already in the target megahex (an unknown task force makes for it, 7.4): they have made it
    from domain.rulesets.stf import movement  # imported late: movement reaches this module at run time
    where = ctx.state["groups"][gid].get("hex")
    if where is not None:
        movement.invasion_arrivals(ctx, gid, [where])


def resupply(ctx: Ctx, gid: str, nation: str) -> None:
    """STF 1.12: each US aircraft carrier is accompanied by one free freighter, the USN fast
    resupply ship of its task force (no invasion VP; STF 12.7's "fast supply ship"): a revealed
    task force gets one per US carrier it lacks, drawn at random among the pool's US fast resupply
    freighters (STF 8.10), 0 points. The tables list no freighter: 1.12 adds it to any CV line."""
    spec = COMPOSITION["fast_resupply"]
    units = [ctx.state["units"][u] for u in ctx.state["groups"][gid]["units"] if u in ctx.state["units"]]
    carriers = sum(1 for u in units if u.get("class") == "CV" and u.get("nation") in spec["nations"])
    have = sum(1 for u in units if u.get("class") == spec["class"] and u.get("role") == spec["role"])
    if carriers <= have:
        return
    for cid in draw(ctx, gid, nation, spec["class"], carriers - have, rule=spec["rule"], role=spec["role"]):
        unit = make_unit(ctx.state, cid)
        unit["invasion"] = False
        ctx.emit(UnitsAssigned, group=gid, units={cid: unit}, points=spec["points"], rule=spec["rule"],
                 why="STF 1.12: a US carrier is accompanied by a free fast resupply ship (no commitment points, "
                     "no invasion VP)")


def set_aside(ctx: Ctx, gid: str, cls: str, count: int, row: str) -> list[str]:
    """STF 10.8: the CV drawn and "placed aside as the CV for the attacking (but not as yet
    Precisely identified) task force" is that task force's CV when its composition lists one: up to
    ``count`` such units of ``cls`` already in the group fill the line (at their own cost)."""
    units = ctx.state["units"]
    held = [u for u in ctx.state["groups"][gid]["units"]
            if u in units and units[u].get("set_aside") and units[u].get("class") == cls][:count]
    for u in held:
        ctx.emit(UnitChanged, unit=u, changes={"set_aside": False}, rule="STF 10.8",
                 why=f"{row}: {count}{cls}; {u}, set aside as {gid}'s CV for its air strike, is that {cls}")
    return held


def reveal(ctx: Ctx, gid: str, *, rule: str = "STF 8.7", why: str = "") -> None:
    """Make GameSystem group ``gid`` Precise: its nation (STF 8.8), its size if unknown (8.6), its
    composition (8.7) drawn from the pool (8.9, 8.10), the invasion freighters (1.11), its exact
    cost in the deployment total (8.12, 8.13, 1.10, 1.9). ``rule``/``why``: what revealed it."""
    group = ctx.state["groups"][gid]
    if group.get("intel") == "precise":
        return
    nation = fix_nationality(ctx)
    if not group.get("size"):
        leader = group.get("chit")
        if leader in SIZE_OF_LEADER:  # a leader chit already marks the size (STF 1.13, 10.5)
            ctx.emit(GroupChanged, group=gid, changes={"size": SIZE_OF_LEADER[leader]}, rule="STF 1.13",
                     why=f"its {leader} chit marks a {SIZE_OF_LEADER[leader]} force")
        else:
            roll_size(ctx, gid, rule)
    reading = roll_composition(ctx, gid, nation)
    row = f"{COMPOSITION['table_by_nation'][nation]}, row {reading.row}, {reading.target['column']}"
    spent, starred = 0, False
    for count, cls, star in parse_line(reading.result):
        held = set_aside(ctx, gid, cls, count, row)
        spent += sum(int(ctx.state["units"][u].get("value", 0)) for u in held)
        if count > len(held):
            spent += place_line(ctx, gid, nation, count - len(held), cls, row)
        starred = starred or star
    if group["kind"] == "tf":
        resupply(ctx, gid, nation)
        freighters(ctx, gid, nation, starred)
    size = ctx.state["groups"][gid]["size"]
    changes = {"intel": "precise", "nation": nation, "chit": LEADERS[size]}
    if group["kind"] == "tf":
        changes["emcon"] = False  # 8.7: turned onto its normal side (6.6: task forces start EMCON side up)
    ctx.emit(GroupChanged, group=gid, changes=changes, rule=rule,
             why=(why or f"{gid} is Precisely identified") + f": {reading.result} ({row}); its "
                 f"{LEADERS[size]} chit, the task force turned to its normal side (not EMCON) for the rest of the game")
    part = "STF 8.13" if group["kind"] == "subron" else "STF 8.12"
    set_points(ctx, gid, spent, part, f"{gid} is Precise: the deployment total readjusted to its exact cost, {spent}")
