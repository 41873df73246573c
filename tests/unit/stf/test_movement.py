"""STF 6.1-6.6 (deployment), 7.1-7.11 (movement), 8.14, 8.15 (proximity reveals), the Starting
Megahex Table and the three maps (domain/rulesets/stf/maps.py, movement.py).

Most positions are on the G-I-UK Gap map's open water (columns 14-23, rows 1-12), where a row of
hexes is a straight line: hex "CCRR" and "(CC+d)RR" are d hexes apart."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import maps, movement
from tests.unit.stf.helpers import R, FixedDice, answer_waves, at_phase, events_of, initial, names, play, rolls_of, run_step

M = "giuk"


# ---- built states --------------------------------------------------------------------------------
def state(*, map_=M, player="US", system="Soviet", invader=None, target=None, phase="Movement", turn=2) -> dict:
    st = at_phase(initial(), phase, turn=turn)
    st["campaign"].update({"map": map_, "player_side": player, "system_side": system, "invader": invader,
                           "mission": {"Player": "US Inv", "system": "Sov Inv"}.get(invader, "Battle"),
                           "invasion_target": target})
    return st


def ship(uid: str, cls: str = "DD", speed: int = 3, **fields) -> dict:
    return {"id": uid, "counter": uid, "class": cls, "speed": speed, "ssm": 2, "torpedoes": 0, "gun": "C", **fields}


def add(st: dict, gid: str, owner: str, kind: str, hex_: str | None, units=(), **fields) -> dict:
    group = {"id": gid, "owner": owner, "kind": kind, "hex": hex_, "units": [u["id"] for u in units],
             "status": "on map"}
    if owner == "system":
        group.update({"intel": "unknown", "chit": None, "size": None, "retiring": False,
                      "mode": "deep" if kind == "subron" else None, "emcon": kind == "tf"})
    group.update(fields)
    st["groups"][gid] = group
    for u in units:
        st["units"][u["id"]] = {**u, "group": gid}
    return st


def player_tf(st, gid, hex_, n=4, cls="DD", extra=()):
    return add(st, gid, "Player", "tf", hex_, [ship(f"{gid}-{i}", cls) for i in range(n)] + list(extra))


def cv_tf(st, gid, hex_, speed=3):
    units = [ship(f"{gid}-cv", "CV", speed, air={"H": 2, "L": 2}), ship(f"{gid}-1", "FF", speed, asw=2),
             ship(f"{gid}-2", "FF", speed, asw=2), ship(f"{gid}-3", "FF", speed, asw=2)]  # its 3 ASW escorts (STF 1.12)
    return add(st, gid, "system", "tf", hex_, units, intel="precise")


def moves(out: list) -> list[dict]:
    return events_of(out, "GroupMoved")


def last_hex(st: dict, gid: str) -> str:
    return st["groups"][gid]["hex"]


def d(a: str, b: str, m: str = M) -> int:
    return maps.distance(m, a, b)


# ---- the maps ------------------------------------------------------------------------------------
TABLE_MEGAHEXES = {  # Starting Megahex Table, Invasion Target Megahex Table, 12.10-12.12's megahexes
    "caribbean": ({9, 15, 16, 23, 54, 62, 61, 68, 60, 53, 10, 17, 24, 18, 47, 55, 52, 59, 66, 51,
                   19, 14, 20, 12, 13, 7, 28, 11, 6}, {19, 13}, {9, 61}),
    "giuk": ({1, 3, 4, 6, 7, 8, 9, 46, 47, 54, 13, 14, 15, 20, 21, 22, 23, 28, 53, 45, 63, 64, 60, 61, 62,
              55, 56, 57, 49, 50, 51, 52, 58, 41, 42, 43, 44, 35}, {64, 30, 12}, {1, 63, 64}),
    "mediterranean": ({26, 36, 27, 17, 37, 28, 176, 170, 163, 162, 46, 19, 47, 38, 161, 152, 143, 151,
                       80, 88, 89, 98, 108, 128, 119, 129, 120, 77, 78, 79, 70, 90, 139, 130, 121, 112, 131},
                      {99, 128, 61, 159, 136, 165, 170, 42, 26}, {117}),
}
PLACES = {"caribbean": ["Guantanamo", "Kingston", "Santiago", "Banas"],
          "giuk": ["Neskaupstadur", "Sumburgh"],
          "mediterranean": ["Malta", "Suda Bay", "Konya", "Haifa", "Famagusta", "Benghazi", "Alexandria", "Latakia",
                            "Antalya", "Tobruk", "Port Said"]}


@pytest.mark.parametrize("m", maps.MAP_NAMES)
def test_maps_number_every_megahex_the_tables_name_and_keep_them_at_sea(m):
    starting, invasion, bases = TABLE_MEGAHEXES[m]
    assert max(starting | invasion | bases) <= max(maps.megahex_numbers(m))
    for number in starting | bases:  # deployment and the bases: every hex of the megahex on the map is sea
        assert all(maps.is_sea(m, h) for h in maps.megahex_hexes(m, number) if h), (m, number)
    for number in invasion:  # an invasion target lies on a coast
        hexes = [h for h in maps.megahex_hexes(m, number) if h]
        assert maps.sea_hexes_of(m, number)
        ring = {n for h in hexes for n in maps.grid(m).neighbours(h)}
        assert any(maps.is_land(m, h) for h in ring | set(hexes)), (m, number)


@pytest.mark.parametrize("m", maps.MAP_NAMES)
def test_maps_place_every_named_place_of_stf_2_and_12(m):
    for place in PLACES[m]:
        h = maps.place_hex(m, place)
        spec = maps.places(m)[place]
        assert maps.is_sea(m, h) or spec["kind"] == "airbase"
        # a place is on a coast (or, an airbase, inland on land)
        assert maps.is_land(m, h) or any(maps.is_land(m, n) for n in maps.grid(m).neighbours(h))
    assert maps.board(m)["places"][PLACES[m][0]] == maps.place_hex(m, PLACES[m][0])


def test_maps_a_base_given_as_a_megahex_is_its_centre():
    assert maps.place_hex("giuk", "Megahex 63") == maps.megahex_hexes("giuk", 63)[0]
    assert maps.place_hex("caribbean", "Mhex 9") == maps.place_hex("caribbean", 9) == maps.megahex_hexes("caribbean", 9)[0]
    with pytest.raises(maps.UnknownPlace):
        maps.place_hex("giuk", "Murmansk")


def test_maps_stf_1_8_shallow_megahexes_exist_and_deep_ones_too():
    for m in maps.MAP_NAMES:
        flags = [maps.megahex_is_shallow(m, n) for n in maps.megahex_numbers(m)]
        assert any(flags) and not all(flags)
    assert maps.megahex_is_shallow("giuk", 30)  # the Iceland-Faroes ridge
    assert not maps.megahex_is_shallow("giuk", 43)


def test_maps_give_each_side_an_edge_and_measure_from_it():
    assert maps.side_edge("giuk", "Soviet") == "east" and maps.side_edge("giuk", "NATO") == "west"
    assert maps.edge_distance("giuk", "2306", "east") == 1
    assert maps.megahex_number("giuk", maps.megahex_hexes("giuk", 43)[4]) == 43


# ---- the Starting Megahex Table ------------------------------------------------------------------
TEXT_ROWS = {  # the text's table, row by row: US TF, US Sub, Sov TF, Sov Sub for each map
    "caribbean": [[9, 10, 19, 19], [15, 17, 14, 18], [16, 24, 20, 19], [23, 18, 18, 18], [54, 47, 12, 12],
                  [62, 55, 13, 20], [61, 52, 7, 28], [68, 59, 28, 6], [60, 66, 11, 11], [53, 51, 19, 17]],
    "giuk": [[1, 13, 63, 49], [3, 14, 64, 50], [4, 15, 60, 51], [6, 20, 61, 52], [7, 21, 62, 58],
             [8, 22, 55, 41], [9, 23, 56, 42], [46, 28, 57, 43], [47, 53, 49, 44], [54, 45, 50, 35]],
    "mediterranean": [[26, 46, 80, 77], [36, 37, 88, 78], [27, 28, 89, 79], [17, 19, 98, 70], [37, 47, 108, 90],
                      [28, 38, 98, 139], [176, 161, 128, 130], [170, 152, 119, 121], [163, 143, 129, 112],
                      [162, 151, 120, 131]],
}


def test_starting_megahex_table_matches_the_text_row_by_row():
    for m, rows in TEXT_ROWS.items():
        table = movement.STARTING[f"starting megahex {m}"]
        assert table.dice in ("d10", "1d10") and table.columns == ("US TF", "US Sub", "Soviet TF", "Soviet Sub")
        assert [list(results) for _, _, results in table.rows] == rows
        assert [(lo, hi) for lo, hi, _ in table.rows] == [(i, i) for i in range(1, 11)]


def test_starting_megahex_table_matches_the_rules_text_file():
    text_file = Path(__file__).resolve().parents[3].parent / "shared" / "rules" / "003_74ca0e4e298164eb.txt"
    if not text_file.exists():
        pytest.skip("the rules text is not at hand")
    text = text_file.read_text(encoding="utf-8")
    part = text[text.index("## STARTING MEGAHEX TABLE"):]
    rows = [list(map(int, re.findall(r"\d+", line)))
            for line in part.splitlines() if re.match(r"\|\s*\d+\s*\|", line)]
    assert [r[0] for r in rows] == list(range(1, 11))
    for m, i in (("caribbean", 1), ("giuk", 5), ("mediterranean", 9)):
        assert [r[i:i + 4] for r in rows] == TEXT_ROWS[m]


# ---- STF 6.1: the Player's deployment -------------------------------------------------------------
def deployment_state(player="US", system="Soviet") -> dict:
    st = state(player=player, system=system, phase="Deployment", turn=0)
    add(st, "P1", "Player", "tf", None, [ship("dd1"), ship("dd2")])
    add(st, "P2", "Player", "subron", None, [ship("ssn1", "SSN", 2)])
    return st


def test_stf_6_1_the_player_deploys_in_a_megahex_of_his_nations_column():
    st = deployment_state()
    out, st2 = play(st, {"kind": "deploy", "group": "P1", "megahex": 46, "hex": maps.megahex_hexes(M, 46)[2]})
    assert events_of(out, "GroupChanged")[0]["rule"] == "STF 6.1"
    assert last_hex(st2, "P1") == maps.megahex_hexes(M, 46)[2]
    out, st3 = play(st2, {"kind": "deploy", "group": "P2", "megahex": 13}, FixedDice(default=1))
    assert last_hex(st3, "P2") == maps.megahex_hexes(M, 13)[0]  # the centre when no hex is given


def test_stf_6_1_refuses_a_megahex_outside_the_column_or_a_hex_outside_the_megahex():
    st = deployment_state()
    with pytest.raises(RuleViolation, match=r"STF 6.1.*US TF column"):
        play(st, {"kind": "deploy", "group": "P1", "megahex": 63})  # a Soviet task force megahex
    with pytest.raises(RuleViolation, match="STF 6.1"):
        play(st, {"kind": "deploy", "group": "P2", "megahex": 46})  # a task force megahex, not a subron's
    with pytest.raises(RuleViolation, match="not in megahex 46"):
        play(st, {"kind": "deploy", "group": "P1", "megahex": 46, "hex": maps.megahex_hexes(M, 47)[0]})
    with pytest.raises(InvalidOrder):
        play(st, {"kind": "deploy", "group": "TF1", "megahex": 46})
    with pytest.raises(InvalidOrder):
        play(st, {"kind": "deploy", "group": "P1", "megahex": "46"})
    soviet = deployment_state(player="Soviet", system="US")
    _, st2 = play(soviet, {"kind": "deploy", "group": "P1", "megahex": 63})
    assert last_hex(st2, "P1") == maps.megahex_hexes(M, 63)[0]


def test_stf_6_1_deploy_done_waits_for_every_group():
    st = deployment_state()
    with pytest.raises(RuleViolation, match="P1, P2"):
        play(st, {"kind": "deploy_done"})


def test_stf_1_8_the_player_deploys_sosus_in_a_megahex_with_shallow_water_only():
    st = deployment_state()
    st["units"]["SOSUS1"] = {"id": "SOSUS1", "class": "SOSUS", "nation": "US", "counter": None, "megahex": None}
    with pytest.raises(RuleViolation, match="STF 1.8.*deep water only"):
        play(st, {"kind": "deploy", "sosus": "SOSUS1", "megahex": 43})
    with pytest.raises(InvalidOrder):
        play(st, {"kind": "deploy", "sosus": "P1", "megahex": 30})
    out, st2 = play(st, {"kind": "deploy", "sosus": "SOSUS1", "megahex": 30})
    assert st2["units"]["SOSUS1"]["megahex"] == 30 and events_of(out, "UnitChanged")[0]["rule"] == "STF 1.8"
    _, st3 = play(st2, {"kind": "deploy", "group": "P1", "megahex": 46})
    out, st4 = play(st3, {"kind": "deploy", "group": "P2", "megahex": 13}, FixedDice(default=1))
    assert st4["turn"] == 1  # the last of the groups and SOSUS placed: the GameSystem deploys


# ---- STF 6.2, 6.5, 6.6: the GameSystem's deployment -----------------------------------------------
def eleven_placements(*pairs) -> FixedDice:
    faces = [f for pair in pairs for f in pair]
    return FixedDice(*faces)


def test_stf_6_2_the_gamesystem_places_six_task_forces_and_five_subrons_then_turn_one():
    st = deployment_state()
    _, st = play(st, {"kind": "deploy", "group": "P1", "megahex": 46})
    dice = eleven_placements(*[(i, 1) for i in range(1, 7)], *[(i, 2) for i in range(1, 6)])
    out, st2 = play(st, {"kind": "deploy", "group": "P2", "megahex": 13}, dice)  # the last deploy
    placed = events_of(out, "GroupPlaced")
    assert [p["group"]["id"] for p in placed] == ["TF1", "TF2", "TF3", "TF4", "TF5", "TF6", "SR1", "SR2", "SR3", "SR4", "SR5"]
    soviet_tf, soviet_sub = [63, 64, 60, 61, 62, 55], [49, 50, 51, 52, 58]
    for p, number in zip(placed, soviet_tf + soviet_sub):
        assert maps.megahex_number(M, p["group"]["hex"]) == number
        assert p["rule"] == "STF 6.2"
    tables = [r for r in rolls_of(out) if r.rule == "STF 6.2"]
    assert len(tables) == 11 and all(r.notation == "d10" and r.seat == "system" for r in tables)
    assert names(out)[-1] == "TurnAdvanced" and st2["turn"] == 1 and st2["phase"] == "Random Events"


def test_stf_6_2_a_us_gamesystem_reads_the_us_column_and_deploy_done_ends_the_deployment():
    st = deployment_state(player="Soviet", system="US")
    st["groups"] = {}
    out, st2 = play(st, {"kind": "deploy_done"}, FixedDice(*([8, 1] * 11)))
    assert {maps.megahex_number(M, p["group"]["hex"]) for p in events_of(out, "GroupPlaced")[:6]} == {46}
    assert {maps.megahex_number(M, p["group"]["hex"]) for p in events_of(out, "GroupPlaced")[6:]} == {28}


def test_stf_6_2_no_gamesystem_counter_is_placed_once_the_commitment_is_reached():
    st = deployment_state()
    st["groups"] = {}
    st["campaign"]["commitment_reached"] = True
    out, st2 = play(st, {"kind": "deploy_done"})
    assert not events_of(out, "GroupPlaced") and st2["turn"] == 1


def test_stf_6_5_a_d6_picks_the_outer_hex():
    st = deployment_state()
    st["groups"] = {}
    out, _ = play(st, {"kind": "deploy_done"}, FixedDice(1, 3, *([2, 6] * 10)))
    first = events_of(out, "GroupPlaced")[0]["group"]
    assert first["hex"] == maps.megahex_hexes(M, 63)[3]
    assert [r for r in rolls_of(out) if r.rule == "STF 6.5"][0].notation == "d6"


def test_stf_6_5_an_outer_hex_off_the_map_is_replaced_by_the_first_sea_hex():
    st = deployment_state()
    st["groups"] = {}
    assert maps.megahex_hexes(M, 58)[1] is None  # megahex 58's outer hex 1 is off the map's edge
    out, _ = play(st, {"kind": "deploy_done"}, FixedDice(*([1, 1] * 6), 5, 1, *([1, 1] * 4)))
    sr1 = events_of(out, "GroupPlaced")[6]["group"]
    assert sr1["hex"] == maps.megahex_hexes(M, 58)[0] and "off the map" in sr1["placed"]


def test_stf_6_6_task_forces_start_emcon_up_and_subrons_deep_with_nothing_known():
    st = deployment_state()
    st["groups"] = {}
    _, st2 = play(st, {"kind": "deploy_done"}, FixedDice(default=1))
    for gid in movement.SYSTEM_TFS + movement.SYSTEM_SUBRONS:
        g = st2["groups"][gid]
        assert g["owner"] == "system" and g["intel"] == "unknown" and g["chit"] is None and g["units"] == []
        assert (g["emcon"], g["mode"]) == ((True, None) if g["kind"] == "tf" else (False, "deep"))


# ---- STF 6.3, 6.4: coming back onto the map --------------------------------------------------------
def off_map_state(turn=2) -> dict:
    st = state(phase="Random Events", turn=turn)
    for i in range(1, 5):
        add(st, f"TF{i}", "system", "tf", None, status="off map")
    add(st, "TF5", "system", "tf", "1806")
    add(st, "SR1", "system", "subron", None, status="false contact", intel="approximate", chit="Enemy")
    add(st, "SR2", "system", "subron", None, status="sunk")
    return st


def test_stf_6_4_a_third_rounded_up_of_those_off_the_map_come_on():
    """6.4: "one third of all task forces and subrons which are currently off the map (round
    fractions up)": 4 task forces and 1 subron off the map (not the sunk one), 5 in all: 2 come,
    drawn at random (a d5, then a d4 over the counters left)."""
    dice = FixedDice(default=2)
    out, st2 = run_step(off_map_state(), "reinforcements", dice)
    placed = [p["group"]["id"] for p in events_of(out, "GroupPlaced")]
    assert placed == ["TF2", "TF3"]  # d5 2 of TF1-TF4, SR1: TF2; d4 2 of TF1, TF3, TF4, SR1: TF3
    draws = [r for r in dice.rolls if r.rule == "STF 6.4" and "drawn at random" in r.purpose]
    assert [(r.notation, r.outcome) for r in draws] == [("d5", "TF2"), ("d4", "TF3")]
    assert all(maps.megahex_number(M, st2["groups"][g]["hex"]) == 64 for g in ("TF2", "TF3"))  # d10 2: Soviet TF 64
    assert events_of(out, "GroupPlaced")[0]["rule"] == "STF 6.4"


def test_stf_6_4_nothing_comes_on_in_the_first_turn():
    out, _ = run_step(off_map_state(turn=1), "reinforcements")
    assert out == []


def test_stf_6_3_a_false_contact_removed_is_redeployed_as_a_new_contact():
    out, st2 = run_step(off_map_state(), "reinforcements", FixedDice(5, 1, default=3))  # d5 5: SR1, d4 1: TF1
    sr1 = [p for p in events_of(out, "GroupPlaced") if p["group"]["id"] == "SR1"][0]
    assert sr1["rule"] == "STF 6.3"
    g = st2["groups"]["SR1"]
    assert (g["status"], g["intel"], g["chit"], g["mode"]) == ("on map", "unknown", None, "deep")
    assert maps.megahex_number(M, g["hex"]) == 51  # d10 3: Soviet Sub 51


def test_stf_6_4_stops_once_the_commitment_is_reached():
    st = off_map_state()
    st["campaign"]["commitment_reached"] = True
    out, _ = run_step(st, "reinforcements")
    assert out == []


# ---- STF 7.1: the Player's movement ----------------------------------------------------------------
def test_stf_7_1_the_player_moves_along_adjacent_sea_hexes_at_most_the_slowest_speed():
    st = state()
    add(st, "P1", "Player", "tf", "1506", [ship("a", speed=3), ship("b", speed=2)])
    out, st2 = play(st, {"kind": "move", "group": "P1", "path": ["1606", "1706"]})
    assert moves(out) == [{"group": "P1", "path": ["1606", "1706"], "rule": "STF 7.1", "why": "the Player moves P1"}]
    assert last_hex(st2, "P1") == "1706"
    with pytest.raises(RuleViolation, match="moved this turn"):
        play(st2, {"kind": "move", "group": "P1", "path": ["1806"]})
    with pytest.raises(RuleViolation, match="at most 2"):
        play(st, {"kind": "move", "group": "P1", "path": ["1606", "1706", "1806"]})
    with pytest.raises(RuleViolation, match="not adjacent"):
        play(st, {"kind": "move", "group": "P1", "path": ["1706"]})
    with pytest.raises(InvalidOrder):
        play(st, {"kind": "move", "group": "P1", "path": ["Z99"]})


def test_stf_7_1_the_player_may_not_move_into_land():
    st = state()
    coast = next(h for h in maps.grid(M).names() if maps.is_sea(M, h)
                 and any(maps.is_land(M, n) for n in maps.grid(M).neighbours(h)))
    add(st, "P1", "Player", "tf", coast, [ship("a")])
    land = [h for h in maps.grid(M).neighbours(coast) if maps.is_land(M, h)]
    with pytest.raises(RuleViolation, match="land"):
        play(st, {"kind": "move", "group": "P1", "path": land[:1]})


def test_stf_8_14_lost_actions_limit_how_many_groups_the_player_moves():
    st = state(turn=3)
    add(st, "P1", "Player", "tf", "1506", [ship("a")])
    add(st, "P2", "Player", "tf", "1510", [ship("b")])
    st["campaign"]["actions_lost"] = {"turn": 3, "count": 1}
    _, st2 = play(st, {"kind": "move", "group": "P1", "path": ["1606"]})
    with pytest.raises(RuleViolation, match="STF 8.14"):
        play(st2, {"kind": "move", "group": "P2", "path": ["1610"]})
    st["campaign"]["actions_lost"] = {"turn": 2, "count": 1}  # last turn's: spent
    _, st3 = play(st2 | {"campaign": st["campaign"]}, {"kind": "move", "group": "P2", "path": ["1610"]})
    assert last_hex(st3, "P2") == "1610"


# ---- STF 7.1, 7.2, 5.2: the GameSystem's speeds -------------------------------------------------------
def battle(st=None, p1="1506", n=4):
    st = st or state()
    player_tf(st, "P1", p1, n)
    return st


def test_stf_7_1_a_subron_less_than_precise_moves_two_hexes():
    st = battle()
    add(st, "SR1", "system", "subron", "2106")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.5" and len(moves(out)[0]["path"]) == 2
    assert d(last_hex(st2, "SR1"), "1506") == 4


def test_stf_7_1_a_precise_conventional_sub_moves_one_hex():
    st = battle()
    add(st, "SR1", "system", "subron", "2106", [ship("ss1", "SS", 2), ship("ssn1", "SSN", 2)], intel="precise")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert len(moves(out)[0]["path"]) == 1 and "conventional" in moves(out)[0]["why"]


def test_stf_7_2_a_subron_less_than_precise_moves_two_even_with_no_ssn_left_in_the_countermix():
    st = battle()
    st["pool"] = {"ss9": {"name": "Foxtrot", "nation": "Soviet", "class": "SS", "speed": 1}}
    add(st, "SR1", "system", "subron", "2106", intel="accurate", chit="Commodore")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert len(moves(out)[0]["path"]) == 2


def test_stf_5_2_a_command_control_loss_limits_the_gamesystem_to_one_hex():
    st = battle()
    st["campaign"]["system_ccl_turn"] = st["turn"]
    add(st, "TF1", "system", "tf", "2106")
    add(st, "SR1", "system", "subron", "2110", [ship("ss1", "SS", 1)], intel="precise")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert [(m["group"], len(m["path"])) for m in moves(out)] == [("TF1", 1)]  # the speed-1 sub may not move
    assert "STF 5.2" in moves(out)[0]["why"]
    assert events_of(out, "GroupChanged") == [{"group": "SR1", "changes": {}, "rule": "STF 5.2", "why":
                                               "SR1 does not move: a GameSystem command control loss: a group of "
                                               "speed 1 may not move (STF 5.2)"}]


# ---- STF 7.3: Deep mode ----------------------------------------------------------------------------
def test_stf_7_3_a_subron_stays_deep_unless_within_two_hexes_of_a_player_task_force():
    st = battle(state(phase="Group Mode"))
    add(st, "SR1", "system", "subron", "1706")  # 2 hexes from P1
    add(st, "SR2", "system", "subron", "1806")  # 3 hexes
    add(st, "SR3", "system", "subron", "1906", mode="shallow")
    out, st2 = run_step(st, "group_modes")
    assert st2["groups"]["SR1"]["mode"] == "shallow" and st2["groups"]["SR2"]["mode"] == "deep"
    assert st2["groups"]["SR3"]["mode"] == "deep"
    assert {e["group"]: e["rule"] for e in events_of(out, "GroupChanged")} == {"SR1": "STF 7.3", "SR3": "STF 7.3"}


def test_stf_8_14_a_precise_subron_goes_shallow_at_the_group_mode_phase():
    st = battle(state(phase="Group Mode"))
    add(st, "SR1", "system", "subron", "2206", intel="precise")
    out, st2 = run_step(st, "group_modes")
    assert st2["groups"]["SR1"]["mode"] == "shallow" and events_of(out, "GroupChanged")[0]["rule"] == "STF 8.14"


# ---- STF 7.4-7.7: targets by mission ---------------------------------------------------------------------
def test_stf_7_4_an_invading_task_force_makes_for_the_target_megahex_at_full_speed():
    st = battle(state(invader="system", target=43), p1="1512")
    add(st, "TF1", "system", "tf", "2304")
    objective = maps.sea_hexes_of(M, 43)
    before = movement.nearest(M, "2304", objective)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.4" and "target megahex 43" in moves(out)[0]["why"]
    assert movement.nearest(M, last_hex(st2, "TF1"), objective) == before - 2


def test_stf_7_5_a_task_force_known_to_carry_no_invasion_freighter_hunts_player_task_forces():
    st = battle(state(invader="system", target=43), p1="1512")
    add(st, "TF1", "system", "tf", "2304", [ship("x1"), ship("x2")], intel="precise")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.5"


def test_stf_7_5_toward_the_nearest_player_task_force_of_four_or_more_ships():
    st = battle(p1="1506", n=4)
    player_tf(st, "P2", "2306", n=2)  # nearer, but only two ships
    add(st, "TF1", "system", "tf", "2006")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert "P1" in moves(out)[0]["why"] and "four or more" in moves(out)[0]["why"]
    assert d(last_hex(st2, "TF1"), "1506") == 3
    st = battle(p1="1506", n=3)
    player_tf(st, "P2", "2306", n=2)
    add(st, "TF1", "system", "tf", "2006")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert "P2" in moves(out)[0]["why"] and "none has four" in moves(out)[0]["why"]


def test_stf_7_5_a_true_tie_among_hexes_is_settled_by_a_die():
    st = battle(p1="2006")
    add(st, "TF1", "system", "tf", "1806")
    dice = FixedDice(2, default=1)  # the tie, then the rolls of its STF 8.14 reveal beside P1
    out, st2 = run_step(st, "system_movement", dice)
    tie = rolls_of(out)[0]
    assert tie.rule == "STF 7.5" and tie.notation == "d2" and tie.seat == "system"
    options = re.search(r"hexes (.*) \(", tie.purpose).group(1).split(", ")
    assert moves(out)[0]["path"] == [options[1], "2006"]


def test_stf_7_6_a_group_with_no_offensive_firepower_withdraws_toward_a_base():
    st = battle(p1="1506")
    add(st, "TF1", "system", "tf", "2006", [ship("e1", ssm=0, gun=None), ship("e2", ssm_left=0, gun=None, ssm=2)],
        intel="precise")
    targets, _ = movement.base_targets(st)
    before = min(movement.water_distances(M, targets).get("2006", 99), 99)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.6"
    assert movement.water_distances(M, targets)[last_hex(st2, "TF1")] < before


def test_stf_7_7_a_defending_cv_task_force_makes_for_the_hex_half_way_to_the_invasion_force():
    st = state(invader="Player", target=43)
    centre = maps.place_hex(M, 43)
    assert centre == "1804"
    player_tf(st, "P1", "2204", extra=[ship("fr1", "FR", invasion=True)])  # 4 hexes east of the centre
    cv_tf(st, "TF1", "1512")
    assert d("1512", "2204") > 7
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.7" and "2004" in moves(out)[0]["why"]
    assert d(last_hex(st2, "TF1"), "2004") == d("1512", "2004") - 3


def test_stf_7_7_defending_surface_groups_and_subrons_go_for_the_invasion_freighters():
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1506")  # nearer, no freighter
    player_tf(st, "P2", "2306", n=1, extra=[ship("fr1", "FR", invasion=True)])
    add(st, "SR1", "system", "subron", "1906")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.7" and "P2" in moves(out)[0]["why"]


# ---- STF 7.8: a CV task force's distance bands ----------------------------------------------------------
def cv_at(distance: int, bb=False, invader=None, target=None):
    st = state(invader=invader, target=target)
    player_tf(st, "P1", "1506", cls="BB" if bb else "DD")
    cv_tf(st, "TF1", f"{15 + distance:02d}06")
    if invader == "system":  # the invading CV carries the invasion freighters (STF 1.11, 7.4)
        st["units"]["TF1-fr"] = {**ship("TF1-fr", "FR", ssm=0, gun=None, invasion=True), "group": "TF1"}
        st["groups"]["TF1"]["units"].append("TF1-fr")
    return st


@pytest.mark.parametrize("distance, after", [(7, 5), (6, 5), (5, 5), (4, 5), (3, 1), (2, 0)])
def test_stf_7_8_a_cv_task_force_keeps_to_its_distance_band_in_battle(distance, after):
    st = cv_at(distance)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(last_hex(st2, "TF1"), "1506") == after
    said = events_of(out, "GroupMoved") + events_of(out, "GroupChanged")
    assert said[0]["rule"] == "STF 7.8" and f"{distance} hexes from P1" in said[0]["why"]


def test_stf_7_8_at_three_hexes_from_a_bb_task_force_the_cv_moves_one_hex_away():
    st = cv_at(3, bb=True)
    _, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(last_hex(st2, "TF1"), "1506") == 4


def test_stf_7_8_at_two_hexes_from_a_bb_task_force_the_cv_runs_for_its_own_edge():
    st = cv_at(2, bb=True)
    for uid in st["groups"]["TF1"]["units"]:  # no SSM to conduct first: it runs at once
        st["units"][uid]["ssm"] = 0
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(last_hex(st2, "TF1"), "1506") == 5  # three hexes away, at full speed
    assert maps.edge_distance(M, last_hex(st2, "TF1"), "east") < maps.edge_distance(M, "1706", "east")
    assert "SSM attacks first" in moves(out)[0]["why"]


def test_stf_7_8_an_invading_cv_at_six_hexes_goes_for_the_objective_but_no_closer_than_five():
    st = cv_at(6, invader="system", target=45)
    objective = maps.sea_hexes_of(M, 45)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    end = last_hex(st2, "TF1")
    assert moves(out)[0]["rule"] == "STF 7.8"
    assert movement.nearest(M, end, objective) < movement.nearest(M, "2106", objective)
    assert all(d(h, "1506") >= 5 for h in moves(out)[0]["path"])


# ---- STF 7.9, 7.10, 7.11 -------------------------------------------------------------------------------
def test_stf_7_9_a_cv_task_force_keeps_three_hexes_from_a_player_subron():
    st = state()
    player_tf(st, "P1", "1206")
    cv_tf(st, "TF1", "2206")
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    path = moves(free)[0]["path"]
    add(st, "P2", "Player", "subron", path[-1], [ship("ssn", "SSN", 2)])
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert all(d(h, path[-1]) >= 3 for h in moves(out)[0]["path"]) and "STF 7.9" in moves(out)[0]["why"]


def test_stf_7_10_a_task_force_never_enters_or_comes_next_to_a_player_bb_task_force():
    st = state()
    player_tf(st, "P1", "1506", cls="BB")
    add(st, "TF1", "system", "tf", "1806")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(last_hex(st2, "TF1"), "1506") == 2 and "STF 7.10" in moves(out)[0]["why"]
    st["groups"]["P1"]["units"] = ["P1-0"]
    st["units"]["P1-0"]["class"] = "DD"
    _, st3 = run_step(st, "system_movement", FixedDice(default=1))
    assert d(last_hex(st3, "TF1"), "1506") == 1


def test_stf_7_11_last_ditch_defence_goes_for_the_invasion_force_in_the_objective_megahex():
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1804", cls="BB", extra=[ship("fr1", "FR", invasion=True)])  # in the objective
    player_tf(st, "P2", "2010", n=1, extra=[ship("fr2", "FR", invasion=True)])  # nearer TF1, not in it
    add(st, "TF1", "system", "tf", "1806")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.11" and "P1" in moves(out)[0]["why"]
    assert last_hex(st2, "TF1") == "1804"  # into the BB task force's hex: 7.10 is ignored



def test_stf_7_11_last_ditch_defence_turns_a_retiring_group_that_can_attack_back_at_the_invasion():
    """7.11: "will ignore all other movement rules", 12.5's retirement among them."""
    st = state(invader="Player", target=43)
    player_tf(st, "P1", "1804", extra=[ship("fr1", "FR", invasion=True)])  # in the objective megahex
    add(st, "TF1", "system", "tf", "1806", retiring=True)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.11" and "P1" in moves(out)[0]["why"]
    assert d(last_hex(st2, "TF1"), "1804") < d("1806", "1804")
    assert st2["groups"]["TF1"]["retiring"] is True  # it retires again once nothing lands there
    st["groups"]["P1"]["hex"] = "2410"  # out of the objective megahex: 12.5 holds
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 12.5"

