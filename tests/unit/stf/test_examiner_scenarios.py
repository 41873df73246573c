"""Scenario tests written from the STF text alone (../shared/rules/003_74ca0e4e298164eb.txt), as an
examiner would: a situation, chosen dice, and what the GameSystem decides or what is refused. Each
test is named after the rule it checks; the worked examples of the text and the edges of its tables
(boundary die results, modifiers pushing a roll off a table, rounding) come first."""

from __future__ import annotations

import copy

import pytest

from domain.errors import RuleViolation
from domain.rulesets.stf import air, composition, forces, maps, retirement
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import (FixedDice, NoDice, add_group, at_phase, combat_state, events_of, initial,
                                    play, pool_of, rolls_of, run_step, search_state, ship, system_group)
from tests.unit.stf.test_combat import results  # answers the pending combat decision


def search(gid: str = "TF1", sv: int = 5) -> dict:
    return {"kind": "search", "group": gid, "search_value": sv}


def reveal(state: dict, gid: str, dice):
    ctx = Ctx(copy.deepcopy(state), dice, stf_rules.HOOKS)
    composition.reveal(ctx, gid)
    return ctx.out, ctx.state


def acts(out: list, what: str) -> list[dict]:
    return [e for e in events_of(out, "SystemActs") if e["what"] == what]


# ---- STF 8.3-8.7: the search ladder, from a contact with no chit to Precise ------------------------
def test_stf_8_4_to_8_6_a_contact_climbs_the_ladder_enemy_then_tracked_then_a_leader():
    """SV 5: a 5 is Approximate (odd: Enemy); next a 5 - 1 = 4 is Good (Tracked); next a 5 - 2 = 3
    is Accurate (size 1-2 small: Captain), each with the chit's modifier."""
    st = search_state(system_group("TF1"))
    out, st = play(st, search(sv=5), FixedDice(5, 3))
    assert st["groups"]["TF1"]["chit"] == "Enemy"
    out, st = play(st, search(sv=5), FixedDice(5))
    assert rolls_of(out)[0].target["modified"] == 4 and st["groups"]["TF1"]["chit"] == "Tracked"
    out, st = play(st, search(sv=5), FixedDice(5, 2))
    assert rolls_of(out)[0].target["modified"] == 3 and rolls_of(out)[0].outcome == "accurate"
    g = st["groups"]["TF1"]
    assert (g["intel"], g["chit"], g["size"]) == ("accurate", "Captain", "small")
    assert st["deployment"]["total"] == 10  # STF 8.12: small, 10


def test_stf_8_6_accurate_with_no_chit_rolls_false_contact_then_size_medium_on_3_and_4():
    for size_die in (3, 4):
        out, st = play(search_state(system_group("TF1")), search(sv=6), FixedDice(4, 5, size_die))
        assert [r.rule for r in rolls_of(out)][1:] == ["STF 8.6", "STF 8.6"]
        assert (st["groups"]["TF1"]["chit"], st["groups"]["TF1"]["size"]) == ("Commodore", "medium")
        assert st["deployment"]["total"] == 20  # STF 8.12: medium, 20


def test_stf_8_7_a_roll_far_below_the_search_value_is_still_precise():
    """A modified roll 3 or more less than the Search Value is Precise (a leader chit's -3 takes
    a 1 to -2)."""
    st = search_state(system_group("TF1", chit="Captain", size="small", intel="accurate"), pool=pool_of("Soviet", PC=3))
    out, after = play(st, search(sv=3), FixedDice(1, 1))
    assert rolls_of(out)[0].target["modified"] == -2 and rolls_of(out)[0].outcome == "precise"
    assert after["groups"]["TF1"]["intel"] == "precise"


def test_stf_8_3_a_modified_roll_one_above_the_search_value_is_unknown():
    st = search_state(system_group("TF1", chit="Tracked", intel="good"))
    out, after = play(st, search(sv=4), FixedDice(7))  # 7 - 2 = 5 > 4
    assert rolls_of(out)[0].outcome == "unknown" and after["groups"]["TF1"] == st["groups"]["TF1"]


