"""Scenario tests for STF rules 1.x-7.x written from the text alone
(../shared/rules/003_74ca0e4e298164eb.txt), as an examiner would, built where possible from the
real countermix (forces.unit_from_counter, data/countermix.json) rather than hand-made units: the
worked examples of the text, the edges of its tables (rounding of "one third", boundary distances
and points) and its "each"/"once"/"per turn" wording."""

from __future__ import annotations

import copy

import pytest

from domain.rulesets.stf import composition, forces, maps, movement
from domain.rulesets.stf import rules as stf_rules
from domain.rulesets.toolkit.engine import Ctx
from tests.unit.stf.helpers import FixedDice, NoDice, events_of, play, run_step
from tests.unit.stf.test_campaign import campaign
from tests.unit.stf.test_forces import drawn, forces_state, refused
from tests.unit.stf.test_movement import M, _target_and_outside, add, d, last_hex, moves, player_tf, state


def real(cid: str) -> dict:
    """The unit of countermix counter ``cid`` as the game makes it (STF 1.4, 13.1-13.6)."""
    return forces.unit_from_counter({"pool": {}}, cid, cid)


def counters(nation: str, cls: str, role: str | None = None) -> list[str]:
    return [c for c, x in forces.COUNTERS.items() if x["nation"] == nation and x["class"] == cls
            and (role is None or x.get("role") == role)]


# ---- STF 1.5: the text's example ---------------------------------------------------------------------
def test_stf_1_5_the_texts_example_a_7_is_one_carrier_and_21_points_and_the_gamesystem_52():
    """"a roll of 7 means you have one aircraft carrier and an additional 21 points worth of ships
    and subs, and the GameSystem has 52 commitment points" (GIUK: no 1.6 adjustment)."""
    _, st = campaign("giuk", "US", 3, 3, 4)  # mission 3; 2D6 3 + 4 = 7
    c = st["campaign"]["commitment"]
    assert c["Player"] == {"points": 21, "carriers": 1} and c["system"] == 52


# ---- STF 1.10: one third, rounded down ----------------------------------------------------------------
@pytest.mark.parametrize("limit, subs", [(28, 9), (32, 10), (36, 12), (45, 15), (48, 16), (52, 17), (66, 22),
                                         (93, 31), (98, 32), (108, 36), (113, 37),
                                         # STF 1.6: the Caribbean's Soviet limits, 5 less
                                         (23, 7), (27, 9), (31, 10), (40, 13), (43, 14), (47, 15), (61, 20)])
def test_stf_1_10_one_third_rounded_down_of_every_gamesystem_limit_is_kept_for_submarines(limit, subs):
    assert composition.sub_share(limit) == subs


# ---- STF 1.12: escorts of frigate level, each carrier, US only ----------------------------------------
def test_stf_1_12_a_soviet_carriers_pcs_are_below_frigate_level_and_it_gets_no_freighter():
    st = forces_state(side="Soviet", points=14)            # the real countermix
    st = drawn(st, 1)                                      # a Soviet carrier
    pcs = [c for c in counters("Soviet", "PC") if forces.COUNTERS[c]["asw"] > 0][:3]
    assert len(pcs) == 3                                   # PCs with ASW, but not of frigate level
    msg = refused(st, {"kind": "buy", "units": pcs}, "STF 1.12")
    assert "the purchase has 0" in msg
    ffs = counters("Soviet", "FF")[:3]
    out, after = play(st, {"kind": "buy", "units": ffs})
    assert not [u for e in events_of(out, "UnitsAssigned") for u in e["units"].values()
                if u.get("class") == "FR"]                 # "for the US only, one freighter"
    carrier = after["campaign"]["player_carriers"][0]
    _, formed = play(after, {"kind": "form_groups", "groups": [{"kind": "tf", "units": [carrier, *ffs]}]})
    assert forces.escort_shortfall(formed, "P1") is None


def test_stf_1_12_each_of_two_us_carriers_needs_three_escorts_and_its_own_free_freighter():
    st = forces_state(points=35, carriers=2)               # STF 1.5 row 9: 35/2
    st = drawn(st, 5, 1)                                   # two US carriers (after the four NATO ones)
    carriers = st["campaign"]["player_carriers"]
    assert [st["units"][c]["nation"] for c in carriers] == ["US", "US"]
    ffs = counters("US", "FF")[:6]
    assert "need 6 ASW ships" in refused(st, {"kind": "buy", "units": ffs[:5]}, "STF 1.12")
    out, after = play(st, {"kind": "buy", "units": ffs})
    free = [u for e in events_of(out, "UnitsAssigned") for u in e["units"].values() if u.get("class") == "FR"]
    assert len(free) == 2 and all(u["role"] == "fast resupply" and u["invasion"] is False for u in free)
    one_tf = {"kind": "form_groups", "groups": [{"kind": "tf", "units": [*carriers, *ffs[:5], free[0]["id"],
                                                                         free[1]["id"]]},
                                                {"kind": "tf", "units": [ffs[5]]}]}
    assert "2 carrier(s) need 6 ASW ships" in refused(after, one_tf, "STF 1.12")


