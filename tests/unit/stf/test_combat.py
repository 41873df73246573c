"""STF 11 (combat doctrine) and the Player's reports of the base game's results, on built states
with chosen dice. Each test is named after the rule it checks."""

from __future__ import annotations

import copy
import json

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.stf import combat
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.stf.rules import DATA
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import (FixedDice, NoDice, add_group, combat_state, events_of, names, pending, play,
                                    rolls_of, run_step, ship)

HEX = "0101"


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


def answer(st: dict, choice: dict, dice=None):
    d = pending(st)
    assert d is not None and d["kind"] == "combat"
    assert choice in d["options"]["choices"]
    return play(st, {"kind": "decide", "decision": d["id"], "choice": choice}, dice or NoDice())


def results(st: dict, *sunk: str, ended: bool = False, dice=None):
    """Answer the pending combat decision: each unit of ``sunk``, one at a time, then nothing
    more (or the end of the combat): the outcomes of all the answers and the state after."""
    dice = dice or NoDice()
    outs: list = []
    for uid in sunk:
        out, st = answer(st, {"sunk": uid}, dice)
        outs += out
    d = pending(st)
    if d is not None and d["kind"] == "combat" and {"sunk": None} in d["options"]["choices"] and (
            not sunk or "which other unit" in d["prompt"]):
        out, st = answer(st, {"ended": True} if ended else {"sunk": None}, dice)
        outs += out
    return outs, st


def dd_ff_ff() -> dict:
    """The text's example of STF 11.2: a Player task force of 1 DD and 2 FF."""
    return {"dd": ship("DD", 4, nation="US"), "ff1": ship("FF", 3, nation="US"), "ff2": ship("FF", 3, nation="US")}


def missile_tf() -> dict:
    """A GameSystem task force with 24 SSMs ready (two CG, 12 a load) and no guns."""
    return {"cg1": ship("CG", 8, ssm=12, ssm_loads=2), "cg2": ship("CG", 5, ssm=12, ssm_loads=2)}


# ---- data/combat.json against the text ------------------------------------------------------------
def test_stf_11_data_combat_json_holds_the_texts_numbers():
    doc = DATA.read("combat.json")
    assert doc["long_range_ssm"]["accurate_defence"] == {"aa": 3, "jamming": 3, "close_defence": 4}  # 11.1
    assert doc["long_range_ssm"]["target_intel"] == ["accurate", "precise"]  # 11.1
    ssm = doc["ssm"]  # 11.2
    assert (ssm["cv_wave"], ssm["wave"], ssm["per_ship"], ssm["complement_share"]) == (10, 6, 4, [1, 2])
    assert ssm["target_order"] == ["FR", "BB", "CG", "DD", "FF", "PC"]
    assert ssm["entry_sector_die"] == 6
    assert doc["placement"]["rings"][-1] == {"ring": 4, "locations": 18, "step": 2}  # 11.7: every second on 4
    assert doc["placement"]["rank_above"] == {"FR": "CG"}  # 11.8
    r = doc["retirement"]
    assert (r["limit_percent"], r["squadron_points"], r["heavy_losses_percent"]) == (50, 2, 66)  # 12.2, 12.3, 12.6
    assert (r["retire_on"], r["heavy_retire_on"]) == ([1], [1, 2, 3, 4, 5])  # 12.5, 12.6
    # what the text gives is never provisional
    # 11.5's one sub to an area and 11.6's floatation 1 are the text's; how many entry areas the display
    # has is not (11.5: "entry areas based on random die roll"), so only that count is provisional
    assert doc["subs"].get("provisional") == ["entry_areas"]
    assert doc["retirement"]["provisional"] == ["attack_kinds"]


# ---- the report order -----------------------------------------------------------------------------
def battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"nimitz": ship("CV", 20, nation="US", air={"L": 6, "M": 6, "H": 3, "EW": 1,
                                                                                    "AEW": 1}),
                                         "spruance": ship("DD", 4, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF1", "system", HEX, {"kiev": ship("CV", 15, air={"L": 0, "M": 3, "H": 0, "EW": 0, "AEW": 0}),
                                          "krivak": ship("FF", 3), "sovremenny": ship("DD", 4)})
    return st