# ---- STF 12.5, 12.9: retiring ---------------------------------------------------------------------------
def test_stf_12_5_a_retiring_group_makes_for_its_nearest_base_and_leaves_the_map_there():
    st = battle(p1="1506")
    targets, _ = movement.base_targets(st)
    start = next(n for t in targets for n in maps.sea_neighbours(M, t) if n not in targets)  # next to a base
    add(st, "TF1", "system", "tf", start, retiring=True)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 12.5"
    removed = events_of(out, "GroupRemoved")
    assert removed and removed[0]["status"] == "retired" and removed[0]["rule"] == "STF 12.9"
    assert st2["groups"]["TF1"]["hex"] is None


def test_stf_12_7_a_retiring_carrier_moved_onto_its_base_leaves_its_escorts_in_play_as_a_sag():
    st = battle(p1="1506")
    targets, _ = movement.base_targets(st)
    start = next(n for t in targets for n in maps.sea_neighbours(M, t) if n not in targets)  # next to a base
    cv_tf(st, "TF1", start)
    st["groups"]["TF1"].update(retiring=True, carrier_retiring="TF1-cv")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 12.5" and events_of(out, "GroupRemoved") == []
    assert st2["units"]["TF1-cv"]["retired"] is True
    g = st2["groups"]["TF1"]
    assert g["hex"] in targets and g["status"] == "on map" and g["retiring"] is False
    assert g["units"] == ["TF1-1", "TF1-2", "TF1-3"]


