"""Falklands Showdown scenarios written from the rules text alone (an examiner's reading of
sections 4-11), for the consequences the other rule modules do not already check. Each test is
named after the rule it reads; positions are small and synthetic (helpers.py)."""

from __future__ import annotations

from domain.rulesets.falklands import state as S

from .helpers import (
    AR, UK, FixedDice, answer, control, empty, events_of, fire, op, pending, place, play, refused,
    rolls_of, uk,
)


def hit_numbers(out) -> list[int]:
    return [r.target["hit_number"] for r in rolls_of(out)]


def fought(st, seat, order, dice):
    """Play ``order`` and let the defender answer with automatic defensive fire (FS 10.2)."""
    out, st2 = play(st, seat, order, dice)
    d = pending(st2)
    if d is not None and d["kind"] == "defensive_fire":
        more, st2 = answer(st2, d["seat"], {"fire": "auto"}, dice)
        out = [*out, *more]
    return out, st2


# ------------------------------------------------------------------------------- FS 4.5 ---
def test_fs_4_5_an_ar_op_2_that_brings_the_tally_to_minus_5_hands_the_uk_sudden_death():
    """FS 7.1 Op #2 gives the UK one negative VP; FS 4.5: "If the VP tally ever reaches -5, play
    stops immediately and the UK player is declared the winner" - whoever's op moved it."""
    st = empty("AR Operations")
    st["vp"][S.TRACK] = -4
    out, st2 = play(st, AR, op(2, unit="ri_2"))
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"]) == (UK, "sudden death")
    assert st2["vp"][S.TRACK] == -5 and st2["ended"]


# ------------------------------------------------------------------------------- FS 4.4(4) ---
def test_fs_4_4_4_a_hit_that_does_not_sink_scores_nothing_the_second_hit_scores():
    """FS 4.4(4) scores "whenever and wherever he sinks": a first hit on a two-step UK ship only
    marks it (FS 10.11); the sinking scores one VP for an ordinary destroyer."""
    st = empty("AR Operations")
    place(st, "glamorgan", "sa6")
    place(st, "a4_1", S.ARGENTINA)
    order = op(18, area="sa6", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan")))
    out, st2 = fought(st, AR, order, FixedDice(1, 6))
    assert [e["unit"] for e in events_of(out, "UnitHit")] == ["glamorgan"]
    assert events_of(out, "VPScored") == [] and st2["units"]["glamorgan"]["steps"] == 1
    st2["pending"] = []
    st2["phase"], st2["active"], st2["phase_ops"] = "AR Operations", [AR], S.phase_allowance(st2, "AR Operations")
    out, st3 = fought(st2, AR, order, FixedDice(1, 6))
    assert not S.alive(st3, "glamorgan")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(4)")]


# ------------------------------------------------------------------------------- FS 9.4 ---
def test_fs_9_4_refuelling_extends_a4_range_to_the_falklands_sea_area_only():
    """FS 9.4: Argentina-based A-4s reach Sea Areas 1, 2, 3 and 6; refuelled, "they can thereby
    extend their range to include the Falkland Islands Sea Area" - not Sea Area 7 or beyond."""
    st = empty("AR Operations")
    place(st, "glamorgan", "sa7")
    place(st, "a4_1", S.ARGENTINA)
    for order in (op(18, area="sa7", aircraft=["a4_1"]), op(18, area="sa7", aircraft=["a4_1"], refuel=["a4_1"])):
        assert refused(st, AR, order).rule == "FS 9.4"


def test_fs_9_4_and_9_3_a_refuelled_a4_reaches_the_land_areas_of_the_tactical_map():
    """FS 9.3: "All land areas on the Tactical Map are considered to lie within the Falkland
    Islands Sea Area": a refuelled Argentina-based A-4 may strike one; without refuelling it may not."""
    st = empty("AR Operations")
    place(st, "2_para", "san_carlos")
    place(st, "a4_1", S.ARGENTINA)
    assert refused(st, AR, op(19, area="san_carlos", aircraft=["a4_1"])).rule == "FS 9.4"
    out, st2 = fought(st, AR, op(19, area="san_carlos", aircraft=["a4_1"], refuel=["a4_1"],
                               fire=fire(("a4_1", "2_para"))), FixedDice(1, default=6))
    assert [e["unit"] for e in events_of(out, "UnitHit")] == ["2_para"]


# ------------------------------------------------------------------------------ Op #16 ---
def test_fs_7_1_op_16_landing_where_only_ar_aircraft_stand_takes_the_area_and_they_rebase():
    """Op #16 lands "into a land area that's devoid of both sides' ground units" (aircraft are not
    ground units); FS 9.6: AR aircraft alone with UK ground units there rebase at once; FS 3.6
    control passes; FS 4.4(5) Pebble Island is worth one VP to the UK."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "pucara_3", "pebble_island")
    vp = st["vp"][S.TRACK]
    out, st2 = play(st, UK, op(16, units=["2_para"], area="pebble_island"))
    d = pending(st2)
    assert d is not None and d["seat"] == AR and "9.6" in d["rule"]
    out2, st3 = answer(st2, AR, {"destinations": {"pucara_3": S.ARGENTINA}})
    assert S.where(st3, "pucara_3") == S.ARGENTINA
    assert st3["control"]["pebble_island"] == UK and st3["vp"][S.TRACK] == vp - 1


# ------------------------------------------------------------------------------ Op #17 ---
def test_fs_7_1_op_17_an_assault_into_an_empty_enemy_controlled_area_takes_it():
    """Op #17: "The assault may be into any enemy controlled land area" - one with no defenders
    too; the landed units are alone there and take control at once (FS 3.6)."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")
    assert st["control"]["lafonia"] == AR
    out, st2 = play(st, UK, op(17, area="lafonia", wave=["2_para"]), FixedDice(default=6))
    assert S.where(st2, "2_para") == "lafonia" and st2["control"]["lafonia"] == UK


