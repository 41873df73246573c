"""Falklands Showdown FS 7.1, operations #1 to #13 with every restriction, each on a small
synthetic position (tests/unit/falklands/helpers.py)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, AR_DESTROYERS, AR_SUBS, DAGGERS, PUCARAS, R, UK, UK_DESTROYERS, UK_INFANTRY, UK_SF, UK_SUBS,
    FixedDice, answer, ar, control, events_of, names, op, pending, place, play, set_phase, uk,
)

AR_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "infantry"
                     and d.get("group") != "op2")
STEALTH = T.STEALTH_UNIT
GROUPS = [f"R{i}" for i in range(1, 7)]


def rejected(st, seat, order, dice=None, kind=RuleViolation):
    with pytest.raises(kind) as err:
        play(st, seat, order, dice)
    return err.value


# ====================================================================== who may choose what ===
@pytest.mark.parametrize("number", [1, 2, 3])
def test_fs_7_1_ops_1_to_3_are_ar_only(number):
    err = rejected(uk(), UK, op(number))
    assert err.rule == f"FS 7.1 Op #{number}" and "AR only" in err.detail


@pytest.mark.parametrize("number", [4, 5, 6, 7, 8, 9, 10, 12, 13])
def test_fs_7_1_ops_4_to_13_are_uk_only(number):
    err = rejected(ar(), AR, op(number))
    assert err.rule == f"FS 7.1 Op #{number}" and "UK only" in err.detail


@pytest.mark.parametrize("seat", [UK, AR])
def test_fs_7_1_op_11_is_never_chosen_as_an_operation(seat):
    st = uk() if seat == UK else ar()
    assert rejected(st, seat, op(11)).rule == "FS 7.1 Op #11"
    assert all(o.get("op") != 11 for o in R.legal_orders(st, seat))


@pytest.mark.parametrize("number", [4, 7, 9])
def test_fs_7_1_ops_4_7_9_only_once_per_game(number):
    st = uk()
    st["ops_log"][UK] = [20, number, 20]
    err = rejected(st, UK, op(number))
    assert err.rule == f"FS 7.1 Op #{number}" and "once per game" in err.detail
    assert all(o.get("op") != number for o in R.legal_orders(st, UK))


# ============================================================================== Op #1 airlift ===
def test_fs_7_1_op_1_airlifts_up_to_two_ground_units_from_argentina_to_port_stanley():
    st = ar()
    for u in AR_INFANTRY[:3]:
        place(st, u, S.ARGENTINA)
    out, st2 = play(st, AR, op(1, units=AR_INFANTRY[:2]))
    assert events_of(out, "UnitMoved") == [{"unit": u, "origin": S.ARGENTINA, "destination": T.PORT_STANLEY,
                                            "rule": "FS 7.1 Op #1"} for u in AR_INFANTRY[:2]]
    assert all(S.where(st2, u) == T.PORT_STANLEY for u in AR_INFANTRY[:2])
    assert rejected(st, AR, op(1, units=AR_INFANTRY[:3])).rule == "FS 7.1 Op #1"


def test_fs_7_1_op_1_only_from_argentina():
    st = ar()
    place(st, AR_INFANTRY[0], "goose_green")
    assert rejected(st, AR, op(1, units=[AR_INFANTRY[0]])).rule == "FS 7.1 Op #1"
    place(st, T.AR_ASSAULT_SHIP, S.ARGENTINA)
    place(st, AR_INFANTRY[1], aboard=T.AR_ASSAULT_SHIP)  # at sea, even in port, is not on the airfield
    assert rejected(st, AR, op(1, units=[AR_INFANTRY[1]])).rule == "FS 7.1 Op #1"


def test_fs_7_1_op_1_is_never_intercepted():
    st = ar()
    place(st, "hermes", "falklands")
    place(st, "invincible", "sa6")
    place(st, AR_INFANTRY[0], S.ARGENTINA)
    out, st2 = play(st, AR, op(1, units=[AR_INFANTRY[0]]))
    assert pending(st2) is None and "DecisionPending" not in names(out)
    assert S.where(st2, AR_INFANTRY[0]) == T.PORT_STANLEY


# ============================================================================ Op #2 mobilize ===
def test_fs_7_1_op_2_activates_one_unit_in_argentina_for_one_uk_vp():
    st = ar()
    unit = T.OP2_UNITS[0]
    out, st2 = play(st, AR, op(2, unit=unit))
    assert names(out) == ["OperationBegun", "EffectGained", "UnitEntered", "VPScored", "OperationCompleted",
                          "PhaseAdvanced"]
    assert events_of(out, "UnitEntered") == [{"unit": unit, "area": S.ARGENTINA, "aboard": None, "rule": "FS 7.1 Op #2"}]
    assert events_of(out, "VPScored")[0]["delta"] == -1
    assert S.where(st2, unit) == S.ARGENTINA and st2["op2_done"] == [unit]
    assert st2["phase"] == "UK Submarine"  # each activation counts as one operation


def test_fs_7_1_op_2_once_per_unit_three_times_at_most():
    st = ar()
    first = T.OP2_UNITS[0]
    out, st = play(st, AR, op(2, unit=first))
    set_phase(st, "AR Operations")
    err = rejected(st, AR, op(2, unit=first))
    assert err.rule == "FS 7.1 Op #2"
    for u in T.OP2_UNITS[1:]:
        set_phase(st, "AR Operations")
        out, st = play(st, AR, op(2, unit=u))
    set_phase(st, "AR Operations")
    assert rejected(st, AR, op(2, unit=first)).rule == "FS 7.1 Op #2"
    assert all(o.get("op") != 2 for o in R.legal_orders(st, AR))


def test_fs_7_1_op_2_only_the_three_named_units():
    st = ar()
    assert {DATA.units[u]["name"] for u in T.OP2_UNITS} and len(T.OP2_UNITS) == 3
    assert rejected(st, AR, op(2, unit=AR_INFANTRY[0])).rule == "FS 7.1 Op #2"


@pytest.mark.parametrize("where", ["port_stanley", "eliminated"])
def test_fs_7_1_op_2_brings_in_only_a_unit_out_of_play(where):
    """Op #2 "activates" a unit and places it in Argentina: one already in play (here by a
    hand-edited position: the game marks each it brings in, so play alone never reaches this),
    or eliminated there, is refused naming Op #2 and not offered, and no VP is scored for it."""
    st = ar()
    unit, other = T.OP2_UNITS[0], T.OP2_UNITS[1]
    place(st, unit, "port_stanley")
    if where == "eliminated":
        st["units"][unit]["eliminated"] = True
    err = rejected(st, AR, op(2, unit=unit))
    assert err.rule == "FS 7.1 Op #2" and "out of play" in err.detail
    (offer,) = [o for o in R.legal_orders(st, AR) if o.get("op") == 2]
    assert offer["choices"]["unit"] == [u for u in T.OP2_UNITS if u != unit]
    out, after = play(st, AR, op(2, unit=other))
    assert S.where(after, other) == S.ARGENTINA