def test_stf_12_5_the_bases_are_read_from_the_campaigns_file_as_places_and_megahexes():
    raw = {"maps": {"giuk": {"retirement_bases": {"US": [{"megahex": 1}, {"place": "Sumburgh"}],
                                                  "Soviet": [{"megahex": 63}, {"megahex": 64}]}}}}
    # a megahex base is each of its sea hexes, centre first (STF 12.9: reached on entering the megahex)
    assert movement.bases_in(raw, "giuk", "Soviet") == maps.sea_hexes_of(M, 63) + maps.sea_hexes_of(M, 64)
    assert movement.bases_in(raw, "giuk", "NATO") == maps.sea_hexes_of(M, 1) + [maps.place_hex(M, "Sumburgh")]
    assert movement.bases_in({"giuk": {"bases": {"Soviet": ["Megahex 63", "Atlantis"]}}}, "giuk",
                             "Soviet") == maps.sea_hexes_of(M, 63)
    assert maps.sea_hexes_of(M, 63)[0] == "2313"


# ---- STF 8.14, 8.15: proximity reveals -------------------------------------------------------------------
def test_stf_8_14_a_contact_moving_within_two_hexes_of_a_player_task_force_becomes_precise_and_costs_an_action():
    st = battle(p1="1506")
    add(st, "TF1", "system", "tf", "1806")      # moves 2 toward P1: 1706 is within two hexes
    add(st, "SR1", "system", "subron", "1906")  # moves 2 toward P1: 1706 too
    add(st, "TF2", "system", "tf", "2306")      # moves 2 and ends 6 hexes off: not revealed
    add(st, "TF3", "system", "tf", "2207", intel="precise")
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))  # dice for the composition, if drawn
    revealed = [e["group"] for e in events_of(out, "GroupChanged") if e["changes"].get("intel") == "precise"]
    assert revealed == ["TF1", "SR1"]
    assert all(e["rule"] == "STF 8.14" for e in events_of(out, "GroupChanged") if e["changes"].get("intel"))
    assert [g for g in ("TF1", "SR1", "TF2") if st2["groups"][g]["intel"] == "precise"] == ["TF1", "SR1"]
    assert st2["campaign"]["actions_lost"] == {"turn": st["turn"] + 1, "count": 2, "rules": {"STF 8.14": 2},
                                               "groups": {"P1": 2}}  # "the player task force loses one action"
    assert st2["groups"]["SR1"]["mode"] == "deep"  # Deep until the next Group Mode Phase


