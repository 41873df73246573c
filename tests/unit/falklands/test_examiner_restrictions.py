"""Falklands Showdown chapter 7.0, examiner-style: each sentence that limits an operation of FS 7.1,
an order that breaks exactly that limit (refused with a RuleViolation naming the rule, nothing
recorded) beside the nearest legal order (accepted with the effect the text gives).

Restrictions the other operation tests already pair are not repeated here (test_rules_ops_1_13.py,
test_rules_ops_14_25.py, test_examiner_operations.py, test_examiner_decisions.py)."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T

from .helpers import (
    AR, AR_DESTROYERS, AR_SUBS, DAGGERS, PUCARAS, UK, UK_DESTROYERS, UK_INFANTRY, UK_SF, UK_SUBS,
    FixedDice, ar, broken, control, events_of, fire, names, op, place, play, set_phase, uk,
)

AR_INFANTRY = ["ri_3", "ri_4", "ri_5"]


def moved(out: list) -> dict[str, str]:
    return {e["unit"]: e["destination"] for e in events_of(out, "UnitMoved")}


# ================================================================================ FS 7.1 ===
def test_fs_7_1_announcing_an_operation_names_one_of_the_25():
    """FS 7.1 "he does so by announcing exactly which op he'll be conducting ... All 25 allowable
    operations are described below": no op 0 or 26, no op left unnamed."""
    st = uk()
    for bad in (0, 26, None, "20"):
        with pytest.raises(InvalidOrder) as err:
            play(st, UK, op(bad))
        assert err.value.rule == "FS 7.1"
    place(st, UK_DESTROYERS[0], "sa4")
    out, _ = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7"))
    assert events_of(out, "OperationBegun")[0]["op"] == 20