def test_stf_8_13_a_subron_accurate_large_adds_13_then_precise_readjusts_to_its_cost():
    st = search_state(system_group("SR1", "subron", chit="Enemy", intel="approximate"), pool=pool_of("Soviet", SS=1))
    out, st = play(st, search("SR1", 5), FixedDice(4, 6))  # 4 - 1 = 3: Accurate; size 6: large
    assert st["deployment"]["total"] == 13 and st["groups"]["SR1"]["chit"] == "Rear Admiral"
    out, st = play(st, search("SR1", 5), FixedDice(2, 1))  # 2 - 3 = -1: Precise; Rear Admiral Sub row 1: 1SS
    assert st["groups"]["SR1"]["intel"] == "precise" and st["deployment"]["total"] == 3
    assert st["groups"]["SR1"]["mode"] == "shallow"


# ---- the Precise Composition Table's edges ---------------------------------------------------------
def test_precise_composition_table_a_commodore_6_within_5_reads_row_1_soviet_6pc():
    """Commitment 45, total 40: within 5, -7; a 6 becomes -1, off the table: row 1 (6PC)."""
    st = search_state(system_group("TF1", intel="accurate", size="medium", chit="Commodore"),
                      pool=pool_of("Soviet", PC=6))
    st["deployment"] = {"total": 40, "groups": {"TF9": {"part": "subs", "points": 40}}}
    out, after = reveal(st, "TF1", FixedDice(6))
    roll = rolls_of(out)[0]
    assert roll.target["modified"] == -1 and roll.outcome == "6PC"
    assert len(after["groups"]["TF1"]["units"]) == 6


def test_precise_composition_table_within_16_is_no_modifier_within_15_is_minus_3():
    st = search_state(system_group("TF1", intel="accurate", size="small", chit="Captain"))
    st["deployment"] = {"total": 29, "groups": {}}  # 45 - 29 = 16
    assert composition.modifiers(st, st["groups"]["TF1"], "Soviet") == []
    st["deployment"]["total"] = 30  # 15
    assert [m["value"] for m in composition.modifiers(st, st["groups"]["TF1"], "Soviet")] == [-3]
    st["deployment"]["total"] = 35  # 10
    assert [m["value"] for m in composition.modifiers(st, st["groups"]["TF1"], "Soviet")] == [-5]


def test_precise_composition_table_a_rear_admiral_is_never_modified_by_the_commitment():
    st = search_state(system_group("TF1", intel="accurate", size="large", chit="Rear Admiral"))
    st["deployment"] = {"total": 44, "groups": {}}
    assert composition.modifiers(st, st["groups"]["TF1"], "Soviet") == []


def test_precise_composition_table_soviet_revealed_air_plus_4_on_a_7_reads_row_10():
    st = search_state(system_group("TF1", intel="accurate", size="large", chit="Rear Admiral", air_known=True))
    mods = composition.modifiers(st, st["groups"]["TF1"], "Soviet")
    assert [m["value"] for m in mods] == [4]
    table = composition.COMPOSITION_TABLES[composition.COMPOSITION["table_by_nation"]["Soviet"]]
    from domain.rulesets.toolkit.tables import read
    assert read(table, 7, "Rear Admiral TF", mods).result.split() == ["2CV", "3CG", "4DD", "5FF"]
    us = composition.modifiers(st, st["groups"]["TF1"], "US")
    assert [m["value"] for m in us] == [5]


# ---- STF 8.9: the text's example, through a reveal -------------------------------------------------
def test_stf_8_9_the_texts_example_no_dd_left_a_ff_costs_4_points():
    """Captain TF row 7 (Soviet): 1DD 1FF; the countermix has no DD left: two FF, 4 + 3 points."""
    st = search_state(system_group("TF1", intel="accurate", size="small", chit="Captain"),
                      pool={**pool_of("Soviet", FF=2), "sov-dd-x": {**pool_of("Soviet", DD=1)["sov-dd-1"]}})
    st["units"]["sov-dd-x"] = {**st["pool"].pop("sov-dd-x"), "id": "sov-dd-x", "counter": "sov-dd-x", "group": "TF9"}
    out, after = reveal(st, "TF1", FixedDice(7, 1))  # row 7; the FF for the DD drawn by a d2
    assigned = events_of(out, "UnitsAssigned")
    assert [list(e["units"]) for e in assigned] == [["sov-ff-1"], ["sov-ff-2"]]
    assert [e["points"] for e in assigned] == [4, 3]
    assert assigned[0]["rule"] == "STF 8.9"
    assert events_of(out, "DeploymentChanged")[-1]["points"] == 7


