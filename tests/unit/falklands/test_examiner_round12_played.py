"""Twelfth examiner round: what an umpire finds reading whole played games' logs (seeded random
games of play.py, narrated turn by turn), each reproduced here in a small position (helpers.py),
fixed dice, driven through the ruleset's public ``decide``."""

from __future__ import annotations

from domain.rulesets.falklands import state as S
from projections.narrate import describe

from .helpers import (
    AR, UK, FixedDice, R, answer, broken, control, events_of, fire, op, pending, place, play, rolls_of, uk,
)
from .test_rules_random_events import draw


# ------------------------------------------------------------ FS 11.3 4-1/4-3 with 10.6, 10.7 ---
def test_fs_11_3_4_1_a_battle_die_rolled_again_keeps_its_shot_and_its_modifiers():
    """FS 11.3 4-1: the marker makes "the rolling player ... roll that die again": the same shot,
    at the same hit number for the same reasons (FS 10.7: "UK units attacking in those areas do so
    with their hit numbers reduced by one"). In played games the re-rolled battle die was recorded
    as "re-roll (...): die" with no modifiers, so the log read "Glamorgan, 3rd Infantry Regiment:
    needed ≤ 1" for a printed 2 with nothing to say why; the first die of the same shot said
    "printed 2, -1 AR entrenchments". The re-roll names the shot and carries its modifiers."""
    st = uk()
    place(st, "glamorgan", S.TACTICAL)
    place(st, "ri_3", "port_stanley")
    control(st, AR, "port_stanley")
    st["markers"][UK] = ["uk_decisive_leader"]
    out, st = play(st, UK, op(21, units=["glamorgan"], area="port_stanley", fire="auto"), FixedDice(6))
    assert pending(st)["kind"] == "leadership"
    (first,) = rolls_of(out)
    out, st = answer(st, UK, {"reroll": 0}, FixedDice(1))
    (again,) = rolls_of(out)
    assert first.target["hit_number"] == again.target["hit_number"] == 1
    assert again.target["modifiers"] == first.target["modifiers"] == [
        {"value": -1, "reason": "AR entrenchments (FS 10.7)"}]
    assert again.purpose == "re-roll (UK decisive leadership): Glamorgan fires at 3rd Infantry Regiment"
    assert st["units"]["ri_3"]["eliminated"]


# ------------------------------------------------------------------- FS 7.1 Op #11, 10.7 ---
def test_fs_7_1_op_11_the_log_tells_an_interception_from_a_battle_in_the_area_the_flight_is_bound_for():
    """Op #11: the carriers "interrupt the AR operation in order to make an attack on those AR
    aircraft", fought on the flight's route (the 10.9 example halts the planes "in that sea area
    next to the Falklands Sea Area"), so Goose Green's entrenchments (10.7: "UK units attacking in
    those areas") do not cut the carriers' hit numbers. Played games' logs read "Battle in Goose
    Green: UK attacks with Hermes against Dagger 1 (FS 7.1 Op #11)" and then "needed ≤ 3" with no
    entrenchment: read as written, a battle in Goose Green missing its -1. The line says it is the
    interception of the flight bound there."""
    st = uk("AR Operations")
    place(st, "hermes", S.TACTICAL)
    place(st, "dagger_1", S.ARGENTINA)
    control(st, AR, "goose_green")
    out, st = play(st, AR, op(3, origin=S.ARGENTINA, destination="goose_green", aircraft=["dagger_1"]))
    assert pending(st)["kind"] == "interception"
    out, st = answer(st, UK, {"fire": fire(("hermes", "dagger_1"))}, FixedDice(6, 6, 6))
    (battle,) = events_of(out, "BattleBegun")
    assert (battle["area"], battle["kind"]) == ("goose_green", "interception")
    assert {r.target["hit_number"] for r in rolls_of(out)} == {3}  # the printed anti-air 3, no 10.7
    line = describe({"type": "BattleBegun", "data": battle}, R)
    assert line == ("Interception of the flight to Goose Green: UK fires with Hermes at Dagger 1, on its way "
                    "(FS 7.1 Op #11)")


