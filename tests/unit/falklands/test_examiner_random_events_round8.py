"""FS 11.3, the random events, round 8: each event where it meets another rule (10.3, 10.4, 10.8,
10.9, 4.4, 5.3, Op #7, #10, #16), written from the rules text for what the earlier examiner
modules do not check. Positions are small and synthetic (helpers.py); dice are fixed."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from projections.narrate import describe

from .helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, keep_dice, names, op, pending, place, play, refused,
    rolls_of,
)
from .test_rules_random_events import draw, drawn, phase

SEA = "sa7"       # a TEZ sea area (FS 2.2)
OUTSIDE = "sa4"   # a sea area outside the TEZ
SHIP_IN_TEZ = "broadsword"  # keeps FS 4.4(1) quiet at the end of a UK operation
FLAT = next(a for a in DATA.land_areas if not DATA.areas[a]["mountains"] and not DATA.areas[a]["entrenched"])


# -------------------------------------------------------------------------------------- 1-6 ---
def test_fs_11_3_1_6_an_sf_raid_moves_nothing_and_stands():
    """FS 11.3 1-6 forbids "air, sea or land movement"; Op #7's SF unit "doesn't actually move",
    so the raid is made, and costs the UK operation."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", SEA)
    place(st, "sas_g", aboard="glamorgan")
    place(st, "a4_1", "port_stanley")
    control(st, AR, "port_stanley")
    st["effects"][UK]["poor_uk_staff_work"] = {"rule": "FS 11.3 1-6"}
    out, after = play(st, UK, op(7, sf="sas_g", target="a4_1"), FixedDice(1))
    assert not S.alive(after, "a4_1") and S.alive(after, "sas_g")
    assert after["uk_operations_left"] == st["uk_operations_left"] - 1
    assert S.where(after, "sas_g") == S.where(st, "sas_g")


def test_fs_11_3_1_6_op_10_rides_on_an_attack_in_place_outside_the_tez():
    """FS 11.3 1-6 "Battles may be fought in areas already contested", with Op #10: an Op #14 in a
    contested area outside the TEZ moves nothing, so Op #10 may ride on it, and the sinking scores
    for the UK (4.4(3)) instead of the AR (4.4(2))."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    st["effects"][UK]["poor_uk_staff_work"] = {"rule": "FS 11.3 1-6"}
    vp = st["vp"][S.TRACK]
    out, st = play(st, UK, op(14, units=["glamorgan"], area=OUTSIDE, with_op_10=True))
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))  # Glamorgan hits, Drummond misses
    assert not S.alive(after, "drummond")
    assert after["vp"][S.TRACK] == vp - 1
    assert S.where(after, "glamorgan") == OUTSIDE


def test_fs_11_3_1_6_a_repair_and_a_regroup_move_nothing_and_stand():
    """FS 11.3 1-6 forbids movement only: Op #5 repairs a vessel already in the South Georgia box
    ("its move there can't be part of this same operation") and Op #8 regroups a unit where it
    is; both are offered and made."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", S.SOUTH_GEORGIA, steps=1)
    place(st, "2_para", FLAT, steps=1)
    control(st, UK, FLAT, S.SOUTH_GEORGIA)
    st["ops_log"][UK].append(4)
    st["effects"][UK]["poor_uk_staff_work"] = {"rule": "FS 11.3 1-6"}
    offered = {o.get("op") for o in R.legal_orders(st, UK)}
    assert {5, 8} <= offered and not {6, 16, 22, 23} & offered
    out, after = play(st, UK, op(5, unit="glamorgan"))
    assert after["units"]["glamorgan"]["steps"] == 2 and S.where(after, "glamorgan") == S.SOUTH_GEORGIA
    out, after = play(st, UK, op(8, unit="2_para"))
    assert after["units"]["2_para"]["steps"] == 2 and S.where(after, "2_para") == FLAT


