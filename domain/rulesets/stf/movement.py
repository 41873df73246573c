"""Deployment and movement: STF 6.1-6.6, 7.1-7.11, 8.14, 8.15 (docs/rulesets.md, "Solitaire Task
Force", "Deployment and movement").

STF 6.1   The Player deploys first, in any megahex of his nation's column of the Starting Megahex
          Table (``deploy``, then ``deploy_done`` or the last group's ``deploy``).
STF 6.2   The GameSystem then places 6 task forces (TF1-TF6) and 5 subrons (SR1-SR5), each by a d10
          on the Starting Megahex Table (data/starting.json) for its nation; 6.5 a d6 for the outer
          hex; 6.6 task forces EMCON side up, subrons Deep; then turn 1 begins.
STF 6.3/4 Each turn after the first (step ``reinforcements``, Random Events phase), a third (round up)
          of all the GameSystem's task forces and subrons off the map together, drawn at random,
          come back by the same table; a false contact only in the turn after its removal (6.3);
          STF 1.9 stops all of it once the commitment is reached.
STF 7     The Player's ``move`` (adjacent sea hexes, at most the slowest unit's speed, once a turn a
          group); the GameSystem's steps ``group_modes`` (7.3) and ``system_movement`` (7.1-7.11,
          5.2, 12.5/12.9 retirement; 8.14, 8.15: a group less than Precise that moves within two
          hexes of a Player task force, or into a Player subron's hex, is revealed there as by a
          Precise report, 8.7: with no chit, an even 1D6 proves it a false contact).

Every GameSystem path is chosen deterministically from the state: water distance (breadth-first
over sea hexes) to the target, then hex distance; a die (one of as many faces as there are equally
good hexes) only for a true tie (STF 7.5); 7.8's invading carrier 3 hexes from a BB takes the end
nearest its target that is 4 hexes off (``path_ending_off``). Each move is a ``GroupMoved`` whose
``why`` names the rule and the target.
"""

from __future__ import annotations

import importlib
import math
from collections import deque
from fractions import Fraction
from functools import lru_cache

from domain import dice as dicemod
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import composition, forces, maps, turn
from domain.rulesets.stf.events import (CampaignFixed, GroupChanged, GroupMoved, GroupPlaced,
                                        UnitChanged)
from domain.rulesets.stf.rules import DATA, STEPS, kind
from domain.rulesets.toolkit import tables as tbl
from domain.rulesets.toolkit.engine import Ctx

STARTING = tbl.load_tables(DATA, "starting.json")
MOVE = DATA.read("movement.json")
for _field in MOVE["provisional"]:  # unknown_tf_speed: not in the text (data/README.md), listed with the guesses
    DATA.guess("movement.json", "(file)", _field, MOVE["source"])
BANDS = {b["distance"]: b for b in MOVE["cv_bands"]["bands"]}
INVASION_FREIGHTERS = DATA.read("composition.json")["invasion_freighters"]  # STF 1.11

# STF 6.2: "At the start of the game, the GameSystem has 6 task forces and 5 subrons"
SYSTEM_TFS = [f"TF{i}" for i in range(1, 7)]
SYSTEM_SUBRONS = [f"SR{i}" for i in range(1, 6)]
SHIP_CLASSES = ("CV", "BB", "CG", "CL", "DD", "FF", "PC", "FR")
OFF_MAP = ("off map", "false contact")


# ---- reading the state ---------------------------------------------------------------------------
def map_name(state: dict) -> str:
    name = state["campaign"].get("map")
    if name not in maps.MAP_NAMES:
        raise RuleViolation("STF 1.1", "the campaign's map is not chosen yet")
    return name


def table_nation(side: str | None) -> str:
    """The Starting Megahex Table's column for a nation: "US" (US and NATO) or "Soviet"."""
    return "Soviet" if side == "Soviet" else "US"


def system_side(state: dict) -> str:
    c = state["campaign"]
    side = c.get("system_side")
    if side:
        return side
    return "US" if c.get("player_side") == "Soviet" else "Soviet"


def units_of(state: dict, group: dict) -> list[dict]:
    """The units of ``group`` still in it (``forces.alive``)."""
    return [state["units"][u] for u in group.get("units", []) if u in state["units"] and forces.alive(state["units"][u])]


def ships_of(state: dict, group: dict) -> list[dict]:
    return [u for u in units_of(state, group) if u.get("class") in SHIP_CLASSES]


def has_class(state: dict, group: dict, cls: str) -> bool:
    return any(u.get("class") == cls for u in units_of(state, group))


def is_invasion_freighter(unit: dict) -> bool:
    """An invasion freighter of STF 1.11 (class FR marked ``invasion`` by the forces); a US CV's
    fast resupply ship (1.12) is not one."""
    return unit.get("class") == "FR" and bool(unit.get("invasion"))


def has_invasion_freighter(state: dict, group: dict) -> bool:
    return any(is_invasion_freighter(u) for u in units_of(state, group))


def on_the_invasion(state: dict, group: dict) -> bool:
    """A GameSystem task force on its side's invasion (STF 7.4): the GameSystem invades and the task
    force is not "known to contain no invasion freighters" (7.5): Precise without one, or any task
    force but the one the freighters joined once they have (1.11: "the freighters are in the task
    force of the first revealed CV": all of them, ``campaign["invasion_freighters"]``)."""
    holder = state["campaign"].get("invasion_freighters")
    known_empty = (group.get("intel") == "precise" and not has_invasion_freighter(state, group)) or (
        holder is not None and holder != group["id"])
    return state["campaign"].get("invader") == "system" and group["kind"] == "tf" and not known_empty


def is_cv_group(state: dict, group: dict) -> bool:
    """A CV task force: a carrier among its known units, or one set aside for it (``cv``, STF 10.8)."""
    return group["kind"] == "tf" and (has_class(state, group, "CV") or bool(group.get("cv")))


def has_offensive_firepower(state: dict, group: dict) -> bool:
    """STF 7.6: SSMs, torpedoes, guns or attack aircraft left. A group whose units are not known
    is taken to have them (the GameSystem does not withdraw a contact the Player cannot see into).
    A carrier's aircraft are the squadrons it can still fly (the air part's ``squadrons``: none
    once destroyed, sunk or its flight deck inoperable), not its countermix complement."""
    from domain.rulesets.stf import air, combat  # imported late, as combat is below
    attack = combat.C["retirement"]["attack_kinds"]  # the attack squadrons of 12.3 (provisional)
    units = units_of(state, group)
    if not units:
        return True
    for u in units:
        ssm = u.get("ssm_left", u.get("ssm")) or 0
        torpedoes = u.get("torpedoes_left", u.get("torpedoes")) or 0
        if ssm or torpedoes or u.get("gun"):
            return True
        flying = (air.squadrons(state, u["id"]) if u.get("id") in state["units"]
                  else [{"type": k} for k, n in (u.get("air") or {}).items() if n])
        if u.get("air") and any(s["type"] in attack for s in flying):
            return True
    return False


def on_map(group: dict) -> bool:
    return group.get("hex") is not None and group.get("status", "on map") == "on map"


def player_groups(state: dict, kind_: str | None = None) -> list[dict]:
    return [g for g in state["groups"].values() if g["owner"] == "Player" and on_map(g)
            and (kind_ is None or g["kind"] == kind_)]


def system_groups(state: dict) -> list[dict]:
    return sorted((g for g in state["groups"].values() if g["owner"] == "system" and on_map(g)), key=forces.group_order)


def commitment_reached(state: dict) -> bool:
    """STF 1.9: once the value in play reaches the commitment, no more counters are deployed. The
    search helper sets ``campaign["commitment_reached"]``; the total is also read here."""
    c = state["campaign"]
    if c.get("commitment_reached"):
        return True
    limit = (c.get("commitment") or {}).get("system")
    return isinstance(limit, (int, float)) and state.get("deployment", {}).get("total", 0) >= limit


def may_deploy(state: dict, kind_: str) -> bool:
    """Whether a GameSystem counter of ``kind_`` ("tf" or "subron") may still be deployed: not once
    the commitment is reached (STF 1.9), and a task force not once the surface points reach the
    surface commitment limit (STF 1.10, 1.11: ``composition.surface_limit_reached``, recorded or
    read off the total)."""
    if commitment_reached(state):
        return False
    return kind_ != "tf" or not composition.surface_limit_reached(state)


