"""PG 6, the hex map and line of sight, on the toolkit's hex grid (domain/rulesets/toolkit/hexes.py).

PG 6  Hex map and line of sight. The proving ground is a map of 30 x 30 flat-topped hexes named
      like L8 (column letter A to DD, row number 1 to 30, row 1 at the top), each clear, woods,
      building or pond (data/hexmap.json). A seat may order a sight from one hex to another.
      The line runs from the centre of the one to the centre of the other and is blocked by a
      woods or building hex it passes through between them; along a hexside it is blocked only
      when both hexes beside that side block; a hex it touches at a corner only does not block.
      A blocked sight is refused, naming the hexes that block it; a clear one rolls a d10 (the
      shot along it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.proving.rules import kind
from domain.rulesets.toolkit.hexes import Grid, NotOnMap

RULE = "PG 6"
DATA_FILE = Path(__file__).with_name("data") / "hexmap.json"


def _load(path: Path) -> dict:
    """The map data, checked once at import: a bad entry fails naming the file and the entry."""
    raw = json.loads(path.read_text())
    missing = [k for k in ("grid", "terrain_default", "terrain_kinds", "terrain") if k not in raw]
    missing += [f"terrain_kinds.{k}.{f}" for k, v in raw.get("terrain_kinds", {}).items()
                for f in ("name", "blocks", "fill") if f not in v]
    if missing:
        raise ValueError(f"{path.name}: missing {', '.join(missing)}")
    try:
        grid = Grid(raw["grid"])
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None
    kinds = raw["terrain_kinds"]
    default = raw["terrain_default"]
    if default not in kinds:
        raise ValueError(f"{path.name}: terrain_default {default!r} is not one of terrain_kinds")
    terrain: dict[str, str] = {}
    for kind_, hexes in raw["terrain"].items():
        if kind_ not in kinds:
            raise ValueError(f"{path.name}: terrain {kind_!r} is not one of terrain_kinds")
        for name in hexes:
            try:
                grid.hex(name)
            except NotOnMap as exc:
                raise ValueError(f"{path.name}: terrain {kind_!r}: {exc}") from None
            if name in terrain:
                raise ValueError(f"{path.name}: hex {name} is both {terrain[name]} and {kind_}")
            terrain[name] = kind_
    blocking = frozenset(h for h, k in terrain.items() if kinds[k]["blocks"])
    return {"grid": grid, "spec": raw["grid"], "kinds": kinds, "default": default, "terrain": terrain,
            "blocking": blocking}


MAP = _load(DATA_FILE)
GRID: Grid = MAP["grid"]


def board() -> dict:
    """The grid form of board() (docs/pages.md, "Hex maps"): the grid spec, the terrain of every
    hex that is not the default, and how each terrain is drawn."""
    return {
        "grid": MAP["spec"],
        "terrain_default": MAP["default"],
        "terrain": dict(MAP["terrain"]),
        "terrain_styles": {k: {"name": v["name"], "fill": v["fill"], "blocks": v["blocks"]}
                           for k, v in MAP["kinds"].items()},
        "units": {},
    }


def _hex(order: dict, field: str) -> str:
    value = order.get(field)
    try:
        GRID.hex(value)
    except NotOnMap as exc:
        raise InvalidOrder(f"'{field}': {exc}", rule=RULE, field=field) from None
    return value


def _template(state: dict, seat: str) -> dict:
    return {"kind": "sight", "rule": RULE,
            "fields": {"from": "hex name, e.g. L8", "to": "hex name, e.g. L12"}}


@kind("sight", _template)
def sight(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 6: refused when the line from ``from`` to ``to`` is blocked; a d10 along a clear one."""
    start, end = _hex(order, "from"), _hex(order, "to")
    line = GRID.line_of_sight(start, end, MAP["blocking"])
    if not line.clear:
        named = ", ".join(f"{h} ({MAP['kinds'][MAP['terrain'][h]]['name'].lower()})" for h in line.blocked_by)
        raise RuleViolation(RULE, f"no line of sight from {start} to {end} (blocked by {named})")
    return [dice.roll(1, 10, seat=seat, purpose=f"shot from {start} at {end} along a clear line of sight",
                      rule=RULE)]