def test_stf_12_4_a_reported_sinking_scores_the_units_vp_on_the_other_sides_track():
    out, st = play(battle(), {"kind": "report", "sunk": ["krivak", "spruance"]})
    assert names(out)[0] == "ResultDeclared"
    declared = events_of(out, "ResultDeclared")[0]
    assert declared["seat"] == "Player" and declared["value"] == {"sunk": ["krivak", "spruance"]}
    assert "Task Force" in declared["stands_for"]
    assert st["units"]["krivak"]["sunk"] and st["units"]["spruance"]["sunk"]
    assert {(e["side"], e["delta"]) for e in events_of(out, "VPScored")} == {("Player", 3), ("system", 4)}
    assert st["vp"]["Player"] == 3 and st["vp"]["system"] == 4


def test_stf_11_1_a_report_naming_a_unit_not_in_play_is_refused_naming_the_rule():
    with pytest.raises(RuleViolation) as e:
        play(battle(), {"kind": "report", "sunk": ["nobody"]})
    assert e.value.rule == "STF 11.1"
    _, st = play(battle(), {"kind": "report", "sunk": ["krivak"]})
    with pytest.raises(RuleViolation, match="not in play") as e:
        play(st, {"kind": "report", "sunk": ["krivak"]})
    assert e.value.rule == "STF 11.1"
    with pytest.raises(InvalidOrder):
        play(battle(), {"kind": "report", "sunk": "krivak"})
    with pytest.raises(RuleViolation, match="Strike or Combat"):
        play(combat_state("Movement"), {"kind": "report", "sunk": []})


def test_stf_11_1_a_report_records_squadrons_hits_flight_decks_loads_and_airbase_hits():
    st = battle()
    st["airbases"] = {"Sumburgh": {"owner": "Player", "hits": 1}}
    out, st = play(st, {"kind": "report", "squadrons_destroyed": ["kiev:M"], "hits": {"sovremenny": 1},
                        "flight_deck_inoperable": ["nimitz"], "spent": {"spruance": {"ssm": 8}},
                        "airbase_hits": {"Sumburgh": 2}})
    assert st["units"]["kiev"]["air_lost"] == ["M"]
    assert st["units"]["sovremenny"]["hits"] == 1
    assert st["units"]["nimitz"]["flight_deck_inoperable"] is True
    assert st["units"]["spruance"]["ssm_left"] == 8
    assert st["airbases"]["Sumburgh"]["hits"] == 3  # STF 9.4: cumulative
    assert events_of(out, "VPScored") == []
    with pytest.raises(RuleViolation, match="already destroyed"):
        play(st, {"kind": "report", "squadrons_destroyed": ["kiev:M"]})
    with pytest.raises(RuleViolation, match="no L squadron"):
        play(st, {"kind": "report", "squadrons_destroyed": ["kiev:L"]})
    with pytest.raises(RuleViolation, match="8 SSM"):
        play(st, {"kind": "report", "spent": {"spruance": {"ssm": 9}}})
    with pytest.raises(RuleViolation, match="no airbase"):
        play(st, {"kind": "report", "airbase_hits": {"Atlantis": 1}})


def test_stf_11_1_a_group_whose_every_unit_is_sunk_leaves_the_map():
    out, st = play(battle(), {"kind": "report", "sunk": ["kiev", "krivak", "sovremenny"]})
    assert events_of(out, "GroupRemoved") == [{"group": "TF1", "status": "sunk", "rule": "STF 11.1",
                                              "why": "every unit of TF1 is sunk or gone"}]
    assert st["groups"]["TF1"]["hex"] is None and st["vp"]["Player"] == 22


# ---- STF 11.1: the Player's long-range SSMs -----------------------------------------------------
def long_range(intel: str) -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", "0505", {"ticonderoga": ship("CG", 5, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF2", "system", HEX, {"a": ship("DD", 4), "b": ship("FF", 3), "c": ship("FF", 3)}, intel=intel)
    return st


@pytest.mark.parametrize("intel", ["unknown", "approximate", "good"])
def test_stf_11_1_long_range_ssms_are_refused_at_a_target_less_than_accurate(intel):
    with pytest.raises(RuleViolation, match="Accurate or Precise") as e:
        play(long_range(intel), {"kind": "ssm", "target": "TF2", "hits": 0})
    assert e.value.rule == "STF 11.1"