# ---- STF 10: the GameSystem's air attacks ----------------------------------------------------------
SYS = "2305"


def air_state(player_hex: str = "0605", **group) -> dict:
    st = at_phase(initial(), "Strike", turn=3)
    st["campaign"].update({"map": "giuk", "player_side": "US", "system_side": "Soviet", "player_airbases": [],
                           "system_airbase": None, "ground_aviation": {"Player": 0, "system": 0},
                           "lbna_available": True})
    st["groups"]["TF1"] = {"id": "TF1", "owner": "system", "kind": "tf", "hex": SYS, "units": ["kiev"],
                           "status": "on map", "intel": "precise", "chit": "Rear Admiral", **group}
    st["units"]["kiev"] = {"id": "kiev", "class": "CV", "nation": "Soviet", "air": {"L": 4, "M": 3, "H": 4},
                           "group": "TF1"}
    st["groups"]["P1"] = {"id": "P1", "owner": "Player", "kind": "tf", "hex": player_hex, "units": ["nimitz"],
                          "status": "on map"}
    st["units"]["nimitz"] = {"id": "nimitz", "class": "CV", "nation": "US", "group": "P1"}
    return st


def test_stf_10_3_a_player_cv_task_force_7_megahexes_away_is_out_of_range():
    st = air_state("0505")
    assert maps.megahex_distance("giuk", SYS, "0505") == 7
    out, _ = run_step(st, "air_attacks", NoDice())
    assert acts(out, "air strike") == []


@pytest.mark.parametrize("die, strike, escort", [(1, 1, 0), (2, 1, 0), (3, 1, 1), (5, 1, 1), (6, 2, 0)])
def test_air_attack_table_soviet_column_sets_the_package(die, strike, escort):
    st = air_state()
    st["units"]["kiev"]["air"] = {"L": [4, 4], "M": 3, "H": [4, 4]}
    out, _ = run_step(st, "air_attacks", FixedDice(die, 1))
    d = acts(out, "air strike")[0]["detail"]
    assert (len(d["strike"]), len(d["escort"])) == (strike, escort)


def test_stf_10_10_h_strikes_and_l_escorts_before_m():
    st = air_state()
    out, _ = run_step(st, "air_attacks", FixedDice(3, 1))  # Soviet 3: 1 strike, 1 escort
    d = acts(out, "air strike")[0]["detail"]
    assert d["strike"] == ["kiev:H"] and d["escort"] == ["kiev:L"]


def test_stf_10_2_cap_half_round_up_of_fresh_l_and_m():
    st = air_state()  # L 4 + M 3 = 7: CAP 4
    assert air.cap(st, "TF1")["strength"] == 4
    st["units"]["kiev"]["air"] = {"L": 1, "M": 0, "H": 4}
    assert air.cap(st, "TF1")["strength"] == 1
    st["units"]["kiev"]["air"] = {"L": 0, "M": 0, "H": 4}
    assert air.cap(st, "TF1")["strength"] == 0


def test_stf_10_8_a_soviet_player_s_first_air_strike_rolls_1_2_nato():
    st = air_state()
    st["campaign"].update(player_side="Soviet", system_side=None)
    st["units"]["kiev"].update(nation="NATO")
    st["units"]["nimitz"].update(nation="Soviet")
    out, after = run_step(st, "air_attacks", FixedDice(2, 3, 1))
    assert after["campaign"]["system_side"] == "NATO"


# ---- STF 11.2: at a CV, every SSM in waves of ten -------------------------------------------------
def test_stf_11_2_twenty_five_ssms_at_a_cv_go_in_waves_of_10_10_and_5():
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"nimitz": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "0101", {"k1": ship("CG", 8, ssm=25, ssm_loads=1)})
    out, st = run_step(st, "surface_combat", FixedDice(1))
    sizes = [acts(out, "SSM wave")[0]["detail"]["missiles"]]
    assert acts(out, "SSM wave")[0]["detail"]["target"] == "nimitz"
    for die in (2, 3):
        out, st = results(st, dice=FixedDice(die))
        sizes.append(acts(out, "SSM wave")[0]["detail"]["missiles"])
    assert sizes == [10, 10, 5]


