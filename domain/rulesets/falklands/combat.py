"""Combat (FS 10): hit numbers, fire assignments, simultaneous fire, hits, and what follows them
(VP for sinkings, FS 4.4; control of land areas, FS 3.6, 4.4(5); emergency rebasing, FS 9.6).

A battle is a frame. Its stages: ``begin`` -> ``defense`` (the defender assigns his fire: a
pending decision) -> ``roll``/``fire`` (every die of both sides, the attacker's first; a UK
carrier's shot not assigned beforehand is aimed as it is fired, FS 10.9: a pending decision of the
UK where the choice is his; after each die he may dislike, while a Decisive Leader marker is held,
its holder may have that die rolled again, FS 11.3 4-1/4-3 "after any die roll ... that he doesn't
like": a pending decision of the holder, ``leader_die``, ``die_disliked``) -> ``apply``. A battle recorded before ``leader_each_die`` offered the
re-roll once, of any one of its dice, after all of them (``leader``), and goes on so.
"""

from __future__ import annotations

from typing import Any, Callable

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.hooks import ask, d6, simultaneous, step
from domain.rulesets.toolkit.engine import Ctx, need

FACTOR = {"ship": "surface", "submarine": "sub", "aircraft": "air", "ground": "ground"}
LEADER_MARKER = {"UK": "uk_decisive_leader", "AR": "ar_decisive_leader"}


# ----------------------------------------------------------------------------- hit numbers ---
def clamp(printed: int, modified: int) -> int:
    """FS 10.3: a printed 0 stays 0; 1+ never drops below 1; 1-5 never becomes 6."""
    if printed <= 0:
        return 0
    top = 5 if printed <= 5 else printed
    return max(1, min(top, modified))


def hit_number(state: dict, battle: dict, shooter: str, target: str, side: str) -> tuple[int, list]:
    """The hit number of one shot and the modifiers that made it (FS 10.2-10.10)."""
    printed = DATA.units[shooter]["factors"][FACTOR[S.kind(target)]]
    mods: list[dict] = []
    attacking = side == battle["attacker"]
    if not battle.get("no_modifiers"):
        for value, reason in battle.get("mods", {}).get(shooter, []):
            mods.append({"value": value, "reason": reason})
        # An interception is fought on the flight's route (FS 7.1 Op #11, the FS 10.9 example), not
        # in the area it is bound for: that area's mountains and entrenchments do not apply.
        area = DATA.areas.get(battle["area"], {}) if battle["kind"] != "interception" else {}
        if attacking and area.get("mountains"):
            mods.append({"value": -1, "reason": "attacking in mountains (FS 10.6)"})
        if attacking and side == "UK" and area.get("entrenched"):
            mods.append({"value": -1, "reason": "AR entrenchments (FS 10.7)"})
        if (S.kind(shooter) == "ground" and S.kind(target) == "ground" and DATA.units[target].get("armor")
                and not DATA.units[shooter].get("armor")):
            mods.append({"value": -1, "reason": "firing at armor (FS 10.10)"})
        if S.kind(shooter) == "ground" and battle.get("sf_bonus") == side:
            mods.append({"value": +1, "reason": "special forces support (FS 10.8)"})
    value = clamp(printed, printed + sum(m["value"] for m in mods))
    if target == T.STEALTH_UNIT and side == "UK" and value > 1:
        mods.append({"value": 1 - value, "reason": "stealth: hit number reduced to 1 (FS 10.5)"})
        value = 1
    return value, mods


def shots_allowed(state: dict, shooter: str, targets: list[str]) -> int:
    """FS 10.9: the UK carriers fire three times (four after the rendezvous) except at submarines."""
    if shooter in T.UK_CARRIERS:
        return 4 if state.get("rendezvous") else 3
    return 1


def can_fire_at(state: dict, battle: dict, shooter: str, target: str) -> bool:
    if DATA.units[shooter]["factors"][FACTOR[S.kind(target)]] <= 0 and battle["kind"] != "exocet":
        return False  # FS 10.2: a 0 factor cannot fire at that type
    if DATA.units[target]["type"] == "sf" and battle["kind"] != "sf":
        return False  # FS 10.8: SF only fall to Op #25, Op #7, event 2-4 (or share a fate)
    if DATA.units[shooter]["type"] == "sf" and battle["kind"] != "sf":
        return False  # FS 10.8: in mixed fights the SF do not fire
    return True


def fires_at_any(state: dict, battle: dict, shooter: str, targets: list[str]) -> bool:
    """FS 10.2: can ``shooter`` fire at one of ``targets`` in this battle (is it a participant)?"""
    return any(can_fire_at(state, battle, shooter, t) for t in targets)


def shots_owed(state: dict, battle: dict, shooter: str, targets: list[str]) -> int:
    """FS 10.2: no unit may be withheld from a battle in its area; a unit able to fire at a target
    here fires at least once (a carrier "may fire three times", FS 10.9: its extra shots are its own)."""
    able = [t for t in targets if S.alive(state, t) and can_fire_at(state, battle, shooter, t)]
    return 1 if able else 0