def test_stf_11_1_an_accurate_target_defends_once_and_a_hit_makes_it_precise_with_hits_at_random():
    out, st = play(long_range("accurate"), {"kind": "ssm", "target": "TF2", "hits": 2, "spent": {"ticonderoga": 8}},
                   FixedDice(2, 3))
    defence = acts(out, "one-off SSM defence")[0]
    assert {k: defence["detail"][k] for k in ("aa", "jamming", "close_defence")} == {"aa": 3, "jamming": 3,
                                                                                     "close_defence": 4}
    assert st["groups"]["TF2"]["intel"] == "precise"
    assert [r.dice[0]["sides"] for r in rolls_of(out)] == [3, 3]  # a die over the group's three units
    assert st["units"]["b"]["hits"] == 1 and st["units"]["c"]["hits"] == 1 and "hits" not in st["units"]["a"]
    assert acts(out, "hits placed")[0]["detail"]["hits"] == {"b": 1, "c": 1}
    assert st["units"]["ticonderoga"]["ssm_left"] == 8


def test_stf_11_1_an_accurate_target_without_hits_stays_accurate():
    out, st = play(long_range("accurate"), {"kind": "ssm", "target": "TF2", "hits": 0})
    assert st["groups"]["TF2"]["intel"] == "accurate" and rolls_of(out) == []


def test_stf_11_1_a_precise_targets_hits_are_reported_on_the_units_hit():
    with pytest.raises(InvalidOrder, match="report"):
        play(long_range("precise"), {"kind": "ssm", "target": "TF2", "hits": 1})
    out, _ = play(long_range("precise"), {"kind": "ssm", "target": "TF2", "hits": 0})
    assert acts(out, "one-off SSM defence") == []


# ---- STF 11.2: the GameSystem's SSMs ---------------------------------------------------------------
def ssm_battle(player: dict, system: dict) -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, player)
    add_group(st, "TF1", "system", HEX, system)
    return st


def test_stf_11_2_the_texts_example_twelve_missiles_in_two_waves_of_six_both_at_the_dd():
    out, st = run_step(ssm_battle(dd_ff_ff(), missile_tf()), "surface_combat", FixedDice(3))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["wave"], wave["missiles"], wave["target"], wave["entry_sector"]) == (1, 6, "dd", 3)
    assert wave["left_in_salvo"] == 6  # 4 missiles x 3 ships = 12, in two waves of 6
    out, st = results(st, dice=FixedDice(5))  # the DD survives the first wave
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["wave"], wave["missiles"], wave["target"], wave["entry_sector"]) == (2, 6, "dd", 5)
    assert wave["left_in_salvo"] == 0
    assert combat.ssm_left(st["units"]["cg1"]) + combat.ssm_left(st["units"]["cg2"]) == 48 - 12


def test_stf_11_2_a_wave_can_sink_only_the_ship_it_was_aimed_at():
    _, st = run_step(ssm_battle(dd_ff_ff(), missile_tf()), "surface_combat", FixedDice(3))
    assert pending(st)["options"]["choices"] == [{"sunk": None}, {"sunk": "dd"}, {"ended": True}]
    with pytest.raises(RuleViolation) as e:
        play(st, {"kind": "decide", "decision": pending(st)["id"], "choice": {"sunk": "ff1"}})
    assert e.value.rule == "STF 11.2"


def test_stf_11_2_the_next_wave_targets_the_next_class_once_all_of_a_class_are_sunk():
    _, st = run_step(ssm_battle(dd_ff_ff(), missile_tf()), "surface_combat", FixedDice(3))
    out, st = results(st, "dd", dice=FixedDice(2, 4))  # a d2 between the equal FFs, then the sector
    assert rolls_of(out)[0].dice[0]["sides"] == 2
    assert acts(out, "SSM wave")[0]["detail"]["target"] == "ff2"


