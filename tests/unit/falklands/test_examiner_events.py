"""FS 11.1-11.3, the random events, written from the rules text alone (an examiner's reading of
chapter 11), for what test_rules_random_events.py and the other examiner modules do not already
check: the cases where an event cannot apply, an event rolled again, what an event's effect leads
to (control, VP, sudden death) and the restrictions that last into the next phase. Positions are
small and synthetic (helpers.py); dice are fixed."""

from __future__ import annotations

import pytest

from domain.rulesets.falklands import state as S
from domain.rulesets.falklands.data import DATA

from .helpers import (
    AR, R, UK, FixedDice, answer, control, empty, events_of, fire, keep_dice, names, op, pending, place, play,
    refused, rolls_of, with_factor,
)
from .test_rules_random_events import draw, drawn, phase

SEA = "sa7"       # a TEZ sea area (FS 2.2)
OUTSIDE = "sa4"   # a sea area outside the TEZ
SHIP_IN_TEZ = "broadsword"  # keeps FS 4.4(1) quiet at the end of a UK operation


def no_effect(out, after, result):
    """The event was drawn, nothing was asked or changed, and the turn ended (FS 11.2: no reroll)."""
    assert drawn(out) == result
    assert "DecisionPending" not in names(out) and pending(after) is None
    assert len(rolls_of(out)) == 2
    assert not events_of(out, "BattleBegun") and not events_of(out, "UnitEliminated")
    assert after["phase"] == "UK Operations" and events_of(out, "TurnAdvanced")


# -------------------------------------------------------------------------------- 11.2 ---
def test_fs_11_2_an_event_rolled_again_in_a_later_turn_takes_effect_again():
    """FS 11.2: "Each event may rolled into effect any number of times unless otherwise stated":
    1-6 rolled at the end of two turns restricts each following UK Operations Phase."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    for turn in (2, 3):
        out, st = draw(st, 1, 6)
        assert st["turn"] == turn and "poor_uk_staff_work" in st["effects"][UK]
        assert refused(st, UK, op(20, units=[SHIP_IN_TEZ], destination="sa6")).rule == "FS 11.3 1-6"
        out, st = play(st, UK, {"kind": "pass"})
        assert "poor_uk_staff_work" not in st["effects"][UK]
        st = phase(st, "AR Operations")


def test_fs_11_2_peru_rolled_twice_replaces_two_aircraft():
    """FS 11.2 (any number of times) with 6-3: each roll replaces one eliminated aircraft."""
    st = empty()
    for u in ("a4_1", "dagger_1"):
        st["units"][u].update(eliminated=True, in_play=True, steps=0)
    out, st = draw(st, 6, 3)
    out, st = answer(st, AR, {"unit": "a4_1"})
    out, st = draw(st, 6, 3)
    assert pending(st)["options"]["unit"] == ["dagger_1"]
    out, st = answer(st, AR, {"unit": "dagger_1"})
    assert S.alive(st, "a4_1") and S.alive(st, "dagger_1")


def test_fs_11_2_the_uk_holding_its_leader_marker_rolls_4_1_again_keeps_one_marker():
    """FS 11.3 4-1: "The UK player should take the 'UK Decisive Leader' marker"; he holds it
    already: one marker, nothing taken from the AR (who has none)."""
    st = empty()
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = draw(st, 4)
    # The holder may first have each die rolled again (FS 11.3 4-1); he keeps them.
    assert pending(st)["kind"] == "leadership"
    out, st = keep_dice(st, UK, 1)
    out, st = answer(st, UK, {"reroll": None})
    assert drawn(out) == "4-1"
    assert st["markers"] == {UK: ["uk_decisive_leader"], AR: []}


# ------------------------------------------------------------------------------ 1-1 .. 1-5 ---
def test_fs_11_3_1_1_one_operation_then_a_pass_costs_one_operation_in_all():
    """FS 11.3 1-1: "the UK player may conduct any two operations for the price of one" - the
    phase costs one operation whether he uses the second or not."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", OUTSIDE)
    out, st = draw(st, 1, 1)
    left = st["uk_operations_left"]
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    out, st = play(st, UK, {"kind": "pass"})
    assert st["uk_operations_left"] == left - 1 and st["phase"] == "AR Operations"