# ============================================================================== Op #3 rebase ===
def test_fs_7_1_op_3_rebases_any_number_between_friendly_bases():
    st = ar()
    place(st, PUCARAS[0], "port_stanley")
    place(st, PUCARAS[1], "port_stanley")
    out, st2 = play(st, AR, op(3, aircraft=PUCARAS[:2], origin="port_stanley", destination="goose_green"))
    assert [(e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")] == \
        [(u, "goose_green", "FS 7.1 Op #3") for u in PUCARAS[:2]]


def test_fs_7_1_op_3_from_a_friendly_or_contested_area_to_a_friendly_uncontested_one():
    st = ar()
    place(st, DAGGERS[0], "goose_green")
    control(st, UK, "goose_green")  # neither friendly nor contested
    assert rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin="goose_green", destination=S.ARGENTINA)).rule \
        == "FS 7.1 Op #3"
    st = ar()
    place(st, DAGGERS[0], S.ARGENTINA)
    control(st, UK, "pebble_island")
    assert rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination="pebble_island")).rule \
        == "FS 7.1 Op #3"
    assert rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination=S.ARGENTINA)).rule \
        == "FS 7.1 Op #3"
    assert rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin="port_stanley", destination="goose_green")).rule \
        == "FS 7.1 Op #3"  # not there


def test_fs_7_1_op_3_planes_other_than_pucaras_and_stealth_may_be_intercepted():
    st = ar()
    place(st, "hermes", "sa7")  # next to the Falkland Islands Sea Area
    for u in (DAGGERS[0], PUCARAS[0], STEALTH):
        place(st, u, S.ARGENTINA)
    out, st2 = play(st, AR, op(3, aircraft=[DAGGERS[0], PUCARAS[0], STEALTH], origin=S.ARGENTINA,
                               destination="port_stanley"))
    d = pending(st2)
    assert (d["seat"], d["kind"], d["rule"]) == (UK, "interception", "FS 7.1 Op #11")
    assert d["options"]["fire"] == {"hermes": [DAGGERS[0]]}
    assert events_of(out, "UnitMoved") == []  # the flight waits for the interception
    out, st3 = answer(st2, UK, {"fire": []})  # the UK lets it pass
    assert sorted(e["unit"] for e in events_of(out, "UnitMoved")) == sorted([DAGGERS[0], PUCARAS[0], STEALTH])


# ====================================================================== Op #4 South Georgia ===
def _op4_position():
    st = uk()
    ships = UK_DESTROYERS[:3]
    for u in ships:
        place(st, u, "sa5")
    place(st, UK_SUBS[0], "sa5")
    place(st, UK_SF[0], aboard=ships[0])
    place(st, UK_SF[1], aboard=ships[1])
    santa_fe = next(u for u in AR_SUBS if DATA.units[u].get("setup") == S.SOUTH_GEORGIA)
    place(st, santa_fe, S.SOUTH_GEORGIA)
    return st, op(4, ships=ships, submarine=UK_SUBS[0], sf=UK_SF[:2]), santa_fe


def test_fs_7_1_op_4_takes_south_georgia_and_sinks_the_ar_submarines_there():
    st, order, santa_fe = _op4_position()
    out, st2 = play(st, UK, order)
    moved = events_of(out, "UnitMoved")
    assert [(e["unit"], e["destination"], e["rule"]) for e in moved] == \
        [(u, S.SOUTH_GEORGIA, "FS 7.1 Op #4") for u in [*order["ships"], order["submarine"]]]
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == [(santa_fe, "FS 7.1 Op #4")]
    # Op #10 and FS 4.4(3) count submarines among "AR ships": sunk in the box, a UK point.
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(3)")]
    assert events_of(out, "ControlChanged") == [{"area": S.SOUTH_GEORGIA, "side": UK, "previous": AR,
                                                 "rule": "FS 7.1 Op #4"}]
    assert st2["control"][S.SOUTH_GEORGIA] == UK
    assert all(S.where(st2, u) == S.SOUTH_GEORGIA for u in UK_SF[:2])  # aboard, not disembarked
    assert st2["units"][UK_SF[0]]["aboard"] == order["ships"][0]


def test_fs_7_1_op_4_the_force_is_three_surface_vessels_a_submarine_and_two_sf():
    st, order, _ = _op4_position()
    place(st, UK_DESTROYERS[3], "sa5")
    for bad in ({**order, "ships": order["ships"][:2]},
                {**order, "ships": [*order["ships"], UK_DESTROYERS[3]]},
                {**order, "sf": UK_SF[:1]},
                {**order, "submarine": UK_DESTROYERS[3]}):
        assert rejected(st, UK, bad).rule == "FS 7.1 Op #4"


