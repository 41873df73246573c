"""Random legal orders, for the fuzzer (tests/unit/falklands/test_fuzz.py) and the benchmarks.

``random_order(state, seat, rng)`` builds an order from what legal-orders offers; most are
legal, some are refused by a rule the offer does not capture (capacity, protected targets), so
``candidates`` yields several for a caller to try in turn.
"""

from __future__ import annotations

import random
from typing import Iterator

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA
from domain.rulesets.falklands.rules import OP_NUMBERS as OPERATIONS


def _some(rng: random.Random, items: list, most: int | None = None) -> list:
    items = list(items)
    if not items:
        return []
    k = rng.randint(1, min(len(items), most or len(items)))
    return rng.sample(items, k)


def _pick(rng, items):
    return rng.choice(list(items)) if items else None


def order_for(template: dict, state: dict, seat: str, rng: random.Random) -> dict:
    kind = template["kind"]
    if kind == "setup":
        return {"kind": "setup", "submarines": {u: rng.choice(a) for u, a in template["submarines"].items()}}
    if kind == "submarines":
        moves = {u: rng.choice(a) for u, a in template["moves"].items() if a and rng.random() < 0.3}
        return {"kind": "submarines", "moves": moves}
    if kind == "pass":
        return {"kind": "pass"}
    if kind == "decide":
        return {"kind": "decide", "decision": template["decision"], "choice": decision_choice(template, state, rng)}
    op, c = template["op"], template["choices"]
    o: dict = {"kind": "operation", "op": op}
    if op == 1:
        o["units"] = _some(rng, c["units"], 2)
    elif op in (2, 5, 8):
        o["unit"] = _pick(rng, c["unit"])
    elif op == 3:
        origin = _pick(rng, c["aircraft"])
        aircraft = _some(rng, c["aircraft"][origin], 2)
        o.update(origin=origin, aircraft=aircraft,
                 destination=_pick(rng, [d for d in c["destinations"] if d != origin] or c["destinations"]),
                 refuel=[u for u in c.get("refuel", []) if u in aircraft][:4])  # FS 9.4: of those that fly
    elif op == 4:
        ships_with_sf = {state["units"][u]["aboard"] for u in c["sf"]}
        ships = [s for s in c["ships"] if s in ships_with_sf] + [s for s in c["ships"] if s not in ships_with_sf]
        sub = _pick(rng, c["submarine"])
        sf = c["sf"][:2]
        o.update(ships=ships[:3], submarine=sub, sf=sf)
    elif op == 6:
        o["entry"] = {}
    elif op == 7:
        o.update(sf=_pick(rng, c["sf"]), target=_pick(rng, c["target"]))
    elif op == 12:
        u = _pick(rng, c["units"])
        here = S.where(state, u)
        ships = [s for s in S.units_in(state, here, side=seat, classes=["ship"]) if s != state["units"][u]["aboard"]]
        o["moves"] = {u: _pick(rng, ships) or state["units"][u]["aboard"]}
    elif op == 13:
        base = _pick(rng, c["airbase"])
        o.update(airbase=base, carriers=c["airbase"][base]["carriers"], fire="auto")
    elif op == 14:
        area = _pick(rng, c["area"])
        o.update(area=area, units=c["area"][area]["units"], fire="auto")
    elif op == 15:
        area = _pick(rng, c["area"])
        a = c["area"][area]
        o.update(area=area, units=a["units"], aircraft=_some(rng, a["aircraft"], 3) if rng.random() < 0.5 else [],
                 fire="auto")
    elif op == 16:
        o.update(units=_some(rng, c["units"], 3), area=_pick(rng, c["area"]))
    elif op == 17:
        o.update(area=_pick(rng, c["area"]), wave=_some(rng, c["wave"], 2), fire="auto",
                 bombard=_some(rng, c["bombard"], 3) if c["bombard"] and rng.random() < 0.5 else [],
                 bombard_fire="auto")
    elif op in (18, 19):
        area = _pick(rng, c["area"])
        a = c["area"][area]
        base = _pick(rng, sorted({S.where(state, u) for u in a["aircraft"]})) if a["aircraft"] else None
        flight = [u for u in a["aircraft"] if S.where(state, u) == base]  # one land area (Op #18/#19)
        o.update(area=area, aircraft=_some(rng, flight, 4) if flight else [],
                 carriers=a["carriers"] if not a["aircraft"] or rng.random() < 0.5 else [], fire="auto")
        o["refuel"] = [u for u in o["aircraft"] if DATA.units[u].get("range") == "a4"
                       and S.where(state, u) == S.ARGENTINA][:4]
    elif op == 20:
        origin = _pick(rng, c["units"])
        units = _some(rng, c["units"][origin])
        dest = _pick(rng, [d for d in c["destination"] if d != origin])
        if seat == "UK" and "poor_uk_staff_work" in state["effects"]["UK"]:
            dest = origin  # FS 11.3 1-6: an attack in place only
        o.update(units=units, destination=dest)
        enemy = S.units_in(state, dest, side=S.other(seat), classes=["ship", "submarine"])
        if enemy and not c.get("moves_only") and (dest == origin or rng.random() < 0.6):  # FS 11.3 5-1
            o.update(attack=True, fire="auto")
    elif op == 21:
        o.update(units=_some(rng, c["units"], 4), area=_pick(rng, c["area"]), fire="auto")
    elif op == 22:
        origin = _pick(rng, c["origin"])
        o.update(origin=origin, units=_some(rng, c["origin"][origin], c["most"]),
                 destination=_pick(rng, [d for d in c["destination"] if d != origin]))
        if S.contested(state, o["destination"]) and not c.get("moves_only") and rng.random() < 0.5:
            o.update(attack=True, fire="auto")
    elif op == 23:
        u = _pick(rng, c["units"])
        here = S.where(state, u)
        sea = S.ARGENTINA if here == S.ARGENTINA else S.TACTICAL
        ships = [s for s in S.units_in(state, sea, side=seat, classes=["ship"]) if DATA.units[s].get("capacity", 0) > 0
                 or DATA.units[u]["type"] == "sf"]
        o["loads"] = {u: _pick(rng, ships) or "none"}
    elif op == 24:
        origin = _pick(rng, c["origin"])
        a = c["origin"][origin]
        dest = _pick(rng, a["destination"])
        o.update(origin=origin, destination=dest, units=_some(rng, a["units"]))
        enemy = [u for u in S.units_in(state, dest, side=S.other(seat), classes=["ground"]) if DATA.units[u]["type"] != "sf"]
        if enemy and not c.get("moves_only") and (dest == origin or rng.random() < 0.7):
            o.update(attack=True, fire="auto")
    elif op == 25:
        o.update(area=_pick(rng, c["area"]), fire="auto")
    elif op == "exocet":
        o["target"] = _pick(rng, c["target"])
    return o


