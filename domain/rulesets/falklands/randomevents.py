"""The effects of the 36 random events (FS 11.3); the table itself is data (data/events.json)."""

from __future__ import annotations

from typing import Callable

from domain import events as ev
from domain.rulesets.falklands import events as fe
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.combat import (
    LEADER_MARKER, after_ground_change, auto_fire, battle_frame, can_fire_at, check_fire, eliminate, fires_at_any, leader_step,
)
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.flow import end_of_game
from domain.rulesets.falklands.hooks import ask, d6, step
from domain.rulesets.falklands.ops import able_to_fire, area_name, exocet_frames, name
from domain.rulesets.toolkit.engine import Ctx, ids, need

UK, AR = S.UK, S.AR
EFFECTS: dict[str, Callable] = {}


def effect(name_: str):
    def register(fn):
        EFFECTS[name_] = fn
        return fn
    return register


def lasting(side: str, key: str):
    """An event whose effect waits for the side's next Operations Phase."""
    def apply(ctx: Ctx, stack: list, entry: dict) -> None:
        ctx.emit(ev.EffectGained, side=side, effect=key, title=entry["title"], rule=f"FS 11.3 {entry['event']}",
                 detail={"event": entry["event"]})
    EFFECTS[key] = apply


for _side, _key in ((UK, "uk_operational_superiority"), (UK, "poor_uk_staff_work"), (AR, "ar_target_of_opportunity"),
                    (AR, "ar_air_mechanical"), (AR, "poor_ar_logistics"), (AR, "ar_air_panache")):
    lasting(_side, _key)


def _leader(side: str):
    def apply(ctx: Ctx, stack: list, entry: dict) -> None:
        rule = f"FS 11.3 {entry['event']}"
        rival = S.other(side)
        if LEADER_MARKER[rival] in ctx.state["markers"].get(rival, []):
            ctx.emit(ev.MarkerPlayed, side=rival, marker=LEADER_MARKER[rival], rule=rule)  # taken away; both out
        elif LEADER_MARKER[side] not in ctx.state["markers"].get(side, []):
            ctx.emit(ev.MarkerGained, side=side, marker=LEADER_MARKER[side], rule=rule)
    return apply


EFFECTS["uk_leadership"] = _leader(UK)
EFFECTS["ar_leadership"] = _leader(AR)


@effect("uk_political_pressure")
def political_pressure(ctx: Ctx, stack: list, entry: dict) -> None:
    # FS 11.2: an event may be rolled into effect any number of times; rolled again while an earlier
    # 4-5 waits, each has its own "next three operations" (the earlier deadline stands).
    waiting = ctx.state.get("political_pressure")
    detail = {"ops_left": waiting["ops_left"], "later": [*waiting.get("later", []), 3]} if waiting else {"ops_left": 3}
    ctx.emit(ev.EffectGained, side=UK, effect="political_pressure", title=entry["title"], rule="FS 11.3 4-5",
             detail=detail)


@effect("severe_weather")
def severe_weather(ctx: Ctx, stack: list, entry: dict) -> None:
    left = ctx.state["uk_operations_left"] - 1
    ctx.emit(fe.OperationCompleted, side=UK, op="weather", uk_operations_left=left, rule=f"FS 11.3 {entry['event']}")
    if left <= 0:
        end_of_game(ctx)


@effect("peru_replacement")
def peru(ctx: Ctx, stack: list, entry: dict) -> None:
    stack.append({"step": "peru"})