def test_fs_11_3_1_1_with_one_operation_left_both_operations_are_conducted():
    """FS 11.3 1-1 with FS 5.3: two operations for the price of one; with one left the UK
    conducts both, and the game ends when the second (the one paid for) is completed."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    place(st, "glamorgan", OUTSIDE)
    st["uk_operations_left"] = 1
    out, st = draw(st, 1, 5)
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa5"))
    assert not events_of(out, "GameEnded") and st["uk_operations_left"] == 1
    out, st = play(st, UK, op(20, units=["glamorgan"], destination="sa6"))
    assert st["uk_operations_left"] == 0 and events_of(out, "GameEnded")
    assert S.where(st, "glamorgan") == "sa6"


# ------------------------------------------------------------------------------ 2-1 .. 2-3 ---
def test_fs_11_3_2_1_a_contested_sea_area_with_only_ar_submarines_offers_no_surface_attack():
    """FS 11.3 2-1: an attack "on the AR surface ship(s) in any one presently contested sea area";
    the area holds an AR submarine only: no effect."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "salta", SEA)
    out, after = draw(st, 2, 2)
    no_effect(out, after, "2-2")


def test_fs_11_3_2_1_ships_in_another_sea_area_do_not_join_the_attack(monkeypatch):
    """FS 11.3 2-1: the attack is made "in any one presently contested sea area": UK destroyers
    in the next sea area are not among the attackers offered."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    near = sorted(DATA.sea_adjacent(SEA))[0]
    place(st, "arrow", near)
    out, st = draw(st, 2, 3)
    opt = pending(st)["options"]["areas"]
    assert list(opt) == [SEA] and opt[SEA]["units"] == ["glamorgan"]
    with pytest.raises(Exception) as e:
        answer(st, UK, {"area": SEA, "units": ["glamorgan", "arrow"], "fire": "auto"})
    assert getattr(e.value, "rule", None) == "FS 11.3 2-3"


def test_fs_11_3_2_1_a_sinking_that_reaches_minus_5_ends_the_game_at_once(monkeypatch):
    """FS 11.3 2-1 "Normal VP awards ... pertain for each sinking" (FS 4.4(3): one VP to the UK for
    an AR ship sunk in the TEZ) with FS 4.5: at -5 "play stops immediately" - no new turn."""
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    st["vp"][S.TRACK] = -4
    out, st = draw(st, 2, 1)
    out, st = answer(st, UK, {"area": SEA, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))})
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(1, 6))
    assert not S.alive(after, "drummond") and after["vp"][S.TRACK] == -5
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (UK, "FS 4.5")
    assert not events_of(out, "TurnAdvanced") and after["turn"] == 1


# -------------------------------------------------------------------------------------- 2-4 ---
def test_fs_11_3_2_4_the_removed_ar_sf_was_the_last_ar_unit_the_uk_takes_control():
    """FS 11.3 2-4 removes the SF unit; FS 3.6: "A contested ... land area comes under your control
    the instant your side is the only one to have one or more ground units in it", and FS 4.4(5)
    scores Pebble Island (one VP to the UK)."""
    st = empty()
    place(st, "cdo_602", "pebble_island")
    place(st, "2_para", "pebble_island")
    control(st, AR, "pebble_island")
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2, 4, 5)  # 4-6: the AR side is affected; the UK chooses
    assert pending(st)["seat"] == UK and pending(st)["options"] == {"unit": ["cdo_602"]}
    out, after = answer(st, UK, {"unit": "cdo_602"})
    assert not S.alive(after, "cdo_602") and S.controlled_by(after, "pebble_island") == UK
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(-1, "FS 4.4(5)")]
    assert after["vp"][S.TRACK] == vp - 1 and after["phase"] == "UK Operations"


def test_fs_11_3_2_4_the_removed_uk_sf_was_the_last_uk_unit_the_ar_takes_control_back():
    """FS 11.3 2-4 and FS 3.6 / 4.4(5): "If the AR player manages to recapture any VP area, he
    immediately adds back the corresponding number": Port Howard is one VP."""
    st = empty()
    place(st, "sas_d", "port_howard")
    place(st, "ri_5", "port_howard")
    control(st, UK, "port_howard")
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2, 4, 3)  # 1-3: the UK side is affected; the AR chooses
    assert pending(st)["seat"] == AR
    out, after = answer(st, AR, {"unit": "sas_d"})
    assert S.controlled_by(after, "port_howard") == AR
    assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(1, "FS 4.4(5)")]
    assert after["vp"][S.TRACK] == vp + 1