def test_stf_8_15_a_contact_ending_its_move_in_a_player_subrons_hex_becomes_precise():
    st = battle(p1="1506")
    add(st, "SR1", "system", "subron", "2210")
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    path = moves(free)[0]["path"]
    add(st, "P2", "Player", "subron", path[-1], [ship("ssn", "SSN", 2)])  # the hex it ends in
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert [e["rule"] for e in events_of(out, "GroupChanged") if e["changes"].get("intel")] == ["STF 8.15"]
    assert st2["groups"]["SR1"]["intel"] == "precise" and st2["campaign"]["actions_lost"]["count"] == 1


def test_stf_8_15_a_contact_passing_through_a_player_subrons_hex_is_revealed_there():
    st = battle(p1="1506")
    add(st, "SR1", "system", "subron", "2206")
    free, _ = run_step(st, "system_movement", FixedDice(default=1))
    path = moves(free)[0]["path"]
    add(st, "P2", "Player", "subron", path[0], [ship("ssn", "SSN", 2)])  # the first hex it enters
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["path"] == path and st2["groups"]["SR1"]["hex"] == path[-1] != path[0]
    revealed = [e for e in events_of(out, "GroupChanged") if e["changes"].get("intel") == "precise"]
    assert revealed[0]["rule"] == "STF 8.15" and f"({path[0]})" in revealed[0]["why"]
    assert st2["campaign"]["actions_lost"] == {"turn": st["turn"] + 1, "count": 1, "rules": {"STF 8.15": 1}}
    out, st3 = run_step(st2, "system_movement", FixedDice(default=1))  # already Precise: not again
    assert not events_of(out, "CampaignFixed") and st3["campaign"]["actions_lost"]["count"] == 1