# ------------------------------------------------------------------------------- 2-1 with 4-1 ---
def test_fs_11_3_2_1_with_4_4_2_a_marker_held_through_the_free_attack_stops_no_vp():
    """FS 4.4(2) "these VP aren't scored during the operation when random event 4-1/4-2/4-3 is in
    effect"; FS 11.3 2-1 "This attack doesn't count as using up a UK operation" (docs/rulesets.md:
    a free attack is no operation). The UK holds its marker through the attack and never plays
    it: Drummond sunk outside the TEZ scores 4.4(2)'s +1, as it does when the marker is played
    there (test_examiner_timing)."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    st["markers"][UK] = ["uk_decisive_leader"]
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2)
    out, st = keep_dice(st, UK, 1)
    out, st = answer(st, UK, {"reroll": None})  # the event dice are kept, each as rolled: 2-1
    face = DATA.units["glamorgan"]["factors"]["surface"]
    out, st = answer(st, UK, {"area": OUTSIDE, "fire": [{"unit": "glamorgan", "at": "drummond"}]})
    # Glamorgan hits, Drummond misses: dice that go the holder's way, not asked about (11.3 4-1)
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(face, 6))
    assert not S.alive(after, "drummond") and after["markers"][UK] == ["uk_decisive_leader"]
    assert [e["delta"] for e in events_of(out, "VPScored") if e["rule"] == "FS 4.4(2)"] == [1]
    assert after["vp"][S.TRACK] == vp + 1


# -------------------------------------------------------------------------------------- 2-4 ---
def test_fs_11_3_2_4_an_sf_team_alone_in_an_enemy_held_area_contests_it_and_may_be_chosen():
    """FS 11.3 2-4 "any one enemy SF unit located in any contested land area", with 10.8: "The
    presence of only SF unit(s) in an enemy occupied land area counts as 'contesting' that area"."""
    st = empty()
    place(st, "sas_d", FLAT)
    place(st, "ri_3", FLAT)
    control(st, AR, FLAT)
    out, st = draw(st, 2, 4, 2)  # 1-3: the UK side is affected
    d = pending(st)
    assert (d["kind"], d["seat"], d["options"]) == ("sf_compromised", AR, {"unit": ["sas_d"]})
    out, after = answer(st, AR, {"unit": "sas_d"})
    assert not S.alive(after, "sas_d") and S.alive(after, "ri_3")
    assert S.controlled_by(after, FLAT) == AR and not events_of(out, "ControlChanged")


def test_fs_11_3_2_4_the_affected_sf_beside_its_own_infantry_leaves_control_as_it_was():
    """FS 11.3 2-4 removes the one SF unit chosen; its side's other ground units still contest the
    area (3.6), so no control changes and no VP is scored (4.4(5))."""
    st = empty()
    place(st, "cdo_601", "goose_green")
    place(st, "ri_3", "goose_green")
    place(st, "2_para", "goose_green")
    control(st, AR, "goose_green")
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2, 4, 5)  # 4-6: the AR side is affected, the UK chooses
    assert pending(st)["seat"] == UK
    out, after = answer(st, UK, {"unit": "cdo_601"})
    assert not S.alive(after, "cdo_601") and S.contested(after, "goose_green")
    assert not events_of(out, "ControlChanged") and after["vp"][S.TRACK] == vp


# -------------------------------------------------------------------------------------- 2-5 ---
def test_fs_11_3_2_5_a_carrier_in_the_attacked_area_fires_once_at_the_submarines():
    """FS 11.3 2-5 "Carriers may only participate if they're in the same area", with 10.9 "When
    firing at submarines, neither carrier ever fires more than once per battle": Hermes there may
    not take a second shot at the other submarine; Invincible next door is not offered."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "hermes", OUTSIDE)
    place(st, "invincible", "sa3")
    place(st, "salta", OUTSIDE)
    place(st, "santa_fe", OUTSIDE)
    out, st = draw(st, 2, 5)
    opt = pending(st)["options"]["areas"][OUTSIDE]
    assert opt["carriers"] == ["hermes"] and opt["units"] == []
    two = [{"unit": "hermes", "at": "salta"}, {"unit": "hermes", "at": "santa_fe"}]
    assert refused(st, UK, {"kind": "decide", "decision": pending(st)["id"],
                            "choice": {"area": OUTSIDE, "fire": two}}).rule == "FS 10.9"
    out, st = answer(st, UK, {"area": OUTSIDE, "fire": two[:1]})
    assert pending(st)["kind"] == "defensive_fire"  # "Normal defensive fires are made"
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6, 6))
    uk_shots = [r for r in rolls_of(out) if r.seat == UK]
    assert len(uk_shots) == 1 and not S.alive(after, "salta") and S.alive(after, "santa_fe")


def test_fs_11_3_2_5_an_ar_submarine_sunk_outside_the_tez_scores_for_the_ar():
    """FS 11.3 2-5 "Normal VP awards and debits pertain for each sinking": an AR boat sunk in a
    sea area outside the TEZ is 4.4(2)'s one positive VP, not the UK's debit."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", OUTSIDE)
    place(st, "santa_fe", OUTSIDE)
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2, 5)
    out, after = answer(st, UK, {"area": OUTSIDE, "units": ["glamorgan"]}, FixedDice(1))
    if pending(after):  # the boat's defensive fire (FS 11.3 2-5 "Normal defensive fires are made")
        out, after = answer(after, AR, {"fire": "auto"}, FixedDice(1, 6))
    assert not S.alive(after, "santa_fe")
    assert after["vp"][S.TRACK] == vp + 1


