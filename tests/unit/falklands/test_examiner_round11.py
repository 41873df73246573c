"""Eleventh examiner round: scenarios written from the text for combinations earlier rounds touched
least: sudden death at the instant a VP is scored inside an operation or a random event, the VP of
control that changes when units leave an area, the last operation with decisions still owed, and
the stealth aircraft's fifth attack made outside an operation. Small positions (helpers.py), fixed
dice, driven through the ruleset's public ``decide``."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S

from .helpers import (
    AR, UK, FixedDice, answer, control, empty, events_of, names, op, op_4_force, pending, place, play, rolls_of, uk,
)
from .test_rules_random_events import draw


def vp_events(out) -> list[tuple[int, str]]:
    return [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")]


# ------------------------------------------------------------------------ FS 4.4(5), 4.5 ---
def test_fs_4_5_a_march_into_an_empty_vp_area_reaching_minus_5_ends_play_before_the_tez_point():
    """FS 4.4: "VP are instantly scored"; 4.5: "If the VP tally ever reaches -5, play stops
    immediately". No UK surface ship is in the TEZ, so the AR would score 4.4(1)'s point "every time
    a UK operation is completed", but the Op #24 march into empty Fox Bay (FS 3.6: the UK alone
    there) scores -1 first: at -4 the track reaches -5 and the UK wins before the operation is
    completed: no 4.4(1) point, no OperationCompleted, no operation spent."""
    st = empty()
    place(st, "2_para", "port_howard")
    control(st, UK, "port_howard")
    st["vp"][S.TRACK] = -4
    left = st["uk_operations_left"]
    out, after = play(st, UK, op(24, origin="port_howard", destination="fox_bay", units=["2_para"]))
    assert vp_events(out) == [(-1, "FS 4.4(5)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.5")
    assert names(out)[-1] == "GameEnded" and not events_of(out, "OperationCompleted")
    assert after["vp"][S.TRACK] == -5 and after["uk_operations_left"] == left


def test_fs_4_5_at_plus_19_the_uk_point_for_a_vp_area_comes_before_the_ar_tez_point_no_sudden_death():
    """The same march at +19: Fox Bay's -1 is scored the instant the UK is alone there (4.4(5)),
    the AR's 4.4(1) point when the operation is completed, after it. The track goes 18, then 19,
    and never reaches +20: play goes on (scored the other way round it would end at +20)."""
    st = empty()
    place(st, "2_para", "port_howard")
    control(st, UK, "port_howard")
    st["vp"][S.TRACK] = 19
    out, after = play(st, UK, op(24, origin="port_howard", destination="fox_bay", units=["2_para"]))
    assert vp_events(out) == [(-1, "FS 4.4(5)"), (1, "FS 4.4(1)")]
    assert [e["total"] for e in events_of(out, "VPScored")] == [18, 19]
    assert not events_of(out, "GameEnded") and not after.get("ended")
    assert after["phase"] == "AR Operations"


# ------------------------------------------------------------------ FS 3.6, 4.4(5), Op #23 ---
@pytest.mark.parametrize("side, unit, ship, gains, delta", [
    (AR, "ri_12", "cabo_san_antonio", UK, -1),   # the UK takes Goose Green
    (UK, "2_para", "canberra", AR, +1),          # the AR recaptures it
])
def test_fs_3_6_and_4_4_5_an_op_23_loading_the_last_unit_out_of_a_contested_vp_area_hands_it_over(
        side, unit, ship, gains, delta):
    """Op #23 loads "ground units from a land area", a contested one too; FS 3.6: "A contested ...
    land area comes under your control the instant your side is the only one to have one or more
    ground units in it"; 4.4(5): the UK scores Goose Green's VP when it takes it, and "If the AR
    player manages to recapture any VP area, he immediately adds back the corresponding number".
    The side holding contested Goose Green loads its last unit there onto its ship in the Falkland
    Islands Sea Area: the other side holds Goose Green at once, and its point is scored."""
    st = uk() if side == UK else empty("AR Operations")
    place(st, ship, "falklands")
    place(st, "2_para", "goose_green")
    place(st, "ri_12", "goose_green")
    control(st, side, "goose_green")
    vp = st["vp"][S.TRACK]
    out, after = play(st, side, op(23, loads={unit: ship}))
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [("goose_green", gains)]
    assert vp_events(out) == [(delta, "FS 4.4(5)")] and after["vp"][S.TRACK] == vp + delta


# ----------------------------------------------------------------------- FS 4.5, 11.3 ---
def test_fs_4_5_and_11_3_2_4_the_compromised_sf_was_port_stanleys_last_ar_unit_the_uk_wins_at_minus_5():
    """FS 11.3 2-4 (a four: the AR side is affected, the UK chooses) removes the AR commando
    contesting Port Stanley beside 2 Para (10.8: SF alone contest an area); FS 3.6 hands Port
    Stanley to the UK and 4.4(5) scores -4: from -1 the track reaches -5, and FS 4.5 ends the game
    at once, in the Random Event Phase: no next turn."""
    st = empty()
    place(st, "cdo_601", "port_stanley")
    place(st, "2_para", "port_stanley")
    control(st, AR, "port_stanley")
    st["vp"][S.TRACK] = -1
    out, st = draw(st, 2, 4, 4)
    assert (pending(st)["kind"], pending(st)["seat"]) == ("sf_compromised", UK)
    out, after = answer(st, UK, {"unit": "cdo_601"})
    assert vp_events(out) == [(-4, "FS 4.4(5)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.5")
    assert not events_of(out, "TurnAdvanced") and after["turn"] == 1


def test_fs_4_5_and_11_3_6_6_a_surprise_sinking_of_hermes_at_plus_18_ends_the_game_in_the_event_phase():
    """FS 11.3 6-6 with 4.4(4): Hermes is two VP to the AR "whenever and wherever" sunk; at +18
    the surprise sinking reaches +20 and FS 4.5 stops play there, before the next turn begins."""
    st = uk()
    place(st, "salta", "sa6")
    place(st, "hermes", "sa6", steps=1)
    st["vp"][S.TRACK] = 18
    out, st = draw(st, 6, 6)
    out, after = answer(st, AR, {"area": "sa6", "target": "hermes", "units": ["salta"]}, FixedDice(1))
    assert vp_events(out) == [(2, "FS 4.4(4)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (AR, "FS 4.5")
    assert not events_of(out, "TurnAdvanced") and after["turn"] == 1


# ---------------------------------------------------------------------- FS 5.3, 9.6, Op #11 ---
def test_fs_5_3_the_last_operation_takes_port_stanley_the_stranded_dagger_rebases_and_is_intercepted_first():
    """FS 5.3: play stops "When that last UK operation is completed"; 9.6: AR aircraft alone with UK
    ground units rebase "immediately", "subject to interception". The UK's last operation marches
    2 Para into Port Stanley, where only a Dagger stands: the AR rebases it and the UK may
    intercept it (Hermes in the Falkland Islands Sea Area) before the operation is completed; then
    the game ends on FS 4.6 (Port Stanley held, -1 VP: a UK win)."""
    st = uk()
    st["uk_operations_left"] = 1
    st["vp"][S.TRACK] = 3
    place(st, "2_para", "mount_kent")
    control(st, UK, "mount_kent")
    place(st, "dagger_1", "port_stanley")
    place(st, "hermes", "falklands")
    out, st = play(st, UK, op(24, origin="mount_kent", destination="port_stanley", units=["2_para"]))
    assert vp_events(out) == [(-4, "FS 4.4(5)")] and not events_of(out, "GameEnded")
    assert (pending(st)["kind"], pending(st)["seat"]) == ("emergency_rebase", AR)
    out, st = answer(st, AR, {"destinations": {"dagger_1": "argentina"}})
    assert (pending(st)["kind"], pending(st)["seat"]) == ("interception", UK) and not st.get("ended")
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(6, 6, 6))
    assert [r.units for r in rolls_of(out)] == [["hermes", "dagger_1"]] * 3
    assert S.where(after, "dagger_1") == S.ARGENTINA
    assert names(out)[-2:] == ["OperationCompleted", "GameEnded"]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.6") and after["uk_operations_left"] == 0


# ------------------------------------------------------------------------ FS 10.5, 11.3 4-4 ---
def test_fs_10_5_the_fifth_stealth_attack_made_in_a_4_4_free_attack_counts_and_removes_it():
    """FS 10.5: the Super Etendard "may never make more than five attacks during an entire game,
    after which it's simply removed"; 4-4's free attack is no operation but is an attack. With four
    attacks made, it flies into a 4-4 attack on Glamorgan in Sea Area 6 (in range from Argentina,
    9.4): that is its fifth, and it is removed after the battle."""
    st = uk()
    place(st, "glamorgan", "sa6")
    place(st, "drummond", "sa6")
    place(st, "super_etendard", "argentina")
    st["stealth_attacks"] = 4
    out, st = draw(st, 4, 4)
    assert pending(st)["kind"] == "free_attack" and "super_etendard" in pending(st)["options"]["areas"]["sa6"]["aircraft"]
    out, st = answer(st, AR, {"area": "sa6", "units": ["drummond"], "aircraft": ["super_etendard"],
                              "fire": [{"unit": "drummond", "at": "glamorgan"},
                                       {"unit": "super_etendard", "at": "glamorgan"}]}, FixedDice(default=6))
    while pending(st):
        out, st = answer(st, pending(st)["seat"], {"fire": "auto"}, FixedDice(default=6))
    assert st["stealth_attacks"] == 5 and not S.alive(st, "super_etendard")
    assert [e["rule"] for e in events_of(out, "UnitWithdrawn")] == ["FS 10.5"]


# ---------------------------------------------------------------- FS 3.6, 4.5, 7.1 Op #24 ---
def _west_falkland(st, mover_side: str) -> dict:
    """Port Howard and Fox Bay (FS 4.4(5): one VP each; they adjoin, map.json) both contested: the
    mover's side holds Port Howard, the other side Fox Bay."""
    other = S.other(mover_side)
    mover, stayer = ("2_para", "ri_5") if mover_side == UK else ("ri_5", "2_para")
    place(st, mover, "port_howard")
    place(st, stayer, "port_howard")
    place(st, "3_para", "fox_bay")
    place(st, "ri_8", "fox_bay")
    control(st, mover_side, "port_howard")
    control(st, other, "fox_bay")
    return st


