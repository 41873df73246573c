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

from pathlib import Path
from typing import Any

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.proving.rules import kind
from domain.rulesets.toolkit.hexes import Grid, NotOnMap, load_map

RULE = "PG 6"
DATA_DIR = Path(__file__).with_name("data")


# PG 6's map, checked at import (a bad entry fails naming the file and the entry).
MAP = load_map(DATA_DIR, "hexmap.json")
GRID: Grid = MAP.grid


def board() -> dict:
    return MAP.board()


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


@kind("sight", _template, rule=RULE, fields={"from": "hex name, e.g. L8", "to": "hex name, e.g. L12"})
def sight(state: dict, seat: str, order: dict, dice: Any) -> list:
    """PG 6: refused when the line from ``from`` to ``to`` is blocked; a d10 along a clear one."""
    start, end = _hex(order, "from"), _hex(order, "to")
    line = MAP.line_of_sight(start, end)
    if not line.clear:
        named = ", ".join(f"{h} ({MAP.kinds[MAP.terrain_of(h)]['name'].lower()})" for h in line.blocked_by)
        raise RuleViolation(RULE, f"no line of sight from {start} to {end} (blocked by {named})")
    return [dice.roll(1, 10, seat=seat, purpose=f"shot from {start} at {end} along a clear line of sight",
                      rule=RULE)]