def test_fs_7_1_op_4_the_sf_travel_aboard_the_force():
    st, order, _ = _op4_position()
    place(st, UK_SF[1], "san_carlos")
    control(st, UK, "san_carlos")
    assert rejected(st, UK, order).rule == "FS 7.1 Op #4"
    st, order, _ = _op4_position()
    place(st, UK_INFANTRY[0], aboard=order["ships"][2])
    assert rejected(st, UK, {**order, "sf": [UK_SF[0], UK_INFANTRY[0]]}).rule == "FS 7.1 Op #4"


def test_fs_7_1_op_4_moving_out_later_and_ar_submarines_entering_later():
    st, order, _ = _op4_position()
    out, st = play(st, UK, order)
    set_phase(st, "UK Operations", turn=2)
    out, st2 = play(st, UK, op(20, units=[order["ships"][0]], destination="sa5"))
    assert S.where(st2, order["ships"][0]) == "sa5"  # in part, normally
    set_phase(st, "AR Operations")
    place(st, AR_SUBS[-1], "sa5")
    out, st3 = play(st, AR, op(20, units=[AR_SUBS[-1]], destination=S.SOUTH_GEORGIA))
    assert "UnitEliminated" not in names(out) and st3["control"][S.SOUTH_GEORGIA] == UK


# ============================================================================== Op #5 repair ===
def _box(st):
    st["ops_log"][UK] = [20, 4]
    return control(st, UK, S.SOUTH_GEORGIA)


def test_fs_7_1_op_5_not_until_after_op_4():
    st = uk()
    place(st, "glamorgan", S.SOUTH_GEORGIA, steps=1)
    err = rejected(st, UK, op(5, unit="glamorgan"))
    assert err.rule == "FS 7.1 Op #5" and "Op #4" in err.detail


def test_fs_7_1_op_5_repairs_one_damaged_vessel_in_the_box():
    for vessel in ("glamorgan", UK_SUBS[0]):
        st = _box(uk())
        place(st, vessel, S.SOUTH_GEORGIA, steps=1)
        out, st2 = play(st, UK, op(5, unit=vessel))
        assert events_of(out, "UnitRepaired") == [{"unit": vessel, "steps_left": 2, "rule": "FS 7.1 Op #5"}]
        assert st2["units"][vessel]["steps"] == 2


def test_fs_7_1_op_5_only_for_a_ship_already_in_the_box():
    st = _box(uk())
    place(st, "glamorgan", "sa5", steps=1)
    assert rejected(st, UK, op(5, unit="glamorgan")).rule == "FS 7.1 Op #5"
    # no order may move it there and repair it in one go: Op #5 moves nothing
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination=S.SOUTH_GEORGIA))
    assert "UnitRepaired" not in names(out) and st2["units"]["glamorgan"]["steps"] == 1


def test_fs_7_1_op_4_then_op_5_and_op_6_via_the_box_in_play():
    st, order, _ = _op4_position()
    st["ops_log"][UK] = [20, 20]
    st["units"][order["ships"][0]]["steps"] = 1  # damaged on the way
    out, st = play(st, UK, order)
    set_phase(st, "UK Operations", turn=2)
    out, st = play(st, UK, op(5, unit=order["ships"][0]))
    assert st["units"][order["ships"][0]]["steps"] == 2
    set_phase(st, "UK Operations", turn=3)
    r1_ship = next(u for u in T.group_units("R1") if DATA.units[u]["class"] == "ship")
    out, st = play(st, UK, op(6, entry={r1_ship: S.SOUTH_GEORGIA}))
    assert S.where(st, r1_ship) == S.SOUTH_GEORGIA
    assert st["ops_log"][UK] == [20, 20, 4, 5, 6]


def test_fs_7_1_op_5_not_for_an_undamaged_or_sunk_vessel_or_a_ground_unit():
    st = _box(uk())
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    assert rejected(st, UK, op(5, unit="glamorgan")).rule == "FS 7.1 Op #5"
    st["units"]["glamorgan"].update(eliminated=True, location=None, steps=0)
    assert rejected(st, UK, op(5, unit="glamorgan")).rule == "FS 7.1 Op #5"
    place(st, UK_INFANTRY[0], aboard=UK_DESTROYERS[-1], steps=1)
    assert rejected(st, UK, op(5, unit=UK_INFANTRY[0])).rule == "FS 7.1 Op #5"


# ============================================================================ Op #6 reinforce ===
def test_fs_7_1_op_6_never_either_of_the_first_two_uk_ops():
    for log in ([], [20]):
        st = uk()
        st["ops_log"][UK] = list(log)
        err = rejected(st, UK, op(6))
        assert err.rule == "FS 7.1 Op #6" and "first two" in err.detail
        assert all(o.get("op") != 6 for o in R.legal_orders(st, UK))


def test_fs_7_1_op_6_never_first_two_even_when_both_fall_in_the_first_phase():
    st = uk()
    st["effects"][UK]["uk_operational_superiority"] = {"rule": "FS 5.4"}
    set_phase(st, "UK Operations")
    out, st = play(st, UK, {"kind": "pass"})
    assert rejected(st, UK, op(6)).rule == "FS 7.1 Op #6"
    out, st = play(st, UK, {"kind": "pass"})
    set_phase(st, "UK Operations", turn=2)
    out, st2 = play(st, UK, op(6))
    assert events_of(out, "EffectGained")[0]["detail"] == {"group": "R1"}