def test_fs_7_1_op_17_and_10_7_an_assault_on_port_stanley_is_reduced_twice(monkeypatch):
    """Op #17: the first wave's hit numbers "are reduced by one (in addition to all other
    applicable modifiers)"; FS 10.7: UK units attacking in Port Stanley lose one more."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")  # anti-ground 4
    place(st, "ri_3", "port_stanley")
    out, st2 = play(st, UK, op(17, area="port_stanley", wave=["2_para"], fire=fire(("2_para", "ri_3"))))
    out, st3 = answer(st2, AR, {"fire": fire(("ri_3", "2_para"))}, FixedDice(3, 6))
    uk_roll = rolls_of(out)[0]
    assert uk_roll.target["hit_number"] == 2
    assert events_of(out, "UnitEliminated") == []


# ------------------------------------------------------------------------------ Op #21 ---
def test_fs_10_9_and_op_21_a_carrier_bombarding_fires_three_times():
    """FS 10.9: "each time a British carrier fires, offensively or defensively, at any target(s)
    other than submarines, they may fire three times" - a shore bombardment too."""
    st = uk()
    place(st, "hermes", "falklands")
    place(st, "ri_5", "port_howard")
    place(st, "ri_8", "port_howard")
    out, st2 = play(st, UK, op(21, area="port_howard", units=["hermes"],
                               fire=fire(("hermes", "ri_5"), ("hermes", "ri_8"), ("hermes", "ri_8"))),
                    FixedDice(6, 6, 6))
    assert len(rolls_of(out)) == 3 and hit_numbers(out) == [2, 2, 2]


# ------------------------------------------------------------------------------ FS 10.6 ---
def test_fs_10_6_aircraft_attacking_in_a_mountain_area_are_reduced_too():
    """FS 10.6: "Units of any types, and of either side, which are attacking in an area that
    contains mountains do so with their hit numbers reduced by one" - aircraft included."""
    st = empty("AR Operations")
    place(st, "2_para", "mount_kent")
    place(st, "a4_1", "port_stanley")  # anti-ground 3
    out, st2 = fought(st, AR, op(19, area="mount_kent", aircraft=["a4_1"], fire=fire(("a4_1", "2_para"))),
                    FixedDice(3, default=6))
    assert rolls_of(out)[0].target["hit_number"] == 2 and events_of(out, "UnitHit") == []