def test_stf_11_2_every_ssm_in_waves_of_ten_at_a_cv_then_four_per_ship_once_it_is_sunk():
    player = {"cv": ship("CV", 20, nation="US"), "f1": ship("FF", 3, nation="US"), "f2": ship("FF", 2, nation="US"),
              "fr": ship("FR", 5, nation="US", role="fast resupply")}
    system = {"kirov": ship("CG", 8, ssm=20, ssm_loads=2), "slava": ship("CG", 5, ssm=16, ssm_loads=2)}
    out, st = run_step(ssm_battle(player, system), "surface_combat", FixedDice(1))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (10, "cv", 26)  # every SSM: 36
    out, st = results(st, dice=FixedDice(2))
    assert acts(out, "SSM wave")[0]["detail"]["missiles"] == 10
    out, st = results(st, "cv", dice=FixedDice(6))
    # 16 ready: 4 per ship (3 ships: 12), up to half the complement still carried (52: 26), in
    # waves of 6, freighters first
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (6, "fr", 6)
    out, st = results(st, "fr", dice=FixedDice(4))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (6, "f1", 0)
    out, st = results(st)
    assert pending(st) is None


def test_stf_11_2_half_the_complement_caps_the_missiles_per_ship():
    system = {"nanuchka": ship("PC", 2, ssm=6, ssm_loads=1)}
    out, _ = run_step(ssm_battle(dd_ff_ff(), system), "surface_combat", FixedDice(2))
    assert acts(out, "SSM wave")[0]["detail"]["missiles"] == 3  # half of 6, not 12


def test_stf_11_2_the_class_order_is_freighters_bb_cg_dd_ff_pc():
    assert combat.ssm_class_order() == ["FR", "BB", "CG", "CL", "DD", "FF", "PC"]


# ---- STF 11.3, 11.4: gunnery ---------------------------------------------------------------------
def gun_battle(player: dict, system: dict, **campaign) -> dict:
    st = combat_state(**campaign)
    add_group(st, "P1", "Player", HEX, player)
    add_group(st, "TF1", "system", HEX, system)
    return st


def test_stf_11_3_no_gunnery_with_fewer_ships_with_the_heaviest_guns():
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "dd": ship("DD", 4, nation="US", gun="C")}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("CG", 4, gun="C"), "s3": ship("DD", 3, gun="C")}
    out, st = run_step(gun_battle(player, system), "surface_combat", NoDice())
    g = acts(out, "gunnery")[0]
    assert g["detail"]["fire"] is False and g["detail"]["level"] == "A" and (g["detail"]["ships"], g["detail"]["player_ships"]) == (0, 1)
    assert g["rule"] == "STF 11.3" and pending(st) is None


def test_stf_11_3_fires_at_the_highest_vp_invasion_freighters_before_cg_and_same_values_by_die():
    player = {"cg": ship("CG", 5, nation="US", gun="C"), "fr": ship("FR", 5, nation="US", role="invasion"),
              "d1": ship("DD", 4, nation="US", gun="C"), "d2": ship("DD", 4, nation="US")}
    system = {"s1": ship("CG", 6, gun="C"), "s2": ship("DD", 4, gun="C")}
    out, st = run_step(gun_battle(player, system), "surface_combat", FixedDice(2))
    g = acts(out, "gunnery")[0]["detail"]
    assert g["fire"] is True and (g["level"], g["ships"], g["player_ships"]) == ("C", 2, 2)
    assert g["targets"] == ["fr", "cg", "d2", "d1"]  # the die (2 of 2) put d2 before d1
    assert rolls_of(out)[0].dice[0]["sides"] == 2


def test_stf_11_3_gunnery_goes_on_while_the_condition_holds_and_then_ceases():
    player = {"p1": ship("DD", 4, nation="US", gun="C"), "p2": ship("DD", 3, nation="US", gun="C")}
    system = {"s1": ship("CG", 6, gun="C"), "s2": ship("DD", 4, gun="C")}
    out, st = run_step(gun_battle(player, system), "surface_combat", NoDice())
    assert acts(out, "gunnery")[0]["detail"]["round"] == 1
    out, st = results(st, "p2")  # 2 against 1: round 2
    assert acts(out, "gunnery")[0]["detail"]["round"] == 2 and acts(out, "gunnery")[0]["detail"]["fire"]
    out, st = results(st, "s1")  # 1 against 1: still the same, round 3
    assert acts(out, "gunnery")[0]["detail"]["round"] == 3
    assert st["vp"]["system"] == 3 and st["vp"]["Player"] == 6
    out, st = results(st, ended=True)  # the base game ended the combat
    assert acts(out, "gunnery") == [] and pending(st) is None