def test_fs_3_6_and_4_5_an_op_24_march_out_of_a_vp_area_hands_it_over_at_once_before_the_attack():
    """FS 7.1 Op #24: the force moves into the adjoining area, and enemy ground units there "may be
    attacked as part of this same op". FS 3.6: an area "comes under your control the instant your
    side is the only one to have one or more ground units in it"; 4.4: "VP are instantly scored";
    4.5: "If the VP tally ever reaches +20, play stops immediately". At +19 the UK marches its last
    unit out of contested Port Howard to attack Fox Bay: the instant it leaves, the AR holds Port
    Howard again (+1, 4.4(5)), the track reaches +20 and the AR wins; the attack is never made (no
    battle, no die; taken after the attack, Fox Bay's -1 would have netted +19 and play gone on)."""
    st = _west_falkland(uk(), UK)
    st["vp"][S.TRACK] = 19
    out, after = play(st, UK, op(24, origin="port_howard", destination="fox_bay", units=["2_para"], attack=True,
                                 fire="auto"), FixedDice(1, 1, default=6))
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [("port_howard", AR)]
    assert vp_events(out) == [(1, "FS 4.4(5)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (AR, "FS 4.5")
    assert not events_of(out, "BattleBegun") and not rolls_of(out) and pending(after) is None


def test_fs_3_6_and_4_5_an_ar_op_24_march_out_of_a_vp_area_at_minus_4_ends_the_game_for_the_uk_at_once():
    """The same for the AR at -4: its last infantry leaves contested Port Howard to attack Fox Bay;
    the UK is alone in Port Howard that instant (-1, 4.4(5)), the track reaches -5 and the UK wins
    (FS 4.5) before any defensive fire is asked or die rolled."""
    st = _west_falkland(empty("AR Operations"), AR)
    st["vp"][S.TRACK] = -4
    out, after = play(st, AR, op(24, origin="port_howard", destination="fox_bay", units=["ri_5"], attack=True,
                                 fire="auto"), FixedDice(default=1))
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [("port_howard", UK)]
    assert vp_events(out) == [(-1, "FS 4.4(5)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.5")
    assert not events_of(out, "BattleBegun") and not rolls_of(out) and pending(after) is None


def test_fs_9_6_aircraft_left_alone_by_an_op_24_march_out_rebase_before_the_attack_is_fought():
    """FS 9.6: when AR aircraft are the only AR units in an area the UK has ground units in,
    "emergency rebasing must take place immediately". The AR marches its last infantry out of
    contested Goose Green, where a Pucara is based, to attack Fitzroy (Op #24): Goose Green is the
    UK's that instant (-1, 4.4(5)) and the Pucara rebases then, before the attack in Fitzroy is
    fought (its defensive fire is asked after)."""
    st = empty("AR Operations")
    place(st, "ri_12", "goose_green")
    place(st, "3_para", "goose_green")
    place(st, "pucara_2", "goose_green")
    place(st, "2_para", "fitzroy")
    place(st, "ri_4", "fitzroy")
    control(st, AR, "goose_green")
    control(st, UK, "fitzroy")
    vp = st["vp"][S.TRACK]
    out, st = play(st, AR, op(24, origin="goose_green", destination="fitzroy", units=["ri_12"], attack=True,
                              fire="auto"))
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [("goose_green", UK)]
    assert vp_events(out) == [(-1, "FS 4.4(5)")] and st["vp"][S.TRACK] == vp - 1
    assert not events_of(out, "BattleBegun")
    assert (pending(st)["kind"], pending(st)["seat"]) == ("emergency_rebase", AR)
    out, st = answer(st, AR, {"destinations": {"pucara_2": "port_stanley"}})
    assert [(e["unit"], e["destination"]) for e in events_of(out, "UnitMoved")] == [("pucara_2", "port_stanley")]
    assert [e["area"] for e in events_of(out, "BattleBegun")] == ["fitzroy"]
    assert (pending(st)["kind"], pending(st)["seat"]) == ("defensive_fire", UK)


# -------------------------------------------------------------------- FS 7.1 Op #4, 4.5 ---
def test_fs_7_1_op_4_the_box_is_the_uks_as_the_force_enters_though_santa_fe_sunk_there_ends_the_game():
    """Op #4: the UK "moves a force ... into the South George Holding Box, thereby automatically
    gaining control of it. Any AR submarine(s) there at the time of this operation are
    automatically eliminated"; 4.4(3) scores Santa Fe sunk in the box for the UK, and at -4 that is
    -5: the UK wins at once (4.5), holding the box it entered (control comes with the move)."""
    st = uk()
    order = op_4_force(st)
    st["vp"][S.TRACK] = -4
    out, after = play(st, UK, order)
    assert [(e["area"], e["side"]) for e in events_of(out, "ControlChanged")] == [(S.SOUTH_GEORGIA, UK)]
    assert vp_events(out) == [(-1, "FS 4.4(3)")]
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.5")
    assert S.controlled_by(after, S.SOUTH_GEORGIA) == UK and not S.alive(after, "santa_fe")


@pytest.mark.parametrize("origin, destination", [("port_howard", "fox_bay"), ("fox_bay", "port_howard")])
def test_fs_3_6_and_4_5_one_march_that_gives_up_one_vp_area_and_takes_another_is_judged_on_the_net(
        origin, destination):
    """Reading (docs/rulesets.md): FS 3.6 "comes under your control the instant your side is the only
    one". At +19 the UK marches its last unit out of contested Port Howard into empty, AR-held Fox
    Bay (Op #24, no attack), or the mirror image: the instant it moves, the area left is the AR's
    (+1) and the area entered the UK's (-1), together, as a battle's hits take effect together (FS
    10.2 with 4.5): the track nets +19 and play goes on, whichever way the march goes (before, the
    order the map file lists the two areas in decided it: Port Howard's +1 first ended the game)."""
    st = uk()
    place(st, "2_para", origin)
    place(st, "ri_5", origin)
    control(st, UK, origin)
    control(st, AR, destination)
    st["vp"][S.TRACK] = 19
    out, after = play(st, UK, op(24, origin=origin, destination=destination, units=["2_para"]))
    assert sorted((e["area"], e["side"]) for e in events_of(out, "ControlChanged")) == \
        sorted([(origin, AR), (destination, UK)])
    assert sorted(vp_events(out)) == [(-1, "FS 4.4(5)"), (1, "FS 4.4(5)")]
    assert not events_of(out, "GameEnded") and after["vp"][S.TRACK] == 19
    assert after["phase"] == "AR Operations"
