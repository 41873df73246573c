"""Retirement (STF 12): the GameSystem's retirement limit and index, and who retires where.

STF 12.1  An introduction (why admirals retire): nothing to adjudicate.
STF 12.2  The retirement limit: 50% of the GameSystem's starting commitment as the 1.5 table
          gives it (``campaign["commitment_table"]["system"]``, before 1.6; data/combat.json).
STF 12.3  The retirement index: the net VP of ships and subs sunk, plus 2 for each attack squadron
          of the GameSystem destroyed, those on sunk carriers included (``index``).
STF 12.4  Net VP: the GameSystem's losses less the Player's.
STF 12.5  In the Terminal Phase, while the index exceeds the limit, 1D6: on a 1 every GameSystem
          group retires (``GroupChanged retiring``), each towards its nearest base.
STF 12.6  Net losses (12.4's net VP) of 66% of that commitment: it retires on anything but a 6.
STF 12.7  A carrier with no combat aircraft left or an inoperable flight deck retires with its three
          best frigates (ASW, then AA, then the lowest SSM; DD, then CG, if fewer) and, if US, the
          fast supply ship; at the base the carrier leaves and the escorts go on as a SAG.
STF 12.8  A subron with no SSMs or torpedoes left retires.
STF 12.9  At its base a retiring group leaves the map (``GroupRemoved`` "retired": no VP).
STF 12.10-12.12  The bases of each map (data/bases.json, the campaign part's): a retiring group's
          ``destination`` is the nearest of its side's (a megahex base: any of its hexes);
          movement.py moves it there.
"""

from __future__ import annotations

import re
from typing import Any

from domain.rulesets.stf import air, campaign, composition, maps
from domain.rulesets.stf.combat import (C, attack_squadrons, distance, order_by, squadron_count, squadrons_lost,
                                        ssm_left, torpedoes_left, units_of, in_play)
from domain.rulesets.stf.events import CampaignFixed, GroupChanged, GroupPlaced, GroupRemoved, SystemActs, UnitChanged
from domain.rulesets.stf.forces import alive
from domain.rulesets.stf.rules import STEPS
from domain.rulesets.toolkit.engine import Ctx

R = C["retirement"]


# ---- STF 12.2-12.4: the limit and the index ------------------------------------------------------
def commitment(state: dict) -> int | None:
    """The GameSystem's starting commitment "given in the table at STF rule 1.5" (12.2): the table's
    value, before STF 1.6's Caribbean adjustment (a state without the table's value: the limit)."""
    camp = state["campaign"]
    value = (camp.get("commitment_table") or camp.get("commitment") or {}).get("system")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def limit(state: dict) -> float | None:
    """STF 12.2: half the starting commitment (45 gives 22.5: an index of 23 exceeds it)."""
    c = commitment(state)
    return None if c is None else c * R["limit_percent"] / 100


def _owner(state: dict, u: dict) -> str | None:
    g = state["groups"].get(u.get("group"))
    return g["owner"] if g else u.get("owner")


def net_vp(state: dict) -> int:
    """STF 12.4: the VP of GameSystem ships and subs sunk less those of the Player's."""
    total = 0
    for u in state["units"].values():
        if u.get("sunk"):
            owner = _owner(state, u)
            total += u.get("vp", 0) if owner == "system" else -u.get("vp", 0) if owner == "Player" else 0
    return total


def squadrons_destroyed(state: dict) -> int:
    """STF 12.3: the GameSystem's attack squadrons destroyed, those on its sunk carriers included."""
    n = 0
    for u in state["units"].values():
        if _owner(state, u) != "system":
            continue
        kinds = attack_squadrons(u)
        if u.get("sunk"):
            n += sum(squadron_count(u, k) for k in kinds)
        else:
            n += sum(squadrons_lost(u, k) for k in kinds)
        if u.get("destroyed") and (u.get("squadron") or u.get("class") == "squadron"):
            n += 1
    if air.GROUND["type"] in R["attack_kinds"]:  # the ground aviation squadrons of its airbase (STF 2.1)
        n += sum(len(rec.get("air_lost") or []) for rec in air.airbases(state).values() if rec.get("owner") == "system")
    return n


