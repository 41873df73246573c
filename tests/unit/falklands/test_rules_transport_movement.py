"""Falklands Showdown FS 6 (stacking, basing, transport), FS 8 (submarine phases) and FS 9
(movement and ranges), each rule on a small synthetic position (tests/unit/falklands/helpers.py)."""

from __future__ import annotations

import pytest

from domain.errors import InvalidOrder, RuleViolation
from domain.rulesets.falklands import state as S
from domain.rulesets.falklands import tables as T
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, AR_DESTROYERS, AR_SUBS, DAGGERS, PUCARAS, R, UK, UK_DESTROYERS, UK_INFANTRY, UK_SF, UK_SUBS,
    FixedDice, answer, ar, control, empty, events_of, names, op, pending, place, play, set_phase, uk,
)

AR_INFANTRY = sorted(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "infantry")
A4S = sorted(u for u, d in DATA.units.items() if d.get("range") == "a4")
NON_PUCARA_AIRCRAFT = sorted(u for u, d in DATA.units.items() if d["class"] == "aircraft" and d["type"] != "Puc"
                             and not d["stealth"])
SBS_CARRIER = next(u for u, d in DATA.units.items() if d.get("carries_sbs"))
ARMOR_CARRIERS = sorted(u for u, d in DATA.units.items() if d.get("carries_armor"))
UK_ARMOR = next(u for u, d in DATA.units.items() if d["side"] == UK and d.get("armor"))
AR_ARMOR = next(u for u, d in DATA.units.items() if d["side"] == AR and d.get("armor"))
AR_HMG = next(u for u, d in DATA.units.items() if d["side"] == AR and d["type"] == "hmg")


def rejected(st, seat, order, dice=None, kind=RuleViolation):
    with pytest.raises(kind) as err:
        play(st, seat, order, dice)
    return err.value.rule


# =================================================================== FS 6.1 stacking limits ===
def test_fs_6_1_no_limit_on_vessels_in_one_sea_area():
    st = uk()
    vessels = [u for u, d in DATA.units.items() if d["side"] == UK and d["class"] in ("ship", "submarine")
               and u != T.CONVEYOR]  # with both carriers it would rendezvous and leave play (FS 10.9)
    for u in vessels:
        place(st, u, "sa4")
    out, st2 = play(st, UK, op(20, units=vessels, destination="sa7"))
    assert len(events_of(out, "UnitMoved")) == len(vessels)
    assert all(S.where(st2, u) == "sa7" for u in vessels)


def test_fs_6_1_no_limit_on_land_units_in_one_land_area():
    st = uk()
    for u in UK_INFANTRY:
        place(st, u, "san_carlos")
    out, st2 = play(st, UK, op(24, units=UK_INFANTRY, origin="san_carlos", destination="teal_inlet"))
    assert all(S.where(st2, u) == "teal_inlet" for u in UK_INFANTRY)


# ========================================================== FS 6.2 naval transport & airbases ===
def cross_deck(st, moves):
    """Op #12 (UK cross-decking): the simplest way to put units aboard chosen ships."""
    set_phase(st, "UK Operations")
    return play(st, UK, op(12, moves=moves))


def test_fs_6_2_1_any_surface_ship_carries_one_sf():
    st = uk()
    place(st, "hermes", "sa4")
    place(st, "glamorgan", "sa4")
    place(st, UK_SF[0], aboard="hermes")
    out, st2 = cross_deck(st, {UK_SF[0]: "glamorgan"})
    assert events_of(out, "UnitEmbarked") == [{"unit": UK_SF[0], "ship": "glamorgan", "origin": "hermes",
                                               "rule": "FS 7.1 Op #12"}]
    assert st2["units"][UK_SF[0]]["aboard"] == "glamorgan"


def test_fs_6_2_1_but_only_one():
    st = uk()
    place(st, "hermes", "sa4")
    place(st, "glamorgan", "sa4")
    place(st, UK_SF[0], aboard="hermes")
    place(st, UK_SF[1], aboard="glamorgan")
    assert rejected(st, UK, op(12, moves={UK_SF[0]: "glamorgan"})) == "FS 6.2(1)"