# ---- STF 1.14: leaders at 21 and 20 points, real values -----------------------------------------------
def test_stf_1_14_a_task_force_of_exactly_21_points_may_have_a_rear_admiral_and_one_of_20_a_commodore():
    st = drawn(forces_state(points=35), 5)                 # a US carrier: 25 points, not counted in the 35
    cv = st["campaign"]["player_carriers"][0]
    ffs, cgs, dds = counters("US", "FF")[:4], counters("US", "CG")[:2], counters("US", "DD")[:2]
    assert {forces.COUNTERS[c]["value"] for c in ffs} == {3} and {forces.COUNTERS[c]["value"] for c in cgs} == {6}
    _, st = play(st, {"kind": "buy", "units": [*ffs, *cgs, *dds]})  # 12 + 12 + 8 = 32
    fr = [u for u, x in st["units"].items() if x.get("class") == "FR"][0]
    twenty_one = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": [cv, ffs[3], *dds, fr]},              # 25 + 3 + 8 = 36
        {"kind": "tf", "units": [*cgs, *ffs[:3]]}]}                    # 12 + 9 = 21
    _, after = play(st, twenty_one)
    assert (after["groups"]["P2"]["points"], after["groups"]["P2"]["leader"]) == (21, "Rear Admiral")
    twenty = {"kind": "form_groups", "groups": [
        {"kind": "tf", "units": [cv, *ffs[:3], fr]},                  # 25 + 9 = 34
        {"kind": "tf", "units": [*cgs, *dds]},                        # 12 + 8 = 20
        {"kind": "tf", "units": [ffs[3]]}]}                           # 3
    _, after = play(st, twenty)
    assert [after["groups"][g]["leader"] for g in ("P1", "P2", "P3")] == ["Rear Admiral", "Commodore", "Captain"]
    too_high = copy.deepcopy(twenty)
    too_high["groups"][1]["leader"] = "Rear Admiral"
    assert "20 points may have a Commodore at most" in refused(st, too_high, "STF 1.14")


# ---- STF 1.11: 3 VP for each real invasion freighter, none for the fast resupply ship ------------------
def test_stf_1_11_real_invasion_freighters_score_3_each_and_the_fast_resupply_ship_nothing():
    inside, outside = _target_and_outside(12)
    st = state(invader="Player", target=12)
    invasion = counters("US", "FR", "invasion")
    resupply = counters("US", "FR", "fast resupply")[0]
    units = [real("us-cv-nimitz"), *(real(c) for c in counters("US", "FF")[:3]), real(resupply),
             *(real(c) for c in invasion)]
    add(st, "P1", "Player", "tf", outside, units)
    out, after = play(st, {"kind": "move", "group": "P1", "path": [inside]})
    scored = events_of(out, "VPScored")
    assert len(invasion) == 8 and [e["delta"] for e in scored] == [3] * 8
    assert after["vp"]["Player"] == 24 and not after["units"][resupply].get("arrived")


# ---- STF 5.2 with 7.1: one hex under a GameSystem command control loss, real subs ----------------------
def test_stf_5_2_real_subrons_and_task_forces_move_one_hex_and_a_precise_conventional_sub_not_at_all():
    def built(ccl: bool) -> dict:
        st = state(turn=2)
        player_tf(st, "P1", "1506")
        add(st, "TF1", "system", "tf", "2206", [real(c) for c in counters("Soviet", "DD")[:2]], intel="precise")
        add(st, "SR1", "system", "subron", "2106", [real(c) for c in counters("Soviet", "SSN")[:2]], intel="precise")
        add(st, "SR2", "system", "subron", "2110")                      # less than Precise
        add(st, "SR3", "system", "subron", "2114", [real(counters("Soviet", "SS")[0])], intel="precise")
        if ccl:
            st["campaign"]["system_ccl_turn"] = st["turn"]
        return st
    out, _ = run_step(built(False), "system_movement", FixedDice(default=1))
    assert {m["group"]: len(m["path"]) for m in moves(out)} == {"TF1": 3, "SR1": 2, "SR2": 2, "SR3": 1}
    out, _ = run_step(built(True), "system_movement", FixedDice(default=1))
    assert {m["group"]: len(m["path"]) for m in moves(out)} == {"TF1": 1, "SR1": 1, "SR2": 1}
    assert [e["group"] for e in events_of(out, "GroupChanged") if e["rule"] == "STF 5.2"] == ["SR3"]