def check_every_unit_fires(state: dict, battle: dict, fire: list[dict], shooters: list[str],
                           targets: list[str]) -> None:
    """FS 10.2 "it's not allowed to withhold units from participating": the player chooses
    targets, not whether to fire."""
    for u in shooters:
        owed = shots_owed(state, battle, u, targets)
        made = sum(1 for f in fire if f["unit"] == u)
        if made < owed:
            raise RuleViolation("FS 10.2", f"{DATA.units[u]['name']} must fire in this battle: no unit may be "
                                           f"withheld (the player chooses targets, not whether to fire)")


def check_fire(state: dict, battle: dict, side: str, fire: Any, shooters: list[str], targets: list[str],
               rule: str, *, every: bool = True) -> list[dict]:
    """Validate shot assignments ``[{unit, at}]``: each shooter fires once (carriers up to 3/4 times,
    once at submarines), at a target in this battle it can hit, within 10.4's protected-target rule;
    with ``every``, each shooter able to fire does (FS 10.2)."""
    if fire == "auto":
        fire = auto_fire(state, battle, shooters, targets, side)
    if not isinstance(fire, list) or not all(isinstance(f, dict) and isinstance(f.get("unit"), str)
                                             and isinstance(f.get("at"), str) and set(f) <= {"unit", "at"}
                                             for f in fire):  # a shot's other words ("times": 3) are no shots
        raise InvalidOrder("'fire' is a list of {unit, at}", rule="FS 10.2", field="fire")
    counts: dict[str, int] = {}
    subs: dict[str, int] = {}
    for f in fire:
        u, t = f["unit"], f["at"]
        need(u in shooters, "FS 10.2", f"{DATA.unit_name(u)} is not firing in this battle")
        # FS 10.8: outside Op #25 SF neither fire nor are fired at; say so rather than 10.2.
        why = "FS 10.8" if battle["kind"] != "sf" and any(
            DATA.units.get(x, {}).get("type") == "sf" for x in (u, t)) else "FS 10.2"
        if rule == "FS 7.1 Op #14" and DATA.units.get(t, {}).get("class") == "submarine":
            why = rule  # Op #14: "attack enemy surface vessels (but not enemy submarines)"
        need(t in targets, why, f"{DATA.unit_name(t)} is not a target in this battle")
        need(can_fire_at(state, battle, u, t), why,
             f"{DATA.units[u]['name']} cannot fire at {DATA.units[t]['name']}")
        counts[u] = counts.get(u, 0) + 1
        need(counts[u] <= shots_allowed(state, u, targets), "FS 10.9" if u in T.UK_CARRIERS else "FS 10.2",
             f"{DATA.units[u]['name']} fires at most {shots_allowed(state, u, targets)} time(s)")
        if S.kind(t) == "submarine":
            subs[u] = subs.get(u, 0) + 1
            need(subs[u] <= 1, "FS 10.9", f"{DATA.units[u]['name']} fires at most once at submarines")
    check_protected(state, battle, side, fire, targets)
    if every:
        check_every_unit_fires(state, battle, fire, shooters, targets)
    return [{"unit": f["unit"], "at": f["at"]} for f in fire]


def check_protected(state: dict, battle: dict, side: str, fire: list[dict], targets: list[str]) -> None:
    """FS 10.4: a protected target may be fired at only when every unprotected enemy surface ship
    in the area is fired at too (waived by events 3-2/3-3, 3-4..3-6, 6-4, 6-6)."""
    aimed = {f["at"] for f in fire}
    waived = battle.get("protected_waiver")
    protected = [t for t in aimed if DATA.units[t].get("protected") and t != waived]
    if not protected or battle.get("ignore_protection"):
        return
    unprotected = [t for t in dict.fromkeys(targets) if S.kind(t) == "ship" and not DATA.units[t].get("protected")]
    missing = [t for t in unprotected if t not in aimed]
    if missing:
        raise RuleViolation("FS 10.4", f"{DATA.units[protected[0]]['name']} is a protected target: every "
                                       f"unprotected ship must be fired at first (not fired at: "
                                       f"{', '.join(DATA.units[m]['name'] for m in missing)})")