def test_fs_6_2_1_onyx_carries_the_sbs_and_no_other_submarine_carries_anything():
    assert DATA.units[SBS_CARRIER]["name"] == "Onyx"
    st = uk()
    place(st, "hermes", "sa4")
    place(st, SBS_CARRIER, "sa4")
    other_sub = next(u for u in UK_SUBS if u != SBS_CARRIER)
    place(st, other_sub, "sa4")
    place(st, "sbs", aboard="hermes")
    other_sf = next(u for u in UK_SF if u != "sbs")
    place(st, other_sf, "sa4")
    st["units"][other_sf].update(location=None, aboard="hermes")
    out, st2 = cross_deck(st, {"sbs": SBS_CARRIER})
    assert st2["units"]["sbs"]["aboard"] == SBS_CARRIER
    assert rejected(st, UK, op(12, moves={"sbs": other_sub})) == "FS 6.2(1)"
    assert rejected(st, UK, op(12, moves={other_sf: SBS_CARRIER})) == "FS 6.2(1)"
    place(st, UK_INFANTRY[0], aboard="hermes")
    assert rejected(st, UK, op(12, moves={UK_INFANTRY[0]: SBS_CARRIER})) == "FS 6.2(1)"


def test_fs_6_2_2_only_elk_fearless_and_intrepid_carry_the_b_and_r():
    assert {DATA.units[u]["name"] for u in ARMOR_CARRIERS} == {"Elk", "Fearless", "Intrepid"}
    st = uk()
    for ship in ("elk", "fearless", "intrepid", "canberra", "norland"):
        place(st, ship, "sa4")
    place(st, UK_ARMOR, aboard="elk")
    for ship in ("fearless", "intrepid"):
        out, st2 = cross_deck(st, {UK_ARMOR: ship})
        assert st2["units"][UK_ARMOR]["aboard"] == ship
    for ship in ("canberra", "norland"):
        assert rejected(st, UK, op(12, moves={UK_ARMOR: ship})) == "FS 6.2(2)"


def test_fs_6_2_2_fearless_and_intrepid_carry_up_to_five_steps():
    assert DATA.units["fearless"]["capacity"] == DATA.units["intrepid"]["capacity"] == 5
    st = uk()
    place(st, "fearless", "sa4")
    place(st, "canberra", "sa4")
    two_step = UK_INFANTRY[:3]
    assert all(DATA.units[u]["steps"] == 2 for u in two_step)
    for u in two_step:
        place(st, u, aboard="canberra")
    out, st2 = cross_deck(st, {u: "fearless" for u in two_step[:2]})  # four steps
    assert all(st2["units"][u]["aboard"] == "fearless" for u in two_step[:2])
    assert rejected(st, UK, op(12, moves={u: "fearless" for u in two_step})) == "FS 6.2(2)"  # six


def test_fs_6_2_2_a_reduced_uk_unit_counts_its_one_remaining_step():
    # FS 6.2(2) counts UK loads "in terms of steps"; a Hit unit has one step left (FS 2.8), as
    # Op #17 counts it for the five of a first wave.
    st = uk()
    place(st, "fearless", "sa4")
    place(st, "canberra", "sa4")
    for u in UK_INFANTRY[:3]:
        place(st, u, aboard="canberra")
    st["units"][UK_INFANTRY[2]]["steps"] = 1
    out, st2 = cross_deck(st, {u: "fearless" for u in UK_INFANTRY[:3]})  # 2 + 2 + 1 = five steps
    assert all(st2["units"][u]["aboard"] == "fearless" for u in UK_INFANTRY[:3])


def test_fs_6_2_2_cabo_san_antonio_carries_two_units_infantry_hmg_or_sf_only():
    assert DATA.units[T.AR_ASSAULT_SHIP]["capacity"] == 2
    st = ar()
    place(st, T.AR_ASSAULT_SHIP, S.ARGENTINA)
    for u in (*AR_INFANTRY[:3], AR_ARMOR, AR_HMG):
        place(st, u, S.ARGENTINA)
    out, st2 = play(st, AR, op(23, loads={AR_INFANTRY[0]: T.AR_ASSAULT_SHIP, AR_HMG: T.AR_ASSAULT_SHIP}))
    assert [e["unit"] for e in events_of(out, "UnitEmbarked")] == [AR_INFANTRY[0], AR_HMG]
    assert rejected(st, AR, op(23, loads={u: T.AR_ASSAULT_SHIP for u in AR_INFANTRY[:3]})) == "FS 6.2(2)"
    assert rejected(st, AR, op(23, loads={AR_ARMOR: T.AR_ASSAULT_SHIP})) == "FS 6.2(2)"


def test_fs_6_2_2_the_atlantic_conveyor_never_carries_any_unit():
    st = uk()
    place(st, T.CONVEYOR, "sa4")
    place(st, "canberra", "sa4")
    place(st, UK_INFANTRY[0], aboard="canberra")
    place(st, UK_SF[0], aboard="canberra")
    assert rejected(st, UK, op(12, moves={UK_INFANTRY[0]: T.CONVEYOR})) == "FS 6.2(2)"
    assert rejected(st, UK, op(12, moves={UK_SF[0]: T.CONVEYOR})) == "FS 6.2(2)"  # not even the one SF