def test_fs_11_3_2_4_only_the_affected_side_loses_an_sf_the_other_sides_sf_stays():
    """FS 11.3 2-4: the affected player's SF unit is removed; the die says the AR is affected, and
    the only SF unit in a contested land area is British: "no effect"."""
    st = empty()
    place(st, "sas_d", "port_howard")
    place(st, "ri_5", "port_howard")
    control(st, AR, "port_howard")
    out, after = draw(st, 2, 4, 6)
    assert "DecisionPending" not in names(out) and S.alive(after, "sas_d")
    assert after["turn"] == 2


def test_fs_11_3_2_4_an_sf_unit_aboard_a_ship_is_not_in_a_land_area():
    """FS 11.3 2-4: "any one enemy SF unit located in any contested land area": one carried by a
    ship in the Falkland Islands Sea Area is not."""
    st = empty()
    place(st, "hermes", "falklands")
    place(st, "sas_d", aboard="hermes")
    place(st, "drummond", "falklands")
    out, after = draw(st, 2, 4, 1)
    assert "DecisionPending" not in names(out) and S.alive(after, "sas_d")


# ------------------------------------------------------------------------- 2-5 2-6 3-1 ---
def test_fs_11_3_2_5_a_contested_sea_area_with_only_ar_surface_ships_offers_no_submarine_attack():
    """FS 11.3 2-5: an attack "on the AR submarine(s) in any one presently contested sea area";
    AR surface ships only there: no effect."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "drummond", SEA)
    out, after = draw(st, 2, 5)
    no_effect(out, after, "2-5")


def test_fs_11_3_3_1_ar_submarines_where_no_uk_unit_is_are_not_attacked():
    """FS 11.3 3-1: the AR submarine is alone in its sea area (not contested): no effect."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "salta", "sa6")
    out, after = draw(st, 3, 1)
    no_effect(out, after, "3-1")


# ------------------------------------------------------------------------------- 3-4 .. 3-6 ---
def test_fs_11_3_3_4_no_uk_submarine_with_an_ar_surface_vessel_no_effect():
    """FS 11.3 3-4: an AR surface vessel "co-located in any sea zone with one or more UK
    submarines": the UK submarine shares its area with an AR submarine only, and the AR ship is
    with a UK destroyer only."""
    st = empty()
    place(st, "spartan", SEA)
    place(st, "salta", SEA)
    place(st, "glamorgan", "sa6")
    place(st, "drummond", "sa6")
    out, after = draw(st, 3, 5)
    no_effect(out, after, "3-5")


def test_fs_11_3_3_6_the_surprise_attack_needs_no_contested_area_and_costs_no_operation(monkeypatch):
    """FS 11.3 3-6: "any one AR surface vessel, protected or not, that's presently co-located in any
    sea zone with one or more UK submarines" - outside the TEZ too; "This doesn't count as an
    operation for the UK player"; a hit that does not sink is one step (an AR ship has one)."""
    with_factor(monkeypatch, "splendid", surface=4)
    st = empty()
    place(st, "splendid", OUTSIDE)
    place(st, "granville", OUTSIDE)
    left = st["uk_operations_left"]
    out, st = draw(st, 3, 6)
    assert pending(st)["options"]["areas"] == {OUTSIDE: {"units": ["splendid"], "targets": ["granville"]}}
    out, after = answer(st, UK, {"area": OUTSIDE, "units": ["splendid"], "target": "granville"}, FixedDice(5))
    assert not events_of(out, "UnitEliminated") and S.alive(after, "granville")
    assert after["uk_operations_left"] == left and after["turn"] == 2


# -------------------------------------------------------------------------------------- 4-4 ---
def test_fs_11_3_4_4_a_contested_sea_area_with_only_uk_submarines_offers_no_surface_attack():
    """FS 11.3 4-4: an attack "on the UK surface ship(s) in any one presently contested sea area":
    a UK submarine with an AR destroyer is no surface target: no effect."""
    st = empty()
    place(st, "spartan", SEA)
    place(st, "drummond", SEA)
    out, after = draw(st, 4, 4)
    no_effect(out, after, "4-4")


def test_fs_11_3_4_4_a_sinking_that_reaches_plus_20_ends_the_game_at_once(monkeypatch):
    """FS 11.3 4-4 "Normal VP pertain for each sinking" (FS 4.4(4): two VP for Hermes) with
    FS 4.5: at +20 "play stops immediately" and the AR wins."""
    for u in ("drummond", "hermes"):
        with_factor(monkeypatch, u, surface=3)
    st = empty()
    place(st, "hermes", SEA, steps=1)
    place(st, "drummond", SEA)
    st["vp"][S.TRACK] = 18
    out, st = draw(st, 4, 4)
    out, st = answer(st, AR, {"area": SEA, "units": ["drummond"], "fire": fire(("drummond", "hermes"))})
    out, after = answer(st, UK, {"fire": "auto"}, FixedDice(1, default=6))  # Hermes fires back, misses
    assert not S.alive(after, "hermes") and after["vp"][S.TRACK] == 20
    (ended,) = events_of(out, "GameEnded")
    assert (ended["winner"], ended["rule"]) == (AR, "FS 4.5")
    assert not events_of(out, "TurnAdvanced")