def decision_choice(template: dict, state: dict, rng: random.Random) -> dict:
    kind, opts = template["decision_kind"], template["options"]
    if kind == "defensive_fire":
        listed = one_shot_each(opts["fire"], rng) if rng.random() < 0.5 else None
        return {"fire": listed or "auto"}
    if kind == "interception":
        if rng.random() >= 0.7:
            return {"fire": []}
        listed = one_shot_each(opts["fire"], rng) if rng.random() < 0.5 else None
        return {"fire": listed or "auto"}
    if kind == "carrier_shot":
        return {"at": rng.choice(opts["at"])}
    if kind == "leadership":
        return {"reroll": rng.choice(opts["reroll"])["die"]} if rng.random() < 0.5 else {"reroll": None}
    if kind == "emergency_rebase":
        return {"destinations": rebase_destinations(state, opts["destinations"], rng)}
    if kind == "free_attack":
        area = rng.choice(list(opts["areas"]))
        a = opts["areas"][area]
        choice = {"area": area, "units": a["units"], "carriers": a.get("carriers", []),
                  "aircraft": a.get("aircraft", []), "fire": "auto"}
        if "carriers" not in a:  # a surprise attack: one target
            choice = {"area": area, "units": a["units"], "target": rng.choice(a["targets"])}
        return choice
    if kind in ("peru_replacement",):
        return {"unit": rng.choice(opts["unit"])}
    if kind == "exocet":
        return {"target": rng.choice(opts["target"])}
    if kind == "sf_compromised":
        return {"unit": rng.choice(opts["unit"])}
    return {}