def index(state: dict) -> int:
    """STF 12.3: net VP plus 2 per attack squadron destroyed."""
    return net_vp(state) + R["squadron_points"] * squadrons_destroyed(state)


# ---- STF 12.10-12.12: where the bases are --------------------------------------------------------
def _side_key(side: str | None) -> str:
    """bases.json's side: "US" stands for US/NATO (STF 12.10-12.12), "Soviet" for Soviet/Cuban."""
    return "Soviet" if side == "Soviet" else "US"


def base_entries(state: dict, side: str | None) -> list[dict]:
    """The bases of ``side`` on the campaign's map (STF 12.10-12.12), each {"megahex": n} or
    {"place": name}: the campaign part's data/bases.json."""
    try:
        return campaign.retirement_bases(state["campaign"].get("map"), _side_key(side))
    except KeyError:
        return []


def bases(state: dict, side: str | None) -> list[list[str]]:
    """Each base of ``side`` as its hexes (``maps.place_hexes``): a named base's hex; every sea hex
    of a megahex base, which a retiring group reaches on entering the megahex (STF 12.9)."""
    map_name = state["campaign"].get("map")
    out: list[list[str]] = []
    for entry in base_entries(state, side):
        place = entry["megahex"] if entry.get("megahex") is not None else entry["place"]
        out.append(maps.place_hexes(map_name, place))
    return out


def base_hexes(state: dict, side: str | None) -> list[str]:
    """Every hex a retiring group of ``side`` may end on (STF 12.9)."""
    out: list[str] = []
    for hexes in bases(state, side):
        out += [h for h in hexes if h not in out]
    return out


def _system_side(state: dict) -> str | None:
    return state["campaign"].get("system_side")


def _by_sea(state: dict, here: str, base_hex: str) -> int | None:
    """Sea hexes from ``here`` to ``base_hex`` (movement.py's count, the way the group sails
    there); hexes as the crow flies when no sea route is known."""
    from domain.rulesets.stf import movement  # imported late: movement imports this module late too
    steps = movement.water_distances(state["campaign"].get("map"), [base_hex]).get(here)
    return steps if steps is not None else distance(state, here, base_hex)


def destination(ctx: Ctx, gid: str) -> str | None:
    """The nearest base of the GameSystem's side by sea (STF 12.5, 12.7, 12.8: the base the group
    then sails to, movement.py), as its hex nearest the group; between equally near bases, the
    one farthest from the Player's groups (12.5), then a die; within one base, its first such
    hex. None when no base is known."""
    state = ctx.state
    here = state["groups"][gid]["hex"]
    players = [g["hex"] for g in state["groups"].values() if g.get("owner") == "Player" and in_play(g)]

    def away(h: str) -> int:
        ds = [distance(state, h, p) for p in players]
        return min([d for d in ds if d is not None], default=0)
    items = []
    for hexes in bases(state, _system_side(state)):
        scored = [((-d, away(h)), h) for h in hexes for d in [_by_sea(state, here, h)] if d is not None]
        if scored:
            key = max(k for k, _ in scored)
            items.append({"id": next(h for k, h in scored if k == key), "key": key})
    if not items:
        return None
    return order_by(ctx, items, lambda i: i["key"], rule="STF 12.5", purpose=f"{gid}'s base", most=1)[0]["id"]


def retire(ctx: Ctx, gid: str, rule: str, why: str, **extra: Any) -> None:
    dest = destination(ctx, gid)
    ctx.emit(GroupChanged, group=gid, changes={"retiring": True, "destination": dest, **extra}, rule=rule,
             why=why + (f"; towards the base hex {dest}" if dest else "; towards its nearest base (no base known)"))


# ---- the Terminal Phase step ---------------------------------------------------------------------
def _system_groups(state: dict) -> list[str]:
    return [gid for gid, g in sorted(state["groups"].items()) if g.get("owner") == "system" and in_play(g)]


@STEPS.step("retirement")
def retirement(ctx: Ctx, stack: list) -> None:
    """STF 12.9 arrivals, then 12.5/12.6's roll, then 12.7's carriers and 12.8's subrons."""
    stack.pop()
    arrivals(ctx)
    general(ctx)
    carriers(ctx)
    subrons(ctx)


