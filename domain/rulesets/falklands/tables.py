"""Indexes over the data files the rules consult, computed once at import (python-chess style).

Unit ids named here are the ships and units the rules text itself names; every value the text
does not give stays in data/.
"""

from __future__ import annotations

from domain.rulesets.falklands.data import DATA

CONVEYOR = "atlantic_conveyor"            # FS 10.9
UK_CARRIERS = ("hermes", "invincible")    # FS 10.9
AR_CARRIER = "25_de_mayo"                 # FS 10.4, 4.4(2)
TWO_VP_AR_SHIPS = ("25_de_mayo", "belgrano")                                          # FS 4.4(2)(3)
TWO_VP_UK_SHIPS = ("hermes", "invincible", "fearless", "intrepid", "canberra", "qe2", CONVEYOR)  # FS 4.4(4)
UK_ASSAULT_SHIPS = ("fearless", "intrepid")   # FS 7.1 Op #17
AR_ASSAULT_SHIP = "cabo_san_antonio"          # FS 7.1 Op #17
PORT_STANLEY = "port_stanley"                 # FS 4.2
# The clause that gives each Falklands airbase its limit (the limits themselves are in map.json):
# "Port Stanley airbase can base a total of three" (6.2(3)); "Goose Green and Pebble Island
# airbases can each base a total of two" (6.2(4)).
BASING_RULES = {PORT_STANLEY: "FS 6.2(3)", "goose_green": "FS 6.2(4)", "pebble_island": "FS 6.2(4)"}

CARRIERS = {"UK": UK_CARRIERS, "AR": (AR_CARRIER,)}
STEALTH = tuple(u for u, d in DATA.units.items() if d.get("stealth"))
STEALTH_UNIT = STEALTH[0] if STEALTH else None
OP2_UNITS = tuple(u for u, d in DATA.units.items() if d.get("group") == "op2")
GROUPS = tuple(sorted({d["group"] for d in DATA.units.values() if (d.get("group") or "").startswith("R")}))


def group_units(group: str) -> list[str]:
    return [u for u, d in DATA.units.items() if d.get("group") == group]


def surface(uid: str) -> bool:
    return DATA.units[uid]["class"] == "ship"


def is_type(uid: str, *types: str) -> bool:
    return DATA.units[uid]["type"] in types