def auto_fire(state: dict, battle: dict, shooters: list[str], targets: list[str], side: str) -> list[dict]:
    """The default assignment: every shooter at the first target it may hit, spread round the targets,
    passing over one already fired at more than another it may hit (FS 10.2 leaves the assignment
    to the player: a default, no rule; where every shooter may hit the same targets it goes round
    them in turn as it always did).
    The battle notes that ``side`` left its fire to the server, which then also aims the carriers'
    shots that are aimed as they are fired (FS 10.9, ``aim_carrier_shot``)."""
    if battle.get("shots_as_fired") and side not in battle.setdefault("auto_sides", []):
        battle["auto_sides"].append(side)
    fire: list[dict] = []
    alive_targets = [t for t in targets if S.alive(state, t)]
    # FS 11.3 3-2/3-3: the protected ship named as the target of opportunity is the one the AR
    # "may choose to attack ... without having to also engage unprotected targets": a shooter
    # that can fire at it does (before, the server's fire went to the unprotected ships only)
    chosen = battle.get("protected_waiver") if side == battle.get("attacker") else None
    assigned: list[str] = []
    i = 0
    for u in shooters:
        options = [t for t in alive_targets if can_fire_at(state, battle, u, t)]
        if chosen in options:
            fire.append({"unit": u, "at": chosen})
            continue
        options = [t for t in options if not DATA.units[t].get("protected")] or options
        if not options:
            continue
        n = shots_allowed(state, u, targets)
        sub_shot = False
        for _ in range(n):
            non_sub = [t for t in options if S.kind(t) != "submarine"]
            pool = non_sub if (sub_shot or not [t for t in options if S.kind(t) == "submarine"]) else options
            if not pool:
                break
            # round the targets in turn, passing over one already fired at more than another
            t = min(pool, key=lambda x: (assigned.count(x), (pool.index(x) - i) % len(pool)))
            assigned.append(t)
            i += 1
            if S.kind(t) == "submarine":
                sub_shot = True
            fire.append({"unit": u, "at": t})
    try:
        check_protected(state, battle, side, fire, targets)
    except RuleViolation:
        fire = [f for f in fire if not DATA.units[f["at"]].get("protected")]
    return fire


def defense_options(state: dict, battle: dict) -> dict:
    """What each defending unit may fire at (a pending decision's options): FS 10.2 "each of your
    firing units may be fired at", so an attacker that can fire at none of the defenders is not."""
    firing = [t for t in battle["attackers"] if S.alive(state, t) and t in battle.get("exposed", battle["attackers"])
              and fires_at_any(state, battle, t, battle["defenders"])]
    return {u: [t for t in firing if can_fire_at(state, battle, u, t)]
            for u in battle["defenders"] if S.alive(state, u)}


# --------------------------------------------------------------------------------- battle ---
def sf_bonus(units: list[str]) -> str | None:
    """FS 10.8: the side whose other ground units gain +1 - the only side with SF in the fight."""
    sides = {DATA.units[u]["side"] for u in units if DATA.units[u]["type"] == "sf"}
    return next(iter(sides)) if len(sides) == 1 else None


def battle_frame(area: str, attacker: str, kind: str, rule: str, attackers: list[str], defenders: list[str],
                 fire: list[dict], *, return_fire: bool = True, **extra: Any) -> dict:
    return {"step": "battle", "stage": "begin", "area": area, "attacker": attacker, "kind": kind,
            "rule": rule, "attackers": list(attackers), "defenders": list(defenders), "fire": fire,
            "return_fire": return_fire, "defense": None, "leader_each_die": True, **extra,
            # FS 10.9: a UK carrier's shots are aimed as it fires them (fire_shots); a battle recorded
            # before has not this key and fires as it did then
            **({"shots_as_fired": True} if any(u in T.UK_CARRIERS for u in [*attackers, *defenders]) else {})}


@step("battle")
def battle(ctx: Ctx, stack: list) -> None:
    b = stack[-1]
    stage = b["stage"]
    if stage == "begin":
        # Units lost since the battle was declared (an interception) take no part (FS 10.9 example).
        b["attackers"] = [u for u in b["attackers"] if S.alive(ctx.state, u)]
        b["defenders"] = [u for u in b["defenders"] if S.alive(ctx.state, u)]
        b["fire"] = [f for f in b["fire"] if f["unit"] in b["attackers"] and f["at"] in b["defenders"]]
        if not b["attackers"] or not b["defenders"]:
            stack.pop()
            return
        ctx.emit(ev.BattleBegun, area=b["area"], attacker=b["attacker"], kind=b["kind"], rule=b["rule"],
                 attackers=b["attackers"], defenders=b["defenders"])
        b["stage"] = "defense"
    elif stage == "defense":
        defender = S.other(b["attacker"])
        options = {u: t for u, t in defense_options(ctx.state, b).items() if t} if b["return_fire"] else {}
        if not options:
            b["defense"] = []
            b["stage"] = "roll"
        elif "answer" in b:
            choice = b.pop("answer")
            fire = choice.get("fire", "auto") if isinstance(choice, dict) else choice
            if fire == "auto":
                exposed = sorted({t for ts in options.values() for t in ts})
                b["defense"] = auto_fire(ctx.state, b, list(options), exposed, defender)
            else:
                b["defense"] = check_fire(ctx.state, b, defender, fire, list(options),
                                          [t for ts in options.values() for t in ts], "FS 10.2")
            b["stage"] = "roll"
        else:
            ask(ctx, stack, defender, "defensive_fire", "FS 10.2",
                    f"{defender}: assign the defensive fire of your units ({b['rule']} in {DATA.areas[b['area']]['name']})",
                    {"fire": options, "auto": True})
    elif stage == "roll":
        b["shots"] = []
        b["to_fire"] = shot_queue(ctx.state, b)
        b["stage"] = "fire"
    elif stage == "fire":
        if fire_shots(ctx, stack, b):
            b["stage"] = "leader"
            b["leader_asked"] = False
    elif stage == "leader":
        if leader_step(ctx, stack, b, b["shots"], b["rule"]):
            b["stage"] = "apply"
    elif stage == "apply":
        stack.pop()
        apply_hits(ctx, b)