def test_fs_6_2_3_and_4_airbase_limits_three_two_two():
    assert dict(DATA.airbases) == {"port_stanley": 3, "goose_green": 2, "pebble_island": 2}
    assert T.BASING_RULES == {"port_stanley": "FS 6.2(3)", "goose_green": "FS 6.2(4)", "pebble_island": "FS 6.2(4)"}
    for base, cap in DATA.airbases.items():
        st = ar()
        planes = NON_PUCARA_AIRCRAFT[:cap + 1]
        for u in planes:
            place(st, u, S.ARGENTINA)
        # FS 9.4: A-4s from Argentina reach a Falklands base with aerial refuelling
        refuel = [u for u in planes if u in A4S]
        out, st2 = play(st, AR, op(3, aircraft=planes[:cap], origin=S.ARGENTINA, destination=base,
                                   refuel=[u for u in refuel if u in planes[:cap]]))
        assert [e["destination"] for e in events_of(out, "UnitMoved")] == [base] * cap
        assert rejected(st, AR, op(3, aircraft=planes, origin=S.ARGENTINA, destination=base, refuel=refuel)) == \
            T.BASING_RULES[base]
        # aircraft already there count too
        place(st, planes[0], base)
        assert rejected(st, AR, op(3, aircraft=planes[1:], origin=S.ARGENTINA, destination=base,
                                   refuel=[u for u in refuel if u in planes[1:]])) == T.BASING_RULES[base]


def test_fs_6_2_a_land_area_without_an_airbase_bases_no_aircraft():
    st = ar()
    place(st, DAGGERS[0], S.ARGENTINA)
    assert rejected(st, AR, op(3, aircraft=[DAGGERS[0]], origin=S.ARGENTINA, destination="fitzroy")) == "FS 6.2"


# ======================================================================= FS 6.3 Falklands bases ===
def test_fs_6_3_a_contested_base_stays_usable_as_origin_but_is_no_destination():
    st = ar()
    place(st, AR_INFANTRY[0], "goose_green")
    place(st, UK_INFANTRY[0], "goose_green")  # contested, still AR-controlled
    place(st, PUCARAS[0], "goose_green")
    place(st, PUCARAS[1], S.ARGENTINA)
    assert S.contested(st, "goose_green") and st["control"]["goose_green"] == AR
    out, st2 = play(st, AR, op(3, aircraft=[PUCARAS[0]], origin="goose_green", destination="port_stanley"))
    assert S.where(st2, PUCARAS[0]) == "port_stanley"
    assert rejected(st, AR, op(3, aircraft=[PUCARAS[1]], origin=S.ARGENTINA, destination="goose_green")) \
        == "FS 7.1 Op #3"