def test_movement_data_file_marks_its_guess():
    raw = json.loads((Path(movement.__file__).parent / "data" / "movement.json").read_text())
    assert raw["provisional"] == ["unknown_tf_speed"] and sorted(movement.BANDS) == [2, 3, 4, 5, 6, 7]
    assert copy.deepcopy(raw["cv_bands"]["bands"][2]["battle"]) == {"action": "stay"}


def test_every_deploy_and_move_the_server_offers_is_accepted():
    from tests.unit.stf.helpers import R
    st = deployment_state()
    st["units"]["SOSUS1"] = {"id": "SOSUS1", "class": "SOSUS", "nation": "US", "counter": None, "megahex": None}
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"].startswith("deploy")]
    assert {o.get("group") or o.get("sosus") for o in offered} == {"P1", "P2", "SOSUS1"}
    assert {"kind": "deploy_done"} not in offered  # not while a group is unplaced
    for order in offered:
        play(st, order, FixedDice(default=1))
    st = battle()
    add(st, "P2", "Player", "subron", "2210", [ship("ssn", "SSN", 2)])
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "move"]
    assert {o["group"] for o in offered} == {"P1", "P2"}
    for order in offered:
        play(st, order)
    st["campaign"]["actions_lost"] = {"turn": st["turn"], "count": 2}
    assert not [o for o in R.legal_orders(st, "Player") if o["kind"] == "move"]