def arrivals(ctx: Ctx) -> None:
    """STF 12.9: each retiring group on a base hex of its side arrives (``arrive``)."""
    for gid in _system_groups(ctx.state):
        g = ctx.state["groups"][gid]
        if g.get("retiring") and g["hex"] in base_hexes(ctx.state, _system_side(ctx.state)):
            arrive(ctx, gid)


def arrive(ctx: Ctx, gid: str) -> None:
    """A retiring group has reached a base (movement.py may call this when it moves one there):
    STF 12.9, it leaves the map (not sunk: no VP); STF 12.7, a carrier's retiring group leaves
    only its carrier there, and the escorts go on as a SAG (unless the GameSystem retires whole)."""
    g = ctx.state["groups"][gid]
    cv = g.get("carrier_retiring")
    escorts = [u for u in g["units"] if u != cv and alive(ctx.state["units"].get(u, {}))]
    if cv and escorts and not ctx.state["campaign"].get("system_retiring"):  # none afloat: no SAG goes on
        ctx.emit(UnitChanged, unit=cv, changes={"retired": True}, rule="STF 12.7",
                 why=f"{cv} reached the base {g['hex']}: it leaves the task force")
        ctx.emit(GroupChanged, group=gid,
                 changes={"units": [u for u in g["units"] if u != cv], "retiring": False, "destination": None,
                          "carrier_retiring": None},
                 rule="STF 12.7", why="the escorts continue in the game as a SAG")
        return
    for u in units_of(ctx.state, gid):
        ctx.emit(UnitChanged, unit=u["id"], changes={"retired": True}, rule="STF 12.9",
                 why=f"{gid} reached the base {g['hex']}")
    ctx.emit(GroupRemoved, group=gid, status="retired", rule="STF 12.9",
             why=f"{gid} reached the base {g['hex']}: removed, not destroyed (no VP)")


def general(ctx: Ctx) -> None:
    """STF 12.5, 12.6: the index against the limit, and the die."""
    state = ctx.state
    if state["campaign"].get("system_retiring"):
        return
    c, lim, idx = commitment(state), limit(state), index(state)
    if lim is None or idx <= lim:
        return
    heavy = net_vp(state) * 100 >= c * R["heavy_losses_percent"]  # STF 12.6: net losses (12.4), not the index
    retire_on = list(R["heavy_retire_on"] if heavy else R["retire_on"])
    rule = "STF 12.6" if heavy else "STF 12.5"
    roll = ctx.roll(1, 6, seat="system", purpose="retirement", rule=rule,
                    target={"index": idx, "limit": lim, "retire_on": retire_on},
                    outcome=lambda v: "retire" if v[0] in retire_on else "fight on")
    detail = {"index": idx, "limit": lim, "net_vp": net_vp(state), "squadrons": squadrons_destroyed(state),
              "roll": roll.values[0], "retire_on": retire_on}
    why = (f"the retirement index {idx} exceeds the limit {lim:g}"
           + (f" and reaches {R['heavy_losses_percent']}% of the commitment {c}" if heavy else ""))
    if roll.values[0] not in retire_on:
        ctx.emit(SystemActs, what="retirement check", detail={**detail, "retire": False}, rule=rule,
                 why=why + f"; the die shows {roll.values[0]}: it fights on")
        return
    ctx.emit(SystemActs, what="retirement check", detail={**detail, "retire": True}, rule=rule,
             why=why + f"; the die shows {roll.values[0]}: every GameSystem unit retires")
    ctx.emit(CampaignFixed, key="system_retiring", value=state["turn"], rule=rule)
    for gid in _system_groups(ctx.state):
        if not ctx.state["groups"][gid].get("retiring"):
            retire(ctx, gid, rule, "the GameSystem retires")
        elif ctx.state["groups"][gid].get("carrier_retiring"):
            ctx.emit(GroupChanged, group=gid, changes={"carrier_retiring": None}, rule=rule,
                     why="the escorts retire with the rest")


