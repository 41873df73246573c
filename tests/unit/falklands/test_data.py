"""Falklands Showdown's data files against the rules text (FS 2-11) and the loader's own checks.

Values the text gives are asserted here; provisional ones (counter values, map geometry) are only
checked for consistency and for being marked provisional, never for their number.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections import deque
from pathlib import Path

import pytest

from domain.rulesets.falklands import data as datamod
from domain.rulesets.falklands.data import DATA, load

RULES = Path(__file__).resolve().parents[3].parent / "shared" / "rules" / "000_118e0bb5a1449bfd.txt"
# FS 2.5 spells a few names wrongly; the data files use the right spelling.
TEXT_TYPOS = {"Almirante Domecq Garica": "Almirante Domecq Garcia", "Shefield": "Sheffield"}

UK_GROUND_REINFORCEMENTS = ("2_para", "3_para", "40_cdo", "42_cdo", "45_cdo", "2_sg", "1_wg", "1_7_gr",
                            "b_r", "sas_g", "sbs")


def units(**match):
    return {uid: u for uid, u in DATA.units.items() if all(u[k] == v for k, v in match.items())}


def reachable(start, neighbours):
    seen, todo = {start}, deque([start])
    while todo:
        for nxt in neighbours(todo.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


# ---- the map ---------------------------------------------------------------------------------

def test_area_ids_are_the_ones_the_rules_code_uses():
    assert DATA.sea_areas == ("sa1", "sa2", "sa3", "sa4", "sa5", "sa6", "sa7", "falklands")
    assert set(DATA.land_areas) == {"port_stanley", "mount_kent", "teal_inlet", "san_carlos", "fitzroy",
                                    "goose_green", "lafonia", "port_howard", "fox_bay", "pebble_island"}
    assert DATA.areas["argentina"]["kind"] == "mainland"
    assert DATA.areas["south_georgia"]["kind"] == "box"
    assert set(DATA.areas) == set(DATA.sea_areas) | set(DATA.land_areas) | {"argentina", "south_georgia"}


def test_fs_2_2_tez_is_sea_areas_6_7_and_falklands():
    assert DATA.tez == frozenset({"sa6", "sa7", "falklands"})
    assert all(DATA.areas[a]["kind"] == "sea" for a in DATA.tez)


def test_fs_9_3_tactical_land_areas_lie_within_the_falklands_sea_area():
    for aid in DATA.land_areas:
        assert DATA.areas[aid]["map"] == "tactical"
        assert DATA.areas[aid]["within"] == "falklands"
    assert all(DATA.areas[a]["map"] == "strategic" for a in DATA.areas if a not in DATA.land_areas)


def test_fs_9_4_a4_reach():
    assert DATA.a4_reach == frozenset({"sa1", "sa2", "sa3", "sa6"})
    assert DATA.a4_refuelled_reach == frozenset({"falklands"})
    assert all(u["range"] == "a4" for u in units(type="A4").values())
    others = [u for u in units(**{"class": "aircraft"}).values() if u["type"] != "A4"]
    assert others and all(u["range"] == "range_line" for u in others)


def test_fs_9_4_range_line_reaches_past_the_a4s_but_not_to_sa4_sa5_or_south_georgia():
    assert DATA.a4_reach | DATA.a4_refuelled_reach <= DATA.range_line
    assert not DATA.range_line & {"sa4", "sa5", "south_georgia"}


def test_fs_7_1_op_24_lafonia_borders_only_goose_green():
    assert DATA.land_adjacent("lafonia") == frozenset({"goose_green"})
    assert "lafonia" in DATA.land_adjacent("goose_green")


def test_fs_3_7_south_georgia_is_entered_only_via_sea_area_5():
    assert DATA.south_georgia_entry == "sa5"
    assert DATA.sea_adjacent("south_georgia") == frozenset({"sa5"})


def test_fs_9_7_argentina_touches_the_western_sea_areas():
    assert DATA.sea_adjacent("argentina") >= {"sa1", "sa2", "sa3"}
    assert not DATA.sea_adjacent("argentina") & DATA.tez


def test_fs_3_3_and_7_1_op_6_sea_area_4_leads_toward_the_tez_and_sea_area_5():
    assert DATA.sea_adjacent("sa4") >= {"sa5", "sa7"}
    assert "falklands" in DATA.sea_adjacent("sa6") & DATA.sea_adjacent("sa7")


def test_fs_6_2_airbase_capacities():
    assert dict(DATA.airbases) == {"port_stanley": 3, "goose_green": 2, "pebble_island": 2}


def test_fs_10_7_entrenchments():
    assert {a for a, v in DATA.areas.items() if v["entrenched"]} == {"port_stanley", "goose_green"}


def test_fs_10_6_mountains_only_on_land():
    mountains = {a for a, v in DATA.areas.items() if v["mountains"]}
    assert mountains and mountains <= set(DATA.land_areas)


def test_fs_4_4_5_vp_areas():
    assert dict(DATA.vp_areas) == {"port_stanley": 4, "goose_green": 1, "fox_bay": 1, "port_howard": 1,
                                   "pebble_island": 1}


def test_borders_are_symmetric_and_connected():
    for a in DATA.areas:
        for b in DATA.sea_adjacent(a):
            assert a in DATA.sea_adjacent(b), (a, b)
        for b in DATA.land_adjacent(a):
            assert a in DATA.land_adjacent(b), (a, b)
    strategic = {a for a, v in DATA.areas.items() if v["map"] == "strategic"}
    assert reachable("argentina", DATA.sea_adjacent) == strategic
    islands = {v["island"] for a, v in DATA.areas.items() if a in DATA.land_areas}
    assert islands == {"east", "west", "pebble"}
    for island in islands:
        members = {a for a in DATA.land_areas if DATA.areas[a]["island"] == island}
        # every land area of an island is reachable within it, and no border crosses the water
        assert reachable(next(iter(sorted(members))), DATA.land_adjacent) == members, island
    assert DATA.land_adjacent("pebble_island") == frozenset()
    assert DATA.land_adjacent("port_howard") == frozenset({"fox_bay"})


def test_every_area_can_be_drawn_on_its_map():
    board = DATA.board()
    for aid, a in board["areas"].items():
        size = board["maps"][a["map"]]
        assert len(a["polygon"]) >= 3
        for x, y in a["polygon"] + [a["label_xy"]]:
            assert 0 <= x <= size["width"] and 0 <= y <= size["height"], aid


def edges(polygon) -> set[frozenset]:
    points = [tuple(p) for p in polygon]
    return {frozenset((points[i - 1], points[i])) for i in range(len(points))}


def test_the_drawing_agrees_with_the_borders():
    """Two areas of one map share a polygon edge exactly when they border (the box sits inside sa5)."""
    board = DATA.board()
    drawn = {aid: edges(a["polygon"]) for aid, a in board["areas"].items() if a["kind"] != "box"}
    for a, b in ((a, b) for a in drawn for b in drawn if a < b):
        if board["areas"][a]["map"] != board["areas"][b]["map"]:
            continue
        touching = b in (DATA.land_adjacent(a) | DATA.sea_adjacent(a))
        assert bool(drawn[a] & drawn[b]) == touching, (a, b)
    xs, ys = zip(*board["areas"]["south_georgia"]["polygon"])
    sx, sy = zip(*board["areas"]["sa5"]["polygon"])
    assert min(sx) <= min(xs) and max(xs) <= max(sx) and min(sy) <= min(ys) and max(ys) <= max(sy)


# ---- the order of battle -----------------------------------------------------------------------

# The FS 2.5 abbreviation lists, copied verbatim from the rules text so the check runs wherever
# the tests run; test_the_copied_fs_2_5_list_is_the_rules_text checks the copy against the text.
FS_2_5 = Path(__file__).resolve().parents[2] / "data" / "fs_2_5_ship_names.txt"


def test_the_copied_fs_2_5_list_is_the_rules_text():
    if not RULES.exists():
        pytest.skip(f"the rules text is not at {RULES}")
    assert FS_2_5.read_text(encoding="utf-8") in RULES.read_text(encoding="utf-8")


def fs_2_5_ship_names(side: str) -> list[tuple[str, str]]:
    """The abbreviation list of FS 2.5 for one side, from the copy of the rules text."""
    text = "\n" + FS_2_5.read_text(encoding="utf-8") + "AR Ground Units"
    block = re.search(rf"\n{side} Ship Names\n(.*?)\n\s*\n?(?:UK Ship Names|AR Ground Units)", text, re.S)
    assert block, "FS 2.5 ship list not found in the rules text"
    pairs = []
    for line in block.group(1).splitlines():
        if "—" not in line:
            continue
        abbr, name = (part.strip(" \ufffd\t") for part in line.split("—", 1))
        pairs.append((abbr, TEXT_TYPOS.get(name, name)))
    return pairs


@pytest.mark.parametrize("side, count", [("AR", 17), ("UK", 38)])
def test_fs_2_5_every_named_ship_is_in_the_order_of_battle(side, count):
    named = fs_2_5_ship_names(side)
    assert len(named) == count
    naval = {uid: u for uid, u in units(side=side).items() if u["class"] in ("ship", "submarine")}
    found = set()
    for abbr, name in named:
        match = [uid for uid, u in naval.items() if u["abbr"] == abbr and u["name"] == name]
        assert len(match) == 1, (abbr, name, match)
        found.update(match)
    # and no ship beyond the list, except the Elk that FS 6.2(2) names
    assert set(naval) - found == ({"elk"} if side == "UK" else set())


def test_fs_2_5_submarines():
    assert set(units(**{"class": "submarine", "side": "AR"})) == {"salta", "san_luis", "santa_fe", "santiago"}
    assert set(units(**{"class": "submarine", "side": "UK"})) == {
        "conqueror", "courageous", "spartan", "splendid", "valiant", "onyx"}
    assert all(u["type"] == "S" for u in units(**{"class": "submarine"}).values())


def test_fs_2_6_carriers_and_their_anti_air_factor_from_the_10_9_example():
    assert set(units(type="CVL")) == {"hermes", "invincible", "25_de_mayo"}
    assert DATA.units["hermes"]["factors"]["air"] == 3
    assert DATA.units["invincible"]["factors"]["air"] == 3


def test_fs_2_7_factors_are_hit_numbers_0_to_5():
    for uid, u in DATA.units.items():
        assert set(u["factors"]) == {"ground", "air", "sub", "surface"}, uid
        assert all(0 <= v <= 5 for v in u["factors"].values()), uid


def test_fs_2_8_steps():
    for uid, u in DATA.units.items():
        expected = 1 if u["side"] == "AR" or u["type"] == "sf" else 2
        assert u["steps"] == expected, uid
    assert DATA.units["hermes"]["steps"] == 2
    assert DATA.units["sas_d"]["steps"] == 1
    assert DATA.units["belgrano"]["steps"] == 1
    assert "steps" not in json.loads((datamod.DATA_DIR / "units.json").read_text())["units"]["hermes"]


def test_fs_1_2_the_uk_has_no_aircraft_counters():
    assert not units(side="UK", **{"class": "aircraft"})


def test_fs_3_2_ar_set_up_in_argentina_or_on_the_islands():
    for uid, u in units(side="AR").items():
        if u["group"] == "op2":
            continue
        area = DATA.areas[u["setup"]]
        if u["class"] in ("ship",):
            assert u["setup"] == "argentina", uid
        if u["setup"] == "south_georgia":
            assert u["class"] == "submarine", uid  # FS 3.7
        if u["class"] == "ground":
            assert area["kind"] == "land", uid


def test_fs_3_3_uk_start_force_with_sf_on_hermes():
    start = {uid for uid, u in units(side="UK").items() if u["setup"] is not None}
    at_sa4 = {uid for uid in start if DATA.units[uid]["setup"] == "sa4"}
    assert {"hermes", "invincible"} <= at_sa4
    assert {uid for uid in start if DATA.units[uid]["setup"] == "tez"} == {"spartan", "splendid"}
    assert start == at_sa4 | {"spartan", "splendid"}
    sf_aboard = [uid for uid in at_sa4 if DATA.units[uid]["type"] == "sf"]
    assert sf_aboard == ["sas_d"] and DATA.units["sas_d"]["aboard"] == "hermes"
    assert not [uid for uid in at_sa4 if DATA.units[uid]["class"] == "ground" and uid != "sas_d"]


def test_fs_3_4_every_uk_reinforcement_is_in_one_of_six_groups():
    groups = {u["group"] for u in units(side="UK").values() if u["setup"] is None}
    assert groups == {"R1", "R2", "R3", "R4", "R5", "R6"}
    assert all(u["setup"] is None for u in units(side="UK").values() if u["group"] is not None)


def test_fs_3_4_every_uk_ground_reinforcement_fits_its_ship():
    cargo = {}
    for uid in UK_GROUND_REINFORCEMENTS:
        u = DATA.units[uid]
        ship = DATA.units[u["aboard"]]
        assert ship["side"] == "UK" and ship["group"] == u["group"], uid
        cargo.setdefault(u["aboard"], []).append(u)
    for sid, load_ in cargo.items():
        ship = DATA.units[sid]
        if ship["class"] == "submarine":  # FS 6.2(1): only Onyx, only the SBS
            assert sid == "onyx" and [u["id"] for u in load_] == ["sbs"]
            continue
        sf = [u for u in load_ if u["type"] == "sf"]
        counted = load_ if not sf else [u for u in load_ if u is not sf[0]]  # one SF rides free
        assert sum(u["steps"] for u in counted) <= ship["capacity"], sid
        if any(u["type"] != "sf" for u in load_):
            assert ship["type"] in ("A", "T"), sid  # FS 6.5


def test_fs_3_4_and_7_1_op_2_ar_reinforcements():
    assert {u["abbr"] for u in units(group="op2").values()} == {"3M", "2", "SF Anf"}
    for u in units(group="op2").values():
        assert u["side"] == "AR" and u["setup"] is None and u["class"] == "ground"


def test_fs_6_2_transport_capacities_given_by_the_text():
    assert DATA.units["fearless"]["capacity"] == 5
    assert DATA.units["intrepid"]["capacity"] == 5
    assert DATA.units["cabo_san_antonio"]["capacity"] == 2
    assert DATA.units["atlantic_conveyor"]["capacity"] == 0
    assault = {uid for uid, u in DATA.units.items() if u["type"] == "A"}
    assert assault == {"fearless", "intrepid", "cabo_san_antonio"}


def test_fs_6_2_only_elk_fearless_intrepid_carry_armor():
    assert {uid for uid, u in DATA.units.items() if u["carries_armor"]} == {"elk", "fearless", "intrepid"}
    assert DATA.units["b_r"]["aboard"] in {"elk", "fearless", "intrepid"}


def test_fs_6_2_1_only_onyx_carries_the_sbs():
    assert {uid for uid, u in DATA.units.items() if u["carries_sbs"]} == {"onyx"}
    assert DATA.units["sbs"]["type"] == "sf"


def test_fs_6_2_ar_aircraft_based_in_the_falklands_fit_the_airbases():
    based = {}
    for uid, u in units(**{"class": "aircraft"}).items():
        if u["setup"] != "argentina":
            based.setdefault(u["setup"], []).append(uid)
            assert u["type"] == "Puc", uid
    assert based
    for area, planes in based.items():
        assert len(planes) <= DATA.airbases[area], area


def test_fs_10_4_protected_targets_match_the_list():
    uk_transports = {uid for uid, u in units(side="UK").items() if u["type"] == "T"}
    assert {"atlantic_conveyor", "elk", "canberra", "norland", "stromness", "qe2"} <= uk_transports
    named = {"hermes", "invincible", "25_de_mayo", "fearless", "intrepid", "cabo_san_antonio"}
    expected = named | uk_transports
    assert {uid for uid, u in DATA.units.items() if u["protected"]} == expected


def test_fs_10_5_one_stealth_aircraft_the_super_etendard():
    assert list(units(stealth=True)) == ["super_etendard"]
    assert DATA.units["super_etendard"]["type"] == "SprEnt"
    assert DATA.markers["stealth_missions"]["start"] == 5


def test_fs_10_10_armor_units():
    armor = units(armor=True)
    assert {(u["side"], u["abbr"]) for u in armor.values()} == {("UK", "B&R"), ("AR", "10"), ("AR", "181")}
    assert set(armor) == {"b_r", "armd_10", "armd_181"}
    assert all(u["type"] == "armor" for u in armor.values())


def test_fs_2_9_markers():
    assert set(DATA.markers) == {"uk_operations", "black_buck", "uk_leader", "ar_leader", "exocet", "hit",
                                 "stealth_missions", "vp"}
    assert DATA.markers["uk_operations"]["start"] == 30  # FS 3.5
    assert DATA.markers["vp"]["start"] == 8  # FS 3.5
    assert DATA.markers["exocet"]["hit_number"] == DATA.exocet_hit_number == 3  # FS 11.3 event 6-4


# ---- the random events -------------------------------------------------------------------------

EFFECTS = {
    "uk_operational_superiority": "11 12 13 14 15", "poor_uk_staff_work": "16",
    "uk_surface_detection": "21 22 23", "sf_team_compromised": "24", "uk_submarine_detection": "25 26 31",
    "ar_target_of_opportunity": "32 33", "uk_surprise_sub_attack": "34 35 36", "uk_leadership": "41 42",
    "ar_leadership": "43", "ar_surface_detection": "44", "uk_political_pressure": "45",
    "ar_air_mechanical": "46", "poor_ar_logistics": "51 52", "severe_weather": "53 54 55",
    "ar_air_panache": "56 61 62", "peru_replacement": "63", "land_exocet": "64",
    "ar_submarine_detection": "65", "ar_surprise_sub_attack": "66",
}


def test_fs_11_3_all_36_results():
    assert list(DATA.events) == [f"{uk}{ar}" for uk in range(1, 7) for ar in range(1, 7)]
    for effect, keys in EFFECTS.items():
        for key in keys.split():
            assert DATA.events[key]["effect"] == effect, key
            assert DATA.events[key]["event"] == f"{key[0]}-{key[1]}"
    assert DATA.events["24"]["title"] == "Special Forces Team Compromised"  # the FS 11.2 example


# ---- provisional values ------------------------------------------------------------------------

TYPE_GIVEN = {"hermes", "invincible", "25_de_mayo", "fearless", "intrepid", "cabo_san_antonio",
              "atlantic_conveyor", "elk", "spartan", "splendid", "onyx"}
SETUP_GIVEN = {"hermes", "spartan", "splendid", "sas_d"}


def test_every_value_not_in_the_text_is_marked_provisional():
    paths = set(DATA.provisional())
    for uid, u in DATA.units.items():
        for factor in ("ground", "air", "sub", "surface"):
            marked = f"units.{uid}.factors" in paths or f"units.{uid}.factors.{factor}" in paths
            given = uid in ("hermes", "invincible") and factor == "air"  # FS 10.9 Interception Example
            assert marked != given, (uid, factor)
        if u["setup"] is not None and uid not in SETUP_GIVEN:
            assert f"units.{uid}.setup" in paths, uid
        if u["group"] in ("R1", "R2", "R3", "R4", "R5", "R6"):
            assert f"units.{uid}.group" in paths, uid
        if u["class"] in ("ship", "submarine") and uid not in TYPE_GIVEN:
            assert f"units.{uid}.type" in paths, uid
        if u["type"] == "T" and uid not in ("atlantic_conveyor",):
            assert f"units.{uid}.capacity" in paths, uid
    for aid, a in DATA.areas.items():
        assert {f"areas.{aid}.polygon", f"areas.{aid}.label_xy"} <= paths, aid
        if a["kind"] == "sea":
            assert f"areas.{aid}.in_range_line" in paths, aid
            assert f"areas.{aid}.tez" not in paths and f"areas.{aid}.a4_reach" not in paths
        if a["kind"] == "land":
            assert f"areas.{aid}.mountains" in paths, aid
            for given in ("vp", "entrenched", "airbase"):  # FS 4.4(5), 10.7, 6.2
                assert f"areas.{aid}.{given}" not in paths, aid
    given_borders = {"land_borders.goose_green-lafonia", "sea_borders.sa5-south_georgia"}
    board = DATA.board()
    for kind, key in (("sea", "sea_borders"), ("land", "land_borders")):
        for a, b in board["borders"][kind]:
            path = f"{key}.{a}-{b}"
            assert (path in paths) != (path in given_borders), path


def test_every_provisional_path_names_a_value():
    for path in DATA.provisional():
        head, _, rest = path.partition(".")
        if head == "map":
            assert rest == "maps"
        elif head in ("sea_borders", "land_borders"):
            a, b = rest.split("-")
            assert b in (DATA.sea_adjacent(a) if head == "sea_borders" else DATA.land_adjacent(a)), path
        else:
            value = {"areas": DATA.areas, "units": DATA.units}[head]
            for part in rest.split("."):
                assert part in value, path
                value = value[part]


def test_every_entry_quotes_its_source():
    for table in (DATA.areas, DATA.units):
        for eid, entry in table.items():
            assert re.search(r"FS \d+\.\d+", entry["source"]), eid


# ---- the loader's API --------------------------------------------------------------------------

def test_board_is_plain_json_for_a_page():
    board = DATA.board()
    assert set(board) == {"maps", "areas", "borders", "units", "provisional_note", "tracks", "effects"}
    assert set(board["areas"]["port_stanley"]) == {"name", "kind", "map", "polygon", "label_xy", "tez", "vp",
                                                   "airbase", "mountains", "entrenched"}
    assert set(board["units"]["hermes"]) == {"name", "abbr", "side", "class", "type", "steps", "factors"}
    assert json.loads(json.dumps(board)) == board
    assert type(board["areas"]) is dict and type(board["areas"]["sa1"]["polygon"]) is list
    board["areas"].clear()  # a fresh copy each time
    assert DATA.board()["areas"]


def test_board_names_every_effect_the_state_may_hold_and_the_uk_operations_track():
    """Issue 29: the pages show the UK operations left and the events in effect by name; every
    effect id the rules put in a state is named (bookkeeping ones aside)."""
    board = DATA.board()
    code = "".join(p.read_text() for p in Path(datamod.__file__).parent.glob("*.py"))
    emitted = set(re.findall(r'EffectGained, side=\w+, effect="(\w+)"', code))
    emitted |= {key for _, key in re.findall(r'\((UK|AR), "(\w+)"\)', code)}  # randomevents.lasting(...)
    assert emitted >= {"political_pressure", "exocet", "black_buck", "tez_expanded", "uk_operational_superiority"}
    assert emitted - {"op2", "reinforcement_group"} <= set(board["effects"])
    assert {"uk_decisive_leader", "ar_decisive_leader"} <= set(board["effects"])  # the markers FS 11.3 4-1/4-3 give
    assert board["effects"]["uk_operational_superiority"] == {"name": "UK Operational Superiority",
                                                              "rule": "FS 11.3 1-1, 1-2, 1-3, 1-4, 1-5"}
    assert board["tracks"][0] == {"name": "UK Operations Remaining", "rule": "FS 5.3",
                                  "value": "uk_operations_left", "of": "uk_operations"}


def test_tables_are_read_only_and_copy_to_plain_json():
    with pytest.raises(TypeError):
        DATA.units["hermes"]["capacity"] = 9
    with pytest.raises(TypeError):
        DATA.areas["sa1"]["polygon"].append([0, 0])
    unit = copy.deepcopy(DATA.units["hermes"])
    unit["factors"]["air"] = 9
    assert type(unit) is dict and DATA.units["hermes"]["factors"]["air"] == 3
    assert json.loads(json.dumps(DATA.units["sas_d"])) == DATA.units["sas_d"]


def test_adjacency_of_an_area_without_borders_is_empty():
    assert DATA.land_adjacent("sa1") == frozenset()
    assert DATA.sea_adjacent("port_stanley") == frozenset()
    assert DATA.sea_adjacent("nowhere") == frozenset()


# ---- the loader's checks (each on a broken copy of the files) -----------------------------------

@pytest.fixture
def copy_dir(tmp_path):
    shutil.copytree(datamod.DATA_DIR, tmp_path / "data")
    return tmp_path / "data"


def edit(directory: Path, name: str, change) -> None:
    path = directory / name
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_loader_accepts_an_unchanged_copy(copy_dir):
    assert load(copy_dir).provisional() == DATA.provisional()


def test_loader_rejects_a_bad_border(copy_dir):
    edit(copy_dir, "map.json", lambda d: d["land_borders"].append(["lafonia", "atlantis"]))
    with pytest.raises(ValueError, match=r"map\.json: land_borders .*unknown area 'atlantis'"):
        load(copy_dir)


def test_loader_rejects_a_unit_in_an_unknown_area(copy_dir):
    edit(copy_dir, "units.json", lambda d: d["units"]["ri_3"].update(setup="darwin"))
    with pytest.raises(ValueError, match=r"units\.json: units\.ri_3: sets up in unknown area 'darwin'"):
        load(copy_dir)


def put(path: str, value):
    """A change to a file: set the value at a dotted path ("units.qe2.group")."""
    *parents, last = path.split(".")

    def change(doc):
        for key in parents:
            doc = doc[key]
        doc[last] = value
    return change


def add(path: str, value):
    """A change to a file: append to the list at a dotted path."""
    def change(doc):
        for key in path.split("."):
            doc = doc[key]
        doc.append(value)
    return change


def remove(path: str):
    """A change to a file: delete the key at a dotted path."""
    *parents, last = path.split(".")

    def change(doc):
        for key in parents:
            doc = doc[key]
        del doc[last]
    return change


def both(*changes):
    def change(doc):
        for one in changes:
            one(doc)
    return change


def board_ship(unit: str, ship: str, group: str):
    return both(put(f"units.{unit}.aboard", ship), put(f"units.{unit}.group", group))


@pytest.mark.parametrize("name, change, message", [
    ("map.json", add("sea_borders", ["sa2", "sa1"]),
     r"map\.json: sea_borders \['sa2', 'sa1'\]: duplicate border"),
    ("map.json", add("land_borders", ["sa1", "lafonia"]),
     r"map\.json: land_borders .*'sa1' is not one of land areas"),
    ("map.json", put("areas.sa4.tez", 1), r"map\.json: areas\.sa4: field 'tez' has the wrong type"),
    ("map.json", put("areas.port_stanley.tez", True), r"areas\.port_stanley: only a sea area .* TEZ"),
    ("map.json", add("sea_borders", ["sa4", "south_georgia"]),
     r"south_georgia_entry: the box south_georgia must border exactly"),
    ("map.json", add("areas.sa1.polygon", [5000, 0]), r"areas\.sa1: 'polygon' point \[5000, 0\] lies out"),
    ("map.json", add("areas.sa1.provisional", "colour"), r"areas\.sa1: 'provisional' names 'colour'"),
    ("map.json", add("land_borders", ["fox_bay", "lafonia"]), r"land_borders .*cannot cross the water"),
    ("units.json", both(*(board_ship(u, "canberra", "R2") for u in ("2_sg", "1_wg", "1_7_gr"))),
     r"units\.json: units\.canberra: carries 8 steps \(42_cdo, 2_sg, 1_wg, 1_7_gr\) but its capacity is 6"),
    ("units.json", board_ship("b_r", "canberra", "R2"), r"units\.b_r: armor cannot ride 'canberra'"),
    ("units.json", board_ship("sbs", "conqueror", "R1"), r"units\.sbs: 'conqueror' is a submarine"),
    ("units.json", both(*(put(f"units.a4_{i}.setup", "goose_green") for i in (1, 2, 3))),
     r"units\.json: units\.\w+: goose_green bases 4 aircraft counters .* takes 2"),
    ("units.json", put("units.hermes.factors.air", 6), r"units\.hermes: 'factors' needs"),
    ("units.json", put("units.sas_g.aboard", "belgrano"), r"units\.sas_g: aboard 'belgrano', an enemy ship"),
    ("units.json", put("units.belgrano.setup", "south_georgia"), r"units\.belgrano: only AR submarines"),
    ("units.json", put("units.hermes.setup", "argentina"), r"units\.hermes: no UK unit may ever be in Arg"),
    ("units.json", put("units.qe2.group", "R9"), r"units\.qe2: 'group' is 'R9'"),
    ("units.json", put("markers.exocet.hit_number", 6), r"units\.json: markers\.exocet: 'hit_number'"),
    ("events.json", remove("results.36"), r"events\.json: results\.36: missing"),
    ("events.json", put("results.12.event", "2-1"), r"results\.12: 'event' must read 1-2"),
])
def test_loader_rejects_a_broken_file(copy_dir, name, change, message):
    edit(copy_dir, name, change)
    with pytest.raises(ValueError, match=message):
        load(copy_dir)


def test_loader_rejects_a_duplicate_id(copy_dir):
    path = copy_dir / "units.json"
    text = path.read_text()
    # a second "hermes" entry written by hand into the same object
    path.write_text(text.replace('"units": {', '"units": {\n    "hermes": {},', 1))
    with pytest.raises(ValueError, match=r"units\.json: hermes: duplicate id"):
        load(copy_dir)


def test_loader_rejects_a_file_that_is_not_json(copy_dir):
    (copy_dir / "events.json").write_text("{ not json")
    with pytest.raises(ValueError, match=r"events\.json: line 1 column 3: not valid JSON"):
        load(copy_dir)


def test_fs_2_6_a_ground_units_type_is_provisional_unless_the_text_gives_it():
    """FS 2.6 lists the ground-unit types, not which unit is which. The text types five units:
    the three armored ones (FS 10.10: "the UK B&R and the AR 10th and 181st"), "the SBS special
    forces unit" (FS 6.2(1)) and Op #2's "SF Anf"; every other ground unit's type is a guess."""
    given = {"armd_10", "armd_181", "b_r", "sbs", "sf_anf"}
    for uid, unit in DATA.units.items():
        if unit["class"] == "ground":
            assert ("type" in unit["provisional"]) == (uid not in given), uid