# ---- review (stf-review-a) -----------------------------------------------------------------------
def _target_and_outside(megahex: int) -> tuple[str, str]:
    """A sea hex of ``megahex`` and a sea neighbour of it outside the megahex."""
    for h in maps.sea_hexes_of(M, megahex):
        for n in maps.sea_neighbours(M, h):
            if maps.megahex_number(M, n) != megahex:
                return h, n
    raise AssertionError("no way into the megahex")


def test_stf_1_11_the_player_scores_3_vp_for_each_invasion_freighter_that_reaches_the_target():
    inside, outside = _target_and_outside(12)
    st = state(invader="Player", target=12)
    freighters = [ship(f"fr{i}", "FR", invasion=True, name=f"Sealift {i}") for i in range(3)]
    resupply = ship("frr", "FR", role="fast resupply", invasion=False)
    add(st, "P1", "Player", "tf", outside, [ship("dd1"), *freighters, resupply])
    out, st2 = play(st, {"kind": "move", "group": "P1", "path": [inside]})
    scored = events_of(out, "VPScored")
    assert [(e["side"], e["delta"], e["rule"]) for e in scored] == [("Player", 3, "STF 1.11")] * 3
    assert st2["vp"]["Player"] == 9 and all(st2["units"][f"fr{i}"]["arrived"] for i in range(3))
    # once each: moving out and back in scores nothing more
    st2["turn"] += 1
    _, st3 = play(st2, {"kind": "move", "group": "P1", "path": [outside]})
    st3["turn"] += 1
    out4, _ = play(st3, {"kind": "move", "group": "P1", "path": [inside]})
    assert not events_of(out4, "VPScored")