# ------------------------------------------------------------------ the shots, as fired ---
def shot_queue(state: dict, b: dict) -> list[dict]:
    """The battle's shots in the order they are fired: the attacker's, then the defender's (FS 10.2),
    each side's as assigned; then, FS 10.9, each firing UK carrier's further shots up to its three
    (four), not assigned beforehand (``at`` None: "All shots would have to be taken"). A battle
    recorded before ``shots_as_fired`` fires its listed shots only, as it did then."""
    queue: list[dict] = []
    for side, fire in ((b["attacker"], b["fire"]), (S.other(b["attacker"]), b["defense"] or [])):
        queue += [{"side": side, "unit": f["unit"], "at": f["at"]} for f in fire]
        if b.get("shots_as_fired"):
            for c in dict.fromkeys(f["unit"] for f in fire if f["unit"] in T.UK_CARRIERS):
                left = shots_allowed(state, c, []) - sum(1 for f in fire if f["unit"] == c)
                queue += [{"side": side, "unit": c, "at": None} for _ in range(left)]
    return queue


def fire_shots(ctx: Ctx, stack: list, b: dict) -> bool:
    """Roll the queued shots in turn; False while a carrier's shot waits for the UK's aim."""
    while b["to_fire"]:
        shot = b["to_fire"][0]
        side, unit, at = shot["side"], shot["unit"], shot["at"]
        if b.get("shots_as_fired") and unit in T.UK_CARRIERS and (at is None or at in destroyed_by_dice(ctx.state, b)):
            # FS 10.9 "they need not assign each shot beforehand": a shot left unassigned, or assigned
            # to a target the dice already rolled have destroyed, is aimed now, knowing those dice.
            at = aim_carrier_shot(ctx, stack, b, side, unit)
            if at is WAIT:
                return False
            if at is None:  # nothing left it may fire at
                b["to_fire"].pop(0)
                continue
        hn, mods = hit_number(ctx.state, b, unit, at, side)
        name, tname = DATA.units[unit]["name"], DATA.units[at]["name"]
        index = len(ctx.state["order_rolls"])
        r = d6(ctx, side, f"{name} fires at {tname}", b["rule"], [unit, at], hn, mods)
        # the shot's purpose and modifiers: a re-roll of its die (11.3 4-1/4-3) is the same shot
        b["shots"].append({"side": side, "unit": unit, "at": at, "hit_number": hn, "value": r.values[0],
                           "index": index, "purpose": f"{name} fires at {tname}", "modifiers": mods})
        b["to_fire"].pop(0)
        if offer_reroll(ctx, stack, b, b["rule"]):
            return False
    del b["to_fire"]
    return True


WAIT = "wait"  # aim_carrier_shot asked the UK; the battle goes on with the answer


def destroyed_by_dice(state: dict, b: dict) -> set[str]:
    """The units the dice rolled so far in this battle destroy once the hits take effect (FS 10.2)."""
    left: dict[str, int] = {}
    for s in b["shots"]:
        if s["value"] <= s["hit_number"]:
            left[s["at"]] = left.get(s["at"], state["units"][s["at"]]["steps"]) - 1
    return {t for t, n in left.items() if n <= 0}


def _side_targets(state: dict, b: dict, side: str, unit: str | None = None) -> list[str]:
    """What ``side`` fires at in this battle (``unit``'s, where an interception's carrier watches
    the routes of only some of the aircraft, FS 7.1 Op #11)."""
    if side == b["attacker"]:
        return list(b.get("reach", {}).get(unit, b["defenders"]))
    options = defense_options(state, b) if b["return_fire"] else {}
    if unit is not None:
        return list(options.get(unit, []))
    return sorted({t for ts in options.values() for t in ts})


