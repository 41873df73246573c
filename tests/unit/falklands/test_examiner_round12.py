"""Twelfth examiner round: the text's qualifier clauses ("except", "only", "may not", "at the end
of", "up to", "at least", "immediately" ...) read one by one against the code, a scenario for each
clause no earlier round had pinned. Small positions (helpers.py), fixed dice, driven through the
ruleset's public ``decide``."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S

from .helpers import AR, UK, FixedDice, answer, broken, control, empty, events_of, names, op, pending, place, play, uk


# --------------------------------------------------------------------------------- FS 10.8 ---
@pytest.mark.parametrize("order", [
    op(15, area="mount_kent", units=["ri_4"]),
    op(24, origin="mount_kent", destination="mount_kent", units=["ri_4"], attack=True),
])
def test_fs_10_8_a_ground_attack_on_an_sf_team_alone_is_refused_saying_sf_fall_only_to_op_25(order):
    """FS 10.8: "SF units may only be eliminated via SF vs. SF combat in Op #25, or via OP #7, or
    via random event 2-4" and "The presence of only SF unit(s) in an enemy occupied land area
    counts as 'contesting' that area". A UK SF team alone in AR-held Mount Kent contests it; the
    AR's Op #15 (or Op #24 in place) there has no target: refused under the operation, saying the
    enemy there is SF, not that there is no enemy (Op #19 and #21 already say "never SF")."""
    st = empty("AR Operations")
    place(st, "ri_4", "mount_kent")
    place(st, "sas_d", "mount_kent")
    assert S.contested(st, "mount_kent")
    err = broken(st, AR, order, f"FS 7.1 Op #{order['op']}")
    assert "SF" in str(err) and "FS 10.8" in str(err) and "Op #25" in str(err), str(err)


def test_fs_10_8_an_all_sf_force_contests_the_area_it_marches_into_and_takes_nothing():
    """FS 10.8: "they may be moved as part of an all-SF force"; "The presence of only SF unit(s)
    in an enemy occupied land area counts as 'contesting' that area" (3.6: an area comes under
    your control only when your side is the only one there). The SAS marching alone (Op #24) into
    AR-held Mount Kent makes it contested: no ControlChanged, no VP, the AR still its last holder;
    attacking with it is refused, SF firing only in Op #25."""
    st = uk()
    place(st, "sas_d", "teal_inlet")
    control(st, UK, "teal_inlet")
    place(st, "ri_4", "mount_kent")
    vp = st["vp"][S.TRACK]
    broken(st, UK, op(24, origin="teal_inlet", destination="mount_kent", units=["sas_d"], attack=True),
           "FS 7.1 Op #24")
    out, after = play(st, UK, op(24, origin="teal_inlet", destination="mount_kent", units=["sas_d"]))
    assert not events_of(out, "ControlChanged") and not events_of(out, "BattleBegun")
    assert S.contested(after, "mount_kent") and after["control"]["mount_kent"] == AR
    assert after["vp"][S.TRACK] == vp


# ------------------------------------------------------------------- FS 4.6, 5.3, 4.4(1), 4-5 ---
def test_fs_4_6_the_vp_scored_at_the_end_of_the_last_uk_operation_count_in_the_reckoning():
    """FS 4.4(1): the AR's point is scored "every time a UK operation is completed and, at that
    instant, there are no UK surface ships in ... the TEZ"; 11.3 4-5: two VP "at the end of that
    third UK operation"; 4.6: "When the UK player has completed his last operation ... If the VP
    tally is in positive numbers, the AR player has won". At -2, with no UK surface ship in the TEZ,
    the UK holding Port Stanley and its last operation the third since 4-5, the UK passes: -2 +1
    +2 = +1 when the game is reckoned, so the AR wins the competitive game (reckoned before those
    points, the UK would have won at -2)."""
    st = empty()
    place(st, "2_para", "port_stanley")
    control(st, UK, "port_stanley")
    st["vp"][S.TRACK] = -2
    st["uk_operations_left"] = 1
    st["political_pressure"] = {"ops_left": 1}
    st["effects"][UK]["political_pressure"] = {"ops_left": 1}
    out, after = play(st, UK, {"kind": "pass"})
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(1)"), (2, "FS 11.3 4-5")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"], after["vp"][S.TRACK]) == (AR, "FS 4.6", 1)
    assert names(out)[-1] == "GameEnded"