def test_stf_1_11_the_gamesystem_invading_scores_3_vp_for_a_freighter_that_reaches_the_target():
    inside, outside = _target_and_outside(30)
    st = state(player="US", system="Soviet", invader="system", target=30, phase="Movement")
    add(st, "TF1", "system", "tf", outside, [ship("kr", "CG"), ship("sfr", "FR", invasion=True)], intel="precise")
    add(st, "P1", "Player", "tf", "0101", [ship("dd1")])
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert [(e["side"], e["delta"]) for e in events_of(out, "VPScored")] == [("system", 3)]
    assert st2["units"]["sfr"]["arrived"] is True


def test_stf_1_11_a_battle_or_the_defenders_freighters_score_nothing():
    inside, outside = _target_and_outside(12)
    st = state(invader="Player", target=12)
    add(st, "TF1", "system", "tf", outside, [ship("sfr", "FR", invasion=True)], intel="precise")
    st = copy.deepcopy(st)
    st["campaign"]["invader"] = "system"  # the other side's target: P1 below is not the invader
    add(st, "P1", "Player", "tf", outside, [ship("fr0", "FR", invasion=True)])
    out, _ = play(st, {"kind": "move", "group": "P1", "path": [inside]})
    assert not events_of(out, "VPScored")


def test_stf_1_12_a_carrier_short_of_its_escorts_withdraws_toward_its_nearest_base():
    st = battle(p1="1506")
    cv_tf(st, "TF1", "2006")
    st["units"]["TF1-1"]["sunk"] = True  # two ASW escorts left for one carrier
    targets, _ = movement.base_targets(st)
    before = movement.water_distances(M, targets)["2006"]
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 1.12" and "need 3 ASW ships" in moves(out)[0]["why"]
    assert movement.water_distances(M, targets)[last_hex(st2, "TF1")] < before
    # with its three escorts it fights on (STF 7.8 at 5 hexes: it stays)
    st["units"]["TF1-1"]["sunk"] = False
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert not [m for m in moves(out) if m["rule"] == "STF 1.12"]


