"""FS 7.1 Op #14 to Op #25, each restriction on a small synthetic position. Factors a test relies on
are set with ``with_factor`` (counter values are provisional); dice are chosen with FixedDice."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA
from tests.unit.falklands.helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, fire, names, op, pending, place, play, refused,
    rolls_of, with_factor,
)

SEA = "sa7"
FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])
FLAT2 = next(a for a in DATA.land_areas if a != FLAT and not DATA.areas[a]["mountains"]
             and not DATA.areas[a]["entrenched"] and not DATA.areas[a]["vp"])
AR_PHASE = "AR Operations"


def modifiers(roll) -> list[int]:
    return sorted(m["value"] for m in roll.target["modifiers"])


def factors(monkeypatch, value=3, **units):
    for u in units.get("units", ()):
        with_factor(monkeypatch, u, ground=value, air=value, sub=value, surface=value)


def ashore(st, side, area, *units):
    for u in units:
        place(st, u, area)
    return st


# ----------------------------------------------------------------------------------- Op #14 ---
def test_op_14_ships_and_submarines_attack_the_enemy_surface_vessels_of_their_area(monkeypatch):
    st = empty()
    for u in ("glamorgan", "spartan", "drummond", "salta"):
        place(st, u, SEA)
    factors(monkeypatch, units=("glamorgan", "spartan", "drummond", "salta"))
    out, st = play(st, UK, op(14, area=SEA, units=["glamorgan", "spartan"],
                              fire=fire(("glamorgan", "drummond"), ("spartan", "drummond"))))
    (b,) = events_of(out, "BattleBegun")
    assert b == {"area": SEA, "attacker": UK, "kind": "surface", "rule": "FS 7.1 Op #14",
                 "attackers": ["glamorgan", "spartan"], "defenders": ["drummond"]}  # not the submarine
    out, after = answer(st, AR, {"fire": fire(("drummond", "glamorgan"))}, FixedDice(6, 1, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["drummond"]


def test_op_14_never_at_enemy_submarines(monkeypatch):
    st = empty()
    for u in ("glamorgan", "drummond", "salta"):
        place(st, u, SEA)
    factors(monkeypatch, units=("glamorgan",))
    # Op #14 makes only surface vessels its targets: a shot at a submarine is refused under the
    # operation's own words "(but not enemy submarines)", the most specific rule (was FS 10.2).
    assert refused(st, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "salta")))).rule == \
        "FS 7.1 Op #14"
    st2 = empty()
    place(st2, "glamorgan", SEA)
    place(st2, "salta", SEA)
    assert refused(st2, UK, op(14, area=SEA, units=["glamorgan"], fire=fire(("glamorgan", "salta")))).rule == \
        "FS 7.1 Op #14"


def test_op_14_only_vessels_already_in_that_one_sea_area():
    st = empty()
    place(st, "glamorgan", "sa4")
    place(st, "drummond", SEA)
    assert refused(st, UK, op(14, area=SEA, units=["glamorgan"],
                              fire=fire(("glamorgan", "drummond")))).rule == "FS 7.1 Op #14"
    st = empty(AR_PHASE)
    place(st, "a4_1", "port_stanley")
    place(st, "glamorgan", SEA)
    assert refused(st, AR, op(14, area=SEA, units=["a4_1"],
                              fire=fire(("a4_1", "glamorgan")))).rule == "FS 7.1 Op #14"


def test_op_14_is_for_both_sides(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "drummond", SEA)
    place(st, "yarmouth", SEA)
    factors(monkeypatch, units=("drummond", "yarmouth"))
    out, st = play(st, AR, op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "yarmouth"))))
    assert events_of(out, "BattleBegun")[0]["attacker"] == AR and pending(st)["seat"] == UK


# ----------------------------------------------------------------------------------- Op #15 ---
def ground(monkeypatch, area=FLAT, uk=("2_para",), ar=("ri_12",), phase="UK Operations", holder=AR):
    st = empty(phase)
    for u in (*uk, *ar):
        place(st, u, area)
        with_factor(monkeypatch, u, ground=3, air=3)
    control(st, holder, area)
    return st


def test_op_15_attacks_the_enemy_ground_force_of_a_contested_area(monkeypatch):
    st = ground(monkeypatch)
    out, st = play(st, UK, op(15, area=FLAT, units=["2_para"], fire=fire(("2_para", "ri_12"))))
    assert events_of(out, "BattleBegun")[0]["kind"] == "ground"
    out, after = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(1, 6))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert events_of(out, "ControlChanged") == [{"area": FLAT, "side": UK, "previous": AR, "rule": "FS 3.6"}]
    assert after["control"][FLAT] == UK


def test_op_15_needs_a_contested_area_and_a_force_already_there(monkeypatch):
    st = ground(monkeypatch, ar=())
    place(st, "ri_12", FLAT2)
    assert refused(st, UK, op(15, area=FLAT, units=["2_para"], fire=[])).rule == "FS 7.1 Op #15"
    st = ground(monkeypatch)
    place(st, "3_para", FLAT2)
    assert refused(st, UK, op(15, area=FLAT, units=["3_para"],
                              fire=fire(("3_para", "ri_12")))).rule == "FS 7.1 Op #15"


def test_op_15_combat_is_compulsory_at_least_one_shot(monkeypatch):
    st = ground(monkeypatch)
    # The unit in the area may not hold its fire (FS 10.2), so the refusal names 10.2.
    assert refused(st, UK, op(15, area=FLAT, units=["2_para"], fire=[])).rule == "FS 10.2"


def test_op_15_ar_may_add_in_range_aircraft_and_its_carrier_the_uk_no_carrier(monkeypatch):
    st = ground(monkeypatch, phase=AR_PHASE)
    place(st, "pucara_1", "port_stanley")
    place(st, "25_de_mayo", "falklands")
    with_factor(monkeypatch, "pucara_1", ground=3)
    with_factor(monkeypatch, "25_de_mayo", ground=3)
    out, st = play(st, AR, op(15, area=FLAT, units=["ri_12"], aircraft=["pucara_1"], carriers=["25_de_mayo"],
                              fire=fire(("ri_12", "2_para"), ("pucara_1", "2_para"), ("25_de_mayo", "2_para"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ri_12", "pucara_1", "25_de_mayo"]
    # The defenders fire at the ground force and the aircraft, never at the distant carrier.
    assert pending(st)["options"]["fire"] == {"2_para": ["ri_12", "pucara_1"]}
    st = ground(monkeypatch)
    place(st, "hermes", "falklands")
    assert refused(st, UK, op(15, area=FLAT, units=["2_para"], carriers=["hermes"],
                              fire=fire(("2_para", "ri_12")))).rule == "FS 7.1 Op #15"


# ----------------------------------------------------------------------------------- Op #16 ---
def landing(area_units=(), ship="fearless"):
    st = empty()
    place(st, ship, "falklands")
    place(st, "2_para", aboard=ship)
    place(st, "40_cdo", aboard=ship)
    return st


def test_op_16_lands_into_a_friendly_area():
    st = landing()
    control(st, UK, FLAT)
    place(st, "3_para", FLAT)
    out, after = play(st, UK, op(16, units=["2_para"], area=FLAT))
    assert events_of(out, "UnitDisembarked") == [{"unit": "2_para", "ship": "fearless", "area": FLAT,
                                                  "rule": "FS 7.1 Op #16"}]
    assert after["units"]["2_para"]["location"] == FLAT and after["units"]["2_para"]["aboard"] is None
    assert after["units"]["40_cdo"]["aboard"] == "fearless"  # one, some or all


def test_op_16_lands_into_a_contested_area_without_combat():
    st = landing()
    place(st, "3_para", FLAT)
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    place(st, "drummond", "falklands")  # the sea area may be contested too
    out, after = play(st, UK, op(16, units=["2_para", "40_cdo"], area=FLAT))
    assert "BattleBegun" not in names(out) and not rolls_of(out)
    assert S.contested(after, FLAT) and after["control"][FLAT] == AR


def test_op_16_lands_into_an_area_devoid_of_ground_units_and_takes_it():
    # FS 3.6: an area comes under your control the instant you alone have ground units in it.
    area = "pebble_island"
    st = landing()
    control(st, AR, area)
    out, after = play(st, UK, op(16, units=["2_para"], area=area))
    assert events_of(out, "ControlChanged") == [{"area": area, "side": UK, "previous": AR, "rule": "FS 3.6"}]
    assert after["control"][area] == UK
    assert any(e["rule"] == "FS 4.4(5)" and e["delta"] == -DATA.vp_areas[area] for e in events_of(out, "VPScored"))


def test_op_16_never_into_an_enemy_held_area():
    st = landing()
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    assert refused(st, UK, op(16, units=["2_para"], area=FLAT)).rule == "FS 7.1 Op #16"


def test_op_16_only_units_aboard_ships_in_the_falkland_islands_sea_area():
    st = landing()
    place(st, "fearless", SEA)
    control(st, UK, FLAT)
    assert refused(st, UK, op(16, units=["2_para"], area=FLAT)).rule == "FS 7.1 Op #16"
    st = landing()
    place(st, "3_para", FLAT2)
    control(st, UK, FLAT, FLAT2)
    assert refused(st, UK, op(16, units=["3_para"], area=FLAT)).rule == "FS 7.1 Op #16"


# ----------------------------------------------------------------------------------- Op #17 ---
def assault(monkeypatch, area=FLAT, defenders=("ri_12",), phase="UK Operations"):
    st = empty(phase)
    for u in defenders:
        place(st, u, area)
        with_factor(monkeypatch, u, ground=3)
    control(st, AR if phase.startswith("UK") else UK, area)
    return st


def aboard(monkeypatch, st, ship, *units, steps=None, at="falklands"):
    place(st, ship, at)
    for u in units:
        place(st, u, aboard=ship, steps=steps)
        with_factor(monkeypatch, u, ground=3)
    return st


def test_op_17_first_wave_lands_and_fights_at_one_less(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para", "40_cdo")
    out, st = play(st, UK, op(17, area=FLAT, wave=["2_para", "40_cdo"],
                              fire=fire(("2_para", "ri_12"), ("40_cdo", "ri_12"))))
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["2_para", "40_cdo"]
    b = events_of(out, "BattleBegun")[0]
    assert b["kind"] == "assault" and b["attackers"] == ["2_para", "40_cdo"] and b["defenders"] == ["ri_12"]
    # Fearless is not exposed to the defenders' fire (FS 6.5).
    assert pending(st)["options"]["fire"] == {"ri_12": ["2_para", "40_cdo"]}
    out, after = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 2, 6))
    uk1, uk2, ar = rolls_of(out)
    assert uk1.target["hit_number"] == 2 and modifiers(uk1) == [-1]
    assert any("Op #17" in m["reason"] for m in uk1.target["modifiers"])
    assert ar.target == {"hit_number": 3, "modifiers": []}
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert after["control"][FLAT] == UK


def test_op_17_needs_an_assault_ship_in_the_falkland_islands_sea_area(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para", at=SEA)
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para"])).rule == "FS 7.1 Op #17"
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "canberra", "42_cdo")
    assert refused(st, UK, op(17, area=FLAT, wave=["42_cdo"])).rule == "FS 7.1 Op #17"


def test_op_17_first_wave_units_come_from_the_assault_ships_only(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para")
    aboard(monkeypatch, st, "canberra", "42_cdo")
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para", "42_cdo"])).rule == "FS 7.1 Op #17"


def test_op_17_only_into_an_enemy_controlled_area(monkeypatch):
    st = assault(monkeypatch)
    control(st, UK, FLAT)
    aboard(monkeypatch, st, "fearless", "2_para")
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para"])).rule == "FS 7.1 Op #17"


def test_op_17_no_more_than_five_steps_from_fearless_and_from_intrepid_each(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para", "40_cdo", "3_para")  # six steps
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para", "40_cdo", "3_para"])).rule == "FS 7.1 Op #17"
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para", "40_cdo")
    aboard(monkeypatch, st, "intrepid", "3_para", "45_cdo")
    out, _ = play(st, UK, op(17, area=FLAT, wave=["2_para", "40_cdo", "3_para", "45_cdo"], fire="auto"))
    assert len(events_of(out, "UnitDisembarked")) == 4  # eight steps, four from each ship


def test_op_17_a_reduced_unit_counts_one_step_toward_the_five(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para", "40_cdo")
    place(st, "3_para", aboard="fearless", steps=1)  # a Hit marker: one step (FS 2.8, 10.11)
    out, _ = play(st, UK, op(17, area=FLAT, wave=["2_para", "40_cdo", "3_para"], fire="auto"))
    assert len(events_of(out, "UnitDisembarked")) == 3


def test_op_17_no_more_than_two_units_from_cabo_san_antonio(monkeypatch):
    st = assault(monkeypatch, defenders=("2_para",), phase=AR_PHASE)
    place(st, "cabo_san_antonio", "falklands")
    for u in ("ri_12", "ri_25", "ri_3"):
        place(st, u, aboard="cabo_san_antonio")
        with_factor(monkeypatch, u, ground=3)
    assert refused(st, AR, op(17, area=FLAT, wave=["ri_12", "ri_25", "ri_3"])).rule == "FS 7.1 Op #17"
    out, st = play(st, AR, op(17, area=FLAT, wave=["ri_12", "ri_25"], fire="auto"))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ri_12", "ri_25"]


def test_op_17_only_the_landed_units_fight(monkeypatch):
    st = assault(monkeypatch)
    # afloat beside the assault ship, not landed from it (an area with UK units already ashore is
    # contested, not enemy controlled: no assault goes there, FS 3.6)
    aboard(monkeypatch, st, "canberra", "3_para")
    aboard(monkeypatch, st, "fearless", "2_para")
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para"],
                              fire=fire(("3_para", "ri_12")))).rule == "FS 10.2"
    out, st = play(st, UK, op(17, area=FLAT, wave=["2_para"], fire=fire(("2_para", "ri_12"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["2_para"]
    assert pending(st)["options"]["fire"] == {"ri_12": ["2_para"]}


def test_op_17_bombardment_from_ships_in_the_sea_area_comes_first_without_return_fire(monkeypatch):
    st = assault(monkeypatch, defenders=("ri_12", "ri_25"))
    aboard(monkeypatch, st, "fearless", "2_para")
    place(st, "glamorgan", "falklands")
    with_factor(monkeypatch, "glamorgan", ground=3)
    out, st = play(st, UK, op(17, area=FLAT, wave=["2_para"], bombard=["glamorgan"],
                              bombard_fire=fire(("glamorgan", "ri_25")), fire=fire(("2_para", "ri_12"))),
                   FixedDice(1))
    first, second = events_of(out, "BattleBegun")
    assert first["kind"] == "bombard" and first["attackers"] == ["glamorgan"]
    assert second["kind"] == "assault" and second["defenders"] == ["ri_12"]  # ri_25 sank under the shells
    assert names(out).index("UnitEliminated") < names(out).index("UnitDisembarked")
    assert pending(st)["kind"] == "defensive_fire"  # only the assault is answered
    st2 = assault(monkeypatch)
    aboard(monkeypatch, st2, "fearless", "2_para")
    place(st2, "glamorgan", SEA)
    assert refused(st2, UK, op(17, area=FLAT, wave=["2_para"], bombard=["glamorgan"])).rule == "FS 7.1 Op #17"


def second_wave_position(monkeypatch):
    st = assault(monkeypatch)
    aboard(monkeypatch, st, "fearless", "2_para")
    place(st, "2_para", aboard="fearless", steps=1)
    aboard(monkeypatch, st, "canberra", "42_cdo", "45_cdo")
    return st


def test_op_17_second_wave_lands_when_a_first_wave_unit_survives(monkeypatch):
    st = second_wave_position(monkeypatch)
    out, st = play(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=["42_cdo", "45_cdo"],
                              fire=fire(("2_para", "ri_12"))))
    out, after = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 6))
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["42_cdo", "45_cdo"]
    assert all(after["units"][u]["location"] == FLAT for u in ("2_para", "42_cdo", "45_cdo"))
    assert not events_of(out, "BattleBegun")  # the second wave lands; it does not fight


def test_op_17_no_second_wave_if_the_whole_first_wave_is_lost(monkeypatch):
    st = second_wave_position(monkeypatch)
    out, st = play(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=["42_cdo", "45_cdo"],
                              fire=fire(("2_para", "ri_12"))))
    out, after = answer(st, AR, {"fire": fire(("ri_12", "2_para"))}, FixedDice(6, 1))
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["2_para"]
    assert not events_of(out, "UnitDisembarked")
    assert after["units"]["42_cdo"]["aboard"] == "canberra" and after["control"][FLAT] == AR


def test_op_17_a_first_wave_of_sf_alone_fights_nothing_and_the_second_wave_lands(monkeypatch):
    """A reading (docs/rulesets.md): Op #17 lands the second wave "provided at least one unit from the
    first wave survives that combat". A first wave of SF alone (10.8: "an all-SF force") fires at
    nothing and is fired at by nothing: SF shoot only in Op #25, and "may only be eliminated via SF
    vs. SF combat in Op #25, or via OP #7, or via random event 2-4". No combat is fought, the team
    is ashore contesting the area (10.8), and the second wave lands without a fight."""
    st = second_wave_position(monkeypatch)
    place(st, "2_para", aboard="canberra")  # the first wave is the SAS team alone
    place(st, "sas_d", aboard="fearless")
    out, after = play(st, UK, op(17, area=FLAT, wave=["sas_d"], second_wave=["42_cdo", "45_cdo"]))
    assert not events_of(out, "BattleBegun") and not rolls_of(out) and not pending(after)
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["sas_d", "42_cdo", "45_cdo"]
    assert S.alive(after, "ri_12") and S.contested(after, FLAT)


def test_op_17_second_wave_is_one_to_ten_steps_aboard_transports_in_the_sea_area(monkeypatch):
    st = second_wave_position(monkeypatch)
    aboard(monkeypatch, st, "qe2", "2_sg", "1_wg", "1_7_gr")
    place(st, "3_para", aboard="canberra", steps=1)
    eleven = ["42_cdo", "45_cdo", "2_sg", "1_wg", "1_7_gr", "3_para"]
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=eleven)).rule == "FS 7.1 Op #17"
    out, _ = play(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=eleven[:5], fire=fire(("2_para", "ri_12"))))
    assert events_of(out, "BattleBegun")  # ten steps: accepted
    st = second_wave_position(monkeypatch)
    place(st, "canberra", SEA)
    assert refused(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=["42_cdo"])).rule == "FS 7.1 Op #17"


def test_fs_7_1_op_17_the_second_wave_comes_aboard_transport_vessels_only(monkeypatch):
    # "Those additional troops must already be located in the Falkland Islands Sea Area aboard any
    # transport vessels": A or T ships (FS 6.5), not an SF team riding a destroyer (FS 6.2(1)).
    st = second_wave_position(monkeypatch)
    place(st, "glamorgan", "falklands")
    place(st, "sas_d", aboard="glamorgan")
    e = refused(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=["sas_d"]))
    assert e.rule == "FS 7.1 Op #17" and "transport" in e.detail
    from domain.rulesets.falklands.choices import op_choices
    assert "sas_d" not in op_choices(st, UK, 17)["second_wave"]  # nor offered
    place(st, "sas_d", aboard="canberra")
    assert "sas_d" in op_choices(st, UK, 17)["second_wave"]
    out, _ = play(st, UK, op(17, area=FLAT, wave=["2_para"], second_wave=["sas_d"], fire=fire(("2_para", "ri_12"))))
    assert events_of(out, "BattleBegun")  # from a transport: accepted


def test_op_17_second_wave_is_for_the_uk_only(monkeypatch):
    st = assault(monkeypatch, defenders=("2_para",), phase=AR_PHASE)
    aboard(monkeypatch, st, "cabo_san_antonio", "ri_12")
    place(st, "drummond", "falklands")
    place(st, "ri_25", aboard="drummond")
    assert refused(st, AR, op(17, area=FLAT, wave=["ri_12"], second_wave=["ri_25"])).rule == "FS 7.1 Op #17"


# ----------------------------------------------------------------------------------- Op #18 ---
def test_op_18_ar_aircraft_from_a_base_attack_surface_vessels_in_range(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "a4_1", "port_stanley")
    place(st, "glamorgan", SEA)
    place(st, "spartan", SEA)
    with_factor(monkeypatch, "a4_1", surface=3, sub=3)
    with_factor(monkeypatch, "glamorgan", air=3)
    assert refused(st, AR, op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "spartan")))).rule == "FS 10.2"
    out, st = play(st, AR, op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))))
    assert events_of(out, "BattleBegun")[0]["defenders"] == ["glamorgan"]
    assert pending(st)["options"]["fire"] == {"glamorgan": ["a4_1"]}
    out, after = answer(st, UK, {"fire": fire(("glamorgan", "a4_1"))}, FixedDice(1, 1))
    assert events_of(out, "UnitHit")[0]["unit"] == "glamorgan"
    assert not S.alive(after, "a4_1")


def test_op_18_a4s_from_argentina_reach_the_falklands_only_refuelled(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "a4_1", "argentina")
    place(st, "glamorgan", "falklands")
    with_factor(monkeypatch, "a4_1", surface=3)
    assert refused(st, AR, op(18, area="falklands", aircraft=["a4_1"],
                              fire=fire(("a4_1", "glamorgan")))).rule == "FS 9.4"
    out, _ = play(st, AR, op(18, area="falklands", aircraft=["a4_1"], refuel=["a4_1"],
                             fire=fire(("a4_1", "glamorgan"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["a4_1"]


def test_op_18_carriers_may_attack_alone_the_uk_has_no_land_based_aircraft(monkeypatch):
    st = empty()
    place(st, "hermes", SEA)
    place(st, "drummond", SEA)
    place(st, "a4_1", "port_stanley")
    assert refused(st, UK, op(18, area=SEA, aircraft=["a4_1"], fire=[])).rule == "FS 7.1 Op #18"
    assert refused(st, UK, op(18, area=SEA, fire=[])).rule == "FS 7.1 Op #18"
    with_factor(monkeypatch, "hermes", surface=3)
    out, _ = play(st, UK, op(18, area=SEA, carriers=["hermes"], fire=fire(("hermes", "drummond"))), FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["hermes"]


def test_op_18_ar_land_based_aircraft_are_intercepted_not_the_ar_carrier(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "hermes", SEA)
    place(st, "glamorgan", SEA)
    place(st, "25_de_mayo", SEA)
    place(st, "a4_1", "port_stanley")
    with_factor(monkeypatch, "25_de_mayo", surface=3)
    with_factor(monkeypatch, "a4_1", surface=3)
    out, after = play(st, AR, op(18, area=SEA, carriers=["25_de_mayo"], fire=fire(("25_de_mayo", "glamorgan"))))
    assert pending(after)["kind"] == "defensive_fire"
    out, after = play(st, AR, op(18, area=SEA, carriers=["25_de_mayo"], aircraft=["a4_1"],
                                 fire=fire(("25_de_mayo", "glamorgan"), ("a4_1", "glamorgan"))))
    assert pending(after)["kind"] == "interception"
    assert pending(after)["options"]["fire"] == {"hermes": ["a4_1"]}


# ----------------------------------------------------------------------------------- Op #19 ---
def test_op_19_aircraft_and_carriers_attack_ground_units(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "2_para", FLAT)
    place(st, "pucara_1", "port_stanley")
    place(st, "25_de_mayo", "falklands")
    for u in ("pucara_1", "25_de_mayo"):
        with_factor(monkeypatch, u, ground=3)
    with_factor(monkeypatch, "2_para", air=3)
    out, st = play(st, AR, op(19, area=FLAT, aircraft=["pucara_1"], carriers=["25_de_mayo"],
                              fire=fire(("pucara_1", "2_para"), ("25_de_mayo", "2_para"))))
    assert events_of(out, "BattleBegun")[0]["kind"] == "air_ground"
    assert pending(st)["options"]["fire"] == {"2_para": ["pucara_1"]}  # the aircraft, not the carrier
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(1, 1, default=6))
    assert [e["unit"] for e in events_of(out, "UnitHit")] == ["2_para"]
    assert not S.alive(after, "2_para")


def test_op_19_never_hits_special_forces(monkeypatch):
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "cdo_601", FLAT)
    with_factor(monkeypatch, "hermes", ground=3)
    assert refused(st, UK, op(19, area=FLAT, carriers=["hermes"],
                              fire=fire(("hermes", "cdo_601")))).rule == "FS 7.1 Op #19"
    place(st, "ri_12", FLAT)
    assert refused(st, UK, op(19, area=FLAT, carriers=["hermes"],
                              fire=fire(("hermes", "cdo_601")))).rule == "FS 10.8"
    out, after = play(st, UK, op(19, area=FLAT, carriers=["hermes"], fire=fire(("hermes", "ri_12"))), FixedDice(1, 6, 6))
    assert events_of(out, "BattleBegun")[0]["defenders"] == ["ri_12"]  # the SF are not in the battle
    assert "DecisionPending" not in names(out)  # a carrier fighting from the sea is out of the defenders' reach
    assert not S.alive(after, "ri_12") and S.alive(after, "cdo_601") and S.contested(after, FLAT) is False


def test_op_19_ar_land_based_aircraft_are_intercepted_pucaras_never(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "hermes", "falklands")
    place(st, "2_para", FLAT)
    place(st, "pucara_1", "port_stanley")
    place(st, "a4_1", "port_stanley")
    for u in ("pucara_1", "a4_1"):
        with_factor(monkeypatch, u, ground=3)
    out, after = play(st, AR, op(19, area=FLAT, aircraft=["pucara_1"], fire=fire(("pucara_1", "2_para"))))
    assert pending(after)["kind"] == "defensive_fire"
    out, after = play(st, AR, op(19, area=FLAT, aircraft=["pucara_1", "a4_1"],
                                 fire=fire(("pucara_1", "2_para"), ("a4_1", "2_para"))))
    assert pending(after)["kind"] == "interception"
    assert pending(after)["options"]["fire"] == {"hermes": ["a4_1"]}


# ----------------------------------------------------------------------------------- Op #20 ---
def test_op_20_moves_vessels_from_one_sea_area_to_another_anywhere():
    far = next(a for a in DATA.sea_areas if a != "sa4" and a not in DATA.sea_adjacent("sa4"))
    st = empty()
    place(st, "glamorgan", "sa4")
    place(st, "spartan", "sa4")
    out, after = play(st, UK, op(20, units=["glamorgan", "spartan"], destination=far))
    assert [(e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")] == [
        ("glamorgan", far, "FS 7.1 Op #20"), ("spartan", far, "FS 7.1 Op #20")]
    assert S.where(after, "glamorgan") == far


def test_op_20_a_force_moves_from_one_area():
    st = empty()
    place(st, "glamorgan", "sa4")
    place(st, "spartan", SEA)
    assert refused(st, UK, op(20, units=["glamorgan", "spartan"], destination="sa5")).rule == "FS 9.9"


def test_op_20_ar_vessels_may_start_or_end_in_port_uk_never_enter_argentina():
    st = empty(AR_PHASE)
    place(st, "drummond", "argentina")
    out, after = play(st, AR, op(20, units=["drummond"], destination=SEA))
    assert S.where(after, "drummond") == SEA
    out, after = play(after | {"phase": AR_PHASE, "active": [AR], "phase_ops": S.phase_allowance(after, AR_PHASE),
                               "pending": []}, AR, op(20, units=["drummond"], destination="argentina"))
    assert S.where(after, "drummond") == "argentina"
    st = empty()
    place(st, "glamorgan", "sa1")
    assert refused(st, UK, op(20, units=["glamorgan"], destination="argentina")).rule == "FS 9.7"


def test_op_20_attacks_on_arrival_with_vessels_already_there_and_carriers_next_door(monkeypatch):
    near = sorted(DATA.sea_adjacent(SEA))[0]
    st = empty()
    place(st, "glamorgan", near)
    place(st, "broadsword", SEA)
    place(st, "invincible", near)
    place(st, "drummond", SEA)
    place(st, "salta", SEA)
    for u in ("glamorgan", "broadsword", "invincible", "drummond", "salta"):
        with_factor(monkeypatch, u, surface=3, sub=3)
    out, st = play(st, UK, op(20, units=["glamorgan"], destination=SEA, attack=True, support=["broadsword"],
                              carriers=["invincible"],
                              fire=fire(("glamorgan", "drummond"), ("broadsword", "salta"),
                                        ("invincible", "drummond"))))
    assert events_of(out, "UnitMoved")[0]["destination"] == SEA
    b = events_of(out, "BattleBegun")[0]
    assert b["attackers"] == ["glamorgan", "broadsword", "invincible"] and b["defenders"] == ["drummond", "salta"]
    # The carrier strikes from the next area and is not exposed to the defenders' fire.
    assert pending(st)["options"]["fire"] == {"drummond": ["glamorgan", "broadsword"],
                                              "salta": ["glamorgan", "broadsword"]}


def test_op_20_support_must_already_be_in_the_final_area():
    st = empty()
    place(st, "glamorgan", "sa4")
    place(st, "broadsword", "sa5")
    place(st, "drummond", SEA)
    assert refused(st, UK, op(20, units=["glamorgan"], destination=SEA, attack=True, support=["broadsword"],
                              fire=fire(("glamorgan", "drummond")))).rule == "FS 7.1 Op #20"


def test_op_20_attack_in_place_without_movement(monkeypatch):
    st = empty(AR_PHASE)
    place(st, "drummond", SEA)
    place(st, "glamorgan", SEA)
    with_factor(monkeypatch, "drummond", surface=3)
    out, st = play(st, AR, op(20, support=["drummond"], destination=SEA, attack=True,
                              fire=fire(("drummond", "glamorgan"))))
    assert not events_of(out, "UnitMoved") and events_of(out, "BattleBegun")[0]["attackers"] == ["drummond"]


def test_op_20_without_attack_no_fire_and_no_support():
    st = empty()
    place(st, "glamorgan", "sa4")
    place(st, "drummond", SEA)
    assert refused(st, UK, op(20, units=["glamorgan"], destination=SEA,
                              fire=fire(("glamorgan", "drummond")))).rule == "FS 7.1 Op #20"
    assert refused(st, UK, op(20, units=["glamorgan"], destination="sa4")).rule == "FS 7.1 Op #20"


# ----------------------------------------------------------------------------------- Op #21 ---
def bombardment(monkeypatch):
    st = empty()
    place(st, "glamorgan", "falklands")
    place(st, "broadsword", "falklands")
    place(st, "ri_12", FLAT)
    place(st, "cdo_601", FLAT)
    place(st, "pucara_2", FLAT)
    for u in ("glamorgan", "broadsword"):
        with_factor(monkeypatch, u, ground=3, air=3)
    for u in ("ri_12", "pucara_2"):
        with_factor(monkeypatch, u, ground=3, air=3, surface=3)
    return st


def test_op_21_ships_bombard_ground_units_and_aircraft_with_no_return_fire(monkeypatch):
    st = bombardment(monkeypatch)
    out, after = play(st, UK, op(21, area=FLAT, units=["glamorgan", "broadsword"],
                                 fire=fire(("glamorgan", "ri_12"), ("broadsword", "pucara_2"))), FixedDice(1, 1))
    assert "DecisionPending" not in names(out)
    assert [r.seat for r in rolls_of(out)] == [UK, UK]
    assert {e["unit"] for e in events_of(out, "UnitEliminated")} == {"ri_12", "pucara_2"}
    assert S.alive(after, "cdo_601") and not S.alive(after, "ri_12")


def test_op_21_never_hits_special_forces(monkeypatch):
    st = bombardment(monkeypatch)
    assert refused(st, UK, op(21, area=FLAT, units=["glamorgan"],
                              fire=fire(("glamorgan", "cdo_601")))).rule == "FS 10.8"
    st = empty()
    place(st, "glamorgan", "falklands")
    place(st, "cdo_601", FLAT)
    assert refused(st, UK, op(21, area=FLAT, units=["glamorgan"],
                              fire=fire(("glamorgan", "cdo_601")))).rule == "FS 7.1 Op #21"


def test_op_21_only_ships_already_in_the_falkland_islands_sea_area(monkeypatch):
    st = bombardment(monkeypatch)
    place(st, "glamorgan", SEA)
    assert refused(st, UK, op(21, area=FLAT, units=["glamorgan"],
                              fire=fire(("glamorgan", "ri_12")))).rule == "FS 7.1 Op #21"
    place(st, "spartan", "falklands")
    assert refused(st, UK, op(21, area=FLAT, units=["spartan"],
                              fire=fire(("spartan", "ri_12")))).rule == "FS 7.1 Op #21"


# ----------------------------------------------------------------------------------- Op #22 ---
def helicopter(side=UK):
    st = empty("UK Operations" if side == UK else AR_PHASE)
    control(st, side, FLAT)
    control(st, side, FLAT2)
    return st


def test_op_22_the_uk_moves_up_to_two_infantry_or_sf_anywhere_friendly():
    st = helicopter()
    for u in ("2_para", "sas_d", "3_para"):
        place(st, u, FLAT)
    out, after = play(st, UK, op(22, units=["2_para", "sas_d"], origin=FLAT, destination=FLAT2))
    assert [(e["unit"], e["destination"], e["rule"]) for e in events_of(out, "UnitMoved")] == [
        ("2_para", FLAT2, "FS 7.1 Op #22"), ("sas_d", FLAT2, "FS 7.1 Op #22")]
    assert refused(st, UK, op(22, units=["2_para", "sas_d", "3_para"], origin=FLAT,
                              destination=FLAT2)).rule == "FS 7.1 Op #22"


def test_op_22_the_ar_moves_one_unit_per_op_not_intercepted():
    st = helicopter(AR)
    place(st, "hermes", "falklands")
    for u in ("ri_12", "ri_25"):
        place(st, u, FLAT)
    assert refused(st, AR, op(22, units=["ri_12", "ri_25"], origin=FLAT, destination=FLAT2)).rule == "FS 7.1 Op #22"
    out, after = play(st, AR, op(22, units=["ri_12"], origin=FLAT, destination=FLAT2))
    assert "DecisionPending" not in names(out) and S.where(after, "ri_12") == FLAT2


def test_op_22_only_infantry_and_sf(monkeypatch):
    st = helicopter()
    place(st, "b_r", FLAT)
    assert refused(st, UK, op(22, units=["b_r"], origin=FLAT, destination=FLAT2)).rule == "FS 7.1 Op #22"
    st = helicopter(AR)
    place(st, "hmg_m", FLAT)
    assert refused(st, AR, op(22, units=["hmg_m"], origin=FLAT, destination=FLAT2)).rule == "FS 7.1 Op #22"


def test_op_22_from_a_friendly_area_to_a_friendly_or_contested_one():
    st = helicopter()
    place(st, "2_para", FLAT)
    place(st, "ri_12", FLAT2)
    control(st, AR, FLAT2)
    assert refused(st, UK, op(22, units=["2_para"], origin=FLAT, destination=FLAT2)).rule == "FS 7.1 Op #22"
    st = helicopter()
    place(st, "2_para", FLAT)
    control(st, AR, FLAT)
    assert refused(st, UK, op(22, units=["2_para"], origin=FLAT, destination=FLAT2)).rule == "FS 7.1 Op #22"


def test_op_22_helicoptered_units_may_attack_in_a_contested_area_at_one_less(monkeypatch):
    st = helicopter()
    control(st, AR, FLAT2)
    place(st, "2_para", FLAT)
    place(st, "3_para", FLAT2)
    place(st, "ri_12", FLAT2)
    for u in ("2_para", "3_para", "ri_12"):
        with_factor(monkeypatch, u, ground=3)
    out, st = play(st, UK, op(22, units=["2_para"], origin=FLAT, destination=FLAT2, attack=True, support=["3_para"],
                              fire=fire(("2_para", "ri_12"), ("3_para", "ri_12"))))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["2_para", "3_para"]
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(6, 6, default=6))
    heli, other = rolls_of(out)[:2]  # then Ri 12's defensive fire
    assert heli.target["hit_number"] == 2 and modifiers(heli) == [-1]
    assert any("Op #22" in m["reason"] for m in heli.target["modifiers"])
    assert other.target == {"hit_number": 3, "modifiers": []}


def test_op_22_attack_only_where_the_enemy_already_is(monkeypatch):
    st = helicopter()
    place(st, "2_para", FLAT)
    assert refused(st, UK, op(22, units=["2_para"], origin=FLAT, destination=FLAT2, attack=True,
                              fire=[])).rule == "FS 7.1 Op #22"


# ----------------------------------------------------------------------------------- Op #23 ---
def test_op_23_loads_ground_units_onto_ships_in_the_falkland_islands_sea_area():
    st = empty()
    control(st, UK, FLAT)
    place(st, "2_para", FLAT)
    place(st, "canberra", "falklands")
    out, after = play(st, UK, op(23, loads={"2_para": "canberra"}))
    assert events_of(out, "UnitEmbarked") == [{"unit": "2_para", "ship": "canberra", "origin": FLAT,
                                               "rule": "FS 7.1 Op #23"}]
    assert after["units"]["2_para"]["aboard"] == "canberra" and S.where(after, "2_para") == "falklands"
    place(st, "canberra", SEA)
    assert refused(st, UK, op(23, loads={"2_para": "canberra"})).rule == "FS 7.1 Op #23"


def test_op_23_a_unit_or_ship_that_does_not_exist_is_named_in_the_refusal():
    st = empty()
    control(st, UK, FLAT)
    place(st, "2_para", FLAT)
    place(st, "canberra", "falklands")
    no_ship = refused(st, UK, op(23, loads={"2_para": "none"}))
    assert no_ship.rule == "FS 7.1 Op #23" and "there is no ship 'none'" in str(no_ship)
    no_unit = refused(st, UK, op(23, loads={"3_para_x": "canberra"}))
    assert no_unit.rule == "FS 7.1 Op #23" and "there is no unit '3_para_x'" in str(no_unit)


def test_op_23_ar_may_load_in_argentina_the_uk_never():
    st = empty(AR_PHASE)
    place(st, "ri_2", "argentina")
    place(st, "cabo_san_antonio", "argentina")
    out, after = play(st, AR, op(23, loads={"ri_2": "cabo_san_antonio"}))
    assert after["units"]["ri_2"]["aboard"] == "cabo_san_antonio"


def test_op_23_load_limits_are_observed():
    st = empty(AR_PHASE)
    place(st, "cabo_san_antonio", "argentina")
    for u in ("ri_2", "bim_3", "hmg_m"):
        place(st, u, "argentina")
    assert refused(st, AR, op(23, loads={u: "cabo_san_antonio" for u in ("ri_2", "bim_3", "hmg_m")})).rule == \
        "FS 6.2(2)"


# ----------------------------------------------------------------------------------- Op #24 ---
def test_op_24_moves_to_an_adjoining_land_area_lafonia_adjoins_only_goose_green():
    st = empty()
    control(st, UK, "lafonia")
    place(st, "2_para", "lafonia")
    for dest in DATA.land_areas:
        if dest in ("lafonia", "goose_green"):
            continue
        assert refused(st, UK, op(24, units=["2_para"], origin="lafonia", destination=dest)).rule == "FS 9.2"
    out, after = play(st, UK, op(24, units=["2_para"], origin="lafonia", destination="goose_green"))
    assert events_of(out, "UnitMoved")[0]["destination"] == "goose_green"
    assert after["control"]["goose_green"] == UK  # it was empty


def test_op_24_may_attack_on_moving_in_with_friendly_units_already_there(monkeypatch):
    st = empty()
    control(st, UK, "lafonia")
    control(st, AR, "goose_green")
    place(st, "2_para", "lafonia")
    place(st, "3_para", "goose_green")
    place(st, "ri_12", "goose_green")
    for u in ("2_para", "3_para", "ri_12"):
        with_factor(monkeypatch, u, ground=3)
    out, st = play(st, UK, op(24, units=["2_para"], origin="lafonia", destination="goose_green", attack=True,
                              support=["3_para"], fire=fire(("2_para", "ri_12"), ("3_para", "ri_12"))))
    assert events_of(out, "UnitMoved")[0]["unit"] == "2_para"
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["2_para", "3_para"]


def test_op_24_moving_in_does_not_require_an_attack():
    st = empty()
    control(st, UK, "lafonia")
    place(st, "2_para", "lafonia")
    place(st, "ri_12", "goose_green")
    out, after = play(st, UK, op(24, units=["2_para"], origin="lafonia", destination="goose_green"))
    assert not events_of(out, "BattleBegun") and S.contested(after, "goose_green")


def test_op_24_attack_in_place_in_a_contested_area_only(monkeypatch):
    st = empty()
    place(st, "2_para", FLAT)
    place(st, "ri_12", FLAT)
    control(st, AR, FLAT)
    with_factor(monkeypatch, "2_para", ground=3)
    out, _ = play(st, UK, op(24, units=["2_para"], origin=FLAT, destination=FLAT, attack=True,
                             fire=fire(("2_para", "ri_12"))))
    assert not events_of(out, "UnitMoved") and events_of(out, "BattleBegun")
    st = empty()
    place(st, "2_para", FLAT)
    control(st, UK, FLAT)
    assert refused(st, UK, op(24, units=["2_para"], origin=FLAT, destination=FLAT, attack=True)).rule == \
        "FS 7.1 Op #24"


def test_op_24_entering_an_area_held_only_by_ar_aircraft_makes_them_rebase():
    st = empty()
    control(st, UK, "lafonia")
    control(st, AR, "goose_green")
    place(st, "2_para", "lafonia")
    place(st, "pucara_2", "goose_green")
    out, after = play(st, UK, op(24, units=["2_para"], origin="lafonia", destination="goose_green"))
    assert after["control"]["goose_green"] == UK
    d = pending(after)
    assert d["kind"] == "emergency_rebase" and d["seat"] == AR and "pucara_2" in d["options"]["destinations"]


# ----------------------------------------------------------------------------------- Op #25 ---
def test_op_25_needs_sf_of_both_sides_in_the_land_area():
    st = empty()
    place(st, "sas_d", FLAT)
    place(st, "ri_12", FLAT)
    assert refused(st, UK, op(25, area=FLAT, fire=[])).rule == "FS 7.1 Op #25"
    st = empty()
    place(st, "cdo_601", FLAT)
    place(st, "2_para", FLAT)
    assert refused(st, UK, op(25, area=FLAT, fire=[])).rule == "FS 7.1 Op #25"
    assert refused(st, UK, op(25, area=SEA, fire=[])).rule == "FS 7.1 Op #25"


def test_op_25_no_modifiers_of_any_kind_even_in_entrenchments(monkeypatch):
    st = empty(AR_PHASE)
    area = "port_stanley"
    for u in ("sas_d", "cdo_601", "2_para"):
        place(st, u, area)
    control(st, AR, area)
    with_factor(monkeypatch, "sas_d", ground=2)
    with_factor(monkeypatch, "cdo_601", ground=2)
    out, st = play(st, AR, op(25, area=area, fire=fire(("cdo_601", "sas_d"))))
    b = events_of(out, "BattleBegun")[0]
    assert b["kind"] == "sf" and b["attackers"] == ["cdo_601"] and b["defenders"] == ["sas_d"]
    out, after = answer(st, UK, {"fire": fire(("sas_d", "cdo_601"))}, FixedDice(6, 2))
    assert [r.target for r in rolls_of(out)] == [{"hit_number": 2, "modifiers": []}] * 2
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["cdo_601"]
    assert S.alive(after, "2_para")


def test_op_25_sf_fire_only_at_sf(monkeypatch):
    st = empty()
    for u in ("sas_d", "cdo_601", "ri_12"):
        place(st, u, FLAT)
    assert refused(st, UK, op(25, area=FLAT, fire=fire(("sas_d", "ri_12")))).rule == "FS 10.2"


def test_op_20_offers_the_aircraft_that_may_join_an_attack_by_destination(monkeypatch):
    # Op #20 "in-range land-based aircraft ... may also be involved in the attack" with FS 9.4 (the
    # A-4's reach, aerial refuelling) and 10.2 (a unit that cannot fire at a type of target may not
    # fire at it: no aircraft has an anti-submarine factor): the template offers them by destination.
    st = empty(AR_PHASE)
    place(st, "drummond", "sa1")  # an AR force to move
    place(st, "glamorgan", "sa6")  # in reach of A-4s and Daggers from Argentina
    place(st, "broadsword", "sa4")  # beyond the range line (FS 9.4)
    place(st, "conqueror", "sa2")  # a submarine alone: no aircraft can fire at it
    place(st, "coventry", "falklands")  # A-4s only with aerial refuelling
    for u in ("a4_1", "dagger_1"):
        place(st, u, S.ARGENTINA)
        with_factor(monkeypatch, u, surface=3, sub=0)
    c = R.operation_template(st, AR, 20)["choices"]
    assert c["aircraft_at"] == {"sa6": ["a4_1", "dagger_1"], "falklands": ["a4_1", "dagger_1"]}
    assert sorted(c["aircraft"]) == ["a4_1", "dagger_1"] and c["refuel"] == ["a4_1"]