# -------------------------------------------------------------------------------- 5-1 / 5-2 ---
def poor_logistics(ar_die=1):
    out, st = draw(empty(), 5, ar_die)
    assert "poor_ar_logistics" in st["effects"][AR]
    return phase(st, "AR Operations")


@pytest.mark.parametrize("ar_die", [1, 2])
def test_fs_11_3_5_1_no_air_strike_no_sf_combat_no_held_exocet(monkeypatch, ar_die):
    """FS 11.3 5-1: "The AR player may not conduct any kind of attack during his next Operations
    Phase": air-to-sea and air-to-ground strikes, SF vs SF combat and a held land-launched Exocet
    (FS 11.3 6-4, "made later, it will then count as an operation") are attacks."""
    st = poor_logistics(ar_die)
    place(st, "glamorgan", "falklands")
    place(st, "a4_1", "port_stanley")
    place(st, "2_para", "fitzroy")
    place(st, "sas_d", "fitzroy")
    place(st, "cdo_601", "fitzroy")
    control(st, AR, "port_stanley", "fitzroy")
    st["exocet"] = "held"
    for order in (op(18, area="falklands", aircraft=["a4_1"], fire=fire(("a4_1", "glamorgan"))),
                  op(19, area="fitzroy", aircraft=["a4_1"], fire=fire(("a4_1", "2_para"))),
                  op(25, area="fitzroy", fire=fire(("cdo_601", "sas_d"))),
                  op("exocet", target="glamorgan")):
        assert refused(st, AR, order).rule == "FS 11.3 5-1", order
    assert st["exocet"] == "held"


def test_fs_11_3_5_1_aircraft_may_still_rebase_and_it_lasts_one_phase():
    """FS 11.3 5-1 forbids attacks only, and only "during his next Operations Phase"."""
    st = poor_logistics()
    place(st, "a4_1", "argentina")
    place(st, "ri_3", "port_stanley")
    control(st, AR, "port_stanley")
    out, st = play(st, AR, op(3, aircraft=["a4_1"], origin="argentina", destination="port_stanley",
                            refuel=["a4_1"]))  # FS 9.4: an A-4 from Argentina reaches the Falklands refuelled
    assert S.where(st, "a4_1") == "port_stanley" and "poor_ar_logistics" not in st["effects"][AR]


# -------------------------------------------------------------------------------------- 4-6 ---
def test_fs_11_3_4_6_a_held_land_launched_exocet_is_no_aircraft_unit():
    """FS 11.3 4-6: "may not move or fight any aircraft units"; the land-launched Exocet of 6-4 is a
    marker, not an aircraft unit: it may be fired (as the AR operation)."""
    out, st = draw(empty(), 4, 6)
    st = phase(st, "AR Operations")
    place(st, "glamorgan", "falklands")
    st["exocet"] = "held"
    out, after = play(st, AR, op("exocet", target="glamorgan"), FixedDice(3))
    assert events_of(out, "UnitHit")[0]["unit"] == "glamorgan" and after["exocet"] == "used"


# -------------------------------------------------------------------------------------- 6-3 ---
def test_fs_11_3_6_3_the_replacement_appears_in_argentina_at_full_strength():
    """FS 11.3 6-3: "replace any one eliminated non-stealth aircraft counter. It appears on the
    Argentine mainland" - a Pucara too (non-stealth), in play again, whole."""
    st = empty()
    st["units"]["pucara_2"].update(eliminated=True, in_play=True, steps=0, location=None)
    out, st = draw(st, 6, 3)
    assert pending(st)["options"]["unit"] == ["pucara_2"]
    out, after = answer(st, AR, {"unit": "pucara_2"})
    u = after["units"]["pucara_2"]
    assert S.alive(after, "pucara_2") and S.where(after, "pucara_2") == S.ARGENTINA
    assert u["steps"] == DATA.units["pucara_2"]["steps"] and not u["eliminated"]