def test_stf_11_2_once_the_cv_is_sunk_four_per_remaining_ship_in_waves_of_six():
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"nimitz": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US"),
                                            "ff": ship("FF", 3, nation="US")})
    add_group(st, "TF1", "system", "0101", {"k1": ship("CG", 8, ssm=40, ssm_loads=1)})
    out, st = run_step(st, "surface_combat", FixedDice(1))
    out, st = results(st, "nimitz", dice=FixedDice(2))
    wave = acts(out, "SSM wave")[0]["detail"]
    # 30 left; 2 ships afloat: 8 missiles (under half of 30), a wave of 6 at the DD, then 2
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (6, "dd", 2)


# ---- STF 11.3: gunnery by the heaviest guns either side has ---------------------------------------
def test_stf_11_3_neither_side_with_a_guns_compares_b_guns():
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"p1": ship("DD", 4, nation="US", gun="B"),
                                            "p2": ship("DD", 4, nation="US", gun="B")})
    add_group(st, "TF1", "system", "0101", {"s1": ship("CG", 6, gun="B"), "s2": ship("DD", 4, gun="B"),
                                             "s3": ship("DD", 4, gun="C")})
    out, _ = run_step(st, "surface_combat", FixedDice(1, 1, 1))
    g = acts(out, "gunnery")[0]["detail"]
    assert (g["fire"], g["level"], g["ships"], g["player_ships"]) == (True, "B", 2, 2)


def test_stf_11_3_a_guns_only_on_the_gamesystem_side_it_fires():
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"p1": ship("DD", 4, nation="US", gun="B"),
                                            "p2": ship("DD", 4, nation="US", gun="B")})
    add_group(st, "TF1", "system", "0101", {"s1": ship("CG", 6, gun="A")})
    out, _ = run_step(st, "surface_combat", FixedDice(1, 1, 1))
    g = acts(out, "gunnery")[0]["detail"]
    assert (g["fire"], g["level"], g["ships"], g["player_ships"]) == (True, "A", 1, 0)


# ---- STF 12: retirement ---------------------------------------------------------------------------
def terminal(commitment: int) -> dict:
    st = combat_state("Terminal", commitment=commitment)
    st["campaign"]["commitment_table"] = {"Player": {"points": 21, "carriers": 1}, "system": commitment}
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "1610", {f"s{i}": ship("DD", 5) for i in range(1, 8)})
    return st


def sunk(st: dict, *units: str) -> dict:
    for u in units:
        st["units"][u]["sunk"] = True
    return st


def test_stf_12_2_and_12_5_commitment_45_an_index_of_22_does_not_exceed_22_5_but_23_does():
    st = sunk(terminal(45), "s1", "s2", "s3", "s4")  # 20
    st["units"]["s5"]["vp"] = 2
    sunk(st, "s5")  # 22
    assert retirement.index(st) == 22
    out, _ = run_step(st, "retirement", NoDice())
    assert acts(out, "retirement check") == []
    st["units"]["s5"]["vp"] = 3  # 23 > 22.5
    out, _ = run_step(st, "retirement", FixedDice(1))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is True


def test_stf_12_6_commitment_45_net_losses_of_30_retire_on_a_5_not_a_6():
    st = sunk(terminal(45), "s1", "s2", "s3", "s4", "s5", "s6")  # 30 >= 29.7
    out, _ = run_step(st, "retirement", FixedDice(5))
    check = acts(out, "retirement check")[0]
    assert check["rule"] == "STF 12.6" and check["detail"]["retire"] is True
    out, _ = run_step(st, "retirement", FixedDice(6))
    assert acts(out, "retirement check")[0]["detail"]["retire"] is False


def test_stf_12_6_commitment_45_net_losses_of_29_are_short_of_66_percent():
    st = sunk(terminal(45), "s1", "s2", "s3", "s4", "s5")
    st["units"]["s6"]["vp"] = 4
    sunk(st, "s6")  # 29 < 29.7
    out, _ = run_step(st, "retirement", FixedDice(5))
    check = acts(out, "retirement check")[0]
    assert check["rule"] == "STF 12.5" and check["detail"]["retire"] is False


def test_stf_12_4_player_losses_are_subtracted_from_the_index():
    st = sunk(terminal(45), "s1", "s2", "s3", "s4", "s5", "p_dd")  # 25 - 4 = 21
    assert retirement.index(st) == 21
    out, _ = run_step(st, "retirement", NoDice())
    assert acts(out, "retirement check") == []