def test_fs_6_3_aircraft_on_the_tactical_map_reach_all_of_it():
    st = ar()
    place(st, PUCARAS[0], "pebble_island")
    place(st, UK_INFANTRY[0], "fox_bay")
    out, st2 = play(st, AR, op(19, area="fox_bay", aircraft=[PUCARAS[0]],
                               fire=[{"unit": PUCARAS[0], "at": UK_INFANTRY[0]}]), FixedDice(6, default=6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == [PUCARAS[0]]


# ============================================================================ FS 6.4 the box ===
def test_fs_6_4_the_uk_stacks_anything_in_south_georgia_ar_only_submarines():
    st = uk()
    movers = ["hermes", "invincible", "canberra", "fearless", *UK_DESTROYERS[:4], *UK_SUBS[:2]]
    for u in movers:
        place(st, u, "sa5")
    place(st, UK_INFANTRY[0], aboard="canberra")
    out, st2 = play(st, UK, op(20, units=movers, destination=S.SOUTH_GEORGIA))
    assert all(S.where(st2, u) == S.SOUTH_GEORGIA for u in [*movers, UK_INFANTRY[0]])
    st = ar()
    place(st, AR_DESTROYERS[0], "sa5")
    place(st, AR_SUBS[0], "sa5")
    assert rejected(st, AR, op(20, units=[AR_DESTROYERS[0], AR_SUBS[0]], destination=S.SOUTH_GEORGIA)) == "FS 3.7"
    out, st3 = play(st, AR, op(20, units=[AR_SUBS[0]], destination=S.SOUTH_GEORGIA))
    assert S.where(st3, AR_SUBS[0]) == S.SOUTH_GEORGIA


# ===================================================================== FS 6.5 units at sea ===
def test_fs_6_5_ground_units_go_to_sea_only_in_a_or_t_ships():
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "canberra", "falklands")
    place(st, UK_INFANTRY[0], "san_carlos")
    control(st, UK, "san_carlos")
    assert rejected(st, UK, op(23, loads={UK_INFANTRY[0]: "glamorgan"})) == "FS 6.5"
    out, st2 = play(st, UK, op(23, loads={UK_INFANTRY[0]: "canberra"}))
    assert events_of(out, "UnitEmbarked") == [{"unit": UK_INFANTRY[0], "ship": "canberra", "origin": "san_carlos",
                                               "rule": "FS 7.1 Op #23"}]
    assert S.where(st2, UK_INFANTRY[0]) == "falklands"  # carried: where its ship is


def test_fs_6_5_cargo_moves_with_its_ship():
    st = uk()
    place(st, "canberra", "sa4")
    place(st, UK_INFANTRY[0], aboard="canberra")
    out, st2 = play(st, UK, op(20, units=["canberra"], destination="sa7"))
    assert [e["unit"] for e in events_of(out, "UnitMoved")] == ["canberra"]
    assert S.where(st2, UK_INFANTRY[0]) == "sa7" and st2["units"][UK_INFANTRY[0]]["aboard"] == "canberra"


def _sink_transport(st, transport, cargo):
    """AR aircraft attack a UK transport with one step left in Sea Area 1 (no carriers near)."""
    plane = A4S[0]
    place(st, plane, S.ARGENTINA)
    place(st, transport, "sa1", steps=1)
    for u in cargo:
        place(st, u, aboard=transport)
    set_phase(st, "AR Operations")
    face = DATA.units[plane]["factors"]["surface"]
    out, st2 = play(st, AR, op(18, area="sa1", aircraft=[plane], fire=[{"unit": plane, "at": transport}]),
                    FixedDice(face))
    if pending(st2):
        o2, st2 = answer(st2, UK, {"fire": "auto"}, FixedDice(face, default=6))
        out += o2
    return out, st2


def test_fs_6_5_cargo_shares_its_ships_fate():
    st = empty("AR Operations")
    cargo = UK_INFANTRY[:2]
    out, st2 = _sink_transport(st, "canberra", cargo)
    elim = events_of(out, "UnitEliminated")
    assert (elim[0]["unit"], elim[0]["rule"]) == ("canberra", "FS 7.1 Op #18")
    assert sorted((e["unit"], e["rule"]) for e in elim[1:]) == [(u, "FS 6.5") for u in sorted(cargo)]
    assert all(st2["units"][u]["eliminated"] for u in ["canberra", *cargo])
    # Only the ship scores (FS 4.4(4)); the cargo is not a ship.
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(2, "FS 4.4(4)")]


def test_fs_6_5_an_sf_team_at_sea_goes_down_with_its_ship():
    # FS 6.5 ("fully share the fate") before FS 10.8's list of the ways SF are eliminated: a team
    # aboard a sunk ship is lost with it.
    st = empty("AR Operations")
    out, st2 = _sink_transport(st, UK_DESTROYERS[0], [UK_SF[0]])
    assert [(e["unit"], e["rule"]) for e in events_of(out, "UnitEliminated")] == \
        [(UK_DESTROYERS[0], "FS 7.1 Op #18"), (UK_SF[0], "FS 6.5")]
    assert not S.alive(st2, UK_SF[0])


def test_fs_6_5_a_carried_unit_is_never_attacked_separately():
    st = empty("AR Operations")
    place(st, A4S[0], S.ARGENTINA)
    place(st, "canberra", "sa1")
    place(st, UK_INFANTRY[0], aboard="canberra")
    assert rejected(st, AR, op(18, area="sa1", aircraft=[A4S[0]], fire=[{"unit": A4S[0], "at": UK_INFANTRY[0]}])) \
        == "FS 10.2"


# ========================================================================== FS 6.6 no fog ===
def test_fs_6_6_every_unit_of_both_sides_is_visible_reinforcements_too():
    board = R.board()
    assert set(board["units"]) == set(DATA.units)
    st = empty()
    assert set(st["units"]) == set(DATA.units)  # the state holds reinforcements not yet entered