def rebase_destinations(state: dict, destinations: dict, rng: random.Random) -> dict:
    """FS 9.6: a base for each aircraft, at random among those with room left for it, counting the
    aircraft already sent there (6.2(3)(4): a random pick each could fill a base twice, and the
    answer would be refused); Argentina, whose capacity is infinite (9.7), when none has room."""
    chosen: dict = {}
    for u, bases in destinations.items():
        room = [a for a in bases
                if S.may_base(state, u, a, [v for v, b in chosen.items() if b == a], contested_ok=True)]
        chosen[u] = rng.choice(room or [S.ARGENTINA])
    return chosen


def one_shot_each(fire: dict, rng: random.Random) -> list[dict] | None:
    """Fire listed by hand where a UK carrier fires: one shot per unit, at a target it may fire at
    (no Pucara or stealth aircraft, FS 7.1 Op #11; no protected target, FS 10.4). A carrier's other
    shots are then aimed as they are fired, each a ``carrier_shot`` decision (FS 10.9), which
    "auto" never asks. None where no carrier fires, or a unit has no such target."""
    if not any(u in T.UK_CARRIERS for u in fire):
        return None
    listed = []
    for unit, targets in fire.items():
        fair = [t for t in targets if DATA.units[t]["type"] != "Puc" and not DATA.units[t].get("stealth")
                and not DATA.units[t].get("protected")]
        if not fair:
            return None
        listed.append({"unit": unit, "at": rng.choice(fair)})
    return listed


def fallback(template: dict) -> dict | None:
    """The answer to try when a decision's fire listed by hand is refused: the server's ("auto")."""
    if template["kind"] == "decide" and template["decision_kind"] in ("defensive_fire", "interception"):
        return {"kind": "decide", "decision": template["decision"], "choice": {"fire": "auto"}}
    return None


# Ground actions are rarer in the offer than moves; weigh them up so random games reach them.
WEIGHT = {15: 6, 16: 4, 17: 6, 24: 4, 25: 6, 8: 4, 5: 4, 7: 2, 23: 2}


def candidates(rules, state: dict, seat: str, rng: random.Random, tries: int = 8) -> Iterator[dict]:
    """Orders to try in turn: random operations first, a pass last (always legal in an Operations Phase).

    Each operation is drawn from ``legal_orders``' offer by ``WEIGHT``, without computing the
    whole offer: an operation is drawn from all of them by weight and its template computed
    (``operation_template``); one not offered is set aside and the draw made again. Drawing
    again until an offered one comes is drawing from the offered ones by their weights, so the
    orders are those of the whole offer, and a caller that takes the first (most do: it is
    usually accepted) pays for one or a few templates instead of every one of about 25."""
    outside = rules.orders_outside_operations(state, seat)
    if outside is not None:  # a decision, the set-up, submarines, or nothing
        for t in outside:
            order = order_for(t, state, seat, rng)
            yield order
            if isinstance(order.get("choice", {}).get("fire"), list) and order["choice"]["fire"]:
                yield fallback(t)  # the listed fire refused (a rule the offer does not capture)
        return
    pool = list(OPERATIONS)  # operation_template says which are offered (never Op #10 or #11)
    known: dict = {}
    for _ in range(tries):
        if not pool or rng.random() >= 0.85:
            break
        template = None
        with S.positions_indexed(state):
            while pool and template is None:
                op = rng.choices(pool, [WEIGHT.get(o, 1) for o in pool])[0]
                if op not in known:
                    known[op] = rules.operation_template(state, seat, op)
                template = known[op]
                if template is None:
                    pool.remove(op)
        if template is None:
            break
        order = order_for(template, state, seat, rng)
        if "with_op_10" in template["fields"] and rng.random() < 0.2:  # FS 7.1 Op #10: while unused
            order["with_op_10"] = True
        yield order
    yield order_for(rules.pass_template(state, seat), state, seat, rng)


def random_order(state: dict, seat: str, rng: random.Random, rules=None) -> dict:
    """One random order (may still be refused by a rule; see ``candidates``)."""
    if rules is None:
        from domain.rulesets import find_ruleset

        rules = find_ruleset("falklands")
    return next(candidates(rules, state, seat, rng))
