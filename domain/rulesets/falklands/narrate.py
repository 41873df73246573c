"""Falklands Showdown's own readable lines (the ``describe`` hook of the ruleset).

Pure, no Flask: ``describe(event_type, data) -> str | None`` gets an event's data with ids already
replaced by names (projections/narrate.py does that) and returns None for what the generic lines
say well enough.
"""

from __future__ import annotations

from typing import Callable

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.combat import FACTOR, clamp
from domain.rulesets.falklands.data import DATA

EFFECT_NAMES = DATA.effect_names()  # {id: {name, rule}}, as the map's "In effect" panel names them
UNIT_BY_NAME = {u["name"]: uid for uid, u in DATA.units.items()}  # the line gets names; the counters are by id
STEALTH = "FS 10.5"  # "reduced to one", after FS 10.3's limits (combat.hit_number)


def _op(op) -> str:
    return "the land-launched Exocet" if op == "exocet" else f"Op #{op}"


def _signed(value: int) -> str:
    return f"−{-value}" if value < 0 else f"+{value}"


def _ending(d: dict) -> str:
    """A die line's ending: its outcome, the roll it replaces and its rule."""
    text = f": {d['outcome']}" if d.get("outcome") else ""
    if d.get("replaces"):
        text += f" (re-roll of #{d['replaces']})"
    return text + (f" ({d['rule']})" if d.get("rule") else "")


def _printed(d: dict) -> int | None:
    """The printed hit number of a shot (FS 2.7): the firing unit's factor against the target's
    kind, the die's units being the shooter and its target (combat.fire_shots); None when the
    die names no such pair (the Exocet names its target only)."""
    units = [UNIT_BY_NAME.get(n, n) for n in d.get("units") or []]  # names, or ids read without a ruleset
    if len(units) != 2 or not all(u in DATA.units for u in units):
        return None
    shooter, target = units
    return DATA.units[shooter]["factors"].get(FACTOR[DATA.units[target]["class"]])


def _words(mods: list[dict]) -> list[str]:
    return [f"{_signed(m['value'])} {m['reason']}" for m in mods]


def _explained(needed: int, printed: int | None, mods: list[dict]) -> list[str]:
    """Why the hit number is ``needed``: the printed number, each modifier, and the limit FS 10.3
    held the sum at ("no printed hit number of one or more may ever be reduced to zero ... no hit
    number of one through five may ever be modified into a six"), then 10.5's "reduced to one".
    The printed number is the counter's, so far as it gives the number recorded; else it is told
    only where the modifiers give it back (a number held at 1 or 5 does not)."""
    stealth = [m for m in mods if STEALTH in m["reason"]]
    others = [m for m in mods if m not in stealth]
    if printed is not None:
        raw = printed + sum(m["value"] for m in others)
        held = clamp(printed, raw)
        if held + sum(m["value"] for m in stealth) == needed:
            limit = [f"sum {str(raw).replace('-', '−')} held at {held} (FS 10.3)"] if held != raw else []
            return [f"printed {printed}", *_words(others), *limit, *_words(stealth)]
    total = sum(m["value"] for m in mods)
    parts = _words(mods)
    # The printed number is the modified one less the modifiers, unless FS 10.3 held the sum at
    # 1 or 5: then the modifiers alone do not tell it.
    if 1 < needed < 5 or (needed >= 5 and total < 0):
        parts.insert(0, f"printed {needed - total}")
    return parts


def _hit_number(d: dict) -> str | None:
    """A die against a hit number (FS 10.2): the hit number recorded is the modified one.
    "rolled 2, needed ≤ 2 (printed 3, −1 AR entrenchments): hit"; one FS 10.3 held reads
    "needed ≤ 1 (printed 2, −1 ..., −1 ..., sum 0 held at 1 (FS 10.3))"."""
    target = d.get("target")
    if not isinstance(target, dict) or "hit_number" not in target:
        return None
    faces = ", ".join(str(x["value"]) for x in d["dice"])
    text = f"{d['seat']} rolled {d.get('notation') or 'd6'} for {d['purpose'] or 'no stated purpose'}"
    if d.get("units"):
        text += f" ({', '.join(d['units'])})"
    needed = target["hit_number"]
    mods = target.get("modifiers") or []
    parts = _explained(needed, _printed(d), mods) if mods else []
    text += f": rolled {faces}, needed ≤ {needed}" + (f" ({', '.join(parts)})" if parts else "")
    return text + _ending(d)


