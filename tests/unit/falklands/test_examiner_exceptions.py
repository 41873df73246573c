"""Falklands Showdown, examiner-style: the exceptions and qualifiers of chapters 3-10 ("except",
"unless", "only", "however", "also", "either side", "any kind" ...). Each test takes the case the
qualifier itself decides - the exception, not the main rule the other test files already prove -
and quotes the sentence it comes from."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, DAGGERS, PUCARAS, TEZ, UK, FixedDice, answer, broken, control, empty, events_of, fire, names, op, pending, place,
    play, rolls_of, set_phase, with_factor,
)

FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"]
            and not DATA.areas[a]["vp"] and not DATA.areas[a]["airbase"])
MOUNTAINS = next(a for a in DATA.land_areas if DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])


def vp_events(out) -> list[tuple]:
    return [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")]


# ==================================================================== FS 3.7 / 6.4 / 9.1 ===
def test_fs_3_7_an_ar_submarine_may_leave_the_box_the_exception_works_both_ways():
    """FS 3.7 "no AR units may be moved into or out of that box except submarines": out of it too,
    in an operation (Op #20) and in the AR Submarine Phase (FS 8.1)."""
    st = empty("AR Operations")
    place(st, "santa_fe", S.SOUTH_GEORGIA)
    out, st2 = play(st, AR, op(20, units=["santa_fe"], destination="sa5"))
    assert [(e["unit"], e["origin"], e["destination"]) for e in events_of(out, "UnitMoved")] == \
        [("santa_fe", S.SOUTH_GEORGIA, "sa5")]
    st = empty("AR Submarine")
    place(st, "santa_fe", S.SOUTH_GEORGIA)
    out, st2 = play(st, AR, {"kind": "submarines", "moves": {"santa_fe": "sa7"}}, FixedDice(1, 1))  # then 11.2's roll
    assert S.where(st2, "santa_fe") == "sa7"


def test_fs_9_1_uk_vessels_may_enter_the_box_while_it_is_still_ar_controlled():
    """FS 9.1 "For vessels traveling to/from the South Georgia Holding box - which is allowed for all
    UK vessels but only AR submarines": a UK surface ship goes there before Op #4 as well."""
    st = empty()
    place(st, "glamorgan", "sa5")
    place(st, "yarmouth", TEZ[0])  # FS 4.4(1) stays quiet
    assert st["control"][S.SOUTH_GEORGIA] == AR
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination=S.SOUTH_GEORGIA))
    assert S.where(st2, "glamorgan") == S.SOUTH_GEORGIA
    assert st2["control"][S.SOUTH_GEORGIA] == AR  # only Op #4 takes it (FS 7.1 Op #4)


# =========================================================================== FS 4.4(1) ===
def test_fs_4_4_1_a_uk_ship_in_the_south_georgia_box_is_outside_the_tez():
    """FS 4.4(1) "there are no UK surface ships in any of the three sea areas within the Total
    Exclusion Zone" (FS 2.2: Sea Areas 6, 7 and the Falkland Islands Sea Area): a ship in the box
    keeps no UK surface ship in the TEZ, and the AR scores."""
    st = empty()
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    out, _ = play(st, UK, {"kind": "pass"})
    assert vp_events(out) == [(1, "FS 4.4(1)")]


# =========================================================================== FS 6.2(1) ===
def test_fs_6_2_1_an_ar_surface_ship_also_carries_one_sf_unit():
    """FS 6.2(1) "Every surface ship has the ability to transport one friendly SF unit": an AR
    destroyer in port takes an AR commando aboard (Op #23), but not an infantry unit (FS 6.5)."""
    st = empty("AR Operations")
    place(st, "drummond", S.ARGENTINA)
    place(st, "cdo_601", S.ARGENTINA)
    place(st, "ri_3", S.ARGENTINA)
    out, st2 = play(st, AR, op(23, loads={"cdo_601": "drummond"}))
    assert st2["units"]["cdo_601"]["aboard"] == "drummond"
    broken(st, AR, op(23, loads={"ri_3": "drummond"}), "FS 6.5")