def test_stf_11_3_gunnery_ceases_when_it_has_fewer_ships_with_the_guns():
    player = {"p1": ship("DD", 4, nation="US", gun="C"), "p2": ship("DD", 3, nation="US", gun="C")}
    system = {"s1": ship("CG", 6, gun="C"), "s2": ship("DD", 4, gun="C")}
    _, st = run_step(gun_battle(player, system), "surface_combat", NoDice())
    out, st = results(st, "s2")
    g = acts(out, "gunnery")[0]
    assert g["detail"]["fire"] is False and g["why"].startswith("it ceases gunnery")
    assert pending(st) is None


# ---- STF 11.5, 11.6: the subs' torpedo attacks -----------------------------------------------------
def sub_battle() -> dict:
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"cv": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US"),
                                         "fr": ship("FR", 5, nation="US", role="fast resupply")})
    add_group(st, "SR1", "system", HEX, {"k1": ship("SS", 3, torpedoes=3, flotation=2),
                                          "k2": ship("SS", 3, torpedoes=3, flotation=2, hits=1),
                                          "k3": ship("SSN", 4, torpedoes=3, flotation=1)}, kind="subron")
    return st


def test_stf_11_5_subs_are_placed_in_entry_areas_by_die_one_sub_to_an_area():
    out, st = run_step(sub_battle(), "surface_combat", FixedDice(2, 2, 5, 2, 5, 1))
    placed = acts(out, "sub placement")[0]
    assert placed["detail"]["areas"] == {"k1": 2, "k2": 5, "k3": 1}
    assert [r.values[0] for r in rolls_of(out)] == [2, 2, 5, 2, 5, 1]
    assert all(r.dice[0]["sides"] == 6 for r in rolls_of(out))


def test_stf_11_6_a_sub_with_one_floatation_point_left_attacks_at_once_the_others_move_first():
    out, st = run_step(sub_battle(), "surface_combat", FixedDice(1, 2, 3))
    attack = acts(out, "torpedo attack")[0]["detail"]
    assert attack["targets"] == ["cv", "fr", "dd"]
    by_sub = {a["sub"]: a for a in attack["subs"]}
    assert by_sub["k1"]["attack"] == "after moving" and by_sub["k1"]["target"] == "cv"
    assert by_sub["k2"]["attack"] == "at once" and by_sub["k2"]["floatation_left"] == 1
    assert by_sub["k3"]["attack"] == "at once"  # one floatation point to begin with
    out, st = results(st, "dd")
    assert st["units"]["k1"]["torpedoes_left"] == 2
    assert pending(st) is None  # one attack: not defending an objective (STF 11.4)


def test_stf_11_4_a_torpedo_round_for_a_subron_gone_from_the_map_ends_without_asking_where_it_is():
    st = sub_battle()
    st["campaign"].update({"invader": "Player", "invasion_target": 12})  # 11.4 would ask where the subron is
    st["groups"]["SR1"].update({"hex": None, "status": "sunk"})
    out, after = run_step(st, "torpedo", NoDice(), group="SR1", target="P1", round=1)
    assert out == [] and pending(after) is None


# ---- STF 11.7, 11.8: placement on the tactical display --------------------------------------------
def test_stf_11_7_the_highest_value_in_the_centre_then_clockwise_ring_by_ring_every_second_on_ring_4():
    spots = combat.locations(25)
    assert spots[0] == {"ring": 1, "position": 1}
    assert spots[1:7] == [{"ring": 2, "position": p} for p in range(1, 7)]
    assert spots[7:19] == [{"ring": 3, "position": p} for p in range(1, 13)]
    assert spots[19:] == [{"ring": 4, "position": p} for p in (1, 3, 5, 7, 9, 11)]
    assert len(combat.locations(100)) == 1 + 6 + 12 + 9
    st = combat_state()
    add_group(st, "TF1", "system", HEX, {f"s{v}": ship("DD", v) for v in range(1, 9)})
    out, _ = play(st, {"kind": "placement", "group": "TF1"})
    ships = acts(out, "placement")[0]["detail"]["ships"]
    assert ships[0] == {"unit": "s8", "ring": 1, "position": 1}
    assert ships[1] == {"unit": "s7", "ring": 2, "position": 1}
    assert ships[7] == {"unit": "s1", "ring": 3, "position": 1}


