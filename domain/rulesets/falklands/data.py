"""Falklands Showdown's tables: the map, the order of battle and the random events (FS 2-11).

The values live in ``data/*.json`` beside this module (data/README.md says how to correct them);
this module loads them once at import, checks them and indexes them. Every value the rules text
does not give is named in its entry's ``provisional`` list. Borders are written once in the files;
the loader adds both directions. Steps are not stored: they follow from FS 2.8.

    from domain.rulesets.falklands.data import DATA
    DATA.sea_adjacent("sa5")          # frozenset({"sa4", "sa7", "south_georgia"})

A file that breaks a rule of its own format raises ValueError at import, naming the file and the
entry, so a bad correction never reaches a game. Reading, the schema check, frozen tables and the
list of guesses are the rules toolkit's (``domain/rulesets/toolkit/data.py``); this module keeps
what is Falklands: its schemas, its own cross-checks and its indexes.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from domain.rulesets.toolkit.data import (DataError, Dataset, Guess, check_choice, check_fields, freeze,
                                          thaw)

DATA_DIR = Path(__file__).parent / "data"
FILES = ("map.json", "units.json", "events.json")

SIDES = ("AR", "UK")
AREA_KINDS = ("sea", "land", "mainland", "box")
MAPS = ("strategic", "tactical")
ISLANDS = ("east", "west", "pebble")
CLASS_TYPES = {
    "ship": ("CVL", "CA", "D", "A", "T"),
    "submarine": ("S",),
    "aircraft": ("A4", "Cnbra", "Dgr", "M3", "SprEnt", "Puc"),
    "ground": ("infantry", "sf", "hmg", "armor"),
}
FACTORS = ("ground", "air", "sub", "surface")  # FS 2.7
MAX_FACTOR = 5  # FS 10.3: a hit number of 6 would be a sure thing
GROUPS = ("R1", "R2", "R3", "R4", "R5", "R6", "op2")  # FS 3.4, 7.1 Op #2
RANGES = ("a4", "range_line")  # FS 9.4
TEZ_SETUP = "tez"  # FS 3.3: the UK player places Spartan and Splendid in the TEZ
CARRIERS = ("A", "T")  # FS 6.5: ground units go to sea in A or T ships (SF: FS 6.2(1))

AREA_FIELDS = {
    "name": str, "kind": str, "map": str, "tez": bool, "a4_reach": bool, "a4_refuelled_reach": bool,
    "in_range_line": bool, "vp": int, "entrenched": bool, "mountains": bool, "airbase": int,
    "island": (str, type(None)), "within": (str, type(None)), "polygon": list, "label_xy": list,
    "source": str, "provisional": list,
}
UNIT_FIELDS = {
    "name": str, "abbr": str, "side": str, "class": str, "type": str, "factors": dict,
    "protected": bool, "capacity": int, "carries_armor": bool, "carries_sbs": bool, "stealth": bool,
    "armor": bool, "range": (str, type(None)), "setup": (str, type(None)),
    "aboard": (str, type(None)), "group": (str, type(None)), "source": str, "provisional": list,
}
EVENT_FIELDS = {"event": str, "title": str, "effect": str}
# Numbers the rules read from the markers (FS 3.5, 10.5, 11.3 event 6-4): marker, key, range.
MARKER_NUMBERS = (("uk_operations", "start", 1, 30), ("vp", "start", -4, 19),
                  ("stealth_missions", "start", 0, 5), ("exocet", "hit_number", 1, MAX_FACTOR))
# Fields a provisional list may name besides the entry's own fields.
UNIT_SUBFIELDS = tuple(f"factors.{f}" for f in FACTORS)


def steps(unit: dict) -> int:
    """FS 2.8: every AR unit has one step; UK units two, UK special forces one."""
    if unit["side"] == "AR" or unit["type"] == "sf":
        return 1
    return 2


def _point(file: str, entry: str, field: str, value: Any, size: dict) -> None:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in value)):
        raise DataError(file, entry, f"'{field}' must hold [x, y] points")
    x, y = value
    if not (0 <= x <= size["width"] and 0 <= y <= size["height"]):
        raise DataError(file, entry, f"'{field}' point {value} lies outside its map")


class FalklandsData:
    """The checked, indexed tables; one instance, ``DATA``, is built at import."""

    def __init__(self, directory: Path | str = DATA_DIR):
        self._ds = Dataset(directory)
        self._map = self._ds.read("map.json")
        self._units_doc = self._ds.read("units.json")
        self._events_doc = self._ds.read("events.json")
        self._check_map()
        self._check_units()
        self._check_events()
        self._index()

    # ---- map.json ---------------------------------------------------------------------------
    def _check_map(self) -> None:
        f, doc = "map.json", self._map
        for key in ("title", "provisional_note", "maps", "areas", "sea_borders", "land_borders",
                    "south_georgia_entry"):
            if key not in doc:
                raise DataError(f, key, "missing")
        maps = doc["maps"]
        if not isinstance(maps, dict) or set(maps) != set(MAPS):
            raise DataError(f, "maps", f"must describe exactly the maps {', '.join(MAPS)}")
        for name, size in maps.items():
            if not isinstance(size, dict) or not all(
                    isinstance(size.get(k), int) and size[k] > 0 for k in ("width", "height")):
                raise DataError(f, f"maps.{name}", "needs a positive integer width and height")
            for point in size.get("range_line", []):
                _point(f, f"maps.{name}", "range_line", point, size)
        for name in doc.get("provisional", []):
            if name not in doc:
                raise DataError(f, "provisional", f"names {name!r}, which is not a key of the file")
            self._ds.guess(f, "map", name, doc["provisional_note"])
        areas = doc["areas"]
        if not isinstance(areas, dict) or not areas:
            raise DataError(f, "areas", "must be an object of areas")
        for aid, a in areas.items():
            e = f"areas.{aid}"
            self._ds.check_entry(f, e, a, AREA_FIELDS)
            check_choice(f, e, "kind", a["kind"], AREA_KINDS)
            check_choice(f, e, "map", a["map"], MAPS)
            if (a["kind"] == "land") != (a["map"] == "tactical"):
                raise DataError(f, e, "land areas, and only they, are on the tactical map")
            if a["tez"] and a["kind"] != "sea":
                raise DataError(f, e, "only a sea area can be in the TEZ (FS 2.2)")
            for key in ("a4_reach", "a4_refuelled_reach", "in_range_line"):
                if a[key] and a["kind"] not in ("sea", "box"):
                    raise DataError(f, e, f"'{key}' is given for sea areas; "
                                    "a land area takes its sea area's (FS 9.3)")
            if a["kind"] == "land":
                check_choice(f, e, "island", a["island"], ISLANDS)
                if a["within"] not in areas or areas[a["within"]]["kind"] != "sea":
                    raise DataError(f, e, "'within' must name the sea area that holds it (FS 9.3), "
                                    f"not {a['within']!r}")
            else:
                if a["island"] is not None or a["within"] is not None:
                    raise DataError(f, e, "only a land area has an island and lies within a sea area")
                for key in ("vp", "airbase"):
                    if a[key]:
                        raise DataError(f, e, f"only a land area has '{key}'")
                for key in ("entrenched", "mountains"):
                    if a[key]:
                        raise DataError(f, e, f"only a land area can be {key}")
            if a["vp"] < 0 or a["airbase"] < 0:
                raise DataError(f, e, "vp and airbase capacity cannot be negative")
            size = maps[a["map"]]
            if len(a["polygon"]) < 3:
                raise DataError(f, e, "'polygon' needs at least three points")
            for point in a["polygon"]:
                _point(f, e, "polygon", point, size)
            _point(f, e, "label_xy", a["label_xy"], size)
        sea = self._borders("sea_borders", lambda a: a["map"] == "strategic", "the strategic map")
        land = self._borders("land_borders", lambda a: a["kind"] == "land", "land areas")
        for x, y in self._map["land_borders"]:
            if areas[x]["island"] != areas[y]["island"]:
                raise DataError(f, f"land_borders {[x, y]!r}", "a land border cannot cross the water "
                                f"between islands ({areas[x]['island']}, {areas[y]['island']})")
        for given in doc.get("borders_given_by_the_text", []):
            pair = given.get("border") if isinstance(given, dict) else None
            if not isinstance(pair, list) or frozenset(pair) not in (set(sea) | set(land)):
                raise DataError(f, "borders_given_by_the_text", f"{pair!r} is not a border of the map")
            if not isinstance(given.get("source"), str) or not given["source"].strip():
                raise DataError(f, "borders_given_by_the_text", f"{pair!r} needs its 'source'")
        given = {frozenset(g["border"]) for g in doc.get("borders_given_by_the_text", [])}
        for key in ("sea_borders", "land_borders"):
            for a, b in doc[key]:
                if frozenset((a, b)) not in given:
                    self._ds.guess(f, f"{key}.{a}-{b}", None, doc["provisional_note"])
        entry = doc["south_georgia_entry"]
        boxes = [aid for aid, a in areas.items() if a["kind"] == "box"]
        for box in boxes:
            if {frozenset((entry, box))} != {b for b in sea if box in b}:
                raise DataError(f, "south_georgia_entry", f"the box {box} must border exactly "
                                f"its entry sea area {entry!r} (FS 3.7, 9.1)")
        if entry not in areas or areas[entry]["kind"] != "sea":
            raise DataError(f, "south_georgia_entry", f"{entry!r} is not a sea area")

    def _borders(self, key: str, fits, what: str) -> list[frozenset]:
        f, areas = "map.json", self._map["areas"]
        pairs = self._map[key]
        if not isinstance(pairs, list):
            raise DataError(f, key, "must be a list of [area, area] pairs")
        seen: list[frozenset] = []
        for pair in pairs:
            e = f"{key} {pair!r}"
            if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
                raise DataError(f, e, "a border is a pair of area ids")
            for aid in pair:
                if aid not in areas:
                    raise DataError(f, e, f"unknown area {aid!r}")
                if not fits(areas[aid]):
                    raise DataError(f, e, f"{aid!r} is not one of {what}")
            if pair[0] == pair[1]:
                raise DataError(f, e, "an area cannot border itself")
            border = frozenset(pair)
            if border in seen:
                raise DataError(f, e, "duplicate border "
                                "(write each border once; the loader adds both directions)")
            seen.append(border)
        return seen

    # ---- units.json -------------------------------------------------------------------------
    def _check_units(self) -> None:
        f, doc = "units.json", self._units_doc
        units = doc.get("units")
        if not isinstance(units, dict) or not units:
            raise DataError(f, "units", "must be an object of units")
        if not isinstance(doc.get("markers"), dict):
            raise DataError(f, "markers", "must be an object of markers")
        for mid, m in doc["markers"].items():
            if not (isinstance(m, dict) and isinstance(m.get("name"), str)
                    and isinstance(m.get("rule"), str)):
                raise DataError(f, f"markers.{mid}", "needs a 'name' and the 'rule' that uses it")
        for mid, key, low, high in MARKER_NUMBERS:
            value = doc["markers"].get(mid, {}).get(key)
            if type(value) is not int or not low <= value <= high:
                raise DataError(f, f"markers.{mid}", f"'{key}' must be a whole number {low}..{high}")
        for uid, u in units.items():
            e = f"units.{uid}"
            self._ds.check_entry(f, e, u, UNIT_FIELDS, extra=UNIT_SUBFIELDS)
            check_choice(f, e, "side", u["side"], SIDES)
            check_choice(f, e, "class", u["class"], tuple(CLASS_TYPES))
            check_choice(f, e, "type", u["type"], CLASS_TYPES[u["class"]])
            fac = u["factors"]
            hit_numbers = all(type(v) is int and 0 <= v <= MAX_FACTOR for v in fac.values())
            if set(fac) != set(FACTORS) or not hit_numbers:
                raise DataError(f, e, f"'factors' needs {', '.join(FACTORS)}, "
                                f"each a whole number 0..{MAX_FACTOR} (FS 2.7)")
            naval = u["class"] in ("ship", "submarine")
            if u["capacity"] < 0:
                raise DataError(f, e, "capacity cannot be negative")
            if u["capacity"] and u["type"] not in CARRIERS:
                raise DataError(f, e, "only A and T ships carry ground units (FS 6.5)")
            if u["carries_armor"] and u["type"] not in CARRIERS:
                raise DataError(f, e, "only A and T ships can carry armor (FS 6.2(2))")
            if u["carries_sbs"] and (u["class"] != "submarine" or u["side"] != "UK"):
                raise DataError(f, e, "only a UK submarine may carry the SBS (FS 6.2(1))")
            if u["protected"] and u["class"] != "ship":
                raise DataError(f, e, "only surface ships are protected targets (FS 10.4)")
            if u["stealth"] and u["class"] != "aircraft":
                raise DataError(f, e, "only an aircraft can be stealthy (FS 10.5)")
            if u["armor"] != (u["type"] == "armor"):
                raise DataError(f, e, "'armor' must be true exactly for armor units (FS 10.10)")
            if (u["range"] is None) == (u["class"] == "aircraft"):
                raise DataError(f, e, "aircraft, and only they, have a range from Argentina (FS 9.4)")
            if u["range"] is not None:
                check_choice(f, e, "range", u["range"], RANGES)
            if u["group"] is not None:
                check_choice(f, e, "group", u["group"], GROUPS)
                if (u["group"] == "op2") != (u["side"] == "AR"):
                    raise DataError(f, e, "UK reinforcements are in R1-R6 (FS 3.4); "
                                    "AR ones are the Op #2 units")
                if u["setup"] is not None:
                    raise DataError(f, e, "a reinforcement is not set up at the start (FS 3.4)")
            elif u["setup"] is None:
                raise DataError(f, e, "a unit needs a set-up area or a reinforcement group (FS 3.2-3.4)")
            if u["setup"] is not None:
                self._check_setup(e, u)
            if u["aboard"] is not None and u["class"] != "ground":
                raise DataError(f, e, "only ground units are carried aboard ships (FS 6.5)")
            if not naval and (u["capacity"] or u["carries_armor"] or u["carries_sbs"]):
                raise DataError(f, e, "only ships carry units")
        self._check_loads()
        self._check_airbases()

    def _check_setup(self, e: str, u: dict) -> None:
        f, areas, setup = "units.json", self._map["areas"], u["setup"]
        if setup == TEZ_SETUP:
            if not (u["side"] == "UK" and u["class"] == "submarine"):
                raise DataError(f, e, "only the UK submarines are placed in the TEZ at set-up (FS 3.3)")
            return
        if setup not in areas:
            raise DataError(f, e, f"sets up in unknown area {setup!r}")
        kind = areas[setup]["kind"]
        if u["side"] == "UK" and kind == "mainland":
            raise DataError(f, e, "no UK unit may ever be in Argentina (FS 9.7)")
        if kind == "box" and not (u["side"] == "AR" and u["class"] == "submarine"):
            raise DataError(f, e, "only AR submarines may start in the South Georgia Holding Box "
                            "(FS 3.6, 3.7)")
        cls = u["class"]
        if cls in ("ship", "submarine") and kind == "land":
            raise DataError(f, e, "a ship sets up at sea (or AR in port in Argentina, FS 9.7)")
        if cls == "aircraft" and kind not in ("mainland", "land"):
            raise DataError(f, e, "an aircraft sets up at a base: Argentina or a Falklands airbase "
                            "(FS 6.2, 9.7)")
        if cls == "ground" and u["aboard"] is None and kind not in ("land", "mainland"):
            raise DataError(f, e, "a ground unit at sea must be aboard a ship")
        if cls == "ground" and u["aboard"] is not None:
            ship = self._units_doc["units"].get(u["aboard"])
            if ship is not None and ship["setup"] != setup:
                raise DataError(f, e, f"sets up in {setup!r} but its ship {u['aboard']!r} "
                                f"sets up in {ship['setup']!r}")

    def _check_loads(self) -> None:
        """FS 6.2, 6.5: who may carry what, within capacity (UK in steps, AR in whole units)."""
        f, units = "units.json", self._units_doc["units"]
        loads: dict[str, list[str]] = {}
        for uid, u in units.items():
            sid = u["aboard"]
            if sid is None:
                continue
            e = f"units.{uid}"
            ship = units.get(sid)
            if ship is None:
                raise DataError(f, e, f"aboard unknown ship {sid!r}")
            if ship["class"] not in ("ship", "submarine"):
                raise DataError(f, e, f"aboard {sid!r}, which is not a ship")
            if ship["side"] != u["side"]:
                raise DataError(f, e, f"aboard {sid!r}, an enemy ship")
            if ship["group"] != u["group"] and ship["group"] is not None:
                raise DataError(f, e, f"in group {u['group']!r} but its ship {sid!r} "
                                f"is in {ship['group']!r} (FS 3.4)")
            if ship["group"] is None and u["setup"] is None:
                raise DataError(f, e, f"aboard {sid!r}, which starts in play, so it must set up there too")
            if u["type"] == "armor" and not ship["carries_armor"]:
                raise DataError(f, e, f"armor cannot ride {sid!r}: "
                                "only ships with the armor symbol carry it (FS 6.2(2))")
            if ship["class"] == "submarine":
                if not ship["carries_sbs"] or u["type"] != "sf":
                    raise DataError(f, e, f"{sid!r} is a submarine; "
                                    "only Onyx carries a ground unit, the SBS (FS 6.2(1))")
            elif u["type"] != "sf" and ship["type"] not in CARRIERS:
                raise DataError(f, e, f"{sid!r} is not an A or T ship, "
                                "which alone carry non-SF ground units (FS 6.5)")
            loads.setdefault(sid, []).append(uid)
        for sid, cargo in loads.items():
            ship = units[sid]
            if ship["class"] == "submarine":
                if len(cargo) > 1:
                    raise DataError(f, f"units.{sid}", "a submarine carries one SF unit at most (FS 6.2(1))")
                continue
            # FS 6.2(1): a ship with no capacity (no A or T) carries one SF unit; on an A or T ship
            # every unit, SF too, counts against its capacity (6.2(2), 6.5)
            sf = [uid for uid in cargo if units[uid]["type"] == "sf"]
            counted = cargo if ship["capacity"] > 0 else [uid for uid in cargo if uid not in sf[:1]]
            used = sum(steps(units[uid]) if ship["side"] == "UK" else 1 for uid in counted)
            if used > ship["capacity"]:
                unit = "steps" if ship["side"] == "UK" else "units"
                raise DataError(f, f"units.{sid}", f"carries {used} {unit} ({', '.join(cargo)}) "
                                f"but its capacity is {ship['capacity']} (FS 6.2)")

    def _check_airbases(self) -> None:
        """FS 6.2(3)(4): aircraft set up at a Falklands airbase fit its capacity."""
        f, units, areas = "units.json", self._units_doc["units"], self._map["areas"]
        based: dict[str, list[str]] = {}
        for uid, u in units.items():
            if u["class"] == "aircraft" and u["setup"] in areas and areas[u["setup"]]["kind"] == "land":
                based.setdefault(u["setup"], []).append(uid)
        for aid, planes in based.items():
            cap = areas[aid]["airbase"]
            if len(planes) > cap:
                raise DataError(f, f"units.{planes[-1]}", f"{aid} bases {len(planes)} aircraft counters "
                                f"({', '.join(planes)}) but its airbase takes {cap} (FS 6.2)")

    # ---- events.json ------------------------------------------------------------------------
    def _check_events(self) -> None:
        f, results = "events.json", self._events_doc.get("results")
        if not isinstance(results, dict):
            raise DataError(f, "results", "must be an object keyed by the two dice, '11' to '66'")
        expected = [f"{uk}{ar}" for uk in range(1, 7) for ar in range(1, 7)]
        for key in results:
            if key not in expected:
                raise DataError(f, f"results.{key}", "not a roll of two dice (UK first, then AR, FS 11.2)")
        for key in expected:
            e = f"results.{key}"
            if key not in results:
                raise DataError(f, e, "missing: the table needs all 36 results (FS 11.3)")
            check_fields(f, e, results[key], EVENT_FIELDS)
            if results[key]["event"] != f"{key[0]}-{key[1]}":
                raise DataError(f, e, f"'event' must read {key[0]}-{key[1]}")
            effect = results[key]["effect"]
            if not effect or not effect.replace("_", "").isalnum() or effect != effect.lower():
                raise DataError(f, e, "'effect' must be a lower-case snake_case name")

    # ---- indexes ----------------------------------------------------------------------------
    def _index(self) -> None:
        areas_doc = self._map["areas"]
        units = {}
        for uid, u in self._units_doc["units"].items():
            units[uid] = {"id": uid, **u, "steps": steps(u)}
        self.areas: dict[str, dict] = freeze(areas_doc)
        self.units: dict[str, dict] = freeze(units)
        self.events: dict[str, dict] = freeze(self._events_doc["results"])
        self.markers: dict = freeze(self._units_doc["markers"])
        self.maps: dict = freeze(self._map["maps"])
        self.exocet_hit_number: int = self.markers["exocet"]["hit_number"]  # FS 11.3 event 6-4
        self.south_georgia_entry: str = self._map["south_georgia_entry"]
        self._sea = self._adjacency(self._map["sea_borders"])
        self._land = self._adjacency(self._map["land_borders"])
        self.tez = frozenset(a for a, v in areas_doc.items() if v["tez"])
        self.land_areas = tuple(a for a, v in areas_doc.items() if v["kind"] == "land")
        self.sea_areas = tuple(a for a, v in areas_doc.items() if v["kind"] == "sea")
        self.airbases = freeze({a: v["airbase"] for a, v in areas_doc.items() if v["airbase"] > 0})
        self.vp_areas = freeze({a: v["vp"] for a, v in areas_doc.items() if v["vp"] > 0})
        self.a4_reach = frozenset(a for a, v in areas_doc.items() if v["a4_reach"])
        self.a4_refuelled_reach = frozenset(a for a, v in areas_doc.items() if v["a4_refuelled_reach"])
        self.range_line = frozenset(a for a, v in areas_doc.items() if v["in_range_line"])

    @staticmethod
    def _adjacency(pairs: list[list[str]]) -> dict[str, frozenset]:
        out: dict[str, set] = {}
        for a, b in pairs:
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)
        return {k: frozenset(v) for k, v in out.items()}

    def sea_adjacent(self, area: str) -> frozenset:
        """The areas of the strategic map that touch ``area``, both directions; empty if none."""
        return self._sea.get(area, frozenset())

    def land_adjacent(self, area: str) -> frozenset:
        """The land areas sharing a land border with ``area`` (FS 7.1 Op #24, 9.2); empty if none."""
        return self._land.get(area, frozenset())

    def unit_name(self, uid: object) -> str:
        """A unit as the rules text names it ("Glamorgan", not 'glamorgan'): what a refusal says; a
        value that names no unit is quoted as given."""
        return self.units[uid]["name"] if isinstance(uid, str) and uid in self.units else repr(uid)

    def area_name(self, aid: object) -> str:
        """An area as the rules text names it ("Sea Area 6", not 'sa6'); a value that names no area
        is quoted as given."""
        return self.areas[aid]["name"] if isinstance(aid, str) and aid in self.areas else repr(aid)

    def meant(self, given: object, table: str = "units") -> str:
        """What a refusal of an id that names no unit (``table="units"``) or area ("areas") adds: the
        id a player meant, when they typed its name or its id in other letters ("Sea Area 6",
        'Falklands', 'Hermes'): "; type its id: 'sa6' (Sea Area 6)"; or one near what they typed
        ('pebble'): "; did you mean 'pebble_island' (Pebble Island)?"; else nothing."""
        entries = getattr(self, table)
        if not isinstance(given, str) or not given.strip() or given in entries:
            return ""
        wanted = " ".join(given.split()).casefold()
        for eid, entry in entries.items():
            if wanted in (eid.casefold(), str(entry.get("name", "")).casefold()):
                return f"; type its id: {eid!r} ({entry['name']})"
        words = {w.casefold(): eid for eid, entry in entries.items() for w in (eid, str(entry.get("name", "")))}
        starting = {eid for w, eid in words.items() if w.startswith(wanted)}  # 'pebble'; 'sa' starts many
        near = [words[w] for w in difflib.get_close_matches(wanted, list(words), n=1, cutoff=0.75)]  # 'sa 6'
        meant = starting if starting else set(near)
        if len(meant) != 1:
            return ""
        (eid,) = meant
        return f"; did you mean {eid!r} ({entries[eid]['name']})?"

    def board(self) -> dict:
        """What a page needs to draw the maps and the counters; plain JSON types, a fresh copy."""
        area_keys = ("name", "kind", "map", "polygon", "label_xy", "tez", "vp", "airbase",
                     "mountains", "entrenched")
        unit_keys = ("name", "abbr", "side", "class", "type", "steps", "factors")
        return thaw({
            "maps": self.maps,
            "areas": {aid: {k: a[k] for k in area_keys} for aid, a in self.areas.items()},
            "borders": {"sea": self._map["sea_borders"], "land": self._map["land_borders"]},
            "units": {uid: {k: u[k] for k in unit_keys} for uid, u in self.units.items()},
            "provisional_note": self._map["provisional_note"],
            "tracks": self.tracks(),
            "effects": self.effect_names(),
        })

    def tracks(self) -> list[dict]:
        """The board's countdown tracks a page shows beside the maps (FS 2.9): each reads the state's
        ``value`` (or ``of`` less the state's ``used``) out of ``of`` (a state key or a number)."""
        m = self.markers
        return thaw([
            {"name": m["uk_operations"]["name"], "rule": "FS 5.3", "value": "uk_operations_left", "of": "uk_operations"},
            {"name": m["stealth_missions"]["name"], "rule": "FS 10.5", "used": "stealth_attacks",
             "of": m["stealth_missions"]["start"]},
        ])

    def effect_names(self) -> dict[str, dict]:
        """{id: {name, rule}} of what may be in effect in a game's state (``effects[side]`` and the
        ``markers`` a side holds): a random event's lasting effect by its title (FS 11.3), the
        effects kept under ids of their own by the event, marker or operation that gives them.
        Bookkeeping entries (``op2``, ``reinforcement_group``) are not named, so not shown."""
        out: dict[str, dict] = {}
        for r in self.events.values():
            named = out.setdefault(r["effect"], {"name": r["title"], "rule": "FS 11.3"})
            named["rule"] += (" " if named["rule"] == "FS 11.3" else ", ") + r["event"]
        m = self.markers
        out.update({
            "political_pressure": out["uk_political_pressure"],
            "exocet": {"name": m["exocet"]["name"], "rule": out["land_exocet"]["rule"]},
            "uk_decisive_leader": {"name": m["uk_leader"]["name"], "rule": out["uk_leadership"]["rule"]},
            "ar_decisive_leader": {"name": m["ar_leader"]["name"], "rule": out["ar_leadership"]["rule"]},
            "black_buck": {"name": m["black_buck"]["name"], "rule": "FS 7.1 Op #9"},
            "tez_expanded": {"name": "TEZ temporarily expanded", "rule": "FS 7.1 Op #10"},
        })
        return thaw(out)

    def provisional(self) -> list[str]:
        """The path of every value the rules text does not give: "units.hermes.factors.ground", ..."""
        return [g.path for g in self.guesses()]

    def guesses(self) -> list[Guess]:
        """Every value the rules text does not give, with its file, entry, field and why."""
        return self._ds.provisional()


def load(directory: Path | str = DATA_DIR) -> FalklandsData:
    """Load and check the three files of ``directory`` (a copy, in tests)."""
    return FalklandsData(directory)


DATA = load()