def carrier_shot_refusal(state: dict, b: dict, side: str, carrier: str, at: Any) -> RuleViolation | None:
    """Why ``carrier`` may not fire its next shot at ``at`` (None: it may). FS 10.9 "All shots would
    have to be taken, though, at enemy units in the same battle area", once at submarines; 10.2
    the factor; 10.4 a protected target only with every unprotected ship attacked."""
    if not isinstance(at, str) or at not in _side_targets(state, b, side, carrier):
        why = "FS 7.1 Op #11" if b["kind"] == "interception" and at in b["defenders"] else "FS 10.9"
        return RuleViolation(why, f"{DATA.unit_name(at)} is not a target {DATA.unit_name(carrier)} may fire at in this "
                                  "battle")
    if not can_fire_at(state, b, carrier, at):
        return RuleViolation("FS 10.8" if DATA.units[at]["type"] == "sf" else "FS 10.2",
                             f"{DATA.units[carrier]['name']} cannot fire at {DATA.units[at]['name']}")
    # its one shot at submarines may be fired already or still listed for later (shot_queue)
    listed = [q for q in b["to_fire"][1:] if q["at"] is not None]
    if S.kind(at) == "submarine" and any(s["unit"] == carrier and S.kind(s["at"]) == "submarine"
                                         for s in [*b["shots"], *listed]):
        return RuleViolation("FS 10.9", f"{DATA.units[carrier]['name']} fires at most once at submarines")
    aimed = [{"at": s["at"]} for s in b["shots"] if s["side"] == side]
    aimed += [{"at": q["at"]} for q in listed if q["side"] == side]
    try:
        check_protected(state, b, side, [*aimed, {"at": at}], b["defenders"] if side == b["attacker"]
                        else _side_targets(state, b, side))
    except RuleViolation as e:
        return e
    return None


def aim_carrier_shot(ctx: Ctx, stack: list, b: dict, side: str, carrier: str) -> str | None:
    """FS 10.9: the target of a carrier's shot aimed as it is fired: the UK's answer to a
    ``carrier_shot`` decision where the choice can matter (two targets still standing, or two
    targets while a Decisive Leader marker could have a die rolled again, 11.3 4-1/4-3); else, or
    when the UK left his fire to the server ("auto"), a target still standing, unprotected first,
    the least fired at. None when it may fire at nothing; WAIT when the UK is asked."""
    targets = _side_targets(ctx.state, b, side, carrier)
    options = [t for t in targets if carrier_shot_refusal(ctx.state, b, side, carrier, t) is None]
    if "answer" in b:
        note_seqs(ctx, b)
        choice = b.pop("answer")
        at = choice.get("at") if isinstance(choice, dict) else None
        refusal = carrier_shot_refusal(ctx.state, b, side, carrier, at)
        if refusal is not None:
            raise refusal
        return at
    destroyed = destroyed_by_dice(ctx.state, b)
    standing = [t for t in options if t not in destroyed]
    # a die is re-rolled right after it is rolled (leader_die), or, in a battle recorded before, any
    # one of them after all the dice (leader_step): then a shot aimed at a target the dice destroy may matter
    reroll = leader_holder(ctx.state) is not None and not b.get("leader_each_die")
    matters = len(standing) > 1 or (reroll and len(options) > 1)
    if not matters or side in b.get("auto_sides", []):
        pool = standing or options
        pool = [t for t in pool if not DATA.units[t].get("protected")] or pool
        fired = [s["at"] for s in b["shots"] if s["side"] == side]
        return min(pool, key=fired.count) if pool else None
    n = sum(1 for s in b["shots"] if s["unit"] == carrier) + 1
    most = shots_allowed(ctx.state, carrier, [])
    ask(ctx, stack, side, "carrier_shot", "FS 10.9",
        f"{side}: aim {DATA.units[carrier]['name']}'s shot {n} of {most} ({b['rule']} in "
        f"{DATA.areas[b['area']]['name']}); the dice so far are known, the hits take effect together",
        {"carrier": carrier, "shot": n, "of": most, "at": options, "standing": standing,
         "dice": [{"unit": s["unit"], "at": s["at"], "hit_number": s["hit_number"], "value": s["value"]}
                  for s in b["shots"]]})
    return WAIT


def note_seqs(ctx: Ctx, b: dict) -> None:
    """A battle going on in a new order (a ``carrier_shot`` answered) notes the seq of each die the
    order before rolled: a shot's ``index`` counts the rolls of its own order only, and a re-roll
    (11.3 4-1/4-3) names the seq of the die it replaces (``leader_step``)."""
    earlier = ctx.before.get("order_rolls", [])
    for s in b["shots"]:
        if "seq" not in s and s.get("index") is not None:
            s["seq"] = earlier[s["index"]]["seq"] if s["index"] < len(earlier) else None


def leader_holder(state: dict) -> str | None:
    """The side holding a Decisive Leader marker (FS 11.3 4-1/4-3: never both)."""
    return next((s for s in ("UK", "AR") if LEADER_MARKER[s] in state["markers"].get(s, [])), None)