def test_fs_7_1_op_6_never_twice_in_a_row():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    out, st = play(st, UK, op(6))
    set_phase(st, "UK Operations", turn=2)
    err = rejected(st, UK, op(6))
    assert err.rule == "FS 7.1 Op #6" and "twice in a row" in err.detail
    out, st = play(st, UK, {"kind": "pass"})
    set_phase(st, "UK Operations", turn=3)
    out, st = play(st, UK, op(6))
    assert st["groups_entered"] == ["R1", "R2"]


def test_fs_7_1_op_6_enters_the_lowest_group_whole_with_cargo_on_its_ships():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    st["groups_entered"] = ["R1"]
    out, st2 = play(st, UK, op(6))
    group = T.group_units("R2")
    entered = events_of(out, "UnitEntered")
    assert sorted(e["unit"] for e in entered) == sorted(group)  # nobody left behind
    for e in entered:
        d = DATA.units[e["unit"]]
        if d["class"] == "ground":
            assert (e["area"], e["aboard"]) == (None, d["aboard"])  # with its designated ship
        else:
            assert (e["area"], e["aboard"]) == ("sa4", None)
        assert e["rule"] == "FS 7.1 Op #6"
    for u in group:
        assert S.alive(st2, u) and S.where(st2, u) == "sa4"
    assert st2["groups_entered"] == ["R1", "R2"]


def test_fs_7_1_op_6_groups_in_order():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    r2_ship = next(u for u in T.group_units("R2") if DATA.units[u]["class"] == "ship")
    err = rejected(st, UK, op(6, entry={r2_ship: "sa4"}))
    assert err.rule == "FS 7.1 Op #6"
    st["groups_entered"] = list(GROUPS)
    assert rejected(st, UK, op(6)).rule == "FS 7.1 Op #6"


def test_fs_7_1_op_6_entry_via_sea_area_4_or_a_uk_held_south_georgia_ship_by_ship():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    st["groups_entered"] = ["R1"]
    # R2: Fearless enters via the box with its cargo, the rest via Sea Area 4
    assert rejected(st, UK, op(6, entry={"fearless": S.SOUTH_GEORGIA})).rule == "FS 7.1 Op #6"  # AR-held
    assert rejected(st, UK, op(6, entry={"fearless": "sa5"})).rule == "FS 7.1 Op #6"
    control(st, UK, S.SOUTH_GEORGIA)
    out, st2 = play(st, UK, op(6, entry={"fearless": S.SOUTH_GEORGIA}))
    assert S.where(st2, "fearless") == S.SOUTH_GEORGIA
    cargo = [u for u, d in DATA.units.items() if d.get("aboard") == "fearless"]
    assert cargo and all(S.where(st2, u) == S.SOUTH_GEORGIA for u in cargo)
    assert S.where(st2, "intrepid") == "sa4"


def test_fs_7_1_op_6_submarines_enter_too():
    st = uk()
    st["ops_log"][UK] = [20, 20]
    st["groups_entered"] = ["R1", "R2", "R3"]
    out, st2 = play(st, UK, op(6))
    assert S.where(st2, "onyx") == "sa4" and st2["units"]["sbs"]["aboard"] == "onyx"


# ============================================================================= Op #7 SF raid ===
def _raid_position(sf_where="ship"):
    st = uk()
    if sf_where == "ship":
        place(st, UK_SF[0], aboard=UK_DESTROYERS[-1])
    else:
        place(st, UK_SF[0], sf_where)
        control(st, UK, sf_where)
    place(st, PUCARAS[0], "goose_green")
    return st, op(7, sf=UK_SF[0], target=PUCARAS[0])


def test_fs_7_1_op_7_eliminates_one_ar_aircraft_and_the_sf_survives_below_six():
    st, order = _raid_position()
    out, st2 = play(st, UK, order, FixedDice(5))
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == [(PUCARAS[0], "FS 7.1 Op #7")]
    (roll,) = [o for o in out if names([o]) == ["Roll"]]
    assert roll.rule == "FS 7.1 Op #7" and roll.seat == UK
    assert names(out).index("UnitEliminated") < names(out).index("Roll")  # the die after the removal
    assert S.alive(st2, UK_SF[0]) and st2["units"][UK_SF[0]]["aboard"] == UK_DESTROYERS[-1]  # it doesn't move
    assert events_of(out, "VPScored") == []


def test_fs_7_1_op_7_a_six_eliminates_the_raiders():
    st, order = _raid_position("san_carlos")
    out, st2 = play(st, UK, order, FixedDice(6))
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == \
        [(PUCARAS[0], "FS 7.1 Op #7"), (UK_SF[0], "FS 7.1 Op #7")]
    assert not S.alive(st2, UK_SF[0])


def test_fs_7_1_op_7_a_unit_that_does_not_exist_is_named_in_the_refusal():
    st, order = _raid_position()
    for key in ("sf", "target"):
        refusal = rejected(st, UK, {**order, key: "nobody"})
        assert refusal.rule == "FS 7.1 Op #7" and "there is no unit 'nobody'" in str(refusal)


def test_fs_7_1_op_7_the_sf_is_aboard_a_ship_or_in_a_friendly_uncontested_area():
    st, order = _raid_position("san_carlos")
    place(st, AR_INFANTRY[0], "san_carlos")  # contested
    assert rejected(st, UK, order).rule == "FS 7.1 Op #7"
    st, order = _raid_position("san_carlos")
    control(st, AR, "san_carlos")
    assert rejected(st, UK, order).rule == "FS 7.1 Op #7"
    st, order = _raid_position()
    place(st, UK_INFANTRY[0], aboard="canberra")
    place(st, "canberra", "sa4")
    assert rejected(st, UK, {**order, "sf": UK_INFANTRY[0]}).rule == "FS 7.1 Op #7"


def test_fs_7_1_op_7_only_aircraft_on_a_falklands_airfield():
    st, order = _raid_position()
    place(st, PUCARAS[0], S.ARGENTINA)
    assert rejected(st, UK, order).rule == "FS 7.1 Op #7"