def test_fs_7_1_one_operation_in_each_operations_phase_then_the_other_side():
    """FS 7.1 "Each player will generally conduct just one operation in each of his own
    Operations Phases" (FS 5.2: then the AR Operations Phase)."""
    st = uk()
    place(st, UK_DESTROYERS[0], "sa4")
    out, st2 = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7"))
    assert st2["phase"] == "AR Operations"
    broken(st2, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa6"), "FS 5.2")
    out, st3 = play(st2, AR, {"kind": "pass"})
    assert st3["phase"] == "UK Submarine"


def test_fs_7_1_two_operations_only_where_a_random_event_gives_them():
    """FS 7.1 "Certain random events give one player or the other the ability to conduct two
    operations in that one phase" (11.3 1-1): the second UK op is accepted, a third refused."""
    st = uk()
    st["effects"][UK]["uk_operational_superiority"] = {}
    set_phase(st, "UK Operations")
    place(st, UK_DESTROYERS[0], "sa4")
    _, st = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7"))
    assert st["phase"] == "UK Operations"
    _, st = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa6"))
    assert st["phase"] == "AR Operations"
    broken(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7"), "FS 5.2")


# ============================================================================ Op #1 ===
def test_fs_7_1_op_1_airlifts_ground_units_not_aircraft():
    """Op #1 "The AR player may move up to two ground units from Argentina to Port Stanley
    airfield": an aircraft is no ground unit; an SF team is one."""
    st = ar()
    place(st, DAGGERS[0], S.ARGENTINA)
    place(st, "cdo_601", S.ARGENTINA)
    broken(st, AR, op(1, units=[DAGGERS[0]]), "FS 7.1 Op #1")
    out, _ = play(st, AR, op(1, units=["cdo_601"]))
    assert moved(out) == {"cdo_601": T.PORT_STANLEY}


def test_fs_7_1_op_1_into_a_contested_port_stanley_still_ar_controlled():
    """Op #1 to "Port Stanley airfield" with FS 6.3 "If an airbase area becomes contested, he may
    continue to use the base in that area until the instant the area goes over to UK control".
    (A contested Port Stanley the UK held last takes the airlift too: Op #1 sets no control
    condition; test_examiner_readings_round8.)"""
    st = ar()
    place(st, "ri_3", S.ARGENTINA)
    place(st, "ri_4", T.PORT_STANLEY)
    place(st, UK_INFANTRY[0], T.PORT_STANLEY)
    out, st2 = play(st, AR, op(1, units=["ri_3"]))
    assert moved(out) == {"ri_3": T.PORT_STANLEY} and S.where(st2, "ri_3") == T.PORT_STANLEY


# ============================================================================ Op #3 ===
def test_fs_7_1_op_3_from_one_land_area():
    """Op #3 "You may move any number of friendly aircraft from one land area": aircraft at two
    bases are two rebasings; all from one base are one."""
    st = ar()
    place(st, PUCARAS[0], "goose_green")
    place(st, PUCARAS[1], "pebble_island")
    broken(st, AR, op(3, aircraft=PUCARAS[:2], origin="goose_green", destination=T.PORT_STANLEY), "FS 7.1 Op #3")
    place(st, PUCARAS[1], "goose_green")
    out, _ = play(st, AR, op(3, aircraft=PUCARAS[:2], origin="goose_green", destination=T.PORT_STANLEY))
    assert moved(out) == {PUCARAS[0]: T.PORT_STANLEY, PUCARAS[1]: T.PORT_STANLEY}


def test_fs_7_1_op_3_to_a_land_area_that_can_base_aircraft():
    """Op #3 "to one other friendly (not contested) land area that can base those aircraft": a sea
    area is no land area; Pebble Island's airbase takes them."""
    st = ar()
    place(st, PUCARAS[0], S.ARGENTINA)
    broken(st, AR, op(3, aircraft=[PUCARAS[0]], origin=S.ARGENTINA, destination="sa7"), "FS 7.1 Op #3")
    out, _ = play(st, AR, op(3, aircraft=[PUCARAS[0]], origin=S.ARGENTINA, destination="pebble_island"))
    assert moved(out) == {PUCARAS[0]: "pebble_island"}


def test_fs_7_1_op_3_out_of_a_contested_base_to_the_mainland():
    """Op #3 "from one land area (friendly or contested) ... Rebasing may be done ... between those
    islands and the Argentine mainland": a contested base may be left, for Argentina."""
    st = ar()
    place(st, PUCARAS[0], "goose_green")
    place(st, UK_INFANTRY[0], "goose_green")
    out, _ = play(st, AR, op(3, aircraft=[PUCARAS[0]], origin="goose_green", destination=S.ARGENTINA))
    assert moved(out) == {PUCARAS[0]: S.ARGENTINA}
    broken(st, AR, op(3, aircraft=[PUCARAS[0]], origin="goose_green", destination="goose_green"), "FS 7.1 Op #3")


def test_fs_7_1_op_3_moves_aircraft_only():
    """Op #3 "You may move any number of friendly aircraft": a ground unit does not rebase."""
    st = ar()
    place(st, "ri_3", S.ARGENTINA)
    broken(st, AR, op(3, aircraft=["ri_3"], origin=S.ARGENTINA, destination=T.PORT_STANLEY), "FS 7.1 Op #3")


# ============================================================================ Op #5 ===
def test_fs_7_1_op_5_a_vessel_moved_to_the_box_by_an_earlier_operation_is_repaired():
    """Op #5 "A damaged vessel must be in the South Georgia Holding Box in order to be repaired, and
    its move there can't be part of this same operation": moved there by Op #20 first (two ops of
    event 1-1), then repaired by the next operation."""
    st = uk()
    st["effects"][UK]["uk_operational_superiority"] = {}
    set_phase(st, "UK Operations")
    st["ops_log"][UK] = [4]
    control(st, UK, S.SOUTH_GEORGIA)
    ship = UK_DESTROYERS[0]
    place(st, ship, "sa5", steps=1)
    broken(st, UK, op(5, unit=ship), "FS 7.1 Op #5")
    _, st = play(st, UK, op(20, units=[ship], destination=S.SOUTH_GEORGIA))
    out, st = play(st, UK, op(5, unit=ship))
    assert events_of(out, "UnitRepaired") == [{"unit": ship, "steps_left": 2, "rule": "FS 7.1 Op #5"}]


def test_fs_7_1_op_5_repairs_uk_vessels_only():
    """Op #5 "any one damaged UK surface ship or submarine": not an AR submarine in the box."""
    st = uk()
    st["ops_log"][UK] = [4]
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, AR_SUBS[0], S.SOUTH_GEORGIA, steps=1)
    broken(st, UK, op(5, unit=AR_SUBS[0]), "FS 7.1 Op #5")
    place(st, UK_SUBS[0], S.SOUTH_GEORGIA, steps=1)
    out, _ = play(st, UK, op(5, unit=UK_SUBS[0]))
    assert [e["unit"] for e in events_of(out, "UnitRepaired")] == [UK_SUBS[0]]


# ============================================================================ Op #7 ===
def test_fs_7_1_op_7_the_raider_is_a_uk_sf_unit():
    """Op #7 "The UK player indicates any one SF unit ...": not an infantry unit, not an
    eliminated SF; SAS D aboard Hermes raids."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, UK_INFANTRY[0], aboard="hermes")
    place(st, DAGGERS[0], T.PORT_STANLEY)
    broken(st, UK, op(7, sf=UK_INFANTRY[0], target=DAGGERS[0]), "FS 7.1 Op #7")
    st["units"]["sas_d"].update(location=None, aboard=None, eliminated=True)
    broken(st, UK, op(7, sf="sas_d", target=DAGGERS[0]), "FS 7.1 Op #7")
    place(st, "sas_d", aboard="hermes")
    out, _ = play(st, UK, op(7, sf="sas_d", target=DAGGERS[0]), FixedDice(1))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == [DAGGERS[0]]


def test_fs_7_1_op_7_eliminates_an_aircraft_not_another_unit():
    """Op #7 "he eliminates any one AR aircraft unit from any airfield on the Tactical Map": not an
    AR ground unit at that airfield."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, "sas_d", aboard="hermes")
    place(st, "ri_3", T.PORT_STANLEY)
    place(st, PUCARAS[0], T.PORT_STANLEY)
    broken(st, UK, op(7, sf="sas_d", target="ri_3"), "FS 7.1 Op #7")
    out, st2 = play(st, UK, op(7, sf="sas_d", target=PUCARAS[0]), FixedDice(5))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == [PUCARAS[0]]
    assert S.alive(st2, "sas_d") and S.alive(st2, "ri_3")


# ============================================================================ Op #8 ===
def test_fs_7_1_op_8_regroups_a_ground_unit_not_a_vessel():
    """Op #8 "remove the hit marker from any one stricken ground unit" (a damaged ship is Op #5's)."""
    st = uk()
    place(st, "canberra", "sa7", steps=1)
    broken(st, UK, op(8, unit="canberra"), "FS 7.1 Op #8")
    place(st, UK_INFANTRY[0], aboard="canberra", steps=1)
    out, _ = play(st, UK, op(8, unit=UK_INFANTRY[0]))
    assert [e["unit"] for e in events_of(out, "UnitRepaired")] == [UK_INFANTRY[0]]


# ============================================================================ Op #12 ===
def test_fs_7_1_op_12_switches_between_uk_naval_vessels_only():
    """Op #12 "switch around ground units from naval vessels to other naval vessels in the same sea
    area": not onto an AR ship there."""
    st = uk()
    place(st, "canberra", "falklands")
    place(st, "norland", "falklands")
    place(st, AR_DESTROYERS[0], "falklands")
    place(st, UK_SF[0], aboard="canberra")
    broken(st, UK, op(12, moves={UK_SF[0]: AR_DESTROYERS[0]}), "FS 7.1 Op #12")
    out, _ = play(st, UK, op(12, moves={UK_SF[0]: "norland"}))
    assert [(e["unit"], e["ship"]) for e in events_of(out, "UnitEmbarked")] == [(UK_SF[0], "norland")]


# ============================================================================ Op #14 ===
def test_fs_7_1_op_14_is_fought_in_a_sea_area():
    """Op #14 "attack enemy surface vessels ... that are co-located with them in any one sea area":
    not in a land area."""
    st = uk()
    place(st, UK_DESTROYERS[0], "sa6")
    place(st, AR_DESTROYERS[0], "sa6")
    broken(st, UK, op(14, area="san_carlos", units=[UK_DESTROYERS[0]],
                      fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]))), "FS 7.1 Op #14")
    out, _ = play(st, UK, op(14, area="sa6", units=[UK_DESTROYERS[0]],
                             fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]))), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["area"] == "sa6"