# ------------------------------------------------------------------ FS 3.6, 4.5, 7.1 Op #17 ---
def test_fs_4_5_an_assault_wave_landing_unopposed_takes_port_stanley_at_once_and_play_stops_before_the_second_wave():
    """Op #17: "The assault may be into any enemy controlled land area"; FS 3.6: an enemy
    controlled area "comes under your control the instant your side is the only one to have one
    or more ground units in it"; 4.4: VP "are instantly scored"; 4.5: at -5 "play stops
    immediately". At -1 the first wave lands in empty, AR-held Port Stanley: the UK holds it the
    instant the wave is ashore, scores -4 and wins, and the second wave named in the order never
    lands. (Before, the unopposed first wave's hand-over waited until the second wave had landed:
    it came ashore into a game already won; a first wave that fought for the area already stopped
    play before the second wave.)"""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "canberra", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "42_cdo", aboard="canberra")
    st["vp"][S.TRACK] = -1
    out, after = play(st, UK, op(17, area="port_stanley", wave=["2_para"], second_wave=["42_cdo"]))
    assert names(out) == ["OperationBegun", "UnitDisembarked", "ControlChanged", "VPScored", "GameEnded"]
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["2_para"]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"], after["vp"][S.TRACK]) == (UK, "FS 4.5", -5)
    assert after["units"]["42_cdo"]["aboard"] == "canberra"


def test_fs_3_6_an_unopposed_assault_wave_takes_the_area_before_the_second_wave_lands():
    """The same landing short of sudden death (at +8): the area is the UK's, and its VP scored,
    the instant the first wave is ashore, before the second wave lands (FS 3.6, 4.4); both waves
    end ashore and the track is at +4."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "canberra", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "42_cdo", aboard="canberra")
    out, after = play(st, UK, op(17, area="port_stanley", wave=["2_para"], second_wave=["42_cdo"]))
    kinds = names(out)
    assert kinds[:5] == ["OperationBegun", "UnitDisembarked", "ControlChanged", "VPScored", "UnitDisembarked"]
    assert [e["unit"] for e in events_of(out, "UnitDisembarked")] == ["2_para", "42_cdo"]
    assert after["control"]["port_stanley"] == UK and after["vp"][S.TRACK] == 4
    assert {after["units"][u]["location"] for u in ("2_para", "42_cdo")} == {"port_stanley"}


def test_fs_9_6_aircraft_left_alone_by_an_unopposed_assault_wave_rebase_before_the_second_wave_lands():
    """FS 9.6: where the only AR units are aircraft and the UK has ground units there, "'emergency
    rebasing' must take place immediately" (6.3: the base is used "until the instant the area goes
    over to UK control"). The first wave lands in Goose Green, where only a Pucara stands: the UK
    holds it at once (-1, 4.4(5)) and the AR is asked to rebase the Pucara before the second wave
    lands, as an Op #24 march's stranded aircraft rebase before its attack."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "canberra", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "42_cdo", aboard="canberra")
    place(st, "pucara_1", "goose_green")
    out, after = play(st, UK, op(17, area="goose_green", wave=["2_para"], second_wave=["42_cdo"]))
    assert names(out) == ["OperationBegun", "UnitDisembarked", "ControlChanged", "VPScored", "DecisionPending"]
    assert pending(after)["kind"] == "emergency_rebase"
    assert after["units"]["42_cdo"]["aboard"] == "canberra"
    out, after = answer(after, AR, {"destinations": {"pucara_1": "argentina"}})
    assert [e["unit"] for e in events_of(out, "UnitMoved")] == ["pucara_1"]
    assert names(out).index("UnitMoved") < names(out).index("UnitDisembarked")
    assert after["units"]["42_cdo"]["location"] == "goose_green" and after["phase"] == "AR Operations"


def test_fs_9_6_aircraft_left_alone_when_the_first_wave_wins_the_area_rebase_before_the_second_wave():
    """The same when the first wave fights for Goose Green (Op #17: its hit number one less, 10.7
    one less again) and destroys the 12th Regiment: the UK holds the area the instant the hits
    take effect, and the Pucara based there rebases (9.6 "immediately") before the second wave
    lands."""
    st = uk()
    place(st, "fearless", "falklands")
    place(st, "canberra", "falklands")
    place(st, "2_para", aboard="fearless")
    place(st, "42_cdo", aboard="canberra")
    place(st, "ri_12", "goose_green")
    place(st, "pucara_1", "goose_green")
    out, after = play(st, UK, op(17, area="goose_green", wave=["2_para"], second_wave=["42_cdo"]))
    assert pending(after)["kind"] == "defensive_fire"
    out, after = answer(after, AR, {"fire": "auto"}, FixedDice(1, 6))  # 2 Para's die, then the 12th's
    assert [e["unit"] for e in events_of(out, "UnitEliminated")] == ["ri_12"]
    assert names(out)[-3:] == ["ControlChanged", "VPScored", "DecisionPending"]
    assert pending(after)["kind"] == "emergency_rebase" and after["units"]["42_cdo"]["aboard"] == "canberra"
    out, after = answer(after, AR, {"destinations": {"pucara_1": "argentina"}})
    assert names(out).index("UnitMoved") < names(out).index("UnitDisembarked")
    assert after["units"]["42_cdo"]["location"] == "goose_green"
