"""Combat (STF 11): the base game's results the Player reports, and the GameSystem's doctrine.

STF amends Task Force, whose combat procedure is not in the text: the Player fights every combat
with the base game and reports its results (``report``: ships sunk, hits, squadrons destroyed,
airbase hits, flight decks made inoperable, loads spent), which the server records and scores.
What STF decides the server decides, and records as ``SystemActs`` for the Player to carry out;
where a decision needs what only the base game knows (screening, adjacency on the tactical
display) the decision is an ordered list the Player applies (the first unscreened ship of it).

STF 1.12  A GameSystem task force withdrawing (its carriers short of escorts) engages in no SSM,
          gunnery or torpedo combat ("however it may continue to conduct air operations"), but
          for 7.11's Last Ditch Defence (``_near``; ``SystemActs`` "no surface combat").
STF 11.1  Long-range SSMs only at Accurate or Precise targets (``ssm`` order); an Accurate
          target's one-off AA 3, jamming 3 and close defence 4 (data/combat.json); a hit makes it
          Precise and its hits fall at random (a die per hit). The GameSystem fires long-range
          SSMs only when its own group is Precise (``engagements``).
STF 11.2  The GameSystem's SSMs: every one it can, in waves of 10 at a Player CV in range; else 4
          per Player ship, up to half its complement, in waves of 6 at Freighters, BB, CG, DD, FF,
          PC in that order (step ``ssm_salvo``, one wave at a time, each wave's results reported
          before the next is aimed); the entry sector of each wave by 1D6.
STF 11.3  Gunnery only with as many ships or more with the heaviest guns either side has; all
          fire at the unscreened ship of highest VP, invasion freighters before CG, same-value
          ties by a die; rounds go on while the condition holds (step ``gunnery``).
STF 11.4  A task force defending against a Player invasion in the objective megahex or a megahex
          next to it: gunnery and torpedo rounds as long as the base game allows (a subron's
          torpedo attack stays one a Combat phase: 11.4 names a task force); against a Player task
          force with an invasion freighter in the objective megahex, four rounds of gunnery
          (STF 7.11's Last Ditch Defence, ``last_ditch_engagement``).
STF 11.5  Subs placed in the entry areas by die, one sub to an area (step ``torpedo``).
STF 11.6  A sub with one floatation point left attacks the highest value ship adjacent to it;
          the others first move next to the highest value ship.
STF 11.7  Placement on the tactical display: highest value in the centre ring, then clockwise
          from the top left of each next ring, every second location on ring 4 (``placement``).
STF 11.8  For placement a freighter ranks above a CG of equal VP.
"""

from __future__ import annotations

from math import floor
from typing import Any

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import air, composition, forces, maps
from domain.rulesets.stf.events import GroupChanged, GroupRemoved, SystemActs, UnitChanged
from domain.rulesets.stf.forces import alive
from domain.rulesets.stf.rules import DATA, STEPS, kind
from domain.rulesets.toolkit.data import check_fields, freeze
from domain.rulesets.toolkit.engine import Ctx, need

FILE = "combat.json"
SUBS = ("SSN", "SS")
RESULTS_RULE = "STF 11.1"
STANDS_FOR = "Task Force's combat procedure (SSM, gunnery, torpedo and air combat results), not in the text"
REPORT_FIELDS = ("sunk", "hits", "squadrons_destroyed", "squadron_damage", "airbase_hits", "flight_deck_inoperable",
                 "spent")


# ---- data/combat.json ----------------------------------------------------------------------------
SCHEMA = {
    "long_range_ssm": {"rule": str, "target_intel": list, "accurate_defence": dict, "system_fires_only_when": str,
                       "short_range_hexes": int, "long_range_hexes": int},
    "ssm": {"rule": str, "cv_wave": int, "wave": int, "per_ship": int, "complement_share": list,
            "target_order": list, "unlisted_after": dict, "entry_sector_die": int},
    "gunnery": {"rule": str, "levels": list, "last_ditch_rounds": int},
    "subs": {"rule": str, "entry_areas": int, "one_per_area": bool, "attack_at_floatation": int},
    "placement": {"rule": str, "rings": list, "first_location": str, "direction": str, "rank_above": dict},
    "retirement": {"rule": str, "limit_percent": int, "squadron_points": int, "attack_kinds": list,
                   "retire_on": list, "heavy_losses_percent": int, "heavy_retire_on": list, "escorts": int,
                   "escort_classes": list},
}


def load(name: str = FILE) -> Any:
    """data/combat.json checked entry by entry (its guesses listed with the ruleset's others)."""
    doc = DATA.read(name)
    check_fields(name, "(file)", doc, {"title": str, "source": str, **{k: dict for k in SCHEMA}})
    for key, schema in SCHEMA.items():
        DATA.check_entry(name, key, doc[key], {**schema, "source": str, "provisional": list},
                         optional=("provisional",))
    return freeze(doc)


C = load()


# ---- reading the state ---------------------------------------------------------------------------
def units_of(state: dict, gid: str, *, ships: bool | None = None) -> list[dict]:
    """The units of group ``gid`` still in play, in the group's order (``ships``: only surface
    ships, or only subs)."""
    out = []
    for uid in state["groups"][gid].get("units", []):
        u = state["units"].get(uid)
        if u is None or not alive(u):
            continue
        if ships is not None and (u.get("class") not in SUBS) != ships:
            continue
        out.append({**u, "id": uid})
    return out


def in_play(group: dict) -> bool:
    return group.get("status", "on map") == "on map" and group.get("hex") is not None


def ssm_left(u: dict) -> int:
    """Missiles a unit still carries: its loads (``ssm`` a load, ``ssm_loads`` loads) less those spent."""
    return u.get("ssm_left", ssm_complement(u))


def ssm_complement(u: dict) -> int:
    """A unit's SSM complement: its full load, ``ssm`` a load times its (x n) loads (13.7 calls the
    "(x 2)" the "SSM complement"); firing does not shrink it."""
    return u.get("ssm", 0) * max(u.get("ssm_loads", 1), 0)


def ssm_ready(u: dict) -> int:
    """Missiles a unit can fire in one combat: one load, as far as it has missiles left."""
    return min(u.get("ssm", 0), ssm_left(u))


def torpedoes_left(u: dict) -> int:
    return u.get("torpedoes_left", u.get("torpedoes", 0))


def floatation_left(u: dict) -> int | None:
    f = u.get("flotation")
    return None if f is None else f - u.get("hits", 0)


def is_invasion_freighter(u: dict) -> bool:
    return u.get("class") == "FR" and u.get("role") == "invasion"


def distance(state: dict, a: str, b: str) -> int:
    """Hexes from ``a`` to ``b`` on the campaign's map (movement's maps.distance)."""
    return 0 if a == b else maps.distance(state["campaign"].get("map"), a, b)


# ---- dice for true ties --------------------------------------------------------------------------
def order_by(ctx: Ctx, items: list[dict], key, *, rule: str, purpose: str, most: int | None = None) -> list[dict]:
    """``items`` by ``key`` (highest first); among items of the same key, the order is drawn by
    dice (a d<k> picks the next of k tied items): the text's 'resolve at random'. ``most``: only
    which items take the first ``most`` places is wanted (one pick: 1; 12.7's three escorts: 3),
    so no die is rolled past them, nor for tied items that all take wanted places (three equal
    frigates for three places); those follow unordered among themselves (a die whose outcome
    nothing uses is not rolled). Without ``most`` the whole order is wanted."""
    items = sorted(items, key=key, reverse=True)
    whole = most is None
    most = len(items) if most is None else most
    out: list[dict] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and key(items[j]) == key(items[i]):
            j += 1
        tied = items[i:j]
        while len(tied) > 1 and len(out) < most and (whole or len(out) + len(tied) > most):
            names = [t["id"] for t in tied]
            r = ctx.roll(1, len(tied), seat="system", purpose=f"{purpose}: which of {', '.join(names)} (a tie)",
                         rule=rule, target={"tied": names}, outcome=lambda v, n=names: n[v[0] - 1])
            out.append(tied.pop(r.values[0] - 1))
        out += tied
        i = j
    return out