# ---------------------------------------------------------------- FS 7.1 Op #21, #17, 10.2 ---
def test_fs_10_2_a_ship_that_cannot_fire_at_the_area_is_no_part_of_a_bombardment():
    """Op #21 uses "a force of friendly surface ships ... to attack enemy ground units and/or
    land-based aircraft"; 10.2: "Units participate in combat ... by 'firing'", and "If a unit
    doesn't posses the ability to engage a certain type of target, it may not fire at that type".
    Played games' logs read "Battle in Fox Bay: UK attacks with Ardent, Canberra" for a
    bombardment in which Canberra (anti-ground 0, nothing else there) fired nothing, and the offer
    listed Stromness (every factor 0) for Op #21. As an aircraft that can fire at none of an
    attack's targets may not join it (ops.able_to_fire), such a ship is refused, FS 10.2, and not
    offered; Canberra's anti-air 1 still bombards AR aircraft on the ground."""
    st = uk()
    for ship in ("ardent", "canberra", "stromness", "fearless"):
        place(st, ship, S.TACTICAL)
    place(st, "40_cdo", aboard="fearless")
    place(st, "ri_8", "fox_bay")
    control(st, AR, "fox_bay")
    offer = R.operation_template(st, UK, 21)["choices"]["units"]
    assert "stromness" not in offer and "canberra" not in offer and "ardent" in offer
    for bad in ("canberra", "stromness"):
        e = broken(st, UK, op(21, units=["ardent", bad], area="fox_bay", fire="auto"), "FS 10.2")
        assert "may not join" in str(e)
        broken(st, UK, op(17, area="fox_bay", wave=["40_cdo"], bombard=["ardent", bad]), "FS 10.2")
    out, _ = play(st, UK, op(21, units=["ardent"], area="fox_bay", fire="auto"), FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["ardent"]
    # AR aircraft on the ground there: Canberra's anti-air factor bombards them.
    place(st, "pucara_1", "goose_green")
    place(st, "ri_12", "goose_green")
    control(st, AR, "goose_green")
    assert "canberra" in R.operation_template(st, UK, 21)["choices"]["units"]
    out, _ = play(st, UK, op(21, units=["canberra"], area="goose_green", fire="auto"), FixedDice(6))
    assert events_of(out, "BattleBegun")[0]["attackers"] == ["canberra"]


def test_fs_10_2_op_17_offers_for_its_bombardment_only_ships_that_can_fire_into_an_assault_area():
    """The same reading for Op #17's offer: "Friendly ships in that same sea area may conduct a
    naval bombardment of the landing area": Stromness (every factor 0) is not offered; Ardent is."""
    st = uk()
    for ship in ("ardent", "stromness", "fearless"):
        place(st, ship, S.TACTICAL)
    place(st, "40_cdo", aboard="fearless")
    place(st, "ri_8", "fox_bay")
    control(st, AR, "fox_bay")
    offer = R.operation_template(st, UK, 17)["choices"]["bombard"]
    assert "ardent" in offer and "fearless" in offer and "stromness" not in offer


# ------------------------------------------------------------------------------ FS 11.3 4-5 ---
def test_fs_11_3_4_5_the_log_counts_the_operations_left_before_the_two_vp():
    """4-5: "The UK player must conduct an amphibious landing and/or ground attack sometime within
    his next three operations or the AR player is awarded two VP at the end of that third UK
    operation." Played games' logs repeated "UK: UK political pressure (FS 11.3 4-5)" after each
    UK operation, never saying how many were left: the reader could not check that the +2 came at
    the end of the third. Each line now says it (both counts when 4-5 was rolled twice)."""
    out, st = draw(uk("AR Operations"), 4, 5)
    lines = [describe({"type": "EffectGained", "data": e}, R) for e in events_of(out, "EffectGained")]
    assert lines == ["UK: UK Political Pressure for a Decision: an amphibious landing or ground attack within "
                     "the next 3 UK operations, or +2 VP to the AR (FS 11.3 4-5)"]
    assert st["phase"] == "UK Operations"
    out, st = play(st, UK, {"kind": "pass"})
    (gained,) = events_of(out, "EffectGained")
    assert describe({"type": "EffectGained", "data": gained}, R).endswith(
        "within the next 2 UK operations, or +2 VP to the AR (FS 11.3 4-5)")