# ======================================================================= FS 8 submarine phases ===
def test_fs_8_1_submarines_move_freely_in_their_phase_and_use_no_operation():
    st = uk("UK Submarine")
    place(st, UK_SUBS[0], "sa1")
    place(st, UK_SUBS[1], "sa2")
    place(st, UK_SUBS[2], "sa3")
    out, st2 = play(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: "sa5", UK_SUBS[1]: S.SOUTH_GEORGIA}})
    assert [(e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")] == \
        [(UK_SUBS[0], "sa5", "FS 8.1"), (UK_SUBS[1], S.SOUTH_GEORGIA, "FS 8.1")]
    assert S.where(st2, UK_SUBS[2]) == "sa3"  # one, some or all
    assert "OperationBegun" not in names(out) and "OperationCompleted" not in names(out)
    assert st2["uk_operations_left"] == st["uk_operations_left"] and st2["ops_log"] == st["ops_log"]
    assert st2["phase"] == "AR Submarine"


def test_fs_8_1_moving_none_is_allowed():
    st = uk("UK Submarine")
    out, st2 = play(st, UK, {"kind": "submarines", "moves": {}})
    assert events_of(out, "UnitMoved") == [] and st2["phase"] == "AR Submarine"


def test_fs_8_1_ar_submarine_phase_may_go_in_port_and_the_random_event_phase_follows():
    st = ar("AR Submarine")
    place(st, AR_SUBS[0], "sa1")
    out, st2 = play(st, AR, {"kind": "submarines", "moves": {AR_SUBS[0]: S.ARGENTINA}}, FixedDice(1, 1))
    assert events_of(out, "UnitMoved")[0]["destination"] == S.ARGENTINA
    assert events_of(out, "PhaseAdvanced")[0]["phase"] == "Random Event"


@pytest.mark.parametrize("what", ["surface ship", "enemy submarine", "not in play"])
def test_fs_8_1_only_your_own_submarines_in_play_move(what):
    st = uk("UK Submarine")
    place(st, "glamorgan", "sa4")
    place(st, AR_SUBS[0], "sa1")
    unit = {"surface ship": "glamorgan", "enemy submarine": AR_SUBS[0], "not in play": UK_SUBS[-1]}[what]
    assert rejected(st, UK, {"kind": "submarines", "moves": {unit: "sa2"}}) == "FS 8.1"


def test_fs_8_1_submarine_moves_only_in_the_submarine_phase():
    st = uk("UK Operations")
    place(st, UK_SUBS[0], "sa1")
    assert rejected(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: "sa2"}}) == "FS 8.1"
    set_phase(st, "AR Submarine")
    assert rejected(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: "sa2"}}) == "FS 8.1"


def test_fs_8_2_no_attacks_in_a_submarine_phase():
    st = uk("UK Submarine")
    place(st, UK_SUBS[0], "sa1")
    place(st, AR_DESTROYERS[0], "sa2")
    place(st, AR_SUBS[0], "sa2")
    out, st2 = play(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: "sa2"}})
    assert "BattleBegun" not in names(out) and "Roll" not in names(out)
    assert S.contested(st2, "sa2") and S.alive(st2, AR_DESTROYERS[0])


def test_fs_8_3_a_boat_moved_in_its_submarine_phase_may_still_move_in_an_op_which_costs_an_op():
    st = uk("UK Submarine")
    place(st, UK_SUBS[0], "sa1")
    out, st = play(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: "sa2"}})
    set_phase(st, "UK Operations", turn=2)
    before = st["uk_operations_left"]
    out, st2 = play(st, UK, op(20, units=[UK_SUBS[0]], destination="sa6"))
    assert S.where(st2, UK_SUBS[0]) == "sa6"
    assert st2["uk_operations_left"] == before - 1


# ================================================================================ FS 9 moves ===
def test_fs_9_1_ships_go_anywhere_in_one_op_any_number_of_them():
    st = uk()
    for u in UK_DESTROYERS[:5]:
        place(st, u, "sa1")
    out, st2 = play(st, UK, op(20, units=UK_DESTROYERS[:5], destination="sa5"))  # not adjacent
    assert all(S.where(st2, u) == "sa5" for u in UK_DESTROYERS[:5])


def test_fs_9_1_south_georgia_is_for_all_uk_vessels_and_only_ar_submarines():
    assert DATA.south_georgia_entry == "sa5"
    assert S.SOUTH_GEORGIA in DATA.sea_adjacent("sa5")
    st = uk()
    place(st, "glamorgan", S.SOUTH_GEORGIA)
    place(st, UK_SUBS[0], S.SOUTH_GEORGIA)
    out, st2 = play(st, UK, op(20, units=["glamorgan", UK_SUBS[0]], destination="sa1"))
    assert S.where(st2, "glamorgan") == "sa1"
    st = ar()
    place(st, AR_SUBS[0], S.SOUTH_GEORGIA)
    out, st3 = play(st, AR, op(20, units=[AR_SUBS[0]], destination="sa6"))
    assert S.where(st3, AR_SUBS[0]) == "sa6"
    place(st, AR_DESTROYERS[0], "sa5")
    assert rejected(st, AR, op(20, units=[AR_DESTROYERS[0]], destination=S.SOUTH_GEORGIA)) == "FS 3.7"