# ============================================================================ Op #16 ===
def test_fs_7_1_op_16_the_sea_area_of_the_landing_may_be_contested():
    """Op #16 "The sea area from which the landing is made may be contested": AR ships in the
    Falkland Islands Sea Area do not stop a UK landing."""
    st = uk()
    place(st, "canberra", "falklands")
    place(st, AR_DESTROYERS[0], "falklands")
    place(st, UK_INFANTRY[0], aboard="canberra")
    out, st2 = play(st, UK, op(16, units=[UK_INFANTRY[0]], area="san_carlos"))
    assert [(e["unit"], e["area"]) for e in events_of(out, "UnitDisembarked")] == [(UK_INFANTRY[0], "san_carlos")]
    assert "BattleBegun" not in names(out)


def test_fs_7_1_op_16_lands_only_your_own_units():
    """Op #16 "disembark ... the friendly ground units being transported by your ships"."""
    st = uk()
    place(st, T.AR_ASSAULT_SHIP, "falklands")
    place(st, "ri_3", aboard=T.AR_ASSAULT_SHIP)
    broken(st, UK, op(16, units=["ri_3"], area="san_carlos"), "FS 7.1 Op #16")


# ============================================================================ Op #18/#19 ===
def test_fs_7_1_op_18_attacks_in_a_sea_area_op_19_in_a_land_area():
    """Op #18 "to any one in-range sea area and attack the enemy surface vessels there"; Op #19 "to
    any one in-range land area and attack the enemy ground units there"."""
    st = ar()
    place(st, PUCARAS[0], T.PORT_STANLEY)
    place(st, UK_DESTROYERS[0], "falklands")
    place(st, UK_INFANTRY[0], "san_carlos")
    control(st, UK, "san_carlos")
    broken(st, AR, op(18, area="san_carlos", aircraft=[PUCARAS[0]], fire=fire((PUCARAS[0], UK_INFANTRY[0]))),
           "FS 7.1 Op #18")
    broken(st, AR, op(19, area="falklands", aircraft=[PUCARAS[0]], fire=fire((PUCARAS[0], UK_DESTROYERS[0]))),
           "FS 7.1 Op #19")
    out, _ = play(st, AR, op(19, area="san_carlos", aircraft=[PUCARAS[0]], fire=fire((PUCARAS[0], UK_INFANTRY[0]))),
                  FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["area"] == "san_carlos"


def test_fs_7_1_op_18_a_carrier_out_of_range_of_the_sea_area_stays_out():
    """Op #18 "If you have one or more carriers in range of that same sea area, they may be
    committed": Hermes in Sea Area 4 is not in range of Sea Area 6 (FS 9.3); in Sea Area 7 it is."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, AR_DESTROYERS[0], "sa6")
    broken(st, UK, op(18, area="sa6", carriers=["hermes"], fire=fire(("hermes", AR_DESTROYERS[0]))), "FS 9.3")
    place(st, "hermes", "sa7")
    out, _ = play(st, UK, op(18, area="sa6", carriers=["hermes"], fire=fire(("hermes", AR_DESTROYERS[0]))),
                  FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"]


# ============================================================================ Op #21 ===
def test_fs_7_1_op_21_bombards_with_surface_ships_not_submarines():
    """Op #21 "You may use a force of friendly surface ships already within the Falkland Islands
    Sea Area": a submarine there does not bombard."""
    st = uk()
    place(st, UK_SUBS[0], "falklands")
    place(st, UK_DESTROYERS[0], "falklands")
    place(st, "ri_3", "san_carlos")
    broken(st, UK, op(21, units=[UK_SUBS[0]], area="san_carlos", fire=fire((UK_SUBS[0], "ri_3"))), "FS 7.1 Op #21")
    out, _ = play(st, UK, op(21, units=[UK_DESTROYERS[0]], area="san_carlos", fire=fire((UK_DESTROYERS[0], "ri_3"))),
                  FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["kind"] == "bombard"


def test_fs_7_1_op_21_into_a_land_area_of_the_tactical_map():
    """Op #21 "attack enemy ground units and/or land-based aircraft in any land area on the Tactical
    Map": not AR ships in a sea area (that is Op #14), not the mainland."""
    st = uk()
    place(st, UK_DESTROYERS[0], "falklands")
    place(st, AR_DESTROYERS[0], "falklands")
    broken(st, UK, op(21, units=[UK_DESTROYERS[0]], area="falklands",
                      fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]))), "FS 7.1 Op #21")
    place(st, DAGGERS[0], S.ARGENTINA)
    # the mainland: "no UK movement or combat may ever take place in that area" (FS 9.7 names it)
    broken(st, UK, op(21, units=[UK_DESTROYERS[0]], area=S.ARGENTINA,
                      fire=fire((UK_DESTROYERS[0], DAGGERS[0]))), "FS 9.7")
    place(st, DAGGERS[0], T.PORT_STANLEY)
    out, _ = play(st, UK, op(21, units=[UK_DESTROYERS[0]], area=T.PORT_STANLEY,
                             fire=fire((UK_DESTROYERS[0], DAGGERS[0]))), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["defenders"] == [DAGGERS[0]]


# ============================================================================ Op #23 ===
def test_fs_7_1_op_23_loads_from_a_land_area_not_from_another_ship():
    """Op #23 "You may load ground units from a land area onto naval vessels" (ship to ship is
    Op #12's cross-decking)."""
    st = uk()
    place(st, "canberra", "falklands")
    place(st, "norland", "falklands")
    place(st, UK_INFANTRY[0], aboard="canberra")
    broken(st, UK, op(23, loads={UK_INFANTRY[0]: "norland"}), "FS 7.1 Op #23")
    place(st, UK_INFANTRY[0], "san_carlos")
    control(st, UK, "san_carlos")
    out, _ = play(st, UK, op(23, loads={UK_INFANTRY[0]: "norland"}))
    assert [(e["unit"], e["ship"]) for e in events_of(out, "UnitEmbarked")] == [(UK_INFANTRY[0], "norland")]


def test_fs_7_1_op_23_onto_your_own_vessels():
    """Op #23 "load ground units ... onto naval vessels" of one's own side (FS 6.5 "in 'A' or 'T'
    transport ships of their own side")."""
    st = ar()
    place(st, "canberra", "falklands")
    place(st, "ri_4", "san_carlos")
    broken(st, AR, op(23, loads={"ri_4": "canberra"}), "FS 7.1 Op #23")
    place(st, T.AR_ASSAULT_SHIP, "falklands")
    out, _ = play(st, AR, op(23, loads={"ri_4": T.AR_ASSAULT_SHIP}))
    assert [(e["unit"], e["ship"]) for e in events_of(out, "UnitEmbarked")] == [("ri_4", T.AR_ASSAULT_SHIP)]


# ============================================================================ Op #24 ===
def test_fs_7_1_op_24_a_force_from_one_land_area():
    """Op #24 "You may move a force of ground units from any a land area in the Falkland Islands to
    any adjoining land area": units in two areas are not one force; units aboard ship are not in
    a land area."""
    st = ar()
    place(st, "ri_3", "mount_kent")
    place(st, "ri_4", "teal_inlet")
    broken(st, AR, op(24, units=["ri_3", "ri_4"], origin="mount_kent", destination="fitzroy"), "FS 7.1 Op #24")
    place(st, T.AR_ASSAULT_SHIP, "falklands")
    place(st, "ri_5", aboard=T.AR_ASSAULT_SHIP)
    broken(st, AR, op(24, units=["ri_5"], origin="mount_kent", destination="fitzroy"), "FS 7.1 Op #24")
    place(st, "ri_4", "mount_kent")
    out, _ = play(st, AR, op(24, units=["ri_3", "ri_4"], origin="mount_kent", destination="fitzroy"))
    assert moved(out) == {"ri_3": "fitzroy", "ri_4": "fitzroy"}


def test_fs_7_1_op_24_from_land_area_to_land_area_in_the_falklands():
    """Op #24 "from any a land area in the Falkland Islands to any adjoining land area in the
    Falklands": never to the mainland or into a sea area."""
    st = ar()
    place(st, "ri_3", "port_stanley")
    broken(st, AR, op(24, units=["ri_3"], origin="port_stanley", destination=S.ARGENTINA), "FS 7.1 Op #24")
    broken(st, AR, op(24, units=["ri_3"], origin="port_stanley", destination="falklands"), "FS 7.1 Op #24")
    out, _ = play(st, AR, op(24, units=["ri_3"], origin="port_stanley", destination="mount_kent"))
    assert moved(out) == {"ri_3": "mount_kent"}


# ============================================================================ Op #25 ===
def test_fs_7_1_op_25_no_naval_or_air_support():
    """Op #25 "All other units are ignored, no naval or air support is available": an order that
    commits aircraft or a carrier to the SF fight is refused; the SF fight alone is accepted."""
    st = ar()
    place(st, "cdo_602", "mount_kent")
    place(st, UK_SF[0], "mount_kent")
    place(st, PUCARAS[0], T.PORT_STANLEY)
    place(st, "25_de_mayo", "falklands")
    shots = fire(("cdo_602", UK_SF[0]))
    broken(st, AR, op(25, area="mount_kent", aircraft=[PUCARAS[0]], fire=shots), "FS 7.1 Op #25")
    broken(st, AR, op(25, area="mount_kent", carriers=["25_de_mayo"], fire=shots), "FS 7.1 Op #25")
    out, _ = play(st, AR, op(25, area="mount_kent", fire=shots), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["cdo_602"]


# ============================================================================ Op #6 ===
def test_fs_7_1_op_6_not_twice_in_a_row_within_one_phase_of_two_operations():
    """Op #6 "nor may it ever be chosen twice in a row": with event 1-1's two operations in one
    phase, Op #6 may not follow Op #6; another operation may."""
    st = uk()
    st["ops_log"][UK] = [20, 20]
    st["effects"][UK]["uk_operational_superiority"] = {}
    set_phase(st, "UK Operations")
    _, st = play(st, UK, op(6))
    assert st["phase"] == "UK Operations" and st["groups_entered"] == ["R1"]
    err = broken(st, UK, op(6), "FS 7.1 Op #6")
    assert "twice in a row" in err.detail
    place(st, UK_DESTROYERS[0], "sa4")
    out, st2 = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7"))
    assert moved(out) == {UK_DESTROYERS[0]: "sa7"} and st2["phase"] == "AR Operations"


# ============================================================================ Op #11 ===
def test_fs_7_1_op_11_does_not_answer_an_ar_ground_attack_with_aircraft():
    """Op #11 "provided only that the AR action currently underway is 3, 17, 18, 19 or 20": the
    aircraft an AR Op #15 commits (FS 7.1 Op #15 "any in-range planes") are not intercepted; the
    same Dagger in an Op #19 is."""
    st = ar()
    place(st, "hermes", "falklands")
    place(st, DAGGERS[0], T.PORT_STANLEY)
    place(st, "ri_12", "goose_green")
    place(st, UK_INFANTRY[0], "goose_green")
    out, st2 = play(st, AR, op(15, area="goose_green", units=["ri_12"], aircraft=[DAGGERS[0]],
                               fire=fire(("ri_12", UK_INFANTRY[0]), (DAGGERS[0], UK_INFANTRY[0]))),
                    FixedDice(default=6))
    assert st2["pending"][0]["kind"] != "interception"
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ri_12", DAGGERS[0]]
    _, st3 = play(st, AR, op(19, area="goose_green", aircraft=[DAGGERS[0]], fire=fire((DAGGERS[0], UK_INFANTRY[0]))),
                  FixedDice(default=6))
    assert st3["pending"][0]["kind"] == "interception" and st3["pending"][0]["rule"] == "FS 7.1 Op #11"


# ============================================================================ Op #20 ===
def test_fs_7_1_op_20_attacks_only_enemy_vessels_in_the_final_sea_area():
    """Op #20 "If enemy surface vessels or submarines are in the final sea area into which you're
    moving your force, they may be attacked": no attack where there are none."""
    st = uk()
    place(st, UK_DESTROYERS[0], "sa4")
    place(st, AR_DESTROYERS[0], "sa6")
    broken(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7", attack=True,
                      fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]))), "FS 7.1 Op #20")
    place(st, AR_DESTROYERS[0], "sa7")
    out, _ = play(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa7", attack=True,
                             fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]))), FixedDice(default=6))
    assert moved(out) == {UK_DESTROYERS[0]: "sa7"} and events_of(out, "BattleBegun")[0]["area"] == "sa7"