# ---- STF 7.1: a subron revealed from the real countermix moves by what it proved to be ------------------
@pytest.mark.parametrize("row, cls, hexes", [(1, "SS", 1), (6, "SSN", 2)])
def test_stf_7_1_a_subron_revealed_from_the_countermix_moves_by_its_class(row, cls, hexes):
    st = state(turn=2)
    st["campaign"]["commitment"] = {"Player": {"points": 21, "carriers": 1}, "system": 113}
    st["pool"] = forces.pool_from_countermix()
    player_tf(st, "P1", "1506")
    add(st, "SR1", "system", "subron", "2106", intel="accurate", size="small", chit="Captain")
    ctx = Ctx(copy.deepcopy(st), FixedDice(row, default=1), stf_rules.HOOKS)
    composition.reveal(ctx, "SR1")                    # Soviet Captain Sub: row 1 1SS, row 6 1SSN
    revealed = ctx.state
    assert [revealed["units"][u]["class"] for u in revealed["groups"]["SR1"]["units"]] == [cls]
    out, _ = run_step(revealed, "system_movement", FixedDice(default=1))
    assert len(moves(out)[0]["path"]) == hexes


# ---- STF 6.4: a third, fractions rounded up ------------------------------------------------------------
@pytest.mark.parametrize("off, come", [(1, 1), (2, 1), (3, 1), (4, 2), (6, 2), (7, 3)])
def test_stf_6_4_a_third_of_the_task_forces_off_the_map_fractions_rounded_up(off, come):
    st = state(phase="Random Events", turn=3)
    for i in range(1, off + 1):
        add(st, f"TF{i}", "system", "tf", None, status="off map")
    out, _ = run_step(st, "reinforcements", FixedDice(default=2))
    assert len(events_of(out, "GroupPlaced")) == come


# ---- STF 7.8: the edges of the distance bands ----------------------------------------------------------
def test_stf_7_8_at_eight_hexes_no_band_applies_and_the_cv_closes_at_full_speed():
    st = state()
    player_tf(st, "P1", "1506")
    add(st, "TF1", "system", "tf", "2306", [real("sov-cv-kiev"), *(real(c) for c in counters("Soviet", "FF")[:3])],
        intel="precise")
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.5" and d(last_hex(after, "TF1"), "1506") == 5


def test_stf_7_8_at_one_hex_from_a_task_force_without_a_bb_the_cv_moves_to_its_hex():
    st = state()
    player_tf(st, "P1", "1506")
    add(st, "TF1", "system", "tf", "1606", [real("sov-cv-kiev"), *(real(c) for c in counters("Soviet", "FF")[:3])],
        intel="precise")
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.8" and last_hex(after, "TF1") == "1506"


# ---- STF 7.11: Last Ditch Defence ignores all other movement rules (7.10's BB among them) --------------
def test_stf_7_11_last_ditch_defence_closes_on_an_invasion_force_even_with_a_bb():
    inside = maps.sea_hexes_of(M, 12)[0]
    water = movement.water_distances(M, [inside])
    start = sorted(h for h, n in water.items() if n == 3 and maps.distance(M, h, inside) == 3
                   and maps.megahex_number(M, h) != 12)[0]
    st = state(invader="Player", target=12)
    add(st, "P1", "Player", "tf", inside, [real("us-bb-iowa"), *(real(c) for c in counters("US", "FF")[:3]),
                                           real(counters("US", "FR", "invasion")[0])])
    add(st, "TF1", "system", "tf", start, [real(c) for c in counters("Soviet", "DD")[:2]], intel="precise")
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.11" and last_hex(after, "TF1") == inside


# ---- STF 2.6: twelve units, each used once -------------------------------------------------------------
def test_stf_2_6_once_all_twelve_lbna_units_are_used_the_gamesystem_rolls_no_more():
    st = state(phase="Strike", turn=5)
    player_tf(st, "P1", "1506")
    st["lbna"] = {"used": {"backfire": 6, "badger": 6}}
    out, _ = run_step(st, "lbna_strike", NoDice())
    assert out == []