def test_stf_11_8_a_freighter_is_placed_above_a_cg_of_the_same_vp():
    st = combat_state()
    add_group(st, "TF1", "system", HEX, {"cg": ship("CG", 5), "fr": ship("FR", 5, role="invasion"),
                                          "kirov": ship("CG", 8)})
    out, _ = play(st, {"kind": "placement", "group": "TF1"}, NoDice())
    assert [s["unit"] for s in acts(out, "placement")[0]["detail"]["ships"]] == ["kirov", "fr", "cg"]


def test_stf_11_7_placement_is_called_for_a_group_on_the_map_only():
    with pytest.raises(InvalidOrder) as e:
        play(combat_state(), {"kind": "placement", "group": "TF9"})
    assert e.value.rule == "STF 11.7"


def test_stf_11_the_combat_data_file_is_listed_in_the_readme_and_coverage():
    readme = (combat.DATA.directory / "README.md").read_text()
    assert "`combat.json`" in readme
    cov = json.loads((combat.DATA.directory.parent / "coverage.json").read_text())
    assert cov["tables"]["data/combat.json"]["status"] == "adjudicated"


# ---- ranges on the map (movement's maps.py): STF 11.1's long range, 7.8's 1-hex SSMs, 11.4 -------
CENTRE, NEXT, TWO_AWAY = "1212", "1211", "1210"  # the G-I-UK map: megahex 30's centre, a neighbour, two hexes off


def ranged(system_hex: str, intel: str, **campaign) -> dict:
    st = combat_state(**campaign)
    add_group(st, "P1", "Player", CENTRE, dd_ff_ff())
    add_group(st, "TF1", "system", system_hex, missile_tf(), intel=intel)
    return st


def test_stf_11_1_the_system_fires_long_range_ssms_only_when_its_own_group_is_precise():
    from domain.rulesets.stf import maps
    assert maps.distance("giuk", CENTRE, NEXT) == 1 and maps.distance("giuk", CENTRE, TWO_AWAY) == 2
    out, st = run_step(ranged(TWO_AWAY, "accurate"), "surface_combat", NoDice())
    assert acts(out, "SSM wave") == [] and pending(st) is None
    out, st = run_step(ranged(TWO_AWAY, "precise"), "surface_combat", FixedDice(4))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert wave["long_range"] is True and wave["target"] == "dd"


def test_stf_11_2_a_group_one_hex_off_fires_its_ssms_but_no_guns():
    out, st = run_step(ranged(NEXT, "accurate"), "surface_combat", FixedDice(4))
    assert acts(out, "SSM wave")[0]["detail"]["long_range"] is False
    out, st = results(st, dice=FixedDice(1))
    out, st = results(st)
    assert acts(out, "gunnery") == [] and acts(out, "placement") == [] and pending(st) is None


def test_stf_11_4_defending_the_objective_it_fights_every_round_with_fewer_guns():
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion")}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    for where in (CENTRE, "1210"):  # in megahex 30, and next to it
        st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
        add_group(st, "P1", "Player", where, player)
        add_group(st, "TF1", "system", where, system)
        out, st = run_step(st, "surface_combat", NoDice())
        g = acts(out, "gunnery")[0]
        assert g["rule"] == "STF 11.4" and g["detail"]["fire"] is True and g["detail"]["targets"] == ["iowa", "fr"]
        out, st = results(st, "s1")
        assert acts(out, "gunnery")[0]["detail"]["round"] == 2  # one C gun against an A: it fights on
        out, st = results(st, ended=True)
        assert pending(st) is None
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")  # far from the objective: 11.3
    add_group(st, "P1", "Player", "2010", player)
    add_group(st, "TF1", "system", "2010", system)
    out, _ = run_step(st, "surface_combat", NoDice())
    assert acts(out, "gunnery")[0]["detail"]["fire"] is False


