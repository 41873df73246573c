"""The three STF maps (STF 1.1: Caribbean, G-I-UK Gap, Mediterranean): hexes, numbered megahexes,
land and shallow water, the named places and each side's map edge.

Task Force's maps are not in ../shared/rules/: each map is provisional data, a grid spec with its
megahexes and terrain in ``data/map_<name>.json`` (toolkit/hexes.py, docs/rulesets.md "Hex maps"),
and the places of STF 2.3-2.5 and 12.10-12.12 with the sides' map edges in ``data/map_places.json``.
Hexes are named CCRR ("1207"); megahexes by the numbers the text uses ("Mhex 19", "Megahex 117").

Other modules import: ``grid``, ``megahex_hexes``, ``megahex_number``, ``distance``,
``megahex_distance``, ``place_hex``, ``place_hexes``, ``is_shallow`` (and ``is_land``, ``is_sea``,
``sea_neighbours``, ``megahex_is_shallow``, ``side_edge``, ``edge_distance``, ``board``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from domain.errors import InvalidOrder
from domain.rulesets.stf.rules import DATA
from domain.rulesets.toolkit.data import read_json
from domain.rulesets.toolkit.hexes import Grid, HexMap, NotOnMap, load_map

DATA_DIR = Path(__file__).parent / "data"
MAP_NAMES = ("caribbean", "giuk", "mediterranean")
EDGES = ("north", "south", "east", "west")


def _list_guesses() -> None:
    """Every map file is Task Force's, not the text's: its provisional fields (the grid and the
    terrain of each map; map_places.json whole) are listed with the ruleset's other guesses."""
    for name in MAP_NAMES:
        raw = read_json(DATA_DIR, f"map_{name}.json")
        for field in raw["provisional"]:
            DATA.guess(f"map_{name}.json", "(file)", field, raw["source"])
    DATA.guess("map_places.json", "(file)", None, read_json(DATA_DIR, "map_places.json")["provisional"])


_list_guesses()


class UnknownPlace(KeyError):
    """A place named by no map file (neither a megahex number nor a place of data/map_places.json)."""


def _check_name(map_name: str) -> str:
    if map_name not in MAP_NAMES:
        raise InvalidOrder(f"the map is one of {', '.join(MAP_NAMES)}, not {map_name!r}", rule="STF 1.1", field="map")
    return map_name


@lru_cache(maxsize=None)
def hexmap(map_name: str) -> HexMap:
    """The map file, read and checked once."""
    return load_map(DATA_DIR, f"map_{_check_name(map_name)}.json")


@lru_cache(maxsize=None)
def _places() -> dict:
    raw = read_json(DATA_DIR, "map_places.json")
    for name in MAP_NAMES:
        entry = raw["maps"][name]
        assert set(entry["sides"].values()) <= set(EDGES), f"map_places.json: {name}: a side's edge is one of {EDGES}"
        for place, spec in entry["places"].items():
            if hexmap(name).terrain_of(spec["hex"]) == "land" and spec["kind"] != "airbase":
                raise ValueError(f"map_places.json: {name}: {place} is a port on a land hex")
    return raw["maps"]


def grid(map_name: str) -> Grid:
    return hexmap(map_name).grid


def board(map_name: str) -> dict:
    """The grid form of a ruleset's ``board()`` (docs/pages.md, "Hex maps"), with the named places."""
    out = hexmap(map_name).board()
    out["places"] = {p: spec["hex"] for p, spec in _places()[map_name]["places"].items()}
    return out


# ---- hexes and megahexes -------------------------------------------------------------------------
def check_hex(map_name: str, name, rule: str, field: str) -> str:
    """``name`` as a hex of this map, or InvalidOrder naming the rule and the order's field."""
    try:
        grid(map_name).hex(name)
    except NotOnMap as exc:
        raise InvalidOrder(str(exc), rule=rule, field=field) from None
    return name


def megahex_hexes(map_name: str, number) -> list[str | None]:
    """The seven hexes of megahex ``number``: its centre, then outer hexes 1 to 6 (STF 6.5), None
    where an outer hex lies off the map."""
    return grid(map_name).megahex(grid(map_name).megahex_centre(int(number)))