# ============================================================================= Op #8 regroup ===
def test_fs_7_1_op_8_regroups_a_stricken_ground_unit_aboard_or_in_a_friendly_uncontested_area():
    st = uk()
    place(st, "canberra", "sa4")
    place(st, UK_INFANTRY[0], aboard="canberra", steps=1)
    out, st2 = play(st, UK, op(8, unit=UK_INFANTRY[0]))
    assert events_of(out, "UnitRepaired") == [{"unit": UK_INFANTRY[0], "steps_left": 2, "rule": "FS 7.1 Op #8"}]
    st = uk()
    place(st, UK_INFANTRY[0], "san_carlos", steps=1)
    control(st, UK, "san_carlos")
    out, st2 = play(st, UK, op(8, unit=UK_INFANTRY[0]))
    assert st2["units"][UK_INFANTRY[0]]["steps"] == 2


def test_fs_7_1_op_8_refused_in_a_contested_or_enemy_area_undamaged_or_eliminated():
    st = uk()
    place(st, UK_INFANTRY[0], "san_carlos", steps=1)
    place(st, AR_INFANTRY[0], "san_carlos")
    control(st, UK, "san_carlos")
    assert rejected(st, UK, op(8, unit=UK_INFANTRY[0])).rule == "FS 7.1 Op #8"
    st = uk()
    place(st, UK_INFANTRY[0], "san_carlos", steps=1)  # AR-controlled
    assert rejected(st, UK, op(8, unit=UK_INFANTRY[0])).rule == "FS 7.1 Op #8"
    control(st, UK, "san_carlos")
    st["units"][UK_INFANTRY[0]]["steps"] = 2
    assert rejected(st, UK, op(8, unit=UK_INFANTRY[0])).rule == "FS 7.1 Op #8"
    st["units"][UK_INFANTRY[0]].update(eliminated=True, location=None, steps=0)
    assert rejected(st, UK, op(8, unit=UK_INFANTRY[0])).rule == "FS 7.1 Op #8"


def test_fs_7_1_op_8_regrouping_aboard_a_full_ship_may_not_exceed_its_capacity():
    # FS 6.2(2): a Hit unit counts one step aboard; regrouped it counts two, and the ship's load
    # limit is observed as for any loading (Op #12, #23).
    st = uk()
    place(st, "norland", "sa4")
    cap = DATA.units["norland"]["capacity"]
    full, hit, other = UK_INFANTRY[0], UK_INFANTRY[1], UK_INFANTRY[2]
    place(st, full, aboard="norland")  # two steps
    place(st, hit, aboard="norland", steps=1)
    place(st, other, aboard="norland", steps=cap - 3)  # the ship is full: 2 + 1 + (cap - 3)
    assert sum(st["units"][u]["steps"] for u in (full, hit, other)) == cap
    assert rejected(st, UK, op(8, unit=hit)).rule == "FS 6.2(2)"
    assert R.operation_template(st, UK, 8) is None  # not offered either
    st["units"][other]["steps"] = 0  # room for one more step: the regroup fits
    st["units"][other].update(aboard=None, in_play=False)
    out, _ = play(st, UK, op(8, unit=hit))
    assert events_of(out, "UnitRepaired")[0]["unit"] == hit


# ========================================================================= Op #9 Black Buck ===
def test_fs_7_1_op_9_sends_every_non_pucara_in_the_falklands_home_without_an_ar_op():
    st = uk()
    place(st, DAGGERS[0], "port_stanley")
    place(st, DAGGERS[1], "pebble_island")
    place(st, PUCARAS[0], "goose_green")
    place(st, STEALTH, S.ARGENTINA)
    out, st2 = play(st, UK, op(9))
    assert events_of(out, "EffectGained")[0]["effect"] == "black_buck"
    assert sorted((e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")) == \
        [(DAGGERS[0], S.ARGENTINA, "FS 7.1 Op #9"), (DAGGERS[1], S.ARGENTINA, "FS 7.1 Op #9")]
    assert S.where(st2, PUCARAS[0]) == "goose_green"  # Pucaras unaffected
    assert [e["side"] for e in events_of(out, "OperationBegun")] == [UK]  # not an AR operation
    assert st2["ops_log"][AR] == []


def test_fs_7_1_op_9_lasting_effect_only_pucaras_base_in_the_falklands_ever_after():
    st = uk()
    out, st = play(st, UK, op(9))
    out, st = play(st, AR, {"kind": "pass"})
    out, st = play(st, UK, {"kind": "submarines", "moves": {}})
    out, st = play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(1, 1))
    assert st["turn"] == 2 and "black_buck" in st["effects"][UK]
    set_phase(st, "AR Operations")
    place(st, DAGGERS[0], S.ARGENTINA)
    place(st, PUCARAS[0], S.ARGENTINA)
    err = rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination="port_stanley"))
    assert err.rule == "FS 7.1 Op #9"
    out, st2 = play(st, AR, op(3, aircraft=[PUCARAS[0]], origin=S.ARGENTINA, destination="port_stanley"))
    assert S.where(st2, PUCARAS[0]) == "port_stanley"


# ============================================================================== Op #10 TEZ ===
def _op14(st, target, area, **extra):
    shooter = UK_DESTROYERS[0]
    place(st, shooter, area)
    place(st, target, area)
    face = DATA.units[shooter]["factors"]["surface" if DATA.units[target]["class"] == "ship" else "sub"]
    assert face >= 1
    order = op(14, area=area, units=[shooter], fire=[{"unit": shooter, "at": target}], **extra)
    return order, FixedDice(face, default=6)