def test_fs_7_1_op_20_carriers_join_from_adjacent_sea_areas_only():
    """Op #20 "and/or carriers in adjacent sea areas, may also be involved in the attack": Hermes in
    Sea Area 1 does not reach Sea Area 7; from Sea Area 6, next to it, it does."""
    st = uk()
    place(st, UK_DESTROYERS[0], "sa4")
    place(st, AR_DESTROYERS[0], "sa7")
    place(st, "hermes", "sa1")
    order = op(20, units=[UK_DESTROYERS[0]], destination="sa7", attack=True, carriers=["hermes"],
               fire=fire((UK_DESTROYERS[0], AR_DESTROYERS[0]), ("hermes", AR_DESTROYERS[0])))
    broken(st, UK, order, "FS 9.3")
    place(st, "hermes", "sa6")
    out, _ = play(st, UK, order, FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == [UK_DESTROYERS[0], "hermes"]


# ====================================================================== the whole force ===
def test_fs_7_1_op_14_with_surface_vessels_and_submarines_not_aircraft():
    """Op #14 "You may use your surface vessels and/or submarines to attack enemy surface vessels":
    an AR aircraft or the AR carrier's strike committed besides is refused (that is Op #18/#20)."""
    st = ar()
    place(st, AR_DESTROYERS[0], "falklands")
    place(st, "25_de_mayo", "sa6")
    place(st, PUCARAS[0], T.PORT_STANLEY)
    shots = fire((AR_DESTROYERS[0], UK_DESTROYERS[-1]))
    place(st, UK_DESTROYERS[-1], "falklands")
    broken(st, AR, op(14, area="falklands", units=[AR_DESTROYERS[0]], aircraft=[PUCARAS[0]], fire=shots),
           "FS 7.1 Op #14")
    broken(st, AR, op(14, area="falklands", units=[AR_DESTROYERS[0]], carriers=["25_de_mayo"], fire=shots),
           "FS 7.1 Op #14")
    out, _ = play(st, AR, op(14, area="falklands", units=[AR_DESTROYERS[0]], fire=shots), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == [AR_DESTROYERS[0]]


def test_fs_7_1_op_21_with_surface_ships_not_aircraft():
    """Op #21 "You may use a force of friendly surface ships ... There's no return fire": no AR
    aircraft join the bombardment."""
    st = ar()
    place(st, AR_DESTROYERS[0], "falklands")
    place(st, PUCARAS[0], T.PORT_STANLEY)
    place(st, UK_INFANTRY[0], "san_carlos")
    control(st, UK, "san_carlos")
    broken(st, AR, op(21, units=[AR_DESTROYERS[0]], area="san_carlos", aircraft=[PUCARAS[0]],
                      fire=fire((AR_DESTROYERS[0], UK_INFANTRY[0]), (PUCARAS[0], UK_INFANTRY[0]))), "FS 7.1 Op #21")
    out, _ = play(st, AR, op(21, units=[AR_DESTROYERS[0]], area="san_carlos",
                             fire=fire((AR_DESTROYERS[0], UK_INFANTRY[0]))), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == [AR_DESTROYERS[0]]


def test_fs_7_1_op_24_ground_units_only():
    """Op #24 "You may move a force of ground units ... Other friendly ground units already in the
    land area being moved into may also be involved in the attack": aircraft join a ground attack
    in Op #15 ("along with any in-range planes"), not here."""
    st = ar()
    place(st, "ri_12", "goose_green")
    place(st, UK_INFANTRY[0], "goose_green")
    place(st, PUCARAS[0], T.PORT_STANLEY)
    broken(st, AR, op(24, units=["ri_12"], origin="goose_green", destination="goose_green", attack=True,
                      aircraft=[PUCARAS[0]], fire=fire(("ri_12", UK_INFANTRY[0]), (PUCARAS[0], UK_INFANTRY[0]))),
           "FS 7.1 Op #24")
    out, _ = play(st, AR, op(24, units=["ri_12"], origin="goose_green", destination="goose_green", attack=True,
                             fire=fire(("ri_12", UK_INFANTRY[0]))), FixedDice(default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ri_12"]