# ---- STF 7.6: a real subron whose torpedoes are spent has no offensive firepower ----------------------
def test_stf_7_6_a_real_conventional_sub_with_its_torpedoes_spent_withdraws_an_ssn_with_missiles_does_not():
    st = state()
    player_tf(st, "P1", "1506")
    ss = real("sov-ss-b-248")
    assert ss["torpedoes_left"] == 3 and ss["ssm_left"] == 0       # STF 13.6: Soviet subs (x3) torpedoes
    ssn = real("sov-ssn-k-458")
    assert ssn["ssm_left"] > 0
    add(st, "SR1", "system", "subron", "2106", [{**ss, "torpedoes_left": 0}], intel="precise")
    add(st, "SR2", "system", "subron", "2110", [{**ssn, "torpedoes_left": 0}], intel="precise")
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    rules = {m["group"]: m["rule"] for m in moves(out)}
    assert rules == {"SR1": "STF 7.6", "SR2": "STF 7.5"}


# ---- STF 7.5: four or more ships afloat ----------------------------------------------------------------
def test_stf_7_5_a_task_force_down_to_three_ships_afloat_is_not_one_of_four_or_more():
    st = state()
    big = [real(c) for c in counters("US", "FF")[:4]]
    add(st, "P1", "Player", "tf", "1506", big)                          # 5 hexes from TF1
    add(st, "P2", "Player", "tf", "1210", [real(c) for c in counters("US", "DD")[:4]])
    add(st, "TF1", "system", "tf", "2006", [real(c) for c in counters("Soviet", "DD")[:2]], intel="precise")
    far = movement.nearest(M, "2006", ["1210"])
    assert maps.distance(M, "2006", "1506") < far
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert "P1" in moves(out)[0]["why"]                                 # both have four: the nearer
    st["units"][big[0]["id"]]["sunk"] = True
    out, _ = run_step(st, "system_movement", FixedDice(default=1))
    assert "toward P2" in moves(out)[0]["why"]                          # P1 has three afloat