# ------------------------------------------------------------------------------ Op #7 ---
def test_fs_7_1_op_7_the_raiding_sf_may_be_aboard_any_ship_anywhere():
    """Op #7: the SF unit "may be located aboard any ship ... (it doesn't actually move)"."""
    st = uk()
    place(st, "hermes", "sa4")
    place(st, "sas_d", aboard="hermes")
    place(st, "pucara_3", "pebble_island")
    out, st2 = play(st, UK, op(7, sf="sas_d", target="pucara_3"), FixedDice(5))
    assert not S.alive(st2, "pucara_3") and S.alive(st2, "sas_d")


# ------------------------------------------------------------------------------ FS 6.2(1) ---
def test_fs_6_2_1_an_ar_destroyer_carries_one_ar_sf_unit():
    """FS 6.2(1): "Every surface ship has the ability to transport one friendly SF unit" - AR too."""
    st = empty("AR Operations")
    place(st, "drummond", "falklands")
    place(st, "cdo_601", "port_stanley")
    out, st2 = play(st, AR, op(23, loads={"cdo_601": "drummond"}))
    assert st2["units"]["cdo_601"]["aboard"] == "drummond"


# ------------------------------------------------------------------------------ FS 9.7 ---
def test_fs_9_7_a_uk_submarine_never_enters_argentina_in_its_submarine_phase():
    """FS 9.7: "no UK movement or combat may ever take place in that area" - submarine moves too."""
    st = empty("UK Submarine")
    place(st, "spartan", "sa2")
    err = refused(st, UK, {"kind": "submarines", "moves": {"spartan": S.ARGENTINA}})
    assert err.rule in ("FS 9.7", "FS 8.1")


# ------------------------------------------------------------------------------- FS 10.9 ---
def test_fs_10_9_and_3_7_no_rendezvous_in_the_south_georgia_box():
    """FS 10.9: the rendezvous "is defined as all three ships being in the same sea area at the end
    of any UK operation"; FS 3.7: "the box is neither a sea nor a land area". Three ships in the
    box have not rendezvoused: the Conveyor stays, the carriers keep three shots."""
    st = uk()
    for u in ("hermes", "invincible", "atlantic_conveyor"):
        place(st, u, S.SOUTH_GEORGIA)
    control(st, UK, S.SOUTH_GEORGIA)
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "UnitWithdrawn") == [] and st2["rendezvous"] is False
    assert S.alive(st2, "atlantic_conveyor")
    st = uk()
    for u in ("hermes", "invincible", "atlantic_conveyor"):
        place(st, u, "sa5")  # the same sea area: the rendezvous is made
    out, st2 = play(st, UK, {"kind": "pass"})
    assert [e["unit"] for e in events_of(out, "UnitWithdrawn")] == ["atlantic_conveyor"] and st2["rendezvous"]


# ---------------------------------------------------------------------- Op #4 with 4.4(3) ---
def test_fs_7_1_op_4_an_ar_submarine_eliminated_in_the_box_scores_for_the_uk():
    """Op #4: "Any AR submarine(s) there at the time of this operation are automatically
    eliminated"; FS 4.4(3): every AR ship sunk in the South Georgia Holding Box gives the UK one
    negative VP (FS 2.5 names the submarines among the AR ships)."""
    st = uk()
    for s in ("glamorgan", "broadsword", "alacrity", "spartan"):
        place(st, s, "sa5")
    place(st, "sas_d", aboard="glamorgan")
    place(st, "sbs", aboard="broadsword")
    place(st, "santa_fe", S.SOUTH_GEORGIA)
    vp = st["vp"][S.TRACK]
    out, st2 = play(st, UK, op(4, ships=["glamorgan", "broadsword", "alacrity"], submarine="spartan",
                               sf=["sas_d", "sbs"]))
    assert not S.alive(st2, "santa_fe") and st2["control"][S.SOUTH_GEORGIA] == UK
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(3)")]
    assert st2["vp"][S.TRACK] == vp - 1