def test_stf_11_1_a_hit_on_an_accurate_group_of_unknown_composition_draws_it_then_places_the_hits():
    import copy

    from domain.rulesets.stf import forces
    st = combat_state()
    add_group(st, "P1", "Player", "0505", {"ticonderoga": ship("CG", 5, nation="US", ssm=8, ssm_loads=2)})
    add_group(st, "TF2", "system", HEX, {}, intel="accurate", size="small", chit="Captain")
    st["pool"] = copy.deepcopy(dict(forces.COUNTERS))
    out, st = play(st, {"kind": "ssm", "target": "TF2", "hits": 2}, FixedDice(default=1))
    seq = names(out)
    assert seq.index("UnitsAssigned") < seq.index("UnitChanged")  # the force is drawn (STF 8.7), then hit
    g = st["groups"]["TF2"]
    assert g["intel"] == "precise" and g["units"]
    assert sum(st["units"][u].get("hits", 0) for u in g["units"]) == 2
    assert acts(out, "hits placed")[0]["detail"]["unplaced"] == 0


def test_stf_7_11_last_ditch_defence_fights_four_rounds_of_gunnery_then_ceases():
    """STF 7.11: a GameSystem group engages a Player task force with an invasion freighter that has
    entered the objective megahex "with SSM, 4 rounds of gunnery, and torpedo combat"; the fifth
    round is not fought (11.4's "as many rounds as possible" holds next to the objective)."""
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion", invasion=True)}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", CENTRE, player)
    add_group(st, "TF1", "system", CENTRE, system)
    assert combat.last_ditch_engagement(st, "P1")
    out, st = run_step(st, "surface_combat", NoDice())
    for n in (1, 2, 3, 4):
        g = acts(out, "gunnery")[0]
        assert g["detail"]["fire"] is True and g["detail"]["round"] == n
        out, st = results(st)
    g = acts(out, "gunnery")[0]
    assert g["rule"] == "STF 7.11" and g["detail"]["fire"] is False and "4 rounds" in g["why"]
    assert all(p["rule"] != "STF 11.4" or "gunnery" not in p["prompt"] for p in st["pending"])


def test_stf_11_4_next_to_the_objective_gunnery_goes_on_past_four_rounds():
    """STF 11.4 alone (the Player's task force next to the objective megahex, not in it): as many
    rounds as possible, so a fifth round is fought."""
    player = {"iowa": ship("BB", 10, nation="US", gun="A"), "fr": ship("FR", 5, nation="US", role="invasion", invasion=True)}
    system = {"s1": ship("CG", 5, gun="C"), "s2": ship("DD", 4, gun="C")}
    st = combat_state(invader="Player", invasion_target=30, mission="US Inv")
    add_group(st, "P1", "Player", "1210", player)
    add_group(st, "TF1", "system", "1210", system)
    assert not combat.last_ditch_engagement(st, "P1")
    out, st = run_step(st, "surface_combat", NoDice())
    for _ in range(4):
        out, st = results(st)
    g = acts(out, "gunnery")[0]
    assert g["rule"] == "STF 11.4" and g["detail"]["fire"] is True and g["detail"]["round"] == 5


def test_stf_11_the_system_groups_fight_in_the_order_they_move_task_forces_then_subrons_by_number():
    """STF 11: each GameSystem group in range fights in turn, in the one order the GameSystem's
    groups move and fly in (task forces before subrons, each by its number): TF2 before TF10 and
    both before SR1, not the text order of their ids (SR1, TF10, TF2)."""
    st = combat_state()
    add_group(st, "P1", "Player", HEX, {"dd": ship("DD", 4, nation="US", gun="C")})
    add_group(st, "SR1", "system", HEX, {"k1": ship("SS", 3, torpedoes=3)}, kind="subron")
    add_group(st, "TF10", "system", HEX, {"t10": ship("DD", 4, gun="C")})
    add_group(st, "TF2", "system", HEX, {"t2": ship("DD", 4, gun="C")})
    ctx = Ctx(copy.deepcopy(st), NoDice(), stf_rules.HOOKS)
    frames = combat.engagements(ctx)
    assert [(f["group"], f["step"]) for f in frames] == [("TF2", "gunnery"), ("TF10", "gunnery"), ("SR1", "torpedo")]
