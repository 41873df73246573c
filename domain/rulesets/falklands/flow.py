"""The steps that carry an operation, a phase and a turn through (FS 5, 7, 9.6, 10.9, 11).

Every step is a frame handler registered with ``@step`` (hooks.py) on the toolkit's step engine
(domain/rulesets/toolkit/engine.py).
"""

from __future__ import annotations

from domain import events as ev
from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import events as fe
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.combat import (
    after_ground_change, auto_fire, battle_frame, check_fire, eliminate, leader_step, offer_reroll, sf_bonus,
    stranded_aircraft,
)
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.hooks import ask, d6, step
from domain.rulesets.falklands.ops import AIR_ONLY, GROUND_ACTION, area_name, interception_frame, name
from domain.rulesets.toolkit.engine import Ctx, need

UK, AR = S.UK, S.AR
PHASE_EFFECTS = {"UK Operations": (UK, ("uk_operational_superiority", "poor_uk_staff_work")),
                 "AR Operations": (AR, ("ar_air_mechanical", "poor_ar_logistics", "ar_air_panache",
                                        "ar_target_of_opportunity"))}


# ---------------------------------------------------------------------------- interception ---
@step("intercept")
def intercept(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    aircraft = [u for u in f["aircraft"] if S.alive(ctx.state, u)]
    carriers = [c for c in f["carriers"] if S.alive(ctx.state, c)]
    if not aircraft or not carriers:
        stack.pop()
        return
    b = battle_frame(f["area"], UK, "interception", "FS 7.1 Op #11", carriers, aircraft, [], return_fire=False)
    reach = {c: [u for u in f.get("reach", {}).get(c, aircraft) if u in aircraft] for c in carriers}  # by route
    b["reach"] = reach  # a carrier's shots aimed as fired go to the aircraft it watches (FS 10.9)
    if not f.get("shots_as_fired"):  # asked before FS 10.9's shots were aimed as fired: as it was then
        b.pop("shots_as_fired", None)
    if "answer" not in f:
        options = reach
        ask(ctx, stack, UK, "interception", "FS 7.1 Op #11",
                f"UK: intercept the AR aircraft flying to {DATA.areas[f['area']]['name']} with your carriers?",
                {"fire": options, "shots": {c: 4 if ctx.state.get("rendezvous") else 3 for c in carriers},
                 "pass": True})
        return
    choice = f.pop("answer")
    fire = choice.get("fire") if isinstance(choice, dict) else None
    stack.pop()
    if fire is None or fire == []:
        return  # the UK lets them pass (0, "" or false is no answer: check_fire refuses it)
    if fire == "auto":
        fire = [shot for c in carriers for shot in auto_fire(ctx.state, b, [c], reach[c], UK)]
    for shot in fire if isinstance(fire, list) else []:
        if not isinstance(shot, dict) or not isinstance(shot.get("unit"), str) or not isinstance(shot.get("at"), str):
            continue  # check_fire says what a shot is
        u, t = shot.get("unit"), shot.get("at")
        need(u in carriers, "FS 7.1 Op #11", f"{name(u)} cannot intercept: only UK aircraft "
                                             "carriers on or next to the flight's route (or in range of the Tactical Map) do")
        need(t not in DATA.units or (DATA.units[t]["type"] != "Puc" and not DATA.units[t].get("stealth")),
             "FS 7.1 Op #11", f"{name(t)}: Pucara and stealth aircraft may never be "
                              "intercepted (FS 7.1 Op #11, FS 10.5)")
        need(t in aircraft, "FS 7.1 Op #11", f"{name(t)} is not an AR aircraft of this flight")
    b["fire"] = check_fire(ctx.state, b, UK, fire, carriers, aircraft, "FS 7.1 Op #11", every=False)  # Op #11: "may"
    for shot in b["fire"]:
        need(shot["at"] in reach[shot["unit"]], "FS 7.1 Op #11",
             f"{name(shot['unit'])} is not on the route of {name(shot['at'])}")
    stack.append(b)


@step("rebase_moves")
def rebase_moves(ctx: Ctx, stack: list) -> None:
    f = stack.pop()
    for u in f["aircraft"]:
        if S.alive(ctx.state, u):
            ctx.emit(ev.UnitMoved, unit=u, origin=S.where(ctx.state, u), destination=f["destination"], rule=f["rule"])


@step("ground_settle")
def ground_settle(ctx: Ctx, stack: list) -> None:
    stack.pop()
    after_ground_change(ctx)


# --------------------------------------------------------------------------------- Op #7 ---
@step("sf_raid")
def sf_raid(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    if f["stage"] == "remove":
        eliminate(ctx, f["target"], "FS 7.1 Op #7")
        i = len(ctx.state["order_rolls"])
        r = d6(ctx, UK, f"{name(f['sf'])} withdraws after the raid (a six eliminates it)", "FS 7.1 Op #7", [f["sf"]])
        f["shots"] = [{"side": UK, "unit": f["sf"], "value": r.values[0], "index": i, "purpose": "SF raid"}]
        f["stage"] = "leader"
    elif f["stage"] == "leader":
        # the die the holder dislikes (11.3 4-1/4-3, docs/rulesets.md): the UK a six, the AR any other
        if leader_step(ctx, stack, f, f["shots"], "FS 7.1 Op #7",
                       lambda holder: raid_loses_sf(f["shots"][0]) == (holder == UK)):
            stack.pop()
            if raid_loses_sf(f["shots"][0]):
                eliminate(ctx, f["sf"], "FS 7.1 Op #7")


def raid_loses_sf(shot: dict) -> bool:
    """FS 7.1 Op #7: "On a result of six, the involved UK SF unit is eliminated"."""
    return shot["value"] == 6


# -------------------------------------------------------------------------------- Op #17 ---
@step("assault")
def assault(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    side, area = f["side"], f["area"]
    if f["stage"] == "land":
        wave = [u for u in f["wave"] if S.alive(ctx.state, u)]
        for u in wave:
            ctx.emit(ev.UnitDisembarked, unit=u, ship=ctx.state["units"][u]["aboard"], area=area, rule="FS 7.1 Op #17")
        f["wave"] = wave
        f["stage"] = "fight"
        # FS 3.6: a wave landing where no enemy ground unit stands takes the area "the instant" it
        # is ashore, its VP then (4.4), and 4.5 may stop play before the second wave lands
        after_ground_change(ctx)
        enemy = [u for u in S.units_in(ctx.state, area, side=S.other(side), classes=["ground"])]
        targets = [u for u in enemy if DATA.units[u]["type"] != "sf"]
        shooters = [u for u in wave if DATA.units[u]["type"] != "sf"]
        if targets and shooters:
            b = battle_frame(area, side, "assault", "FS 7.1 Op #17", wave, enemy, [],
                             mods={u: [[-1, "landing in the first wave (FS 7.1 Op #17)"]] for u in wave},
                             exposed=wave, sf_bonus=sf_bonus([*wave, *enemy]))
            if f["fire"] == "auto":
                b["fire"] = auto_fire(ctx.state, b, shooters, targets, side)
            else:  # checked with the order (ops.op_17); a target the bombardment removed takes no shot
                b["fire"] = [s for s in f["fire"] if s["unit"] in wave and s["at"] in targets]
            stack.append(b)
    elif f["stage"] == "fight":
        # FS 9.6: AR aircraft the first wave left alone on a base the UK now holds rebase
        # "immediately", before the second wave lands (as before an Op #24 march's attack)
        if stranded_aircraft(ctx.state) and not f.get("rebased"):
            f["rebased"] = True
            stack.append({"step": "rebase"})
            return
        stack.pop()
        survivors = [u for u in f["wave"] if S.alive(ctx.state, u)]
        if survivors and f["second"]:
            for u in f["second"]:
                if S.alive(ctx.state, u) and ctx.state["units"][u]["aboard"]:
                    ctx.emit(ev.UnitDisembarked, unit=u, ship=ctx.state["units"][u]["aboard"], area=area,
                             rule="FS 7.1 Op #17")
        after_ground_change(ctx)


# ------------------------------------------------------------------------------- Exocet ---
@step("exocet")
def exocet(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    if f["stage"] == "fire":
        i = len(ctx.state["order_rolls"])
        hn = DATA.exocet_hit_number  # FS 11.3 6-4: "The AR hit number is three." (the marker, data)
        r = d6(ctx, AR, f"land-launched Exocet at {name(f['target'])}", "FS 11.3 6-4", [f["target"]], hn)
        f["shots"] = [{"side": AR, "at": f["target"], "hit_number": hn, "value": r.values[0], "index": i,
                       "purpose": "Exocet"}]
        f["stage"] = "leader"
    elif f["stage"] == "leader":
        # the die the holder dislikes (11.3 4-1/4-3, docs/rulesets.md): the UK a hit, the AR a miss
        if leader_step(ctx, stack, f, f["shots"], "FS 11.3 6-4",
                       lambda holder: exocet_hits(ctx.state, f) == (holder == UK)):
            stack.pop()
            if exocet_hits(ctx.state, f):
                left = ctx.state["units"][f["target"]]["steps"] - 1
                if left <= 0:
                    eliminate(ctx, f["target"], "FS 11.3 6-4")
                else:
                    ctx.emit(ev.UnitHit, unit=f["target"], steps_lost=1, steps_left=left, rule="FS 11.3 6-4", roll=None)


def exocet_hits(state: dict, f: dict) -> bool:
    """FS 11.3 6-4: the Exocet's die within its hit number takes a step of its target, still afloat."""
    shot = f["shots"][0]
    return shot["value"] <= shot["hit_number"] and S.alive(state, f["target"])


# ------------------------------------------------------------------- emergency rebasing ---
@step("rebase")
def rebase(ctx: Ctx, stack: list) -> None:
    """FS 9.6 / 6.3: AR aircraft on a base the UK now holds rebase at once, unit by unit."""
    f = stack[-1]
    stranded = stranded_aircraft(ctx.state)
    if not stranded:
        stack.pop()
        return
    # "to another friendly controlled or contested base area": contested whoever held it last (FS 3.6)
    options = {u: [a for a in (*DATA.airbases, S.ARGENTINA) if a == S.ARGENTINA or
                   S.may_base(ctx.state, u, a, contested_ok=True)] for u in stranded}
    if "answer" not in f:
        ask(ctx, stack, AR, "emergency_rebase", "FS 9.6",
                "AR: your aircraft must rebase at once (FS 9.6); choose a base for each: Argentina is always "
                "possible, and an aircraft you name no base for goes there",
                {"destinations": options})
        return
    choice = f.pop("answer")
    dest = choice.get("destinations", {}) if isinstance(choice, dict) else {}
    if not isinstance(dest, dict) or not all(isinstance(a, str) for a in dest.values()):
        raise InvalidOrder("'destinations' maps aircraft to bases", rule="FS 9.6", field="choice")
    for u in dest:
        need(u in stranded, "FS 9.6", f"{name(u)} is not an AR aircraft that must rebase now")
    chosen = {u: dest.get(u, S.ARGENTINA) for u in stranded}
    for u, a in chosen.items():
        if a not in options[u]:
            raise RuleViolation(*rebase_refusal(ctx.state, u, a))
    for a in dict.fromkeys(d for d in chosen.values() if d != S.ARGENTINA):  # in the order given: one refusal everywhere
        going = [u for u, d in chosen.items() if d == a]
        need(len(S.units_in(ctx.state, a, side=AR, classes=["aircraft"])) + len(going) <= DATA.airbases[a],
             T.BASING_RULES.get(a, "FS 6.2"), f"{DATA.areas[a]['name']} bases at most {DATA.airbases[a]} AR aircraft")
    stack.pop()
    moves = [{"step": "rebase_moves", "aircraft": [u], "origin": S.where(ctx.state, u), "destination": a,
              "rule": "FS 9.6"} for u, a in chosen.items()]
    flights = interception_frame(ctx.state, list(chosen), S.TACTICAL, "9.6", destinations=chosen)
    stack.extend(reversed(moves))
    if flights:
        stack.append(flights)


def rebase_refusal(state: dict, u: str, a: str) -> tuple[str, str]:
    """Why aircraft ``u`` may not make its emergency rebasing to ``a``: the rule it breaks, named as
    Op #3's refusal names it for the same move (FS 3.7 the box; after Black Buck Op #9; a full base
    6.2(3)(4)), else 9.6's own "another friendly controlled or contested base area or ... Argentina"."""
    where = area_name(a)
    if a == S.SOUTH_GEORGIA:
        return "FS 3.7", f"{name(u)} cannot rebase to {where}: no AR unit but submarines may be moved into it"
    if a not in DATA.airbases or not (S.controlled_by(state, a) == AR or S.contested(state, a)):
        return "FS 9.6", (f"{name(u)} cannot rebase to {where}: it goes to another friendly controlled or contested "
                          "base area, or to Argentina")
    if "black_buck" in state["effects"][UK] and DATA.units[u]["type"] != "Puc":
        return "FS 7.1 Op #9", f"{name(u)} cannot rebase to {where}: after Black Buck only Pucaras base in the Falklands"
    return (T.BASING_RULES.get(a, "FS 6.2"),
            f"{name(u)} cannot rebase to {where} (it bases at most {DATA.airbases[a]} AR aircraft)")


# ----------------------------------------------------------------------- after an operation ---
@step("after_op")
def after_op(ctx: Ctx, stack: list) -> None:
    f = stack[-1]
    if stranded_aircraft(ctx.state):
        stack.append({"step": "rebase"})
        return
    stack.pop()
    side, op = f["side"], f["op"]
    left = ctx.state["uk_operations_left"]
    if side == UK:
        # FS 10.9: "all three ships being in the same sea area" - the South Georgia box is not one (3.7).
        vessels = [u for u in T.UK_CARRIERS + (T.CONVEYOR,) if S.alive(ctx.state, u)]
        met = {S.where(ctx.state, u) for u in vessels}
        if len(vessels) == 3 and len(met) == 1 and met <= set(DATA.sea_areas) and not ctx.state["rendezvous"]:
            ctx.emit(ev.UnitWithdrawn, unit=T.CONVEYOR, reason="rendezvous with Hermes and Invincible", rule="FS 10.9")
        in_tez = [u for u in S.units_in_any(ctx.state, side=UK, classes=["ship"]) if S.where(ctx.state, u) in DATA.tez]
        if not in_tez:
            ctx.vp(S.TRACK, 1, "no UK surface ship in the TEZ at the end of a UK operation", "FS 4.4(1)")
        pressure = ctx.state.get("political_pressure")
        if pressure:
            if op in GROUND_ACTION or f.get("ground_attack"):
                ctx.emit(ev.EffectSpent, side=UK, effect="political_pressure", rule="FS 11.3 4-5")
            else:
                deadlines = [pressure["ops_left"], *pressure.get("later", [])]  # one per 4-5 rolled (FS 11.2)
                rest = [n - 1 for n in deadlines if n > 1]
                if not rest:
                    ctx.emit(ev.EffectSpent, side=UK, effect="political_pressure", rule="FS 11.3 4-5")
                for _ in [n for n in deadlines if n <= 1]:
                    ctx.vp(S.TRACK, 2, "no landing or ground attack within three UK operations", "FS 11.3 4-5")
                if rest:
                    ctx.emit(ev.EffectGained, side=UK, effect="political_pressure", title="UK political pressure",
                             rule="FS 11.3 4-5",
                             detail={"ops_left": rest[0], **({"later": rest[1:]} if rest[1:] else {})})
        if not f.get("free"):
            left -= 1
    if "tez_expanded" in ctx.state["effects"][UK]:
        ctx.emit(ev.EffectSpent, side=UK, effect="tez_expanded", rule="FS 7.1 Op #10")
    if side == AR and "ar_target_of_opportunity" in ctx.state["effects"][AR]:
        # FS 11.3 "3-2 & 3-3": the end names the result that was rolled
        rolled = (ctx.state["effects"][AR]["ar_target_of_opportunity"] or {}).get("event", "3-2")
        ctx.emit(ev.EffectSpent, side=AR, effect="ar_target_of_opportunity", rule=f"FS 11.3 {rolled}")
    ctx.emit(fe.OperationCompleted, side=side, op=op, uk_operations_left=left, rule="FS 5.3")
    if side == UK and left <= 0:
        end_of_game(ctx)
        return
    po = ctx.state["phase_ops"]
    # FS 11.3 5-6: "air_only" is False for an Op #18/#19 the 25 de Mayo flies (rules._operation)
    solo = side == AR and "ar_air_panache" in ctx.state["effects"][AR] and not f.get("air_only", op in AIR_ONLY)
    if po["done"] >= po["allowed"] or solo:
        end_phase(ctx, stack)


def end_of_game(ctx: Ctx) -> None:
    """FS 4.2, 4.6: after the last UK operation. A contested Port Stanley is controlled by nobody
    (3.6: an area is "controlled" by the AR or UK side, "or they may be 'contested'"), so the UK
    does not meet 4.2 there even if it held the area before the AR came back."""
    vp = ctx.state["vp"][S.TRACK]
    if S.contested(ctx.state, T.PORT_STANLEY):
        ctx.emit(ev.GameEnded, winner=AR, level="war and game",
                 reason="Port Stanley is contested after the last UK operation: the UK does not control it",
                 rule="FS 4.2")
    elif S.controlled_by(ctx.state, T.PORT_STANLEY) != UK:
        ctx.emit(ev.GameEnded, winner=AR, level="war and game",
                 reason="the UK does not control Port Stanley after its last operation", rule="FS 4.2")
    elif vp <= 0:
        ctx.emit(ev.GameEnded, winner=UK, level="competitive game",
                 reason=f"UK holds Port Stanley and the VP track is at {vp}", rule="FS 4.6")
    else:
        ctx.emit(ev.GameEnded, winner=AR, level="competitive game",
                 reason=f"UK holds Port Stanley but the VP track is at +{vp}", rule="FS 4.6")


def end_phase(ctx: Ctx, stack: list) -> None:
    phase = ctx.state["phase"]
    side, effects = PHASE_EFFECTS.get(phase, (None, ()))
    for e in effects:
        if e in ctx.state["effects"][side]:
            ctx.emit(ev.EffectSpent, side=side, effect=e, rule="FS 11.3")
    at = S.PHASES.index(phase) if phase in S.PHASES else -1
    nxt = S.PHASES[at + 1] if at + 1 < len(S.PHASES) else None
    if nxt is None:
        ctx.emit(ev.TurnAdvanced, turn=ctx.state["turn"] + 1, phase=S.PHASES[0], rule="FS 5.2")
        return
    ctx.emit(ev.PhaseAdvanced, turn=ctx.state["turn"], phase=nxt, rule="FS 5.2")
    if nxt == "Random Event":  # FS 11.1: every turn has its Random Events Phase, then ends
        stack.append({"step": "end_turn"})
        stack.append({"step": "random_event", "stage": "roll", "leader_each_die": True})


@step("end_turn")
def end_turn(ctx: Ctx, stack: list) -> None:
    if stranded_aircraft(ctx.state):
        stack.append({"step": "rebase"})
        return
    stack.pop()
    ctx.emit(ev.TurnAdvanced, turn=ctx.state["turn"] + 1, phase=S.PHASES[0], rule="FS 5.2")


# ------------------------------------------------------------------------- random events ---
@step("random_event")
def random_event(ctx: Ctx, stack: list) -> None:
    """FS 11.2: the UK die is the first digit, the AR die the second."""
    f = stack[-1]
    if f["stage"] == "roll":
        # each die may be rolled again right after it is rolled (FS 11.3 4-1/4-3, combat.offer_reroll):
        # the AR die is rolled once the UK die stands
        f.setdefault("shots", [])
        while len(f["shots"]) < 2:
            side = (UK, AR)[len(f["shots"])]
            i = len(ctx.state["order_rolls"])
            r = d6(ctx, side, f"random event, {side} die ({'first' if side == UK else 'second'} digit)", "FS 11.2", [])
            f["shots"].append({"side": side, "value": r.values[0], "index": i, "purpose": f"random event, {side} die"})
            if offer_reroll(ctx, stack, f, "FS 11.2"):
                return
        f["stage"] = "leader"
    elif f["stage"] == "leader":
        if leader_step(ctx, stack, f, f["shots"], "FS 11.2"):
            stack.pop()
            key = f"{f['shots'][0]['value']}{f['shots'][1]['value']}"
            entry = DATA.events[key]
            from domain.rulesets.falklands.randomevents import EFFECTS, no_effect
            # the log says why a result does nothing (6-4 rolled again; a free attack with nothing
            # to attack), not only that it was rolled
            why = no_effect(ctx.state, entry)
            title = entry["title"] + (f": {why}" if why else "")
            ctx.emit(ev.RandomEventDrawn, table="FS 11.3", result=entry["event"], title=title,
                     rule=f"FS 11.3 {entry['event']}", roll=None)
            EFFECTS[entry["effect"]](ctx, stack, entry)