def offer_reroll(ctx: Ctx, stack: list, frame: dict, rule: str) -> bool:
    """FS 11.3 4-1/4-3: the holder "may play that marker after any die roll made by either player
    that he doesn't like": right after each die of a frame that offers it so (``leader_each_die``),
    knowing that die and those before it, not the dice after. True when a ``leader_die`` frame now
    asks him (the caller stops; it goes on once he has answered). In a battle only a die he may
    dislike is offered (``die_disliked``)."""
    holder = leader_holder(ctx.state)
    if not frame.get("leader_each_die") or holder is None:
        return False
    if frame.get("step") == "battle" and not die_disliked(ctx.state, frame, holder):
        return False
    stack.append({"step": "leader_die", "die": len(frame["shots"]) - 1, "rule": rule})
    return True


def die_disliked(state: dict, b: dict, holder: str) -> bool:
    """FS 11.3 4-1/4-3 "any die roll ... that he doesn't like", read (docs/rulesets.md): the battle's
    die just rolled is one its re-roll could turn the holder's way: his own shot that missed a target
    still standing, or the other side's shot that hit a unit of his still standing. Standing: not
    destroyed by the dice before it, which are settled (each was offered as it was rolled); a hit on
    a unit those dice destroy is wasted (FS 10.2), and every hit takes a step (10.11), so a hit that
    only marks a two-step UK unit counts. A die whose every face gives the same result changes nothing."""
    shot = b["shots"][-1]
    if shot["unit"] in T.UK_CARRIERS and not b.get("shots_as_fired"):
        return True  # its hit may go on to its next listed target (apply_hits, a battle recorded before)
    target, hn = shot["at"], shot["hit_number"]
    if not S.alive(state, target) or target in destroyed_by_dice(state, {"shots": b["shots"][:-1]}):
        return False
    if shot["side"] == holder:
        return shot["value"] > hn and hn >= 1
    return shot["value"] <= hn < 6


@step("leader_die")
def leader_die(ctx: Ctx, stack: list) -> None:
    """The holder's answer for the die just rolled (``offer_reroll``): null keeps it; its number
    plays the marker and the rolling player rolls that die again (FS 11.3 4-1/4-3), the same shot."""
    f, frame = stack[-1], stack[-2]
    holder = leader_holder(ctx.state)
    shot = frame["shots"][f["die"]]
    if holder is None:
        stack.pop()
        return
    event = "FS 11.3 4-1" if holder == "UK" else "FS 11.3 4-3"  # the holder's own event
    if "answer" not in f:
        ask(ctx, stack, holder, "leadership", event, this_die_prompt(holder, shot),
            {"reroll": [{"die": f["die"], "side": shot["side"], "value": shot["value"], "unit": shot.get("unit"),
                         "at": shot.get("at"), "hit_number": shot.get("hit_number")}], "keep": True})
        return
    choice = f.pop("answer")
    pick = choice.get("reroll") if isinstance(choice, dict) else None
    if pick is not None and (isinstance(pick, bool) or pick != f["die"]):
        raise InvalidOrder(f"'reroll' is {f['die']}, the die just rolled (FS 11.3: \"after any die roll\"), or null",
                           rule=event, field="choice")
    note_seqs(ctx, frame)  # the die was rolled by the order that asked: its seq is known now
    stack.pop()
    if pick is None:
        return
    ctx.emit(ev.MarkerPlayed, side=holder, marker=LEADER_MARKER[holder], rule=event)
    index = len(ctx.state["order_rolls"])
    r = d6(ctx, shot["side"], f"re-roll ({holder} decisive leadership): " + shot.get("purpose", "die"),
           event, [u for u in (shot.get("unit"), shot.get("at")) if u],
           shot.get("hit_number"), shot.get("modifiers"), replaces=shot.get("seq"))
    shot.update(value=r.values[0], index=index)
    shot.pop("seq", None)


def this_die_prompt(holder: str, shot: dict) -> str:
    """The question about one die, the one just rolled (FS 11.3 4-1/4-3 "after any die roll")."""
    return (f"{holder}: play your Decisive Leader marker to have this die rolled again? "
            f"({shot.get('purpose', 'die')}: {shot['value']})")