def test_stf_1_12_a_carrier_task_force_not_yet_precise_is_not_judged_on_its_known_units():
    st = battle(p1="1506")
    cv_tf(st, "TF1", "2006")
    st["groups"]["TF1"].update(intel="accurate", units=["TF1-cv"])  # e.g. a carrier set aside by STF 10.8
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert not [m for m in moves(out) if m["rule"] == "STF 1.12"]


# ---- review (stf-review-b) -----------------------------------------------------------------------
def test_stf_7_4_an_invading_task_force_makes_for_the_target_megahex_with_no_player_task_force_on_the_map():
    """STF 7.4 does not depend on the Player's task forces: with only a Player subron on the map
    (or every Player task force sunk), the invading task force still sails for the target."""
    st = state(invader="system", target=43)
    add(st, "S1", "Player", "subron", "1512", [ship("p-ssn", "SSN")])
    add(st, "TF1", "system", "tf", "2304")
    objective = maps.sea_hexes_of(M, 43)
    before = movement.nearest(M, "2304", objective)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out) and moves(out)[0]["rule"] == "STF 7.4"
    assert movement.nearest(M, last_hex(st2, "TF1"), objective) == before - 2


def test_stf_7_8_at_two_hexes_from_a_bb_task_force_the_cv_conducts_its_ssm_attacks_first_then_runs():
    """"If a BB is in a player task force conduct any SSM attacks, then ... move as many hexes away":
    a CV with SSMs in reach holds in the Movement phase, fires its salvo in the Combat phase (STF
    11.2), then runs for its own edge; it fights no gunnery."""
    st = cv_at(2, bb=True)  # TF1 is Precise: its long-range SSMs reach 2 hexes (STF 11.1)
    out, st2 = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out) == [] and last_hex(st2, "TF1") == "1706"
    held = [e for e in events_of(out, "GroupChanged") if e["rule"] == "STF 7.8"]
    assert held and "SSM attacks first" in held[0]["why"]
    st2 = {**st2, "phase": "Combat"}
    out, st3 = run_step(st2, "surface_combat", FixedDice(default=1))
    waves = [e for e in events_of(out, "SystemActs") if e["what"] == "SSM wave"]
    assert waves and waves[0]["detail"]["group"] == "TF1" and last_hex(st3, "TF1") == "1706"  # fired, not moved
    more, st3 = answer_waves(st3, FixedDice(default=1))
    out += more
    assert not st3.get("pending")
    assert not [e for e in events_of(out, "SystemActs") if e["what"] == "gunnery"]
    run = [e for e in moves(out) if e["group"] == "TF1"]
    assert run and run[0]["rule"] == "STF 7.8" and d(last_hex(st3, "TF1"), "1506") == 5


# ---- STF 1.12 for the Player: a carrier short of its escorts withdraws ------------------------------------
def short_carrier(st: dict, hex_: str = "1506", escorts: int = 2) -> dict:
    """P1: a US carrier with ``escorts`` ASW frigates (three are needed) and its fast resupply ship."""
    units = [ship("p-cv", "CV", 3, nation="US"), ship("p-fr", "FR", 3, nation="US", role="fast resupply")]
    units += [ship(f"p-ff{i}", "FF", 3, nation="US", asw=2) for i in range(escorts)]
    return add(st, "P1", "Player", "tf", hex_, units)


def test_stf_1_12_the_players_carrier_short_of_escorts_may_only_withdraw_at_full_speed_toward_a_friendly_base():
    st = short_carrier(state())
    dist = movement.water_distances(M, movement.player_bases(st))
    assert dist["1506"] >= 3
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "move"]
    assert offered and all(len(o["path"]) == 3 for o in offered)
    assert all([dist[h] for h in o["path"]] == [dist["1506"] - k for k in (1, 2, 3)] for o in offered)
    away = next(n for n in maps.sea_neighbours(M, "1506") if dist[n] > dist["1506"])
    with pytest.raises(RuleViolation, match=r"STF 1.12"):
        play(st, {"kind": "move", "group": "P1", "path": [away]})
    with pytest.raises(RuleViolation, match=r"STF 1.12"):  # nearer, but not as quickly as possible
        play(st, {"kind": "move", "group": "P1", "path": offered[0]["path"][:1]})
    out, st2 = play(st, offered[0])
    assert moves(out)[0]["rule"] == "STF 1.12" and last_hex(st2, "P1") == offered[0]["path"][-1]


def test_stf_1_12_the_movement_phase_does_not_end_before_the_short_carrier_has_withdrawn():
    st = short_carrier(state())
    assert not [o for o in R.legal_orders(st, "Player") if o["kind"] == "end_phase"]
    with pytest.raises(RuleViolation, match=r"STF 1.12: P1 must withdraw"):
        play(st, {"kind": "end_phase"})
    move = next(o for o in R.legal_orders(st, "Player") if o["kind"] == "move")
    _, st2 = play(st, move)
    assert [o for o in R.legal_orders(st2, "Player") if o["kind"] == "end_phase"]


def test_stf_1_12_a_carrier_with_its_three_escorts_moves_freely():
    st = short_carrier(state(), escorts=3)
    offered = [o for o in R.legal_orders(st, "Player") if o["kind"] == "move"]
    # every sea neighbour, and beyond up to its speed (not only the withdrawal's hexes)
    assert {tuple(o["path"]) for o in offered if len(o["path"]) == 1} == {(n,) for n in maps.sea_neighbours(M, "1506")}
    assert max(len(o["path"]) for o in offered) == movement.group_speed(st, st["groups"]["P1"])
    assert [o for o in R.legal_orders(st, "Player") if o["kind"] == "end_phase"]


def test_stf_7_5_hexes_equally_near_by_water_are_a_choice_settled_by_a_die_not_the_straighter_line():
    """7.5: "If there is a choice of hexes, resolve movement via random die roll." From 0808 toward
    P1 at 0406, 0708 and 0709 are both 4 hexes from it by water, though 0708 is nearer in a straight
    line (3 against 4): the die chooses between them."""
    assert movement.water_distances(M, ["0406"])["0708"] == movement.water_distances(M, ["0406"])["0709"]
    assert maps.distance(M, "0708", "0406") < maps.distance(M, "0709", "0406")
    st = battle(p1="0406")
    add(st, "TF1", "system", "tf", "0808")
    out, _ = run_step(st, "system_movement", FixedDice(2, default=1))
    tie = rolls_of(out)[0]
    options = re.search(r"hexes (.*) \(", tie.purpose).group(1).split(", ")
    assert tie.rule == "STF 7.5" and tie.notation == "d2" and sorted(options) == ["0708", "0709"]
    assert moves(out)[0]["path"][0] == options[1]