def test_fs_11_3_6_3_only_the_stealth_aircraft_is_lost_no_effect():
    """FS 11.3 6-3: "non-stealth": with only the Super Etendard eliminated there is nothing to
    replace."""
    st = empty()
    st["units"]["super_etendard"].update(eliminated=True, in_play=True, steps=0)
    out, after = draw(st, 6, 3)
    no_effect(out, after, "6-3")
    assert not S.alive(after, "super_etendard")


def test_fs_11_3_6_3_an_aircraft_never_entered_is_not_eliminated():
    """FS 11.3 6-3 replaces an "eliminated" aircraft; aircraft that are merely not in play (never
    lost) are not offered."""
    st = empty()  # every unit out of play, none eliminated
    out, after = draw(st, 6, 3)
    no_effect(out, after, "6-3")


# -------------------------------------------------------------------------------------- 6-4 ---
def test_fs_11_3_6_4_an_exocet_hit_on_a_ships_last_step_sinks_it_and_scores():
    """FS 11.3 6-4 hits on three or less; a UK destroyer with one step left is sunk: one VP to the
    AR (FS 4.4(4)); Hermes would be two."""
    for target, vp in (("glamorgan", 1), ("hermes", 2)):
        st = empty()
        place(st, target, "falklands", steps=1)
        place(st, SHIP_IN_TEZ, SEA)
        before = st["vp"][S.TRACK]
        out, st = draw(st, 6, 4)
        out, after = answer(st, AR, {"target": target}, FixedDice(2))
        assert [e["unit"] for e in events_of(out, "UnitEliminated")] == [target]
        assert [(e["delta"], e["rule"]) for e in events_of(out, "VPScored")] == [(vp, "FS 4.4(4)")]
        assert after["vp"][S.TRACK] == before + vp


def test_fs_11_3_6_4_only_a_surface_vessel_in_the_falklands_sea_area_is_a_target():
    """FS 11.3 6-4: "any one UK surface vessel in the Falklands Sea Area": a UK submarine there is
    not one, nor a ship in another TEZ sea area; with no such target the Exocet is held."""
    st = empty()
    place(st, "spartan", "falklands")
    place(st, "glamorgan", SEA)
    out, after = draw(st, 6, 4)
    assert "DecisionPending" not in names(out) and after["exocet"] == "held"
    place(st, "arrow", "falklands")
    out, st2 = draw(st, 6, 4)
    assert pending(st2)["options"]["target"] == ["arrow"]


def test_fs_11_3_6_4_rolled_again_while_held_is_no_event_the_held_one_stays():
    """FS 11.3 6-4: "This event may happen only once per game; treat it as 'no event' if rolled
    again" - the held Exocet is not fired now, even with a target there."""
    st = empty()
    place(st, "glamorgan", "falklands")
    st["exocet"] = "held"
    out, after = draw(st, 6, 4)
    no_effect(out, after, "6-4")
    assert after["exocet"] == "held" and not events_of(out, "UnitHit")


# -------------------------------------------------------------------------------------- 6-5 ---
def test_fs_11_3_6_5_a_contested_sea_area_with_only_uk_surface_ships_offers_no_submarine_attack():
    """FS 11.3 6-5: an attack "on the UK submarine(s) in any one presently contested sea area"."""
    st = empty()
    place(st, "glamorgan", SEA)
    place(st, "salta", SEA)
    out, after = draw(st, 6, 5)
    no_effect(out, after, "6-5")


# -------------------------------------------------------------------------------------- 6-6 ---
def test_fs_11_3_6_6_no_ar_submarine_with_a_uk_surface_vessel_no_effect():
    """FS 11.3 6-6: a UK surface vessel "co-located in any sea zone with one or more of his AR
    submarines": the AR submarine is with a UK submarine only."""
    st = empty()
    place(st, "salta", SEA)
    place(st, "spartan", SEA)
    place(st, "glamorgan", "sa6")
    out, after = draw(st, 6, 6)
    no_effect(out, after, "6-6")


# -------------------------------------------------------------------- 11.2 not declined ---
@pytest.mark.parametrize("uk_die, ar_die, seat, units", [
    (3, 4, UK, ("spartan", "drummond")),    # UK Surprise Sub Attack
    (4, 4, AR, ("drummond", "glamorgan")),  # AR Surface Vessel Detection Advantage
    (6, 6, AR, ("salta", "glamorgan")),     # AR Surprise Submarine Attack
])
def test_fs_11_2_a_free_attack_of_either_side_may_not_be_declined(monkeypatch, uk_die, ar_die, seat, units):
    """FS 11.2: "Circumstances otherwise permitting, no activated event may be declined by either
    player": with a target there, the attack is made; an answer that names none is refused."""
    st = empty()
    for u in units:
        place(st, u, SEA)
        with_factor(monkeypatch, u, surface=3)
    out, st = draw(st, uk_die, ar_die)
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("free_attack", seat, f"FS 11.3 {uk_die}-{ar_die}")
    for choice in ({"decline": True}, {}, {"area": "sa1"}):
        assert pytest.raises(Exception, answer, st, seat, choice).value.rule == f"FS 11.3 {uk_die}-{ar_die}"