def leader_step(ctx: Ctx, stack: list, frame: dict, shots: list[dict], rule: str,
                disliked: Callable[[str], bool] | None = None) -> bool:
    """FS 11.3 4-1/4-2/4-3: the holder of a Decisive Leader marker may have one die rolled again.
    Returns True when the frame may go on. A frame that offered each die as it was rolled
    (``leader_each_die``, ``offer_reroll``) has nothing left to offer; a frame of one die whose
    ``disliked(holder)`` is false does not ask him (a die that went his way)."""
    holder = leader_holder(ctx.state)
    if holder is None or not shots or frame.get("leader_each_die"):
        return True
    event = "FS 11.3 4-1" if holder == "UK" else "FS 11.3 4-3"  # the holder's own event
    if "answer" in frame:
        choice = frame.pop("answer")
        pick = choice.get("reroll") if isinstance(choice, dict) else None
        if pick is None:
            return True
        if isinstance(pick, bool) or not isinstance(pick, int) or not 0 <= pick < len(shots):
            raise InvalidOrder(f"'reroll' is the number of a die, 0 to {len(shots) - 1}, or null",
                               rule=event, field="choice")
        shot = shots[pick]
        earlier = ctx.before.get("order_rolls", [])  # with seqs: the rolls of the order that asked
        if "seq" in shot:  # rolled before a carrier_shot answer (note_seqs)
            seq = shot["seq"]
        else:
            seq = earlier[shot["index"]]["seq"] if shot.get("index") is not None and shot["index"] < len(earlier) else None
        ctx.emit(ev.MarkerPlayed, side=holder, marker=LEADER_MARKER[holder], rule=event)
        hn = shot.get("hit_number")
        r = d6(ctx, shot["side"], f"re-roll ({holder} decisive leadership): " + shot.get("purpose", "die"),
               event, [u for u in (shot.get("unit"), shot.get("at")) if u],
               hn, shot.get("modifiers"), replaces=seq)
        shot["value"] = r.values[0]
        return True
    if frame.get("leader_asked") or (disliked is not None and not disliked(holder)):
        return True
    frame["leader_asked"] = True
    options = [{"die": i, "side": s["side"], "value": s["value"], "unit": s.get("unit"), "at": s.get("at"),
                "hit_number": s.get("hit_number")} for i, s in enumerate(shots)]
    # a frame of one die (Op #7's, 6-4's, 2-4's) asks about it as a battle asks about each of its dice
    prompt = this_die_prompt(holder, shots[0]) if len(shots) == 1 else \
        f"{holder}: play your Decisive Leader marker to have one of these dice rolled again?"
    ask(ctx, stack, holder, "leadership", event, prompt, {"reroll": options, "keep": True})
    return False


def apply_hits(ctx: Ctx, b: dict) -> None:
    """Every hit takes a step, in the order fired; hits on a unit already destroyed are wasted
    (FS 10.2; a UK carrier aims its shots as it fires them, FS 10.9, ``fire_shots``; in a battle
    recorded before that, its later hits go on to its next listed target, as they did then).
    The hits take effect at one instant (10.2): sudden death (4.5) is judged on the VP of all of
    them, and of the control they change, not after the first side's shots (hooks.simultaneous)."""
    with simultaneous(ctx):
        _apply_hits(ctx, b)


def _apply_hits(ctx: Ctx, b: dict) -> None:
    destroyed: set[str] = set()
    steps = {u: ctx.state["units"][u]["steps"] for u in {*b["attackers"], *b["defenders"]} if u in ctx.state["units"]}
    carrier_targets: dict[str, list[str]] = {}
    for s in b["shots"]:
        carrier_targets.setdefault(s["unit"], []).append(s["at"])
    for s in b["shots"]:
        if s["value"] > s["hit_number"]:
            continue
        target = s["at"]
        if target in destroyed and s["unit"] in T.UK_CARRIERS and not b.get("shots_as_fired"):
            # The shot goes on to the carrier's next listed target, never a submarine (10.9: once
            # per battle at submarines, and that shot is listed), and hits it only on a die within
            # the hit number against it (10.2; 10.5: the stealth aircraft's is one).
            target = next((t for t in carrier_targets[s["unit"]] if t not in destroyed and S.kind(t) != "submarine"
                           and can_fire_at(ctx.state, b, s["unit"], t)), None)
            if target is not None and s["value"] > hit_number(ctx.state, b, s["unit"], target, s["side"])[0]:
                continue
        if target is None or target in destroyed or not S.alive(ctx.state, target):
            continue
        # FS 10.11: a hit takes a step; an AR unit (one step) is eliminated, a two-step UK unit
        # carries the hit (its marker) until a second hit eliminates it.
        steps[target] = steps.get(target, ctx.state["units"][target]["steps"]) - 1
        if steps[target] <= 0:
            destroyed.add(target)
            eliminate(ctx, target, b["rule"], b)
        else:
            ctx.emit(ev.UnitHit, unit=target, steps_lost=1, steps_left=steps[target], rule=b["rule"], roll=None)
    # FS 10.8: SF in a mixed fight share the fate of their side's last conventional ground unit.
    if b["kind"] in ("ground", "assault"):
        for side in ("UK", "AR"):
            # in the battle's own order (a set's order changes between processes): the same events everywhere
            mine = [u for u in dict.fromkeys([*b["attackers"], *b["defenders"]]) if ctx.state["units"][u]["side"] == side]
            conv = [u for u in mine if DATA.units[u]["type"] != "sf" and S.kind(u) == "ground"]
            sf = [u for u in mine if DATA.units[u]["type"] == "sf" and S.alive(ctx.state, u)]
            if conv and sf and not any(S.alive(ctx.state, u) for u in conv):
                for u in sf:
                    eliminate(ctx, u, "FS 10.8", b)
    # FS 10.5: "never more than five attacks during an entire game, after which it's simply removed"
    # (the AR Stealth Missions Remaining marker's start, units.json)
    most = DATA.markers["stealth_missions"]["start"]
    if T.STEALTH_UNIT in b["attackers"] and ctx.state["stealth_attacks"] >= most and S.alive(ctx.state, T.STEALTH_UNIT):
        ctx.emit(ev.UnitWithdrawn, unit=T.STEALTH_UNIT, reason="five stealth attacks made" if most == 5
                 else f"{most} stealth attacks made", rule="FS 10.5")
    after_ground_change(ctx)