def test_fs_9_2_ground_units_move_one_adjoining_land_area():
    st = uk()
    place(st, UK_INFANTRY[0], "goose_green")
    assert rejected(st, UK, op(24, units=[UK_INFANTRY[0]], origin="goose_green", destination="port_stanley")) \
        == "FS 9.2"
    out, st2 = play(st, UK, op(24, units=[UK_INFANTRY[0]], origin="goose_green", destination="lafonia"))
    assert S.where(st2, UK_INFANTRY[0]) == "lafonia"


def test_fs_9_2_lafonia_adjoins_only_goose_green():
    assert DATA.land_adjacent("lafonia") == {"goose_green"}
    st = uk()
    place(st, UK_INFANTRY[0], "lafonia")
    for a in DATA.land_areas:
        if a not in ("lafonia", "goose_green"):
            assert rejected(st, UK, op(24, units=[UK_INFANTRY[0]], origin="lafonia", destination=a)) == "FS 9.2"


def _airbase_strike(st, carrier, base):
    place(st, carrier, st["units"][carrier]["location"])
    place(st, PUCARAS[0], base)
    return op(13, carriers=[carrier], airbase=base, fire=[{"unit": carrier, "at": PUCARAS[0]}])


def test_fs_9_3_carriers_strike_one_sea_area_away_and_land_areas_lie_in_the_falklands_sea_area():
    for at in ["falklands", *sorted(DATA.sea_adjacent("falklands"))]:
        st = uk()
        place(st, "hermes", at)
        place(st, PUCARAS[0], "goose_green")
        out, _ = play(st, UK, op(13, carriers=["hermes"], airbase="goose_green",
                                 fire=[{"unit": "hermes", "at": PUCARAS[0]}]), FixedDice(6, 6, 6))
        assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"], at
    for at in [a for a in DATA.sea_areas if a != "falklands" and a not in DATA.sea_adjacent("falklands")]:
        st = uk()
        place(st, "hermes", at)
        place(st, PUCARAS[0], "goose_green")
        assert rejected(st, UK, op(13, carriers=["hermes"], airbase="goose_green",
                                   fire=[{"unit": "hermes", "at": PUCARAS[0]}])) == "FS 9.3", at


def test_fs_9_3_carrier_range_at_sea():
    st = uk()
    place(st, "hermes", "sa6")
    place(st, AR_DESTROYERS[0], "sa1")
    place(st, AR_DESTROYERS[1], "sa4")
    out, st2 = play(st, UK, op(18, area="sa1", carriers=["hermes"], fire=[{"unit": "hermes", "at": AR_DESTROYERS[0]}]),
                    FixedDice(6, 6, 6))
    assert events_of(out, "BattleBegun")[0]["area"] == "sa1"
    assert rejected(st, UK, op(18, area="sa4", carriers=["hermes"],
                               fire=[{"unit": "hermes", "at": AR_DESTROYERS[1]}])) == "FS 9.3"


def _air_sea(st, aircraft, area, refuel=()):
    target = AR_DESTROYERS[0] if False else UK_DESTROYERS[0]
    place(st, target, area)
    for u in aircraft:
        place(st, u, S.ARGENTINA)
    return op(18, area=area, aircraft=list(aircraft), refuel=list(refuel),
              fire=[{"unit": u, "at": target} for u in aircraft])


def _attacks(st, order):
    out, st2 = play(st, AR, order, FixedDice(default=6))
    return events_of(out, "BattleBegun")


def test_fs_9_4_a4s_from_argentina_reach_sea_areas_1_2_3_and_6():
    assert DATA.a4_reach == {"sa1", "sa2", "sa3", "sa6"}
    for area in DATA.sea_areas:
        st = ar()
        order = _air_sea(st, [A4S[0]], area)
        if area in ("sa1", "sa2", "sa3", "sa6"):
            assert _attacks(st, order), area
        else:
            assert rejected(st, AR, order) == "FS 9.4", area