# ------------------------------------------------------------------------ 2-4 with 9.6 ---
def test_fs_11_3_2_4_the_uk_takes_an_airbase_area_the_ar_aircraft_there_rebase_at_once():
    """FS 11.3 2-4 removes the last AR ground unit (an SF unit) from Pebble Island; FS 9.6: "When
    the only unit(s) in a land area ... are AR aircraft, and the UK player has one or more ground
    units there, 'emergency rebasing' must take place immediately" - before the turn ends."""
    st = empty()
    place(st, "cdo_602", "pebble_island")
    place(st, "pucara_3", "pebble_island")
    place(st, "2_para", "pebble_island")
    control(st, AR, "pebble_island")
    out, st = draw(st, 2, 4, 4)
    out, st = answer(st, UK, {"unit": "cdo_602"})
    d = pending(st)
    assert (d["kind"], d["seat"], d["rule"]) == ("emergency_rebase", AR, "FS 9.6")
    assert st["turn"] == 1
    out, after = answer(st, AR, {"destinations": {"pucara_3": S.ARGENTINA}})
    assert S.where(after, "pucara_3") == S.ARGENTINA and after["turn"] == 2


# -------------------------------------------------------------------------- 4-6 others ---
def test_fs_11_3_4_6_the_strategic_airlift_moves_ground_units_not_aircraft_units():
    """FS 11.3 4-6 grounds "aircraft units"; Op #1 moves "up to two ground units from Argentina to
    Port Stanley airfield" and is still open to the AR."""
    out, st = draw(empty(), 4, 6)
    st = phase(st, "AR Operations")
    place(st, "ri_2", S.ARGENTINA)
    place(st, "ri_3", "port_stanley")
    control(st, AR, "port_stanley")
    out, after = play(st, AR, op(1, units=["ri_2"]))
    assert S.where(after, "ri_2") == "port_stanley"


# ------------------------------------------------------------------- 5-1: what is offered ---
ATTACK_FIELDS = {"attack", "support", "fire", "carriers", "aircraft", "refuel"}


def test_fs_11_3_5_1_moves_are_offered_without_the_attack_the_order_would_be_refused(monkeypatch):
    """FS 11.3 5-1: "The AR player may not conduct any kind of attack during his next Operations
    Phase": Op #20, #22 and #24 are offered as moves only - no attack flag, no supporting units,
    aircraft or carriers, and no "move" into the area a force already fights in - and what is
    offered is accepted."""
    st = poor_logistics()
    place(st, "drummond", SEA)
    place(st, "glamorgan", SEA)
    place(st, "a4_1", "port_stanley")
    place(st, "ri_3", "port_stanley")
    place(st, "ri_12", "fitzroy")
    place(st, "2_para", "fitzroy")
    place(st, "ri_25", "mount_kent")
    control(st, AR, "port_stanley", "fitzroy", "mount_kent")
    for n in (20, 22, 24):
        offer = R.operation_template(st, AR, n)
        assert offer is not None and not ATTACK_FIELDS & set(offer["fields"]), (n, offer["fields"])
    origins = R.operation_template(st, AR, 24)["choices"]["origin"]
    assert "fitzroy" not in origins["fitzroy"]["destination"]
    out, after = play(st, AR, op(24, units=["ri_12"], origin="fitzroy", destination="goose_green"))
    assert S.where(after, "ri_12") == "goose_green"
    # The next AR Operations Phase offers the attacks again.
    st["effects"][AR].pop("poor_ar_logistics")
    assert {"attack", "support", "fire"} <= set(R.operation_template(st, AR, 24)["fields"])
    assert "fitzroy" in R.operation_template(st, AR, 24)["choices"]["origin"]["fitzroy"]["destination"]