def test_stf_12_7_the_three_best_frigates_by_asw_then_aa_then_lowest_ssm():
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    add_group(st, "TF1", "system", "1610", {
        "kiev": ship("CV", 10, air={"L": 2, "M": 2, "H": 2, "EW": 0, "AEW": 0}),
        "f1": ship("FF", 3, asw=2, aa=1, ssm=0), "f2": ship("FF", 3, asw=3, aa=1, ssm=0),
        "f3": ship("FF", 3, asw=2, aa=2, ssm=4), "f4": ship("FF", 3, asw=2, aa=2, ssm=2),
        "d1": ship("DD", 4, asw=5, aa=5)})
    st["units"]["kiev"]["flight_deck_inoperable"] = True
    out, after = run_step(st, "retirement", NoDice())
    retiring = [g for g in after["groups"].values() if g.get("carrier_retiring") == "kiev"][0]
    assert sorted(retiring["units"]) == ["f2", "f3", "f4", "kiev"]  # f2 (ASW 3), f4 and f3 (AA 2; f4 fewer SSM)


def test_stf_11_2_a_kirov_drawn_from_the_countermix_fires_its_20_ssms_in_two_waves_of_10_at_the_cv():
    """A GameSystem unit made from its counter (STF 8.7's draw, 13.4's (x2)) carries ssm x loads
    missiles: the Kirov (20 SSM, x2) fires every SSM it can, 20 in a combat, in waves of 10."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"nimitz": ship("CV", 20, nation="US"), "dd": ship("DD", 4, nation="US")})
    kirov = forces.unit_from_counter(st, "sov-cg-kirov", "kirov")
    assert (kirov["ssm"], kirov["ssm_loads"]) == (20, 2)
    add_group(st, "TF1", "system", "0102", {"kirov": kirov})
    out, st = run_step(st, "surface_combat", FixedDice(1))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (10, "nimitz", 10)
    out, st = results(st, dice=FixedDice(2))
    assert acts(out, "SSM wave")[0]["detail"]["missiles"] == 10
    assert st["units"]["kirov"]["ssm_left"] == 20  # the second load is left for another combat


def test_stf_10_8_the_cv_set_aside_for_an_air_strike_is_the_cv_its_precise_composition_lists():
    """10.8: a CV drawn and "placed aside as the CV for the attacking (not yet Precise) task force".
    When that task force is Precisely identified (Rear Admiral TF, revealed air +4: a 1 reads row 5,
    1CV 1CG 1DD 3FF) its one CV is the one set aside, not a second carrier drawn besides."""
    st = air_state(intel="unknown", chit=None)
    st["groups"]["TF1"]["units"] = []
    st["units"].pop("kiev")
    st["pool"] = pool_of("Soviet", CV=2, CG=2, DD=2, FF=4)
    # 10.5: odd, then a 6 (Rear Admiral); the Air Attack Table 1; a d2 draws the CV; the sector
    out, st = run_step(st, "air_attacks", FixedDice(1, 6, 1, 1, 3))
    assert st["groups"]["TF1"]["units"] == ["sov-cv-1"] and st["groups"]["TF1"]["air_known"] is True
    out, after = reveal(st, "TF1", FixedDice(1, default=1))
    assert rolls_of(out)[0].outcome.split() == ["1CV", "1CG", "1DD", "3FF"]
    units = after["groups"]["TF1"]["units"]
    assert sorted(after["units"][u]["class"] for u in units) == ["CG", "CV", "DD", "FF", "FF", "FF"]
    assert "sov-cv-1" in units and "sov-cv-2" in after["pool"]
    assert after["deployment"]["total"] == 10 + 6 + 4 + 9  # the CV at its cost (STF 8.12's exact cost)


def test_stf_11_2_the_texts_example_with_a_slava_16_ssm_x2_half_its_complement_is_16_so_12_fire():
    """11.2's example (1 DD, 2 FF: 12 missiles in two waves of 6) fired by one Slava-class CG
    (16 SSM, (x2) by 13.4): its complement is 32 (13.7: the (x2) is the SSM complement), half
    is 16, so the 4 per ship (12) all fire, both waves at the DD."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", {"dd": ship("DD", 4, nation="US"), "ff1": ship("FF", 3, nation="US"),
                                            "ff2": ship("FF", 3, nation="US")})
    slava = forces.unit_from_counter(st, "sov-cg-slava", "slava")
    assert (slava["ssm"], slava["ssm_loads"]) == (16, 2)
    add_group(st, "TF1", "system", "0102", {"slava": slava})
    out, st = run_step(st, "surface_combat", FixedDice(3))
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (6, "dd", 6)
    out, st = results(st, dice=FixedDice(5))  # the DD survives the first wave
    wave = acts(out, "SSM wave")[0]["detail"]
    assert (wave["missiles"], wave["target"], wave["left_in_salvo"]) == (6, "dd", 0)