def eliminate(ctx: Ctx, uid: str, rule: str, battle: dict | None = None) -> None:
    """A unit leaves play; its cargo shares its fate (FS 6.5); VP for ships (FS 4.4(2)-(4))."""
    area = S.where(ctx.state, uid)
    cargo = S.cargo(ctx.state, uid)
    ctx.emit(ev.UnitEliminated, unit=uid, rule=rule, roll=None)
    for c in cargo:
        ctx.emit(ev.UnitEliminated, unit=c, rule="FS 6.5", roll=None)
    if S.kind(uid) in ("ship", "submarine"):
        sinking_vp(ctx, uid, area, battle or {})


def sinking_vp(ctx: Ctx, uid: str, area: str | None, battle: dict) -> None:
    name = DATA.units[uid]["name"]
    if DATA.units[uid]["side"] == "AR":
        worth = 2 if uid in T.TWO_VP_AR_SHIPS else 1
        inside = area in DATA.tez or area == S.SOUTH_GEORGIA or battle.get("tez_expanded")
        if inside:
            rule = "FS 7.1 Op #10" if battle.get("tez_expanded") and area not in DATA.tez else "FS 4.4(3)"
            ctx.vp(S.TRACK, -worth, f"UK sank {name} in {DATA.areas[area]['name'] if area else 'the TEZ'}", rule)
        elif leadership_in_effect(ctx.state):
            return  # FS 4.4(2): not scored during the operation when 4-1/4-2/4-3 is in effect
        else:
            ctx.vp(S.TRACK, worth, f"{name} sunk outside the TEZ", "FS 4.4(2)")
    else:
        if uid == T.CONVEYOR and ctx.state.get("rendezvous"):
            return
        worth = 2 if uid in T.TWO_VP_UK_SHIPS else 1
        ctx.vp(S.TRACK, worth, f"AR sank {name}", "FS 4.4(4)")


def leadership_in_effect(state: dict) -> bool:
    """FS 4.4(2) "when random event 4-1/4-2/4-3 is in effect": a Decisive Leader marker is held
    (4-1: taken "as a reminder this event is activated"), or one was played earlier in this
    operation, in any of its battles (docs/rulesets.md). Only "during the operation": a free
    attack of the Random Event Phase "doesn't count as" an operation (11.3 2-1), so no marker,
    held or played, stops its VP."""
    held = any(LEADER_MARKER[s] in state["markers"].get(s, []) for s in LEADER_MARKER)
    in_operation = state.get("phase") in ("UK Operations", "AR Operations")
    return in_operation and (held or bool(state.get("leader_played_in_op")))


def after_ground_change(ctx: Ctx) -> None:
    """FS 3.6 / 4.4(5): a land area held by one side alone is that side's; VP follow; AR aircraft in
    an area the UK now holds must rebase (FS 6.3, 9.6). The areas one change hands over change at
    one instant ("the instant your side is the only one"): sudden death (4.5) is judged on their
    net, whatever order the map lists them in (hooks.simultaneous)."""
    with simultaneous(ctx):
        _hand_over(ctx)


def _hand_over(ctx: Ctx) -> None:
    everywhere = S.ground_sides_everywhere(ctx.state)  # what follows moves no unit
    for area in DATA.land_areas:
        sides = everywhere.get(area, set())
        if len(sides) == 1:
            side = next(iter(sides))
            before = S.controlled_by(ctx.state, area)
            if before != side:
                ctx.emit(ev.ControlChanged, area=area, side=side, previous=before, rule="FS 3.6")
                worth = DATA.vp_areas.get(area, 0)
                if worth:
                    name = DATA.areas[area]["name"]
                    if side == "UK":
                        ctx.vp(S.TRACK, -worth, f"UK took control of {name}", "FS 4.4(5)")
                    else:
                        ctx.vp(S.TRACK, worth, f"AR recaptured {name}", "FS 4.4(5)")


def stranded_aircraft(state: dict) -> list[str]:
    """AR aircraft on a base the UK now controls (FS 6.3, 9.6): not a contested one, whoever held it
    last (an emergency rebasing may go there, 9.6; AR ground units are still there)."""
    return [u for u in S.units_in_any(state, side="AR", classes=["aircraft"])
            if S.where(state, u) in DATA.land_areas and S.controlled_by(state, S.where(state, u)) == "UK"
            and not S.contested(state, S.where(state, u))]