# ----------------------------------------------------------------- 3-2: what is offered ---
@pytest.mark.parametrize("n", [14, 18, 20])
def test_fs_11_3_3_2_the_ar_attacks_on_ships_offer_the_target_of_opportunity(monkeypatch, n):
    """FS 11.3 3-2: "As his next operation, the AR player may choose to attack any one protected UK
    surface vessel without having to also engage unprotected targets": the AR's attacks on ships
    offer that choice (the protected UK ships only), and the offered choice is accepted; the
    operation after it offers it no more."""
    with_factor(monkeypatch, "drummond", surface=3)
    with_factor(monkeypatch, "a4_1", surface=3)
    st = empty()
    for u in ("hermes", "glamorgan", "drummond"):
        place(st, u, SEA)
    place(st, "a4_1", "port_stanley")
    control(st, AR, "port_stanley")
    out, st = draw(st, 3, 3)
    st = phase(st, "AR Operations")
    field = R.operation_template(st, AR, n)["fields"]["target_of_opportunity"]
    assert field["choices"] == ["hermes"] and field["optional"] is True
    order = {14: op(14, area=SEA, units=["drummond"], fire=fire(("drummond", "hermes"))),
             18: op(18, area=SEA, aircraft=["a4_1"], fire=fire(("a4_1", "hermes"))),
             20: op(20, support=["drummond"], destination=SEA, attack=True, fire=fire(("drummond", "hermes")))}[n]
    out, after = play(st, AR, {**order, "target_of_opportunity": field["choices"][0]}, FixedDice(default=6))
    assert events_of(out, "OperationBegun")
    while pending(after):  # Hermes intercepts (lets them pass) and fires back (FS 10.2)
        d = pending(after)
        out, after = answer(after, d["seat"], {"fire": "auto"} if d["kind"] == "defensive_fire" else {"fire": []},
                            FixedDice(default=6))
    assert "ar_target_of_opportunity" not in after["effects"][AR]
    after = phase(after, "AR Operations")
    assert "target_of_opportunity" not in R.operation_template(after, AR, n)["fields"]


# ------------------------------------------------------------ free attacks with FS 4.4(1) ---
def test_fs_11_3_2_1_the_free_attack_is_no_uk_operation_for_the_tez_vp(monkeypatch):
    """FS 11.3 2-1: "This attack doesn't count as using up a UK operation"; FS 4.4(1) scores "every
    time a UK operation is completed" with no UK surface ship in the TEZ: not after this attack."""
    with_factor(monkeypatch, "glamorgan", surface=3)
    st = empty()
    place(st, "glamorgan", OUTSIDE)
    place(st, "drummond", OUTSIDE)
    vp = st["vp"][S.TRACK]
    out, st = draw(st, 2, 1)
    out, st = answer(st, UK, {"area": OUTSIDE, "units": ["glamorgan"], "fire": fire(("glamorgan", "drummond"))})
    out, after = answer(st, AR, {"fire": "auto"}, FixedDice(6, 6))
    assert not [e for e in events_of(out, "VPScored") if e["rule"] == "FS 4.4(1)"]
    assert after["vp"][S.TRACK] == vp and after["turn"] == 2


# ---------------------------------------------------------------------- 4-5 with 1-1 ---
def test_fs_11_3_4_5_the_free_operation_of_1_1_is_one_of_the_next_three():
    """FS 11.3 4-5: "within his next three operations"; FS 11.3 1-1: "the UK player may conduct any
    two operations for the price of one" - both are operations, so the third is the second of the
    two, and the two VP are scored at its end."""
    st = empty()
    place(st, SHIP_IN_TEZ, SEA)
    out, st = draw(st, 4, 5)
    vp = st["vp"][S.TRACK]
    out, st = play(st, UK, {"kind": "pass"})  # the first of the three
    st = phase(st, "AR Submarine")
    out, st = draw(st, 1, 1)
    assert st["phase_ops"]["allowed"] == 2
    out, st = play(st, UK, {"kind": "pass"})  # the second (free)
    assert not [e for e in events_of(out, "VPScored") if e["rule"] == "FS 11.3 4-5"]
    out, st = play(st, UK, {"kind": "pass"})  # the third
    assert [e["delta"] for e in events_of(out, "VPScored") if e["rule"] == "FS 11.3 4-5"] == [2]
    assert st["vp"][S.TRACK] == vp + 2