def _resolve(st, order, dice):
    out, st2 = play(st, UK, order, dice)
    if pending(st2):  # the AR ship's defensive fire (FS 10.2: it fires), a miss
        o2, st2 = answer(st2, AR, {"fire": "auto"}, dice)
        out += o2
    return out, st2


def test_fs_7_1_op_10_chosen_alone_is_refused():
    err = rejected(uk(), UK, op(10))
    assert err.rule == "FS 7.1 Op #10"
    assert all(o.get("op") != 10 for o in R.legal_orders(uk(), UK))


def test_fs_7_1_op_10_sinkings_anywhere_score_for_the_uk_for_one_operation_in_all():
    st = uk()
    order, dice = _op14(st, AR_DESTROYERS[0], "sa1", with_op_10=True)
    out, st2 = _resolve(st, order, dice)
    assert not S.alive(st2, AR_DESTROYERS[0])
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 7.1 Op #10")]
    assert events_of(out, "EffectGained")[0]["effect"] == "tez_expanded"
    assert {"side": UK, "effect": "tez_expanded", "rule": "FS 7.1 Op #10"} in events_of(out, "EffectSpent")
    assert st2["uk_operations_left"] == st["uk_operations_left"] - 1  # one operation in all
    assert st2["ops_log"][UK] == [14] and st2["op10_used"] and "tez_expanded" not in st2["effects"][UK]


def test_fs_7_1_op_10_without_it_the_same_sinking_scores_for_ar():
    st = uk()
    order, dice = _op14(st, AR_DESTROYERS[0], "sa1")
    out, _ = _resolve(st, order, dice)
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(2)")]


def test_fs_7_1_op_10_covers_submarines_too():
    st = uk()
    shooter = UK_DESTROYERS[0]
    place(st, shooter, "sa2")
    place(st, AR_SUBS[0], "sa2")
    face = DATA.units[shooter]["factors"]["sub"]
    out, st2 = play(st, UK, op(20, units=[], support=[shooter], destination="sa2", attack=True, with_op_10=True,
                               fire=[{"unit": shooter, "at": AR_SUBS[0]}]), FixedDice(face))
    if pending(st2):
        o2, st2 = answer(st2, AR, {"fire": "auto"}, FixedDice(face, default=6))
        out += o2
    assert not S.alive(st2, AR_SUBS[0])
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 7.1 Op #10")]


def test_fs_7_1_op_10_only_once_per_game():
    st = uk()
    st["op10_used"] = True
    order, dice = _op14(st, AR_DESTROYERS[0], "sa1", with_op_10=True)
    err = rejected(st, UK, order, dice)
    assert err.rule == "FS 7.1 Op #10" and "once" in err.detail


def test_fs_7_1_op_10_is_uk_only():
    st = ar()
    place(st, AR_DESTROYERS[0], "sa1")
    place(st, UK_DESTROYERS[0], "sa1")
    err = rejected(st, AR, op(14, area="sa1", units=[AR_DESTROYERS[0]], with_op_10=True,
                              fire=[{"unit": AR_DESTROYERS[0], "at": UK_DESTROYERS[0]}]), FixedDice(6))
    assert err.rule == "FS 7.1 Op #10"


def test_fs_7_1_op_10_is_tacked_onto_a_combat_operation_only():
    st = uk()
    place(st, UK_DESTROYERS[0], "sa4")
    err = rejected(st, UK, op(20, units=[UK_DESTROYERS[0]], destination="sa1", with_op_10=True))
    assert err.rule == "FS 7.1 Op #10"
    err = rejected(st, UK, op(9, with_op_10=True))
    assert err.rule == "FS 7.1 Op #10"


# ====================================================================== Op #11 interception ===
def _ar_air_sea(st, aircraft, area="sa7", carrier_at="sa7", extra=None):
    """AR land-based aircraft (and maybe the AR carrier) attack a UK destroyer in ``area``."""
    place(st, "hermes", carrier_at)
    target = UK_DESTROYERS[0]
    place(st, target, area)
    for u in aircraft:
        if S.where(st, u) is None:
            place(st, u, S.ARGENTINA)
    order = op(18, area=area, aircraft=list(aircraft),
               fire=[{"unit": u, "at": target} for u in aircraft], **(extra or {}))
    return order, target


def test_fs_7_1_op_11_intercepts_only_eligible_planes_before_the_ar_attack_goes_on():
    st = ar()
    planes = [DAGGERS[0], PUCARAS[0], STEALTH]
    place(st, T.AR_CARRIER, "sa6")  # the AR carrier joins from next door: never intercepted
    order, target = _ar_air_sea(st, planes)
    order["carriers"] = [T.AR_CARRIER]
    order["fire"].append({"unit": T.AR_CARRIER, "at": target})
    out, st2 = play(st, AR, order)
    d = pending(st2)
    assert (d["seat"], d["kind"], d["rule"]) == (UK, "interception", "FS 7.1 Op #11")
    assert d["options"]["fire"] == {"hermes": [DAGGERS[0]]}
    assert "BattleBegun" not in names(out)  # the AR attack waits
    hit = DATA.units["hermes"]["factors"]["air"]
    out, st3 = answer(st2, UK, {"fire": [{"unit": "hermes", "at": DAGGERS[0]}]}, FixedDice(hit, 6, 6))  # FS 10.9: three
    battles = events_of(out, "BattleBegun")
    assert battles[0]["kind"] == "interception" and battles[0]["attackers"] == ["hermes"]
    assert battles[0]["defenders"] == [DAGGERS[0]]
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == [DAGGERS[0]]
    # fully resolved before the survivors go on; the dagger's own shot is gone with it
    assert names(out).index("UnitEliminated") < [i for i, n in enumerate(names(out)) if n == "BattleBegun"][1]
    assert battles[1]["kind"] == "air_sea" and DAGGERS[0] not in battles[1]["attackers"]
    assert set(battles[1]["attackers"]) == {PUCARAS[0], STEALTH, T.AR_CARRIER}