# --------------------------------------------------------------------- FS 3.6 with 10.8 ---
def test_fs_3_6_and_10_8_an_sf_team_landing_alone_in_an_empty_area_takes_it():
    """FS 3.6: an area comes under your control "the instant your side is the only one to have one
    or more ground units in it" - SF are ground units; FS 4.4(5): Fox Bay is worth one VP."""
    st = uk()
    place(st, "glamorgan", "falklands")
    place(st, "sas_d", aboard="glamorgan")  # FS 6.2(1)
    out, st2 = play(st, UK, op(16, units=["sas_d"], area="fox_bay"))
    assert st2["control"]["fox_bay"] == UK
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]


def test_fs_7_1_op_25_eliminating_the_last_ar_sf_hands_the_area_to_the_uk():
    """Op #25 SF against SF; the UK SF left alone in Fox Bay take it (FS 3.6, 4.4(5))."""
    st = uk()
    place(st, "sas_d", "fox_bay")
    place(st, "cdo_601", "fox_bay")
    out, st2 = fought(st, UK, op(25, area="fox_bay"), FixedDice(1, 6))
    assert not S.alive(st2, "cdo_601") and S.alive(st2, "sas_d")
    assert st2["control"]["fox_bay"] == UK and events_of(out, "VPScored")[-1]["delta"] == -1


# ----------------------------------------------------------------- FS 6.3 / 9.6 / 4.4(5) ---
def test_fs_6_3_the_base_is_used_until_the_area_goes_over_then_emergency_rebasing():
    """FS 6.3: the AR uses a contested base "until the instant the area goes over to UK control.
    At that time the AR player must perform emergency rebasing (see 9.6)"."""
    st = uk()
    place(st, "2_para", "goose_green")
    place(st, "ri_12", "goose_green")
    place(st, "dagger_1", "goose_green")
    out, st2 = fought(st, UK, op(15, area="goose_green", units=["2_para"], fire=fire(("2_para", "ri_12"))),
                      FixedDice(1, 6))
    assert not S.alive(st2, "ri_12") and st2["control"]["goose_green"] == UK
    assert events_of(out, "VPScored")[-1]["delta"] == -1  # FS 4.4(5)
    d = pending(st2)
    assert (d["kind"], d["seat"], d["rule"]) == ("emergency_rebase", AR, "FS 9.6")
    assert "goose_green" not in d["options"]["destinations"]["dagger_1"]


# ---------------------------------------------------------------------- FS 10.5 combos ---
def test_fs_10_5_carriers_striking_the_stealth_aircraft_on_the_ground_hit_on_one():
    """FS 10.5: "whenever it's fired at by any UK units of any kind, the 'to hit' numbers of those
    firing UK units is reduced to '1'" - an Op #13 strike on its airbase too (three shots, 10.9)."""
    st = uk()
    place(st, "hermes", "falklands")
    place(st, "super_etendard", "pebble_island")
    out, st2 = play(st, UK, op(13, carriers=["hermes"], airbase="pebble_island"), FixedDice(2, 2, 2))
    assert hit_numbers(out) == [1, 1, 1] and S.alive(st2, "super_etendard")