def actions_lost(state: dict) -> int:
    """STF 8.15 (and 8.14 in a record naming no task force): actions the Player as a whole loses
    this turn (recorded the turn before); those 8.14 charged to a task force are not counted."""
    lost = state["campaign"].get("actions_lost") or {}
    return lost.get("count", 0) - sum(tf_actions_lost(state).values()) if lost.get("turn") == state["turn"] else 0


def tf_actions_lost(state: dict) -> dict[str, int]:
    """STF 8.14: "the player task force loses one action": each Player task force's lost actions
    this turn. The server's one action of a group a turn is its move, so such a group may not move."""
    lost = state["campaign"].get("actions_lost") or {}
    return dict(lost.get("groups") or {}) if lost.get("turn") == state["turn"] else {}


def _moves_left(state: dict) -> bool:
    """Whether the Player may move another group this turn, after the lost actions (8.14, 8.15)."""
    free = [g for g in player_groups(state) if g["id"] not in tf_actions_lost(state)]
    return sum(1 for g in free if g.get("moved") == state["turn"]) < len(free) - actions_lost(state)


# ---- STF 6: deployment ---------------------------------------------------------------------------
def starting_megahexes(map_: str, nation: str, column: str) -> list[int]:
    """Every megahex of a column of the Starting Megahex Table (STF 6.1), in the order of its rows."""
    table = STARTING[f"starting megahex {map_}"]
    i = table.column_index(f"{table_nation(nation)} {column}")
    out: list[int] = []
    for _, _, results in table.rows:
        if results[i] not in out:
            out.append(results[i])
    return out


def _column(group: dict) -> str:
    return "TF" if group["kind"] == "tf" else "Sub"


def _unplaced(state: dict) -> list[dict]:
    return [g for g in state["groups"].values() if g["owner"] == "Player" and g.get("hex") is None
            and g.get("status", "on map") not in ("sunk", "retired")]


def _unplaced_sosus(state: dict) -> list[str]:
    """STF 1.8's SOSUS units the Player bought (units of class SOSUS) not yet in a megahex."""
    return sorted(uid for uid, u in state["units"].items() if u.get("class") == "SOSUS" and u.get("megahex") is None)


def _deploy_templates(state: dict) -> list[dict]:
    """Each unplaced group in each megahex of its column, at each of its sea hexes (the centre first:
    6.1's order takes any of them), then the next SOSUS unit in each megahex with shallow water
    (STF 1.8: "any Megahex which contains Shallow water")."""
    if state["campaign"].get("map") not in maps.MAP_NAMES:
        return []
    m, nation = state["campaign"]["map"], state["campaign"].get("player_side")
    out = []
    for g in sorted(_unplaced(state), key=forces.group_order):
        for number in starting_megahexes(m, nation, _column(g)):
            out += [{"kind": "deploy", "group": g["id"], "megahex": number, "hex": h} for h in maps.sea_hexes_of(m, number)]
    shallow = [n for n in maps.megahex_numbers(m) if maps.megahex_is_shallow(m, n)]
    out += [{"kind": "deploy", "sosus": uid, "megahex": n} for uid in _unplaced_sosus(state)[:1] for n in shallow]
    if len(_unplaced(state)) + len(_unplaced_sosus(state)) == 1:  # the last: it ends the deployment (deploy)
        out = [{**o, "title": f"deploy {o.get('group') or o.get('sosus')} in megahex {o['megahex']}"
                              f"{', hex ' + o['hex'] if 'hex' in o else ''}, the last to place: "
                              "it ends your deployment (the GameSystem deploys, STF 6.2, and turn 1 begins)"}
               for o in out]
    return out


def deploy_sosus(ctx: Ctx, m: str, uid, number) -> None:
    """STF 1.8: a SOSUS unit goes in any megahex which contains shallow water."""
    unit = ctx.state["units"].get(uid) if isinstance(uid, str) else None
    if unit is None or unit.get("class") != "SOSUS":
        raise InvalidOrder(f"'sosus' is one of your SOSUS units ({', '.join(_unplaced_sosus(ctx.state)) or 'none'}), "
                           f"not {uid!r}", rule="STF 1.8", field="sosus")
    if type(number) is not int or number not in maps.megahex_numbers(m):
        raise InvalidOrder("'megahex' is a megahex number of the map", rule="STF 1.8", field="megahex")
    if not maps.megahex_is_shallow(m, number):
        raise RuleViolation("STF 1.8", f"SOSUS may not be deployed in megahex {number}: it holds deep water only")
    ctx.emit(UnitChanged, unit=uid, changes={"megahex": number}, rule="STF 1.8",
             why=f"the Player deploys {uid} in megahex {number}, which holds shallow water")


@kind("deploy", rule="STF 6.1", phases=("Deployment",), templates=_deploy_templates,
      help="place a task force or subron in a megahex of your nation's column of the Starting Megahex Table",
      fields={"group": "your group (P1...)", "megahex": "a megahex number of the Starting Megahex Table",
              "hex": "a sea hex of that megahex (default: its centre)",
              "sosus": "instead of a group: a SOSUS unit (STF 1.8), in any megahex with shallow water"})