def test_fs_7_1_op_11_when_every_plane_falls_the_ar_attack_does_not_happen():
    st = ar()
    order, _ = _ar_air_sea(st, [DAGGERS[0]])
    out, st2 = play(st, AR, order)
    hit = DATA.units["hermes"]["factors"]["air"]
    out, st3 = answer(st2, UK, {"fire": [{"unit": "hermes", "at": DAGGERS[0]}]}, FixedDice(hit, 6, 6))  # FS 10.9: three
    assert [e["kind"] for e in events_of(out, "BattleBegun")] == ["interception"]
    assert events_of(out, "OperationCompleted")[0]["side"] == AR and not st3["pending"]


def test_fs_7_1_op_11_no_eligible_plane_no_interception():
    st = ar()
    order, _ = _ar_air_sea(st, [PUCARAS[0], STEALTH])
    out, st2 = play(st, AR, order)
    assert all(d["kind"] != "interception" for d in st2["pending"])
    assert "interception" not in [e["kind"] for e in events_of(out, "BattleBegun")]


def test_fs_7_1_op_11_needs_a_carrier_in_or_next_to_the_flight():
    st = ar()
    order, _ = _ar_air_sea(st, [DAGGERS[0]], area="sa1", carrier_at="sa4")
    place(st, UK_DESTROYERS[1], "sa1")
    out, st2 = play(st, AR, order)
    assert all(d["kind"] != "interception" for d in st2["pending"])


def test_fs_7_1_op_11_interception_follows_the_flights_route_not_only_its_destination():
    # From Argentina to the Falkland Islands Sea Area every route enters Sea Area 6 or 7, both next
    # to Sea Area 3: a carrier there may intercept, though it is not next to the destination.
    st = ar()
    order, _ = _ar_air_sea(st, [DAGGERS[0]], area="falklands", carrier_at="sa3")
    assert "falklands" not in DATA.sea_adjacent("sa3")
    out, st2 = play(st, AR, order)
    d = pending(st2)
    assert d["kind"] == "interception" and d["options"]["fire"] == {"hermes": [DAGGERS[0]]}
    # A carrier the flight can fly round (Sea Area 5: no route from Argentina passes next to it) cannot.
    st = ar()
    order, _ = _ar_air_sea(st, [DAGGERS[0]], area="falklands", carrier_at="sa5")
    out, st2 = play(st, AR, order)
    assert all(d["kind"] != "interception" for d in st2["pending"])


def test_fs_9_6_emergency_rebasing_is_intercepted_on_each_aircrafts_own_route():
    from domain.rulesets.falklands import ops
    st = ar()
    place(st, "hermes", "sa3")
    place(st, DAGGERS[0], "port_stanley")
    to_argentina = ops.interception_frame(st, [DAGGERS[0]], S.TACTICAL, "9.6", destinations={DAGGERS[0]: S.ARGENTINA})
    assert to_argentina["reach"] == {"hermes": [DAGGERS[0]]}  # every route home passes next to Sea Area 3
    assert ops.interception_frame(st, [DAGGERS[0]], S.TACTICAL, "9.6",
                                  destinations={DAGGERS[0]: "goose_green"}) is None  # within the Tactical Map


def test_fs_7_1_op_11_over_the_tactical_map_with_carriers_in_range_op_19():
    st = ar()
    place(st, "invincible", "sa6")
    place(st, DAGGERS[0], S.ARGENTINA)
    place(st, UK_INFANTRY[0], "san_carlos")
    out, st2 = play(st, AR, op(19, area="san_carlos", aircraft=[DAGGERS[0]],
                               fire=[{"unit": DAGGERS[0], "at": UK_INFANTRY[0]}]))
    d = pending(st2)
    assert d["kind"] == "interception" and d["options"]["fire"] == {"invincible": [DAGGERS[0]]}


def test_fs_7_1_op_11_only_the_land_based_aircraft_of_an_op_20():
    st = ar()
    place(st, "hermes", "sa6")
    place(st, UK_DESTROYERS[0], "sa6")
    place(st, AR_DESTROYERS[0], "sa1")
    place(st, DAGGERS[0], S.ARGENTINA)
    out, st2 = play(st, AR, op(20, units=[AR_DESTROYERS[0]], destination="sa6", attack=True, aircraft=[DAGGERS[0]],
                               fire=[{"unit": AR_DESTROYERS[0], "at": UK_DESTROYERS[0]},
                                     {"unit": DAGGERS[0], "at": UK_DESTROYERS[0]}]))
    d = pending(st2)
    assert d["kind"] == "interception" and d["options"]["fire"] == {"hermes": [DAGGERS[0]]}
    assert S.where(st2, AR_DESTROYERS[0]) == "sa6"  # the ships moved; the air attack waits


def test_fs_7_1_op_11_costs_no_uk_operation_and_may_be_declined():
    st = ar()
    order, _ = _ar_air_sea(st, [DAGGERS[0]])
    out, st2 = play(st, AR, order)
    out, st3 = answer(st2, UK, {"fire": []})
    assert "interception" not in [e["kind"] for e in events_of(out, "BattleBegun")]
    assert [DAGGERS[0]] == [u for u in events_of(out, "BattleBegun")[0]["attackers"]]
    assert st3["uk_operations_left"] == st["uk_operations_left"] and st3["ops_log"][UK] == []