# ------------------------------------------------------------------- FS 10.8 with Op #17 ---
def test_fs_10_8_and_op_17_sf_in_the_first_wave_add_one_to_the_landing_infantry():
    """Op #17: first-wave hit numbers are reduced by one "in addition to all other applicable
    modifiers"; FS 10.8: SF in the attacking force (none among the defenders) add one."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "2_para", aboard="fearless")  # anti-ground 4
    place(st, "sas_d", aboard="fearless")
    place(st, "ri_8", "fox_bay")
    out, st2 = fought(st, UK, op(17, area="fox_bay", wave=["2_para", "sas_d"]), FixedDice(6, 6))
    uk_roll = rolls_of(out)[0]
    assert uk_roll.units == ["2_para", "ri_8"] and uk_roll.target["hit_number"] == 4


# --------------------------------------------------------------------- FS 11.3 with VP ---
def draw(st, uk_die, ar_die):
    """End the AR Submarine Phase so the Random Event Phase rolls ``uk_die`` then ``ar_die``."""
    st["phase"] = "AR Submarine"
    st["active"] = [AR]
    st["phase_ops"] = S.phase_allowance(st, "AR Submarine")
    return play(st, AR, {"kind": "submarines", "moves": {}}, FixedDice(uk_die, ar_die))


def test_fs_11_3_3_4_a_surprise_sinking_outside_the_tez_scores_for_the_ar():
    """FS 11.3 3-4: "Normal VP pertain for any sinking": FS 4.4(2), an AR ship sunk outside the TEZ
    gives the AR one VP."""
    st = uk()
    place(st, "spartan", "sa2")
    place(st, "drummond", "sa2")
    vp = st["vp"][S.TRACK]
    out, st2 = draw(st, 3, 4)
    out, st3 = answer(st2, UK, {"area": "sa2", "target": "drummond", "units": ["spartan"]}, FixedDice(1))
    assert not S.alive(st3, "drummond")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(2)")]
    assert st3["vp"][S.TRACK] == vp + 1


def test_fs_11_3_6_6_a_surprise_sinking_of_hermes_scores_two():
    """FS 11.3 6-6 with FS 4.4(4): Hermes sunk is two VP to the AR; no UK defensive die."""
    st = uk()
    place(st, "salta", "sa6")
    place(st, "hermes", "sa6", steps=1)
    out, st2 = draw(st, 6, 6)
    out, st3 = answer(st2, AR, {"area": "sa6", "target": "hermes", "units": ["salta"]}, FixedDice(1))
    assert [r.seat for r in rolls_of(out)] == [AR] and not S.alive(st3, "hermes")
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(2, "FS 4.4(4)")]


def test_fs_11_3_4_5_the_two_vp_at_the_last_uk_operation_count_in_the_final_reckoning():
    """FS 11.3 4-5: two VP "at the end of that third UK operation"; when that is the UK's last
    (FS 5.3), the competitive victory (FS 4.6) reckons them: 0 + 2 is an AR win."""
    st = uk()
    st["vp"][S.TRACK] = 0
    st["uk_operations_left"] = 1
    control(st, UK, "port_stanley")
    st["political_pressure"] = {"ops_left": 1}
    st["effects"][UK]["political_pressure"] = {"ops_left": 1}
    out, st2 = play(st, UK, {"kind": "pass"})
    assert events_of(out, "VPScored")[-1]["delta"] == 2
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["level"], ended["rule"]) == (AR, "competitive game", "FS 4.6")


# ------------------------------------------------------------------------------ Op #11 ---
def test_fs_7_1_op_11_aircraft_joining_an_ar_op_15_ground_attack_are_not_intercepted():
    """Op #11 only "provided ... the AR action currently underway is 3, 17, 18, 19 or 20": the
    in-range planes an AR Op #15 brings in fly uncontested even past the UK carriers."""
    st = empty("AR Operations")
    place(st, "hermes", "falklands")
    place(st, "invincible", "falklands")
    place(st, "2_para", "fitzroy")
    place(st, "ri_12", "fitzroy")
    place(st, "a4_1", "port_stanley")
    out, st2 = play(st, AR, op(15, area="fitzroy", units=["ri_12"], aircraft=["a4_1"],
                               fire=fire(("ri_12", "2_para"), ("a4_1", "2_para"))))
    assert pending(st2)["kind"] == "defensive_fire"
    assert "interception" not in [d["kind"] for d in st2["pending"]]


def test_fs_11_3_4_4_aircraft_flown_into_the_free_attack_are_not_intercepted():
    """FS 11.3 4-4 is an event, not an AR operation, so Op #11 (ops 3, 17-20 only) gives the UK
    carriers no interception of the planes flown in."""
    st = uk()
    place(st, "hermes", "sa6")
    place(st, "glamorgan", "sa6")
    place(st, "drummond", "sa6")
    place(st, "dagger_1", S.ARGENTINA)
    out, st2 = draw(st, 4, 4)
    d = pending(st2)
    assert (d["kind"], d["rule"]) == ("free_attack", "FS 11.3 4-4")
    assert "dagger_1" in d["options"]["areas"]["sa6"]["aircraft"]
    out, st3 = answer(st2, AR, {"area": "sa6", "units": ["drummond"], "aircraft": ["dagger_1"]},
                      FixedDice(default=6))
    assert all(p["kind"] != "interception" for p in st3.get("pending", []))
    assert events_of(out, "BattleBegun")[0]["rule"] == "FS 11.3 4-4"