@step("peru")
def peru_step(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    lost = [u for u, d in DATA.units.items() if d["side"] == AR and d["class"] == "aircraft"
            and not d.get("stealth") and ctx.state["units"][u]["eliminated"]]
    if not lost:
        stack.pop()
        return
    if "answer" not in f:
        ask(ctx, stack, AR, "peru_replacement", "FS 11.3 6-3",
                "AR: choose the eliminated aircraft that is replaced (it appears in Argentina)", {"unit": lost})
        return
    choice = f["answer"]
    u = choice.get("unit") if isinstance(choice, dict) else None
    # FS 11.2: no activated event may be declined; the AR chooses which aircraft, not whether.
    need(u in lost, "FS 11.3 6-3",
         f"{name(u)} is not an eliminated non-stealth AR aircraft (FS 11.2: the event may not be declined)")
    stack.pop()
    ctx.emit(ev.UnitEntered, unit=u, area=S.ARGENTINA, aboard=None, rule="FS 11.3 6-3")


def no_event(state: dict, entry: dict) -> bool:
    """FS 11.3 6-4 "This event may happen only once per game; treat it as 'no event' if rolled again"."""
    return entry["effect"] == "land_exocet" and state.get("exocet") is not None


# Why a free attack does nothing ("Circumstances otherwise permitting", FS 11.2): the words of
# its line, by the attack's kind (free_attack_options).
NOTHING_TO_ATTACK = {
    "surface": "no effect, no {enemy} surface ship in a contested sea area that {side} units can attack",
    "submarine": "no effect, no {enemy} submarine in a contested sea area that {side} units can attack",
    "surprise": "no effect, no {enemy} surface vessel in a sea area with {side} submarines that can attack it",
}


def no_effect(state: dict, entry: dict) -> str | None:
    """Why the event rolled does nothing, for its line in the log (None when it does something):
    6-4 rolled again (``no_event``), or a free attack (2-1 ... 6-6) with nothing to attack."""
    if no_event(state, entry):
        return "no event, it may happen only once per game"
    if entry["effect"] in FREE:
        side, kind, _ = FREE[entry["effect"]]
        if not free_attack_options(state, side, kind):
            return NOTHING_TO_ATTACK[kind].format(side=side, enemy=S.other(side))
    return None


@effect("land_exocet")
def land_exocet(ctx: Ctx, stack: list, entry: dict) -> None:
    if no_event(ctx.state, entry):
        return
    stack.append({"step": "exocet_now"})


def exocet_targets(state: dict) -> list[str]:
    return [u for u in S.units_in(state, S.TACTICAL, side=UK, classes=["ship"])]


@step("exocet_now")
def exocet_now(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    targets = exocet_targets(ctx.state)
    if not targets:
        stack.pop()
        ctx.emit(ev.EffectGained, side=AR, effect="exocet", title="land-launched Exocet held", rule="FS 11.3 6-4",
                 detail={"status": "held"})
        return
    if "answer" not in f:
        ask(ctx, stack, AR, "exocet", "FS 11.3 6-4", "AR: choose the UK surface vessel the land-launched Exocet strikes",
                {"target": targets})
        return
    choice = f["answer"]
    target = choice.get("target") if isinstance(choice, dict) else None
    # FS 11.2: no activated event may be declined; it is held only when no target is there (6-4).
    need(target in targets, "FS 11.3 6-4", "the Exocet strikes one UK surface vessel in the Falkland Islands Sea "
                                           "Area now (FS 11.2: the event may not be declined)")
    stack.pop()
    stack.extend(reversed(exocet_frames(ctx, target, held=False)))


@effect("sf_team_compromised")
def sf_compromised(ctx: Ctx, stack: list, entry: dict) -> None:
    stack.append({"step": "sf_compromised", "stage": "roll"})


@step("sf_compromised")
def sf_compromised_step(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    if f["stage"] == "roll":
        i = len(ctx.state["order_rolls"])
        r = d6(ctx, UK, "special forces team compromised: 1-3 the UK is affected, 4-6 the AR", "FS 11.3 2-4", [])
        f["shots"] = [{"side": UK, "value": r.values[0], "index": i, "purpose": "SF team compromised"}]
        f["stage"] = "leader"
    elif f["stage"] == "leader":
        if leader_step(ctx, stack, f, f["shots"], "FS 11.3 2-4"):
            f["affected"] = UK if f["shots"][0]["value"] <= 3 else AR
            f["stage"] = "choose"
    elif f["stage"] == "choose":
        affected = f["affected"]
        candidates = [u for u in S.units_in_any(ctx.state, side=affected, classes=["ground"])
                      if DATA.units[u]["type"] == "sf" and not ctx.state["units"][u]["aboard"]
                      and S.contested(ctx.state, S.where(ctx.state, u))]
        if not candidates:
            stack.pop()
            return  # "no effect"
        chooser = S.other(affected)
        if "answer" not in f:
            ask(ctx, stack, chooser, "sf_compromised", "FS 11.3 2-4",
                    f"{chooser}: choose the {affected} SF unit that is removed", {"unit": candidates})
            return
        choice = stack.pop().get("answer")
        u = choice.get("unit") if isinstance(choice, dict) else None
        need(u in candidates, "FS 11.3 2-4", f"choose one of {', '.join(map(name, candidates))}")
        eliminate(ctx, u, "FS 11.3 2-4")
        after_ground_change(ctx)


# ---------------------------------------------------------------------------- free attacks ---
FREE = {
    "uk_surface_detection": (UK, "surface", "FS 11.3 2-1"),
    "uk_submarine_detection": (UK, "submarine", "FS 11.3 2-5"),
    "uk_surprise_sub_attack": (UK, "surprise", "FS 11.3 3-4"),
    "ar_surface_detection": (AR, "surface", "FS 11.3 4-4"),
    "ar_submarine_detection": (AR, "submarine", "FS 11.3 6-5"),
    "ar_surprise_sub_attack": (AR, "surprise", "FS 11.3 6-6"),
}


def _free(key: str):
    side, kind, rule = FREE[key]

    def apply(ctx: Ctx, stack: list, entry: dict) -> None:
        # shots_as_fired: its battle's carrier shots are aimed as fired (FS 10.9, combat.battle_frame)
        stack.append({"step": "free_attack", "side": side, "kind": kind, "rule": f"FS 11.3 {entry['event']}",
                      "shots_as_fired": True})
    EFFECTS[key] = apply


for _k in FREE:
    _free(_k)


def free_attack_options(state: dict, side: str, kind: str) -> dict:
    """Per sea area: who may attack whom (events 2-1, 2-5, 3-4, 4-4, 6-5, 6-6). The events name a
    "sea area" or "sea zone", and the South Georgia box is neither (FS 3.7): no attack there."""
    with S.positions_indexed(state):  # a question of this state only: units_in from an index
        return _free_attack_options(state, side, kind)


def _free_attack_options(state: dict, side: str, kind: str) -> dict:
    enemy = S.other(side)
    out = {}
    for area in DATA.sea_areas:
        mine = S.units_in(state, area, side=side, classes=["ship", "submarine"])
        if kind == "surprise":
            subs = [u for u in mine if S.kind(u) == "submarine"]
            targets = S.units_in(state, area, side=enemy, classes=["ship"])
            if subs and targets and _can_attack(subs, targets, kind):
                out[area] = {"units": subs, "targets": targets}
            continue
        if not S.contested(state, area):
            continue
        targets = S.units_in(state, area, side=enemy, classes=["ship" if kind == "surface" else "submarine"])
        if not targets:
            continue
        carriers = [c for c in S.carriers(state, side) if S.in_carrier_range(state, c, area)
                    and (kind == "surface" or S.where(state, c) == area)]
        aircraft = []
        if side == AR:  # FS 10.2: only the aircraft that can fire at one of the targets (ops.able_to_fire)
            aircraft = [u for u in S.aircraft_in_range(state, area) if fires_at_any(state, _frame(kind), u, targets)]
        units = [u for u in mine if u not in carriers]
        if _can_attack([*units, *carriers, *aircraft], targets, kind):
            out[area] = {"units": units, "carriers": carriers, "aircraft": aircraft, "targets": targets}
    return out


def _frame(kind: str) -> dict:
    """The battle kind a free attack is fought as (its ``battle_frame`` in ``free_attack``)."""
    return {"kind": "surprise" if kind == "surprise" else "naval"}


def _can_attack(attackers: list[str], targets: list[str], kind: str) -> bool:
    """Circumstances permitting (FS 11.2): some unit could fire at some target there."""
    return any(fires_at_any({}, _frame(kind), u, targets) for u in attackers)


def _must_join(state: dict, area: str, opt: dict) -> list[str]:
    """FS 10.2: the attacker's units in the attacked area itself (carriers there too) all take part;
    carriers next door and aircraft are flown in by choice."""
    return [u for u in (*opt["units"], *opt.get("carriers", [])) if S.where(state, u) == area]


@step("free_attack")
def free_attack(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    side, kind, rule = f["side"], f["kind"], f["rule"]
    options = free_attack_options(ctx.state, side, kind)
    if not options:
        stack.pop()
        return
    if "answer" not in f:
        ask(ctx, stack, side, "free_attack", rule,
                f"{side}: attack now, free of any operation ({rule}): choose the area, the units flown in and their fire",
                {"areas": options})
        return
    # FS 11.2: "no activated event may be declined": the player chooses how to attack, not whether.
    choice = f["answer"]
    area = choice.get("area") if isinstance(choice, dict) else None
    need(isinstance(area, str) and area in options, rule,
         f"choose one of {', '.join(map(area_name, options))} to attack (FS 11.2: the event may not be declined)")
    stack.pop()
    opt = options[area]
    units = ids(choice, "units", rule)
    carriers = ids(choice, "carriers", rule)
    aircraft = ids(choice, "aircraft", rule)
    for u in units:
        need(u in opt["units"], rule, f"{name(u)} may not take part")
    for u in carriers:
        need(u in opt.get("carriers", []), rule, f"{name(u)} may not take part")
    # 6-6 is the submarines' attack (as 3-4): only 4-4 and 6-5 fly aircraft in ("In-range aircraft")
    in_range = S.aircraft_in_range(ctx.state, area) if side == AR and kind != "surprise" else []
    for u in aircraft:  # one unable to fire at the targets is refused below, under FS 10.2
        need(u in in_range, rule, f"{name(u)} may not take part" + (": a surprise attack is the submarines' alone"
                                                               if kind == "surprise" else ""))
    named = [*units, *carriers, *aircraft]
    attackers = [*named, *[u for u in _must_join(ctx.state, area, opt) if u not in named]]
    need(attackers, rule, "name the attacking units")
    # a surprise attack is on "any one ... vessel" (its units fire at it); a detection attack is on
    # the area's ships or submarines, with the shots assigned: the other's field is refused, not dropped
    extra = "fire" if kind == "surprise" else "target"
    need(choice.get(extra) is None, rule, f"'{extra}' is not part of this attack (a surprise attack names one "
                                          "'target'; a detection attack assigns its 'fire')")
    if kind == "surprise":
        target = choice.get("target")
        need(target in opt["targets"], rule, "the target is one enemy surface vessel there")
        b = battle_frame(area, side, "surprise", rule, attackers, [target], [], return_fire=False, ignore_protection=True)
        fire = [{"unit": u, "at": target} for u in attackers if can_fire_at(ctx.state, b, u, target)]
        b["fire"] = check_fire(ctx.state, b, side, fire, attackers, [target], rule)
    else:
        exposed = [u for u in attackers if S.where(ctx.state, u) == area or S.kind(u) == "aircraft"]
        b = battle_frame(area, side, _frame(kind)["kind"], rule, attackers, opt["targets"], [], exposed=exposed)
        able_to_fire(ctx, b, aircraft, opt["targets"])
        fire = choice.get("fire", "auto")
        if fire == "auto":
            fire = auto_fire(ctx.state, b, attackers, opt["targets"], side)
        b["fire"] = check_fire(ctx.state, b, side, fire, attackers, opt["targets"], rule)
    need(b["fire"], rule, "an attack needs at least one shot: choose units that can fire")
    if not f.get("shots_as_fired"):  # asked before FS 10.9's shots were aimed as fired: as it was then
        b.pop("shots_as_fired", None)
        b.pop("auto_sides", None)
    stack.append(b)