def escorts(ctx: Ctx, gid: str, cv: str) -> list[str]:
    """STF 12.7: the three best frigates (highest ASW, then AA, then lowest SSM; a die between
    equals), DD then CG when fewer; a US carrier's fast supply ship besides."""
    ships = [u for u in units_of(ctx.state, gid, ships=True) if u["id"] != cv]
    chosen: list[str] = []
    for cls in R["escort_classes"]:
        need = R["escorts"] - len(chosen)
        if need <= 0:
            break
        pool = order_by(ctx, [u for u in ships if u.get("class") == cls],
                        lambda u: (u.get("asw", 0), u.get("aa", 0), -u.get("ssm", 0)),
                        rule="STF 12.7", purpose=f"{cv}'s best {cls} escorts", most=need)
        chosen += [u["id"] for u in pool[:need]]
    if ctx.state["units"][cv].get("nation") == "US":
        chosen += [u["id"] for u in ships if u.get("role") == "fast resupply"][:1]
    return chosen


def _next_tf(state: dict) -> str:
    numbers = [int(m.group(1)) for gid in state["groups"] for m in [re.fullmatch(r"TF(\d+)", gid)] if m]
    return f"TF{max(numbers, default=0) + 1}"


def carriers(ctx: Ctx) -> None:
    """STF 12.7: each carrier with no combat aircraft left, or an inoperable flight deck, retires
    (two such carriers in one task force both leave, each with its own escorts)."""
    for gid in _system_groups(ctx.state):
        while _retire_a_carrier(ctx, gid):
            pass


def _retire_a_carrier(ctx: Ctx, gid: str) -> bool:
    """The first carrier of ``gid`` that must retire leaves with its escorts as a new task force
    (True: ``gid`` goes on and may hold another), or takes the whole group with it (False)."""
    g = ctx.state["groups"][gid]
    if g.get("retiring"):
        return False
    for cv in [u for u in units_of(ctx.state, gid, ships=True) if u.get("class") == "CV"]:
        kinds = attack_squadrons(cv)
        no_air = bool(kinds) and all(squadrons_lost(cv, k) >= squadron_count(cv, k) for k in kinds)
        if not (no_air or cv.get("flight_deck_inoperable")):
            continue
        if not air.composition_drawn(ctx.state, gid) and g.get("intel") != "precise":
            # only the CV set aside for its strikes (10.8) is known: the three best frigates it takes
            # are chosen from the task force's ships, so they are drawn first, by 8.7's procedure
            # (as for its placement, 11.7, an air strike on it, 10.1, or an SSM hit, 11.1); the rest
            # of the task force goes on
            composition.reveal(ctx, gid, rule="STF 12.7", why=f"{cv['id']} must retire with the three best "
                                                              f"frigates of {gid}: its ships are drawn")
            return True  # looked at again with its ships known
        why = (f"{cv['id']} has " + ("no combat aircraft left" if no_air else "an inoperable flight deck")
               + ": it retires with its three best frigates")
        party = [cv["id"], *escorts(ctx, gid, cv["id"])]
        rest = [u for u in g["units"] if u not in party]
        if not [u for u in rest if alive(ctx.state["units"].get(u, {}))]:
            retire(ctx, gid, "STF 12.7", why, carrier_retiring=cv["id"])
            return False
        new = _next_tf(ctx.state)
        keep = {k: g[k] for k in ("intel", "chit", "size", "emcon", "nation", "mode") if k in g}
        ctx.emit(GroupChanged, group=gid, changes={"units": rest}, rule="STF 12.7",
                 why=f"{cv['id']} and its escorts leave {gid} as {new}")
        ctx.emit(GroupPlaced, group={"id": new, "owner": "system", "kind": "tf", "hex": g["hex"],
                                     "units": party, **keep, "retiring": False},
                 rule="STF 12.7")
        for uid in party:
            ctx.emit(UnitChanged, unit=uid, changes={"group": new}, rule="STF 12.7", why=f"retires with {cv['id']}")
        retire(ctx, new, "STF 12.7", why, carrier_retiring=cv["id"])
        return True
    return False


def subrons(ctx: Ctx) -> None:
    """STF 12.8: a subron whose subs have no SSMs and no torpedoes left retires."""
    for gid in _system_groups(ctx.state):
        g = ctx.state["groups"][gid]
        subs = units_of(ctx.state, gid, ships=False)
        if g.get("kind") != "subron" or g.get("retiring") or not subs:
            continue
        if all(ssm_left(u) == 0 and torpedoes_left(u) == 0 for u in subs):
            retire(ctx, gid, "STF 12.8", f"{gid} has no SSMs or torpedoes left")