def megahex_numbers(map_name: str) -> list[int]:
    return sorted(int(n) for n in grid(map_name).spec["megahexes"]["numbers"])


def megahex_number(map_name: str, hex_name: str) -> int | None:
    number = grid(map_name).megahex_number(hex_name)
    return int(number) if number is not None else None


def distance(map_name: str, a: str, b: str) -> int:
    return grid(map_name).distance(a, b)


def megahex_distance(map_name: str, a: str, b: str) -> int:
    return grid(map_name).megahex_distance(a, b)


def terrain(map_name: str, hex_name: str) -> str:
    return hexmap(map_name).terrain_of(hex_name)


def is_land(map_name: str, hex_name: str) -> bool:
    return terrain(map_name, hex_name) == "land"


def is_sea(map_name: str, hex_name: str) -> bool:
    return not is_land(map_name, hex_name)


def is_shallow(map_name: str, hex_name: str) -> bool:
    return terrain(map_name, hex_name) == "shallow"


def megahex_is_shallow(map_name: str, number) -> bool:
    """A megahex 'which contains Shallow water' (STF 1.8)."""
    return any(h is not None and is_shallow(map_name, h) for h in megahex_hexes(map_name, number))


def sea_neighbours(map_name: str, hex_name: str) -> list[str]:
    """The adjacent hexes a group may enter (not land), clockwise from the top."""
    return [h for h in grid(map_name).neighbours(hex_name) if is_sea(map_name, h)]


def sea_hexes_of(map_name: str, number) -> list[str]:
    return [h for h in megahex_hexes(map_name, number) if h is not None and is_sea(map_name, h)]


# ---- places and edges ----------------------------------------------------------------------------
_MEGAHEX = re.compile(r"\s*(?:megahex|mhex)\s*(\d+)\s*$", re.IGNORECASE)


def place_hex(map_name: str, place) -> str:
    """The hex of a named place (an airbase or base of STF 2.3-2.5, 12.10-12.12), or of a base
    given as a megahex ("Megahex 9", "Mhex 9", 9): its centre, or its first sea hex in the order
    of STF 6.5 when the centre is land."""
    if isinstance(place, int) and not isinstance(place, bool):
        number = place
    else:
        m = _MEGAHEX.match(str(place))
        if m is None:
            spec = _places()[_check_name(map_name)]["places"].get(str(place))
            if spec is None:
                raise UnknownPlace(f"the {map_name} map has no place {place!r}")
            return spec["hex"]
        number = int(m.group(1))
    try:
        sea = sea_hexes_of(map_name, number)
    except NotOnMap:
        raise UnknownPlace(f"the {map_name} map has no megahex {number}") from None
    return sea[0] if sea else megahex_hexes(map_name, number)[0]


def place_hexes(map_name: str, place) -> list[str]:
    """Every hex that is the base ``place`` (STF 12.9-12.12): a megahex base's sea hexes, centre
    first (the text names the megahex as the base, as 1.11 scores a freighter in any hex of the
    target megahex); a named place's one hex."""
    if (isinstance(place, int) and not isinstance(place, bool)) or _MEGAHEX.match(str(place)):
        number = place if isinstance(place, int) else int(_MEGAHEX.match(str(place)).group(1))
        try:
            sea = sea_hexes_of(map_name, number)
        except NotOnMap:
            raise UnknownPlace(f"the {map_name} map has no megahex {number}") from None
        if sea:
            return sea
    return [place_hex(map_name, place)]


def places(map_name: str) -> dict:
    """{place: {hex, kind}} of the map."""
    return dict(_places()[map_name]["places"])


def side_edge(map_name: str, side: str) -> str:
    """The map edge that is ``side``'s ("US", "NATO", "Soviet"): STF 7.8's 'side of the board'."""
    return _places()[map_name]["sides"][side]


def edge_distance(map_name: str, hex_name: str, edge: str) -> int:
    """Hex columns (east, west) or rows (north, south) from ``hex_name`` to that map edge."""
    g = grid(map_name)
    col, row = g.offset(g.hex(hex_name))
    return {"north": row, "south": g.rows - 1 - row, "west": col, "east": g.columns - 1 - col}[edge]