# ---- STF 1.11 and the table's *: real freighters join a starred task force, which makes for the target --
def test_stf_1_11_a_starred_us_task_force_takes_the_eight_real_freighters_and_makes_for_the_target():
    st = state(player="Soviet", system="US", invader="system", target=64, turn=2)
    st["campaign"]["commitment"] = {"Player": {"points": 21, "carriers": 1}, "system": 113}
    st["pool"] = forces.pool_from_countermix()
    player_tf(st, "P1", "1506")
    add(st, "TF1", "system", "tf", "2106", intel="accurate", size="medium", chit="Commodore")
    ctx = Ctx(copy.deepcopy(st), FixedDice(8, default=1), stf_rules.HOOKS)
    composition.reveal(ctx, "TF1")                    # US Commodore TF row 8: 1BB* 1CG 2DD 2FF
    after = ctx.state
    units = [after["units"][u] for u in after["groups"]["TF1"]["units"]]
    freighters = [u for u in units if u["class"] == "FR"]
    assert len(freighters) == 8 and all(movement.is_invasion_freighter(u) for u in freighters)
    assert after["campaign"]["invasion_freighters"] == "TF1"
    out, moved = run_step(after, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 7.4" and len(moves(out)[0]["path"]) == 2   # its freighters move 2
    objective = maps.sea_hexes_of(M, 64)
    assert movement.nearest(M, last_hex(moved, "TF1"), objective) < movement.nearest(M, "2106", objective)


# ---- STF 7.11 with 7.6: a carrier whose squadrons are all destroyed can no longer attack ---------------
def test_stf_7_11_a_carrier_left_without_aircraft_cannot_attack_so_no_last_ditch_charge():
    """A real US carrier carries no SSM, gun or torpedo (data/countermix.json): once its squadrons
    are all destroyed (the combat report's ``air_lost``) it "possesses no offensive firepower" (7.6)
    and is not a task force "which can attack" the invasion force (7.11)."""
    inside = maps.sea_hexes_of(M, 12)[0]
    water = movement.water_distances(M, [inside])
    start = sorted(h for h, n in water.items() if n == 3 and maps.distance(M, h, inside) == 3
                   and maps.megahex_number(M, h) != 12)[0]
    st = state(invader="Player", target=12)
    add(st, "P1", "Player", "tf", inside, [*(real(c) for c in counters("US", "FF")[:4]),
                                           real(counters("US", "FR", "invasion")[0])])
    cv = real("us-cv-nimitz")
    assert (cv["ssm_left"], cv["gun"], cv["torpedoes_left"]) == (0, None, 0)
    add(st, "TF1", "system", "tf", start, [{**cv, "air_lost": sorted(cv["air"])}], intel="precise")
    assert not movement.has_offensive_firepower(st, st["groups"]["TF1"])
    out, after = run_step(st, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 1.12"              # without its escorts it withdraws instead
    bases = movement.bases(st)
    assert movement.nearest(M, last_hex(after, "TF1"), bases) < movement.nearest(M, start, bases)
    st["units"]["us-cv-nimitz"]["air_lost"] = ["L"]         # its M and H squadrons still fly: it can attack
    assert movement.has_offensive_firepower(st, st["groups"]["TF1"])


# ---- STF 1.12 for the GameSystem: a carrier revealed from the countermix, then short of escorts --------
def test_stf_1_12_a_revealed_soviet_carrier_that_loses_its_third_escort_withdraws_toward_its_base():
    st = state(turn=2)
    st["campaign"]["commitment"] = {"Player": {"points": 21, "carriers": 1}, "system": 113}
    st["pool"] = forces.pool_from_countermix()
    player_tf(st, "P1", "0509")
    add(st, "TF1", "system", "tf", "2106", intel="accurate", size="large", chit="Rear Admiral")
    ctx = Ctx(copy.deepcopy(st), FixedDice(5, default=1), stf_rules.HOOKS)
    composition.reveal(ctx, "TF1")                    # Soviet Rear Admiral TF row 5: 1CV 1CG 1DD 3FF
    revealed = ctx.state
    units = revealed["groups"]["TF1"]["units"]
    assert sorted(revealed["units"][u]["class"] for u in units) == ["CG", "CV", "DD", "FF", "FF", "FF"]
    escorts = [u for u in units if revealed["units"][u]["class"] != "CV"]
    for u in escorts[:2]:
        revealed["units"][u]["sunk"] = True           # three escorts left: it keeps on
    out, _ = run_step(revealed, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] != "STF 1.12"
    revealed["units"][escorts[2]]["sunk"] = True      # two left: "it and its remaining escorts must withdraw"
    out, after = run_step(revealed, "system_movement", FixedDice(default=1))
    assert moves(out)[0]["rule"] == "STF 1.12" and "need 3 ASW ships" in moves(out)[0]["why"]
    bases = movement.bases(revealed)
    assert movement.nearest(M, last_hex(after, "TF1"), bases) < movement.nearest(M, "2106", bases)


# ---- STF 1.7: the text's example, the CV Foch --------------------------------------------------------
def test_stf_1_7_the_texts_example_drawing_the_foch_makes_every_support_vessel_nato():
    st = drawn(forces_state(points=21), 2)            # US and NATO carriers in id order: the second is the Foch
    foch = st["campaign"]["player_carriers"]
    assert [st["units"][c]["name"] for c in foch] == ["Foch"]
    us, nato = counters("US", "FF")[:3], counters("NATO", "FF")[:3]
    assert "is US" in refused(st, {"kind": "buy", "units": [*nato[:2], us[0]]}, "STF 1.7")
    out, after = play(st, {"kind": "buy", "units": nato})
    assert after["campaign"]["player_purchase"]["freighters"] == []   # STF 1.12: a freighter for the US only


# ---- STF 1.11: freighters revealed in a task force already in the target megahex have made it ----------
def test_stf_1_11_freighters_revealed_in_a_task_force_already_in_the_target_megahex_score_3_each():
    """An unknown task force of the invading GameSystem makes for the target megahex (7.4) before
    anything is known of it; revealed there as the first CV task force, its 8 freighters (1.11) are
    in the target megahex: each "makes it", 3 VP, once."""
    st = state(player="Soviet", system="US", invader="system", target=64, turn=3)
    st["campaign"]["commitment"] = {"Player": {"points": 21, "carriers": 1}, "system": 113}
    st["pool"] = forces.pool_from_countermix()
    player_tf(st, "P1", "1506")
    add(st, "TF1", "system", "tf", maps.sea_hexes_of(M, 64)[0], intel="accurate", size="large", chit="Rear Admiral")
    ctx = Ctx(copy.deepcopy(st), FixedDice(6, default=1), stf_rules.HOOKS)
    composition.reveal(ctx, "TF1")                    # US Rear Admiral TF row 6: 1CV 2CG 2DD 3FF, and the freighters
    revealed = ctx.state
    assert revealed["campaign"]["invasion_freighters"] == "TF1"
    out, after = run_step(revealed, "system_movement", FixedDice(default=1))
    assert after["vp"]["system"] == 24
    assert [e["delta"] for e in events_of(ctx.out, "VPScored") + events_of(out, "VPScored")] == [3] * 8
