"""The events that are Solitaire Task Force's own (namespace "stf"), each with its fold.

Each records an outcome with the rule that caused it (``rule``) and, where the GameSystem chose,
why (``why``), so a replay shows why a group went where it went. The generic events (dice, VP,
phases and turns, pending decisions, declared results, the end) are in domain/events.py.
"""

from __future__ import annotations

from typing import Any, Callable

from domain.events import GameEvent
from domain.rulesets.core import json_copy


class CampaignFixed(GameEvent):
    """A value of the campaign is fixed (the map, the mission, a commitment limit, a level...):
    ``state["campaign"][key] = value``."""

    RULESET = "stf"

    key: str
    value: Any
    rule: str


class GroupPlaced(GameEvent):
    """A task force or subron counter is placed on the map (or set aside off it, ``hex`` None):
    ``group`` = {id, owner, kind ("tf" or "subron"), hex, ...} (STF 6)."""

    RULESET = "stf"

    group: dict
    rule: str


class GroupMoved(GameEvent):
    """A group moved along ``path`` (hexes entered, in order); ``why`` says which rule chose it."""

    RULESET = "stf"

    group: str
    path: list
    rule: str
    why: str


class GroupChanged(GameEvent):
    """Fields of a group changed: ``changes`` = {field: new value} (intelligence, chit, size, mode,
    retiring, ...)."""

    RULESET = "stf"

    group: str
    changes: dict
    rule: str
    why: str


class GroupRemoved(GameEvent):
    """A group left the map: ``status`` is "false contact", "off map", "retired" or "sunk"
    (its counter is kept, with ``hex`` None, so a later rule may bring it back: STF 6.3)."""

    RULESET = "stf"

    group: str
    status: str
    rule: str
    why: str


class UnitsAssigned(GameEvent):
    """Units (ships, subs, squadrons) join ``group`` (None: a base or the pool): ``units`` =
    {id: unit}; a unit drawn from the countermix leaves ``state["pool"]``. ``points``: what
    they cost against a commitment (STF 8.9: a substitute costs what it replaces)."""

    RULESET = "stf"

    group: Any
    units: dict
    points: int
    rule: str
    why: str


class UnitChanged(GameEvent):
    """Fields of a unit changed (hits, sunk, loads spent, damage): ``changes`` = {field: value}."""

    RULESET = "stf"

    unit: str
    changes: dict
    rule: str
    why: str


class SystemActs(GameEvent):
    """The GameSystem decided something the Player carries out with the base game (an air strike
    package, a missile plan, gunnery, placement on the tactical display, retirement): ``what`` is
    a short name, ``detail`` the decision, ``why`` the rule's reason."""

    RULESET = "stf"

    what: str
    detail: dict
    rule: str
    why: str


class PoolSet(GameEvent):
    """The countermix the campaign draws from (STF 1.7, 8.10), copied from data/countermix.json
    into the game so that a later correction of the file never changes a game under way:
    ``pool`` = {counter id: {name, nation, class, value, vp, ...}}."""

    RULESET = "stf"

    pool: dict
    rule: str


def _campaign(state: dict, e: Any) -> dict:
    return {**state, "campaign": {**state["campaign"], e.key: json_copy(e.value)}}


def _placed(state: dict, e: Any) -> dict:
    group = {"units": [], "status": "on map", **json_copy(e.group)}
    return {**state, "groups": {**state["groups"], group["id"]: group}}


def _group(state: dict, gid: str, changes: dict) -> dict:
    return {**state, "groups": {**state["groups"], gid: {**state["groups"][gid], **changes}}}


def _moved(state: dict, e: Any) -> dict:
    return _group(state, e.group, {"hex": e.path[-1]}) if e.path else state


def _changed(state: dict, e: Any) -> dict:
    return _group(state, e.group, json_copy(e.changes))


def _removed(state: dict, e: Any) -> dict:
    return _group(state, e.group, {"hex": None, "status": e.status})


def _assigned(state: dict, e: Any) -> dict:
    units = {**state["units"]}
    pool = state["pool"]
    for uid, unit in e.units.items():
        units[uid] = {**json_copy(unit), "group": e.group}
        counter = unit.get("counter")
        if counter is not None and counter in pool:
            pool = {k: v for k, v in pool.items() if k != counter}
    state = {**state, "units": units, "pool": pool}
    if e.group is not None:
        group = state["groups"][e.group]
        state = _group(state, e.group, {"units": [*group["units"], *[u for u in e.units if u not in group["units"]]]})
    return state


def _unit(state: dict, e: Any) -> dict:
    return {**state, "units": {**state["units"], e.unit: {**state["units"][e.unit], **json_copy(e.changes)}}}


def _pool(state: dict, e: Any) -> dict:
    return {**state, "pool": json_copy(e.pool)}


FOLD: dict[str, Callable[[dict, Any], dict]] = {
    "PoolSet": _pool,
    "CampaignFixed": _campaign,
    "GroupPlaced": _placed,
    "GroupMoved": _moved,
    "GroupChanged": _changed,
    "GroupRemoved": _removed,
    "UnitsAssigned": _assigned,
    "UnitChanged": _unit,
}
