"""Falklands Showdown: a second examiner's scenarios, written from the rules text alone, for the
operations of FS 7.1 clause by clause and sections 1-3, 5, 6 and 8, where the other modules leave a
consequence unchecked; and whether the orders legal-orders offers are the ones the rules accept.
Each test is named after the rule it reads; positions are small and synthetic (helpers.py)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S

from .helpers import (
    AR, DAGGERS, PUCARAS, R, UK, FixedDice, ar, control, events_of, names, op, pending, place, play,
    refused, set_phase, uk,
)


# ------------------------------------------------------------------ FS 7.1 Op #3, Op #9 ---
def test_fs_7_1_op_3_not_offered_when_no_aircraft_may_rebase_after_black_buck():
    # Op #9: "once chosen, the only AR aircraft that may thereafter base anywhere in the Falklands
    # are Pucaras". Daggers in Argentina have nowhere to rebase to: Op #3 is refused, so not offered.
    st = ar()
    st["effects"][UK]["black_buck"] = {}
    for u in DAGGERS:
        place(st, u, S.ARGENTINA)
    for base in ("port_stanley", "goose_green", "pebble_island"):
        assert refused(st, AR, op(3, aircraft=DAGGERS[:1], origin=S.ARGENTINA, destination=base)).rule \
            == "FS 7.1 Op #9"
    assert R.operation_template(st, AR, 3) is None
    # A Pucara may still fly in: then Op #3 is offered, and the order it offers is accepted.
    place(st, PUCARAS[0], S.ARGENTINA)
    offer = R.operation_template(st, AR, 3)
    assert offer is not None and "port_stanley" in offer["choices"]["destinations"]
    out, st2 = play(st, AR, op(3, aircraft=[PUCARAS[0]], origin=S.ARGENTINA, destination="port_stanley"))
    assert S.where(st2, PUCARAS[0]) == "port_stanley"


def test_fs_6_2_3_op_3_not_offered_when_every_falklands_base_is_full():
    # FS 6.2(3)(4): Port Stanley bases three aircraft, Goose Green and Pebble Island two each.
    st = ar()
    for base, planes in (("port_stanley", ["a4_1", "a4_2", "a4_3"]), ("goose_green", PUCARAS[:2]),
                         ("pebble_island", [PUCARAS[2], DAGGERS[0]])):
        control(st, AR, base)
        for u in planes:
            place(st, u, base)
    place(st, DAGGERS[1], S.ARGENTINA)
    assert refused(st, AR, op(3, aircraft=[DAGGERS[1]], origin=S.ARGENTINA, destination="goose_green")).rule \
        == "FS 6.2(4)"
    offer = R.operation_template(st, AR, 3)
    # Still offered (the based aircraft may go home), but not from Argentina to a full base.
    assert offer is not None and S.ARGENTINA not in offer["choices"]["aircraft"]
    out, st2 = play(st, AR, op(3, aircraft=["a4_1"], origin="port_stanley", destination=S.ARGENTINA))
    assert S.where(st2, "a4_1") == S.ARGENTINA


# ------------------------------------------------------------------- FS 9.3 with FS 3.7 ---
def test_fs_9_3_and_3_7_no_carrier_strike_into_the_south_georgia_box():
    # FS 9.3: a carrier strikes "into a sea area adjacent" to its own; FS 3.7: the box "is neither a
    # sea nor a land area", and no AR unit but a submarine goes into it.
    st = ar()
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, "25_de_mayo", "sa5")
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    err = refused(st, AR, op(18, area=S.SOUTH_GEORGIA, carriers=["25_de_mayo"], fire="auto"))
    assert err.rule == "FS 9.3"
    offer = R.operation_template(st, AR, 18)
    assert offer is None or S.SOUTH_GEORGIA not in offer["choices"]["area"]


def test_fs_9_3_and_3_7_no_carrier_strike_out_of_the_south_georgia_box():
    st = uk()
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, "hermes", S.SOUTH_GEORGIA)
    place(st, "drummond", "sa5")
    assert refused(st, UK, op(18, area="sa5", carriers=["hermes"], fire="auto")).rule == "FS 9.3"
    offer = R.operation_template(st, UK, 18)
    assert offer is None or "sa5" not in offer["choices"]["area"]


def test_fs_7_1_op_11_a_carrier_in_the_south_georgia_box_intercepts_nothing():
    # Op #11: "into or adjacent to one or more sea areas containing UK aircraft carriers": the box
    # is no sea area (FS 3.7); a flight into Sea Area 5 passes no carrier.
    st = ar()
    control(st, UK, S.SOUTH_GEORGIA)
    place(st, "hermes", S.SOUTH_GEORGIA)
    place(st, "glamorgan", "sa5")
    place(st, DAGGERS[0], "port_stanley")  # FS 9.5: unlimited range from the Falklands
    out, st2 = play(st, AR, op(18, area="sa5", aircraft=[DAGGERS[0]], fire="auto"))
    assert pending(st2) is None or pending(st2)["kind"] != "interception"


# ----------------------------------------------------------------------- FS 7.1 Op #16 ---
def test_fs_7_1_op_16_ar_lands_an_sf_team_from_a_destroyer_into_an_empty_area():
    # Op #16 is "(Both)", and FS 6.2(1) lets every surface ship carry one SF unit.
    st = ar()
    control(st, UK, "pebble_island")
    place(st, "drummond", "falklands")
    place(st, "cdo_601", aboard="drummond")
    out, st2 = play(st, AR, op(16, units=["cdo_601"], area="pebble_island"))
    assert S.where(st2, "cdo_601") == "pebble_island" and st2["control"]["pebble_island"] == AR
    assert any(e["delta"] == 1 for e in events_of(out, "VPScored"))  # FS 4.4(5): recaptured, +1


# ------------------------------------------------------------------------------- FS 8.1 ---
def test_fs_8_1_submarines_enter_the_south_georgia_box_in_their_phase():
    # FS 9.1: the box is "allowed for all UK vessels but only AR submarines"; FS 3.7 likewise.
    st = uk("UK Submarine")
    place(st, "spartan", "sa5")
    out, st2 = play(st, UK, {"kind": "submarines", "moves": {"spartan": S.SOUTH_GEORGIA}})
    assert S.where(st2, "spartan") == S.SOUTH_GEORGIA and st2["control"][S.SOUTH_GEORGIA] == AR
    st = ar("AR Submarine")
    place(st, "salta", "sa5")
    out, st2 = play(st, AR, {"kind": "submarines", "moves": {"salta": S.SOUTH_GEORGIA}}, FixedDice(1, 1))
    assert S.where(st2, "salta") == S.SOUTH_GEORGIA
    assert "BattleBegun" not in names(out)  # FS 8.2: no attacks in these phases


# ------------------------------------------------------------- FS 11.3 1-6 with Op #20/#24 ---
def test_fs_11_3_1_6_op_20_and_op_24_offered_only_as_attacks_in_place():
    # "may not conduct any air, sea or land movement ... Battles may be fought in areas already
    # contested": with nothing contested, every Op #20 or #24 order is refused, so neither is offered.
    st = uk()
    st["effects"][UK]["poor_uk_staff_work"] = {}
    place(st, "glamorgan", "sa4")
    control(st, UK, "san_carlos")
    place(st, "2_para", "san_carlos")
    assert refused(st, UK, op(20, units=["glamorgan"], destination="sa7")).rule == "FS 11.3 1-6"
    assert refused(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="teal_inlet")).rule \
        == "FS 11.3 1-6"
    assert R.operation_template(st, UK, 20) is None and R.operation_template(st, UK, 24) is None
    # Contested areas: offered there, in place, and the offered order is accepted.
    place(st, "drummond", "sa4")
    place(st, "ri_12", "san_carlos")
    c = R.operation_template(st, UK, 20)["choices"]
    assert (c["units"], c["destination"]) == ({"sa4": ["glamorgan"]}, ["sa4"])
    assert R.operation_template(st, UK, 24)["choices"]["origin"] == {
        "san_carlos": {"units": ["2_para"], "destination": ["san_carlos"]}}
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination="sa4", attack=True), FixedDice(default=6))
    assert "BattleBegun" in names(out)


# ----------------------------------------------------------------- FS 7.1 Op #23, 6.2(1) ---
def test_fs_6_2_1_op_23_the_sbs_loads_onto_onyx_and_is_offered_to():
    # FS 6.2(1): "The UK submarine Onyx may transport the SBS special forces unit"; Op #23 loads
    # "onto naval vessels in the Falkland Islands Sea Area".
    st = uk()
    control(st, UK, "san_carlos")
    place(st, "sbs", "san_carlos")
    place(st, "2_para", "san_carlos")
    place(st, "onyx", "falklands")
    st = clear_ships(st)
    offer = R.operation_template(st, UK, 23)
    assert offer is not None and offer["choices"]["units"] == ["sbs"]
    out, st2 = play(st, UK, op(23, loads={"sbs": "onyx"}))
    assert st2["units"]["sbs"]["aboard"] == "onyx"
    assert refused(st, UK, op(23, loads={"2_para": "onyx"})).rule == "FS 6.2(1)"


def clear_ships(st):
    """No UK surface ship in the Falkland Islands Sea Area (uk() puts a destroyer in the TEZ)."""
    for u in S.units_in(st, "falklands", side=UK, classes=["ship"]):
        place(st, u, "sa7")
    return st


# ------------------------------------------------------------ FS 7.1 Op #20, #15, 9.4 ---
def test_fs_7_1_op_20_the_form_offers_aircraft_and_carriers_to_join_the_attack():
    # Op #20: "in-range land-based aircraft, and/or carriers in adjacent sea areas, may also be
    # involved in the attack": the rules accept them, so the form offers them.
    st = ar()
    place(st, "drummond", S.ARGENTINA)
    place(st, "glamorgan", "sa6")
    place(st, "25_de_mayo", "sa2")  # next to Sea Area 6 (FS 9.3)
    place(st, DAGGERS[0], S.ARGENTINA)  # FS 9.4: out to the range line
    order = op(20, units=["drummond"], destination="sa6", attack=True, aircraft=[DAGGERS[0]],
               carriers=["25_de_mayo"], fire="auto")
    out, st2 = play(st, AR, order, FixedDice(default=6))
    assert "BattleBegun" in names(out)
    fields = R.operation_template(st, AR, 20)["fields"]
    assert DAGGERS[0] in fields["aircraft"]["choices"] and fields["carriers"]["choices"] == ["25_de_mayo"]
    st = uk()
    place(st, "hermes", "sa7")
    assert "hermes" in R.operation_template(st, UK, 20)["fields"]["carriers"]["choices"]


def test_fs_9_4_refuelling_is_offered_for_argentina_based_a4s_only():
    # FS 9.4: "up to four Argentina-based A-4 units may be designated as using aerial refuelling";
    # an A-4 based in the Falklands is refused as one (and needs no refuelling, FS 9.5).
    st = ar()
    control(st, UK, "san_carlos")
    place(st, "2_para", "san_carlos")
    place(st, "a4_1", "port_stanley")
    place(st, "a4_2", S.ARGENTINA)
    assert refused(st, AR, op(19, area="san_carlos", aircraft=["a4_1"], refuel=["a4_1"])).rule == "FS 9.4"
    assert R.operation_template(st, AR, 19)["fields"]["refuel"]["choices"] == ["a4_2"]
    # Op #15 takes in-range planes too: the refuelled A-4 is offered there as well, and accepted.
    place(st, "ri_12", "san_carlos")
    control(st, AR, "san_carlos")
    fields = R.operation_template(st, AR, 15)["fields"]
    assert fields["refuel"]["choices"] == ["a4_2"] and "a4_2" in fields["aircraft"]["choices"]
    out, st2 = play(st, AR, op(15, area="san_carlos", units=["ri_12"], aircraft=["a4_2"], refuel=["a4_2"],
                               fire="auto"), FixedDice(default=6))
    assert "BattleBegun" in names(out) or pending(st2) is not None


def test_fs_6_5_op_23_not_offered_when_no_vessel_there_may_take_the_unit():
    # FS 6.5: "Ground units may generally only go to sea in 'A' or 'T' transport ships of their own
    # side" (an SF team on any surface ship, 6.2(1)); Op #23: "Load limits must be observed".
    st = ar()
    place(st, "ri_12", S.ARGENTINA)
    place(st, "drummond", S.ARGENTINA)
    assert refused(st, AR, op(23, loads={"ri_12": "drummond"})).rule == "FS 6.5"
    assert R.operation_template(st, AR, 23) is None
    place(st, "cabo_san_antonio", S.ARGENTINA)
    assert R.operation_template(st, AR, 23)["choices"]["units"] == ["ri_12"]
    out, st2 = play(st, AR, op(23, loads={"ri_12": "cabo_san_antonio"}))
    assert st2["units"]["ri_12"]["aboard"] == "cabo_san_antonio"
    # A full Cabo San Antonio (two units, FS 6.2(2)) takes no third.
    place(st, "ri_25", aboard="cabo_san_antonio")
    place(st, "bim_5", aboard="cabo_san_antonio")
    assert refused(st, AR, op(23, loads={"ri_12": "cabo_san_antonio"})).rule == "FS 6.2(2)"
    assert R.operation_template(st, AR, 23) is None


# ------------------------------------------------------------------ FS 7.1 Op #1, Op #2 ---
def test_fs_7_1_op_1_not_to_a_uk_held_port_stanley_and_not_offered():
    st = ar()
    place(st, "ri_12", S.ARGENTINA)
    control(st, UK, "port_stanley")
    assert refused(st, AR, op(1, units=["ri_12"])).rule == "FS 7.1 Op #1"
    assert R.operation_template(st, AR, 1) is None


def test_fs_7_1_op_2_a_mobilized_unit_may_be_airlifted_by_a_later_op_1():
    # Op #2: "placed in Argentina when activated, from where it may be potentially transported to
    # the Falklands during other operations".
    st = ar()
    out, st = play(st, AR, op(2, unit="sf_anf"))
    set_phase(st, "AR Operations")
    assert "sf_anf" in R.operation_template(st, AR, 1)["choices"]["units"]
    out, st = play(st, AR, op(1, units=["sf_anf"]))
    assert S.where(st, "sf_anf") == "port_stanley"


# ------------------------------------------------------------------------------- FS 7.1 ---
def test_fs_7_1_the_same_operation_may_be_picked_in_a_row():
    # "it's possible for both players to pick the same action any number of times throughout the
    # game and/or in a row" (unless the operation says otherwise, as Op #6 does).
    st = uk()
    place(st, "canberra", "sa7")
    place(st, "norland", "sa7")
    place(st, "40_cdo", aboard="canberra")
    out, st = play(st, UK, op(12, moves={"40_cdo": "norland"}))
    set_phase(st, "UK Operations")
    out, st = play(st, UK, op(12, moves={"40_cdo": "canberra"}))
    assert st["units"]["40_cdo"]["aboard"] == "canberra" and st["ops_log"][UK][-2:] == [12, 12]


# ----------------------------------------------------------------- FS 7.1 Op #24, 10.8 ---
def test_fs_7_1_op_24_no_attack_in_place_offered_against_sf_alone():
    # Op #24 attacks "the enemy ground units"; FS 10.8: "SF units may only be eliminated via SF vs.
    # SF combat in Op #25, or via OP #7, or via random event 2-4". Pebble Island adjoins no land area.
    st = ar()
    control(st, AR, "pebble_island")
    place(st, "ri_5", "pebble_island")
    place(st, "sas_d", "pebble_island")
    assert refused(st, AR, op(24, units=["ri_5"], origin="pebble_island", destination="pebble_island",
                              attack=True)).rule == "FS 7.1 Op #24"
    assert R.operation_template(st, AR, 24) is None
    place(st, "2_para", "pebble_island")
    assert R.operation_template(st, AR, 24)["choices"]["origin"]["pebble_island"]["destination"] == ["pebble_island"]


def test_fs_7_1_op_20_a_carrier_already_in_the_final_area_fights_once_as_a_ship_there():
    # Op #20: "other friendly vessels already in that final sea area may also be involved ...
    # carriers in adjacent sea areas": Hermes in the area is one of the ships there, and fires its
    # three shots (FS 10.9) once, whether or not the order also names it as a carrier.
    st = uk()
    place(st, "hermes", "sa7")
    place(st, "drummond", "sa7")
    for order in (op(20, destination="sa7", attack=True, fire="auto"),
                  op(20, destination="sa7", attack=True, carriers=["hermes"], fire="auto")):
        out, st2 = play(st, UK, order, FixedDice(default=6))
        assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"]


def test_fs_7_1_op_20_a_vessel_is_either_moved_or_already_there_not_both():
    st = uk()
    place(st, "glamorgan", "sa7")
    place(st, "drummond", "sa7")
    err = refused(st, UK, op(20, units=["glamorgan"], destination="sa7", attack=True, support=["glamorgan"]))
    assert err.rule == "FS 7.1 Op #20" and "support" in err.detail


def test_fs_7_1_op_22_a_unit_is_either_helicoptered_in_or_already_there_not_both():
    # Op #22: helicoptered units attack "alone or in conjunction with other friendly ground units
    # already present"; only the helicoptered ones fight at minus one.
    st = uk()
    control(st, UK, "san_carlos")
    control(st, AR, "teal_inlet")
    place(st, "2_para", "san_carlos")
    place(st, "3_para", "teal_inlet")
    place(st, "ri_12", "teal_inlet")
    err = refused(st, UK, op(22, units=["2_para"], origin="san_carlos", destination="teal_inlet", attack=True,
                             support=["2_para"]))
    assert err.rule == "FS 7.1 Op #22" and "support" in err.detail