def _order(d: dict) -> str | None:
    order = d["order"]
    if order.get("kind") != "operation" or "op" not in order:
        return None
    return f"{d['seat']} orders operation: {_op(order['op'])}"


def _marker_played(d: dict) -> str | None:
    """FS 11.3 4-1/4-3: the rival's event takes a held marker away (not played): "both markers are
    then out of play". A marker played for a re-roll reads as the generic line."""
    rival_event = ("FS 11.3 4-1", "FS 11.3 4-2") if d.get("side") == "AR" else ("FS 11.3 4-3",)
    if d.get("rule") not in rival_event:
        return None
    return (f"{d['marker']} marker taken away from {d['side']}: both Decisive Leader markers are out of play "
            f"({d['rule']})")


def _battle(d: dict) -> str | None:
    """An Op #11 interception is fought on the flight's route, not in the area it is bound for
    (whose mountains and entrenchments do not apply, FS 10.6, 10.7): its line says so. Other
    battles read as the generic line."""
    if d.get("kind") != "interception":
        return None
    return (f"Interception of the flight to {d['area']}: {d['attacker']} fires with {', '.join(d['attackers'])} "
            f"at {', '.join(d['defenders'])}, on its way ({d['rule']})")


def _moved(d: dict) -> str | None:
    """FS 9.6: an emergency rebasing says why the aircraft moved and why there: its base is in an
    area where the UK's ground units now stand alone with it; Argentina is where one goes that the
    AR named no other base for (an answer leaving it out sends it there). Other moves: the generic line."""
    if d.get("rule") != "FS 9.6":
        return None
    why = (f"{d['unit']} makes an emergency rebasing from {d.get('origin') or 'its base'}, an area where UK ground "
           f"units stand and no AR ground unit does, to {d['destination']}")
    argentina = (S.ARGENTINA, DATA.areas[S.ARGENTINA]["name"])  # the name, or the id read without a ruleset
    return why + (", the AR having named no other base for it" if d["destination"] in argentina else
                  ", the base the AR named for it") + " (FS 9.6)"


def _effect_gained(d: dict) -> str | None:
    """FS 11.3 4-5: the count of the UK operations left for a landing or ground attack, so the log
    shows when the two VP fall due (one count per 4-5 rolled, FS 11.2). Others: the generic line."""
    detail = d.get("detail") or {}
    if d.get("effect") != "political_pressure" or "ops_left" not in detail:
        return None
    counts = [detail["ops_left"], *detail.get("later", [])]
    left = " and ".join(f"{n} UK operation{'s' if n != 1 else ''}" for n in counts)
    return (f"{d['side']}: {d['title']}: an amphibious landing or ground attack within the next {left}, "
            f"or +2 VP to the AR ({d['rule']})")


LINES: dict[str, Callable[[dict], str | None]] = {
    "BattleBegun": _battle,
    "EffectGained": _effect_gained,
    "MarkerPlayed": _marker_played,
    "UnitMoved": _moved,
    "DiceRolled": _hit_number,
    "OrderAccepted": _order,
    "OperationBegun": lambda d: (f"{d['side']}: no operation" if d["op"] == "pass" else
                                 f"{d['side']} conducts {_op(d['op'])}: {d['title']}")
                                + (" (free: two for the price of one)" if d.get("free") else "") + f" ({d['rule']})",
    "EffectSpent": lambda d: f"{d['side']}: {EFFECT_NAMES.get(d['effect'], {}).get('name', d['effect'])} ends ({d['rule']})",
    "OperationCompleted": lambda d: (f"{d['side']} operation done" if d["op"] != "weather" else "Severe weather spends a UK operation")
                                    + f"; UK operations remaining: {d['uk_operations_left']}",
}


def describe(event_type: str, data: dict) -> str | None:
    line = LINES.get(event_type)
    return line(data) if line else None