@pytest.mark.parametrize("base", ["port_stanley", "goose_green"])
def test_fs_7_1_op_11_the_interception_is_fought_on_the_route_not_in_the_entrenched_target_area(base):
    # FS 10.9's example: the carriers fire at the planes halted in a sea area on their way, with
    # their anti-air hit number (3); FS 10.7's entrenchments reduce UK units attacking *in* Port
    # Stanley or Goose Green, which an interception of a flight bound there is not.
    st = ar()
    place(st, "hermes", "falklands")
    place(st, DAGGERS[0], S.ARGENTINA)
    control(st, AR, base)
    out, st2 = play(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination=base))
    assert pending(st2)["kind"] == "interception"
    out, _ = answer(st2, UK, {"fire": [{"unit": "hermes", "at": DAGGERS[0]}]}, FixedDice(6, 6, 6))
    rolls = [o for o in out if not isinstance(o, tuple)]  # FS 10.9: three shots, all at the one Dagger
    assert len(rolls) == 3
    for roll in rolls:
        assert roll.target == {"hit_number": DATA.units["hermes"]["factors"]["air"], "modifiers": []}


# ========================================================================= Op #12 cross-deck ===
def test_fs_7_1_op_12_switches_ground_units_between_vessels_in_one_sea_area():
    st = uk()
    place(st, "canberra", "sa7")
    place(st, "norland", "sa7")
    place(st, UK_INFANTRY[0], aboard="canberra")
    out, st2 = play(st, UK, op(12, moves={UK_INFANTRY[0]: "norland"}))
    assert events_of(out, "UnitEmbarked") == [{"unit": UK_INFANTRY[0], "ship": "norland", "origin": "canberra",
                                               "rule": "FS 7.1 Op #12"}]
    place(st, "stromness", "sa4")
    assert rejected(st, UK, op(12, moves={UK_INFANTRY[0]: "stromness"})).rule == "FS 7.1 Op #12"
    place(st, UK_INFANTRY[1], "san_carlos")
    assert rejected(st, UK, op(12, moves={UK_INFANTRY[1]: "norland"})).rule == "FS 7.1 Op #12"  # not aboard


def test_fs_7_1_op_12_load_limits_are_checked_after_all_the_switches():
    st = uk()
    place(st, "norland", "sa7")
    place(st, "stromness", "sa7")
    cap = DATA.units["norland"]["capacity"]
    assert cap == DATA.units["stromness"]["capacity"] and cap % 2 == 0
    n = cap // 2
    a, b = UK_INFANTRY[:n], UK_INFANTRY[n:2 * n]
    for u in a:
        place(st, u, aboard="norland")
    for u in b:
        place(st, u, aboard="stromness")
    out, st2 = play(st, UK, op(12, moves={a[0]: "stromness", b[0]: "norland"}))  # a swap between full ships
    assert st2["units"][a[0]]["aboard"] == "stromness" and st2["units"][b[0]]["aboard"] == "norland"
    assert rejected(st, UK, op(12, moves={a[0]: "stromness"})).rule == "FS 6.2(2)"


# ==================================================================== Op #13 airbase attack ===
def test_fs_7_1_op_13_carriers_strike_aircraft_on_the_ground_with_their_anti_air_factor_no_return_fire():
    st = uk()
    place(st, "hermes", "falklands")
    place(st, "invincible", "sa7")
    place(st, DAGGERS[0], "pebble_island")
    place(st, PUCARAS[0], "pebble_island")
    shots = [{"unit": "hermes", "at": DAGGERS[0]}, {"unit": "invincible", "at": PUCARAS[0]}]
    out, st2 = play(st, UK, op(13, carriers=["hermes", "invincible"], airbase="pebble_island", fire=shots),
                    FixedDice(1, 1, default=6))  # then the carriers' other shots (FS 10.9)
    assert "DecisionPending" not in names(out)  # no AR return fire
    (battle,) = events_of(out, "BattleBegun")
    assert (battle["kind"], battle["area"], battle["attackers"]) == ("airbase", "pebble_island", ["hermes", "invincible"])
    rolls = [o for o in out if names([o]) == ["Roll"]]
    area = DATA.areas["pebble_island"]
    for r, shooter in zip(rolls, ["hermes", "invincible"]):
        printed = DATA.units[shooter]["factors"]["air"]
        expected = max(1, printed - int(area["mountains"]) - int(area["entrenched"]))
        assert r.target["hit_number"] == expected and r.seat == UK
    assert sorted(e["unit"] for e in events_of(out, "UnitEliminated")) == sorted([DAGGERS[0], PUCARAS[0]])


def test_fs_7_1_op_13_one_falklands_airbase_with_ar_aircraft_on_it():
    st = uk()
    place(st, "hermes", "falklands")
    place(st, DAGGERS[0], S.ARGENTINA)
    err = rejected(st, UK, op(13, carriers=["hermes"], airbase="port_stanley",
                              fire=[{"unit": "hermes", "at": DAGGERS[0]}]))
    assert err.rule in ("FS 7.1 Op #13", "FS 10.2")
    err = rejected(st, UK, op(13, carriers=["hermes"], airbase=S.ARGENTINA,
                              fire=[{"unit": "hermes", "at": DAGGERS[0]}]))
    assert err.rule == "FS 7.1 Op #13"
    place(st, UK_INFANTRY[0], "fitzroy")
    err = rejected(st, UK, op(13, carriers=["hermes"], airbase="fitzroy", fire=[]))
    assert err.rule == "FS 7.1 Op #13"  # no airbase there


def test_fs_7_1_op_13_carriers_only_and_at_least_one_shot():
    st = uk()
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    place(st, DAGGERS[0], "port_stanley")
    err = rejected(st, UK, op(13, carriers=["glamorgan"], airbase="port_stanley",
                              fire=[{"unit": "glamorgan", "at": DAGGERS[0]}]))
    assert err.rule == "FS 7.1 Op #13"
    err = rejected(st, UK, op(13, carriers=["hermes"], airbase="port_stanley", fire=[]))
    assert err.rule == "FS 10.2"  # a committed carrier fires: no unit is withheld