# ---- the Player's report of the base game's results ----------------------------------------------
def _unit_in_play(state: dict, uid: Any, field: str) -> dict:
    if not isinstance(uid, str):
        raise InvalidOrder(f"'{field}' names units by their ids", rule=RESULTS_RULE, field=field)
    u = state["units"].get(uid)
    if u is None:
        named = sorted(i for i, x in state["units"].items() if str(x.get("name", "")).casefold() == uid.casefold())
        if named:  # the ship's name, as every line of the history gives it: say its id
            raise RuleViolation(RESULTS_RULE, f"a report names units by id, not by name: {uid} is "
                                              f"{' or '.join(named)}")
        raise RuleViolation(RESULTS_RULE, f"{uid} is no unit of this game: a report names units in play")
    if not alive(u):
        raise RuleViolation(RESULTS_RULE, f"{uid} is not in play (sunk, destroyed or retired): a report "
                                          "names units in play")
    gid = u.get("group")
    if gid is not None and not in_play(state["groups"].get(gid, {})):
        raise RuleViolation(RESULTS_RULE, f"{uid}'s group {gid} is not on the map: a report names units in play")
    return u


def _count(value: Any, field: str, *, least: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InvalidOrder(f"'{field}' gives whole numbers of {least} or more", rule=RESULTS_RULE, field=field)
    return value


def _unit_list(payload: dict, field: str) -> list:
    value = payload.get(field)
    value = [] if value is None else value
    if not isinstance(value, list) or len(set(map(str, value))) != len(value):
        raise InvalidOrder(f"'{field}' is a list of unit ids, each once", rule=RESULTS_RULE, field=field)
    return value


def _map(payload: dict, field: str) -> dict:
    value = payload.get(field)
    value = {} if value is None else value
    if not isinstance(value, dict):
        raise InvalidOrder(f"'{field}' is an object keyed by id", rule=RESULTS_RULE, field=field)
    return value


def squadron_count(u: dict, kind_: str) -> int:
    """How many squadrons of ``kind_`` a carrier carries, as air.squadrons counts them: its ``air``
    strength is one squadron, a list of strengths several, and the Invincible's doubled AV8
    (``extra_av8``, STF 13.3) two squadrons of its AV8's kind (``forces.AV8_KIND``)."""
    value = (u.get("air") or {}).get(kind_)
    strengths = value if isinstance(value, list) else [value or 0]
    if u.get("extra_av8") and kind_ == forces.AV8_KIND and len(strengths) == 1 and strengths[0]:
        strengths = [strengths[0] // 2, strengths[0] - strengths[0] // 2]
    return sum(1 for n in strengths if isinstance(n, int) and n > 0)


def squadrons_lost(u: dict, kind_: str) -> int:
    """How many of a carrier's ``kind_`` squadrons are destroyed (its ``air_lost`` names each once)."""
    lost = [e for e in (u.get("air_lost") or []) if e.rstrip("0123456789") == kind_]
    return min(len(lost), squadron_count(u, kind_))


def attack_squadrons(u: dict) -> list[str]:
    """The kinds of combat squadron a carrier carries (STF 12.3, 12.7: L, M, H of its ``air``)."""
    return [k for k in C["retirement"]["attack_kinds"] if squadron_count(u, k)]


def _squadron(state: dict, name: Any) -> tuple[str, str | None]:
    """A squadron named ``"<carrier>:<kind>"`` (a carrier's squadron of that kind; ``<kind><n>``
    one of several, as air.squadrons names them) or by the unit id of a squadron unit: (unit id,
    what its ``air_lost`` records: the kind, or the numbered name of one of several; or None)."""
    if not isinstance(name, str):
        raise InvalidOrder("'squadrons_destroyed' names squadrons as '<carrier id>:<kind>' or unit ids",
                           rule=RESULTS_RULE, field="squadrons_destroyed")
    uid, _, kind_ = name.partition(":")
    if uid in air.airbases(state) and uid not in state["units"]:
        return _ground_squadron(state, name, uid)
    u = _unit_in_play(state, uid, "squadrons_destroyed")
    if not kind_:
        if u.get("class") not in (None, "squadron") and not u.get("squadron"):
            raise RuleViolation(RESULTS_RULE, f"{uid} is a ship, not a squadron: name a carrier's squadron "
                                              "as '<carrier id>:<kind>'")
        return uid, None
    label, kind_ = kind_, kind_.rstrip("0123456789") or kind_  # "<carrier>:M2", as air.squadrons names a second one
    count = squadron_count(u, kind_) if kind_ in (u.get("air") or {}) else 0
    if count <= 0:
        aircraft = u.get("aircraft") or {}
        carried = [f"{sid} ({aircraft[typ]})" if aircraft.get(typ) else sid
                   for sid, typ, _ in air.carrier_squadrons({**u, "air_lost": []}, uid)]
        raise RuleViolation(RESULTS_RULE, f"{uid} carries no {label} squadron: its squadrons are "
                                          f"{', '.join(carried) or 'none'} ('<carrier id>:<kind>')")
    if squadrons_lost(u, kind_) >= count:
        raise RuleViolation(RESULTS_RULE, f"{uid}'s {kind_} squadron{'s are' if count > 1 else ' is'} already destroyed")
    if label != kind_ and count > 1:  # one of several, by name: that one (STF 13.3's two AV8s)
        if name not in [sid for sid, _, _ in air.carrier_squadrons({**u, "air_lost": []}, uid)]:
            raise RuleViolation(RESULTS_RULE, f"{uid} has no squadron {name}")
        if name not in [sid for sid, _, _ in air.carrier_squadrons(u, uid)]:
            raise RuleViolation(RESULTS_RULE, f"{name} is already destroyed")
        return uid, label
    return uid, kind_


def _ground_squadron(state: dict, name: str, base: str) -> tuple[str, str | None]:
    """A ground aviation squadron (STF 2.1) of the GameSystem's airbase, named as air.squadrons
    names it ("<airbase>:M1"): (airbase, squadron id). The Player's own are the base game's."""
    if air.airbases(state)[base].get("owner") != "system":
        raise RuleViolation(RESULTS_RULE, f"{base} is not the GameSystem's airbase: only its ground aviation "
                                          "squadrons are recorded")
    flying = [s["id"] for s in air.squadrons(state, base)]
    if name not in flying:
        raise RuleViolation(RESULTS_RULE, f"{base} has no squadron {name} left "
                                          f"({', '.join(flying) or 'none'})")
    return base, name


def _squadron_damage(state: dict, name: Any, n: int) -> int:
    """STF 13.11's permanent damage: ``n`` more points on squadron ``name`` (as air.squadrons names
    it: a carrier's "<carrier>:<kind>", the GameSystem airbase's "<airbase>:M1"), checked; returns
    ``n``. Damage that leaves it no strength is refused: that squadron is destroyed (STF 12.3)."""
    owner = name.partition(":")[0] if isinstance(name, str) else None
    if owner in air.airbases(state) and owner not in state["units"]:
        _ground_squadron(state, name, owner)
    elif owner is not None:
        _unit_in_play(state, owner, "squadron_damage")
    flying = {s["id"]: s for s in air.squadrons(state, owner)} if owner is not None else {}
    if name not in flying:
        raise RuleViolation("STF 13.11", f"{name!r} is no squadron left in play "
                                         f"({', '.join(flying) or 'none'} on {owner}): name it as '<carrier>:<kind>'")
    sq = flying[name]
    if n >= sq["left"]:
        raise RuleViolation("STF 12.3", f"{name} has {sq['left']} strength left: {n} points of damage destroy it; "
                                        "name it in squadrons_destroyed")
    return n


def check_report(state: dict, payload: Any) -> dict:
    """The report, checked: every unit named is in play (else refused naming STF 11.1)."""
    if not isinstance(payload, dict):
        raise InvalidOrder("a report is an object of results", rule=RESULTS_RULE)
    unknown = [k for k in payload if k not in (*REPORT_FIELDS, "kind", "title", "rule")]  # a template's words
    if unknown:
        raise InvalidOrder(f"a report gives {', '.join(REPORT_FIELDS)}; not {', '.join(map(str, unknown))}",
                           rule=RESULTS_RULE, field=unknown[0])
    out: dict = {}
    out["sunk"] = [u for u in _unit_list(payload, "sunk") if _unit_in_play(state, u, "sunk")]
    out["hits"] = {u: _count(n, "hits") for u, n in _map(payload, "hits").items()
                   if _unit_in_play(state, u, "hits")}
    squadrons = _unit_list(payload, "squadrons_destroyed")
    named: list[tuple[str, str | None]] = []
    for name in squadrons:
        uid, kind_ = _squadron(state, name)
        if uid not in state["units"]:  # a ground aviation squadron of the GameSystem's airbase
            named.append((uid, kind_))
            continue
        typ = kind_.rstrip("0123456789") if kind_ else None  # "M2" is one of the M squadrons
        earlier = sum(1 for u2, k in named if u2 == uid and k and k.rstrip("0123456789") == typ)
        u = state["units"][uid]
        if typ and ((uid, kind_) in named or earlier + squadrons_lost(u, typ) >= squadron_count(u, typ)):
            raise RuleViolation(RESULTS_RULE, f"{uid} carries no other {typ} squadron to lose")
        named.append((uid, kind_))
    out["squadrons_destroyed"] = [kind_ if uid not in state["units"] else f"{uid}:{kind_}" if kind_ else uid
                                  for uid, kind_ in named]
    out["squadron_damage"] = {}
    for name, n in _map(payload, "squadron_damage").items():
        out["squadron_damage"][name] = _squadron_damage(state, name, _count(n, "squadron_damage"))
    out["flight_deck_inoperable"] = []
    for uid in _unit_list(payload, "flight_deck_inoperable"):
        if _unit_in_play(state, uid, "flight_deck_inoperable").get("class") != "CV":
            raise RuleViolation("STF 12.7", f"{uid} is not a carrier: only a CV has a flight deck")
        out["flight_deck_inoperable"].append(uid)
    known = set(air.airbases(state))
    out["airbase_hits"] = {}
    for name, n in _map(payload, "airbase_hits").items():
        if name not in known:
            raise RuleViolation("STF 9.4", f"{name} is no airbase of this game ({', '.join(sorted(known)) or 'none'})")
        out["airbase_hits"][name] = _count(n, "airbase_hits")
    out["spent"] = {}
    for uid, loads in _map(payload, "spent").items():
        u = _unit_in_play(state, uid, "spent")
        if not isinstance(loads, dict) or set(loads) - {"ssm", "torpedoes"}:
            raise InvalidOrder("'spent' gives {unit: {\"ssm\": n, \"torpedoes\": n}}", rule=RESULTS_RULE, field="spent")
        ssm, torp = _count(loads.get("ssm", 0), "spent", least=0), _count(loads.get("torpedoes", 0), "spent", least=0)
        if ssm > ssm_left(u) or torp > torpedoes_left(u):
            raise RuleViolation(RESULTS_RULE, f"{uid} has {ssm_left(u)} SSM and {torpedoes_left(u)} torpedoes left, "
                                              f"not {ssm} and {torp} to spend")
        out["spent"][uid] = {"ssm": ssm, "torpedoes": torp}
    return out


def apply_report(ctx: Ctx, report: dict, *, decision: str | None = None, why: str = "",
                 rule: str = RESULTS_RULE) -> None:
    """Record a checked report: ResultDeclared, then each unit's change and the VP of each sinking
    (a GameSystem unit's ``vp`` on the Player's track, a Player unit's on the GameSystem's).
    ``rule``: the rule of the question it answers (an SSM wave's STF 11.2, a gunnery round's
    11.3, a torpedo attack's 11.6), else the report order's."""
    value = {k: report[k] for k in REPORT_FIELDS if report.get(k)}
    ctx.emit(ev.ResultDeclared, seat="Player", rule=rule, stands_for=STANDS_FOR, what="combat results",
             value=value, decision=decision)
    why = why or "the Player's report of the base game's results"
    for uid, n in report["hits"].items():
        ctx.emit(UnitChanged, unit=uid, changes={"hits": ctx.state["units"][uid].get("hits", 0) + n},
                 rule=RESULTS_RULE, why=why)
    for uid, loads in report["spent"].items():
        u = ctx.state["units"][uid]
        changes = {}
        if loads["ssm"]:
            changes["ssm_left"] = ssm_left(u) - loads["ssm"]
        if loads["torpedoes"]:
            changes["torpedoes_left"] = torpedoes_left(u) - loads["torpedoes"]
        if changes:
            ctx.emit(UnitChanged, unit=uid, changes=changes, rule=RESULTS_RULE, why=why)
    for name in report["squadrons_destroyed"]:
        uid, kind_ = name.partition(":")[0], name.partition(":")[2]
        if uid not in ctx.state["units"]:  # the GameSystem airbase's ground aviation squadron
            lost = [*(air.airbases(ctx.state)[uid].get("air_lost") or []), name]
            ctx.emit(air.AirbaseChanged, name=uid, changes={"owner": "system", "air_lost": lost}, rule="STF 12.3",
                     why=why + f": {name} destroyed")
        elif kind_:
            lost = [*ctx.state["units"][uid].get("air_lost", []), kind_]
            ctx.emit(UnitChanged, unit=uid, changes={"air_lost": lost}, rule="STF 12.3", why=why)
        else:
            ctx.emit(UnitChanged, unit=uid, changes={"destroyed": True}, rule="STF 12.3", why=why)
    for name, n in report.get("squadron_damage", {}).items():  # damage adds up (permanent)
        owner = name.partition(":")[0]
        if owner in ctx.state["units"]:
            had = ctx.state["units"][owner].get("air_damage") or {}
            total = {**had, name: had.get(name, 0) + n}
            ctx.emit(UnitChanged, unit=owner, changes={"air_damage": total}, rule="STF 13.11", why=why)
        else:  # the GameSystem airbase's ground aviation squadron
            had = air.airbases(ctx.state)[owner].get("air_damage") or {}
            total = {**had, name: had.get(name, 0) + n}
            ctx.emit(air.AirbaseChanged, name=owner, changes={"owner": "system", "air_damage": total},
                     rule="STF 13.11", why=why + f": {name} damaged")
    for uid in report["flight_deck_inoperable"]:
        ctx.emit(UnitChanged, unit=uid, changes={"flight_deck_inoperable": True}, rule="STF 12.7", why=why)
    for uid in report["sunk"]:
        sink(ctx, uid, why, rule)
    for name, n in report["airbase_hits"].items():
        air.hit_airbase(ctx, name, n, "STF 9.4")


def sink(ctx: Ctx, uid: str, why: str, rule: str = RESULTS_RULE) -> None:
    """A unit is sunk: its VP go on the other side's track (STF 12.4); a group with nothing left
    in play leaves the map."""
    u = ctx.state["units"][uid]
    ctx.emit(UnitChanged, unit=uid, changes={"sunk": True}, rule=rule, why=why)
    gid = u.get("group")
    owner = ctx.state["groups"][gid]["owner"] if gid in ctx.state["groups"] else u.get("owner")
    track = "Player" if owner == "system" else "system"
    ctx.vp(track, u.get("vp", 0), f"{u.get('name', uid)} ({u.get('class')}) sunk", "STF 12.4")
    if gid in ctx.state["groups"] and not units_of(ctx.state, gid):
        ctx.emit(GroupRemoved, group=gid, status="sunk", rule=rule,
                 why=f"every unit of {gid} is sunk or gone")


REPORT_HELP = ("the base game's results (STF amends Task Force, whose combat is not in the text): "
               "'sunk', 'squadrons_destroyed' ('<carrier>:<kind>'), 'squadron_damage' {squadron: points of "
               "permanent damage}, 'hits' {unit: n}, 'airbase_hits' {name: n}, "
               "'flight_deck_inoperable', 'spent' {unit: {ssm, torpedoes}}")


@kind("report", rule=RESULTS_RULE, help=REPORT_HELP, phases=("Strike", "Combat", "Terminal"),
      templates=lambda state: [{"kind": "report", "sunk": []}],
      fields={f: "optional, see help" for f in REPORT_FIELDS})
def report(ctx: Ctx, order: dict) -> None:
    apply_report(ctx, check_report(ctx.state, {k: v for k, v in order.items() if k != "kind"}))


# ---- STF 11.1: the Player's long-range SSMs -------------------------------------------------------
def _ssm_templates(state: dict) -> list[dict]:
    return [{"kind": "ssm", "target": gid, "hits": 0} for gid, g in state["groups"].items()
            if g.get("owner") == "system" and in_play(g) and g.get("intel") in C["long_range_ssm"]["target_intel"]]


@kind("ssm", rule="STF 11.1", phases=("Combat",), templates=_ssm_templates,
      help="long-range SSMs at an Accurate or Precise GameSystem group: 'target', 'hits' (at an Accurate target, "
           "resolved against its one-off AA 3, jamming 3 and close defence 4), 'spent' {unit: n}",
      fields={"target": "the GameSystem group", "hits": "optional (default 0): hits scored (Accurate target)",
              "spent": "optional: missiles fired {unit: n}"})
def ssm(ctx: Ctx, order: dict) -> None:
    state = ctx.state
    rule = "STF 11.1"
    gid = order.get("target")
    g = state["groups"].get(gid) if isinstance(gid, str) else None
    if g is None or g.get("owner") != "system" or not in_play(g):
        raise InvalidOrder("'target' is a GameSystem group on the map", rule=rule, field="target")
    intel = g.get("intel")
    need(intel in C["long_range_ssm"]["target_intel"], rule,
         f"long-range SSMs are fired only at Accurate or Precise targets; {gid} is {intel or 'unknown'}")
    hits = _count(order.get("hits", 0), "hits", least=0)
    spent = _map(order, "spent")
    for uid, n in spent.items():
        u = _unit_in_play(state, uid, "spent")
        need(state["groups"].get(u.get("group"), {}).get("owner") == "Player", rule, f"{uid} is not the Player's")
        _count(n, "spent")
        need(n <= ssm_left(u), rule, f"{uid} has {ssm_left(u)} SSM left, not {n}")
    # a hit is a missile that hit: no more hits than the missiles fired (or, none stated, than the
    # Player's ships in play carry), which also bounds the dice of the hits placed at random
    fired = sum(spent.values()) if spent else sum(
        ssm_left(u) for g2 in state["groups"].values() if g2.get("owner") == "Player" and in_play(g2)
        for u in units_of(state, g2["id"]))
    need(hits <= fired, rule, f"{hits} hits from {fired} missiles: each hit is a missile that hit")
    if intel == "precise" and hits:
        raise InvalidOrder(f"{gid} is Precise: its hits fall where the base game puts them; report them on the "
                           "units hit with a 'report' order (only an Accurate target's hits fall at random)",
                           rule=rule, field="hits")
    ctx.emit(ev.ResultDeclared, seat="Player", rule=rule, stands_for=STANDS_FOR, what="long-range SSM hits",
             value={"target": gid, "hits": hits, "spent": dict(spent)}, decision=None)
    for uid, n in spent.items():
        ctx.emit(UnitChanged, unit=uid, changes={"ssm_left": ssm_left(ctx.state["units"][uid]) - n}, rule=rule,
                 why="missiles fired")
    if intel != "accurate":
        return
    ctx.emit(SystemActs, what="one-off SSM defence", detail={"group": gid, **C["long_range_ssm"]["accurate_defence"]},
             rule=rule, why="an Accurate target defends once with AA 3, jamming 3 and close defence 4")
    if not hits:
        return
    if not air.composition_drawn(ctx.state, gid):  # its composition is drawn now (STF 8.7)
        composition.reveal(ctx, gid, rule=rule, why=f"a long-range SSM hit on {gid}")
    if ctx.state["groups"][gid].get("intel") != "precise":
        ctx.emit(GroupChanged, group=gid, changes={"intel": "precise"}, rule=rule,
                 why="a long-range SSM hit makes the target Precise at once")
    place_hits_at_random(ctx, gid, hits, rule)


def place_hits_at_random(ctx: Ctx, gid: str, hits: int, rule: str) -> None:
    """Each hit on a unit of ``gid`` drawn by a die (a d<n> over its n units in play, in the
    group's order); the Player applies them with the base game and reports what sinks."""
    placed: dict[str, int] = {}
    for i in range(hits):
        targets = units_of(ctx.state, gid)
        if not targets:
            break
        names = [u["id"] for u in targets]
        if len(names) == 1:
            uid = names[0]  # one unit: no die
        else:
            r = ctx.roll(1, len(names), seat="Player", purpose=f"hit {i + 1} of {hits} on {gid}: which unit",
                         rule=rule, target={"units": names}, outcome=lambda v, n=names: n[v[0] - 1])
            uid = names[r.values[0] - 1]
        placed[uid] = placed.get(uid, 0) + 1
        ctx.emit(UnitChanged, unit=uid, changes={"hits": ctx.state["units"][uid].get("hits", 0) + 1}, rule=rule,
                 why="hits on an Accurate target are recorded at random")
    unplaced = hits - sum(placed.values())
    ctx.emit(SystemActs, what="hits placed", detail={"group": gid, "hits": placed, "unplaced": unplaced}, rule=rule,
             why="apply these hits with the base game and report what sinks"
                 + ("; the group's units are not known yet: place the rest when they are" if unplaced else ""))


# ---- value and target order ----------------------------------------------------------------------
def placement_key(u: dict):
    """STF 11.7/11.8: by VP, a freighter above a CG (any class named in ``rank_above``) of equal VP."""
    above = C["placement"]["rank_above"]
    return (u.get("vp", 0), 1 if u.get("class") in above else 0)


def ssm_class_order() -> list[str]:
    order = list(C["ssm"]["target_order"])
    for cls, after in C["ssm"]["unlisted_after"].items():
        order.insert(order.index(after) + 1, cls)
    return order


def gunnery_key(ships: list[dict]):
    """STF 11.3: highest VP, but an invasion freighter before every CG (it takes the rank of the
    best CG there when that is higher, and goes first among equals)."""
    best_cg = max([s.get("vp", 0) for s in ships if s.get("class") == "CG"], default=0)

    def key(u: dict):
        if is_invasion_freighter(u):
            return (max(u.get("vp", 0), best_cg), 1)
        return (u.get("vp", 0), 0)
    return key


# ---- STF 11.7, 11.8: placement on the tactical display -------------------------------------------
def locations(n: int) -> list[dict]:
    """The first ``n`` locations the GameSystem fills: ring by ring from the centre, each ring from
    its top-left location clockwise, ring 4 every second location."""
    out = []
    for ring in C["placement"]["rings"]:
        for pos in range(1, ring["locations"] + 1, ring["step"]):
            out.append({"ring": ring["ring"], "position": pos})
    return out[:n]


def place(ctx: Ctx, gid: str, rule: str = "STF 11.7") -> None:
    ships = order_by(ctx, units_of(ctx.state, gid, ships=True), placement_key, rule=rule,
                     purpose=f"placing {gid} on the tactical display")
    spots = locations(len(ships))
    detail = {"group": gid, "first_location": C["placement"]["first_location"],
              "direction": C["placement"]["direction"],
              "ships": [{"unit": s["id"], **spot} for s, spot in zip(ships, spots)],
              "no_location": [s["id"] for s in ships[len(spots):]]}
    ctx.emit(SystemActs, what="placement", detail=detail, rule=rule,
             why="highest value in the centre ring, then from the top left of each next ring clockwise, every "
                 "second location on ring 4; freighters above CG (STF 11.8)")


@kind("placement", rule="STF 11.7", phases=("Strike", "Combat"),
      templates=lambda state: [{"kind": "placement", "group": gid} for gid, g in state["groups"].items()
                               if g.get("owner") == "system" and in_play(g) and units_of(state, gid, ships=True)],
      help="call on the GameSystem to place a group's ships on the tactical display",
      fields={"group": "the GameSystem group"})
def placement(ctx: Ctx, order: dict) -> None:
    gid = order.get("group")
    g = ctx.state["groups"].get(gid) if isinstance(gid, str) else None
    if g is None or g.get("owner") != "system" or not in_play(g):
        raise InvalidOrder("'group' is a GameSystem group on the map", rule="STF 11.7", field="group")
    need(bool(units_of(ctx.state, gid, ships=True)), "STF 11.7", f"{gid} has no ships known to place")
    if not air.composition_drawn(ctx.state, gid):
        # only the CV set aside for its strike (10.8) is known: its ships are drawn first, by 8.7's
        # procedure, as for the Player's air strike on it (11.7) and an SSM hit (11.1)
        composition.reveal(ctx, gid, rule="STF 11.7", why=f"{gid}'s ships are placed on the tactical display")
    place(ctx, gid)


# ---- the GameSystem's surface combat -------------------------------------------------------------
def _value(state: dict, gid: str) -> int:
    return sum(u.get("vp", 0) for u in units_of(state, gid))


def _has_cv(state: dict, gid: str) -> bool:
    return any(u.get("class") == "CV" for u in units_of(state, gid, ships=True))


def _pick_group(ctx: Ctx, gid: str, candidates: list[tuple[int, str]], rule: str, purpose: str) -> str:
    """The nearest of ``candidates`` ((distance, group)); then the most VP; then a die."""
    items = [{"id": p, "key": (-d, _value(ctx.state, p))} for d, p in candidates]
    return order_by(ctx, items, lambda i: i["key"], rule=rule, purpose=purpose, most=1)[0]["id"]


def _players(state: dict, gid: str) -> list[tuple[int, str]]:
    """(distance, group) of each Player task force with ships in play, from GameSystem group ``gid``."""
    g = state["groups"][gid]
    players = [pid for pid, p in state["groups"].items()
               if p.get("owner") == "Player" and p.get("kind", "tf") == "tf" and in_play(p)
               and units_of(state, pid, ships=True)]
    near = [(distance(state, g["hex"], state["groups"][pid]["hex"]), pid) for pid in players]
    return [(d, pid) for d, pid in near if d is not None]


def _near(state: dict, gid: str) -> list[tuple[int, str]]:
    """The Player task forces (``_players``) GameSystem group ``gid`` may engage: every one, but a
    task force withdrawing by STF 1.12 engages none, except those STF 7.11's Last Ditch Defence
    sends it to ("will ignore all other movement rules ... and engage that task force")."""
    near = _players(state, gid)
    if forces.system_withdrawal(state, gid):
        near = [(d, pid) for d, pid in near if last_ditch_engagement(state, pid)]
    return near


def _withdraws_from(ctx: Ctx, gid: str) -> None:
    """STF 1.12: a GameSystem task force withdrawing with Player task forces in its reach records
    that it engages them in no surface combat (its air operations go on)."""
    state = ctx.state
    short = forces.system_withdrawal(state, gid)
    if not short:
        return
    if sum(ssm_ready(u) for u in units_of(state, gid)):
        reach = ssm_reach(state["groups"][gid])
    elif units_of(state, gid, ships=True) or any(torpedoes_left(u) for u in units_of(state, gid, ships=False)):
        reach = 0
    else:
        return
    spared = sorted(pid for d, pid in _players(state, gid) if d <= reach and not last_ditch_engagement(state, pid))
    if spared:
        ctx.emit(SystemActs, what="no surface combat", detail={"group": gid, "in_range": spared}, rule="STF 1.12",
                 why=f"{gid}: {short}: it withdraws toward the nearest friendly base and engages in no SSM, "
                     f"gunnery or torpedo combat (\"however it may continue to conduct air operations\")")


def ssm_reach(group: dict) -> int:
    """STF 11.1: the hexes a GameSystem group's SSMs reach, long range only when it is Precise."""
    lr = C["long_range_ssm"]
    return lr["long_range_hexes"] if group.get("intel") == lr["system_fires_only_when"] else lr["short_range_hexes"]


def ssm_target(ctx: Ctx, gid: str) -> tuple[str, int] | None:
    """STF 11.2: the Player task force ``gid`` fires its SSMs at (a landed invasion force in range
    first, 7.11; then a CV task force, the nearest, the most VP, a die) and how far it is; None
    when none is in range."""
    reach = ssm_reach(ctx.state["groups"][gid])
    in_range = [(d, pid) for d, pid in _near(ctx.state, gid) if d <= reach]
    if not in_range:
        return None
    landed = _landed(ctx.state, in_range)
    cvs = [(d, pid) for d, pid in (landed or in_range) if _has_cv(ctx.state, pid)]
    target = _pick_group(ctx, gid, cvs or landed or in_range, "STF 7.11" if landed else "STF 11.2",
                         f"{gid}'s SSM target")
    return target, next(d for d, p in in_range if p == target)


def _landed(state: dict, candidates: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """STF 7.11: of ``candidates``, the Player task forces with an invasion freighter in the
    objective megahex, which a group that can attack them engages ("and engage that task force
    with SSM, 4 rounds of gunnery, and torpedo combat"), before any other in its reach: a CV task
    force (11.2) or one of more VP (11.3) beside them is not its target while one is there."""
    return [(d, pid) for d, pid in candidates if last_ditch_engagement(state, pid)]


def close_target(ctx: Ctx, gid: str) -> str | None:
    """STF 11.3: the Player task force in ``gid``'s hex it fights with guns and torpedoes (a landed
    invasion force first, 7.11; the most VP, a die); None when none is there."""
    same = [(d, pid) for d, pid in _near(ctx.state, gid) if d == 0]
    landed = _landed(ctx.state, same)
    return _pick_group(ctx, gid, landed or same, "STF 7.11" if landed else "STF 11.3",
                       f"{gid}'s close combat target") if same else None


def engagements(ctx: Ctx) -> list[dict]:
    """For each GameSystem group in range of a Player task force: the frames of its combat. A
    frame's target is the one in range when the combat begins; a frame whose target is gone
    (sunk by an earlier group's combat) before it starts takes the next one in range then
    (``_still_targets``: STF 7.6, a group within range engages)."""
    state = ctx.state
    lr = C["long_range_ssm"]
    frames: list[dict] = []
    for gid, g in forces.by_number(state["groups"]):  # the order they move and fly in
        if g.get("owner") != "system" or not in_play(g) or not units_of(state, gid):
            continue
        _withdraws_from(ctx, gid)
        # STF 10.8: a carrier set aside for its air strike is no composition yet: until its ships
        # are drawn the GameSystem has no units of it to fight with (as a contact with none)
        drawn = air.composition_drawn(state, gid)
        if drawn and sum(ssm_ready(u) for u in units_of(state, gid)):
            found = ssm_target(ctx, gid)
            if found:
                frames.append({"step": "ssm_salvo", "group": gid, "target": found[0],
                               "long_range": found[1] > lr["short_range_hexes"]})
        if g.get("ssm_first") == state["turn"]:
            # STF 7.8, a BB two hexes or fewer away: "conduct any SSM attacks, then" move, no gunnery
            frames.append({"step": "ssm_first_move", "group": gid})
            continue
        if not drawn:
            continue
        guns = bool(units_of(state, gid, ships=True)) and g.get("kind", "tf") == "tf"
        torpedoes = any(torpedoes_left(u) for u in units_of(state, gid, ships=False))
        # the close combat target only for a group with guns or torpedoes to fight with: its die
        # (a tie) decides nothing otherwise
        target = close_target(ctx, gid) if guns or torpedoes else None
        if target is None:
            continue
        if guns:
            frames.append({"step": "gunnery", "group": gid, "target": target, "round": 0})
        if torpedoes:
            frames.append({"step": "torpedo", "group": gid, "target": target, "round": 0})
    return frames


def _still_targets(ctx: Ctx, f: dict, begun: bool) -> bool:
    """Whether frame ``f`` has a target to fight: its own while in play with ships; else, when
    the frame has not begun, the next Player task force in range now (STF 7.6: a GameSystem
    group within range engages; a target sunk by another group's combat this phase does not
    end its own)."""
    state = ctx.state
    p = state["groups"].get(f["target"])
    if begun:
        return p is not None and in_play(p)
    if p is not None and in_play(p) and units_of(state, f["target"], ships=True):
        if not (f["step"] == "ssm_salvo" and _cv_lost_to_another(state, f)):
            return True
    if f["step"] == "ssm_salvo":
        found = ssm_target(ctx, f["group"])
        if found is None:
            return False
        f["target"], f["long_range"] = found[0], found[1] > C["long_range_ssm"]["short_range_hexes"]
        return True
    target = close_target(ctx, f["group"])
    if target is None:
        return False
    f["target"] = target
    return True


def _cv_lost_to_another(state: dict, f: dict) -> bool:
    """STF 11.2 for a salvo not yet begun: its target holds no CV now (sunk by an earlier group's
    fire) while another Player CV task force is in range, which "the CV as its target" then is."""
    if _has_cv(state, f["target"]):
        return False
    reach = ssm_reach(state["groups"][f["group"]])
    return any(d <= reach and _has_cv(state, pid) for d, pid in _near(state, f["group"]))


@STEPS.step("surface_combat")
def surface_combat(ctx: Ctx, stack: list) -> None:
    """STF 11: each GameSystem group in range of a Player task force fights: SSMs, then gunnery
    and torpedoes, each step asking the Player for the base game's results as it goes."""
    stack.pop()
    for frame in reversed(engagements(ctx)):
        stack.append(frame)


@STEPS.step("ssm_first_move")
def ssm_first_move(ctx: Ctx, stack: list) -> None:
    """STF 7.8: a CV task force two hexes or fewer from a Player BB task force, which held in the
    Movement phase to conduct its SSM attacks first, now moves by its band (movement.py)."""
    f = stack.pop()
    g = ctx.state["groups"].get(f["group"])
    if g is None or not in_play(g):
        return
    from domain.rulesets.stf import movement  # imported late, as retirement does
    # a move like the Movement phase's: freighters reaching the target score (1.11), a contact
    # coming within two hexes is revealed (8.14, 8.15)
    found = movement.move_along(ctx, g)
    movement.lose_actions(ctx, [found] if found else [])


def ask_results(ctx: Ctx, stack: list, rule: str, prompt: str, candidates: list[str], key: str, *,
                alone: bool = False) -> None:
    """Push the ``results`` step: the Player answers, one unit at a time, which of ``candidates``
    the base game sank in what was just fought. ``key`` names what was fought (the group, the
    wave or round), so that with the turn each question's id is unique in the game. ``alone``: no
    step below waits to hear that the base game ended the combat (2.6.4's LBNA attack)."""
    stack.append({"step": "results", "rule": rule, "prompt": prompt, "candidates": list(candidates), "sunk": [],
                  "key": f"{ctx.state['turn']}-{key}", **({"alone": True} if alone else {})})


@STEPS.step("results")
def results(ctx: Ctx, stack: list) -> None:
    """The base game's results of one wave, round or attack, as answers to a ``combat`` decision
    whose choices are finite: ``{"sunk": unit}`` (one unit the base game sank; asked again until)
    ``{"sunk": null}`` (nothing more), or ``{"ended": true}`` (the base game ended the combat)."""
    f = stack[-1]
    if "answer" in f:
        a, decision = f.pop("answer"), f.pop("decision", None)
        if a == {"ended": True}:
            stack.pop()
            if not f.get("alone"):
                stack[-1]["ended"] = True
            return
        if not isinstance(a, dict) or set(a) != {"sunk"}:
            raise InvalidOrder("the answer is {\"sunk\": unit}, {\"sunk\": null} or {\"ended\": true}",
                               rule=f["rule"], field="choice")
        if a["sunk"] is None:
            stack.pop()
            return
        if a["sunk"] not in f["candidates"]:
            named = [u for u in f["candidates"] if isinstance(a["sunk"], str)
                     and str((ctx.state["units"].get(u) or {}).get("name", "")).casefold() == a["sunk"].casefold()]
            if named:  # the ship's name, as the question's lines give it: say its id
                raise RuleViolation(f["rule"], f"the answer names a unit by id, not by name: {a['sunk']} is "
                                               f"{' or '.join(named)}: {{\"sunk\": \"{named[0]}\"}}")
            raise RuleViolation(f["rule"], f"{a['sunk']} took no part in this: one of {', '.join(f['candidates'])}")
        apply_report(ctx, check_report(ctx.state, {"sunk": [a["sunk"]]}), decision=decision,
                     why=f"the base game's result: {f['prompt']}", rule=f["rule"])
        f["sunk"].append(a["sunk"])
    live = [u for u in f["candidates"] if u in ctx.state["units"] and alive(ctx.state["units"][u])]
    if not live:
        stack.pop()
        return
    # combat-<turn>-<what was fought>-<n>: the n-th question about it (frames recorded before the key
    # was kept have none: the count of this order, as then)
    key = f"{f['key']}-{len(f['sunk']) + 1}" if "key" in f else None
    f["decision"] = f"combat-{key if key is not None else ctx.state.get('decisions', 0) + 1}"
    answers = '{"sunk": null}: none; {"ended": true}: the base game ended the combat'  # what the choices mean
    prompt = (f"{f['prompt']}: resolve it with the base game; which unit did it sink? ({answers}) ({f['rule']})"
              if not f["sunk"] else
              f"{f['prompt']}: {', '.join(f['sunk'])} sunk; which other unit did it sink? ({answers}) ({f['rule']})")
    ctx.ask(stack, "Player", "combat", f["rule"], prompt,
            {"choices": [{"sunk": None}, *({"sunk": u} for u in live), {"ended": True}], "stands_for": STANDS_FOR},
            key=key)


def _spend(ctx: Ctx, f: dict, missiles: int) -> dict:
    """Take ``missiles`` from the ready loads of the salvo's units, in the group's order."""
    taken: dict[str, int] = {}
    for uid in list(f["ready"]):
        if missiles <= 0:
            break
        n = min(f["ready"][uid], missiles)
        if n <= 0:
            continue
        f["ready"][uid] -= n
        missiles -= n
        taken[uid] = n
        u = ctx.state["units"][uid]
        ctx.emit(UnitChanged, unit=uid, changes={"ssm_left": ssm_left(u) - n}, rule="STF 11.2", why="SSMs fired")
    return taken


@STEPS.step("ssm_salvo")
def ssm_salvo(ctx: Ctx, stack: list) -> None:
    """STF 11.2, one wave at a time: every SSM at a CV in waves of 10; else (or once the CV is
    sunk) 4 per Player ship, up to half the complement, in waves of 6 by the class order."""
    f = stack[-1]
    rule = "STF 11.2"
    gid, pid = f["group"], f["target"]
    if f.get("ended"):
        stack.pop()
        return
    state = ctx.state
    if gid not in state["groups"] or not in_play(state["groups"][gid]) or not _still_targets(ctx, f, "ready" in f):
        stack.pop()
        return
    state, pid = ctx.state, f["target"]
    s = C["ssm"]
    if "ready" not in f:
        f["ready"] = {u["id"]: ssm_ready(u) for u in units_of(state, gid) if ssm_ready(u)}
        f["left"] = sum(f["ready"].values())
        f["wave"] = 0
        cvs = [u for u in units_of(state, pid, ships=True) if u.get("class") == "CV"]
        if cvs:
            f["mode"] = "cv"
            f["aim"] = order_by(ctx, cvs, lambda u: u.get("vp", 0), rule=rule, purpose=f"{gid}'s CV target",
                                most=1)[0]["id"]
        else:
            _ships_mode(state, f, pid)
    if f["mode"] == "cv" and not alive(state["units"][f["aim"]]):
        cvs = [u for u in units_of(state, pid, ships=True) if u.get("class") == "CV"]
        if cvs:  # another CV in the task force: still the CV
            f["aim"] = order_by(ctx, cvs, lambda u: u.get("vp", 0), rule=rule, purpose=f"{gid}'s CV target",
                                most=1)[0]["id"]
        else:  # the CV is destroyed: 4 per ship, up to half its complement
            _ships_mode(state, f, pid)
    ships = units_of(state, pid, ships=True)
    if f["left"] <= 0 or not ships:
        stack.pop()
        return
    if f["mode"] == "ships" and (f.get("aim") is None or not alive(state["units"][f["aim"]])):
        order = ssm_class_order()
        best = min(order.index(u["class"]) for u in ships if u.get("class") in order) if any(
            u.get("class") in order for u in ships) else None
        pool = [u for u in ships if best is not None and u.get("class") == order[best]] or ships
        f["aim"] = order_by(ctx, pool, lambda u: u.get("vp", 0), rule=rule,
                            purpose=f"{gid}'s SSM target among {pool[0].get('class')}", most=1)[0]["id"]
    size = min(s["cv_wave"] if f["mode"] == "cv" else s["wave"], f["left"])
    f["wave"] += 1
    sector = ctx.roll(1, s["entry_sector_die"], seat="system", purpose=f"{gid}'s SSM wave {f['wave']}: entry sector",
                      rule=rule, outcome=lambda v: f"sector {v[0]}").values[0]
    taken = _spend(ctx, f, size)
    f["left"] -= size
    aim = state["units"][f["aim"]]
    why = (f"every SSM in waves of {s['cv_wave']} at the Player's CV" if f["mode"] == "cv" else
           f"{s['per_ship']} SSMs per Player ship, up to half the complement, in waves of {s['wave']}: "
           f"{aim.get('class')} is first of {', '.join(s['target_order'])}")
    ctx.emit(SystemActs, what="SSM wave",
             detail={"group": gid, "target_group": pid, "wave": f["wave"], "missiles": size, "target": f["aim"],
                     "entry_sector": sector, "fired_by": taken, "long_range": f.get("long_range", False),
                     "left_in_salvo": f["left"]},
             rule=rule, why=why + "; entry sector by 1D6 (rule 16.24 ignored)")
    ask_results(ctx, stack, rule, f"{gid}'s SSM wave {f['wave']}: {size} missiles at {f['aim']} from sector {sector}",
                 [f["aim"]], f"{gid}-{pid}-ssm{f['wave']}")  # every missile of a wave is aimed at one ship: only it can sink


def _ships_mode(state: dict, f: dict, pid: str) -> None:
    """4 SSMs per Player ship, up to half the group's SSM complement (the full loads of its units
    in play, not what they have left), and no more than it has ready in this salvo."""
    s = C["ssm"]
    num, den = s["complement_share"]
    ships = units_of(state, pid, ships=True)
    complement = sum(ssm_complement(u) for u in units_of(state, f["group"]))
    f["mode"] = "ships"
    f["aim"] = None
    f["left"] = min(s["per_ship"] * len(ships), floor(complement * num / den), f["left"])


def gun_counts(ships_a: list[dict], ships_b: list[dict]) -> tuple[str | None, int, int]:
    """STF 11.3: the heaviest gun level either side has, and each side's ships with it."""
    for level in C["gunnery"]["levels"]:
        a = sum(1 for u in ships_a if u.get("gun") == level)
        b = sum(1 for u in ships_b if u.get("gun") == level)
        if a or b:
            return level, a, b
    return None, 0, 0


def defends_objective(state: dict, gid: str) -> bool:
    """STF 11.4: defending against the Player's invasion, "in the objective Megahex or adjacent to
    it": in that megahex or in one of the six megahexes next to it (the sentence places the task
    force by megahexes; where the text means hexes it says "hex", 7.10, 9.8)."""
    camp = state["campaign"]
    target = camp.get("invasion_target")
    where = state["groups"][gid].get("hex")
    if camp.get("invader") != "Player" or target is None or where is None:
        return False
    name = camp.get("map")
    return maps.megahex_distance(name, maps.megahex_hexes(name, target)[0], where) <= 1


def last_ditch_engagement(state: dict, pid: str) -> bool:
    """STF 7.11: the Player invading, his task force ``pid`` holds an invasion freighter and has
    entered the objective megahex: the GameSystem engages it "with SSM, 4 rounds of gunnery, and
    torpedo combat" (the rounds are ``gunnery.last_ditch_rounds``; 11.4's "as many rounds as
    possible" elsewhere near the objective)."""
    from domain.rulesets.stf import movement  # imported late, as retirement does
    group = state["groups"].get(pid)
    return (state["campaign"].get("invader") == "Player" and group is not None and group.get("hex") is not None
            and group["hex"] in movement.objective_hexes(state) and movement.has_invasion_freighter(state, group))


@STEPS.step("gunnery")
def gunnery(ctx: Ctx, stack: list) -> None:
    """STF 11.3 (11.4): one round of gunnery at a time, the results reported before the next."""
    f = stack[-1]
    gid, pid = f["group"], f["target"]
    if f.get("ended"):
        stack.pop()
        return
    if not in_play(ctx.state["groups"][gid]) or not _still_targets(ctx, f, f["round"] > 0):
        stack.pop()
        return
    state, pid = ctx.state, f["target"]
    rounds = C["gunnery"]["last_ditch_rounds"]
    if f["round"] >= rounds and last_ditch_engagement(state, pid):
        ctx.emit(SystemActs, what="gunnery", detail={"group": gid, "target_group": pid, "round": f["round"] + 1,
                                                      "fire": False}, rule="STF 7.11",
                 why=f"Last Ditch Defence: its {rounds} rounds of gunnery are fought")
        stack.pop()
        return
    mine, theirs = units_of(state, gid, ships=True), units_of(state, pid, ships=True)
    last_ditch = defends_objective(state, gid)
    level, a, b = gun_counts(mine, theirs)
    rule = "STF 11.4" if last_ditch else "STF 11.3"
    fire = bool(theirs) and (any(u.get("gun") for u in mine) if last_ditch else level is not None and a >= b)
    if not fire:
        why = ("no target left" if not theirs else f"{gid} has no guns" if last_ditch else
               "neither side has guns" if level is None else
               f"{a} ships with {level} guns against the Player's {b}: fewer, so no gunnery")
        ctx.emit(SystemActs, what="gunnery", detail={"group": gid, "target_group": pid, "round": f["round"] + 1,
                                                      "fire": False, "level": level, "ships": a, "player_ships": b},
                 rule=rule, why=("it ceases gunnery: " if f["round"] else "") + why)
        stack.pop()
        return
    if f["round"] == 0:  # placed only when it fires: a die for a tie (11.7) decides nothing otherwise
        place(ctx, gid)
    f["round"] += 1
    targets = order_by(ctx, theirs, gunnery_key(theirs), rule="STF 11.3",
                       purpose=f"{gid}'s gunnery target among equal values")
    why = ("defending the objective against the Player's invasion: every round the base game allows"
           if last_ditch else f"{a} ships with {level} guns against the Player's {b}: the same or more")
    ctx.emit(SystemActs, what="gunnery",
             detail={"group": gid, "target_group": pid, "round": f["round"], "fire": True, "level": level,
                     "ships": a, "player_ships": b, "targets": [t["id"] for t in targets],
                     "instruction": "all guns fire at the first unscreened ship of 'targets'"},
             rule=rule, why=why + "; the unscreened ship of highest VP, invasion freighters before CG")
    ask_results(ctx, stack, rule, f"{gid}'s gunnery round {f['round']} with {pid}",
                 [t["id"] for t in targets] + [u["id"] for u in mine], f"{gid}-{pid}-gunnery{f['round']}")


@STEPS.step("torpedo")
def torpedo(ctx: Ctx, stack: list) -> None:
    """STF 11.5, 11.6 (11.4): the subs' entry areas, each sub's attack; one attack, or, for a task
    force defending the objective (11.4), rounds as long as the base game allows."""
    f = stack[-1]
    gid, pid = f["group"], f["target"]
    if f.get("ended"):
        stack.pop()
        return
    if not in_play(ctx.state["groups"][gid]) or not _still_targets(ctx, f, f["round"] > 0):  # sunk or gone
        stack.pop()
        return
    state, pid = ctx.state, f["target"]
    # STF 11.4 names "the GameSystem task force" (where the text means a subron too it says "task
    # force or subron"): a subron's torpedo attack is one a Combat phase, near the objective too
    last_ditch = defends_objective(state, gid) and state["groups"][gid].get("kind", "tf") == "tf"
    subs = [u for u in units_of(state, gid, ships=False) if torpedoes_left(u)]
    ships = units_of(state, pid, ships=True)
    if not subs or not ships or (f["round"] and not last_ditch):
        stack.pop()
        return
    f["round"] += 1
    if f["round"] == 1:
        place_subs(ctx, gid, subs)
    at = C["subs"]["attack_at_floatation"]
    # a sub attacking at once reads the whole order (the highest value ship next to it); the others
    # all make for the first, so no die orders the ships behind it
    whole = any(floatation_left(u) is not None and floatation_left(u) <= at for u in subs)
    targets = [t["id"] for t in order_by(ctx, ships, placement_key, rule="STF 11.6", most=None if whole else 1,
                                         purpose=f"{gid}'s torpedo target among equal values")]
    attacks = []
    for u in subs:
        left = floatation_left(u)
        if left is not None and left <= at:
            attacks.append({"sub": u["id"], "floatation_left": left, "attack": "at once",
                            "target": "the first of 'targets' adjacent to it"})
        else:
            attacks.append({"sub": u["id"], "floatation_left": left, "attack": "after moving",
                            "target": targets[0], "move": f"to be at least adjacent to {targets[0]} before firing"})
    ctx.emit(SystemActs, what="torpedo attack",
             detail={"group": gid, "target_group": pid, "round": f["round"], "targets": targets, "subs": attacks},
             rule="STF 11.6", why="a sub with one floatation point left attacks the highest value ship next to it; "
                                  "the others move next to the highest value ship first"
                                  + ("; defending the objective: as many rounds as possible (STF 11.4)"
                                     if last_ditch else ""))
    for u in subs:  # each sub that attacks fires one of its (x n) torpedo loads
        ctx.emit(UnitChanged, unit=u["id"], changes={"torpedoes_left": torpedoes_left(u) - 1}, rule="STF 11.6",
                 why="a torpedo attack fires one of its torpedo loads")
    ask_results(ctx, stack, "STF 11.6", f"{gid}'s torpedo attack {f['round']} on {pid}",
                 targets + [u["id"] for u in subs], f"{gid}-{pid}-torpedo{f['round']}")


def place_subs(ctx: Ctx, gid: str, subs: list[dict]) -> None:
    """STF 11.5: each sub's entry area by a die, re-rolled until it is an area with no sub."""
    areas = C["subs"]["entry_areas"]
    taken: dict[str, int] = {}
    for u in subs:
        if len(taken) >= areas:
            break
        while True:
            area = ctx.roll(1, areas, seat="system", purpose=f"{u['id']}'s entry area", rule="STF 11.5",
                            outcome=lambda v: f"area {v[0]}").values[0]
            if area not in taken.values():
                taken[u["id"]] = area
                break
    ctx.emit(SystemActs, what="sub placement",
             detail={"group": gid, "areas": taken, "held_back": [u["id"] for u in subs if u["id"] not in taken]},
             rule="STF 11.5", why="entry areas by die, never two subs in one area (a die showing a taken area "
                                  "is rolled again)")