def test_fs_9_4_aerial_refuelling_extends_up_to_four_a4s_to_the_falklands_sea_area():
    assert DATA.a4_refuelled_reach == {"falklands"}
    st = ar()
    assert rejected(st, AR, _air_sea(st, A4S[:1], "falklands")) == "FS 9.4"
    st = ar()
    order = _air_sea(st, A4S[:4], "falklands", refuel=A4S[:4])
    (battle,) = _attacks(st, order)
    assert battle["attackers"] == A4S[:4]
    # Refuelling reaches the Falklands Sea Area only, never Sea Area 7.
    st = ar()
    assert rejected(st, AR, _air_sea(st, A4S[:1], "sa7", refuel=A4S[:1])) == "FS 9.4"


def test_fs_9_4_no_more_than_four_refuelled_and_only_argentina_based_a4s():
    st = ar()
    order = _air_sea(st, [*A4S[:4], DAGGERS[0]], "falklands", refuel=[*A4S[:4], DAGGERS[0]])
    assert rejected(st, AR, order) == "FS 9.4"
    st = ar()
    assert rejected(st, AR, _air_sea(st, [DAGGERS[0]], "falklands", refuel=[DAGGERS[0]])) == "FS 9.4"


def test_fs_9_4_other_aircraft_reach_out_to_the_range_line():
    for area in DATA.sea_areas:
        st = ar()
        order = _air_sea(st, [DAGGERS[0]], area)
        if area in DATA.range_line:
            assert _attacks(st, order), area
        else:
            assert rejected(st, AR, order) == "FS 9.4", area


def test_fs_9_5_aircraft_based_in_the_falklands_have_unlimited_range():
    for area in DATA.sea_areas:
        st = ar()
        place(st, UK_DESTROYERS[0], area)
        place(st, DAGGERS[0], "port_stanley")
        order = op(18, area=area, aircraft=[DAGGERS[0]], fire=[{"unit": DAGGERS[0], "at": UK_DESTROYERS[0]}])
        assert _attacks(st, order), area


# ======================================================================= FS 9.6 emergency rebasing ===
def _stranded(carrier_at="falklands"):
    """UK infantry walks into Goose Green, where only AR aircraft (a Pucara and a Dagger) are."""
    st = uk()
    place(st, "hermes", carrier_at)
    place(st, UK_INFANTRY[0], "san_carlos")
    place(st, PUCARAS[0], "goose_green")
    place(st, DAGGERS[0], "goose_green")
    return st, op(24, units=[UK_INFANTRY[0]], origin="san_carlos", destination="goose_green")