# -------------------------------------------------------------------------------------- 3-2 ---
def test_fs_11_3_3_2_the_unprotected_ship_not_engaged_still_fires_defensively():
    """FS 11.3 3-2 "without having to also engage unprotected targets in that same area ... the
    targeted ship makes normal defensive fire", with 10.2 (no unit withheld from a battle in its
    area): Glamorgan, not attacked, is in the battle and fires back too (docs/rulesets.md)."""
    st = empty()
    place(st, SHIP_IN_TEZ, "sa6")
    place(st, "hermes", SEA)
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    out, st = draw(st, 3, 3)
    st = phase(st, "AR Operations")
    out, st = play(st, AR, op(14, area=SEA, units=["drummond"], fire=[{"unit": "drummond", "at": "hermes"}],
                              target_of_opportunity="hermes"))
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("defensive_fire", UK)
    assert d["options"]["fire"] == {"hermes": ["drummond"], "glamorgan": ["drummond"]}
    out, after = answer(st, UK, {"fire": [{"unit": "hermes", "at": "drummond"}, {"unit": "glamorgan", "at": "drummond"}]},
                        FixedDice(6, 6, 6, 6, 6))
    assert [r.units for r in rolls_of(out)] == [["drummond", "hermes"], ["hermes", "drummond"],
                                                ["glamorgan", "drummond"]] + [["hermes", "drummond"]] * 2  # FS 10.9
    assert after["units"]["glamorgan"]["steps"] == 2  # not engaged: the AR fired at Hermes alone


# -------------------------------------------------------------------------------------- 3-4 ---
def test_fs_11_3_3_4_every_uk_boat_there_fires_at_the_one_protected_target_and_no_die_answers():
    """FS 11.3 3-4 "any one AR surface vessel, protected or not": the 25 de Mayo beside an
    unprotected destroyer (10.4 waived); both UK submarines there fire at it (a UK surface ship
    there takes no part: a "Sub Attack"), and "The AR player may not respond to this attack with
    any defensive die rolls"."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "spartan", OUTSIDE)
    place(st, "splendid", OUTSIDE)
    place(st, "25_de_mayo", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    place(st, "glamorgan", OUTSIDE)  # a surface ship there: the event is a submarine attack
    out, st = draw(st, 3, 4)
    assert pending(st)["options"]["areas"][OUTSIDE]["units"] == ["spartan", "splendid"]
    assert refused(st, UK, {"kind": "decide", "decision": pending(st)["id"],
                            "choice": {"area": OUTSIDE, "target": "25_de_mayo", "units": ["glamorgan"]}}
                   ).rule == "FS 11.3 3-4"
    out, after = answer(st, UK, {"area": OUTSIDE, "target": "25_de_mayo"}, FixedDice(6, 6))
    shots = rolls_of(out)
    assert [(r.seat, r.units) for r in shots] == [(UK, ["spartan", "25_de_mayo"]), (UK, ["splendid", "25_de_mayo"])]
    assert all(r.rule == "FS 11.3 3-4" for r in shots)
    assert "DecisionPending" not in names(out) and pending(after) is None
    assert S.alive(after, "25_de_mayo") and after["turn"] == st["turn"] + 1


# -------------------------------------------------------------------------------- 4-1, 4-3 ---
@pytest.mark.parametrize("ar_die, rival", [(2, AR), (3, UK)])
def test_fs_11_3_4_1_the_rivals_marker_taken_away_reads_taken_not_played(ar_die, rival):
    """FS 11.3 4-1/4-3 "the effect is to take that marker away ...; however, both markers are then
    out of play": the log says the marker was taken away under the event rolled, not that its
    holder played it (he rolled nothing again)."""
    st = empty()
    marker = f"{rival.lower()}_decisive_leader"
    st["markers"][rival] = [marker]
    out, st = draw(st, 4)
    out, st = keep_dice(st, rival, ar_die)
    out, after = answer(st, rival, {"reroll": None})  # the holder keeps the event's dice
    (taken,) = [(cls, data) for cls, data in (o for o in out if isinstance(o, tuple)) if cls.__name__ == "MarkerPlayed"]
    line = describe({"type": "MarkerPlayed", "data": taken[1]}, R)
    assert "taken away" in line and "plays" not in line and f"FS 11.3 4-{ar_die}" in line
    assert after["markers"] == {UK: [], AR: []}
    assert not rolls_of(out)


# -------------------------------------------------------------------------------------- 5-1 ---
def test_fs_11_3_5_1_a_landing_into_a_contested_area_is_no_attack():
    """FS 11.3 5-1 "may not conduct any kind of attack"; Op #16: "Even if the land area is
    contested, there is no immediate combat as part of this operation" - the landing stands."""
    st = empty()
    place(st, "cabo_san_antonio", "falklands")
    place(st, "ri_3", aboard="cabo_san_antonio")
    place(st, "2_para", FLAT)
    place(st, "ri_4", FLAT)
    control(st, AR, FLAT)
    out, st = draw(st, 5, 1)
    st = phase(st, "AR Operations")
    out, after = play(st, AR, op(16, units=["ri_3"], area=FLAT))
    assert S.where(after, "ri_3") == FLAT and not events_of(out, "BattleBegun")
    assert after["phase"] == "UK Submarine"