# ---- the countermix's own units through the rules (what a real game deals) -----------------------
def real(st: dict, *counters: str) -> dict:
    return {c: forces.unit_from_counter(st, c, c) for c in counters}


def test_stf_11_1_the_player_reports_the_8_ssms_his_spruance_fired():
    """A Player DD drawn from the countermix (Spruance, 8 SSM): the base game's 8 missiles fired
    are reported spent, leaving none (a load of 8, x1)."""
    st = combat_state()
    add_group(st, "P1", "Player", "0101", real(st, "us-dd-spruance"))
    _, after = play(st, {"kind": "report", "spent": {"us-dd-spruance": {"ssm": 8}}})
    assert after["units"]["us-dd-spruance"]["ssm_left"] == 0
    with pytest.raises(RuleViolation):
        play(after, {"kind": "report", "spent": {"us-dd-spruance": {"ssm": 1}}})


def test_stf_12_7_a_kiev_whose_only_squadron_is_destroyed_retires_with_its_three_best_frigates():
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    units = real(st, "sov-cv-kiev", "sov-ff-bditelny", "sov-ff-dostoyny", "sov-ff-razumny", "sov-ff-svirepy")
    units["sov-ff-svirepy"]["asw"] = 1  # the worst frigate stays behind
    add_group(st, "TF1", "system", "1610", units)
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "squadrons_destroyed": ["sov-cv-kiev:M"]})
    out, after = run_step({**st, "phase": "Terminal"}, "retirement", FixedDice(default=1))
    party = [g for g in after["groups"].values() if g.get("carrier_retiring") == "sov-cv-kiev"][0]
    assert sorted(party["units"]) == ["sov-cv-kiev", "sov-ff-bditelny", "sov-ff-dostoyny", "sov-ff-razumny"]
    assert party["retiring"] is True and after["groups"]["TF1"]["units"] == ["sov-ff-svirepy"]


def test_stf_12_8_a_subron_of_real_soviet_ss_with_its_three_torpedo_loads_spent_retires():
    st = combat_state("Terminal")
    add_group(st, "P1", "Player", "1212", {"p_dd": ship("DD", 4, nation="US")})
    add_group(st, "SR1", "system", "1610", real(st, "sov-ss-b-248"), kind="subron")
    assert st["units"]["sov-ss-b-248"]["torpedoes_left"] == 3  # STF 13.6: (x3)
    out, _ = run_step(st, "retirement", NoDice())
    assert not [e for e in events_of(out, "GroupChanged") if e["rule"] == "STF 12.8"]
    _, st = play({**st, "phase": "Combat"}, {"kind": "report", "spent": {"sov-ss-b-248": {"torpedoes": 3}}})
    out, after = run_step({**st, "phase": "Terminal"}, "retirement", NoDice())
    assert [e["rule"] for e in events_of(out, "GroupChanged")] == ["STF 12.8"]
    assert after["groups"]["SR1"]["retiring"] is True


def test_stf_8_7_a_precise_task_force_is_turned_from_its_emcon_side_to_its_normal_side():
    """6.6: task forces start EMCON side up; 8.7: once Precisely identified, "turn its chit onto
    its normal side" for the rest of the game."""
    st = search_state(system_group("TF1", chit="Tracked", intel="good"), pool=pool_of("Soviet", PC=3))
    assert st["groups"]["TF1"]["emcon"] is True
    out, after = play(st, search(sv=9), FixedDice(5, 2, 1))  # Precise; size small; row 1: 3PC
    assert after["groups"]["TF1"]["intel"] == "precise" and after["groups"]["TF1"]["emcon"] is False
    assert after["groups"]["TF1"]["chit"] == "Captain"