# ------------------------------------------------------------------- 4-4 with FS 10.4 ---
def test_fs_11_3_4_4_the_free_attack_respects_protected_targets(monkeypatch):
    """FS 11.3 4-4 is an attack "on the UK surface ship(s)" under the normal rules: FS 10.4 "No
    protected target may be attacked unless every other unprotected enemy surface ship in that same
    area is also being attacked" (only 3-2, 3-4 and 6-6 make exceptions)."""
    for u in ("drummond", "granville"):
        with_factor(monkeypatch, u, surface=3)
    st = empty()
    for u in ("hermes", "glamorgan", "drummond", "granville"):
        place(st, u, SEA)
    out, st = draw(st, 4, 4)
    with pytest.raises(Exception) as e:
        answer(st, AR, {"area": SEA, "units": ["drummond", "granville"],
                        "fire": fire(("drummond", "hermes"), ("granville", "hermes"))})
    assert e.value.rule == "FS 10.4"
    out, after = answer(st, AR, {"area": SEA, "units": ["drummond", "granville"],
                                 "fire": fire(("drummond", "glamorgan"), ("granville", "hermes"))})
    assert pending(after)["kind"] == "defensive_fire"


# ------------------------------------------------------------ 4-3 with the 2-4 and 6-4 dice ---
def test_fs_11_3_4_3_the_ar_marker_re_rolls_the_sf_compromised_die():
    """FS 11.3 4-3: the AR "may play that marker [after] any die roll made by either player that he
    (the AR player) doesn't like. The effect is to make/allow the rolling player to roll that die
    again": the UK's 2-4 die (5: the AR is affected) is rolled again by the UK (2: the UK is)."""
    st = compromised_both()
    st["markers"][AR] = ["ar_decisive_leader"]
    out, st = draw(st, 2)
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("leadership", AR)  # first the event's own two dice, each as rolled
    out, st = keep_dice(st, AR, 4)
    out, st = answer(st, AR, {"reroll": None}, FixedDice(5))
    d = pending(st)
    assert (d["kind"], d["seat"], [o["value"] for o in d["options"]["reroll"]]) == ("leadership", AR, [5])
    out, st = answer(st, AR, {"reroll": 0}, FixedDice(2))
    (again,) = rolls_of(out)
    assert (again.seat, again.values, again.rule) == (UK, [2], "FS 11.3 4-3")
    d = pending(st)
    assert (d["kind"], d["seat"], d["options"]) == ("sf_compromised", AR, {"unit": ["sas_d"]})
    assert st["markers"][AR] == []


def compromised_both():
    st = empty()
    place(st, "sas_d", "port_howard")
    place(st, "ri_5", "port_howard")
    place(st, "cdo_602", "pebble_island")
    place(st, "2_para", "pebble_island")
    control(st, AR, "port_howard", "pebble_island")
    return st


def test_fs_11_3_4_1_the_uk_marker_re_rolls_the_exocet_die():
    """FS 11.3 4-1 with 6-4: the UK may have the AR's Exocet die (a hit on three) rolled again."""
    st = empty()
    place(st, "glamorgan", "falklands")
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = draw(st, 6)
    out, st = keep_dice(st, UK, 4)  # keeps the event's dice
    out, st = answer(st, UK, {"reroll": None})
    out, st = answer(st, AR, {"target": "glamorgan"}, FixedDice(1))
    d = pending(st)
    assert (d["kind"], d["seat"]) == ("leadership", UK) and not events_of(out, "UnitHit")
    out, after = answer(st, UK, {"reroll": 0}, FixedDice(5))
    (again,) = rolls_of(out)
    assert (again.seat, again.values) == (AR, [5])
    assert not events_of(out, "UnitHit") and after["units"]["glamorgan"]["steps"] == 2
    assert after["exocet"] == "used" and after["markers"][UK] == []


# ------------------------------------------------------------- 11.2 a decision mid-phase ---
def test_fs_11_2_the_turn_waits_in_the_random_event_phase_for_the_events_decision():
    """FS 5.2 V / FS 11.2: the event is carried out in the Random Event Phase; while the AR chooses
    the Exocet's target the turn has not ended, the UK has nothing to order, and only then does
    the next turn begin (FS 5.1)."""
    st = empty()
    place(st, "glamorgan", "falklands")
    out, st = draw(st, 6, 4)
    assert st["phase"] == "Random Event" and st["turn"] == 1 and not events_of(out, "TurnAdvanced")
    assert R.legal_orders(st, UK) == []
    (offer,) = R.legal_orders(st, AR)
    assert offer["decision_kind"] == "exocet" and offer["rule"] == "FS 11.3 6-4"
    assert refused(st, UK, {"kind": "pass"}).rule == "FS 11.3 6-4"
    out, after = answer(st, AR, {"target": "glamorgan"}, FixedDice(6))
    assert events_of(out, "TurnAdvanced")[0]["turn"] == 2 and after["phase"] == "UK Operations"
