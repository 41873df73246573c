"""Solitaire Task Force's own readable lines (the ``describe`` hook of the ruleset, rules.py).

Pure, no Flask: ``describe(event_type, data) -> str | None`` gets an event's data with ids already
replaced by names (projections/narrate.py does that) and returns None for what the generic lines
say well enough (dice, VP, phases, decisions, declared results). Every line is written from the
fields it finds: a missing field is left out, never an error, so a redacted or older event still
reads. An event of the ``stf`` namespace with no line of its own here gets a plain one from its
fields (its name, what it changed, its rule and why).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from domain import events as ev

SEATS = {"Player": "the Player", "system": "the GameSystem"}
LONGEST = 8  # a list longer than this is cut: "a, b, ... and 5 more"
LONGEST_DETAIL = 160  # a SystemActs detail longer than this is cut (the event keeps it whole)
# ... but not what the Player carries out at the table from the line: every ship's spot, every target
TOLD_WHOLE = frozenset({"placement", "sub placement", "gunnery", "SSM wave", "torpedo attack", "air strike",
                        "LBNA missile attack", "hits placed"})
KINDS = {"tf": "task force", "subron": "subron"}


def _text(value: Any, whole: bool = False) -> str:
    """A value in words: lists joined (cut after LONGEST unless ``whole``), dicts as "key value",
    None as "none"."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        shown = value if whole else value[:LONGEST]
        return (", ".join(_text(v, whole) for v in shown) or "none") + \
            (f" and {len(value) - len(shown)} more" if len(value) > len(shown) else "")
    if isinstance(value, dict):
        return ", ".join(f"{_words(k)} {_text(v, whole)}" for k, v in value.items()) or "none"
    return str(value)


def _words(key: Any) -> str:
    return str(key).replace("_", " ")


def _tail(d: dict) -> str:
    """" (STF 8.4): why" — the rule and the GameSystem's reason, whichever the event has."""
    text = f" ({d['rule']})" if d.get("rule") else ""
    if d.get("why"):
        why = str(d["why"])
        if d.get("rule") and why.startswith(f"{d['rule']}: "):  # "(STF 8.7): STF 8.7: an even roll": once
            why = why[len(d["rule"]) + 2:]
        text += f": {why}"
    return text


def _group(d: Any) -> str:
    """A group by its id, or a placed group's own fields: "GameSystem task force TF3"."""
    if isinstance(d, dict):
        owner = {"Player": "Player's", "system": "GameSystem"}.get(d.get("owner"), "")
        kind = KINDS.get(d.get("kind"), "group")
        return " ".join(p for p in (owner, kind, str(d.get("id", "?"))) if p)
    return str(d) if d is not None else "?"


# ---- the campaign --------------------------------------------------------------------------------
def _commitment(value: Any) -> str:
    if not isinstance(value, dict):
        return _text(value)
    player, system = value.get("Player"), value.get("system")
    if isinstance(player, dict):
        player = f"{player.get('points', '?')}/{player.get('carriers', '?')}"
    parts = [f"Player {player}" if player is not None else "", f"GameSystem {system}" if system is not None else ""]
    return ", ".join(p for p in parts if p) or "none"


def _sides(value: Any) -> str:
    """{"Player": 2, "system": 0} -> "Player 2, GameSystem 0"."""
    if not isinstance(value, dict):
        return _text(value)
    return ", ".join(f"{'GameSystem' if k == 'system' else k} {_text(v)}" for k, v in value.items()) or "none"


CAMPAIGN_VALUES: dict[str, Callable[[Any], str]] = {
    "commitment": _commitment,
    "commitment_table": _commitment,
    "system_side": lambda v: "not yet known" if v is None else _text(v),
    "ground_aviation": _sides,
    "tactical": _sides,
    "invader": lambda v: {"Player": "the Player", "system": "the GameSystem"}.get(v, _text(v)),
}
CAMPAIGN_KEYS = {
    "player_side": "Player's side", "system_side": "GameSystem's side", "commitment": "commitment limits",
    "commitment_table": "commitment limits on the table",
    "ground_aviation": "ground aviation squadrons", "tactical": "tactical coordination",
    "system_airbase": "GameSystem's airbase", "player_airbases": "Player's airbases",
    "invasion_target": "invasion target megahex",
}


def _campaign(d: dict) -> str:
    key = d.get("key")
    if key == "system_ccl_turn":
        return (f"GameSystem command control loss: its task forces and subrons move at most one hex in turn "
                f"{_text(d.get('value'))}{_tail(d)}")
    value = CAMPAIGN_VALUES.get(key, _text)(d.get("value"))
    return f"Campaign: {CAMPAIGN_KEYS.get(key, _words(key))} {value}{_tail(d)}"


# ---- groups and units ----------------------------------------------------------------------------
def _placed(d: dict) -> str:
    g = d.get("group") if isinstance(d.get("group"), dict) else {}
    where = f"in hex {g['hex']}" if g.get("hex") else "off the map"
    extra = [f"{_words(k)} {_text(g[k])}" for k in ("mode", "intel", "chit") if g.get(k)]
    if g.get("emcon"):
        extra.append("EMCON")
    text = f"{_group(g)} placed {where}"
    return text + (f" ({', '.join(extra)})" if extra else "") + _tail(d)