def test_fs_6_2_1_no_ar_submarine_carries_ground_units_either():
    """FS 6.2(1) "The UK submarine Onyx may transport the SBS special forces unit; no other
    submarine of either side may transport ground units": not even an AR SF team."""
    st = empty("AR Operations")
    place(st, "salta", S.ARGENTINA)
    place(st, "cdo_601", S.ARGENTINA)
    broken(st, AR, op(23, loads={"cdo_601": "salta"}), "FS 6.2(1)")


# ============================================================================= FS 6.3 ===
def test_fs_6_3_aircraft_at_a_base_that_becomes_contested_stay_and_still_fly_from_it(monkeypatch):
    """FS 6.3 "If an airbase area becomes contested, he may continue to use the base in that area
    until the instant the area goes over to UK control": UK infantry moving in beside the AR
    garrison forces no rebasing, and the Pucara there still strikes from it (Op #19)."""
    st = empty()
    place(st, "ri_12", "goose_green")
    place(st, PUCARAS[0], "goose_green")
    place(st, "yarmouth", TEZ[0])  # FS 4.4(1) stays quiet
    place(st, "2_para", "san_carlos")
    out, st2 = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green"))
    assert S.contested(st2, "goose_green") and st2["control"]["goose_green"] == AR
    assert not pending(st2) and "ControlChanged" not in names(out)
    assert S.where(st2, PUCARAS[0]) == "goose_green"
    set_phase(st2, "AR Operations")
    with_factor(monkeypatch, PUCARAS[0], ground=3)
    out, st3 = play(st2, AR, op(19, area="goose_green", aircraft=[PUCARAS[0]], fire=fire((PUCARAS[0], "2_para"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == [PUCARAS[0]]


# ============================================================================= FS 9.4 ===
def test_fs_9_4_aerial_refuelling_adds_the_falkland_islands_sea_area_and_nothing_else():
    """FS 9.4 "A-4s operating from Argentina have a range sufficient to reach Sea Areas 1, 2, 3 and
    6 ... up to four Argentina-based A-4 units may be designated as using aerial refueling, and they
    can thereby extend their range to include the Falkland Islands Sea Area": refuelled, an A-4
    reaches the Falklands, but still not Sea Area 7."""
    st = empty("AR Operations")
    place(st, "a4_1", S.ARGENTINA)
    place(st, "glamorgan", "sa7")
    place(st, "yarmouth", "falklands")
    broken(st, AR, op(18, area="sa7", aircraft=["a4_1"], refuel=["a4_1"], fire=fire(("a4_1", "glamorgan"))),
           "FS 9.4")
    out, _ = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], refuel=["a4_1"],
                             fire=fire(("a4_1", "yarmouth"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["a4_1"]


# ============================================================================= FS 9.5 ===
def test_fs_9_5_from_the_falklands_an_a4_reaches_beyond_the_range_line_but_never_the_box():
    """FS 9.5 "All AR aircraft flying from bases in the Falklands have an unlimited range, except
    they may not enter the South Georgia Holding Box": an A-4 at Port Stanley strikes Sea Area 5
    (beyond the range line and A-4 reach from Argentina), without refuelling."""
    st = empty("AR Operations")
    place(st, "a4_1", "port_stanley")
    place(st, "glamorgan", "sa5")
    out, _ = play(st, AR, op(18, area="sa5", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["a4_1"]
    st = empty("AR Operations")
    place(st, "a4_1", "port_stanley")
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    broken(st, AR, op(18, area=S.SOUTH_GEORGIA, aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))), "FS 3.7")


# ============================================================================= FS 9.6 ===
def test_fs_9_6_the_stealth_aircraft_rebasing_in_an_emergency_is_never_intercepted():
    """FS 9.6 "Emergency rebasing doesn't count as an operation, but aircraft other than Pucaras and
    stealth are subject to interception when performing it": with the Super Etendard and a Dagger
    stranded, the UK carrier may fire at the Dagger alone."""
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "2_para", "san_carlos")
    place(st, "super_etendard", "goose_green")
    place(st, DAGGERS[0], "goose_green")
    out, st2 = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green"))
    assert pending(st2)["kind"] == "emergency_rebase"
    out, st3 = answer(st2, AR, {"destinations": {"super_etendard": "port_stanley", DAGGERS[0]: "port_stanley"}})
    d = pending(st3)
    assert (d["kind"], d["options"]["fire"]) == ("interception", {"hermes": [DAGGERS[0]]})
    with pytest.raises(RuleViolation) as err:
        answer(st3, UK, {"fire": [{"unit": "hermes", "at": "super_etendard"}]}, FixedDice(default=1))
    assert err.value.rule == "FS 7.1 Op #11"
    out, st4 = answer(st3, UK, {"fire": []})
    assert S.where(st4, "super_etendard") == S.where(st4, DAGGERS[0]) == "port_stanley"
    assert "OperationBegun" not in names(out)


# ============================================================================= FS 10.5 ===
def test_fs_10_5_uk_ground_units_firing_back_at_the_stealth_aircraft_hit_on_one_only(monkeypatch):
    """FS 10.5 "whenever it's fired at by any UK units of any kind, the 'to hit' numbers of those
    firing UK units is reduced to '1'": UK infantry defending against its air-to-ground strike."""
    st = empty("AR Operations")
    place(st, "super_etendard", "port_stanley")
    place(st, "2_para", FLAT)
    with_factor(monkeypatch, "super_etendard", ground=3)
    with_factor(monkeypatch, "2_para", air=3)
    out, st2 = play(st, AR, op(19, area=FLAT, aircraft=["super_etendard"], fire=fire(("super_etendard", "2_para"))))
    assert pending(st2)["options"]["fire"] == {"2_para": ["super_etendard"]}
    out, _ = answer(st2, UK, {"fire": fire(("2_para", "super_etendard"))}, FixedDice(6, 2))
    _, uk = rolls_of(out)
    assert uk.units == ["2_para", "super_etendard"] and uk.target["hit_number"] == 1
    assert uk.outcome == "miss"


# ============================================================================= FS 10.6 ===
def test_fs_10_6_attacking_aircraft_too_are_reduced_in_mountains_the_defenders_are_not(monkeypatch):
    """FS 10.6 "Units of any types, and of either side, which are attacking in an area that contains
    mountains do so with their hit numbers reduced by one. This doesn't apply to units making
    defensive fires": an AR aircraft strike (Op #19) is reduced, the UK return fire is not."""
    st = empty("AR Operations")
    place(st, PUCARAS[0], "port_stanley")
    place(st, "2_para", MOUNTAINS)
    with_factor(monkeypatch, PUCARAS[0], ground=3)
    with_factor(monkeypatch, "2_para", air=3)
    out, st2 = play(st, AR, op(19, area=MOUNTAINS, aircraft=[PUCARAS[0]], fire=fire((PUCARAS[0], "2_para"))))
    out, _ = answer(st2, UK, {"fire": fire(("2_para", PUCARAS[0]))}, FixedDice(6, 6))
    ar, uk = rolls_of(out)
    assert ar.target["hit_number"] == 2 and any("FS 10.6" in m["reason"] for m in ar.target["modifiers"])
    assert uk.target == {"hit_number": 3, "modifiers": []}


# ============================================================================= FS 10.8 ===
def test_fs_10_8_the_sf_bonus_is_for_the_other_ground_units_not_the_aircraft_flown_in(monkeypatch):
    """FS 10.8 "all your other ground units in that fight have their hit numbers increased by one":
    in an AR ground attack (Op #15) with a commando, the infantry gains one, the Pucara flown in
    to join does not."""
    st = empty("AR Operations")
    for u in ("ri_12", "cdo_601", "2_para"):
        place(st, u, FLAT)
    place(st, PUCARAS[0], "port_stanley")
    control(st, AR, FLAT)
    with_factor(monkeypatch, "ri_12", ground=3)
    with_factor(monkeypatch, PUCARAS[0], ground=3)
    with_factor(monkeypatch, "2_para", ground=3, air=3)
    out, st2 = play(st, AR, op(15, area=FLAT, units=["ri_12"], aircraft=[PUCARAS[0]],
                               fire=fire(("ri_12", "2_para"), (PUCARAS[0], "2_para"))))
    out, _ = answer(st2, UK, {"fire": fire(("2_para", "ri_12"))}, FixedDice(6, 6, 6))
    by = {r.units[0]: r.target for r in rolls_of(out)}
    assert by["ri_12"]["hit_number"] == 4 and any("FS 10.8" in m["reason"] for m in by["ri_12"]["modifiers"])
    assert by[PUCARAS[0]] == {"hit_number": 3, "modifiers": []}
    assert by["2_para"] == {"hit_number": 3, "modifiers": []}  # the UK has no SF there


# ============================================================================= FS 9.7 ===
def test_fs_9_7_a_flight_home_to_argentina_is_not_intercepted_in_argentina():
    """FS 9.7 "no UK movement or combat may ever take place in that area" (FS 2.2: Argentina is "an
    unassailable air and naval base"): a Dagger rebasing from Port Stanley to Argentina may fly
    home by Sea Areas 7 and 3, never in or next to Sea Area 1; entering Argentina, next to the
    carrier there, gives the UK no interception (FS 7.1 Op #11). A carrier in Sea Area 2, next to
    Sea Area 3 of every shortest way home, still may intercept."""
    st = empty("AR Operations")
    place(st, "hermes", "sa1")
    place(st, DAGGERS[0], "port_stanley")
    out, st2 = play(st, AR, op(3, aircraft=[DAGGERS[0]], origin="port_stanley", destination=S.ARGENTINA))
    assert "DecisionPending" not in names(out) and not pending(st2)
    assert S.where(st2, DAGGERS[0]) == S.ARGENTINA
    st = empty("AR Operations")
    place(st, "hermes", "sa2")
    place(st, DAGGERS[0], "port_stanley")
    out, st2 = play(st, AR, op(3, aircraft=[DAGGERS[0]], origin="port_stanley", destination=S.ARGENTINA))
    assert pending(st2)["kind"] == "interception" and pending(st2)["options"]["fire"] == {"hermes": [DAGGERS[0]]}


def test_fs_9_7_an_emergency_rebasing_to_argentina_is_not_intercepted_in_argentina_either():
    """FS 9.6 "aircraft other than Pucaras and stealth are subject to interception when performing
    it", but FS 9.7 "no UK ... combat may ever take place in" Argentina: a Dagger stranded at Goose
    Green flying home passes no sea area next to the carrier in Sea Area 1 on its way by Sea Areas
    7 and 3, and reaches Argentina unintercepted."""
    st = empty()
    place(st, "hermes", "sa1")
    place(st, "yarmouth", TEZ[0])  # FS 4.4(1) stays quiet
    place(st, "2_para", "san_carlos")
    place(st, DAGGERS[0], "goose_green")
    out, st2 = play(st, UK, op(24, units=["2_para"], origin="san_carlos", destination="goose_green"))
    assert pending(st2)["kind"] == "emergency_rebase"
    out, st3 = answer(st2, AR, {"destinations": {DAGGERS[0]: S.ARGENTINA}})
    assert not pending(st3) and S.where(st3, DAGGERS[0]) == S.ARGENTINA