# -------------------------------------------------------------------------------------- 5-3 ---
def test_fs_11_3_5_3_weather_spending_the_last_operation_stops_play_no_turn_follows():
    """FS 11.3 5-3 with 5.1 "When the UK player has used up his last operation, immediately stop
    play": the game ends in the Random Event Phase; no turn advances and nothing is asked."""
    st = empty()
    st["uk_operations_left"] = 1
    out, after = draw(st, 5, 5)
    assert names(out)[-1] == "GameEnded"
    assert not events_of(out, "TurnAdvanced") and pending(after) is None
    assert after["turn"] == st["turn"] and after["uk_operations_left"] == 0


# -------------------------------------------------------------------------------------- 5-6 ---
def test_fs_11_3_5_6_a_held_land_launched_exocet_is_no_air_operation():
    """FS 11.3 5-6 "provided they're both ops involving only the moving and/or fighting of
    aircraft": the held Exocet (6-4, "land-launched") is no aircraft op: after an Op #3 it is
    refused; chosen first, it is the phase's one operation."""
    st = empty()
    place(st, "a4_1", "port_stanley")
    place(st, "glamorgan", "falklands")
    control(st, AR, "port_stanley")
    st["exocet"] = "held"
    out, st = draw(st, 6, 1)
    st = phase(st, "AR Operations")
    out, second = play(st, AR, op(3, aircraft=["a4_1"], origin="port_stanley", destination="argentina"))
    assert second["phase"] == "AR Operations"
    assert refused(second, AR, op("exocet", target="glamorgan")).rule == "FS 11.3 5-6"
    out, after = play(st, AR, op("exocet", target="glamorgan"), FixedDice(6))
    assert after["exocet"] == "used" and after["phase"] == "UK Submarine"


# -------------------------------------------------------------------------------------- 6-4 ---
def test_fs_11_3_6_4_the_exocet_strikes_a_protected_ship_beside_an_unprotected_one():
    """FS 11.3 6-4 "He selects any one UK surface vessel in the Falklands Sea Area": Hermes is
    offered and struck although an unprotected destroyer is there (10.4 is for attacks by units)."""
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "glamorgan", "falklands")
    out, st = draw(st, 6, 4)
    assert "hermes" in pending(st)["options"]["target"]
    out, after = answer(st, AR, {"target": "hermes"}, FixedDice(3))
    (r,) = [r for r in rolls_of(out) if r.rule == "FS 11.3 6-4"]
    assert r.units == ["hermes"]
    assert events_of(out, "UnitHit")[0]["unit"] == "hermes" and after["units"]["hermes"]["steps"] == 1


def test_fs_11_3_6_4_a_hit_on_a_full_strength_ship_marks_it_and_scores_nothing():
    """FS 11.3 6-4 "Normal" hits (10.2, 10.11): a two-step UK ship hit by the Exocet keeps one
    step; 4.4(4) scores only a sinking. A four misses: "The AR hit number is three"."""
    st = empty()
    place(st, "glamorgan", "falklands")
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 6, 4)
    out, missed = answer(st, AR, {"target": "glamorgan"}, FixedDice(4))
    assert not events_of(out, "UnitHit") and missed["units"]["glamorgan"]["steps"] == 2
    out, hit = answer(st, AR, {"target": "glamorgan"}, FixedDice(3))
    assert events_of(out, "UnitHit") == [{"unit": "glamorgan", "steps_lost": 1, "steps_left": 1,
                                          "rule": "FS 11.3 6-4", "roll": None}]
    assert S.alive(hit, "glamorgan") and hit["vp"][S.TRACK] == vp


# -------------------------------------------------------------------------------------- 6-5 ---
def test_fs_11_3_6_5_a_uk_submarine_sunk_scores_one_for_the_ar():
    """FS 11.3 6-5 "Normal VP pertain for each sinking": a UK submarine sunk is 4.4(4)'s one VP
    ("other UK ships and submarines not in the forgoing list")."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "spartan", OUTSIDE, steps=1)
    place(st, "drummond", OUTSIDE)
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 6, 5)
    assert drawn(out) == "6-5"
    out, after = answer(st, AR, {"area": OUTSIDE, "units": ["drummond"]}, FixedDice(1, 6))
    if pending(after):
        out, after = answer(after, UK, {"fire": "auto"}, FixedDice(1, 6))
    assert not S.alive(after, "spartan")
    assert after["vp"][S.TRACK] == vp + 1