def deploy(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    m = map_name(state)
    if "sosus" in order:
        deploy_sosus(ctx, m, order.get("sosus"), order.get("megahex"))
        if not _unplaced(ctx.state) and not _unplaced_sosus(ctx.state):
            system_deployment(ctx)
        return
    gid = order.get("group")
    group = state["groups"].get(gid) if isinstance(gid, str) else None
    if group is None or group["owner"] != "Player":
        mine = sorted(g["id"] for g in state["groups"].values() if g["owner"] == "Player")
        raise InvalidOrder(f"'group' is one of your groups ({', '.join(mine) or 'none'}), not {gid!r}",
                           rule="STF 6.1", field="group")
    number = order.get("megahex")
    if type(number) is not int:
        raise InvalidOrder("'megahex' is a megahex number", rule="STF 6.1", field="megahex")
    nation = state["campaign"].get("player_side")
    allowed = starting_megahexes(m, nation, _column(group))
    if number not in allowed:
        raise RuleViolation("STF 6.1", f"a {table_nation(nation)} {'task force' if group['kind'] == 'tf' else 'subron'} "
                                       f"is placed in a megahex of the Starting Megahex Table's "
                                       f"{table_nation(nation)} {_column(group)} column "
                                       f"({', '.join(map(str, sorted(allowed)))}), not {number}")
    hexes = [h for h in maps.megahex_hexes(m, number) if h is not None]
    where = order.get("hex", hexes[0])
    maps.check_hex(m, where, "STF 6.1", "hex")
    if where not in hexes:
        raise RuleViolation("STF 6.1", f"hex {where} is not in megahex {number} ({', '.join(hexes)})")
    if maps.is_land(m, where):
        raise RuleViolation("STF 6.1", f"hex {where} is land")
    ctx.emit(GroupChanged, group=gid, changes={"hex": where, "status": "on map"}, rule="STF 6.1",
             why=f"the Player deploys {gid} in megahex {number}")
    if not _unplaced(ctx.state) and not _unplaced_sosus(ctx.state):
        system_deployment(ctx)


@kind("deploy_done", rule="STF 6.1", phases=("Deployment",),
      templates=lambda state: [] if _unplaced(state) else [{"kind": "deploy_done"}],
      help="end your deployment: the GameSystem deploys (STF 6.2) and turn 1 begins")
def deploy_done(ctx: Ctx, order: dict) -> None:
    left = _unplaced(ctx.state)
    if left:
        raise RuleViolation("STF 6.1", f"place every task force and subron first: {', '.join(sorted(g['id'] for g in left))}")
    system_deployment(ctx)


def system_deployment(ctx: Ctx) -> None:
    """STF 6.2: the GameSystem's 6 task forces and 5 subrons, then turn 1."""
    m = map_name(ctx.state)
    for gid in SYSTEM_TFS + SYSTEM_SUBRONS:
        kind_ = "tf" if gid.startswith("TF") else "subron"
        if may_deploy(ctx.state, kind_):
            place_system_group(ctx, m, gid, kind_, "STF 6.2")
    turn.start_turn_one(ctx)


def place_system_group(ctx: Ctx, m: str, gid: str, kind_: str, rule: str) -> None:
    """A GameSystem counter onto the map: a d10 on the Starting Megahex Table (``rule``), a d6 for
    the outer hex (STF 6.5), EMCON side up or Deep (6.6), nothing known about it."""
    nation = system_side(ctx.state)
    column = f"{table_nation(nation)} {'TF' if kind_ == 'tf' else 'Sub'}"
    table = STARTING[f"starting megahex {m}"]
    die = dicemod.parse(table.dice)  # the table's rows 1-10 are a d10's faces (data/starting.json)
    made = ctx.roll(die.count, die.sides, seat="system", purpose=f"starting megahex of {gid}", rule=rule,
                    target=lambda v: tbl.read(table, sum(v), column).target,
                    outcome=lambda v: f"megahex {tbl.read(table, sum(v), column).result}")
    number = tbl.read(table, made.total, column).result
    hexes = maps.megahex_hexes(m, number)
    outer = ctx.roll(1, 6, seat="system", purpose=f"outer hex of megahex {number} for {gid}", rule="STF 6.5",
                     outcome=lambda v: f"outer hex {v[0]}")
    where, how = hexes[outer.values[0]], f"outer hex {outer.values[0]}"
    if where is None or maps.is_land(m, where):
        # off the map or land: the centre (or the first sea hex of the megahex)
        where = maps.sea_hexes_of(m, number)[0]
        how = f"outer hex {outer.values[0]} is {'off the map' if hexes[outer.values[0]] is None else 'land'}, so {where}"
    group = {"id": gid, "owner": "system", "kind": kind_, "hex": where, "units": [], "status": "on map",
             "intel": "unknown", "chit": None, "size": None, "retiring": False, "nation": None,
             "mode": "deep" if kind_ == "subron" else None, "emcon": kind_ == "tf",
             "placed": f"megahex {number}, {how}"}
    ctx.emit(GroupPlaced, group=group, rule=rule)


@STEPS.step("reinforcements")
def reinforcements(ctx: Ctx, stack: list) -> None:
    """STF 6.3, 6.4: each turn after the first, "one third of all task forces and subrons which are
    currently off the map (round fractions up)": one count over both kinds together, the counters
    drawn at random (8.10's cup: a die of as many faces as counters left, no die when all are
    taken). A false contact may come back only in the turn after its removal (6.3: "removed in the
    preceding turn"); one not drawn then is marked ``redeployable: False`` and stays off for good.
    Only counters that may still deploy are in the cup: no task force once the surface commitment
    limit is reached (STF 1.10, 1.11), nothing once the commitment is (STF 1.9). A limit the total
    reached with nothing recorded (a game recorded before the flag was) is recorded first, with
    1.9's immediate removal: "once" it is reached no further counter deploys."""
    stack.pop()
    if ctx.state["turn"] > 1 and ctx.state.get("deployment"):
        composition.check_commitment(ctx)
    state = ctx.state
    if state["turn"] <= 1 or commitment_reached(state):
        return
    m = map_name(state)
    off = sorted((g for g in state["groups"].values() if g["owner"] == "system" and g.get("status") in OFF_MAP
                  and not g.get("units") and g.get("redeployable", True) and may_deploy(state, g["kind"])),
                 key=forces.group_order)
    cup, drawn = [g["id"] for g in off], []
    wanted = math.ceil(len(cup) / 3)
    while len(drawn) < wanted:
        if len(cup) <= wanted - len(drawn):  # no choice left: every counter still in the cup comes
            drawn, cup = drawn + cup, []  # none is left over for 6.3 to keep off the map
            break
        r = ctx.roll(1, len(cup), seat="system", rule="STF 6.4",
                     purpose=f"STF 6.4: counter {len(drawn) + 1} of {wanted} drawn at random from the "
                             f"{len(cup)} off the map", target={"counters": list(cup)},
                     outcome=lambda v, c=list(cup): c[v[0] - 1])
        drawn.append(cup.pop(r.values[0] - 1))
    for gid in cup:
        if state["groups"][gid].get("status") == "false contact":
            ctx.emit(GroupChanged, group=gid, changes={"redeployable": False}, rule="STF 6.3",
                     why=f"STF 6.3: {gid} was not redeployed in the turn after its removal as a false contact: "
                         "only a counter removed in the preceding turn can be redeployed")
    for gid in drawn:
        g = ctx.state["groups"][gid]
        if not may_deploy(ctx.state, g["kind"]):
            continue
        rule = "STF 6.3" if g.get("status") == "false contact" else "STF 6.4"
        place_system_group(ctx, m, gid, g["kind"], rule)
        if ctx.state["campaign"].get("system_retiring") is not None:  # STF 12.5: all its units retire
            from domain.rulesets.stf import retirement  # imported late: it imports this package's combat
            retirement.retire(ctx, gid, "STF 12.5", "the GameSystem retires: every unit, this one too")


# ---- STF 7: the Player's movement ----------------------------------------------------------------
def group_speed(state: dict, group: dict) -> int | None:
    """The slowest unit's speed (data/countermix.json: hexes a turn); None when no unit has one."""
    speeds = [u["speed"] for u in units_of(state, group) if isinstance(u.get("speed"), int)]
    return min(speeds) if speeds else None


def player_bases(state: dict) -> list[str]:
    """The hexes of the Player's side's bases (STF 12.10-12.12's lists): the "friendly 'Base'" a
    carrier short of escorts withdraws to (STF 1.12)."""
    return side_bases(state, state["campaign"].get("player_side") or "US")


def must_withdraw(state: dict, group: dict) -> tuple[str, dict, int] | None:
    """STF 1.12 for the Player: a task force whose carriers lack their escorts must withdraw as
    quickly as possible toward the nearest friendly base: (why, water distances to the bases,
    hexes it must move this turn: 0 once at a base, where it stays, as the GameSystem's does), or
    None (no shortfall, no base reachable by sea)."""
    if group["kind"] != "tf" or group.get("moved") == state["turn"]:
        return None
    short = forces.escort_shortfall(state, group["id"])
    targets = player_bases(state) if short else []
    if not targets:
        return None
    dist = water_distances(map_name(state), targets)
    left = dist.get(group["hex"])
    if left is None:
        return None
    return short, dist, min(group_speed(state, group) or 0, left)


def _withdrawal(state: dict, group: dict, first: str, dist: dict, steps: int) -> list[str]:
    """A path of ``steps`` hexes starting at ``first``, each one hex nearer a base by water."""
    m, path = map_name(state), [first]
    while len(path) < steps:
        path.append(min(n for n in _sea_neighbours(m, path[-1]) if dist.get(n) == dist[path[-1]] - 1))
    return path


def _withdrawal_duty(state: dict) -> tuple[str, str] | None:
    """The Movement phase ends only once every Player task force that must withdraw has (STF 1.12),
    unless the actions lost to revealed contacts (STF 8.14, 8.15) leave no move to make."""
    if not _moves_left(state):
        return None
    for g in sorted(player_groups(state, "tf"), key=forces.group_order):
        if g["id"] in tf_actions_lost(state):
            continue
        found = must_withdraw(state, g)
        if found and found[2]:
            return "STF 1.12", (f"{g['id']} must withdraw toward the nearest friendly base before the "
                                f"Movement phase ends ({found[0]})")
    return None


turn.PHASE_DUTIES.setdefault("Movement", []).append(_withdrawal_duty)


def _reachable_paths(m: str, start: str, speed: int) -> list[list[str]]:
    """STF 7.1: a path to each sea hex within ``speed`` steps of ``start`` by water, the first
    shortest one found (neighbours in the map's order), nearest hexes first."""
    came_from: dict = {}
    paths: dict = {start: []}
    for h in _sea_walk(m, {start: 0}, most=speed, came_from=came_from):
        if h != start:
            paths[h] = paths[came_from[h]] + [h]
    return [p for p in paths.values() if p]


def _move_templates(state: dict) -> list[dict]:
    """A move to each sea hex each group that may still move this turn reaches at its speed (STF
    7.1: "at most its slowest unit's speed"; one-hex moves alone held a group to one hex a turn)."""
    m = state["campaign"].get("map")
    if m not in maps.MAP_NAMES:
        return []
    if not _moves_left(state):
        return []
    out = []
    for g in sorted(player_groups(state), key=forces.group_order):
        speed = group_speed(state, g)
        if g.get("moved") == state["turn"] or not speed or g["id"] in tf_actions_lost(state):
            continue
        withdraw = must_withdraw(state, g)
        if withdraw:  # STF 1.12: only the withdrawal, at full speed, each hex nearer a base
            _, dist, steps = withdraw
            out += [{"kind": "move", "group": g["id"], "path": _withdrawal(state, g, n, dist, steps)}
                    for n in maps.sea_neighbours(m, g["hex"]) if dist.get(n) == dist[g["hex"]] - 1]
        else:
            out += [{"kind": "move", "group": g["id"], "path": p}
                    for p in _reachable_paths(m, g["hex"], speed)]
    return out


@kind("move", rule="STF 7.1", phases=("Movement",), templates=_move_templates,
      help="move one of your groups along a path of adjacent sea hexes, at most its slowest unit's speed",
      fields={"group": "your group (P1...)", "path": "the hexes entered, in order"})
def move(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    m = map_name(state)
    gid = order.get("group")
    group = state["groups"].get(gid) if isinstance(gid, str) else None
    if group is None or group["owner"] != "Player":
        raise InvalidOrder(f"'group' is one of your groups, not {gid!r}", rule="STF 7.1", field="group")
    if not on_map(group):
        raise RuleViolation("STF 7.1", f"{gid} is not on the map")
    if group.get("moved") == state["turn"]:
        raise RuleViolation("STF 7.1", f"{gid} has moved this turn already")
    own = tf_actions_lost(state).get(gid)
    if own:
        raise RuleViolation("STF 8.14", f"{gid} lost {own} action(s) this turn to contacts revealed within two "
                                        f"hexes of it: it may not move")
    lost = actions_lost(state)
    if lost:
        free = [g for g in player_groups(state) if g["id"] not in tf_actions_lost(state)]
        moved = sum(1 for g in free if g.get("moved") == state["turn"])
        may = max(0, len(free) - lost)
        if moved >= may:
            by_rule = dict(lost_by_rule(state["campaign"]["actions_lost"]))
            by_rule["STF 8.14"] = by_rule.get("STF 8.14", 0) - sum(tf_actions_lost(state).values())
            by_rule = {r: n for r, n in by_rule.items() if n > 0}
            why = ", ".join(f"{n} by {r}" for r, n in sorted(by_rule.items()))
            raise RuleViolation(lost_rule(by_rule), f"the Player lost {lost} action(s) this turn to contacts "
                                                    f"revealed close by ({why}): {may} of "
                                                    f"{len(free)} groups may move, and {moved} have")
    path = order.get("path")
    if not isinstance(path, list) or not path:
        raise InvalidOrder("'path' is a list of the hexes entered, in order", rule="STF 7.1", field="path")
    speed = group_speed(state, group)
    if speed is None:
        raise RuleViolation("STF 7.1", f"{gid} has no unit with a speed")
    if len(path) > speed:
        raise RuleViolation("STF 7.1", f"{gid} moves at most {speed} hex(es) a turn (its slowest unit), not {len(path)}")
    here = group["hex"]
    for h in path:
        maps.check_hex(m, h, "STF 7.1", "path")
        if maps.distance(m, here, h) != 1:
            raise RuleViolation("STF 7.1", f"{h} is not adjacent to {here}")
        if maps.is_land(m, h):
            raise RuleViolation("STF 7.1", f"{h} is land")
        here = h
    withdraw = must_withdraw(state, group)
    if withdraw:
        short, dist, steps = withdraw
        here = group["hex"]
        if dist[here] == 0:
            raise RuleViolation("STF 1.12", f"{gid} has withdrawn to the friendly base {here} ({short}): it stays "
                                            f"there, its air operations go on")
        nearer = all(dist.get(h) == dist[here] - k for k, h in enumerate(path, start=1))
        if not nearer or len(path) != steps:
            raise RuleViolation("STF 1.12", f"{gid} must withdraw as quickly as possible toward the nearest "
                                            f"friendly base ({short}): {steps} hex(es) this turn, each one "
                                            f"nearer the base by water")
    ctx.emit(GroupMoved, group=gid, path=list(path), rule="STF 1.12" if withdraw else "STF 7.1",
             why=f"the Player moves {gid}" + (" toward the nearest friendly base (STF 1.12)" if withdraw else ""))
    ctx.emit(GroupChanged, group=gid, changes={"moved": state["turn"]}, rule="STF 7.1",
             why=f"{gid} has moved in turn {state['turn']}")
    invasion_arrivals(ctx, gid, list(path))


# ---- STF 1.11: invasion freighters reaching the target megahex --------------------------------------
def invasion_arrivals(ctx: Ctx, gid: str, path: list[str]) -> None:
    """STF 1.11: the invading side receives 3 VP (data/composition.json ``invasion_freighters.vp_at_target``)
    for each of its invasion freighters that makes it to the target megahex: once a freighter, when
    a hex of its group's move lies in that megahex (``arrived`` on the unit)."""
    c = ctx.state["campaign"]
    group = ctx.state["groups"].get(gid)
    target, invader = c.get("invasion_target"), c.get("invader")
    if target is None or group is None or group.get("owner") != invader:
        return
    m = map_name(ctx.state)
    if not any(maps.megahex_number(m, h) == target for h in path):
        return
    spec = INVASION_FREIGHTERS
    for u in units_of(ctx.state, group):
        if is_invasion_freighter(u) and not u.get("arrived"):
            ctx.emit(UnitChanged, unit=u["id"], changes={"arrived": True}, rule=spec["rule"],
                     why=f"{u.get('name', u['id'])} makes it to the target megahex {target} with {gid}")
            ctx.vp(invader, spec["vp_at_target"], f"invasion freighter {u.get('name', u['id'])} reached "
                                                  f"megahex {target}", spec["rule"])


# ---- paths on the map ----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _sea(m: str) -> frozenset:
    return frozenset(h for h in maps.grid(m).names() if maps.is_sea(m, h))


@lru_cache(maxsize=None)
def _sea_neighbours(m: str, h: str) -> tuple:
    return tuple(maps.sea_neighbours(m, h))


def _sea_walk(m: str, starts: dict, *, most: int | None = None, came_from: dict | None = None) -> dict:
    """Breadth-first over sea hexes from ``starts`` ({hex: steps}, in order of steps): the steps to
    each hex reached (at most ``most``), in the order reached (neighbours in the map's order);
    ``came_from`` is filled with the hex each was first reached from."""
    dist = dict(starts)
    queue = deque(starts)
    while queue:
        h = queue.popleft()
        if most is not None and dist[h] >= most:
            continue
        for n in _sea_neighbours(m, h):
            if n not in dist:
                dist[n] = dist[h] + 1
                if came_from is not None:
                    came_from[n] = h
                queue.append(n)
    return dist


def water_distances(m: str, targets) -> dict:
    """Breadth-first steps over sea hexes from the nearest of ``targets`` (a land target counts
    from its sea neighbours)."""
    starts = {t: 0 for t in targets if maps.is_sea(m, t)}
    for t in targets:
        if not maps.is_sea(m, t):
            for n in _sea_neighbours(m, t):
                starts.setdefault(n, 1)
    return _sea_walk(m, starts)


def nearest(m: str, here: str, hexes) -> int:
    return min((maps.distance(m, here, h) for h in hexes), default=10**6)


class Keep:
    """A distance a path keeps: never end a step closer than ``least`` hexes to any of ``hexes``,
    unless already closer (then never closer than it is). ``rule`` names the rule. An ``absolute``
    keep has no such leeway (STF 7.10: "will never enter a hex or adjacent hex of a player task
    force containing a BB"): a group the Player came beside may only step farther off, never into
    another hex as close, so one in the BB's own hex can still get out. ``what`` names the groups
    kept from, for the record of a group the keep holds where it is."""

    def __init__(self, hexes, least: int, rule: str, absolute: bool = False, what: str = ""):
        self.hexes, self.least, self.rule, self.absolute, self.what = list(hexes), least, rule, absolute, what

    def allows(self, m: str, here: str, there: str) -> bool:
        d = nearest(m, there, self.hexes)
        now = nearest(m, here, self.hexes)
        return d >= self.least or d > now or (not self.absolute and d == now)


WITHDRAWING = "withdrawing: as near its base, as far from the Player's groups"


def _choose(ctx: Ctx, gid: str, options: list[str], why: str, rule: str = "STF 7.5") -> str:
    """One of equally good hexes: a die of as many faces as there are options (STF 7.5; ``rule``
    names the rule whose move rolls it: 12.5's retirement, 1.12's and 7.6's withdrawals their own)."""
    if len(options) == 1:
        return options[0]
    made = ctx.roll(1, len(options), seat="system", purpose=f"{gid}: a choice of hexes {', '.join(options)} ({why})",
                    rule=rule, outcome=lambda v: options[v[0] - 1])
    return options[made.values[0] - 1]


def path_toward(ctx: Ctx, m: str, gid: str, start: str, targets, steps: int, *, stop_at: int = 0,
                keeps=(), away_from=(), rule: str = "STF 7.5", why: str = "toward its target") -> list[str]:
    """Up to ``steps`` hexes toward the nearest of ``targets``: each step to the sea neighbour
    nearest by water, only if it comes nearer by water; of equally near ones, with ``away_from``,
    the farthest from those hexes (STF 12.5: "If there is a choice of hexes to move into, they will
    keep as far away from player's task forces and subrons as possible"); a choice left is rolled
    for (STF 7.5: "If there is a choice of hexes, resolve movement via random die roll"; the die
    named ``rule`` and ``why``: a retiring group's is 12.5's, a withdrawing one's 1.12's or 7.6's); stops ``stop_at`` hexes from the targets."""
    targets = list(targets)
    if not targets:
        return []
    water = water_distances(m, targets)
    path, here = [], start
    for _ in range(steps):
        if nearest(m, here, targets) <= stop_at:
            break
        now = water.get(here, 10**6)
        options = [n for n in _sea_neighbours(m, here) if water.get(n, 10**6) < now
                   and all(k.allows(m, here, n) for k in keeps)]
        if not options:
            break

        def key(n):
            return (water[n], -nearest(m, n, away_from) if away_from else 0)
        best = min(key(n) for n in options)
        here = _choose(ctx, gid, [n for n in options if key(n) == best], why, rule)
        path.append(here)
    return path


def path_away(ctx: Ctx, m: str, gid: str, start: str, away, steps: int, *, edge: str | None = None,
              keeps=()) -> list[str]:
    """Up to ``steps`` hexes away from the nearest of ``away``: each step to the sea neighbour
    farthest from them (then nearest ``edge``), only if it gets farther."""
    path, here = [], start
    for _ in range(steps):
        now = nearest(m, here, away)
        options = [n for n in _sea_neighbours(m, here) if nearest(m, n, away) > now
                   and all(k.allows(m, here, n) for k in keeps)]
        if not options:
            break

        def key(n):
            return (-nearest(m, n, away), maps.edge_distance(m, n, edge) if edge else 0)
        best = min(key(n) for n in options)
        here = _choose(ctx, gid, [n for n in options if key(n) == best], "away")
        path.append(here)
    return path


def path_ending_off(ctx: Ctx, m: str, gid: str, start: str, targets, steps: int, *, ends, keeps=()) -> list[str]:
    """Up to ``steps`` hexes to the hex nearest the ``targets`` by water whose distance ``ends`` (Keeps)
    allow, each step one ``keeps`` allow (STF 7.8's "as many hexes as possible towards objective
    hex, but no closer than 4 hexes to player BB task force": where the move ends). Of equally near
    ends, the fewest hexes moved; each step to the neighbour nearest by water of those still on
    such a path, a choice left rolled for (STF 7.5). None when no hex in reach ends where ``ends`` allow."""
    water = water_distances(m, list(targets))

    def steps_from(here: str) -> list[str]:
        return [n for n in _sea_neighbours(m, here) if all(k.allows(m, here, n) for k in keeps)]

    @lru_cache(maxsize=None)
    def best(here: str, left: int):
        """(water distance, hexes moved) of the best end within ``left`` steps of ``here``, or None."""
        found = [(water.get(here, 10**6), 0)] if all(nearest(m, here, k.hexes) >= k.least for k in ends) else []
        if left:
            found += [(b[0], b[1] + 1) for b in (best(n, left - 1) for n in steps_from(here)) if b]
        return min(found, default=None)

    goal = best(start, steps)
    if goal is None:
        return []
    path, here, left = [], start, goal[1]
    while left:
        options = [n for n in steps_from(here) if best(n, left - 1) == (goal[0], left - 1)]
        near = min(water.get(n, 10**6) for n in options)
        here = _choose(ctx, gid, [n for n in options if water.get(n, 10**6) == near], "toward its target")
        path.append(here)
        left -= 1
    return path


def halfway_hex(m: str, a: str, b: str) -> str:
    """The hex half way along the line from a to b (the midpoint's cube coordinates rounded, a half
    to the even whole number, the coordinate farthest from its rounding recomputed from the other
    two), or the sea hex nearest it (then nearest a) when it is land."""
    g = maps.grid(m)
    ca, cb = g.hex(a), g.hex(b)
    q, r = Fraction(ca.q + cb.q, 2), Fraction(ca.r + cb.r, 2)
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    from domain.rulesets.toolkit.hexes import Cube
    h = g.name(Cube(int(rq), int(rr), int(rs)))
    if maps.is_sea(m, h):
        return h
    return min(sorted(_sea(m)), key=lambda x: (maps.distance(m, x, h), maps.distance(m, x, a)))


# ---- STF 7: the GameSystem's movement ------------------------------------------------------------
def system_speed(state: dict, group: dict) -> tuple[int, str]:
    """(hexes this turn, why): STF 7.1, 7.2 for subrons, the slowest known ship for a task force,
    5.2 under a GameSystem command control loss."""
    if group["kind"] == "subron":
        if group.get("intel") != "precise":
            speed = MOVE["subron_speed"]["less than precise"]
            why = f"a subron less than Precise moves {speed} (STF 7.1, 7.2)"
        elif any(u.get("class") == "SS" for u in units_of(state, group)):
            speed = MOVE["subron_speed"]["precise with a conventional sub"]
            why = f"a Precise conventional sub moves {speed} (STF 7.1)"
        else:
            speed = MOVE["subron_speed"]["precise with an SSN only"]
            why = f"Precise SSNs move {speed} (STF 7.1)"
    else:
        known = group_speed(state, group)
        speed = known if known is not None else MOVE["unknown_tf_speed"]
        why = f"its slowest ship moves {speed}" if known is not None else f"a task force of unknown ships moves {speed} (provisional)"
    if state["campaign"].get("system_ccl_turn") == state["turn"]:
        if speed <= 1:
            return 0, "a GameSystem command control loss: a group of speed 1 may not move (STF 5.2)"
        return 1, "a GameSystem command control loss: one hex of movement (STF 5.2)"
    return speed, why


def bases(state: dict) -> list[str]:
    """The hexes of the GameSystem's bases (STF 12.10-12.12)."""
    return side_bases(state, system_side(state))


def side_bases(state: dict, side: str) -> list[str]:
    """The hexes of ``side``'s bases on the campaign's map, from data/bases.json, the campaign
    helper's file, read defensively: ``maps.<map>.retirement_bases.<side>`` (or ``<map>.bases.<side>``),
    each {"megahex": n}, {"place": name}, a name or a number; none when the file is not there."""
    try:
        raw = DATA.read("bases.json")
    except Exception:
        return []
    return bases_in(raw, map_name(state), side)


def bases_in(raw: dict, m: str, side: str) -> list[str]:
    """The hexes of ``side``'s bases on map ``m`` as a bases file lists them."""
    entry = (raw.get("maps") or {}).get(m) or raw.get(m) or {}
    listed = entry.get("retirement_bases") or entry.get("bases") or {}
    names = listed.get(side) or listed.get("US" if side == "NATO" else side) or []
    out = []
    for item in names:
        if isinstance(item, dict):
            item = item.get("place") if "place" in item else item.get("megahex")
        try:
            out += [h for h in maps.place_hexes(m, item) if h not in out]  # a megahex base: each of its hexes
        except (maps.UnknownPlace, KeyError, ValueError, TypeError):
            continue
    return out


def base_targets(state: dict) -> tuple[list[str], str]:
    hexes = bases(state)
    if hexes:
        return hexes, "its nearest base"
    # no base file: its own map edge stands for the bases
    m = map_name(state)
    edge = maps.side_edge(m, system_side(state))
    return [h for h in _sea(m) if maps.edge_distance(m, h, edge) == 0], f"its own ({edge}) map edge"


def retirement_targets(state: dict, group: dict) -> tuple[list[str], str]:
    """STF 12.5: where a retiring group sails: the base its retirement chose (``destination``:
    retirement.py took the nearest by sea, equally near ones settled by the Player's groups and a
    die) while that base is still one of the nearest; else the nearest (``base_targets``)."""
    targets, what = base_targets(state)
    dest = group.get("destination")
    if dest in targets:
        from_here = water_distances(map_name(state), [group["hex"]])
        if from_here.get(dest, 10**6) == min(from_here.get(t, 10**6) for t in targets):
            return [dest], f"its base {dest}, the nearest"
    return targets, what


def objective_hexes(state: dict) -> list[str]:
    target = state["campaign"].get("invasion_target")
    return maps.sea_hexes_of(map_name(state), target) if target is not None else []


def _nearest_groups(m: str, here: str, groups: list[dict]) -> list[dict]:
    if not groups:
        return []
    d = min(maps.distance(m, here, g["hex"]) for g in groups)
    return [g for g in groups if maps.distance(m, here, g["hex"]) == d]


def _names(groups) -> str:
    return ", ".join(sorted(g["id"] for g in groups))


@STEPS.step("system_movement")
def system_movement(ctx: Ctx, stack: list) -> None:
    """STF 7: every GameSystem group on the map moves, task forces then subrons, by number; one less
    than Precise that passes within two hexes of a Player task force or through a Player subron's
    hex is revealed there (STF 8.14, 8.15)."""
    stack.pop()
    lost: list[tuple[str, str | None]] = []
    for g in system_groups(ctx.state):
        group = ctx.state["groups"][g["id"]]
        if not on_map(group):
            continue
        found = move_along(ctx, group)
        if found:
            lost.append(found)
    lose_actions(ctx, lost)


def move_along(ctx: Ctx, group: dict) -> tuple[str, str | None] | None:
    """Move GameSystem group ``group`` (STF 7) and apply what its path does wherever it moves (the
    Movement phase, or 7.8's move after the SSM salvo): its invasion freighters reaching the target
    (1.11), and its reveal where it first comes within two hexes of a Player task force or into a
    Player subron's hex (8.14, 8.15). The reveal's (rule, Player task force) for ``lose_actions``."""
    gid = group["id"]
    before = len(ctx.out)
    move_system_group(ctx, group)
    group = ctx.state["groups"][gid]
    path = [h for o in ctx.out[before:] if isinstance(o, tuple) and o[0] is GroupMoved
            and o[1]["group"] == gid for h in o[1]["path"]]
    if path and on_map(group):
        invasion_arrivals(ctx, gid, path)
    if path and on_map(group) and group.get("intel") != "precise":
        found = _proximity(ctx.state, map_name(ctx.state), group, path)
        if found:
            reveal(ctx, gid, found[0], found[1])
            return found[0], found[2]
    return None


def _emit_move(ctx: Ctx, gid: str, path: list[str], rule: str, why: str, *, toward=(), keeps=()) -> None:
    """The move by ``rule``; with no path, a group that stays because every step nearer ``toward``
    would break one of ``keeps`` (STF 7.9, 7.10) records why, as a group 7.8 or 5.2 holds does."""
    if path:
        ctx.emit(GroupMoved, group=gid, path=path, rule=rule, why=why)
        return
    here = ctx.state["groups"][gid]["hex"]
    barred = _barred_by(map_name(ctx.state), here, list(toward), keeps)
    if barred:
        ctx.emit(GroupChanged, group=gid, changes={}, rule=barred[0].rule,
                 why=f"{gid} stays at {here}: every hex that would take it nearer its target ({rule}) comes closer to "
                     + " and ".join(f"{k.what} than {k.rule} lets it (no closer than {k.least} hexes)" for k in barred))


def _barred_by(m: str, here: str, targets: list[str], keeps) -> list:
    """The ``keeps`` that bar a move from ``here``: those breaking a step nearer ``targets`` by
    water, when every such step breaks one; [] when a step is free or none comes nearer."""
    if not targets or not keeps:
        return []
    water = water_distances(m, targets)
    nearer = [n for n in _sea_neighbours(m, here) if water.get(n, 10**6) < water.get(here, 10**6)]
    if not nearer or any(all(k.allows(m, here, n) for k in keeps) for n in nearer):
        return []
    return [k for k in keeps if not all(k.allows(m, here, n) for n in nearer)]


def move_system_group(ctx: Ctx, group: dict) -> None:
    state, gid, here = ctx.state, group["id"], group["hex"]
    m = map_name(state)
    speed, speed_why = system_speed(state, group)
    if speed <= 0:
        ctx.emit(GroupChanged, group=gid, changes={}, rule="STF 5.2", why=f"{gid} does not move: {speed_why}")
        return
    players = player_groups(state)
    player_tfs = [g for g in players if g["kind"] == "tf"]
    invader = state["campaign"].get("invader")
    bbs = [g for g in player_tfs if has_class(state, g, "BB")]
    keeps = []
    if group["kind"] == "tf" and bbs:
        keeps.append(Keep([g["hex"] for g in bbs], MOVE["never_within_of_player_bb_tf"] + 1, "STF 7.10",
                          absolute=True, what=f"the Player BB task force {_names(bbs)}"))
    if is_cv_group(state, group):
        subs = [g for g in players if g["kind"] == "subron"]
        if subs:
            keeps.append(Keep([g["hex"] for g in subs], MOVE["cv_keeps_from_player_subron"], "STF 7.9",
                              what=f"the Player subron {_names(subs)}"))
    kept = "".join(f"; keeping {k.least}+ hexes from Player {'BB task forces' if k.rule == 'STF 7.10' else 'subrons'} ({k.rule})"
                   for k in keeps)

    # STF 7.11: Last Ditch Defence, before any other movement rule ("will ignore all other movement
    # rules"): 12.5's retirement and 1.12's withdrawal too, for a group that can still attack
    if invader == "Player" and has_offensive_firepower(state, group):
        objective = set(objective_hexes(state))
        landed = [g for g in player_tfs if g["hex"] in objective and has_invasion_freighter(state, g)]
        if landed:
            near = _nearest_groups(m, here, landed)
            path = path_toward(ctx, m, gid, here, [g["hex"] for g in near], speed)
            _emit_move(ctx, gid, path, "STF 7.11", f"Last Ditch Defence: {_names(near)} with invasion freighters "
                                                   f"entered the objective megahex; {gid} makes for it at full "
                                                   f"speed to engage with SSM, 4 rounds of gunnery and torpedoes; {speed_why}")
            return

    # STF 7.9: a CV task force closer than 3 hexes to a Player subron "will try to move so as to be
    # no closer than 3 hexes": it steps away until 3 off (7.10 still kept), before its other rules,
    # whose every step toward their target would otherwise be barred and leave it where it is
    if is_cv_group(state, group) and _escape_subrons(ctx, m, group, players, speed, speed_why, keeps):
        return

    # STF 12.5, 12.9: retiring groups make for their nearest base and leave the map there
    if group.get("retiring"):
        targets, what = retirement_targets(state, group)
        path = path_toward(ctx, m, gid, here, targets, speed, away_from=[g["hex"] for g in players], keeps=keeps,
                           rule="STF 12.5", why="retiring: as near its base, as far from the Player's groups")
        _emit_move(ctx, gid, path, "STF 12.5", f"{gid} retires toward {what}, keeping as far from the Player's "
                                               f"groups as it can; {speed_why}{kept}", toward=targets, keeps=keeps)
        end = path[-1] if path else here
        if end in base_targets(state)[0]:
            from domain.rulesets.stf import retirement  # imported late: it imports this package's combat
            retirement.arrive(ctx, gid)  # STF 12.9, and 12.7's carrier leaving its escorts in play
        return

    # STF 1.12: a carrier that cannot meet its escort requirement withdraws toward the nearest
    # friendly base (its air operations go on); known only once the task force is Precise
    short = forces.system_withdrawal(state, gid)
    if short:
        targets, what = base_targets(state)
        path = path_toward(ctx, m, gid, here, targets, speed, away_from=[g["hex"] for g in players], keeps=keeps,
                           rule="STF 1.12", why=WITHDRAWING)
        _emit_move(ctx, gid, path, "STF 1.12", f"{gid}: {short}: it withdraws toward {what} as quickly as "
                                               f"possible; {speed_why}{kept}", toward=targets, keeps=keeps)
        return

    # STF 7.6: no offensive firepower: withdraw toward the nearest friendly base
    if not has_offensive_firepower(state, group):
        targets, what = base_targets(state)
        path = path_toward(ctx, m, gid, here, targets, speed, away_from=[g["hex"] for g in players], keeps=keeps,
                           rule="STF 7.6", why=WITHDRAWING)
        _emit_move(ctx, gid, path, "STF 7.6", f"{gid} has no offensive firepower and withdraws toward {what}; "
                                              f"{speed_why}{kept}", toward=targets, keeps=keeps)
        return

    # STF 7.8: a CV task force close to a Player task force
    if is_cv_group(state, group) and player_tfs:
        near = _nearest_groups(m, here, player_tfs)
        d = maps.distance(m, here, near[0]["hex"])
        if d <= MOVE["cv_bands"]["applies_within"]:
            # the invasion column is 7.4's case, a task force on the invasion; one known to carry no
            # invasion freighter is 7.5's, the battle's
            if _cv_band(ctx, m, group, near, d, speed, speed_why, keeps, kept, on_the_invasion(state, group)):
                return

    # STF 7.4: an invading task force makes for the target megahex (but 7.5 for one known to
    # carry no invasion freighter)
    if on_the_invasion(state, group):
        objective = objective_hexes(state)
        if objective:
            path = path_toward(ctx, m, gid, here, objective, speed, keeps=keeps)
            _emit_move(ctx, gid, path, "STF 7.4", f"{gid} invades: full speed toward the target megahex "
                                                  f"{state['campaign'].get('invasion_target')}; {speed_why}{kept}",
                       toward=objective, keeps=keeps)
            return

    # the rules below steer by the Player's task forces: with none on the map (only subrons, or all
    # sunk or gone) there is nothing to make for; 7.4 above does not need one
    if not player_tfs:
        return

    # STF 7.7: defending against an invasion
    if invader == "Player":
        carriers = [g for g in player_tfs if has_invasion_freighter(state, g)]
        objective = objective_hexes(state)
        if carriers and objective and is_cv_group(state, group):
            centre = maps.place_hex(m, int(state["campaign"]["invasion_target"]))
            # equally close invasion forces are one choice (as 7.5's equally near task forces):
            # the nearest of their half way hexes, not the first task force of the list
            closest = sorted(_nearest_groups(m, centre, carriers), key=forces.group_order)
            mids = sorted({halfway_hex(m, centre, g["hex"]) for g in closest})
            path = path_toward(ctx, m, gid, here, mids, speed, keeps=keeps)
            where = mids[0] if len(mids) == 1 else f"the nearer of {', '.join(mids)}"
            _emit_move(ctx, gid, path, "STF 7.7", f"{gid}, a CV task force defending against the invasion, makes "
                                                  f"for {where}, half way between the target megahex and "
                                                  f"{_names(closest)} (the invasion force nearest it"
                                                  f"{'; equally near' if len(closest) > 1 else ''}); {speed_why}{kept}",
                       toward=mids, keeps=keeps)
            return
        if carriers:
            near = _nearest_groups(m, here, carriers)
            toward = [g["hex"] for g in near]
            path = path_toward(ctx, m, gid, here, toward, speed, keeps=keeps)
            _emit_move(ctx, gid, path, "STF 7.7", f"{gid} defends against the invasion: toward {_names(near)}, the "
                                                  f"nearest Player task force with an invasion freighter, to engage; "
                                                  f"{speed_why}{kept}", toward=toward, keeps=keeps)
            return

    # STF 7.5: toward the nearest Player task force of four or more ships (else the nearest)
    big = [g for g in player_tfs if len(ships_of(state, g)) >= 4]
    near = _nearest_groups(m, here, big or player_tfs)
    what = "the nearest Player task force of four or more ships" if big else "the nearest Player task force (none has four ships)"
    toward = [g["hex"] for g in near]
    path = path_toward(ctx, m, gid, here, toward, speed, keeps=keeps)
    _emit_move(ctx, gid, path, "STF 7.5", f"{gid} moves at full speed toward {_names(near)}, {what}; {speed_why}{kept}",
               toward=toward, keeps=keeps)


def _escape_subrons(ctx: Ctx, m: str, group: dict, players: list[dict], speed: int, speed_why: str,
                    keeps: list) -> bool:
    """STF 7.9 for a CV task force already closer than 3 hexes to a Player subron: a move away from
    the nearest subrons, as many hexes as bring it 3 off (no more than its speed), keeping 7.10;
    False when it is not that close or no step takes it farther (its other rules then move it,
    never closer)."""
    gid, here = group["id"], group["hex"]
    subs = [g["hex"] for g in players if g["kind"] == "subron"]
    least = MOVE["cv_keeps_from_player_subron"]
    now = nearest(m, here, subs)
    if now >= least:
        return False
    others = [k for k in keeps if k.rule != "STF 7.9"]
    path = path_away(ctx, m, gid, here, subs, min(speed, least - now), keeps=others)
    if not path:
        return False
    near = sorted(g["id"] for g in players if g["kind"] == "subron" and maps.distance(m, here, g["hex"]) == now)
    end = nearest(m, path[-1], subs)
    kept = "".join(f"; keeping {k.least}+ hexes from Player BB task forces ({k.rule})" for k in others)
    _emit_move(ctx, gid, path, "STF 7.9",
               f"{gid}, a CV task force {now} hex{'es' if now != 1 else ''} from the Player subron "
               f"{', '.join(near)}, tries to be no closer than {least}: it moves away to {end}; {speed_why}{kept}")
    return True


def _cv_band(ctx: Ctx, m: str, group: dict, near: list[dict], d: int, speed: int, speed_why: str,
             keeps: list, kept: str, invading: bool) -> bool:
    """STF 7.8's band for a CV task force ``d`` hexes from the nearest Player task force(s);
    False when the band sends it on by the other rules."""
    state, gid, here = ctx.state, group["id"], group["hex"]
    # the nearest band ("2 or fewer hexes") stands for every distance under it
    band = BANDS[max(min(BANDS), d)] if d <= MOVE["cv_bands"]["applies_within"] else None
    if band is None:
        return False
    bb = any(has_class(state, g, "BB") for g in near)
    case = ("invasion" if invading else "battle") + ("_bb" if bb and f"{'invasion' if invading else 'battle'}_bb" in band else "")
    action = band[case]
    tf_hexes = [g["hex"] for g in near]
    objective = objective_hexes(state)
    why = (f"{gid}, a CV task force {d} hexes from {_names(near)}"
           + (" (with a BB)" if bb else "") + f" ({'invasion' if invading else 'battle'}): ")
    if action["action"] == "stay":
        ctx.emit(GroupChanged, group=gid, changes={}, rule="STF 7.8", why=why + "does not move")
        return True
    if action.get("ssm_first") and group.get("ssm_first") != state["turn"] and _ssm_in_reach(state, group):
        # "conduct any SSM attacks, then ... move": it holds for the Combat phase's SSM salvo, and
        # the combat helper's step ``ssm_first_move`` moves it by this band after the salvo
        ctx.emit(GroupChanged, group=gid, changes={"ssm_first": state["turn"]}, rule="STF 7.8",
                 why=why + "conducts its SSM attacks first (in the Combat phase), then moves by this band")
        return True
    steps = speed if action.get("hexes") is None else min(speed, action["hexes"])
    if action["action"] == "away":
        edge = maps.side_edge(m, system_side(state)) if action.get("to_own_edge") else None
        path = path_away(ctx, m, gid, here, tf_hexes, steps, edge=edge, keeps=keeps)
        text = f"moves {'1 hex' if action.get('hexes') == 1 else 'as far as it can'} away" + (f" toward its own ({edge}) map edge" if edge else "")
    else:
        extra, ends = list(keeps), []
        if action.get("keep_from_tf"):
            extra.append(Keep([g["hex"] for g in player_groups(state, "tf")], action["keep_from_tf"], "STF 7.8"))
        if action.get("keep_from_bb"):
            # 3 hexes off, inside the 4: never closer than it is on the way, the move ending 4 or more
            # off, as near the objective as it can (docs/rulesets.md, Readings: "7.8's 3 hexes from a BB")
            ends = [Keep([g["hex"] for g in near if has_class(state, g, "BB")], action["keep_from_bb"], "STF 7.8")]
            extra += ends
        if action["target"] == "objective":
            if not objective:
                return False
            text = f"moves toward the objective megahex {state['campaign'].get('invasion_target')}"
            if ends:
                path = path_ending_off(ctx, m, gid, here, objective, steps, ends=ends, keeps=extra)
                water = water_distances(m, objective)
                if path and water.get(path[-1], 10**6) >= water.get(here, 10**6):
                    text = (f"no hex nearer the objective megahex {state['campaign'].get('invasion_target')} in "
                            f"its reach ends {action['keep_from_bb']} or more hexes from the BB task force: it moves "
                            f"out to the one nearest the objective")
            else:
                path = path_toward(ctx, m, gid, here, objective, steps, keeps=extra)
        else:
            path = path_toward(ctx, m, gid, here, tf_hexes, steps, stop_at=action.get("stop_at", 0), keeps=extra)
            text = "moves toward it" + (f" to {action['stop_at']} hex" if action.get("stop_at") else "")
        if action.get("keep_from_tf"):
            text += f", no closer than {action['keep_from_tf']} hexes to a Player task force"
        if action.get("keep_from_bb"):
            text += f", ending no closer than {action['keep_from_bb']} hexes to the BB task force"
    if action.get("combat"):
        text += f" ({action['combat']})"
    if path:
        ctx.emit(GroupMoved, group=gid, path=path, rule="STF 7.8", why=why + text + f"; {speed_why}{kept}")
    else:
        ctx.emit(GroupChanged, group=gid, changes={}, rule="STF 7.8",
                 why=why + text + ": it stays where it is (there already, or no hex brings it nearer)")
    return True


def _ssm_in_reach(state: dict, group: dict) -> bool:
    """STF 7.8's "conduct any SSM attacks" first: the group has SSMs ready and a Player task force
    within their reach (the combat helper's ranges, STF 11.1)."""
    from domain.rulesets.stf import combat  # imported late: combat imports this package's air
    lr = combat.C["long_range_ssm"]
    if not any(combat.ssm_ready(u) for u in combat.units_of(state, group["id"])):
        return False
    reach = lr["long_range_hexes"] if group.get("intel") == lr["system_fires_only_when"] else lr["short_range_hexes"]
    m = map_name(state)
    return any(maps.distance(m, group["hex"], g["hex"]) <= reach for g in player_groups(state, "tf")
               if ships_of(state, g))


# ---- STF 7.3, 8.14: group modes ------------------------------------------------------------------
@STEPS.step("group_modes")
def group_modes(ctx: Ctx, stack: list) -> None:
    """STF 7.3: a GameSystem subron stays Deep unless within two hexes of a Player task force;
    8.14, 8.7: a Precise subron goes Shallow at the Group Mode Phase, for the rest of the game."""
    stack.pop()
    state = ctx.state
    m = map_name(state)
    tfs = [g["hex"] for g in player_groups(state, "tf")]
    for g in system_groups(state):
        if g["kind"] != "subron":
            continue
        if g.get("intel") == "precise":
            mode, rule, why = "shallow", "STF 8.14", f"{g['id']} is Precisely known: Shallow for the rest of the game"
        elif tfs and nearest(m, g["hex"], tfs) <= MOVE["deep_unless_within"]:
            mode, rule, why = "shallow", "STF 7.3", f"{g['id']} is within {MOVE['deep_unless_within']} hexes of a Player task force: it leaves Deep mode"
        else:
            mode, rule, why = "deep", "STF 7.3", f"{g['id']} is not within {MOVE['deep_unless_within']} hexes of a Player task force: it stays Deep"
        if g.get("mode") != mode:
            ctx.emit(GroupChanged, group=g["id"], changes={"mode": mode}, rule=rule, why=why)


# ---- STF 8.14, 8.15: proximity reveals -----------------------------------------------------------
def reveal(ctx: Ctx, gid: str, rule: str, why: str) -> None:
    """Make ``gid`` Precisely known as 8.7's Precise report does: a contact with no chit rolls the
    false-contact 1D6 first (even: removed from play; ``rule`` 8.14 or 8.15 names it), a hostile one
    gets the search helper's ``composition.reveal`` (its size, nation and exact composition, STF
    8.6-8.8, 8.12, 8.13) when it is there, else the intelligence level alone."""
    from domain.rulesets.stf import search  # imported late: search reaches movement through composition
    if ctx.state["groups"][gid].get("chit") is None and search.false_contact(ctx, gid, rule):
        return
    try:
        composition = importlib.import_module("domain.rulesets.stf.composition")
    except ImportError:
        composition = None
    full = getattr(composition, "reveal", None)
    if full is not None:
        full(ctx, gid, rule=rule, why=why)
    if ctx.state["groups"][gid].get("intel") != "precise":
        ctx.emit(GroupChanged, group=gid, changes={"intel": "precise"}, rule=rule, why=why)


def _proximity(state: dict, m: str, group: dict, hexes: list[str]) -> tuple[str, str, str | None] | None:
    """(rule, why, Player task force) of the first of ``hexes`` that reveals ``group``: within two
    hexes of a Player task force (STF 8.14: the nearest, then the first by number, loses the
    action), or a Player subron's hex (8.15: the Player loses it, no task force); None if none does."""
    tfs, subs = player_groups(state, "tf"), player_groups(state, "subron")
    reach = MOVE["reveal_within_of_player_tf"]
    for h in hexes:
        close = [t for t in tfs if maps.distance(m, h, t["hex"]) <= reach]
        if close:
            charged = min(close, key=lambda t: (maps.distance(m, h, t["hex"]), forces.group_order(t)))["id"]
            return ("STF 8.14", f"{group['id']} moved within {reach} hexes of {_names(close)} (at {h}): Precisely "
                                f"known; {charged} loses an action next turn", charged)
        same = [x for x in subs if x["hex"] == h]
        if same:
            return ("STF 8.15", f"{group['id']} entered the hex of the Player subron {_names(same)} ({h}): "
                                f"Precisely known", None)
    return None


def lose_actions(ctx: Ctx, lost: list[tuple[str, str | None]]) -> None:
    """STF 8.14, 8.15: one more action lost in the following turn for each reveal, ``lost`` giving
    its rule and the Player task force that loses it (8.14), or None (8.15: the Player's). The
    record counts them by rule (``rules``) and by task force (``groups``, when any)."""
    if not lost:
        return
    turn_ = ctx.state["turn"] + 1
    prior = ctx.state["campaign"].get("actions_lost") or {}
    same = prior.get("turn") == turn_
    by_rule = dict(lost_by_rule(prior)) if same else {}
    groups = dict(prior.get("groups") or {}) if same else {}
    for r, gid in lost:
        by_rule[r] = by_rule.get(r, 0) + 1
        if gid:
            groups[gid] = groups.get(gid, 0) + 1
    value = {"turn": turn_, "count": sum(by_rule.values()), "rules": dict(sorted(by_rule.items()))}
    if groups:
        value["groups"] = dict(sorted(groups.items()))
    ctx.emit(CampaignFixed, key="actions_lost", value=value, rule=lost_rule(by_rule))


def lost_by_rule(record: dict) -> dict[str, int]:
    """The lost actions of an ``actions_lost`` record by the rule that cost them (a record
    without ``rules`` counts them all under STF 8.14)."""
    return record.get("rules") or ({"STF 8.14": record["count"]} if record.get("count") else {})


def lost_rule(by_rule: dict[str, int]) -> str:
    """The rule that names lost actions: STF 8.15 when a Player subron's hex cost them all, else
    STF 8.14 (a contact within two hexes of a Player task force cost some)."""
    return "STF 8.15" if by_rule and set(by_rule) == {"STF 8.15"} else "STF 8.14"