def test_fs_9_6_aircraft_alone_in_an_area_the_uk_enters_rebase_at_once_unit_by_unit():
    st, order = _stranded(carrier_at="sa4")  # no carrier in range: no interception
    out, st2 = play(st, UK, order)
    assert events_of(out, "ControlChanged")[0]["area"] == "goose_green"
    d = pending(st2)
    assert (d["seat"], d["kind"], d["rule"]) == (AR, "emergency_rebase", "FS 9.6")
    assert S.ARGENTINA in d["options"]["destinations"][DAGGERS[0]]
    assert "goose_green" not in d["options"]["destinations"][DAGGERS[0]]
    out, st3 = answer(st2, AR, {"destinations": {PUCARAS[0]: "pebble_island", DAGGERS[0]: S.ARGENTINA}})
    assert sorted((e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")) == \
        sorted([(PUCARAS[0], "pebble_island", "FS 9.6"), (DAGGERS[0], S.ARGENTINA, "FS 9.6")])
    assert "OperationBegun" not in names(out)  # no AR operation
    assert events_of(out, "OperationCompleted")[0]["side"] == UK  # the UK op then ends
    assert S.where(st3, PUCARAS[0]) == "pebble_island" and S.where(st3, DAGGERS[0]) == S.ARGENTINA


def test_fs_9_6_normal_basing_limits_apply():
    st, order = _stranded(carrier_at="sa4")
    for u in NON_PUCARA_AIRCRAFT[-1:]:
        place(st, u, "pebble_island")  # one of Pebble Island's two places is taken
    out, st2 = play(st, UK, order)
    with pytest.raises(RuleViolation) as err:
        answer(st2, AR, {"destinations": {PUCARAS[0]: "pebble_island", DAGGERS[0]: "pebble_island"}})
    assert err.value.rule == "FS 6.2(4)"


def test_fs_9_6_rebasing_aircraft_other_than_pucaras_may_be_intercepted():
    st, order = _stranded(carrier_at="falklands")
    out, st2 = play(st, UK, order)
    out, st3 = answer(st2, AR, {"destinations": {PUCARAS[0]: "port_stanley", DAGGERS[0]: "port_stanley"}})
    d = pending(st3)
    assert (d["seat"], d["kind"], d["rule"]) == (UK, "interception", "FS 7.1 Op #11")
    assert d["options"]["fire"] == {"hermes": [DAGGERS[0]]}  # never the Pucara
    hit = DATA.units["hermes"]["factors"]["air"]
    out, st4 = answer(st3, UK, {"fire": [{"unit": "hermes", "at": DAGGERS[0]}]}, FixedDice(hit, 6, 6))  # FS 10.9: three
    assert events_of(out, "BattleBegun")[0]["kind"] == "interception"
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == [DAGGERS[0]]
    assert [e["unit"] for e in events_of(out, "UnitMoved")] == [PUCARAS[0]]  # the survivor goes on
    assert S.where(st4, PUCARAS[0]) == "port_stanley" and not S.alive(st4, DAGGERS[0])


def test_fs_9_6_after_black_buck_only_pucaras_may_rebase_in_the_falklands():
    st, order = _stranded(carrier_at="sa4")
    st["effects"][UK]["black_buck"] = {}
    out, st2 = play(st, UK, order)
    options = pending(st2)["options"]["destinations"]
    assert options[DAGGERS[0]] == [S.ARGENTINA]
    assert "port_stanley" in options[PUCARAS[0]]


# ============================================================================ FS 9.7 Argentina ===
def test_fs_9_7_no_uk_movement_or_combat_in_argentina():
    st = uk()
    place(st, "glamorgan", "sa1")
    assert rejected(st, UK, op(20, units=["glamorgan"], destination=S.ARGENTINA)) == "FS 9.7"
    st = uk("UK Submarine")
    place(st, UK_SUBS[0], "sa1")
    assert rejected(st, UK, {"kind": "submarines", "moves": {UK_SUBS[0]: S.ARGENTINA}}) == "FS 9.7"
    st = uk()
    place(st, "glamorgan", "sa1")
    place(st, AR_DESTROYERS[0], S.ARGENTINA)
    with pytest.raises(RuleViolation) as err:  # not even with the TEZ expanded (Op #10)
        play(st, UK, op(14, area=S.ARGENTINA, units=["glamorgan"], with_op_10=True,
                        fire=[{"unit": "glamorgan", "at": AR_DESTROYERS[0]}]))
    assert err.value.rule in ("FS 7.1 Op #14", "FS 9.7")


def test_fs_9_7_ar_ships_leave_and_enter_port_like_a_sea_area():
    st = ar()
    place(st, AR_DESTROYERS[0], S.ARGENTINA)
    out, st2 = play(st, AR, op(20, units=[AR_DESTROYERS[0]], destination="sa6"))
    assert S.where(st2, AR_DESTROYERS[0]) == "sa6"
    set_phase(st2, "AR Operations")
    out, st3 = play(st2, AR, op(20, units=[AR_DESTROYERS[0]], destination=S.ARGENTINA))
    assert S.where(st3, AR_DESTROYERS[0]) == S.ARGENTINA


def test_fs_9_7_argentina_bases_any_number_of_aircraft():
    st = ar()
    planes = [u for u, d in DATA.units.items() if d["class"] == "aircraft" and d["side"] == AR]
    for u in planes:
        place(st, u, "port_stanley")
    st["effects"][UK]["black_buck"] = {}  # nothing may base back, everything goes home
    out, st2 = play(st, AR, op(3, aircraft=planes, origin="port_stanley", destination=S.ARGENTINA))
    assert all(S.where(st2, u) == S.ARGENTINA for u in planes)


# ============================================================================ FS 9.8 / 9.9 force ===
def test_fs_9_8_nothing_leaves_the_map_by_moving():
    st = uk()
    place(st, "glamorgan", "sa4")
    with pytest.raises(InvalidOrder) as err:
        play(st, UK, op(20, units=["glamorgan"], destination="home"))
    assert err.value.rule == "FS 7.1 Op #20"


def test_fs_9_9_a_force_moves_from_one_area_and_need_not_take_everyone():
    st = uk()
    place(st, "glamorgan", "sa4")
    place(st, "hermes", "sa4")
    place(st, "invincible", "sa5")
    assert rejected(st, UK, op(20, units=["glamorgan", "invincible"], destination="sa7")) == "FS 9.9"
    out, st2 = play(st, UK, op(20, units=["glamorgan"], destination="sa7"))
    assert S.where(st2, "hermes") == "sa4" and S.where(st2, "glamorgan") == "sa7"