def _moved(d: dict) -> str:
    path = d.get("path") or []
    if not path:
        return f"{_group(d.get('group'))} stays where it is{_tail(d)}"
    hexes = "hex" if len(path) == 1 else "hexes"
    return f"{_group(d.get('group'))} moved through {hexes} {' → '.join(map(str, path))}{_tail(d)}"


def _changed(d: dict) -> str:
    changes = dict(d.get("changes")) if isinstance(d.get("changes"), dict) else {}
    # "moved" holds the turn the group moved in (STF 7.1), not a number of hexes: "moved 4" read as 4
    moved = [f"moved in turn {changes.pop('moved')}"] if isinstance(changes.get("moved"), int) else []
    return f"{_group(d.get('group'))}: {', '.join(moved + ([_text(changes)] if changes else []))}{_tail(d)}"


def _removed(d: dict) -> str:
    status = d.get("status")
    return f"{_group(d.get('group'))} removed" + (f": {status}" if status else "") + _tail(d)


def _unit_name(uid: Any, unit: Any) -> str:
    if isinstance(unit, dict):
        name, cls = unit.get("name"), unit.get("class")
        if name:
            return f"{cls} {name}" if cls else str(name)
    return str(uid)


def _assigned(d: dict) -> str:
    units = d.get("units") if isinstance(d.get("units"), dict) else {}
    listed = ", ".join(_unit_name(uid, u) for uid, u in units.items()) or "no units"
    group = d.get("group")
    verb = "joins" if len(units) == 1 else "join"
    text = f"{listed} {verb} {_group(group)}" if group is not None else f"{listed} assigned to no group"
    if d.get("points") is not None:
        text += f" for {d['points']} point{'' if d['points'] == 1 else 's'}"
    return text + _tail(d)


def _unit(d: dict) -> str:
    changes = d.get("changes") if isinstance(d.get("changes"), dict) else {}
    return f"{d.get('unit', '?')}: {_text(changes)}{_tail(d)}"


def _acts(d: dict) -> str:
    detail = d.get("detail")
    text = f"GameSystem: {d.get('what', 'acts')}"
    if detail:
        whole = d.get("what") in TOLD_WHOLE
        told = _text(detail, whole)
        text += f" — {told if whole or len(told) <= LONGEST_DETAIL else told[:LONGEST_DETAIL - 1] + '…'}"
    return text + _tail(d)


def _pool(d: dict) -> str:
    pool = d.get("pool") if isinstance(d.get("pool"), dict) else {}
    return f"Countermix set: {len(pool)} counters to draw from{_tail(d)}"


def _plain(event_type: str, d: dict) -> str:
    """A line for an ``stf`` event with none of its own: its name and fields, its rule and why
    ("Player air action: LBNA patrol — unit badger (STF 2.6.1)"); a lone ``changes`` or ``detail``
    object is told by its contents."""
    name = "".join(f" {c.lower()}" if c.isupper() else c for c in event_type).strip().capitalize()
    fields = {k: v for k, v in d.items() if k not in ("rule", "why")}
    head = f"{name}: {_text(fields.pop('what'))}" if "what" in fields else name
    for key in ("changes", "detail"):
        if isinstance(fields.get(key), dict):
            fields = {**{k: v for k, v in fields.items() if k != key}, **fields[key]}
    if fields:
        head += (" — " if "what" in d else ": ") + _text(fields)
    return head + _tail(d)


def _order(d: dict) -> str | None:
    """The turn's own orders in words; any other order keeps the generic line."""
    order = d.get("order") if isinstance(d.get("order"), dict) else {}
    seat = d.get("seat", "Player")
    if order.get("kind") == "end_phase":
        return f"{seat} ends its part of the phase; the GameSystem's follows (STF 6.7)"
    if order.get("kind") == "declare":
        return f"{seat} declares {_text(order.get('value'))} for {order.get('decision', '?')}"
    return None


LINES: dict[str, Callable[[dict], str | None]] = {
    "OrderAccepted": _order,
    "CampaignFixed": _campaign,
    "GroupPlaced": _placed,
    "GroupMoved": _moved,
    "GroupChanged": _changed,
    "GroupRemoved": _removed,
    "UnitsAssigned": _assigned,
    "UnitChanged": _unit,
    "SystemActs": _acts,
    "PoolSet": _pool,
}


@functools.lru_cache(maxsize=1)
def counter_names() -> dict[str, str]:
    """{counter id: "CLASS Name"} of data/countermix.json (read once; empty without it)."""
    try:
        from domain.rulesets.stf import forces
    except ImportError:  # the forces part is not on this branch
        return {}
    return {cid: f"{c['class']} {c['name']}" if c.get("class") else str(c.get("name", cid))
            for cid, c in forces.COUNTERS.items()}


def describe(event_type: str, data: dict) -> str | None:
    if not isinstance(data, dict):
        return None
    line = LINES.get(event_type)
    if line is not None:
        return line(data)
    if ev.EVENT_TYPES.get(("stf", event_type)) is not None:
        return _plain(event_type, data)
    return None
